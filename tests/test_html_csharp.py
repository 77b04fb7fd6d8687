"""html_csharp's one-pass C# colouring against Pygments' CSharpLexer: the same colour for every character.

"Colour" is the CSS group of style.css (all comment classes are one colour, all string classes another...);
names, operators and punctuation have none. Compared on every C# sample and on random C#-like text. Known
differences, rare or in code that does not compile, are left out of the random text: a number directly followed
by a letter (`1if`), `namespace`/`using` followed by neither a name nor `(`, and a declaring keyword (`class`,
`namespace`...) at the end of a line (Pygments colours the next line's first word as the declared name).
Every text here ends with a line break: at the very end of a file without one, CSharpLexer does not take a
`//` comment or `#endif` (its rules need the break), dotcov does.
"""

from __future__ import annotations

import html
import random
import re
from pathlib import Path

import pytest
from pygments.lexers import CSharpLexer

from dotcov.html import pygments_colours as html_pygments
from dotcov.html import csharp as html_csharp

ROOT = Path(__file__).resolve().parents[1]
_GROUPS = {}
for _group in ("c ch cm c1 cs cpf", "cp", "k kc kd kn kp kr ow", "kt", "s s1 s2 sa sb sc sd se sh si sx sr ss dl",
               "m mi mf mh mo mb il", "nf fm", "nc nn", "na nd", "nb bp", "err"):
    for _cls in _group.split():
        _GROUPS[_cls] = _group.split()[0]
_SPAN = re.compile(r'<span class="([^"]*)">(.*?)</span>|([^<]+)', re.S)


def _colours(markup: str) -> list[str]:
    out: list[str] = []
    for cls, inner, plain in _SPAN.findall(markup):
        out += [_GROUPS.get(cls, "")] * len(html.unescape(inner if cls else plain))
    return out


def _pygments(text: str) -> list[str]:
    """Pygments' colours, through dotcov's own token-to-HTML path (html_pygments._piece)."""
    lexer = CSharpLexer(stripnl=False, ensurenl=False)
    return _colours("".join(html_pygments._piece(t, v) for t, v in lexer.get_tokens(text)))


def _ours(text: str) -> list[str]:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = html_csharp.highlight_escaped(escaped)
    assert html.unescape(re.sub("<[^>]*>", "", out)) == text  # the text itself is kept
    return _colours(out)


def _check(text: str) -> None:
    ours, theirs = _ours(text), _pygments(text)
    n = min(len(ours), len(theirs))  # Pygments may add a final line break
    bad = [i for i in range(n) if ours[i] != theirs[i]]
    assert not bad, (text, [(text[i], theirs[i], ours[i]) for i in bad[:5]])


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "samples").rglob("*.cs")
                                        if "obj" not in p.parts and "bin" not in p.parts),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_samples_coloured_as_pygments(path):
    _check(path.read_text("utf-8-sig").replace("\r\n", "\n"))


_PIECES = ["int", "x", "1", "0x1F", "1.5f", "1e+5", '"a\\"b"', '@"x""y"', '$"{a}"', "'c'", "'\\n'", "'<'", "//c\n",
           "/* a\n b */", "#region r\n", "#if X\n", "#", "class", "struct", "namespace", "using", "global::",
           "extern alias", " ", "\n", "\t", "(", ")", "[", "]", "[Attr]", "{", "}", ";", ".", "<", ">", "&", "&&",
           "=>", "/", "*", "@if", "@x", "@", "$", "var", "int?", "return", "Foo", "public", "static", "void",
           "é", "x1", "_a", '"unterminated\n', "'", '"', "?", "\\", "`", "©", "    public static int F(",
           "\n[A(1)]\n", "string[] G(", "class C\n{\n", "Foo<int> H<T>("]


def test_random_text_coloured_as_pygments():
    rng = random.Random(15)
    checked = 0
    while checked < 3000:
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 14))) + "\n"
        if re.search(r'[0-9][^\W\d]|(namespace|using)\s*(?![^\W\d]|@(?!")|[(\s])|(class|struct|namespace|using)[ \t]*\n', text):
            continue  # the known differences (module docstring)
        _check(text)
        checked += 1


def test_multiline_tokens_split_per_line():
    out = html_csharp.highlight_escaped('/* a\nb */ x = @"1\n2";\n').split("\n")
    assert out[:3] == ['<span class="cm">/* a</span>', '<span class="cm">b */</span> x = <span class="s">@"1</span>',
                       '<span class="s">2"</span>;']
