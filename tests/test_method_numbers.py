"""A method ran when its own code ran (lines.py, "a method's own hits"); every writer formats the analysis's
figures of it.

Hand-built plans (no .NET build): one source line decided by points of several methods (an auto-property's getter
and setter, a field initializer two constructors compile), applied to hit counts natively (packed.apply) and by
the Python statement of the rules (tests/oracles/apply_plan.py); then each writer's figures for every method.
"""

from __future__ import annotations

import json
import re
from array import array
from types import SimpleNamespace

import pytest
from lxml import etree

from dotcov.analysis.model import (AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage,
                                   MethodCoverage, PointCoverage)
from dotcov.analysis.numbers import Analysis
from dotcov.analysis.plans import packed
from dotcov.analysis.plans.plan import file_line_plan
from oracles.apply_plan import apply_plan
from dotcov.html.methods import method_table
from dotcov.reports.cobertura import cobertura_xml, rate
from dotcov.reports.json_report import json_report
from dotcov.reports.lcov import lcov_text
from dotcov.reports.opencover import opencover_xml

PATH = "/src/proj/P.cs"
T = 0x06000000

# (method name, token, its points as (start line, start column, end line, end column, hits)), in point-id order.
METHODS = [
    ("get_X", T | 1, [(4, 21, 4, 25, 5)]),  # `public int X { get; set; }`: the getter ran
    ("set_X", T | 2, [(4, 26, 4, 30, 0)]),  # the setter never did
    (".ctor", T | 3, [(9, 5, 9, 30, 2), (13, 5, 13, 6, 2)]),  # a field initializer (line 9) and a body: ran twice
    ("Other", T | 4, [(9, 5, 9, 30, 0), (17, 5, 17, 6, 0)]),  # the same initializer in a constructor never run
    ("Both", T | 5, [(20, 5, 20, 20, 3), (20, 22, 20, 30, 0)]),  # two points of one method on a line: the most
]


def hand_plan() -> tuple[dict, SimpleNamespace]:
    """make_plan's plan of METHODS in one class of PATH, and a module whose counter i is point i's hits."""
    points, runs, hits, tokens = [], [], [], []
    for ref, (_name, token, pts) in enumerate(METHODS, start=1):  # ref 0: the class
        runs.append((len(points), len(pts), (0, ref)))
        for sl, sc, el, ec, h in pts:
            points.append((2 * len(points), sl, sc, el, ec, 1))
            hits.append(h)
            tokens.append(token)
    file_lines, first, multi, specs = file_line_plan(points, runs, set(), tokens)
    method_rows, at = [], 0
    for ref, (name, token, pts) in enumerate(METHODS, start=1):
        method_rows.append((name, "()", token, specs[ref], at, at + len(pts), f"{name}()", False))
        at += len(pts)
    columns = [array("i", column).tobytes() for column in (
        tokens, [p[0] for p in points], *([p[i] for p in points] for i in range(1, 5)), range(len(points)))]
    plan = {"name": "P", "files": [(PATH, file_lines, array("i", first).tobytes(), multi, [], [], None)],
            "classes": [("P", PATH, specs[0], method_rows)], "records": [], "points": columns, "problems": [],
            "unclassified": []}
    return plan, SimpleNamespace(hits=hits, contexts=None)


def applied(how: str) -> AssemblyCoverage:
    plan, module = hand_plan()
    return packed.apply(packed.pack(plan), module) if how == "packed" else apply_plan(plan, module)


OWN_LINES = {"get_X": {4: 5}, "set_X": {4: 0}, ".ctor": {9: 2, 13: 2}, "Other": {9: 0, 17: 0}, "Both": {20: 3}}


@pytest.mark.parametrize("how", ["packed", "python"])
def test_a_method_line_has_its_own_points_hits_and_the_file_line_every_points(how):
    asm = applied(how)
    (cc,) = asm.classes
    assert {m.name: m.lines for m in cc.methods} == OWN_LINES
    assert asm.files[PATH].lines == {4: 5, 9: 2, 13: 2, 17: 0, 20: 3}
    assert cc.lines == asm.files[PATH].lines


@pytest.mark.parametrize("how", ["packed", "python"])
def test_the_table_counts_the_methods_that_ran_without_reading_them(how):
    # (packed.apply counts the methods natively, before any is made: ClassCoverage.method_numbers)
    n = Analysis.of(CoverageResult([applied(how)], source_root="/src/proj")).totals
    assert (n.methods, n.methods_covered, n.statements, n.covered) == (5, 3, 5, 4)


def writers_figures(result: CoverageResult) -> dict[str, dict[str, tuple]]:
    """Each writer's (ran, statements, covered) per method name, parsed from its output (lcov: ran only)."""
    analysis = Analysis.of(result)
    out: dict[str, dict[str, tuple]] = {}
    cob = etree.fromstring(cobertura_xml(analysis, version="t"))
    out["cobertura"] = {}
    for m in cob.iter("method"):
        hits = [int(x.get("hits")) for x in m.iter("line")]
        covered = sum(1 for h in hits if h)
        assert m.get("line-rate") == rate(covered, len(hits))
        out["cobertura"][m.get("name")] = (covered > 0, len(hits), covered)
    oc = etree.fromstring(opencover_xml(analysis, version="t"))
    out["opencover"] = {}
    for m in oc.iter("Method"):
        s = m.find("Summary")
        name = re.search(r"::(.*)\(", m.findtext("Name")).group(1)
        out["opencover"][name] = (m.get("visited") == "true", int(s.get("numSequencePoints")),
                                  int(s.get("visitedSequencePoints")))
    doc = json.loads(json.dumps(json_report(analysis, version="t")))
    out["json"] = {m["name"]: (m["hits"] > 0, m["summary"]["statements"], m["summary"]["covered"])
                   for a in doc["assemblies"] for f in a["files"] for c in f["classes"] for m in c["methods"]}
    out["lcov"] = {name: (int(h) > 0,) for h, name in re.findall(r"^FNDA:(\d+),P\.([^(]*)\(", lcov_text(analysis), re.M)}
    table = method_table([(f, f.path, "p.html") for f in analysis.files], 2, False, lambda s: s)
    out["html"] = {}
    for row in table.rows:
        statements, pc = re.findall(r'data-sort="([\d.]+)"', row[4].cells)[:2]
        covered = round(float(pc) * int(statements) / 100)
        out["html"][row[1].split("(")[0]] = (covered > 0, int(statements), covered)
    return out


