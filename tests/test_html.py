"""The HTML report: gold files, escaping, missing sources, the index's data, and a real browser.

Set DOTCOV_UPDATE_GOLD=1 to rewrite tests/gold/html/*.html from the current output.
The browser test needs /usr/bin/chromium (scripts/setup.sh installs it).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from lxml import html as lxml_html

from dotcov.html import directory as html_dir
from dotcov.analysis.numbers import Analysis
from dotcov.api import Coverage, CoverageError
from dotcov.html.report import highlight_lines, page_name, read_source, templates_dir, write_html
from dotcov.analysis.model import (
    AssemblyCoverage,
    BranchCoverage,
    ClassCoverage,
    CoverageResult,
    FileCoverage,
    MethodCoverage,
)
from dotcov.reports.text import display_percent, summarize

GOLD = Path(__file__).resolve().parent / "gold" / "html"
SRC = GOLD / "src"  # the sample's source files (checked in, read by the report)
CHROMIUM = Path("/usr/bin/chromium")

# The colours the report's CSS uses for covered and missed lines (backgrounds) and bars.
RUN_BG = (0xDC, 0xFC, 0xE7)
MIS_BG = (0xFE, 0xE2, 0xE2)
BAR_FILL = (0x22, 0xC5, 0x5E)
BAR_TRACK = (0xF8, 0x71, 0x71)


def sample_result(root: Path = SRC) -> CoverageResult:
    """Two assemblies; a file in both; branches (one partial line); excluded lines; F#."""
    r = str(root)
    calc_file = FileCoverage(
        f"{r}/Calc/Calculator.cs",
        lines={8: 3, 11: 2, 12: 2, 13: 0, 14: 0, 15: 0, 16: 2, 17: 2},
        branches={12: BranchCoverage(2, 4, ["true of `b == 0`", "true of `a < 0`"])},
        excluded={21, 22, 23},
    )
    parser = FileCoverage(f"{r}/Calc/Parser.cs", {6: 0, 7: 0, 8: 0})
    shared_in_calc = FileCoverage(f"{r}/Lib/Shared.cs", {5: 1})
    shared_in_lib = FileCoverage(f"{r}/Lib/Shared.cs", {5: 2})
    util = FileCoverage(f"{r}/Lib/Util.fs", {3: 5, 5: 2, 6: 2, 7: 1, 8: 1},
                        branches={6: BranchCoverage(2, 2)})
    calc = AssemblyCoverage(
        "Calc",
        classes=[ClassCoverage("Calc.Calculator", calc_file.path),
                 ClassCoverage("Calc.Calculator/<>c", calc_file.path),
                 ClassCoverage("Calc.Parsing.Parser", parser.path),
                 ClassCoverage("Lib.Shared", shared_in_calc.path)],
        files={f.path: f for f in (calc_file, parser, shared_in_calc)},
    )
    lib = AssemblyCoverage(
        "Lib",
        classes=[ClassCoverage("Lib.Util", util.path), ClassCoverage("Lib.Shared", shared_in_lib.path)],
        files={f.path: f for f in (util, shared_in_lib)},
    )
    return CoverageResult([calc, lib], source_root=r, timestamp=1700000000)


def methods_result(root: Path = SRC) -> CoverageResult:
    """sample_result with methods: Add (covered), Div (a partial line), Parse (never run, complexity 7: a hotspot)."""
    result = sample_result(root)
    calc = result.assemblies[0]
    calc_file = calc.files[f"{root}/Calc/Calculator.cs"]
    # line 12's two conditions (`b == 0 || a < 0`), each taken one way only
    calc_file.branches[12] = BranchCoverage(2, 4, ["true of `b == 0`", "true of `a < 0`"], [], [(3, [1, 0]), (7, [1, 0])])
    calc.classes[0].methods = [
        MethodCoverage("Add", "(System.Int32,System.Int32)", {8: 3}, token=0x06000001),
        MethodCoverage("Div", "(System.Int32,System.Int32)", {11: 2, 12: 2, 13: 0, 14: 0, 15: 0, 16: 2, 17: 2},
                       token=0x06000002, branches={12: calc_file.branches[12]}),
    ]
    parse_branches = {6: BranchCoverage(0, 10, [], [], [(1, [0, 0]), (5, [0, 0]), (9, [0, 0]), (13, [0, 0, 0, 0])])}
    calc.classes[2].methods = [MethodCoverage("Parse", "(System.String)", {6: 0, 7: 0, 8: 0}, token=0x06000003,
                                              branches=parse_branches)]
    calc.files[f"{root}/Calc/Parser.cs"].branches = parse_branches
    return result


def check_gold(name: str, actual: str) -> None:
    path = GOLD / name
    if os.environ.get("DOTCOV_UPDATE_GOLD") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode("utf-8"))
        return
    if not path.exists():
        pytest.fail(f"no gold file {path}: run the tests with DOTCOV_UPDATE_GOLD=1 to create it")
    assert actual == path.read_bytes().decode("utf-8"), f"output differs from {path}"


def render(tmp_path: Path, result: CoverageResult | None = None, **kwargs) -> Path:
    kwargs.setdefault("version", "9.9.9")
    return write_html(result or sample_result(), tmp_path / "htmlcov", **kwargs)


def parse(path: Path):
    return lxml_html.fromstring(path.read_bytes())


def file_rows(doc) -> list:
    return doc.xpath('//table[@id="files"]/tbody/tr[@class="file"]')


# --- gold ------------------------------------------------------------------------

