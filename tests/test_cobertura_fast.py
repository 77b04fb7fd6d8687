"""The Cobertura writer's fast path (one string per class, per-line texts shared by class and method) against
a general rendering of the same analysis (`XmlWriter` element by element, `line_branches` per line: how the
writer worked before), byte for byte, on odd inputs; and the analysis shortcuts against their general path.
"""

from __future__ import annotations

import io
import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cobertura import assert_valid  # noqa: E402
from test_report import sample_result  # noqa: E402

from dotcov.reports import cobertura  # noqa: E402
from dotcov.reports import output
from dotcov.analysis.numbers import (Analysis, ClassAnalysis, MethodAnalysis, _set_unsorted_points,  # noqa: E402
                             crap_score, cyclomatic_complexity, line_numbers, merge_classes, point_order)
from dotcov.reports.cobertura import cobertura_xml, line_branches, write_cobertura  # noqa: E402
from dotcov.analysis.model import (AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult,  # noqa: E402
                          FileCoverage, MethodCoverage, PointCoverage)
from dotcov.data.deferred import pending  # noqa: E402
from dotcov.analysis.paths import relative_path
from dotcov.reports.output import truncated_percent  # noqa: E402
from dotcov.reports.xmlwriter import INDENT, XmlWriter  # noqa: E402

HUGE = 2 ** 64 + 7  # beyond any counter: formatted as it is


# --- the general rendering (the oracle) ------------------------------------------------------

def general_lines(w: XmlWriter, lines: dict[int, int], branches: dict) -> None:
    if not lines:
        w.empty("lines")
        return
    w.start("lines")
    for n in sorted(lines):
        b = branches.get(n)
        attrs = [("number", n), ("hits", lines[n])]
        if b is None:
            w.empty("line", attrs + [("branch", "False")])
            continue
        attrs += [("branch", "True"),
                  ("condition-coverage", f"{truncated_percent(b.covered, b.total)}% ({b.covered}/{b.total})")]
        if not b.conditions:
            w.empty("line", attrs)
            continue
        w.start("line", attrs)
        w.start("conditions")
        for c in b.conditions:
            w.empty("condition", [("number", c.number), ("type", c.type),
                                  ("coverage", f"{truncated_percent(c.covered, c.total)}%")])
        w.end("conditions")
        w.end("line")
    w.end("lines")


def general_class(cls: ClassAnalysis, root: str, measured: bool, depth: int) -> str:
    w = XmlWriter(depth=depth + 2)

    def rates(n):  # (the analysis's figures: the writer only formats them)
        return [("line-rate", cobertura.rate(n.covered, n.statements)),
                ("branch-rate", cobertura._branch_rate(n.branches_covered, n.branches, measured)),
                ("complexity", n.complexity)]

    def written(owner):  # a method's or the class's outcomes on its lines
        return {line: b for line in owner.branches if line in owner.lines
                and (b := line_branches(owner, line)) is not None}

    for m in cls.methods:
        w.start("method", [("name", m.name), ("signature", m.signature), *rates(m.numbers)])
        general_lines(w, m.lines, written(m))
        w.end("method")
    c = XmlWriter(depth=depth)
    c.start("class", [("name", cls.name), ("filename", relative_path(cls.filename, root)), *rates(cls.numbers)])
    if cls.methods:
        c.start("methods")
        c.extend(w)
        c.end("methods")
    else:
        c.empty("methods")
    general_lines(c, cls.lines, written(cls))
    c.end("class")
    return "".join(c.parts)


def fast_class(cls: ClassAnalysis, root: str = "/src", measured: bool = True, depth: int = 4) -> str:
    return cobertura._class_xml(cls, root, measured, INDENT * depth, cobertura._Memo()).decode("utf-8")


def check(cls: ClassAnalysis, measured: bool = True) -> str:
    fast = fast_class(cls, measured=measured)
    assert fast == general_class(cls, "/src", measured, 4)
    return fast


# --- odd inputs --------------------------------------------------------------------------------

def branch(covered, total, conditions=(), hits=None):
    return BranchCoverage(covered, total, [], list(conditions), hits or [])


