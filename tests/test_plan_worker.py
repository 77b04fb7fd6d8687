"""The cold plan's speed-ups give the plan a serial Python run gives: the branch analysis in a worker process
(plan_worker.py) and each point's counter found natively (plan.point_sites)."""

from __future__ import annotations

import random
import sys
from array import array
from itertools import repeat
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_plan_cache import REPO, module_data, snippets  # noqa: E402,F401  (fixture)

from dotcov import plan, plan_worker  # noqa: E402
from dotcov.paths import PathMapper  # noqa: E402
from dotcov.results import ReportOptions, SourceChecks, load_symbols  # noqa: E402


def plans(cov, options: ReportOptions) -> list[dict]:
    mapper = PathMapper(options.paths, REPO)
    return [plan.make_plan(m, load_symbols(m, mapper.map(m.path)), options, mapper, SourceChecks())
            for m in cov.modules.values()]


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True)], ids=["user", "all"])
def test_a_worker_gives_the_plan_of_a_serial_run(snippets, monkeypatch, config, options):
    cov = module_data(snippets[config])
    monkeypatch.setenv("DOTCOV_NO_WORKERS", "1")
    serial = plans(cov, options)
    assert any(p["records"] for p in serial)
    monkeypatch.delenv("DOTCOV_NO_WORKERS")
    monkeypatch.setattr(plan, "WORKER_MIN_SITES", 0)
    started = []
    real = plan_worker.BranchWorker.result

    def result(self):
        started.append(self.started)
        return real(self)

    monkeypatch.setattr(plan_worker.BranchWorker, "result", result)
    assert plans(cov, options) == serial
    assert started and all(started)  # (the worker's rows, not the serial fallback's)


def test_the_worker_answers_the_rows_of_branch_rows(snippets):
    cov = module_data(snippets["Debug"])
    [module] = cov.modules.values()
    mapper = PathMapper(None, REPO)
    sym = load_symbols(module, module.path)

    def fallback():
        raise AssertionError("the worker failed")

    worker = plan_worker.BranchWorker(fallback, module, sym, mapper)
    assert worker.started
    assert worker.result() == plan.branch_rows(module, sym, mapper)


def test_a_failing_worker_falls_back_to_the_serial_rows(snippets, monkeypatch):
    cov = module_data(snippets["Debug"])
    [module] = cov.modules.values()
    mapper = PathMapper(None, REPO)
    sym = load_symbols(module, module.path)
    monkeypatch.setattr(plan_worker.sys, "executable", "/bin/false")  # starts, answers nothing, exits 1
    worker = plan_worker.BranchWorker(lambda: ["serial"], module, sym, mapper)
    assert worker.started
    assert worker.result() == ["serial"]


def test_a_worker_not_asked_for_is_stopped(snippets):
    cov = module_data(snippets["Debug"])
    [module] = cov.modules.values()
    mapper = PathMapper(None, REPO)
    worker = plan_worker.BranchWorker(list, module, load_symbols(module, module.path), mapper)
    proc = worker._proc
    worker.close()
    assert proc.poll() is not None


def python_point_columns(points, point_tokens, order, sites) -> list[bytes]:
    """main's per-point columns (before plan.point_columns)."""
    site_of = dict(zip(sites, range(len(sites))))
    tokens = list(map(point_tokens.__getitem__, order))
    offsets, *spans, _docs = zip(*map(points.__getitem__, order)) if order else ((),) * 6
    columns = [tokens, offsets, *spans, list(map(site_of.get, zip(tokens, offsets, repeat(0)), repeat(-1)))]
    return [array("i", c).tobytes() for c in columns]


def test_native_point_columns_are_the_python_ones():
    rng = random.Random(12)
    sites = [(0x06000000 | rng.randrange(1, 40), rng.randrange(0, 60), rng.choice([0, 0, 1, 2, 0x80000000]))
             for _ in range(5000)]
    points = [(rng.randrange(0, 70), rng.randrange(1, 900), rng.randrange(1, 80), rng.randrange(1, 900),
               rng.randrange(1, 80), rng.randrange(1, 4)) for _ in range(3000)]
    point_tokens = [0x06000000 | rng.randrange(1, 45) for _ in points]
    order = rng.sample(range(len(points)), 2500)
    got = plan.point_columns(points, point_tokens, order, sites)
    assert got == python_point_columns(points, point_tokens, order, sites)
    counters = array("i", got[-1])
    assert -1 in counters and len({*counters}) > 100  # (found and missing counters both)
    assert plan.point_columns([], [], [], sites) == python_point_columns([], [], [], sites)


@pytest.mark.parametrize("case", ["site beyond 32 bits", "negative site", "point beyond int32"])
def test_point_columns_outside_the_native_range_fall_back_to_python(case):
    sites = [(7, 2, 0), (9, 1, 0)]
    points = [(2, 10, 1, 10, 5, 1), (1, 11, 1, 11, 5, 1)]
    point_tokens = [7, 9]
    if case == "site beyond 32 bits":
        sites.append((2**40, 1, 0))
    elif case == "negative site":
        sites.append((-1, 3, 0))
    else:
        points.append((0, 2**31, 1, 2**31, 5, 1))
        point_tokens.append(7)
    order = list(range(len(points)))[::-1]
    if case == "point beyond int32":  # (array("i") cannot hold it either)
        with pytest.raises(OverflowError):
            plan.point_columns(points, point_tokens, order, sites)
        return
    assert plan.point_columns(points, point_tokens, order, sites) == python_point_columns(points, point_tokens,
                                                                                          order, sites)


def test_point_columns_of_values_that_are_not_ints_fall_back_to_python():
    class Index:  # an int only through __index__ (which native code must not call: it could change the lists)
        def __index__(self):
            return 0

    sites = [(7, 2, 0), (9, 1, Index())]
    points, point_tokens, order = [(2, 10, 1, 10, 5, 1)], [7], [0]
    assert plan.point_columns(points, point_tokens, order, sites) == python_point_columns(points, point_tokens,
                                                                                          order, sites)