def test_gold_index_and_file_page(tmp_path):
    index = render(tmp_path, timestamp=1700000000)
    check_gold("index.html", index.read_text("utf-8"))
    check_gold("calculator.html", (index.parent / page_name("Calc/Calculator.cs")).read_text("utf-8"))


def test_gold_method_pages(tmp_path):
    out = render(tmp_path, methods_result(), timestamp=1700000000).parent
    check_gold("methods.html", (out / "methods.html").read_text("utf-8"))
    check_gold("hotspots.html", (out / "hotspots.html").read_text("utf-8"))


def test_method_pages_list_every_method_with_complexity_and_crap(tmp_path):
    out = render(tmp_path, methods_result()).parent
    doc = parse(out / "methods.html")
    rows = doc.xpath('//table[@id="methods"]/tbody/tr')
    cells = [[td.text_content().strip() for td in r.xpath("td")] for r in rows]
    # Class, method, statements, branch cover, coverage, complexity, CRAP
    assert cells == [
        ["Calc.Calculator", "Add(System.Int32,System.Int32)", "1", "\u2014", "100%", "1", "1"],
        ["Calc.Calculator", "Div(System.Int32,System.Int32)", "7", "50%", "57%", "3", "4"],
        ["Calc.Parsing.Parser", "Parse(System.String)", "3", "0%", "0%", "7", "56"],
    ]
    assert rows[1].xpath("td[2]/a/@href") == [page_name("Calc/Calculator.cs") + "#L11"]
    hot = parse(out / "hotspots.html").xpath('//table[@id="methods"]/tbody/tr')
    assert [r.xpath("td[2]")[0].text_content() for r in hot] == ["Parse(System.String)"]  # CRAP 56 > 30
    assert "Risk hotspots (1)" in parse(out / "index.html").xpath('//nav[@class="views"]')[0].text_content()
    assert {"methods.html", "hotspots.html"} <= set(json.loads((out / html_dir.MANIFEST).read_text())["files"])


def test_output_is_deterministic(tmp_path):
    a = render(tmp_path / "a").parent
    b = render(tmp_path / "b").parent
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("old", [None, b"", b"abc", b"abcdefghij", b"abcdefghijXYZ", b"abXdefghij", b"abcdefghiX",
                                 b"abcdeXghijklmnop", b"x" * 5000])
@pytest.mark.parametrize("pieces", [[b"abcdefghij"], [b"abc", b"", b"defgh", b"ij"], [b""], [b"abcde", b"fghijklmnop"]])
def test_write_file_leaves_exactly_the_new_content(tmp_path, old, pieces):
    """Whatever the file held (nothing, less, more, the same, a difference anywhere), it ends up the pieces."""
    path = tmp_path / "page.html"
    if old is not None:
        path.write_bytes(old)
    html_dir.write_file(path, iter(pieces))
    assert path.read_bytes() == b"".join(pieces)


def test_a_report_made_again_leaves_unchanged_pages_alone(tmp_path):
    """A second report from the same data rewrites no page (same bytes, mtime untouched); a page whose coverage
    changed is rewritten whole."""
    out = render(tmp_path, many_states_result()).parent
    before = directory_bytes(out)
    old = 1_000_000_000
    for p in out.iterdir():
        os.utime(p, ns=(old, old))
    render(tmp_path, many_states_result())
    assert directory_bytes(out) == before
    unchanged = [p.name for p in out.iterdir() if p.name != "index.html" and p.stat().st_mtime_ns == old]
    assert page_name("Calc/Parser.cs") in unchanged and "methods.html" in unchanged and "style.css" in unchanged
    changed = many_states_result()
    fc = next(f for a in changed.assemblies for f in a.files.values() if f.path.endswith("Calculator.cs"))
    fc.lines = {n: 0 for n in fc.lines}
    render(tmp_path, changed)
    fresh = tmp_path / "fresh"
    render(fresh, changed)
    assert directory_bytes(out) == directory_bytes(fresh / "htmlcov")


def many_states_result(root: Path = SRC) -> CoverageResult:
    """sample_result plus every state a line row can show: not measured, stale, tests per line, a missing
    source file, lines beyond the end of a source, a line that was not run with its branch outcomes."""
    result = sample_result(root)
    r = str(root)
    odd = FileCoverage(f"{r}/Calc/Calculator.cs.missing", lines={1: 0, 2: 4}, not_measured={3: "no PDB"},
                       branches={1: BranchCoverage(0, 2, ["true of `x`", "false of `x`"])})
    beyond = FileCoverage(f"{r}/Lib/Util.fs", lines={3: 5, 400: 1}, stale="its checksum differs from the PDB's",
                          contexts={3: frozenset({"T.A", "T.B"}), 400: frozenset({"T.A"})})
    extra = AssemblyCoverage("Extra", classes=[ClassCoverage("Extra.Odd", odd.path)],
                             files={odd.path: odd, beyond.path: beyond})
    return CoverageResult([*result.assemblies, extra], source_root=r, timestamp=1700000000)


def directory_bytes(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_a_page_that_cannot_be_written_is_raised_and_leaves_no_index(tmp_path):
    """A page that cannot be written stops the report with that error; no index.html is left, so the directory
    reads as incomplete."""
    out = render(tmp_path, many_states_result()).parent
    page = out / page_name("Calc/Parser.cs")
    page.unlink()
    page.mkdir()  # the page cannot be written now
    with pytest.raises(IsADirectoryError):
        render(tmp_path, many_states_result())
    assert not (out / "index.html").exists()


def test_report_layout_and_index_written_last(tmp_path):
    out = tmp_path / "htmlcov"
    render(tmp_path)
    (out / "index.html").write_text("stale")  # a previous report's index, left half-written
    index = render(tmp_path)
    assert index == out / "index.html"
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "style.css", "dotcov.js", ".gitignore"} <= names
    assert not any(n.endswith(".tmp") for n in names)
    assert len([n for n in names if n.endswith(".html")]) == 7  # index + 4 files + methods + hotspots
    assert "stale" not in index.read_text()


