"""The summary table (text and markdown) against gold files and coverage.py's rules.

Set DOTCOV_UPDATE_GOLD=1 to rewrite the gold files in tests/gold/ from the current output,
then review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dotcov.analysis.model import AssemblyCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage
from dotcov.reports.text import (
    display_percent,
    format_ranges,
    relative_path,
    render_markdown,
    render_table,
    total_percent,
)

GOLD = Path(__file__).resolve().parent / "gold"
ROOT = "/src/proj"
GITLAB_COVERAGE_REGEX = re.compile(r"^TOTAL.+?(\d+\%)$", re.MULTILINE)


def check_gold(name: str, actual: str) -> None:
    """Compares `actual` with tests/gold/NAME; DOTCOV_UPDATE_GOLD=1 writes it instead."""
    path = GOLD / name
    text = actual + "\n"
    if os.environ.get("DOTCOV_UPDATE_GOLD") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    if not path.exists():
        pytest.fail(f"no gold file {path}: run the tests with DOTCOV_UPDATE_GOLD=1 to create it")
    assert text == path.read_bytes().decode("utf-8"), f"output differs from {path}"


def _file(path: str, lines: dict[int, int]) -> FileCoverage:
    return FileCoverage(path, dict(lines))


def sample_result() -> CoverageResult:
    """Two assemblies; partial, full, empty, big files; one file outside the root; one file in both."""
    calc_lines = {5: 4, 6: 4, 9: 2, 10: 0, 11: 0, 12: 0, 14: 2, 20: 1, 21: 0, 23: 1}
    calc = AssemblyCoverage(
        name="Calc",
        classes=[
            ClassCoverage("Calc.Calculator", f"{ROOT}/Calc/Calculator.cs",
                          [MethodCoverage("Add", "(System.Int32,System.Int32)", {5: 4, 6: 4}),
                           MethodCoverage("Div", "(System.Int32,System.Int32)", {9: 2, 10: 0, 11: 0, 12: 0, 14: 2})],
                          {5: 4, 6: 4, 9: 2, 10: 0, 11: 0, 12: 0, 14: 2}),
            ClassCoverage("Calc.Calculator/Parser", f"{ROOT}/Calc/Calculator.cs",
                          [MethodCoverage("Parse", "(System.String)", {20: 1, 21: 0, 23: 1})],
                          {20: 1, 21: 0, 23: 1}),
            ClassCoverage("Calc.Empty", f"{ROOT}/Calc/Empty.cs"),
            ClassCoverage("Calc.Full", f"{ROOT}/Calc/Full.cs",
                          [MethodCoverage(".ctor", "()", {3: 1}), MethodCoverage("Get", "()", {5: 7, 6: 7})],
                          {3: 1, 5: 7, 6: 7}),
            ClassCoverage("Shared.Guard", f"{ROOT}/Shared/Guard.cs",
                          [MethodCoverage("NotNull", "(System.Object)", {3: 1, 4: 0})], {3: 1, 4: 0}),
        ],
        files={
            f"{ROOT}/Calc/Calculator.cs": _file(f"{ROOT}/Calc/Calculator.cs", calc_lines),
            f"{ROOT}/Calc/Empty.cs": _file(f"{ROOT}/Calc/Empty.cs", {}),
            f"{ROOT}/Calc/Full.cs": _file(f"{ROOT}/Calc/Full.cs", {3: 1, 5: 7, 6: 7}),
            f"{ROOT}/Shared/Guard.cs": _file(f"{ROOT}/Shared/Guard.cs", {3: 1, 4: 0}),
        },
    )
    big = {n: (0 if n == 150 else 1) for n in range(1, 201)}  # 199 of 200
    huge = {n: (1 if n == 1 else 0) for n in range(1, 1001)}  # 1 of 1000
    vendor = {1: 1, 2: 0, 3: 0}  # 1 of 3
    util = AssemblyCoverage(
        name="Util",
        classes=[
            ClassCoverage("Util.Big", f"{ROOT}/Util/File10.cs",
                          [MethodCoverage("Run", "()", dict(big))], dict(big)),
            ClassCoverage("Util.Huge", f"{ROOT}/Util/File2.cs",
                          [MethodCoverage("Run", "()", dict(huge))], dict(huge)),
            ClassCoverage("Util.Vendor`1", "/opt/ext/Vendor.cs",
                          [MethodCoverage("Wrap", "(System.Collections.Generic.List`1<System.String>)", dict(vendor))],
                          dict(vendor)),
            ClassCoverage("Shared.Guard", f"{ROOT}/Shared/Guard.cs",
                          [MethodCoverage("NotNull", "(System.Object)", {3: 0, 4: 2})], {3: 0, 4: 2}),
        ],
        files={
            f"{ROOT}/Util/File10.cs": _file(f"{ROOT}/Util/File10.cs", big),
            f"{ROOT}/Util/File2.cs": _file(f"{ROOT}/Util/File2.cs", huge),
            "/opt/ext/Vendor.cs": _file("/opt/ext/Vendor.cs", vendor),
            f"{ROOT}/Shared/Guard.cs": _file(f"{ROOT}/Shared/Guard.cs", {3: 0, 4: 2}),
        },
    )
    return CoverageResult(assemblies=[calc, util], source_root=ROOT, timestamp=1_700_000_000)


def one_file(lines: dict[int, int], path: str = f"{ROOT}/A.cs") -> CoverageResult:
    asm = AssemblyCoverage("A", files={path: FileCoverage(path, dict(lines))})
    return CoverageResult([asm], source_root=ROOT)


def covered_of(covered: int, total: int) -> dict[int, int]:
    return {n: (1 if n <= covered else 0) for n in range(1, total + 1)}


def data_rows(table: str) -> list[str]:
    """The lines between the two rules."""
    lines = table.splitlines()
    rules = [i for i, line in enumerate(lines) if line and set(line) == {"-"}]
    return lines[rules[0] + 1:rules[1]]


def row_names(table: str) -> list[str]:
    return [row.split()[0] for row in data_rows(table)]


# --- gold files ------------------------------------------------------------------

def test_table_gold():
    check_gold("table.txt", render_table(sample_result()))


def test_table_show_missing_gold():
    check_gold("table_missing.txt", render_table(sample_result(), show_missing=True))


def test_table_skip_covered_gold():
    check_gold("table_skip_covered.txt", render_table(sample_result(), skip_covered=True, show_missing=True))


def test_table_sort_cover_descending_gold():
    check_gold("table_sort_cover_desc.txt", render_table(sample_result(), sort="-cover"))


def test_table_precision_gold():
    check_gold("table_precision2.txt", render_table(sample_result(), precision=2, show_missing=True))


def test_markdown_gold():
    check_gold("table.md", render_markdown(sample_result()))


def test_markdown_show_missing_skip_covered_gold():
    check_gold("table_missing_skip_covered.md", render_markdown(sample_result(), show_missing=True, skip_covered=True))


# --- layout ------------------------------------------------------------------------

def test_layout():
    table = render_table(sample_result(), show_missing=True)
    lines = table.splitlines()
    assert lines[0].split() == ["Name", "Stmts", "Miss", "Cover", "Missing"]
    assert set(lines[1]) == {"-"} and len(lines[1]) == len(lines[0])
    assert lines[-2] == lines[1]
    assert lines[-1].startswith("TOTAL ")
    assert all(line == line.rstrip() for line in lines)
    assert not table.endswith("\n")


def test_total_line_matches_gitlab_regex():
    for kwargs in ({}, {"show_missing": True}, {"precision": 2}, {"skip_covered": True}):
        table = render_table(sample_result(), **kwargs)
        matches = GITLAB_COVERAGE_REGEX.findall(table)
        assert len(matches) == 1, (kwargs, table)
    assert GITLAB_COVERAGE_REGEX.findall(render_table(sample_result())) == ["17%"]


def test_paths_relative_to_root_with_slashes_and_absolute_outside():
    names = row_names(render_table(sample_result()))
    assert "Calc/Calculator.cs" in names
    assert "/opt/ext/Vendor.cs" in names
    names = row_names(render_table(sample_result(), relative_to=f"{ROOT}/Calc"))
    assert "Calculator.cs" in names
    assert f"{ROOT}/Util/File2.cs" in names
    # /src/proj is not a parent of /src/project/X.cs, however the strings start
    assert relative_path("/src/project/X.cs", ROOT) == "/src/project/X.cs"
    assert relative_path("/x/y.cs", "") == "/x/y.cs"


def test_file_in_two_assemblies_is_one_row_adding_hits():
    table = render_table(sample_result(), show_missing=True)
    (row,) = [r for r in data_rows(table) if r.startswith("Shared/Guard.cs")]
    assert row.split() == ["Shared/Guard.cs", "2", "0", "100%"]


def test_empty_result():
    table = render_table(CoverageResult(source_root=ROOT))
    assert table.splitlines() == [
        "Name    Stmts   Miss  Cover",
        "---------------------------",
        "TOTAL       0      0   100%",
    ]


# --- percentages ----------------------------------------------------------------------

@pytest.mark.parametrize(
    "covered,total,shown",
    [(1, 3, "33%"), (2, 3, "67%"), (199, 200, "99%"), (1, 1000, "1%"), (0, 5, "0%"), (5, 5, "100%"),
     (0, 0, "100%"), (1, 2, "50%"), (9995, 10000, "99%"), (1, 8, "12%")],
)
def test_cover_column(covered, total, shown):
    table = render_table(one_file(covered_of(covered, total)))
    assert data_rows(table)[0].split()[-1] == shown
    assert table.splitlines()[-1].split()[-1] == shown


def test_display_percent_rules():
    assert display_percent(100 * 199 / 200) == "99"
    assert display_percent(100 * 1 / 1000) == "1"
    assert display_percent(100 / 3) == "33"
    assert display_percent(0.0) == "0"
    assert display_percent(100.0) == "100"
    assert display_percent(100 * 1 / 3, 2) == "33.33"
    assert display_percent(100 * 9999 / 10000, 1) == "99.9"
    assert display_percent(100 * 1 / 100000, 2) == "0.01"
    assert display_percent(100 * 199 / 200, 1) == "99.5"


def test_precision_widens_cover_column():
    table = render_table(one_file(covered_of(1, 3)), precision=2)
    assert table.splitlines()[-1] == "TOTAL       3      2  33.33%"
    with pytest.raises(ValueError):
        render_table(one_file({}), precision=-1)


def test_total_percent():
    assert total_percent(one_file(covered_of(1, 3))) == pytest.approx(100 / 3)
    assert total_percent(one_file(covered_of(199, 200))) == pytest.approx(99.5)
    assert total_percent(CoverageResult()) == 100.0
    result = sample_result()
    files = result.all_files()
    statements = sum(f.statements for f in files)
    assert total_percent(result) == pytest.approx(100 * sum(f.covered for f in files) / statements)


# --- missing ranges -----------------------------------------------------------------------

def test_missing_ranges_run_over_non_statement_lines():
    # 12, 14 and 20 are consecutive statements, all missed: one range (as coverage.py)
    assert format_ranges([10, 12, 14, 20], [12, 14, 20]) == "12-20"
    assert format_ranges([10, 12, 13, 14, 16, 20], [12, 13, 14, 20]) == "12-14, 20"
    assert format_ranges([10, 11, 12, 13, 14, 20], [12, 14, 20]) == "12, 14-20"
    assert format_ranges([10, 11, 12, 13, 14, 15, 20], [12, 14, 20]) == "12, 14, 20"
    assert format_ranges([12, 13, 14, 20], [12, 13, 14, 20]) == "12-20"
    assert format_ranges([1, 2], []) == ""
    assert format_ranges([5], [5]) == "5"


def test_missing_column():
    table = render_table(one_file({10: 1, 12: 0, 13: 0, 14: 0, 16: 1, 20: 0}), show_missing=True)
    assert data_rows(table)[0].endswith("   12-14, 20")
    assert table.splitlines()[0].endswith("Cover   Missing")


# --- sorting and skipping ------------------------------------------------------------------

def test_sort_by_name_is_natural():
    names = row_names(render_table(sample_result()))
    assert names == ["/opt/ext/Vendor.cs", "Calc/Calculator.cs", "Calc/Empty.cs", "Calc/Full.cs",
                     "Shared/Guard.cs", "Util/File2.cs", "Util/File10.cs"]
    assert row_names(render_table(sample_result(), sort="-name")) == names[::-1]
    assert row_names(render_table(sample_result(), sort="Name")) == names


@pytest.mark.parametrize(
    "sort,expected",
    [
        ("stmts", ["Calc/Empty.cs", "Shared/Guard.cs", "/opt/ext/Vendor.cs", "Calc/Full.cs", "Calc/Calculator.cs",
                   "Util/File10.cs", "Util/File2.cs"]),
        ("-stmts", ["Util/File2.cs", "Util/File10.cs", "Calc/Calculator.cs", "Calc/Full.cs", "/opt/ext/Vendor.cs",
                    "Shared/Guard.cs", "Calc/Empty.cs"]),
        ("miss", ["Calc/Empty.cs", "Calc/Full.cs", "Shared/Guard.cs", "Util/File10.cs", "/opt/ext/Vendor.cs",
                  "Calc/Calculator.cs", "Util/File2.cs"]),
        ("cover", ["Util/File2.cs", "/opt/ext/Vendor.cs", "Calc/Calculator.cs", "Util/File10.cs", "Calc/Empty.cs",
                   "Calc/Full.cs", "Shared/Guard.cs"]),
        ("-cover", ["Shared/Guard.cs", "Calc/Full.cs", "Calc/Empty.cs", "Util/File10.cs", "Calc/Calculator.cs",
                    "/opt/ext/Vendor.cs", "Util/File2.cs"]),
    ],
)
def test_sort(sort, expected):
    assert row_names(render_table(sample_result(), sort=sort)) == expected
    md_names = [line.split("|")[1].strip().replace("\\", "")
                for line in render_markdown(sample_result(), sort=sort).splitlines()[2:-1]]
    assert md_names == expected


def test_bad_sort():
    with pytest.raises(ValueError, match="invalid sort"):
        render_table(sample_result(), sort="size")


def test_skip_covered_keeps_total_and_says_how_many():
    full = render_table(sample_result())
    table = render_table(sample_result(), skip_covered=True)
    # Full.cs, Guard.cs (covered once merged) and Empty.cs (nothing to miss)
    assert row_names(table) == ["/opt/ext/Vendor.cs", "Calc/Calculator.cs", "Util/File2.cs", "Util/File10.cs"]
    assert table.splitlines()[-2:] == ["", "3 files skipped due to complete coverage."]
    assert [line for line in table.splitlines() if line.startswith("TOTAL")] == \
        [line for line in full.splitlines() if line.startswith("TOTAL")]
    one = render_table(one_file({1: 1}), skip_covered=True)
    assert one.splitlines()[-1] == "1 file skipped due to complete coverage."
    assert "skipped" not in render_table(sample_result())


def test_skip_empty():
    table = render_table(sample_result(), skip_empty=True)
    assert "Calc/Empty.cs" not in row_names(table)
    assert table.splitlines()[-1] == "1 empty file skipped."


def test_all_rows_skipped_leaves_no_second_rule():
    table = render_table(one_file({1: 1, 2: 1}), skip_covered=True)
    assert table.splitlines() == [
        "Name    Stmts   Miss  Cover",
        "---------------------------",
        "TOTAL       2      0   100%",
        "",
        "1 file skipped due to complete coverage.",
    ]


# --- markdown ------------------------------------------------------------------------------

def test_markdown_shape():
    md = render_markdown(sample_result(), show_missing=True)
    lines = md.splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")] == ["Name", "Stmts", "Miss", "Cover", "Missing"]
    marks = [c.strip() for c in lines[1].strip("|").split("|")]
    assert [re.fullmatch(r"(:-+)|(-+:)", m).lastindex for m in marks] == [1, 2, 2, 2, 1]  # left / right aligned
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines)
    assert len({len(line) for line in lines}) == 1  # padded columns
    assert lines[-1].split("|")[1].strip() == "**TOTAL**"
    assert "**17%**" in lines[-1]


def test_markdown_escapes_names():
    md = render_markdown(one_file({1: 1}, path=f"{ROOT}/my_dir/a|b*.cs"))
    assert "my\\_dir/a\\|b\\*.cs" in md
