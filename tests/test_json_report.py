"""The JSON report: gold files, schema shape, agreement with the terminal table, determinism.

Set DOTCOV_UPDATE_GOLD=1 to rewrite tests/gold/ from the current output, then review the diff.
`rich_result` (sequence points, a folded lambda, branches, excluded lines, two builds of one
assembly) is shared with test_lcov.py and test_opencover.py.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import ROOT, check_gold, sample_result  # noqa: E402

from dotcov.reports.json_report import FORMAT, FORMAT_VERSION, json_report, json_text, merge_classes, write_json  # noqa: E402
from dotcov.analysis.model import (  # noqa: E402
    AssemblyCoverage,
    BranchCoverage,
    ClassCoverage,
    CoverageResult,
    FileCoverage,
    MethodCoverage,
    PointCoverage,
)
from dotcov.reports.text import render_table, summarize  # noqa: E402

ADD = 0x06000001
DIV = 0x06000002
LAMBDA = 0x06000005
CTOR = 0x06000003


def rich_result(*, branches: bool = True) -> CoverageResult:
    """One assembly in two builds (net8.0, net9.0), real points, a lambda folded into Div, branches."""
    path = f"{ROOT}/Calc/Calculator.cs"

    def build(add_hits: int, div_hits: int) -> AssemblyCoverage:
        add = MethodCoverage("Add", "(System.Int32,System.Int32)", {5: add_hits, 6: add_hits},
                             [PointCoverage(ADD, 0, 5, 5, 5, 6, add_hits),
                              PointCoverage(ADD, 1, 6, 9, 6, 22, add_hits)], ADD)
        div = MethodCoverage("Div", "(System.Int32,System.Int32)",
                             {9: div_hits, 10: div_hits, 11: 0, 12: 0, 14: div_hits},
                             [PointCoverage(DIV, 0, 9, 5, 9, 6, div_hits),
                              PointCoverage(DIV, 1, 10, 9, 10, 24, div_hits),
                              PointCoverage(DIV, 8, 11, 13, 12, 40, 0),  # one statement over two lines
                              PointCoverage(LAMBDA, 0, 14, 20, 14, 31, div_hits)],  # a lambda folded in
                             DIV)
        ctor = MethodCoverage(".ctor", "()", {3: 1}, [PointCoverage(CTOR, 0, 3, 5, 3, 30, 1)], CTOR)
        getter = MethodCoverage("get_Name", "()", {16: 0}, [PointCoverage(0x06000004, 0, 16, 30, 16, 34, 0)],
                                0x06000004)
        cls = ClassCoverage("Calc.Calculator", path, [add, div, ctor, getter],
                            {3: 1, 5: add_hits, 6: add_hits, 9: div_hits, 10: div_hits, 11: 0, 12: 0,
                             14: div_hits, 16: 0})
        fc = FileCoverage(path, dict(cls.lines), excluded={20, 21})
        if branches:  # (Div's outcomes: a file's are its methods')
            div.branches = {10: BranchCoverage(1, 2, ["true of `b == 0`"]), 11: BranchCoverage(0, 2)}
            fc.branches = {10: BranchCoverage(1, 2, ["true of `b == 0`"]), 11: BranchCoverage(0, 2)}
        return AssemblyCoverage("Calc", [cls], {path: fc})

    one, two = build(3, 2), build(1, 0)
    one.classes += two.classes  # as results.build merges a second build of the same assembly
    for p, fc in two.files.items():
        into = one.files[p]
        for line, h in fc.lines.items():
            into.lines[line] += h
    return CoverageResult([one], source_root=ROOT, timestamp=1_700_000_000)


def awkward_result() -> CoverageResult:
    """What the streamed writers must format exactly as the reference rendering: non-ASCII and undecodable paths,
    names that need escaping, partial branches with outcome hits, a statement over two lines, not-measured lines,
    contexts, a stale file, a method without points, a class without methods, an assembly never loaded.
    tests/gold/*_awkward.* were written by the element-by-element writers (before they streamed)."""
    path = f"{ROOT}/Ünï/Cälc — 日本 \udcff.cs"
    other = f"{ROOT}/Other/\"q\" & <tag>.cs"
    go = MethodCoverage("Go<T>", "(System.String,List`1<T&>)", {5: 3, 6: 0, 7: 2, 8: 2},
                        [PointCoverage(0x06000001, 0, 5, 9, 5, 20, 3),
                         PointCoverage(0x06000001, 4, 6, 13, 7, 40, 0),  # over two lines: 7 is a continuation
                         PointCoverage(0x06000001, 9, 8, 9, 8, 30, 2)], 0x06000001,
                        {5: BranchCoverage(1, 2, ["true of `s == \"ä\"`\n\t\\"], [(2, "jump", 1, 2)],
                                           [(2, [3, 0])]),
                         8: BranchCoverage(2, 3, ["case 2 of `switch (x)`"], [(11, "switch", 2, 3)],
                                           [(11, [1, 1, 0])])})
    bare = MethodCoverage("set_Ünï", "(System.Int32)", {12: 0}, [], 0)
    cls = ClassCoverage("Ns.Ä<T>/Inner & \"x\"", path, [go, bare], {5: 3, 6: 0, 7: 2, 8: 2, 12: 0})
    empty = ClassCoverage("Ns.Empty", path, [], {})
    fc = FileCoverage(path, {5: 3, 6: 0, 7: 2, 8: 2, 12: 0}, {5: go.branches[5], 8: go.branches[8]},
                      excluded={14, 15}, not_measured={20: "method too large — skipped", 21: "no IL\x01"},
                      stale="changed since it was compiled (checksum ≠ PDB's)",
                      contexts={5: frozenset({"Tests.Ünï(\"a\")", "Tests.B"}), 8: frozenset({"Tests.B"})})
    ctor = MethodCoverage(".ctor", "()", {1: 0}, [PointCoverage(0x06000002, 0, 1, 1, 1, 10, 0)], 0x06000002)
    far = FileCoverage(other, {1: 0})
    lone = AssemblyCoverage("Zzz.Ünloaded", [ClassCoverage("Z.Other", other, [ctor], {1: 0})], {other: far},
                            not_loaded=True)
    return CoverageResult([AssemblyCoverage("Äsm", [cls, empty], {path: fc}), lone], source_root=ROOT,
                          timestamp=1_700_000_123)


def doc_of(result: CoverageResult, **kwargs) -> dict:
    return json_report(result, version="0.1.0", **kwargs)


def text_of(result: CoverageResult, **kwargs) -> str:
    return json_text(result, version="0.1.0", **kwargs)


# --- gold files ---------------------------------------------------------------------------------

def test_gold_sample():
    check_gold("report.json", text_of(sample_result()).removesuffix("\n"))


def test_gold_rich():
    check_gold("report_rich.json", text_of(rich_result()).removesuffix("\n"))


# --- the streamed text is json.dumps's ------------------------------------------------------------

def _dumps(result: CoverageResult, indent, **kwargs) -> str:
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(doc_of(result, **kwargs), indent=indent, ensure_ascii=False, allow_nan=False,
                      separators=separators) + "\n"


def test_streamed_text_is_json_dumps_of_the_report(tmp_path):
    """write_json formats the document piece by piece; it must be json.dumps of json_report, byte for byte."""
    for result in (awkward_result(), rich_result(), sample_result(), CoverageResult(source_root=ROOT)):
        for show_contexts in (False, True):
            for indent in (2, None, 0, 4):
                expected = _dumps(result, indent, show_contexts=show_contexts)
                assert text_of(result, indent=indent, show_contexts=show_contexts) == expected
            doc = doc_of(result, show_contexts=show_contexts)
            assert json.loads(text_of(result, show_contexts=show_contexts)) == doc
            out = tmp_path / "c.json"
            write_json(result, out, version="0.1.0", show_contexts=show_contexts)
            assert out.read_bytes() == _dumps(result, 2, show_contexts=show_contexts).encode("utf-8")


def test_awkward_model_has_what_the_stream_must_get_right():
    doc = doc_of(awkward_result(), show_contexts=True)
    asm, lone = sorted(doc["assemblies"], key=lambda a: a["name"] != "Äsm")
    f = [f for f in asm["files"] if "日本" in f["path"]][0]
    assert "\ufffd" in f["path"] and "日本" in f["path"]
    assert f["summary"]["partial"] == 2 and f["not_measured_lines"] and f["stale"] and f["contexts"]
    assert f["branches"]["5"]["missed_outcomes"] == ["true of `s == \"ä\"`\n\t\\"]
    empty, cls = f["classes"]
    assert empty["methods"] == [] and [m["points"] for m in cls["methods"]][1] == []
    assert lone["not_loaded"] is True


def test_gold_awkward():
    check_gold("report_awkward.json", text_of(awkward_result(), show_contexts=True).removesuffix("\n"))


# --- shape ----------------------------------------------------------------------------------------

def test_header_and_meta():
    doc = doc_of(sample_result(), timestamp=1234)
    assert list(doc) == ["format", "format_version", "meta", "totals", "files", "assemblies"]
    assert doc["format"] == FORMAT == "dotcov-json"
    assert doc["format_version"] == FORMAT_VERSION == 1
    assert doc["meta"] == {"dotcov_version": "0.1.0", "timestamp": 1234, "timestamp_utc": "1970-01-01T00:20:34Z",
                           "source_root": ROOT, "branches_measured": False, "warnings": []}
    assert doc_of(sample_result())["meta"]["timestamp"] == 1_700_000_000


def test_totals_and_rows_equal_the_terminal_table():
    for result in (sample_result(), rich_result()):
        doc = doc_of(result)
        summary = summarize(result)
        total = doc["totals"]
        assert (total["statements"], total["missed"], total["covered"]) == \
            (summary.total.statements, summary.total.missed, summary.total.covered)
        assert total["percent"] == summary.total.percent
        rows = {r.name: r for r in summary.rows}
        assert sorted(f["path"] for f in doc["files"]) == sorted(rows)
        for f in doc["files"]:
            row = rows[f["path"]]
            assert (f["summary"]["statements"], f["summary"]["missed"], f["summary"]["percent"], f["missing"]) == \
                (row.statements, row.missed, row.percent, row.missing)
    line = render_table(sample_result()).splitlines()[-1].split()
    assert doc_of(sample_result())["totals"]["statements"] == int(line[1])
    assert doc_of(sample_result())["totals"]["missed"] == int(line[2])


def test_assemblies_files_classes_methods():
    doc = doc_of(sample_result())
    assert [a["name"] for a in doc["assemblies"]] == ["Calc", "Util"]
    calc = doc["assemblies"][0]
    assert [f["path"] for f in calc["files"]] == ["Calc/Calculator.cs", "Calc/Empty.cs", "Calc/Full.cs",
                                                  "Shared/Guard.cs"]
    assert calc["summary"]["statements"] == 15 and calc["summary"]["covered"] == 10  # its own files
    calculator = calc["files"][0]
    assert calculator["absolute_path"] == f"{ROOT}/Calc/Calculator.cs"
    assert [c["name"] for c in calculator["classes"]] == ["Calc.Calculator", "Calc.Calculator/Parser"]
    div = calculator["classes"][0]["methods"][1]
    assert div["name"] == "Div" and div["signature"] == "(System.Int32,System.Int32)"
    assert div["lines"] == {"9": 2, "10": 0, "11": 0, "12": 0, "14": 2}
    assert list(div["lines"]) == ["9", "10", "11", "12", "14"]  # numeric order, not "10" < "9"
    assert div["first_line"] == 9 and div["hits"] == 2 and div["points"] == []
    assert div["summary"] == {"statements": 5, "covered": 2, "missed": 3, "percent": 40.0, "complexity": 1}
    vendor = doc["assemblies"][1]["files"][0]  # files are sorted by absolute path
    assert vendor["path"] == "/opt/ext/Vendor.cs"  # outside the root: absolute


def test_points_branches_excluded_and_builds_merge():
    doc = doc_of(rich_result())
    assert doc["meta"]["branches_measured"] is True
    (asm,) = doc["assemblies"]
    (f,) = asm["files"]
    assert f["lines"]["5"] == 4 and f["lines"]["10"] == 2  # the two builds add their hits
    assert f["excluded_lines"] == [20, 21]
    assert f["branches"] == {"10": {"covered": 1, "total": 2, "missed_outcomes": ["true of `b == 0`"]},
                             "11": {"covered": 0, "total": 2, "missed_outcomes": []}}
    assert f["summary"]["branches"] == 4 and f["summary"]["branches_covered"] == 1
    assert f["summary"]["excluded"] == 2
    assert doc["totals"]["branches"] == 4 and doc["totals"]["excluded"] == 2
    (cls,) = f["classes"]
    assert [m["name"] for m in cls["methods"]] == [".ctor", "Add", "Div", "get_Name"]
    div = cls["methods"][2]
    assert div["token"] == DIV and div["hits"] == 2
    assert div["points"][2] == {"method_token": DIV, "il_offset": 8, "start_line": 11, "start_column": 13,
                                "end_line": 12, "end_column": 40, "hits": 0}
    assert div["points"][3]["method_token"] == LAMBDA and div["points"][3]["hits"] == 2
    assert len(div["points"]) == 4  # the second build's points merged into the first's


def test_relative_to_and_no_root():
    doc = doc_of(sample_result(), relative_to="/src")
    assert doc["files"][1]["path"] == "proj/Calc/Calculator.cs"
    result = sample_result()
    result.source_root = ""
    doc = doc_of(result)
    assert doc["meta"]["source_root"] == ""
    assert doc["files"][1]["path"] == f"{ROOT}/Calc/Calculator.cs"


def test_empty_result():
    doc = doc_of(CoverageResult())
    assert doc["totals"] == {"statements": 0, "covered": 0, "missed": 0, "percent": 100.0, "complexity": 0, "excluded": 0,
                             "not_measured": 0, "branches": 0, "branches_covered": 0, "partial": 0, "files": 0}
    assert doc["files"] == [] and doc["assemblies"] == []


def test_text_is_json_utf8_and_awkward_names_survive():
    odd = f"{ROOT}/we\u00efrd \"q\"\n\udcff.cs"
    cls = ClassCoverage("N.Op<T>", odd, [MethodCoverage("op_<", "(T&)", {1: 1})], {1: 1})
    result = CoverageResult([AssemblyCoverage("A", [cls], {odd: FileCoverage(odd, {1: 1})})], source_root=ROOT)
    text = text_of(result)
    text.encode("utf-8")  # no lone surrogates left
    doc = json.loads(text)
    assert doc["files"][0]["path"] == "we\u00efrd \"q\"\n\ufffd.cs"
    assert json.loads(text_of(result, indent=None)) == doc
    assert "\n" not in text_of(result, indent=None).removesuffix("\n")


def test_deterministic_whatever_the_input_order():
    for make in (sample_result, rich_result):
        expected = text_of(make())
        rng = random.Random(3)
        for _ in range(4):
            result = make()
            rng.shuffle(result.assemblies)
            for asm in result.assemblies:
                rng.shuffle(asm.classes)
                asm.files = dict(rng.sample(list(asm.files.items()), len(asm.files)))
                for fc in asm.files.values():
                    fc.lines = dict(rng.sample(list(fc.lines.items()), len(fc.lines)))
                for cls in asm.classes:
                    rng.shuffle(cls.methods)
                    for m in cls.methods:
                        m.lines = dict(rng.sample(list(m.lines.items()), len(m.lines)))
                        rng.shuffle(m.points)
            assert text_of(result) == expected


def test_input_is_not_modified():
    for make in (sample_result, rich_result):
        result = make()
        before = copy.deepcopy(result)
        text_of(result)
        assert result == before


def test_merge_classes_keeps_methods_apart_by_signature():
    a = MethodCoverage("M", "(System.Int32)", {3: 1})
    b = MethodCoverage("M", "(System.String)", {5: 0})
    (cls,) = merge_classes([ClassCoverage("T", "/x/T.cs", [b, a])])
    assert [(m.signature, m.hits) for m in cls.methods] == [("(System.Int32)", 1), ("(System.String)", 0)]


def test_write_json(tmp_path):
    out = tmp_path / "coverage.json"
    out.write_bytes(b"old")
    write_json(sample_result(), out, version="0.1.0", timestamp=42)
    assert out.read_bytes() == text_of(sample_result(), timestamp=42).encode("utf-8")
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