def test_templates_dir_found():
    d = templates_dir()
    assert (d / "html" / "index.html").is_file() and (d / "html" / "style.css").is_file()


# --- index data --------------------------------------------------------------------

def test_index_totals_agree_with_text_report(tmp_path):
    result = sample_result()
    doc = parse(render(tmp_path, result))
    total = summarize(result).total
    stats = {dt.text_content(): dd.text_content() for dt, dd in
             zip(doc.xpath('//dl[@class="stats"]//dt'), doc.xpath('//dl[@class="stats"]//dd'))}
    assert stats["Statements"] == str(total.statements)
    assert stats["Missed"] == str(total.missed)
    assert stats["Files"] == "4"
    assert stats["Branches"].startswith("4/6")  # 2 of 4 in Calculator.cs, 2 of 2 in Util.fs
    assert stats["Partial lines"] == "1"
    assert doc.xpath("//h1/span")[0].text_content() == display_percent(total.percent) + "%"
    # each row agrees with the terminal table's row of the same name
    rows = {r.name: r for r in summarize(result).rows}
    for tr in file_rows(doc):
        name = tr.xpath("td[1]")[0].text_content()
        cells = [td.text_content() for td in tr.xpath("td")]
        assert cells[2:4] == [str(rows[name].statements), str(rows[name].missed)]
        assert cells[-1] == display_percent(rows[name].percent) + "%"


def test_index_sort_and_filter_attributes(tmp_path):
    doc = parse(render(tmp_path))
    headers = doc.xpath('//table[@id="files"]/thead/tr/th')
    keys = [th.get("data-key") for th in headers]
    assert keys == ["name", "ns", "stmts", "miss", "excl", "branches", "partial", "bcover", "cover"]
    assert headers[0].get("aria-sort") == "ascending"
    for th in headers:  # every header sorts, by a real (focusable) button
        assert th.xpath("button[@type='button']"), th.get("data-key")
    rows = file_rows(doc)
    # server order is name order; data-order is that position, the name cell sorts by it
    assert [r.xpath("td[1]")[0].text_content() for r in rows] == \
        ["Calc/Calculator.cs", "Calc/Parser.cs", "Lib/Shared.cs", "Lib/Util.fs"]
    orders = {r.xpath("td[1]")[0].text_content(): r.get("data-order") for r in rows}
    assert orders == {"Calc/Calculator.cs": "0", "Calc/Parser.cs": "1", "Lib/Shared.cs": "2", "Lib/Util.fs": "3"}
    for r in rows:
        cells = r.xpath("td")
        assert len(cells) == len(headers)
        assert all(td.get("data-sort") is not None for td in cells)
        for td in cells[2:]:
            float(td.get("data-sort"))  # numeric columns sort by numbers
    by_name = {r.xpath("td[1]")[0].text_content(): r for r in rows}
    assert by_name["Calc/Calculator.cs"].xpath("td[9]")[0].get("data-sort") == repr(round(100 * 5 / 8, 9))
    # "hide fully covered": full means nothing missed and no partial branches
    assert {n: r.get("data-full") for n, r in by_name.items()} == \
        {"Calc/Calculator.cs": "0", "Calc/Parser.cs": "0", "Lib/Shared.cs": "1", "Lib/Util.fs": "1"}
    # namespaces (nested and compiler-generated types fold into their namespace)
    assert by_name["Calc/Calculator.cs"].xpath("td[2]")[0].text_content() == "Calc"
    assert by_name["Calc/Parser.cs"].xpath("td[2]")[0].text_content() == "Calc.Parsing"
    # groups: by the assemblies compiling each file; the shared file is in both
    groups = doc.xpath('//table[@id="files"]/tbody')
    assert [g.xpath("tr[@class='grp']/th")[0].text_content() for g in groups] == ["Calc", "Calc + Lib", "Lib"]
    assert [g.get("data-order") for g in groups] == ["0", "1", "2"]
    assert all(g.xpath("tr[@class='grp']//button[@aria-expanded='true']") for g in groups)
    assert doc.get_element_by_id("filter").get("type") == "search"
    assert doc.get_element_by_id("hide-covered").get("type") == "checkbox"
    # the file in both assemblies adds its hits, as the text table does
    assert by_name["Lib/Shared.cs"].xpath("td[4]")[0].text_content() == "0"


def test_no_branch_columns_without_branches(tmp_path):
    result = sample_result()
    for asm in result.assemblies:
        for f in asm.files.values():
            f.branches = {}
    doc = parse(render(tmp_path, result))
    keys = [th.get("data-key") for th in doc.xpath('//table[@id="files"]/thead/tr/th')]
    assert keys == ["name", "ns", "stmts", "miss", "excl", "cover"]
    assert "Branches" not in doc.xpath('//dl[@class="stats"]')[0].text_content()


# --- file pages ----------------------------------------------------------------------

def line(doc, n):
    return doc.get_element_by_id(f"L{n}")