def test_plain_and_branch_lines_with_huge_hits():
    m = MethodAnalysis("M", "(System.Int32)", 1, {5: HUGE, 6: 0, 7: 3, 9: 1},
                       branches={6: branch(1, 2, [(9, "jump", 1, 2)]), 7: branch(3, 3, [(20, "switch", 3, 3)])})
    cls = ClassAnalysis("N.C", "/src/C.cs", {5: HUGE, 6: 0, 7: 3, 9: 1}, [m])
    text = check(cls)
    assert f'hits="{HUGE}"' in text and 'condition-coverage="50% (1/2)"' in text


def test_branch_lines_without_conditions_covered_beyond_total_and_zero_total():
    m = MethodAnalysis("M", "()", 1, {1: 1, 2: 1, 3: 0}, branches={1: branch(2, 2), 2: branch(5, 3), 3: branch(0, 0)})
    text = check(ClassAnalysis("C", "/src/C.cs", {1: 1, 2: 1, 3: 0}, [m]))
    assert 'condition-coverage="100% (3/3)"' in text and text.count('branch="True"') == 4  # class and method


def test_conditions_written_in_offset_order():
    conds = [(30, "jump", 0, 2), (4, "switch", 2, 5), (17, "jump", 2, 2)]
    m = MethodAnalysis("M", "()", 1, {8: 2}, branches={8: branch(4, 9, conds)})
    text = check(ClassAnalysis("C", "/src/C.cs", {8: 2}, [m]))
    assert text.index('number="4"') < text.index('number="17"') < text.index('number="30"')


def test_method_lines_with_other_hits_than_the_class_and_lines_outside_it():
    # the class's hits of a line differ from its method's; a method line the class lacks; a branch line
    # outside the method's lines (not written); two methods sharing a branch line (the class's line has both's)
    a = MethodAnalysis("A", "()", 1, {3: 1, 4: 2, 40: 7}, branches={4: branch(1, 2, [(2, "jump", 1, 2)]),
                                                                      99: branch(1, 2)})
    b = MethodAnalysis("B", "(System.String)", 2, {4: 2, 10: 0}, branches={4: branch(2, 2, [(8, "jump", 2, 2)])})
    cls = ClassAnalysis("C", "/src/C.cs", {3: 1, 4: 5, 10: 0, 11: 0}, [a, b])
    text = check(cls)
    assert 'number="99"' not in text
    assert 'number="4" hits="5" branch="True" condition-coverage="75% (3/4)"' in text


def test_unsorted_maps_and_empty_methods_and_classes():
    m = MethodAnalysis("M", "()", 1, {9: 1, 2: 0, 5: 4}, branches={5: branch(1, 2, [(1, "jump", 1, 2)])})
    check(ClassAnalysis("C", "/src/C.cs", {9: 1, 5: 4, 2: 0}, [m]))
    check(ClassAnalysis("C", "/src/C.cs", {}, []))
    check(ClassAnalysis("C", "/src/C.cs", {1: 0}, [MethodAnalysis("Empty", "()", 3, {})]))


def test_names_that_need_escaping():
    m = MethodAnalysis('op_<"&>', "(List<T>&,\ud800)", 1, {1: 1}, branches={1: branch(1, 2, [(0, "a<b", 1, 2)])})
    text = check(ClassAnalysis('N.C<T>/"In\tner"', "/src/d&r/\udcff.cs", {1: 1}, [m]))
    assert "&lt;" in text and "&amp;" in text and "\ufffd" in text


def test_without_branch_data_rates_read_zero():
    m = MethodAnalysis("M", "()", 1, {1: 1, 2: 0})
    check(ClassAnalysis("C", "/src/C.cs", {1: 1, 2: 0}, [m]), measured=False)


