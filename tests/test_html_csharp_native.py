"""The HTML report's C# colouring (_native.csharp_colour, native/python/native_csharp.cpp) against its oracle, the
same rules as regular expressions (tests/oracles/csharp_colour.py): the same HTML, byte for byte, on every C# file
of the repository, on layout (a)'s generated source (benchmarks/report_scale.py) and on random C#-like text.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from oracles import csharp_colour as oracle  # noqa: E402

from dotcov import _native  # noqa: E402
from dotcov.html import csharp as html_csharp  # noqa: E402
from dotcov.html import report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import report_scale  # noqa: E402


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _oracle_lines(source: str) -> list[str]:
    """What html.highlight_lines made of a C# source's colours before they were native."""
    lines = oracle.highlight_escaped(_escaped(source)).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _same(text: str) -> None:
    # The source as it is and as if it were the escaped text (random text holds `&lt;` of its own).
    assert _native.csharp_lines(text) == _oracle_lines(text), text
    ours, theirs = _native.csharp_colour(text), oracle.highlight_escaped(text)
    if ours != theirs:
        i = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        pytest.fail(f"{text!r}: at {i}, native {ours[max(0, i - 40):i + 40]!r}, "
                    f"oracle {theirs[max(0, i - 40):i + 40]!r}")


def test_product_uses_the_native_colouring():
    assert html_csharp.highlight_escaped is _native.csharp_colour
    assert html_csharp.lines is _native.csharp_lines
    assert report.highlight_lines("\ufeffint x;\r\na < b\n", "C.cs") == ['<span class="kt">int</span> x;', "a &lt; b"]


@pytest.mark.parametrize("text", ["", "\n", "\n\n", "x", "x\n", "a\nb", "/* a\n\nb */\n"])
def test_lines_split_as_before(text):
    assert _native.csharp_lines(text) == _oracle_lines(text)


def test_repository_sources():
    paths = sorted(p for top in ("samples", "tests") for p in (ROOT / top).rglob("*.cs")
                   if "obj" not in p.parts and "bin" not in p.parts)
    assert len(paths) > 50
    for path in paths:
        _same(_escaped(path.read_text("utf-8-sig", errors="replace").replace("\r\n", "\n")))


def test_layout_a_source():
    body = "".join(report_scale.method(i) for i in range(100))
    _same(_escaped(f"namespace ScaleLib;\n\npublic static class C7\n{{{body}}}\n"))


# Pieces of C#-like text, odd ones included: escaped `&lt;` in character literals, verbatim and interpolated
# strings, strings unterminated at a line's end or the text's, comments over lines and unclosed, preprocessor lines,
# `@`identifiers, non-ASCII letters and digits (\w and \d are Unicode), Unicode spaces and line separators.
_PIECES = ["int", "int?", "void?", "x", "x?", "1", "12.5e+3f", "0x1F", "1.", "1e", "1if", "x1", "_a", "é", "ß", "Ω",
           "٣", "²", "x٣", "١٢", "\u2028", "\x85", "\u3000", "\xa0", "\x1c", "\t", " ", "\n", "\n\n", "\r", "\x00",
           '"a\\"b"', '"\\\\"', '"', '"x', "\"x\\", '@"', '@"x""y"', '@"a\nb"', '""', '$"', '$"{a}"', '$"x', "$", "@",
           "@if", "@x", "@1", "@@", "'c'", "'\\n'", "'\\'", "'&lt;'", "'&amp;'", "'&gt;'", "'&quot;'", "'&lt;",
           "'", "''", "'''", "&lt;", "&gt;", "&amp;", "//c", "//", "/* a\n b */", "/*", "*/", "/*/", "/", "*",
           "#region r", "#if X", "#ifdef", "#", "# pragma warning", "#elif", "#endregion", "class", "struct",
           "subclass", "namespace", "using", "using static", "global::", "global", "extern alias", "extern",
           "alias", "(", ")", "[", "]", "[]", "[Attr]", "\n[A(1)]\n", "\n  [A]", "{", "}", ";", ".", ",", ":",
           "::", "=>", "&&", "?", "\\", "`", "©", "€", "→", "return", "Foo", "public", "static", "\n    public static int F(",
           "string[] G(", "int[]\nH (", "\nclass C\n{\n", "Foo<int> H<T>(", "\nA B(", "\n@a @b(", "\nx y\nz (",
           "namespace A.B.C", "using @x.y", "class @C", "struct\nS", "async", "as", "value", "é if",
           "\u200b", "e\u0301", "\U0001d7d8", "Ⅻ", "\U00010000", "\u202e", "\ufeff", "ﬁ", "İ"]


def _random_text(rng: random.Random) -> str:
    if rng.random() < 0.2:  # a character soup
        return "".join(rng.choice("ab1_ \n\t@$\"'#/*\\[]();&lt:.?é٣\u2028") for _ in range(rng.randint(0, 30)))
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 16)))


def test_random_text():
    rng = random.Random(24)
    for _ in range(6000):
        _same(_random_text(rng))


@pytest.mark.parametrize("text", ["", "\n", " ", "x", "'", "@", "\\", "/*", '@"', "#if", "\u2028", "\U0001f600 int",
                                  "\ud800 x", "x" * 100_000 + " int", "\n[" + "a" * 10_000, ("\n[" * 2000) + "]"])
def test_edge_texts(text):
    _same(text)


def test_a_text_bigger_than_the_kept_buffers():
    # Past what the native code keeps between calls (then freed): the same lines, and the next call as usual.
    assert _native.csharp_lines("int x;\n" * 700_000) == ['<span class="kt">int</span> x;'] * 700_000
    assert _native.csharp_lines("int x;") == ['<span class="kt">int</span> x;']


def test_not_a_str():
    with pytest.raises(TypeError):
        _native.csharp_colour(b"int x;")