def test_file_page_lines(tmp_path):
    index = render(tmp_path)
    doc = parse(index.parent / page_name("Calc/Calculator.cs"))
    src = read_source(str(SRC / "Calc/Calculator.cs"))
    assert not src.startswith("\ufeff")
    n_lines = len(src.splitlines())
    assert len(doc.xpath('//div[@id="lines"]/div')) == n_lines
    assert line(doc, 1).xpath("span[@class='src']")[0].text_content() == "using System;"
    assert line(doc, 8).get("class") == "l run"
    assert line(doc, 8).xpath("span[@class='hits']")[0].text == "3"
    assert line(doc, 13).get("class") == "l mis"
    assert line(doc, 12).get("class") == "l par"
    assert "true of `b == 0`; true of `a < 0`" in line(doc, 12).get("title")
    assert "true of `b == 0`" in line(doc, 12).xpath(".//span[@class='note']")[0].text_content()
    assert line(doc, 21).get("class") == "l exc"
    assert line(doc, 1).get("class") == "l"
    # the block comment and the verbatim string keep one line each
    assert line(doc, 19).xpath("span[@class='src']")[0].text_content() == "        /* A block comment"
    assert line(doc, 23).xpath("span[@class='src']")[0].text_content() == 'string");'
    assert line(doc, 19).xpath(".//span[@class='cm']")
    # navigation back and between files
    assert doc.xpath('//a[@id="up"]/@href') == ["index.html"]
    assert doc.xpath('//a[@rel="next"]/@href') == [page_name("Calc/Parser.cs")]
    assert not doc.xpath('//a[@rel="prev"]')
    assert "j" in doc.get_element_by_id("keys").text_content()


def test_lexers_by_extension():
    cs = highlight_lines("public class A { }\n", "A.cs")
    assert '<span class="k">public</span>' in cs[0]
    fs = highlight_lines("let x = 1\n", "A.fs")
    assert '<span class="k">let</span>' in fs[0]
    vb = highlight_lines("Dim x As Integer\n", "A.vb")
    assert '<span class="k">Dim</span>' in vb[0]
    assert highlight_lines("<a> & b\n", "notes.txt") == ["&lt;a&gt; &amp; b"]


def test_highlight_keeps_line_numbers():
    text = "\n\n// c\r\nint x;\rint y;\n\n"
    assert len(highlight_lines(text, "A.cs")) == 6
    assert highlight_lines("a\u2028b", "A.cs") == ["a", "b"]  # C# names, operators and punctuation: no span
    # controls and bidi overrides are shown, not obeyed
    out = highlight_lines('var s = "\u202e\x00";', "A.cs")[0]
    assert "\u202e" not in out and "\x00" not in out and "\u2400" in out


def test_escaping_of_hostile_file_name_and_source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    hostile = src / "<script>.cs"
    hostile.write_text('// </span></div><script>alert(1)</script>\nvar s = "<img src=x onerror=alert(2)>";\n')
    fc = FileCoverage(str(hostile), {1: 1, 2: 0},
                      branches={2: BranchCoverage(0, 2, ['"><script>alert(3)</script>'])})
    methods = [MethodCoverage("<i>Run", "(<b>)", {1: 1, 2: 0})]
    result = CoverageResult([AssemblyCoverage("<b>Asm", [ClassCoverage("<i>Ns.T", str(hostile), methods)],
                                              {fc.path: fc})], source_root=str(src))
    index = write_html(result, tmp_path / "out", title="<T>", version="<v>", timestamp="<ts>")
    pages = list(index.parent.glob("*.html"))
    assert len(pages) == 4  # index, the file, methods and hotspots
    page = next(p for p in pages if p.name not in ("index.html", "methods.html", "hotspots.html"))
    assert re.fullmatch(r"[A-Za-z0-9_]+_[0-9a-f]{10}\.html", page.name), page.name
    for p in pages:
        text = p.read_text("utf-8")
        assert "<script>" not in text.replace('<script src="dotcov.js" defer></script>', "")
        assert "<img" not in text and "<b>" not in text and "<i>" not in text and "<T>" not in text
        doc = parse(p)
        assert not doc.xpath("//img") and len(doc.xpath("//script")) == 1
    doc = parse(index)
    assert doc.xpath('//tr[@class="file"]/td[1]')[0].text_content() == "<script>.cs"
    assert doc.xpath('//tr[@class="file"]/td[1]/a/@href') == [page.name]
    doc = parse(page)
    assert doc.xpath("//h1/span[@class='path']")[0].text_content() == "<script>.cs"
    assert line(doc, 1).xpath("span[@class='src']")[0].text_content() == \
        "// </span></div><script>alert(1)</script>"
    assert '"><script>alert(3)</script>' in line(doc, 2).get("title")


def test_missing_source_file(tmp_path):
    gone = tmp_path / "gone" / "Missing.cs"
    fc = FileCoverage(str(gone), {3: 2, 4: 0, 10: 1}, excluded={12})
    result = CoverageResult([AssemblyCoverage("A", [], {fc.path: fc})], source_root=str(tmp_path))
    index = write_html(result, tmp_path / "out")
    doc = parse(index.parent / page_name("gone/Missing.cs"))
    notice = doc.xpath('//p[@class="notice"]')[0].text_content()
    assert "Source file not found" in notice and str(gone) in notice
    rows = doc.xpath('//div[@id="lines"]/div')
    assert [r.get("id") for r in rows] == ["L3", "L4", "L10", "L12"]
    assert [r.xpath("span[@class='hits']")[0].text_content() for r in rows] == ["2", "0", "1", ""]
    assert [r.get("class") for r in rows] == ["l run", "l mis", "l run", "l exc"]