def test_random_classes_match_the_general_rendering():
    rng = random.Random(12)
    for _ in range(200):
        methods = []
        class_lines: dict[int, int] = {}
        for k in range(rng.randint(0, 5)):
            lines = {n: rng.choice([0, 1, 7, HUGE]) for n in rng.sample(range(1, 60), rng.randint(0, 8))}
            branches = {}
            for n in rng.sample(range(1, 60), rng.randint(0, 3)):
                conds = [(rng.randint(0, 90), rng.choice(["jump", "switch"]), rng.randint(0, 3), rng.randint(0, 4))
                         for _ in range(rng.randint(0, 2))]
                branches[n] = branch(rng.randint(0, 5), rng.randint(0, 4), conds)
            for n, h in lines.items():
                class_lines[n] = h if rng.random() < 0.8 else h + 1
            methods.append(MethodAnalysis(f"M{k}", "()", k, lines, branches=branches))
        for n in rng.sample(range(1, 60), rng.randint(0, 4)):
            class_lines.setdefault(n, 0)
        items = list(class_lines.items())
        rng.shuffle(items)
        check(ClassAnalysis("C", "/src/C.cs", dict(items), methods), measured=rng.random() < 0.8)


# --- whole documents -------------------------------------------------------------------------------

def two_assemblies() -> CoverageResult:
    """One file compiled into two assemblies (and a second build of one of them), with branches."""
    def asm(name, hits, taken):
        m = MethodCoverage("Run", "(System.Int32)", {3: hits, 4: hits, 5: 0}, token=0x06000001,
                           branches={4: BranchCoverage(taken, 2, [], [(7, "jump", taken, 2)],
                                                       [(7, [hits, 0] if taken == 1 else [hits, hits])])})
        fc = FileCoverage("/src/Shared.cs", {3: hits, 4: hits, 5: 0}, {4: m.branches[4]})
        return AssemblyCoverage(name, [ClassCoverage("S.Shared", "/src/Shared.cs", [m], {3: hits, 4: hits, 5: 0})],
                                {"/src/Shared.cs": fc})
    return CoverageResult([asm("A", 2, 1), asm("B", HUGE, 2), asm("A", 1, 1)], "/src", 1700000000)


@pytest.mark.parametrize("result", [sample_result(), two_assemblies()], ids=["sample", "two-assemblies"])
def test_document_is_the_general_rendering_and_valid(result, tmp_path):
    analysis = Analysis.of(result)
    xml = cobertura_xml(analysis, version="1")
    assert_valid(xml)
    text = xml.decode("utf-8")
    for a in analysis.assemblies:  # each package's classes as the general rendering writes them, in order
        classes = "".join(general_class(c, analysis.source_root, analysis.branches_measured, 4) for c in a.classes)
        assert f"<classes>\n{classes}      </classes>" in text
    write_cobertura(analysis, tmp_path / "c.xml", version="1")
    assert (tmp_path / "c.xml").read_bytes() == xml


def test_written_to_standard_output_in_pieces(capsysbinary):
    analysis = Analysis.of(two_assemblies())
    write_cobertura(analysis, "-", version="1")
    assert capsysbinary.readouterr().out == cobertura_xml(analysis, version="1")


def test_write_atomic_in_pieces_keeps_the_old_file_when_a_piece_fails(tmp_path):
    out = tmp_path / "c.xml"
    out.write_bytes(b"old")

    def pieces():
        yield b"new"
        raise RuntimeError("writer failed")

    with pytest.raises(RuntimeError):
        output.write_atomic(out, pieces())
    assert out.read_bytes() == b"old" and list(tmp_path.iterdir()) == [out]
    output.write_atomic(out, iter([b"a", b"", b"bc"]))
    assert out.read_bytes() == b"abc"


def test_write_atomic_beside_a_concurrent_writer_of_the_same_file_leaves_one_whole_file(tmp_path):
    # JSON and OpenCover are written in pieces over seconds; two commands writing one report (parallel CI jobs in
    # one workspace) must each write a temporary of their own: the file is then one of the two documents, whole.
    out = tmp_path / "coverage.json"
    first, second = [b"A" * 1000, b"B" * 1000], [b"x" * 300]

    def pieces():
        yield first[0]
        output.write_atomic(out, iter(second))  # the other command, start to end, meanwhile
        yield first[1]

    output.write_atomic(out, pieces())
    assert out.read_bytes() == b"".join(first)
    assert list(tmp_path.iterdir()) == [out]
    os.chmod(out, 0o600)
    output.write_atomic(out, iter([b"new"]))
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()  # (as open() makes it: readable by CI's other users)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- analysis shortcuts against their general path -------------------------------------------------

