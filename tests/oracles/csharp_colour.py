"""The HTML report's C# colouring (dotcov.html.csharp, native/python/native_csharp.cpp) stated as regular
expressions: the oracle tests/test_html_csharp_native.py compares the native one with, byte for byte.

CSharpLexer's rules (Pygments 2.x, the same order and so the same quirks: `0x1F` is the number `0` and the name
`x1F`; `return F(` at a line start names `F` a function) applied in two passes (see _LEADING): comments, strings,
characters, preprocessor lines and the line-start rules by one regular expression, then the code between them by
splitting it into words looked up in a table (keywords, types, numbers); a stretch of code holding a word with a rule
of its own or an odd character takes the full rules (_INNER). Names, operators and punctuation get no span. The text
is escaped before it is matched, so a character literal may be `'&lt;'`.
"""

from __future__ import annotations

import re

_ID = r"@?[^\W\d]\w*"
_NOT_AFTER_NAME = r"(?<![\w@])"  # names are not matched as tokens, so a word rule must not start inside one

_KEYWORDS = (
    "abstract|as|async|await|base|break|by|case|catch|checked|const|continue|default|delegate|do|else|enum|"
    "event|explicit|extern|false|finally|fixed|for|foreach|goto|if|implicit|in|interface|internal|is|let|lock|"
    "new|null|on|operator|out|override|params|private|protected|public|readonly|ref|return|sealed|sizeof|"
    "stackalloc|static|switch|this|throw|true|try|typeof|unchecked|unsafe|virtual|void|while|get|set|partial|"
    "yield|add|remove|value|alias|ascending|descending|from|group|into|orderby|select|thenby|where|join|equals")
_TYPES = "bool|byte|char|decimal|double|dynamic|float|int|long|object|sbyte|short|string|uint|ulong|ushort|var"

# The full rules, in CSharpLexer's order; each alternative is one named group (its kind), inner groups are
# unnamed. Used for the line-start rules' tokens and for the rare stretches of code the fast path leaves.
_RULES = [
    # `[ws] type... name (`: the return type is lexed again (keywords in it), the name is a function.
    ("decl", rf"^([ \t]*)((?:{_ID}(?:\[\])?\s+)+?)({_ID})(\s*)\("),
    ("attr", r"^(\s*)(\[.*?\])"),
    ("c1", r"//[^\n]*"),
    ("cm", r"/\*.*?\*/"),
    ("verbatim", r'@"(?:""|[^"])*"'),
    ("string", r'\$?"(?:\\\\|\\[^\\]|[^"\\\n])*["\n]'),
    ("char", r"'\\.'|'(?:&(?:lt|gt|amp);|[^\\])'"),
    ("number", r"(?<!\w)(?:[0-9]+(?:\.[0-9]*)?(?:[eE][+-][0-9]+)?[flFLdD]?|0[xX][0-9a-fA-F]+[Ll]?)"),
    ("cp", r"#[ \t]*(?:if|endif|else|elif|define|undef|line|error|warning|region|endregion|pragma)\b[^\n]*"),
    ("alias", _NOT_AFTER_NAME + r"(extern)(\s+)(alias)\b"),
    ("k", _NOT_AFTER_NAME + rf"(?:{_KEYWORDS})\b"),
    ("global", _NOT_AFTER_NAME + r"global(?=::)"),
    ("kt", _NOT_AFTER_NAME + rf"(?:{_TYPES})\b\??"),
    ("class", _NOT_AFTER_NAME + rf"(class|struct)(\s+)({_ID})?"),
    ("namespace", _NOT_AFTER_NAME + rf"(namespace|using)(\s+)((?:{_ID}|\.)+)?"),
    # What no CSharpLexer rule takes (not a name, space, operator or punctuation): an error token.
    ("err", r'\\(?!\n)|@(?![^\W\d]|")|[^\w\s!%&*+\-/<=>?^|~()\[\];:,.{}@\\]'),
]
_PATTERN = re.compile("|".join(f"(?P<{kind}>{rule})" for kind, rule in _RULES), re.MULTILINE | re.DOTALL)
# For stretches between _LEADING's tokens, where a line-start rule has been tried already (and a stretch
# may begin mid-line).
_INNER = re.compile("|".join(f"(?P<{kind}>{rule})" for kind, rule in _RULES if kind not in ("decl", "attr")),
                    re.MULTILINE | re.DOTALL)

_SIMPLE = {"c1": "c1", "cm": "cm", "verbatim": "s", "string": "s", "char": "sc", "number": "m", "cp": "cp",
           "k": "k", "global": "k", "kt": "kt", "err": "err"}


def _span(cls: str, text: str) -> str:
    if "\n" not in text:
        return f'<span class="{cls}">{text}</span>'
    # A token over several lines: one span per line, so that each line stands on its own.
    return "\n".join(f'<span class="{cls}">{p}</span>' if p else "" for p in text.split("\n"))


def _replace(m: re.Match) -> str:
    kind = m.lastgroup
    cls = _SIMPLE.get(kind)
    if cls is not None:
        return _span(cls, m.group())
    g = m.groups()
    i = m.re.groupindex[kind]  # the tuple index of the first group inside the kind's own
    if kind == "decl":
        types = _DECL_TYPES.get(g[i + 1])
        if types is None:  # the same few ("public static int ") over and over
            if len(_DECL_TYPES) > 10_000:
                _DECL_TYPES.clear()
            types = _DECL_TYPES[g[i + 1]] = highlight_escaped(g[i + 1])
        return g[i] + types + _span("nf", g[i + 2]) + g[i + 3] + "("
    if kind == "attr":
        return g[i] + _span("na", g[i + 1])
    if kind == "alias":
        return _span("k", g[i]) + g[i + 1] + _span("k", g[i + 2])
    # class or namespace: the keyword, then the name it declares (when one follows)
    return _span("k", g[i]) + g[i + 1] + (_span(_DECLARED[kind], g[i + 2]) if g[i + 2] else "")


