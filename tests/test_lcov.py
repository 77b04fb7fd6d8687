"""lcov tracefile: gold files, the record grammar genhtml reads, totals, branches, and genhtml itself.

Set DOTCOV_UPDATE_GOLD=1 to rewrite tests/gold/ from the current output, then review the diff.
genhtml (Debian package lcov, installed by scripts/setup.sh) must accept the output.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_json_report import rich_result  # noqa: E402
from test_report import ROOT, check_gold, sample_result  # noqa: E402

from dotcov.reports.lcov import lcov_text, write_lcov  # noqa: E402
from dotcov.analysis.model import AssemblyCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage  # noqa: E402
from dotcov.reports.text import summarize  # noqa: E402

# geninfo(1)'s record lines, as genhtml 1.x matches them (a function name cannot hold a comma).
GRAMMAR = [
    re.compile(r"TN:[^,]*"),
    re.compile(r"SF:.+"),
    re.compile(r"FN:\d+,[^,]+"),
    re.compile(r"FNDA:\d+,[^,]+"),
    re.compile(r"FNF:\d+"),
    re.compile(r"FNH:\d+"),
    re.compile(r"BRDA:\d+,\d+,\d+,(\d+|-)"),
    re.compile(r"BRF:\d+"),
    re.compile(r"BRH:\d+"),
    re.compile(r"DA:\d+,\d+"),
    re.compile(r"LF:\d+"),
    re.compile(r"LH:\d+"),
    re.compile(r"end_of_record"),
]


def records(text: str) -> list[list[str]]:
    assert text.endswith("end_of_record\n")
    return [r.strip("\n").split("\n") for r in text.split("end_of_record\n")[:-1]]


def check_grammar(text: str) -> None:
    """Every line matches geninfo's grammar, in geninfo's order, with consistent counts."""
    for rec in records(text):
        kinds = []
        for line in rec:
            (kind,) = [i for i, rx in enumerate(GRAMMAR) if rx.fullmatch(line)] or [None]
            assert kind is not None, f"not an lcov line: {line!r}"
            kinds.append(kind)
        assert kinds == sorted(kinds), f"lines out of geninfo's order in {rec[1]}"
        fn = [line.split(",", 1)[1] for line in rec if line.startswith("FN:")]
        fnda = {line.split(",", 1)[1]: int(line[5:].split(",")[0]) for line in rec if line.startswith("FNDA:")}
        assert len(set(fn)) == len(fn) and set(fn) == set(fnda), "function names must be unique and paired"
        value = {line.split(":")[0]: int(line.split(":")[1]) for line in rec if re.fullmatch(r"[A-Z]+:\d+", line)}
        da = [int(line.split(",")[1]) for line in rec if line.startswith("DA:")]
        assert value["LF"] == len(da) and value["LH"] == sum(1 for h in da if h > 0)
        assert value["FNF"] == len(fn) and value["FNH"] == sum(1 for h in fnda.values() if h > 0)
        brda = [line.rsplit(",", 1)[1] for line in rec if line.startswith("BRDA:")]
        if "BRF" in value:
            assert value["BRF"] == len(brda) and value["BRH"] == sum(1 for t in brda if t not in ("-", "0"))


def test_gold_sample():
    check_gold("lcov.info", lcov_text(sample_result()).removesuffix("\n"))


def test_gold_rich():
    check_gold("lcov_rich.info", lcov_text(rich_result()).removesuffix("\n"))


def test_grammar():
    for result in (sample_result(), rich_result(), rich_result(branches=False)):
        check_grammar(lcov_text(result))
        check_grammar(lcov_text(result, relative_to=ROOT))


def test_records_agree_with_the_terminal_table():
    for result in (sample_result(), rich_result()):
        text = lcov_text(result, relative_to=ROOT)
        summary = summarize(result)
        rows = {r.name: r for r in summary.rows}
        lf = lh = 0
        for rec in records(text):
            path = rec[1][3:]
            value = {line.split(":")[0]: int(line.split(":")[1]) for line in rec if re.fullmatch(r"[A-Z]+:\d+", line)}
            assert (value["LF"], value["LF"] - value["LH"]) == (rows[path].statements, rows[path].missed)
            lf, lh = lf + value["LF"], lh + value["LH"]
        assert len(records(text)) == len(rows)
        assert (lf, lf - lh) == (summary.total.statements, summary.total.missed)


def test_paths_absolute_by_default_relative_on_request():
    sf = [line for line in lcov_text(sample_result()).splitlines() if line.startswith("SF:")]
    assert sf == ["SF:/opt/ext/Vendor.cs", f"SF:{ROOT}/Calc/Calculator.cs", f"SF:{ROOT}/Calc/Empty.cs",
                  f"SF:{ROOT}/Calc/Full.cs", f"SF:{ROOT}/Shared/Guard.cs", f"SF:{ROOT}/Util/File10.cs",
                  f"SF:{ROOT}/Util/File2.cs"]
    sf = [line for line in lcov_text(sample_result(), relative_to=ROOT).splitlines() if line.startswith("SF:")]
    assert sf[:2] == ["SF:/opt/ext/Vendor.cs", "SF:Calc/Calculator.cs"]  # outside the root: absolute


def test_functions():
    text = lcov_text(sample_result())
    calc = records(text)[1]
    assert "FN:5,Calc.Calculator.Add(System.Int32;System.Int32)" in calc
    assert "FNDA:2,Calc.Calculator.Div(System.Int32;System.Int32)" in calc
    assert "FN:20,Calc.Calculator/Parser.Parse(System.String)" in calc
    guard = records(text)[4]  # compiled into both assemblies: one record, one function, hits added
    assert guard[1] == f"SF:{ROOT}/Shared/Guard.cs"
    assert [line for line in guard if line.startswith(("FN", "DA"))] == [
        "FN:3,Shared.Guard.NotNull(System.Object)", "FNDA:1,Shared.Guard.NotNull(System.Object)",
        "FNF:1", "FNH:1", "DA:3,1", "DA:4,2"]


def test_fnda_is_the_first_sequence_points_hits():
    (rec,) = records(lcov_text(rich_result()))
    assert "FNDA:2,Calc.Calculator.Div(System.Int32;System.Int32)" in rec  # two builds: 2 + 0
    assert "FNDA:0,Calc.Calculator.get_Name()" in rec
    assert "FN:3,Calc.Calculator..ctor()" in rec


def test_overloads_stay_apart():
    cls = ClassCoverage("N.T", f"{ROOT}/T.cs", [MethodCoverage("M", "(System.Int32,System.Int32)", {3: 1}),
                                                 MethodCoverage("M", "(System.Int32,System.Double)", {5: 0})])
    text = lcov_text(CoverageResult([AssemblyCoverage("A", [cls], {f"{ROOT}/T.cs": FileCoverage(f"{ROOT}/T.cs",
                                                                                                {3: 1, 5: 0})})]))
    check_grammar(text)
    assert "FNF:2" in text and "FNH:1" in text


def test_branches():
    (rec,) = records(lcov_text(rich_result()))
    assert [line for line in rec if line.startswith("BR")] == [
        "BRDA:10,0,0,1", "BRDA:10,0,1,0",  # line run: one outcome taken, the other evaluated but not taken
        "BRDA:11,0,0,-", "BRDA:11,0,1,-",  # line never run: no outcome evaluated
        "BRF:4", "BRH:1"]
    assert not any(line.startswith("BR") for line in lcov_text(rich_result(branches=False)).splitlines())
    assert not any(line.startswith("BR") for line in lcov_text(sample_result()).splitlines())


def test_measured_branches_give_every_file_brf():
    result = rich_result()
    other = f"{ROOT}/Other.cs"
    result.assemblies[0].files[other] = FileCoverage(other, {1: 1})
    text = lcov_text(result)
    assert [line for line in records(text)[1] if line.startswith("BR")] == ["BRF:0", "BRH:0"]


def test_awkward_paths():
    odd = f"{ROOT}/a,b\nc\udcff.cs"
    result = CoverageResult([AssemblyCoverage("A", [], {odd: FileCoverage(odd, {1: 1})})])
    text = lcov_text(result)
    check_grammar(text)
    assert f"SF:{ROOT}/a,b?c\udcff.cs" in text.splitlines()


def test_write_lcov(tmp_path):
    out = tmp_path / "lcov.info"
    out.write_bytes(b"old")
    write_lcov(sample_result(), out, relative_to=ROOT)
    assert out.read_bytes() == lcov_text(sample_result(), relative_to=ROOT).encode("utf-8")
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    odd = f"{ROOT}/x\udcff.cs"
    write_lcov(CoverageResult([AssemblyCoverage("A", [], {odd: FileCoverage(odd, {1: 1})})]), out)
    assert f"SF:{ROOT}/x".encode() + b"\xff.cs\n" in out.read_bytes()  # the file name's own bytes


def test_input_is_not_modified():
    result = rich_result()
    before = copy.deepcopy(result)
    lcov_text(result)
    assert result == before


def test_empty_result():
    assert lcov_text(CoverageResult()) == ""



def test_genhtml_accepts_the_output(tmp_path):
    """genhtml renders the tracefile with the real sources, function and branch coverage on."""
    src = tmp_path / "src"
    result = rich_result()
    result.source_root = str(src)
    # Point the rich sample at real files, long enough for every line it names.
    for asm in result.assemblies:
        old = next(iter(asm.files))
        new = str(src / "Calc" / "Calculator.cs")
        asm.files = {new: asm.files[old]}
        asm.files[new].path = new
        for cls in asm.classes:
            cls.filename = new
    (src / "Calc").mkdir(parents=True)
    (src / "Calc" / "Calculator.cs").write_text("".join(f"// line {n}\n" for n in range(1, 30)))
    info = tmp_path / "lcov.info"
    write_lcov(result, info)
    out = subprocess.run(["genhtml", "--branch-coverage", "--function-coverage", "-o", str(tmp_path / "html"),
                          str(info)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + out.stdout
    assert re.search(r"lines\.+: 66\.7% \(6 of 9 lines\)", out.stdout)
    assert re.search(r"functions\.+: 75\.0% \(3 of 4 functions\)", out.stdout)
    assert re.search(r"branches\.+: 25\.0% \(1 of 4 branches\)", out.stdout)
    assert (tmp_path / "html" / "index.html").is_file()

    # The sample (sources absent): --no-source, relative paths resolved against the working directory.
    info = tmp_path / "sample.info"
    write_lcov(sample_result(), info, relative_to=ROOT)
    out = subprocess.run(["genhtml", "--no-source", "-o", str(tmp_path / "html2"), str(info)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert re.search(r"lines\.+: 17\.4% \(212 of 1218 lines\)", out.stdout)
