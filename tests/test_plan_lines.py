"""The cold plan's line plan in native code (`_native.line_plan`, plan.file_line_plan) gives what its Python
reference (plan.file_line_plan_py: lines.deciding_lines, then each line's class and method) gives, and input it does
not take falls back to the reference."""

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


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True)], ids=["user", "all"])
def test_the_native_line_plan_gives_the_plan_of_the_python_one(snippets, monkeypatch, config, options):
    cov = module_data(snippets[config])
    calls = []
    real = _native.line_plan

    def native(*a):
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(_native, "line_plan", native)
    got = plans(cov, options)
    assert calls  # (the native one made it)
    monkeypatch.setattr(_native, "line_plan", lambda *a: (_ for _ in ()).throw(TypeError("no")))
    assert got == plans(cov, options)


def native(points, runs, free) -> tuple:
    """_native.line_plan's answer as file_line_plan_py gives it (the first points as an array, not bytes)."""
    file_lines, first, multi, specs = _native.line_plan(points, runs, free)
    ids = array("i")
    ids.frombytes(first)
    return file_lines, ids, multi, specs


def random_file(rng: random.Random, n: int, *, lines: int = 200):
    """The PDB's points of a made-up file (some multi-line, some sharing a start line) in a plan's `points`, and the
    file's runs of them, each with its owners (a class and a method, methods interleaving)."""
    points = [(rng.randrange(0, 99), 0, 0, 0, 0, 1) for _ in range(rng.randrange(0, 5))]  # (other files' points)
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
        if rng.random() < 0.1:
            points.append((0, 1, 1, 1, 1, 2))  # (another file's point between)
    if rng.random() < 0.5:
        rng.shuffle(runs)
    return points, runs


@pytest.mark.parametrize("seed", range(40))
def test_the_native_line_plan_is_the_python_one_on_made_up_files(seed):
    rng = random.Random(seed)
    points, runs = random_file(rng, rng.choice([0, 1, 3, 40, 400]), lines=rng.choice([5, 50, 300]))
    free = set(rng.sample(range(0, 320), rng.randrange(0, 120)))
    got = native(points, runs, free)
    assert got == plan.file_line_plan_py(points, runs, free)
    assert plan.file_line_plan(points, runs, free) == got


def test_the_native_line_plan_asks_the_source_about_continuation_lines_only():
    text = "class C {\n  int M() {\n    return F(\n      1,\n\n      // two\n      2);\n  }\n}\n"
    free = line_rule.CodeFreeLines(text, ".cs")
    points = [(0, 3, 5, 7, 9, 1), (1, 2, 11, 2, 12, 1), (2, 8, 3, 8, 4, 1)]
    runs = [(0, 2, (1, 2)), (2, 1, (1, 3))]
    got = native(points, runs, free)
    assert got == plan.file_line_plan_py(points, runs, free)
    assert got[0] == [3, 2, 8, 4, 7]  # (start lines in order, then the continuation lines holding code)
    assert got[3] == {1: (0, 5), 2: [3, 2, 4, 7], 3: (2, 3)}  # (a class of all the lines, a method not in a run)


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
        _native.line_plan(points, runs, Broken())
    with pytest.raises(RuntimeError, match="unreadable"):
        plan.file_line_plan(points, runs, Broken())
    asked = Asked({2})
    points.append((1, 2, 1, 3, 1, 1))
    assert native(points, [(0, 2, (1, 2))], asked) == plan.file_line_plan_py(points, [(0, 2, (1, 2))], {2})
    assert asked.asked == [3]  # (line 2 starts a point; line 3 asked once for both points spanning it)


def test_lines_at_the_ends_of_int64_are_planned_as_in_python():
    points = [(0, -2**63, 1, -2**63 + 2, 1, 1), (1, 2**63 - 3, 1, 2**63 - 1, 1, 1), (2, 5, 1, 5, 2, 1)]
    runs = [(0, 3, (1, 2))]
    assert native(points, runs, set()) == plan.file_line_plan_py(points, runs, set())
    points.append((3, -2**63, 1, 2**63 - 1, 1, 1))  # (a span of 2^64 - 1 lines: refused, not wrapped round)
    with pytest.raises(ValueError):
        _native.line_plan(points, [(0, 4, (1, 2))], set())


@pytest.mark.parametrize("case", ["line beyond int64", "line not an int", "owners not a tuple", "ref not an int",
                                  "run beyond the points", "negative first", "negative count", "point too short",
                                  "runs not a list", "run not a triple", "a billion continuation lines"])
def test_input_the_native_line_plan_does_not_take_falls_back_to_python(case, monkeypatch):
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
    else:
        points[0] = (0, 1, 1, 2**30, 1, 1)
    with pytest.raises((TypeError, ValueError, OverflowError)):
        _native.line_plan(points, runs, set())
    if case == "a billion continuation lines":  # (the reference takes minutes and gigabytes: that it is asked)
        monkeypatch.setattr(plan, "file_line_plan_py", lambda *a: "the reference's")
        assert plan.file_line_plan(points, runs, set()) == "the reference's"
        return
    try:
        expected = plan.file_line_plan_py(points, runs, set())
    except Exception as e:  # noqa: BLE001 - then the fallback raises the reference's exception
        with pytest.raises(type(e)):
            plan.file_line_plan(points, runs, set())
        return
    assert plan.file_line_plan(points, runs, set()) == expected