def test_source_decoding(tmp_path):
    p = tmp_path / "A.cs"
    p.write_bytes(b"\xef\xbb\xbfint a; // caf\xe9\n")
    assert read_source(str(p)) == "int a; // caf\ufffd\n"
    p.write_bytes("x\n".encode("utf-16"))
    assert read_source(str(p)) == "x\n"
    assert read_source(str(tmp_path / "nope.cs")) is None


def test_source_shorter_than_data_warns(tmp_path):
    p = tmp_path / "Short.cs"
    p.write_text("int a;\n")
    fc = FileCoverage(str(p), {1: 1, 5: 0})
    index = write_html(CoverageResult([AssemblyCoverage("A", [], {fc.path: fc})], source_root=str(tmp_path)),
                       tmp_path / "out")
    doc = parse(index.parent / page_name("Short.cs"))
    assert "may have changed" in doc.xpath('//p[@class="notice"]')[0].text_content()
    assert line(doc, 5).get("class") == "l mis"


@pytest.mark.parametrize("lexer_name", ["csharp", "fsharp", "vbnet"])
def test_fast_lexing_gives_pygments_tokens(lexer_name):
    """The combined-regex driver must yield exactly the tokens of Pygments' own loop."""
    from pygments.lexers import get_lexer_by_name

    from dotcov.html.pygments_colours import _FastRegexDriver, _token_stream

    lexer = get_lexer_by_name(lexer_name, stripnl=False, ensurenl=False)
    assert any(state is not None for state in _FastRegexDriver(lexer).states.values())
    samples = [p.read_text("utf-8-sig") for p in sorted(SRC.rglob("*.*s"))]
    samples += [p.read_text("utf-8-sig", errors="replace")
                for p in sorted((Path(__file__).resolve().parents[1] / "samples").rglob("*.[cf]s"))[:60]]
    alphabet = list("abcif \"'\n\t@$#/*{}()[]<>=!&|.,;:0129xeE_\\`") + \
        ["if ", "class ", "namespace ", "using ", "let ", "(*", "*)", '"""', "Dim ", "End Sub\n", "#if ", "[<", ">]"]
    rng = random.Random(7)
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))) for _ in range(400)]
    for text in samples:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        assert list(_token_stream(lexer, text)) == list(lexer.get_tokens(text)), text


def test_page_names_unique_and_safe():
    names = {page_name(n) for n in ("a/b.cs", "a_b.cs", "a b.cs", "A/B.cs", "..\\..\\x.cs", "")}
    assert len(names) == 6
    assert all(re.fullmatch(r"[A-Za-z0-9_]+_[0-9a-f]{10}\.html", n) for n in names)


# --- a real browser ------------------------------------------------------------------

def _chromium(tmp_path: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (scripts/setup.sh does) "
                    "to run the HTML report's browser test")
    profile = tmp_path / "chromium-profile"
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
           "--force-color-profile=srgb", f"--user-data-dir={profile}", "--window-size=1200,900",
           *args, url]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=False)


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r[i] for i in range(len(r)) if i % bpp < 3) for r in rows]


def count_colour(rows: list[bytes], rgb: tuple[int, int, int], tolerance: int = 3) -> int:
    n = 0
    for row in rows:
        for i in range(0, len(row), 3):
            if all(abs(row[i + k] - rgb[k]) <= tolerance for k in range(3)):
                n += 1
    return n