def test_file_numbers_shared_or_not_are_those_computed_from_the_merged_classes():
    for result in (sample_result(), two_assemblies()):
        analysis = Analysis.of(result)
        for f in analysis.files + [f for a in analysis.assemblies for f in a.files]:
            n = line_numbers(f.lines, f.branches, len(f.excluded), len(f.not_measured))
            assert (n.statements, n.missed, n.branches, n.branches_covered, n.partial) == \
                (f.numbers.statements, f.numbers.missed, f.numbers.branches, f.numbers.branches_covered,
                 f.numbers.partial)
            assert f.numbers.complexity == sum(m.complexity for c in f.classes for m in c.methods)


def test_line_numbers_partial_only_for_lines_that_ran():
    n = line_numbers({1: 1, 2: 0, 3: 4}, {1: branch(1, 2), 2: branch(0, 2), 3: branch(3, 2), 9: branch(0, 2)})
    assert (n.statements, n.missed, n.branches, n.branches_covered, n.partial) == (3, 1, 8, 3, 1)


def test_points_given_in_any_order_read_in_source_order_and_the_model_is_untouched():
    points = [PointCoverage(1, 8, 5, 1, 5, 9, 2), PointCoverage(1, 0, 3, 1, 3, 9, 2), PointCoverage(1, 4, 3, 1, 3, 9, 0)]
    m = MethodAnalysis("M", "()", 1, {3: 2, 5: 2})
    _set_unsorted_points(m, points)
    assert m.points == sorted(points, key=point_order) and m.entry_point.il_offset == 0
    assert [p.il_offset for p in points] == [8, 0, 4]
    m.points = points[:1]
    assert m.points == points[:1]


def test_analysis_points_of_a_single_build_are_sorted():
    mc = MethodCoverage("M", "()", {3: 1, 5: 1}, [PointCoverage(1, 8, 5, 1, 5, 9, 1), PointCoverage(1, 0, 3, 1, 3, 9, 1)],
                        token=1)
    result = CoverageResult([AssemblyCoverage("A", [ClassCoverage("C", "/src/C.cs", [mc], {3: 1, 5: 1})],
                                              {"/src/C.cs": FileCoverage("/src/C.cs", {3: 1, 5: 1})})], "/src")
    m = Analysis.of(result).files[0].classes[0].methods[0]
    assert [p.start_line for p in m.points] == [3, 5]
    assert [p.start_line for p in mc.points] == [5, 3]


def test_a_file_with_classes_of_an_assembly_that_does_not_list_it_counts_them():
    def cls(name, hits):
        return ClassCoverage(name, "/src/F.cs", [MethodCoverage("M", "()", {3: hits}, token=1,
                                                               branches={3: branch(1, 2, hits=[(0, [hits, 0])])})],
                             {3: hits})
    a = AssemblyCoverage("A", [cls("C", 1)], {"/src/F.cs": FileCoverage("/src/F.cs", {3: 1})})
    # B does not list F (only G), yet its class D is in F
    b = AssemblyCoverage("B", [cls("D", 0)], {"/src/G.cs": FileCoverage("/src/G.cs", {1: 0})})
    f = Analysis.of(CoverageResult([a, b], "/src")).files[0]
    assert f.path == "/src/F.cs"
    assert (f.numbers.methods, f.numbers.methods_covered, f.numbers.complexity) == (2, 1, 4)


