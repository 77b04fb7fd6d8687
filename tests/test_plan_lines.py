"""The cold plan's line plan in native code (`_native.line_plan`, plan.file_line_plan) gives what its Python oracle
(oracles/line_plan.py: lines.deciding_lines, then each line's class and method) gives; input it does not take is
refused, and a file whose points it refuses is reported not measured, with the reason."""

from __future__ import annotations

import random
from collections import deque
import sys
from array import array
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_plan_cache import REPO, module_data, plans  # noqa: E402,F401

from dotcov import _native  # noqa: E402
from dotcov.analysis import lines as line_rule
from dotcov.analysis.plans import plan
from dotcov.analysis.results import ReportOptions  # noqa: E402
from oracles.line_plan import file_line_plan_py


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True)], ids=["user", "all"])
def test_the_native_line_plan_gives_the_plan_of_the_python_one(snippets, monkeypatch, config, options):
    cov = module_data(snippets[config])
    got = plans(cov, options)
    monkeypatch.setattr(plan, "file_line_plan", file_line_plan_py)
    assert got == plans(cov, options)


def native(points, runs, free, tokens=None) -> tuple:
    """_native.line_plan's answer as the oracle gives it (the first points as an array, not bytes); without
    `tokens`, the points are all one method's."""
    file_lines, first, multi, specs = _native.line_plan(points, runs, free, tokens or one_method(points))
    ids = array("i")
    ids.frombytes(first)
    return file_lines, ids, multi, specs


def one_method(points) -> list[int]:
    return [0] * len(points)