@pytest.mark.parametrize("how", ["packed", "python"])
def test_every_writer_gives_each_method_its_own_figures(how):
    figures = writers_figures(CoverageResult([applied(how)], source_root="/src/proj"))
    want = {name: (any(lines.values()), len(lines), sum(1 for h in lines.values() if h))
            for name, lines in OWN_LINES.items()}
    assert set(figures) == {"cobertura", "opencover", "json", "lcov", "html"}
    for writer, got in figures.items():
        assert got == {name: w[:len(got[name])] for name, w in want.items()}, writer


def test_cobertura_method_lines_carry_the_methods_own_hits():
    cob = etree.fromstring(cobertura_xml(CoverageResult([applied("packed")], source_root="/src/proj"), version="t"))
    got = {m.get("name"): {int(x.get("number")): int(x.get("hits")) for x in m.iter("line")} for m in cob.iter("method")}
    assert got == OWN_LINES
    (cls,) = cob.iter("class")
    assert {int(x.get("number")): int(x.get("hits")) for x in cls.find("lines")} == {4: 5, 9: 2, 13: 2, 17: 0, 20: 3}


def point(token: int, line: int, column: int, hits: int) -> PointCoverage:
    return PointCoverage(token, 0, line, column, line, column + 5, hits)


def one_method(m: MethodCoverage) -> Analysis:
    cc = ClassCoverage("C", PATH, [m], dict(m.lines))
    return Analysis.of(CoverageResult([AssemblyCoverage("A", [cc], {PATH: FileCoverage(PATH, dict(m.lines))})]))


def test_a_method_is_entered_at_its_own_first_point_not_a_local_function_written_before_it():
    # Release: a local function declared before the first statement (its own token) that never ran.
    m = MethodCoverage("M", "()", {2: 0, 3: 4}, [point(T | 8, 2, 9, 0), point(T | 7, 3, 9, 4)], T | 7)
    (method,) = one_method(m).files[0].classes[0].methods
    assert (method.hits, method.ran) == (4, True)
    assert "FNDA:4,C.M()" in lcov_text(one_method(m))


def test_a_state_machine_is_entered_at_its_first_point_that_ran():
    # The kickoff method has no point of its own: MoveNext's (token 9) and a lambda's (token 8) fold into it.
    m = MethodCoverage("M", "()", {2: 0, 3: 1}, [point(T | 8, 2, 9, 0), point(T | 9, 3, 9, 1)], T | 7)
    assert one_method(m).files[0].classes[0].methods[0].hits == 1
    never = MethodCoverage("N", "()", {2: 0, 3: 0}, [point(T | 8, 2, 9, 0), point(T | 9, 3, 9, 0)], T | 7)
    (method,) = one_method(never).files[0].classes[0].methods
    assert (method.hits, method.ran) == (0, False)


def test_a_class_line_two_methods_share_has_both_methods_outcomes():
    # A field initializer's condition compiled into two constructors: two branch instructions on line 9.
    first = MethodCoverage(".ctor", "()", {9: 2}, [], T | 3, {9: BranchCoverage(1, 2, ["false"], [(4, "jump", 1, 2)],
                                                                                   [(4, [2, 0])])})
    second = MethodCoverage(".ctor", "(System.Int32)", {9: 0}, [], T | 4,
                            {9: BranchCoverage(0, 2, ["true", "false"], [(6, "jump", 0, 2)], [(6, [0, 0])])})
    fc = FileCoverage(PATH, {9: 2}, {9: BranchCoverage(1, 4, [], [], [(4, [2, 0]), (6, [0, 0])])})
    cc = ClassCoverage("C", PATH, [first, second], {9: 2})
    analysis = Analysis.of(CoverageResult([AssemblyCoverage("A", [cc], {PATH: fc})]))
    (c,) = analysis.files[0].classes
    n = c.numbers
    assert (n.branches, n.branches_covered, n.methods, n.methods_covered) == (4, 1, 2, 1)
    assert (n.branches, n.branches_covered) == (analysis.totals.branches, analysis.totals.branches_covered)
    cob = etree.fromstring(cobertura_xml(analysis, version="t"))
    (cls,) = cob.iter("class")
    assert cls.get("branch-rate") == "0.25"
    assert cls.find("lines/line").get("condition-coverage") == "25% (1/4)"
    assert [m.get("branch-rate") for m in cob.iter("method")] == ["0.5", "0"]
    oc = etree.fromstring(opencover_xml(analysis, version="t"))
    assert [(m.find("Summary").get("numBranchPoints"), m.find("Summary").get("visitedBranchPoints"))
            for m in oc.iter("Method")] == [("2", "1"), ("2", "0")]
