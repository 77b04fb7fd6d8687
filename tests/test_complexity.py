"""Cyclomatic complexity and CRAP (analysis.cyclomatic_complexity, analysis.crap_score), computed once in
the analysis and written by Cobertura, OpenCover and JSON; on hand-built results and on the real IL of
tests/branch_samples/Snippets (Debug and Release)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_branches import SNIPPETS, every_branch  # noqa: E402

from dotcov import _native  # noqa: E402
from dotcov.analysis.numbers import Analysis, crap_score, crap_shown, cyclomatic_complexity  # noqa: E402
from dotcov.reports.cobertura import cobertura_xml  # noqa: E402
from dotcov.data.datafiles import CoverageData  # noqa: E402
from dotcov.reports.json_report import json_report  # noqa: E402
from dotcov.analysis.model import (AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage,  # noqa: E402
                          MethodCoverage)
from dotcov.reports.opencover import opencover_xml  # noqa: E402
from dotcov.analysis.results import build  # noqa: E402

ROOT = "/src/proj"


def jump(off: int, hits=(1, 0)) -> tuple[int, list[int]]:
    return (off, list(hits))


def line(*instructions: tuple[int, list[int]]) -> BranchCoverage:
    total = sum(len(h) for _, h in instructions)
    covered = sum(1 for _, h in instructions for x in h if x)
    return BranchCoverage(covered, total, [], [], list(instructions))


# --- the definition -------------------------------------------------------------------------------

def test_one_plus_one_decision_per_outcome_beyond_the_first_of_each_condition():
    assert cyclomatic_complexity({}) == 1  # straight-line code (coverlet: max(1, 0 outcomes) = 1)
    assert cyclomatic_complexity({5: line(jump(4))}) == 2  # one `if` (coverlet: 2 outcomes = 2)
    assert cyclomatic_complexity({5: line(jump(4), jump(9))}) == 3  # `a && b`: two conditions on one line
    assert cyclomatic_complexity({5: line((2, [1, 0, 0, 3]))}) == 4  # a switch of 4 arms: 3 decisions
    assert cyclomatic_complexity({5: line(jump(4)), 8: line((12, [0, 0, 1]))}) == 4  # 1 + 1 + 2
    # A hand-built line without per-instruction hits is one condition of `total` outcomes.
    assert cyclomatic_complexity({5: BranchCoverage(1, 2)}) == 2


def test_complexity_does_not_depend_on_hits_or_on_how_many_builds_compile_the_method():
    def asm(name: str, hits: list[int]) -> AssemblyCoverage:
        path = f"{ROOT}/Shared.cs"
        b = {3: line((4, hits))}
        m = MethodCoverage("Check", "(System.Int32)", {3: 1, 4: hits[1]}, branches=b)
        return AssemblyCoverage(name, [ClassCoverage("S.Shared", path, [m], {3: 1, 4: hits[1]})],
                                {path: FileCoverage(path, {3: 1, 4: hits[1]}, dict(b))})

    one = Analysis.of(CoverageResult([asm("A", [1, 0])], source_root=ROOT))
    two = Analysis.of(CoverageResult([asm("A", [1, 0]), asm("B", [0, 1])], source_root=ROOT))
    assert one.files[0].classes[0].methods[0].complexity == 2
    assert two.files[0].classes[0].methods[0].complexity == 2  # outcomes matched by place, not added
    assert two.totals.complexity == 2  # the total counts the method once
    assert [a.numbers.complexity for a in two.assemblies] == [2, 2]  # each assembly its own view


def test_crap_uses_the_line_rate_cobertura_writes_and_reportgenerators_rounding():
    assert crap_score(5, 10, 10) == 5  # fully covered: CRAP = complexity
    assert crap_score(5, 0, 10) == 30  # never run: comp² + comp
    assert crap_score(2, 1, 2) == 2.5 and crap_shown(2.5) == 3  # half away from zero, as ReportGenerator
    # 1 of 3 lines: Cobertura's line-rate is "0.3333", so the uncovered share is 0.6667, not 2/3.
    assert crap_score(10, 1, 3) == pytest.approx(100 * 0.6667 ** 3 + 10)
    assert crap_score(3, 0, 0) == 3  # nothing to cover counts as covered (line-rate "1")


# --- the writers ----------------------------------------------------------------------------------

def sample() -> CoverageResult:
    path = f"{ROOT}/Calc.cs"
    add = MethodCoverage("Add", "()", {3: 1}, token=0x06000001)
    sign = MethodCoverage("Sign", "(System.Int32)", {6: 2, 7: 0, 8: 2, 9: 2}, token=0x06000002,
                          branches={6: line(jump(10, (0, 2))), 8: line((20, [2, 0, 0]))})
    lines = {3: 1, 6: 2, 7: 0, 8: 2, 9: 2}
    cls = ClassCoverage("Calc.Calc", path, [add, sign], dict(lines))
    fc = FileCoverage(path, dict(lines), {6: line(jump(10, (0, 2))), 8: line((20, [2, 0, 0]))})
    return CoverageResult([AssemblyCoverage("Calc", [cls], {path: fc})], source_root=ROOT, timestamp=1)


def test_cobertura_complexity_on_method_class_package_and_root_and_what_reportgenerator_makes_of_it():
    doc = etree.fromstring(cobertura_xml(sample(), version="0"))
    methods = {m.get("name"): m for m in doc.iter("method")}
    assert (methods["Add"].get("complexity"), methods["Sign"].get("complexity")) == ("1", "4")
    assert doc.find(".//class").get("complexity") == "5"  # the sum over its methods, as coverlet
    assert doc.find(".//package").get("complexity") == "5"
    assert doc.get("complexity") == "5"
    # ReportGenerator's CRAP from Cobertura: complexity and line-rate (0.75 -> 16 * 0.25^3 + 4 = 4.25 -> 4).
    rate = float(methods["Sign"].get("line-rate"))
    assert crap_shown(16 * (1 - rate) ** 3 + 4) == crap_shown(Analysis.of(sample()).files[0].classes[0].methods[1].crap)


def test_opencover_method_complexity_summary_max_min_and_crap_score():
    doc = etree.fromstring(opencover_xml(sample(), version="0"))
    methods = doc.findall(".//Method")
    assert [m.get("cyclomaticComplexity") for m in methods] == ["1", "4"]
    assert [m.get("crapScore") for m in methods] == ["1.00", "4.25"]
    for summary in (doc.find("Summary"), doc.find(".//Module/Summary"), doc.find(".//Class/Summary")):
        assert (summary.get("maxCyclomaticComplexity"), summary.get("minCyclomaticComplexity")) == ("4", "1")
    assert methods[1].find("Summary").get("maxCyclomaticComplexity") == "4"
    empty = etree.fromstring(opencover_xml(CoverageResult(), version="0")).find("Summary")
    assert (empty.get("maxCyclomaticComplexity"), empty.get("minCyclomaticComplexity")) == ("0", "0")


def test_json_complexity_in_every_summary_and_crap_per_method():
    doc = json_report(sample(), version="0")
    assert doc["totals"]["complexity"] == 5
    assert doc["files"][0]["summary"]["complexity"] == 5
    (asm,) = doc["assemblies"]
    assert asm["summary"]["complexity"] == 5
    (cls,) = asm["files"][0]["classes"]
    assert cls["summary"]["complexity"] == 5
    assert [(m["name"], m["summary"]["complexity"], m["crap"]) for m in cls["methods"]] == [
        ("Add", 1, 1.0), ("Sign", 4, 4.25)]


# --- real IL ----------------------------------------------------------------------------------------

# Per Snippets method: 1 + its user conditions' decisions (tests/test_branches.py names the user branches).
EXPECTED = {
    "IfElse": 2, "Loop": 2, "Coalesce": 2, "Conditional": 2, "ForeachEnumerable": 2, "ForeachArray": 2,
    "Lambda": 1, "Using": 1, "Lock": 1, "AsyncUsing": 1, "Twice": 1,  # only compiler-generated branches
    "OrElse": 2,  # `a < 0 || b < 0` as a value: one user jump (the rest is `clt`)
    "SwitchExpression": 3,  # three arms
    "SwitchStatement": 4, "StringSwitch": 4,  # three cases and default
    "LongStringSwitch": 8,  # seven sections and the implicit default
    "Iterator": 2, "AsyncAwait": 2,  # the state machine's dispatch is not the user's
}


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_snippet_methods_have_the_complexity_of_their_user_branches(snippets, config):
    dll = snippets[config]
    raw = _native.read_symbols(str(dll))
    module = every_branch(dll, raw)
    for rid, points in sorted(raw["sequence_points"].items()):
        for p in points:
            module.sites.append((0x06000000 | rid, p[0], 0))
            module.hits.append(0)
    data = CoverageData()
    data.add_module(module)
    result, problems = build(data, SNIPPETS)
    assert not problems
    analysis = Analysis.of(result)
    (f,) = [f for f in analysis.files if f.path.endswith("Cases.cs")]
    found = {m.name: m.complexity for c in f.classes for m in c.methods}
    assert {name: found.get(name) for name in EXPECTED} == EXPECTED
    assert f.numbers.complexity == sum(m.complexity for c in f.classes for m in c.methods)
