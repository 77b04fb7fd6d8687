"""Colours F#, VB and other non-C# sources for the HTML report with Pygments (html.highlight_lines; C# has its
own, faster path in csharp.py).

The file is lexed once; each token becomes HTML with Pygments' short class (`k`, `s2`, `c1`...), and a token
spanning lines gets a span per line. Pygments' RegexLexers run through _FastRegexDriver, which gives the same
tokens with fewer regular-expression calls. Imported only when such a file is coloured: Pygments' lexers take
noticeable time to import.
"""

from __future__ import annotations

import os
import re

from pygments.lexer import ExtendedRegexLexer, RegexLexer
from pygments.lexers import CSharpLexer, FSharpLexer, TextLexer, VbNetLexer
from pygments.token import STANDARD_TYPES, Token, _TokenType

__all__ = ["highlight"]

_LEXERS = {
    ".cs": CSharpLexer, ".csx": CSharpLexer,
    ".fs": FSharpLexer, ".fsi": FSharpLexer, ".fsx": FSharpLexer,
    ".vb": VbNetLexer,
}
_lexer_cache: dict[type, object] = {}
_css_cache: dict = {}


def _lexer_for(path: str):
    cls = _LEXERS.get(os.path.splitext(path)[1].lower(), TextLexer)
    lexer = _lexer_cache.get(cls)
    if lexer is None:
        # stripnl=False: leading/trailing blank lines must keep their numbers.
        lexer = _lexer_cache[cls] = cls(stripnl=False, ensurenl=False, tabsize=0)
    return lexer


class _FastRegexDriver:
    """Runs a Pygments RegexLexer's own rules faster, with identical tokens.

    Pygments tries a state's rules one by one at each position (about ten regex calls per
    token for C#). Here each state's rules become one alternation, `(?P<_0>rule0)|(?P<_1>rule1)|...`:
    Python's `re` takes the first alternative that matches at the position, which is
    exactly the rule Pygments would pick. Plain token actions use the match directly;
    callbacks (`bygroups`, `using`) get that rule's own match, as in Pygments. States whose
    rules cannot be combined (back-references, inline flags, named groups) keep Pygments'
    loop. Tests compare the token streams with Pygments' on many inputs.
    """

    _UNSAFE = re.compile(r"\\[1-9]|\(\?P[=<]|\(\?[aiLmsux]+\)|\(\?[aiLmsux-]+:")

    def __init__(self, lexer):
        self.lexer = lexer
        self.states = {}
        for name, rules in lexer._tokens.items():
            self.states[name] = self._combine(rules)

    def _combine(self, rules):
        patterns = []
        flags = None
        for rexmatch, _action, _new_state in rules:
            pattern = getattr(rexmatch, "__self__", None)
            if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str) \
                    or self._UNSAFE.search(pattern.pattern) or (flags is not None and pattern.flags != flags):
                return None
            flags = pattern.flags
            patterns.append(f"(?P<_{len(patterns)}>{pattern.pattern})")
        if not patterns:
            return None
        try:
            combined = re.compile("|".join(patterns), flags)
        except (re.error, OverflowError, RecursionError):
            return None
        index = {f"_{i}": rule for i, rule in enumerate(rules)}
        return combined.match, index

    def tokens(self, text):
        """(ttype, value) pairs, as `RegexLexer.get_tokens_unprocessed` yields them (minus positions)."""
        lexer = self.lexer
        tokendefs = lexer._tokens
        states = self.states
        token_type = _TokenType
        statestack = ["root"]
        statetokens = tokendefs["root"]
        fast = states["root"]
        pos = 0
        while True:
            if fast is not None:
                m = fast[0](text, pos)
                if m is not None:
                    rexmatch, action, new_state = fast[1][m.lastgroup]
                    if type(action) is token_type:
                        yield action, m.group()
                        pos = m.end()
                    else:
                        m = rexmatch(text, pos)
                        if action is not None:
                            for _, t, v in action(lexer, m):
                                yield t, v
                        pos = m.end()
                    matched = True
                else:
                    matched = False
            else:
                for rexmatch, action, new_state in statetokens:
                    m = rexmatch(text, pos)
                    if m:
                        if action is not None:
                            if type(action) is token_type:
                                yield action, m.group()
                            else:
                                for _, t, v in action(lexer, m):
                                    yield t, v
                        pos = m.end()
                        matched = True
                        break
                else:
                    matched = False
            if matched:
                if new_state is not None:
                    if isinstance(new_state, tuple):
                        for state in new_state:
                            if state == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif state == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(state)
                    elif isinstance(new_state, int):
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    else:
                        raise AssertionError(f"wrong state def: {new_state!r}")
                    statetokens = tokendefs[statestack[-1]]
                    fast = states.get(statestack[-1])
                continue
            if pos >= len(text):
                break
            if text[pos] == "\n":
                statestack = ["root"]
                statetokens = tokendefs["root"]
                fast = states["root"]
                yield Token.Text.Whitespace, "\n"
                pos += 1
                continue
            yield Token.Error, text[pos]
            pos += 1


_driver_cache: dict = {}


def _token_stream(lexer, text: str):
    """The lexer's tokens for `text`: Pygments' own, or the same ones from the fast driver."""
    cls = type(lexer)
    if isinstance(lexer, RegexLexer) and not isinstance(lexer, ExtendedRegexLexer) \
            and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed and not lexer.filters:
        driver = _driver_cache.get(cls)
        if driver is None:
            driver = _driver_cache[cls] = _FastRegexDriver(lexer)
        if text.startswith("\ufeff"):  # as Lexer.get_tokens
            text = text[1:]
        return driver.tokens(text)
    return lexer.get_tokens(text)


def _css_class(ttype) -> str:
    """Pygments' short class name (`k`, `s2`, `c1`...) of `ttype` or its nearest ancestor."""
    cls = _css_cache.get(ttype)
    if cls is None:
        t = ttype
        while t not in STANDARD_TYPES:
            t = t.parent
        cls = _css_cache[ttype] = STANDARD_TYPES[t]
        if ttype in (Token.Text, Token.Text.Whitespace, Token.Whitespace):
            cls = _css_cache[ttype] = ""
    return cls


_piece_cache: dict = {}  # (token type, text) -> HTML: tokens repeat a lot


def _piece(ttype, value: str) -> str:
    """One token as HTML; a token spanning lines gets a span per line, keeping the `\\n`s."""
    cls = _css_cache.get(ttype)
    if cls is None:
        cls = _css_class(ttype)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if not cls:
        return value
    return "\n".join(f'<span class="{cls}">{p}</span>' if p else "" for p in value.split("\n"))


def highlight(text: str, path: str) -> str:
    """`text` (normalised: html._normalize) as HTML, line breaks kept."""
    cache = _piece_cache
    if len(cache) > 200_000:
        cache.clear()
    parts: list[str] = []
    append = parts.append
    for token in _token_stream(_lexer_for(path), text):
        piece = cache.get(token)
        if piece is None:
            piece = cache[token] = _piece(*token)
        append(piece)
    return "".join(parts)