def _random_class(rng: random.Random, name: str, zero: bool = False, seed_hits=None) -> ClassCoverage:
    """A model class with methods out of order, unsorted maps, method lines the class lacks, consistent branches
    (`zero`: the same class with no hits, a build that ran nothing)."""
    methods = []
    for k in range(rng.randint(0, 6)):
        numbers = rng.sample(range(1, 90), rng.randint(0, 7))
        lines = {n: 0 if zero else rng.choice([0, 1, 3]) for n in numbers}
        branches = {}
        for n in numbers[:rng.randint(0, 2)]:
            per = [(rng.randint(0, 50), [0 if zero else rng.choice([0, 2]) for _ in range(rng.choice([1, 2, 3]))])
                   for _ in range(rng.randint(1, 2))]
            conds = [(off, "switch" if len(h) > 2 else "jump", sum(1 for x in h if x), len(h)) for off, h in per]
            branches[n] = BranchCoverage(sum(c[2] for c in conds), sum(c[3] for c in conds), [], conds, per)
        points = [PointCoverage(k + 1, i * 2, n, 1, n, 9, lines[n]) for i, n in enumerate(numbers)]
        methods.append(MethodCoverage(f"M{rng.randint(0, 3)}_{k}", "()", lines, points, token=k + 1,
                                      branches=branches))
    class_lines = {}
    for m in methods:
        for n, h in m.lines.items():
            if rng.random() < 0.85:
                class_lines[n] = h
    return ClassCoverage(name, "/src/R.cs", methods, class_lines)


def _as_zero(cc: ClassCoverage) -> ClassCoverage:
    def zero_branch(b):
        per = [(off, [0] * len(h)) for off, h in b.outcome_hits]
        return BranchCoverage(0, b.total, [], [(c[0], c[1], 0, c[3]) for c in b.conditions], per)
    methods = [MethodCoverage(m.name, m.signature, {n: 0 for n in m.lines},
                              [PointCoverage(p.method_token, p.il_offset, p.start_line, p.start_column, p.end_line,
                                             p.end_column, 0) for p in m.points], m.token,
                              {n: zero_branch(b) for n, b in m.branches.items()}) for m in cc.methods]
    return ClassCoverage(cc.name, cc.filename, methods, {n: 0 for n in cc.lines})


def _shape(c: ClassAnalysis):
    return (c.name, c.filename, list(c.lines.items()),
            [(m.name, m.signature, m.token, list(m.lines.items()), m.complexity, m.numbers,
              [(n, b.covered, b.total, list(b.conditions), [(o, list(h)) for o, h in b.outcome_hits])
               for n, b in m.branches.items()],
              [(p.start_line, p.il_offset, p.hits) for p in m.points]) for m in c.methods])


def _one_build_classes(seed: int, n: int = 300):
    """Random classes as one build has them: no two methods of the same name and signature."""
    rng = random.Random(seed)
    for _ in range(n):
        cc = _random_class(rng, "N.R")
        if len({(m.name, m.signature) for m in cc.methods}) == len(cc.methods):
            yield cc


def test_a_class_one_build_has_is_analysed_as_the_general_merge_does():
    # the single-build shortcut (`_single_class`) against the general merge of the same class with a build that
    # ran nothing (every hit 0: the same lines, outcomes, order and points)
    for cc in _one_build_classes(715):
        single = merge_classes([cc])
        general = merge_classes([cc, _as_zero(cc)])
        assert [_shape(c) for c in single] == [_shape(c) for c in general]


def _deferred(cc: ClassCoverage) -> ClassCoverage:
    """`cc` with its methods made when first read and their columns given until then (as plans/packed.apply)."""
    methods = cc.methods
    lazy = ClassCoverage(cc.name, cc.filename, [], cc.lines)
    lazy.defer_methods(lambda: methods, cc.method_columns)  # (cc's methods are made: columns read from them)
    return lazy


def test_a_class_read_as_columns_is_analysed_and_written_as_its_methods_say():
    # `_single_class` from a class's method columns (no method object made for Cobertura) against the same
    # class with its methods made, and the general merge; methods made from the columns when read
    for cc in _one_build_classes(2411):
        lazy = _deferred(cc)
        [c] = merge_classes([lazy])
        written = fast_class(c)
        assert pending(lazy, "methods")  # (written, numbers and all, without making them)
        assert written == check(c) == check(merge_classes([cc])[0]) == check(merge_classes([cc, _as_zero(cc)])[0])
        assert not pending(lazy, "methods")
        assert _shape(c) == _shape(merge_classes([cc])[0]) == _shape(merge_classes([cc, _as_zero(cc)])[0])


