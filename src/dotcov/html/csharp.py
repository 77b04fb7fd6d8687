"""C# highlighting for the HTML report: Pygments' CSharpLexer colours, in one native pass (_native.csharp_colour,
native/python/native_csharp.cpp).

The rules are CSharpLexer's (Pygments 2.x), in its order and so with its quirks: `0x1F` is the number `0` and the
name `x1F`; `return F(` at a line start names `F` a function. A first pass takes the tokens that can hold other
tokens' text (comments, strings, characters, preprocessor lines) and the line-start rules (a declaration's name
before `(`, its modifiers and type coloured as code of their own; an attribute `[...]`); the code between them is
split into words looked up in a table (keywords, types, numbers), or, where it holds a word with a rule of its own
(class, struct, namespace, using, extern, global) or an odd character, lexed by the full rules. Names, operators and
punctuation get no span (style.css gives them no colour). The text is escaped before it is coloured, so a character
literal may be `'&lt;'`. Character classes are Python `re`'s for str (Unicode \\w, \\d, \\s).

tests/oracles/csharp_colour.py states the same rules as regular expressions (tests/test_html_csharp_native.py
compares the two byte for byte); tests/test_html_csharp.py compares the colour of every character with Pygments'.
"""

from __future__ import annotations

from dotcov import _native

__all__ = ["highlight_escaped", "lines"]

highlight_escaped = _native.csharp_colour
"""C# source already HTML-escaped (`&`, `<`, `>`) with its colours as `<span class="...">` (Pygments' short token
classes), line breaks kept: a token over several lines is closed and reopened at each one."""

lines = _native.csharp_lines
"""C# source (not escaped) as HTML lines: highlight_escaped of the escaped text split at its line breaks, without
the empty piece after a last break (html.highlight_lines)."""