_DECLARED = {"class": "nc", "namespace": "nn"}
_DECL_TYPES: dict[str, str] = {}  # a declaration's modifiers and return type -> HTML


# The fast path. Tokens that can hold other tokens' text (comments, strings, characters, preprocessor
# lines) and the line-start rules (method declarations, attributes) are found first by a pattern whose every
# alternative starts with a literal character, so `re` skips the other characters in C. Between them is
# plain code: split into words, each looked up in a table (keywords, types, numbers); a stretch of code that
# holds a word with a rule of its own (class, namespace...) or an error character takes the full pattern.
_LEADING = re.compile("|".join([
    # decl, possessive where backtracking cannot change the outcome (a name never ends before a name char)
    rf"\n[ \t]*+(?:@?[^\W\d]\w*+(?:\[\])?\s++)+?@?[^\W\d]\w*+\s*+\(",
    r"\n\s*\[.*?\]",  # attr
    r"//[^\n]*", r"/\*.*?\*/",
    # Strings end at a quote or before the line break (CSharpLexer takes the break, but then the next
    # line's start would be lost to the line-start rules).
    r'@"(?:""|[^"])*"', r'\$"(?:\\\\|\\[^\\]|[^"\\\n])*(?:"|(?=\n))',
    r'"(?:\\\\|\\[^\\]|[^"\\\n])*(?:"|(?=\n))',
    r"'\\.'", r"'&(?:lt|gt|amp);'", r"'[^\\]'",
    r"\#[ \t]*(?:if|endif|else|elif|define|undef|line|error|warning|region|endregion|pragma)\b[^\n]*",
]), re.MULTILINE | re.DOTALL)
_FULL_WORD = re.compile("class|struct|namespace|using|extern|global")  # literal alternatives: a fast search
_ODD_CHAR = re.compile(r'[^\w\s!%&*+\-/<=>?^|~()\[\];:,.{}]')  # what only the full pattern handles (err, @, $)
_WORDS = re.compile(r"(@?[^\W\d]\w*\??|[0-9]+(?:\.[0-9]*)?(?:[eE][+-][0-9]+)?[flFLdD]?)")
_WORD_HTML: dict[str, str] = {}


def _reset_words() -> None:
    _WORD_HTML.clear()
    for w in _KEYWORDS.split("|"):
        _WORD_HTML[w] = _span("k", w)
    for w in _TYPES.split("|"):
        _WORD_HTML[w] = _span("kt", w)
        _WORD_HTML[w + "?"] = _span("kt", w + "?")


def _word(w: str) -> str:
    if w[0] in "0123456789":
        html = _span("m", w)
    elif w[-1] == "?":  # only a type takes its `?` along (`int?`); `void?` is a keyword and an operator
        html = _WORD_HTML.get(w[:-1], w[:-1]) + "?"
    else:
        html = w
    _WORD_HTML[w] = html
    return html


def _code(text: str) -> str:
    """Plain code (no comment, string, character or line-start rule in it) with its colours."""
    if not text or text.isspace():  # between two comments or strings, often only the indentation
        return text
    # Line by line: no word spans a line, so a line's HTML is the same wherever it appears, and code lines
    # repeat (braces, `return x;`, the same statement in many methods): each distinct line is split once.
    # The cache holds plain lines only, and neither a full-pattern word nor an odd character spans a break,
    # so a stretch is plain when each of its lines is: only lines not seen before are searched.
    if len(_LINE_HTML) > 100_000:
        _LINE_HTML.clear()
    cache = _LINE_HTML
    out = []
    append = out.append
    for line in text.split("\n"):
        html = cache.get(line)
        if html is None:
            if _FULL_WORD.search(line) or _ODD_CHAR.search(line):
                return _INNER.sub(_replace, text)
            html = cache[line] = _words(line)
        append(html)
    return "\n".join(out)


_LINE_HTML: dict[str, str] = {}  # a line of plain code (no full-pattern word, no odd character) -> its HTML


def _words(text: str) -> str:
    parts = _WORDS.split(text)
    if len(_WORD_HTML) > 100_000:
        _reset_words()
    table = _WORD_HTML
    parts[1::2] = [table[w] if w in table else _word(w) for w in parts[1::2]]
    return "".join(parts)


def highlight_escaped(text: str) -> str:
    """C# source already HTML-escaped (`&`, `<`, `>`) with its colours as `<span class="...">` (Pygments'
    short token classes), line breaks kept: a token over several lines is closed and reopened at each one."""
    text = "\n" + text  # every line-start rule then starts with a line break
    out = []
    pos = 0
    for m in _LEADING.finditer(text):
        start = m.start()
        token = m.group()
        if token[0] == "\n":  # a line-start rule: the break goes with the code before (`class` + break)
            out.append(_code(text[pos:start + 1]))
            out.append(_PATTERN.sub(_replace, token[1:]))
        else:
            if start > pos:
                out.append(_code(text[pos:start]))
            out.append(_replace_leading(token))
        pos = m.end()
    out.append(_code(text[pos:]))
    return "".join(out)[1:]


def _replace_leading(token: str) -> str:
    return _span(_LEADING_CLASS[token[0]] if token[0] != "/" else ("c1" if token[1] == "/" else "cm"), token)


_LEADING_CLASS = {"@": "s", "$": "s", '"': "s", "'": "sc", "#": "cp"}
_reset_words()