def screenshot(tmp_path: Path, url: str, name: str, *args: str) -> list[bytes]:
    png = tmp_path / name
    proc = _chromium(tmp_path, url, f"--screenshot={png}", *args)
    assert png.exists(), f"chromium wrote no screenshot: {proc.stderr.decode(errors='replace')[-2000:]}"
    keep = os.environ.get("DOTCOV_KEEP_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / name)
    width, height, rows = read_png(png)
    assert (width, height) == (1200, 900)
    return rows


def dump_dom(tmp_path: Path, url: str) -> str:
    proc = _chromium(tmp_path, url, "--dump-dom")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc.stdout.decode("utf-8")


def test_in_a_real_browser(tmp_path):
    index = render(tmp_path)
    page = index.parent / page_name("Calc/Calculator.cs")

    rows = screenshot(tmp_path, index.as_uri(), "index.png")
    assert count_colour(rows, BAR_FILL) > 100, "no green coverage bars on the index"
    assert count_colour(rows, BAR_TRACK) > 100, "no red coverage bars on the index"

    rows = screenshot(tmp_path, page.as_uri(), "file.png")
    assert count_colour(rows, RUN_BG) > 2000, "no covered (green) lines on the file page"
    assert count_colour(rows, MIS_BG) > 2000, "no missed (red) lines on the file page"

    # The script ran: it marks <body>, sorts by the hash's key, and finds the missed chunks.
    dom = lxml_html.fromstring(dump_dom(tmp_path, index.as_uri() + "#sort=-cover"))
    assert dom.xpath("//body/@data-dotcov") == ["ready"]
    table = dom.get_element_by_id("files")
    assert table.get("data-sorted") == "cover-desc"
    assert table.xpath("thead/tr/th[@data-key='cover']/@aria-sort") == ["descending"]
    assert table.xpath("thead/tr/th[@data-key='name']/@aria-sort") == []
    covers = [float(td.get("data-sort")) for td in table.xpath("tbody/tr[@class='file']/td[last()]")]
    group_covers = [float(td.get("data-sort")) for td in table.xpath("tbody/tr[@class='grp']/td[last()]")]
    assert group_covers == sorted(group_covers, reverse=True)
    assert [g.xpath("tr[@class='grp']/th")[0].text_content() for g in table.xpath("tbody")] == \
        ["Calc + Lib", "Lib", "Calc"]
    assert covers == [100.0, 100.0, 62.5, 0.0]
    assert "4 files" in dom.get_element_by_id("shown").text_content()

    dom = lxml_html.fromstring(dump_dom(tmp_path, page.as_uri()))
    assert dom.xpath("//body/@data-dotcov") == ["ready"]
    assert dom.xpath("//body/@data-chunks") == ["1"]  # lines 12-15: partial then missed


def test_method_pages_in_a_real_browser(tmp_path):
    out = render(tmp_path, methods_result()).parent
    dom = lxml_html.fromstring(dump_dom(tmp_path, (out / "methods.html").as_uri() + "#sort=-crap"))
    assert dom.xpath("//body/@data-dotcov") == ["ready"]
    table = dom.get_element_by_id("methods")
    assert table.get("data-sorted") == "crap-desc"
    assert [float(td.get("data-sort")) for td in table.xpath("tbody/tr/td[last()]")] == [56.0, 3.7086, 1.0]
    assert dom.get_element_by_id("shown").text_content() == "3 methods"
    dom = lxml_html.fromstring(dump_dom(tmp_path, (out / "hotspots.html").as_uri()))
    assert dom.get_element_by_id("methods").get("data-sorted") == "crap-desc"
    assert dom.get_element_by_id("shown").text_content() == "1 method"


def test_dark_theme_follows_the_system_setting(tmp_path):
    index = render(tmp_path)
    page = index.parent / page_name("Calc/Calculator.cs")
    dark_bg, dark_run, dark_mis = (0x0D, 0x11, 0x17), (0x12, 0x35, 0x1F), (0x3D, 0x14, 0x17)
    rows = screenshot(tmp_path, page.as_uri(), "file-dark.png", "--force-dark-mode")
    assert count_colour(rows, dark_bg) > 100_000, "the page background is not dark"
    assert count_colour(rows, dark_run) > 2000 and count_colour(rows, dark_mis) > 2000
    assert count_colour(rows, RUN_BG) == 0 and count_colour(rows, (0xFF, 0xFF, 0xFF)) < 1000
    rows = screenshot(tmp_path, page.as_uri(), "file-light.png")
    assert count_colour(rows, dark_bg) == 0 and count_colour(rows, RUN_BG) > 2000


# --- branch columns, wrapping, the report directory -------------------------------------------------

def test_files_without_branches_show_a_dash_not_100_percent(tmp_path):
    doc = parse(render(tmp_path))
    by_name = {r.xpath("td[1]")[0].text_content(): r for r in file_rows(doc)}
    cell = by_name["Calc/Parser.cs"].xpath("td[8]")[0]  # Branch cover
    assert (cell.text_content(), cell.get("data-sort"), cell.get("title")) == ("\u2014", "-1", "no branches")
    assert by_name["Calc/Calculator.cs"].xpath("td[8]")[0].text_content() == "50%"
    page = parse(index_dir(tmp_path) / page_name("Calc/Parser.cs"))
    assert "no branches" in page.xpath('//ul[@class="legend"]')[0].text_content()


def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "htmlcov"


def test_paths_may_wrap_only_after_a_separator(tmp_path):
    index = render(tmp_path)
    text = index.read_text("utf-8")
    assert ">Calc/<wbr>Calculator.cs</a>" in text
    page = (index.parent / page_name("Calc/Calculator.cs")).read_text("utf-8")
    assert '<span class="path">Calc/<wbr>Calculator.cs</span>' in page
    css = (index.parent / "style.css").read_text("utf-8")
    assert "overflow-wrap: anywhere" not in css  # which would break names anywhere, mid-word
    from dotcov.html.report import wrap_points
    assert str(wrap_points("a<b/c&d")) == "a&lt;b/<wbr>c&amp;d"


def _only(result: CoverageResult, keep: str) -> CoverageResult:
    for asm in result.assemblies:
        asm.files = {p: f for p, f in asm.files.items() if p.endswith(keep)}
        asm.classes = [c for c in asm.classes if c.filename.endswith(keep)]
    result.assemblies = [a for a in result.assemblies if a.files]
    return result


def test_a_new_report_removes_the_pages_of_the_previous_one_and_nothing_else(tmp_path):
    out = index_dir(tmp_path)
    render(tmp_path)
    old_page = out / page_name("Calc/Parser.cs")
    assert old_page.exists()
    (out / "notes.txt").write_text("mine")  # the user's own file in the report's directory
    render(tmp_path, _only(sample_result(), "Calculator.cs"))
    names = {p.name for p in out.iterdir()}
    assert not old_page.exists()
    assert names == {"index.html", "style.css", "dotcov.js", ".gitignore", html_dir.MANIFEST, "methods.html",
                     "hotspots.html", page_name("Calc/Calculator.cs"), "notes.txt", "search.js", "search-src-0.js"}
    manifest = json.loads((out / html_dir.MANIFEST).read_text())
    assert "notes.txt" not in manifest["files"] and page_name("Calc/Calculator.cs") in manifest["files"]


def test_a_directory_that_is_not_a_report_is_refused_untouched(tmp_path):
    out = index_dir(tmp_path)
    out.mkdir()
    (out / "Program.cs").write_text("class P {}")
    with pytest.raises(html_dir.ReportDirectoryError, match="not a dotcov HTML report"):
        render(tmp_path)
    assert [p.name for p in out.iterdir()] == ["Program.cs"]
    cov = Coverage(tmp_path)
    cov._analysis = Analysis.of(sample_result())  # as load() + analysis() would leave it
    with pytest.raises(CoverageError, match="refusing to write into it"):
        cov.html_report(out)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert render(tmp_path / "x", None) and write_html(sample_result(), empty, version="0").exists()


def test_a_report_written_before_manifests_is_recognised(tmp_path):
    out = index_dir(tmp_path)
    render(tmp_path)
    (out / html_dir.MANIFEST).unlink()  # as dotcov wrote reports before the manifest
    stale = out / "Old_cs_0123456789.html"
    stale.write_text('<!DOCTYPE html>\n<meta name="generator" content="dotcov 0.1.0">\n')
    (out / "user.html").write_text("<p>not dotcov's</p>")
    render(tmp_path)
    assert not stale.exists() and (out / "user.html").exists()


# --- search across files (html/search.py; the browser test searches in tests/test_html_browser.py) -----------

def read_script(path: Path, call: str) -> list:
    """The arguments of the one call `call(...)` that a search script is."""
    text = path.read_text("ascii")
    assert text.startswith(call + "(") and text.endswith(");\n"), text[:80]
    return json.loads("[" + text[len(call) + 1:-3] + "]")


def test_search_index_lists_files_classes_methods_and_source(tmp_path):
    out = render(tmp_path, methods_result()).parent
    [index] = read_script(out / "search.js", "dotcovSearchIndex")
    assert index["files"] == [["Calc/Calculator.cs", page_name("Calc/Calculator.cs"), "62"],
                              ["Calc/Parser.cs", page_name("Calc/Parser.cs"), "0"],
                              ["Lib/Shared.cs", page_name("Lib/Shared.cs"), "100"],
                              ["Lib/Util.fs", page_name("Lib/Util.fs"), "100"]]
    # compiler-generated classes without methods of their own (Calc.Calculator/<>c) are left out
    assert [c[0] for c in index["classes"]] == ["Calc.Calculator", "Calc.Parsing.Parser", "Lib.Shared", "Lib.Util"]
    methods = {m[0]: (index["classes"][m[1]][0], m[2], m[3]) for m in index["methods"]}
    assert methods == {"Add(System.Int32,System.Int32)": ("Calc.Calculator", 8, "100"),
                       "Div(System.Int32,System.Int32)": ("Calc.Calculator", 11, "57"),
                       "Parse(System.String)": ("Calc.Parsing.Parser", 6, "0")}
    assert index["chunks"] == 1
    n, files = read_script(out / "search-src-0.js", "dotcovSearchSource")
    assert n == 0 and [f[0] for f in files] == [0, 1, 2, 3]
    text = files[0][1]
    assert text == read_source(str(SRC / "Calc" / "Calculator.cs")).replace("\r\n", "\n")
    assert text.split("\n")[4].strip().startswith("/// <summary>Adds & divides;")  # line 5, as the page shows it
    manifest = json.loads((out / html_dir.MANIFEST).read_text())["files"]
    assert {"search.js", "search-src-0.js"} <= set(manifest)


def test_method_rows_count_as_the_analysis_and_give_the_search_its_covers():
    """The method rows show MethodAnalysis.numbers' covers, on lines with merged builds, partial and missed
    branches."""
    from dotcov.html import methods as html_methods
    from dotcov.html import search as html_search
    from dotcov.html.report import wrap_name

    result = methods_result()
    result.assemblies[1].classes[0].methods = [
        MethodCoverage("Run", "()", {3: 5, 5: 2, 6: 2}, token=0x06000004,
                       branches={6: BranchCoverage(2, 2, [], [], [(2, [4, 1])])}),
        MethodCoverage("Idle", "()", {7: 0, 8: 0}, token=0x06000005,
                       branches={7: BranchCoverage(3, 2, [], [], [(4, [1, 1])])})]  # covered above total
    analysis = Analysis.of(result)
    files = [(f, f.path, f"p{i}.html") for i, f in enumerate(analysis.files)]
    methods = [m for f in analysis.files for c in f.classes for m in c.methods]
    assert len(methods) == 5
    for precision in (0, 2):
        table = html_methods.method_table(files, precision, True, wrap_name)
        assert len(table) == len(methods)
        for m, cover in zip(methods, table.covers):
            assert cover == display_percent(m.numbers.percent, precision)
    search = [(f, f.path, f"p{i}.html", "0") for i, f in enumerate(analysis.files)]
    with pytest.raises(ValueError, match="4 method covers for 5 methods"):
        html_search.prepare(search, lambda path: None, 0, table.covers[:4])
    index = json.loads(html_search.build(search, lambda path: None, 2, table.covers)["search.js"][18:-3])
    assert [m[3] for m in index["methods"]] == table.covers


def test_search_source_is_split_into_chunks_and_old_chunks_go(tmp_path, monkeypatch):
    from dotcov.html import search as html_search

    monkeypatch.setattr(html_search, "CHUNK_CHARS", 10)  # every file its own chunk
    monkeypatch.setattr(html_search, "FIRST_CHUNK_CHARS", 10)
    out = render(tmp_path).parent
    [index] = read_script(out / "search.js", "dotcovSearchIndex")
    assert index["chunks"] == 4
    seen = [read_script(out / html_search.chunk_name(i), "dotcovSearchSource") for i in range(4)]
    assert [(n, [f[0] for f in files]) for n, files in seen] == [(0, [0]), (1, [1]), (2, [2]), (3, [3])]
    monkeypatch.setattr(html_search, "CHUNK_CHARS", 1_000_000)  # a small first chunk, the rest together
    render(tmp_path)
    assert sorted(p.name for p in out.glob("search*.js")) == ["search-src-0.js", "search-src-1.js", "search.js"]
    assert read_script(out / "search-src-0.js", "dotcovSearchSource")[1][0][0] == 0
    assert [f[0] for f in read_script(out / "search-src-1.js", "dotcovSearchSource")[1]] == [1, 2, 3]
    monkeypatch.setattr(html_search, "FIRST_CHUNK_CHARS", 1_000_000)
    render(tmp_path)
    assert sorted(p.name for p in out.glob("search*.js")) == ["search-src-0.js", "search.js"]


def test_search_index_escapes_odd_names_and_skips_unreadable_sources(tmp_path):
    result = sample_result()
    calc = result.assemblies[0]
    odd = FileCoverage(str(SRC / "Calc" / "</script>\u2028\udcff.cs"), {1: 1})
    calc.files[odd.path] = odd
    calc.classes.append(ClassCoverage("Calc.Odd", odd.path, methods=[
        MethodCoverage("M", "(\"x\")", {1: 1}, token=0x06000009)]))
    out = render(tmp_path, result).parent
    raw = (out / "search.js").read_bytes()
    assert raw.isascii() and b"</script>" in raw  # a script file, not inline: nothing to break out of
    [index] = read_script(out / "search.js", "dotcovSearchIndex")
    assert "Calc/</script>\u2028?.cs" in [f[0] for f in index["files"]] or \
        any(f[0].startswith("Calc/</script>") for f in index["files"])
    assert ["M(\"x\")"] == [m[0] for m in index["methods"]]
    _n, files = read_script(out / "search-src-0.js", "dotcovSearchSource")
    names = [index["files"][f[0]][0] for f in files]
    assert not any(n.startswith("Calc/</script>") for n in names)  # no source on disk: no text, no error


def test_long_type_and_method_names_wrap_between_their_parts(tmp_path):
    """The methods page fits 1300 px (the browser test measures it): names break after `.`, `,`, `(`, `<`,
    never inside a word."""
    from dotcov.html.report import wrap_name

    assert str(wrap_name("N.C`1<T>.M(A,B&C)")) == "N.<wbr>C`1&lt;<wbr>T&gt;<wbr>.<wbr>M(<wbr>A,<wbr>B&amp;C)"
    out = render(tmp_path, methods_result()).parent
    text = (out / "methods.html").read_text("utf-8")
    assert ">Div(<wbr>System.<wbr>Int32,<wbr>System.<wbr>Int32)</a>" in text
    assert "<td class=\"name\" data-sort=\"Calc.Parsing.Parser\">Calc.<wbr>Parsing.<wbr>Parser</td>" in text
    assert 'data-sort="Calc.Parsing">Calc.<wbr>Parsing</td>' in (out / "index.html").read_text("utf-8")


# --- names as people read them; members C# generated for records (issue 25 item 13) -----------------------

def record_result() -> CoverageResult:
    """methods_result with C# display names, and a record member (`Equals`) the methods page hides unless asked."""
    result = methods_result()
    calc = result.assemblies[0]
    add, div = calc.classes[0].methods
    add.display = "Add(int, int)"
    div.display = "Div<T>(IReadOnlyList<(string Sku, int Qty)>, out int)"
    calc.classes[0].methods.append(MethodCoverage("Equals", "(Calc.Calculator)", {9: 0}, token=0x06000004,
                                                  display="Equals(Calculator)", record_member=True))
    return result


def test_method_pages_show_csharp_names_and_hide_record_members_unless_asked(tmp_path):
    out = render(tmp_path, record_result()).parent
    doc = parse(out / "methods.html")
    rows = doc.xpath('//table[@id="methods"]/tbody/tr')
    names = [r.xpath("td[2]")[0].text_content() for r in rows]
    assert names == ["Add(int, int)", "Equals(Calculator)", "Div<T>(IReadOnlyList<(string Sku, int Qty)>, out int)",
                     "Parse(System.String)"]  # (a model without display names keeps the metadata form)
    assert [r.get("class") for r in rows] == ["method", "method record-member", "method", "method hot"]
    label = doc.get_element_by_id("show-record-members").getparent().text_content()
    assert label.strip() == "Show the 1 generated record member"
    assert "still count in every total" in doc.get_element_by_id("record-members-note").text_content()
    # Hidden, not dropped: the totals count it (its missed line 9 too).
    assert Analysis.of(record_result()).totals.methods == 4
    [index] = read_script(out / "search.js", "dotcovSearchIndex")
    assert [m[0] for m in index["methods"]][:3] == ["Add(int, int)", "Equals(Calculator)",
                                                    "Div<T>(IReadOnlyList<(string Sku, int Qty)>, out int)"]
    # A report without record members says nothing of them.
    plain = parse(render(tmp_path / "plain", methods_result()).parent / "methods.html")
    assert not plain.xpath('//*[@id="show-record-members"]') and not plain.xpath('//*[@id="record-members-note"]')


def test_record_members_hidden_in_a_real_browser(tmp_path):
    out = render(tmp_path, record_result()).parent
    dom = lxml_html.fromstring(dump_dom(tmp_path, (out / "methods.html").as_uri()))
    assert dom.xpath("//body/@data-dotcov") == ["ready"]
    hidden = dom.xpath('//table[@id="methods"]/tbody/tr[@hidden]/td[2]')
    assert [td.text_content() for td in hidden] == ["Equals(Calculator)"]
    assert dom.get_element_by_id("shown").text_content() == "3 methods"