def random_file(rng: random.Random, n: int, *, lines: int = 200):
    """The PDB's points of a made-up file (some multi-line, some sharing a start line) in a plan's `points`, the
    file's runs of them, each with its owners (a class and a method, methods interleaving), and each point's method
    token (a run's, or now and then a lambda's of that method: some nest in the method's multi-line points)."""
    points = [(rng.randrange(0, 99), 0, 0, 0, 0, 1) for _ in range(rng.randrange(0, 5))]  # (other files' points)
    tokens = [0] * len(points)
    runs = []
    while sum(r[1] for r in runs) < n:
        count = min(n - sum(r[1] for r in runs), rng.choice([1, 1, 2, 5, 14, 40]))
        method = rng.randrange(0, 12)
        runs.append((len(points), count, (100 + method // 4, 200 + method) if rng.random() < 0.95
                     else (100 + method // 4,)))
        for _ in range(count):
            start = rng.randrange(1, lines)
            end = start + (rng.choice([1, 2, 5, 30]) if rng.random() < 0.2 else 0)
            if rng.random() < 0.03:
                end = start - 1  # (a point ending before it starts: never a continuation)
            points.append((rng.randrange(0, 500), start, rng.randrange(1, 40), end, rng.randrange(1, 40), 1))
            tokens.append(0x06000000 + method * 10 + (rng.randrange(1, 4) if rng.random() < 0.3 else 0))
        if rng.random() < 0.1:
            points.append((0, 1, 1, 1, 1, 2))  # (another file's point between)
            tokens.append(0)
    if rng.random() < 0.5:
        rng.shuffle(runs)
    return points, runs, tokens


@pytest.mark.parametrize("seed", range(40))
def test_the_native_line_plan_is_the_python_one_on_made_up_files(seed):
    rng = random.Random(seed)
    points, runs, tokens = random_file(rng, rng.choice([0, 1, 3, 40, 400]), lines=rng.choice([5, 50, 300]))
    free = set(rng.sample(range(0, 320), rng.randrange(0, 120)))
    got = native(points, runs, free, tokens)
    assert got == file_line_plan_py(points, runs, free, tokens)
    assert plan.file_line_plan(points, runs, free, tokens) == got


def test_the_native_line_plan_asks_the_source_about_continuation_lines_only():
    text = "class C {\n  int M() {\n    return F(\n      1,\n\n      // two\n      2);\n  }\n}\n"
    free = line_rule.CodeFreeLines(text, ".cs")
    points = [(0, 3, 5, 7, 9, 1), (1, 2, 11, 2, 12, 1), (2, 8, 3, 8, 4, 1)]
    runs = [(0, 2, (1, 2)), (2, 1, (1, 3))]
    got = native(points, runs, free)
    assert got == file_line_plan_py(points, runs, free, one_method(points))
    assert got[0] == [3, 2, 8, 4, 7]  # (start lines in order, then the continuation lines holding code)
    assert got[3] == {1: (0, 5), 2: [3, 2, 4, 7], 3: (2, 3)}  # (a class of all the lines, a method not in a run)


class MadeUpOpenings(set):
    """Code-free lines with lambda body openings made up at random positions (CodeFreeLines.body_opening's
    contract: the last one after the first position and before the second), counting the questions."""

    def __init__(self, lines, openings) -> None:
        super().__init__(lines)
        self.openings, self.asked = sorted(openings), 0

    def body_opening(self, start_line, start_column, line, column):
        self.asked += 1
        before = [o for o in self.openings if (start_line, start_column) < o < (line, column)]
        return before[-1] if before else None


@pytest.mark.parametrize("seed", range(40))
def test_the_native_line_plan_is_the_python_one_with_lambda_body_openings(seed):
    rng = random.Random(seed)
    points, runs, tokens = random_file(rng, rng.choice([3, 40, 400]), lines=rng.choice([5, 50, 300]))
    # (openings a line or three above points, where a lambda's first point may follow)
    openings = [(p[1] - rng.randrange(1, 4), rng.randrange(1, 40)) for p in rng.sample(points, len(points) // 2)]
    free = MadeUpOpenings(rng.sample(range(0, 320), rng.randrange(0, 120)), openings)
    want = file_line_plan_py(points, runs, free, tokens)
    assert native(points, runs, free, tokens) == want


def test_lambda_body_openings_are_asked_only_about_code_before_a_lambdas_first_point():
    # A Release lambda with only `{` between its statement's start (line 1) and its first point (line 3): no question;
    # with code on line 2 (`int count;`), one, and line 2 is the lambda's.
    points = [(0, 1, 5, 4, 3, 1), (1, 3, 9, 3, 20, 1)]
    runs, tokens = [(0, 1, (1, 2)), (1, 1, (1, 3))], [M_TOKEN, M_TOKEN + 1]
    free = MadeUpOpenings({2, 4}, [(2, 5)])
    assert native(points, runs, free, tokens)[0] == [1, 3] and free.asked == 0
    free = MadeUpOpenings({4}, [(1, 30)])
    assert native(points, runs, free, tokens)[0] == [1, 3] and free.asked == 1
    free = MadeUpOpenings({4}, [])
    assert native(points, runs, free, tokens)[0] == [1, 3, 2] and free.asked == 1


M_TOKEN = 0x06000001


def test_the_native_line_plan_gives_code_first_in_a_release_block_lambda_to_the_lambda():
    # test_lines.py's dictionary of lambdas (Release points): `int count;` first in a block lambda's body (lines 5,
    # 11) is no statement; `["negate"] = x =>` (9) and the lines before an expression lambda (15-16) are the
    # initializer's; `=> {` in a comment or string opens nothing.
    from test_lines import DICTIONARY_POINTS, LAMBDA_DICTIONARY

    points = [(k, s.start_line, s.start_column, s.end_line, s.end_column, 1) for k, s in enumerate(DICTIONARY_POINTS)]
    tokens = [s.method_token for s in DICTIONARY_POINTS]
    runs = [(0, 1, (1, 2)), (1, 2, (1, 3)), (3, 2, (1, 4)), (5, 1, (1, 5))]
    free = line_rule.CodeFreeLines(LAMBDA_DICTIONARY, ".cs")
    got = native(points, runs, free, tokens)
    assert got == file_line_plan_py(points, runs, free, tokens)
    assert sorted(got[0]) == [1, 3, 6, 7, 9, 12, 13, 15, 16, 17]


class Asked:
    """A code-free set that counts the questions (the native one asks each line once)."""

    def __init__(self, lines) -> None:
        self.lines, self.asked = set(lines), []

    def __contains__(self, n) -> bool:
        self.asked.append(n)
        return n in self.lines


def test_a_failing_code_free_test_raises_as_the_python_one_does():
    class Broken:
        def __contains__(self, n):
            raise RuntimeError("unreadable")

    points, runs = [(0, 1, 1, 3, 1, 1)], [(0, 1, (1, 2))]
    with pytest.raises(RuntimeError, match="unreadable"):
        _native.line_plan(points, runs, Broken(), one_method(points))
    with pytest.raises(RuntimeError, match="unreadable"):
        plan.file_line_plan(points, runs, Broken(), one_method(points))
    asked = Asked({2})
    points.append((1, 2, 1, 3, 1, 1))
    assert native(points, [(0, 2, (1, 2))], asked) == file_line_plan_py(points, [(0, 2, (1, 2))], {2},
                                                                          one_method(points))
    assert asked.asked == [3]  # (line 2 starts a point; line 3 asked once for both points spanning it)


def test_lines_at_the_ends_of_int64_are_planned_as_in_python():
    points = [(0, -2**63, 1, -2**63 + 2, 1, 1), (1, 2**63 - 3, 1, 2**63 - 1, 1, 1), (2, 5, 1, 5, 2, 1)]
    runs = [(0, 3, (1, 2))]
    assert native(points, runs, set()) == file_line_plan_py(points, runs, set(), one_method(points))
    points.append((3, -2**63, 1, 2**63 - 1, 1, 1))  # (a span of 2^64 - 1 lines: refused, not wrapped round)
    with pytest.raises(ValueError):
        _native.line_plan(points, [(0, 4, (1, 2))], set(), one_method(points))


@pytest.mark.parametrize("case", ["line beyond int64", "line not an int", "owners not a tuple", "ref not an int",
                                  "run beyond the points", "negative first", "negative count", "point too short",
                                  "runs not a list", "run not a triple", "a billion continuation lines",
                                  "token not an int", "tokens too short"])
def test_input_the_native_line_plan_does_not_take_is_refused(case):
    """Only the last can come from a PDB (read_symbols gives lines below 2^29 as ints, make_plan the runs): a
    damaged PDB's point spanning more lines than any file has."""
    points, runs = [(0, 1, 1, 2, 1, 1), (1, 4, 1, 4, 9, 1)], [(0, 1, (1, 2)), (1, 1, (1, 2))]
    if case == "line beyond int64":
        points[1] = (1, 2**70, 1, 2**70, 9, 1)
    elif case == "line not an int":
        points[1] = (1, 4.0, 1, 4, 9, 1)
    elif case == "owners not a tuple":
        runs[1] = (1, 1, [1, 2])
    elif case == "ref not an int":
        runs[1] = (1, 1, (1, "2"))
    elif case == "run beyond the points":
        runs[1] = (1, 2, (1, 2))
    elif case == "negative first":
        runs[1] = (-1, 1, (1, 2))
    elif case == "negative count":
        runs[1] = (1, -1, (1, 2))
    elif case == "point too short":
        points[1] = (1, 4, 1)
    elif case == "runs not a list":
        runs = deque(runs)
    elif case == "run not a triple":
        runs[1] = (1, 1, (1, 2), 0)
    tokens = one_method(points)
    if case == "token not an int":
        tokens[1] = "0x06000001"
    elif case == "tokens too short":
        tokens.pop()
    elif case == "a billion continuation lines":
        points[0] = (0, 1, 1, 2**29 - 1, 1, 1)
    with pytest.raises((TypeError, ValueError, OverflowError)):
        plan.file_line_plan(points, runs, set(), tokens)


def test_a_file_whose_points_the_line_plan_refuses_is_not_measured_with_the_reason(snippets, monkeypatch):
    """A damaged PDB whose point spans 2^29 - 2 more lines: the lines its file's points start on are not measured,
    saying why, the file keeps no class, branch or statement line, and the report warns."""
    from dotcov.analysis import results
    from dotcov.analysis.plans import packed

    cov = module_data(snippets["Debug"])
    module = next(iter(cov.modules.values()))
    mapper = results.PathMapper(None, REPO)
    sym = results.load_symbols(module, mapper.map(module.path))
    cases = str(REPO / "tests" / "branch_samples" / "Snippets" / "Cases.cs")
    doc = 1 + next(i for i, d in enumerate(sym.raw["documents"]) if mapper.map(d, near=module.path) == cases)
    rid = next(r for r, ps in sorted(sym.raw["sequence_points"].items()) if any(p[5] == doc for p in ps))
    p = next(p for p in sym.raw["sequence_points"][rid] if p[5] == doc)
    before = plan.make_plan(module, sym, ReportOptions(), mapper, results.SourceChecks())
    sym.raw["sequence_points"][rid] = [(p[0], p[1], p[2], 2**29 - 1, p[4], p[5]) if q is p else q
                                       for q in sym.raw["sequence_points"][rid]]
    made = plan.make_plan(module, sym, ReportOptions(), mapper, results.SourceChecks())
    with pytest.raises(ValueError) as refused:
        _native.line_plan([(0, 1, 1, 2**29 - 1, 1, 1)], [(0, 1, (0,))], set(), [0])
    why = f"the PDB's sequence points of this file cannot be planned ({refused.value})"
    assert made["problems"] == [f"{cases}: not measured: {why}"] and before["problems"] == []
    starts = {q[1] for ps in sym.raw["sequence_points"].values() for q in ps if q[5] == doc}
    [row] = [f for f in made["files"] if f[0] == cases]
    assert row[1] == [] and dict(row[5]) == dict.fromkeys(starts, why)
    assert all(c[1] != cases for c in made["classes"]) and all(r[2] != cases for r in made["records"])
    monkeypatch.setattr(results, "load_symbols", lambda *a: sym)
    result, problems = results.build(cov, REPO)
    assert problems == made["problems"]
    fc = result.assemblies[0].files[cases]
    assert (fc.lines, fc.branches, fc.not_measured) == ({}, {}, dict.fromkeys(starts, why))
    assert packed.pack(made)["problems"] == made["problems"]