def test_file_complexity_and_methods_at_c_speed_are_the_merged_methods():
    # `_unmerged_methods` (no Python step per method) against the sum over the analysed methods, with lines
    # without outcome_hits, instructions without outcomes and methods without lines
    rng = random.Random(12)
    for _ in range(200):
        classes = [_random_class(rng, f"N.C{i}") for i in range(rng.randint(1, 3))]
        for c in classes:
            for m in c.methods:
                for b in m.branches.values():
                    if rng.random() < 0.2:
                        b.outcome_hits = []
                    elif rng.random() < 0.2:
                        b.outcome_hits.append((99, []))
            c.methods = [m for i, m in enumerate(c.methods) if len({(x.name, x.signature) for x in c.methods[:i + 1]}) == i + 1]
        result = CoverageResult([AssemblyCoverage("A", classes, {"/src/R.cs": FileCoverage(
            "/src/R.cs", {n: h for c in classes for n, h in c.lines.items()})})], "/src")
        f = Analysis.of(result).files[0]
        methods = [m for c in f.classes for m in c.methods]
        assert f.numbers.complexity == sum(cyclomatic_complexity(m.branches) for m in methods)
        assert (f.numbers.methods, f.numbers.methods_covered) == (len(methods), sum(any(m.lines.values())
                                                                                     for m in methods))


def test_method_and_class_numbers_are_computed_once():
    m = MethodAnalysis("M", "()", 1, {3: 1, 4: 0}, branches={3: branch(1, 2, [(0, "jump", 1, 2)], [(0, [1, 0])])})
    c = ClassAnalysis("C", "/src/C.cs", {3: 1, 4: 0}, [m])
    assert m.numbers is m.numbers and c.numbers is c.numbers
    assert (m.numbers.statements, m.numbers.missed, m.numbers.branches, m.numbers.partial, m.numbers.complexity) == \
        (2, 1, 2, 1, 2)
    assert m.crap == crap_score(2, 1, 2)


def _columns(*method):
    """`cobertura_class`'s methods columns of one method (name, signature, line rate, branch rate, complexity,
    lines, branches), or of none."""
    return tuple([v] for v in method) if method else ([],) * 7


def test_native_class_writer_refuses_what_it_cannot_write():
    from dotcov._native import cobertura_class

    with pytest.raises(TypeError):  # a line number that is no int
        cobertura_class("<class>", _columns("m", "()", "1", "1", 1, {1.5: 1}, {}), {}, {}, "")
    with pytest.raises(TypeError):  # not seven columns
        cobertura_class("<class>", _columns("m", "()", "1", "1", 1, {1: 1}, {})[:6], {}, {}, "")
    with pytest.raises(TypeError):  # a column that is not a list
        cobertura_class("<class>", ("m", ["()"], ["1"], ["1"], [1], [{1: 1}], [{}]), {}, {}, "")
    with pytest.raises(ValueError):  # columns of other lengths
        cobertura_class("<class>", (["m", "n"], *_columns("()", "1", "1", 1, {1: 1}, {})), {}, {}, "")
    with pytest.raises(TypeError):  # a name that is no str
        cobertura_class("<class>", _columns(b"m", "()", "1", "1", 1, {1: 1}, {}), {}, {}, "")
    with pytest.raises(TypeError):
        cobertura_class("<class>", _columns(), {1: 1}, {1: "50%"}, "")  # outcomes that are not a tuple
    assert cobertura_class("<c>", _columns(), {2: True, 1: 2.0}, {}, "") == \
        b'<c>\n  <methods />\n  <lines>\n    <line number="1" hits="2" branch="False" />\n' \
        b'    <line number="2" hits="1" branch="False" />\n  </lines>\n</class>\n'  # as "%d" writes them
    assert cobertura_class("<c>", _columns("m&amp;", "(x)", "0.5", "0", HUGE, {3: 0}, {}), {}, {}, "") == \
        b'<c>\n  <methods>\n    <method name="m&amp;" signature="(x)" line-rate="0.5" branch-rate="0" ' \
        b'complexity="18446744073709551623">\n      <lines>\n        <line number="3" hits="0" branch="False" />\n' \
        b'      </lines>\n    </method>\n  </methods>\n  <lines />\n</class>\n'
