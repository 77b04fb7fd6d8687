"""The cold plan's speed-ups give the plan a serial Python run gives: the branch analysis shared in chunks between a
worker process and this one (plan_worker.py), every failure of the worker falling back to the serial rows, and each
point's counter found natively (plan.point_columns)."""

from __future__ import annotations

import random
import sys
import time
from array import array
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_plan_cache import REPO, module_data, plans, snippets  # noqa: E402,F401  (fixture)

from dotcov import _native  # noqa: E402
from dotcov.data import datafiles as data
from dotcov.analysis.plans import plan
from dotcov.analysis.branches import analyse as branch_analysis
from dotcov.analysis.plans import worker as plan_worker
from dotcov.analysis import results
from dotcov.analysis.paths import PathMapper  # noqa: E402
from dotcov.analysis.results import ReportOptions, load_symbols  # noqa: E402


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

    def result(self, sym):
        started.append(self.started)
        return real(self, sym)

    monkeypatch.setattr(plan_worker.BranchWorker, "result", result)
    assert plans(cov, options) == serial
    assert started and all(started)  # (the worker's rows, not the serial fallback's)


def shuffled(module, seed: int = 7):
    """`module` with its counters in another order (the agent counts them in JIT order, not by method)."""
    order = list(range(len(module.sites)))
    random.Random(seed).shuffle(order)
    return SimpleNamespace(path=module.path, mvid=module.mvid, pdb_id=module.pdb_id,
                           sites=[module.sites[i] for i in order], hits=[module.hits[i] for i in order])


@pytest.fixture
def one_module(snippets):
    [module] = module_data(snippets["Release"]).modules.values()
    module = shuffled(module)
    mapper = PathMapper(None, REPO)
    sym = load_symbols(module, module.path)
    return module, sym, mapper, plan.branch_rows(module, sym, mapper)


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_chunks_are_runs_of_whole_methods():
    rng = random.Random(3)
    tokens = sorted(0x06000000 | rng.randrange(1, 60) for _ in range(500))
    for chunks in (1, 2, 7, 48, 1000):
        bounds = plan_worker.chunk_bounds(tokens, chunks)
        assert bounds[0] == 0 and bounds[-1] == len(tokens) and bounds == sorted(set(bounds))
        assert len(bounds) - 1 <= chunks
        assert all(tokens[b - 1] != tokens[b] for b in bounds[1:-1])
    assert len(plan_worker.chunk_bounds(tokens, 7)) == 8  # (about equal runs: as many as asked for)
    assert plan_worker.chunk_bounds([], 7) == [0]


def test_the_worker_and_this_process_share_the_chunks(one_module, monkeypatch):
    module, sym, mapper, serial = one_module
    assert serial
    monkeypatch.setattr(plan_worker, "CHUNKS", 8)
    worker = plan_worker.BranchWorker(module, mapper)
    assert worker.started and worker.shares[0] > 2
    real = plan.branch_rows

    def branch_rows(*args, **kwargs):  # this process's chunks start once the worker holds one
        wait_for(lambda: worker.shares[1] >= 1, "the worker claims a chunk")
        return real(*args, **kwargs)

    monkeypatch.setattr(branch_analysis, "branch_rows", branch_rows)
    assert worker.result(sym) == serial
    n, theirs, mine = worker.shares
    assert theirs >= 1 and mine >= 1 and theirs + mine == n


def test_the_worker_alone_gives_the_serial_rows(one_module, monkeypatch):
    module, sym, mapper, serial = one_module
    monkeypatch.setattr(plan_worker, "CHUNKS", 8)
    worker = plan_worker.BranchWorker(module, mapper)
    wait_for(lambda: worker.shares[1] == worker.shares[0], "the worker claims every chunk")
    monkeypatch.setattr(branch_analysis, "branch_rows", None)  # (this process computes nothing)
    assert worker.result(sym) == serial
    assert worker.shares[2] == 0



def shadowing_directory(tmp_path: Path) -> Path:
    """A working directory holding a `dotcov` package that is not dotcov (as a user's folder could)."""
    shadow = tmp_path / "shadow"
    (shadow / "dotcov").mkdir(parents=True)
    (shadow / "dotcov" / "__init__.py").write_text("raise SystemExit(7)\n")
    return shadow


def test_the_worker_imports_this_dotcov_whatever_the_working_directory_holds(one_module, monkeypatch, tmp_path):
    module, sym, mapper, serial = one_module
    monkeypatch.chdir(shadowing_directory(tmp_path))
    monkeypatch.setattr(plan_worker, "CHUNKS", 8)
    worker = plan_worker.BranchWorker(module, mapper)
    wait_for(lambda: worker.shares[1] == worker.shares[0], "the worker claims every chunk")
    monkeypatch.setattr(branch_analysis, "branch_rows", None)  # (this process computes nothing)
    assert worker.result(sym) == serial

FAKE_WORKERS = {
    "exits after a claim": "printf C; head -c 1 >/dev/null; exit 3",
    "answers what marshal cannot read": r"printf C; sleep 0.2; printf 'R\003\000\000\000\000\000\000\000abc'",
    "answers a chunk that is not a list": r"printf C; sleep 0.2; printf 'R\002\000\000\000\000\000\000\000i\000'",
    "is not a worker": "exit 1",
    "stalls": "printf C; exec sleep 600",
}


@pytest.mark.parametrize("fake", list(FAKE_WORKERS))
def test_chunks_the_worker_does_not_answer_are_computed_here(one_module, monkeypatch, tmp_path, fake):
    module, sym, mapper, serial = one_module
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\nexec 2>/dev/null\n" + FAKE_WORKERS[fake] + "\n")
    script.chmod(0o755)
    monkeypatch.setattr(plan_worker.sys, "executable", str(script))
    monkeypatch.setattr(plan_worker, "STALL_SECONDS", 1.0)
    worker = plan_worker.BranchWorker(module, mapper)
    assert worker.started
    if fake != "is not a worker":
        wait_for(lambda: worker.shares[1] == 1, "the fake worker is granted a chunk")
    began = time.monotonic()
    assert worker.result(sym) == serial
    assert time.monotonic() - began < 120  # (a stalled worker is not waited for: its `sleep` is 600 s)
    assert worker._proc is None  # (closed)


def test_a_chunk_failing_here_gives_the_serial_run(one_module, monkeypatch):
    module, sym, mapper, serial = one_module
    monkeypatch.setattr(plan_worker.sys, "executable", "/bin/false")  # starts, answers nothing, exits 1
    real = plan.branch_rows

    def branch_rows(module, sym, mapper, hits=None, bodies=None):
        if hits is not None:
            raise RuntimeError("a chunk failed")
        return real(module, sym, mapper)

    monkeypatch.setattr(branch_analysis, "branch_rows", branch_rows)
    worker = plan_worker.BranchWorker(module, mapper)
    assert worker.result(sym) == serial


def test_no_worker_when_asked_for_none(one_module, monkeypatch):
    module, sym, mapper, serial = one_module
    monkeypatch.setenv("DOTCOV_NO_WORKERS", "1")
    worker = plan_worker.BranchWorker(module, mapper)
    assert not worker.started
    assert worker.result(sym) == serial


def test_a_worker_not_asked_for_is_stopped(one_module):
    module, sym, mapper, _serial = one_module
    worker = plan_worker.BranchWorker(module, mapper)
    proc = worker._proc
    worker.close()
    assert proc.poll() is not None


def test_the_build_starts_the_worker_before_reading_the_symbols(snippets, monkeypatch):
    cov = module_data(snippets["Release"])
    monkeypatch.setenv("DOTCOV_NO_WORKERS", "1")
    serial, problems = results.build(cov, REPO)
    assert not problems
    monkeypatch.delenv("DOTCOV_NO_WORKERS")
    monkeypatch.setattr(results, "WORKER_MIN_SITES", 0)
    events = []
    real_init, real_load = plan_worker.BranchWorker.__init__, results.load_symbols

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        events.append(("worker", self.started))

    def load(*args, **kwargs):
        events.append(("symbols", None))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(plan_worker.BranchWorker, "__init__", init)
    monkeypatch.setattr(results, "load_symbols", load)
    result, problems = results.build(cov, REPO)
    assert not problems and events == [("worker", True), ("symbols", None)]
    assert repr(result) == repr(serial)  # (as tests/test_plan_cache.py compares builds)


def test_the_build_stops_the_worker_when_the_symbols_fail(snippets, monkeypatch):
    cov = module_data(snippets["Release"])
    monkeypatch.setattr(results, "WORKER_MIN_SITES", 0)
    workers = []
    real_init = plan_worker.BranchWorker.__init__

    def init(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        workers.append((self, self._proc))

    def load(module, path=None):
        raise results.SymbolsError("rebuilt")

    monkeypatch.setattr(plan_worker.BranchWorker, "__init__", init)
    monkeypatch.setattr(results, "load_symbols", load)
    result, problems = results.build(cov, REPO)
    assert problems == ["rebuilt"]
    [(worker, proc)] = workers
    assert proc is not None and proc.poll() is not None and not worker.started


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
    got = plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))
    assert got == python_point_columns(points, point_tokens, order, sites)
    counters = array("i", got[-1])
    assert -1 in counters and len({*counters}) > 100  # (found and missing counters both)
    # From a data file's site blob (data.ModuleHits.site_blob: no site tuple made) and from site tuples alike.
    read = data.ModuleHits(b"m" * 16, b"p" * 20, "m.dll", None, [0] * len(sites))
    read.defer_site_blob(b"".join(array("I", map(itemgetter(i), sites)).tobytes() for i in range(3)))
    assert plan.point_columns(points, point_tokens, order, read) == got
    assert read._sites_pending is not None  # (the tuples were not made)
    given = data.ModuleHits(b"m" * 16, b"p" * 20, "m.dll", list(sites), [0] * len(sites))
    assert plan.point_columns(points, point_tokens, order, given) == got
    assert plan.point_columns([], [], [], SimpleNamespace(sites=sites)) == python_point_columns([], [], [], sites)
    # The order as int32 values in an array (make_plan's: no int object per point), and arrays it does not take.
    blob = read.site_blob()
    assert _native.point_columns(points, point_tokens, array("i", order), blob) == got
    assert _native.point_columns(points, point_tokens, array("i"), blob) == python_point_columns([], [], [], sites)
    for other in (array("q", order), array("h", order[:5]), memoryview(array("i", order))[::2]):
        with pytest.raises(TypeError):
            _native.point_columns(points, point_tokens, other, blob)
    with pytest.raises(TypeError):  # (make_plan's order is int32)
        plan.point_columns(points, point_tokens, array("q", order), read)
    with pytest.raises(ValueError):
        _native.point_columns(points, point_tokens, array("i", [*order[:3], len(points)]), blob)


@pytest.mark.parametrize("case", ["site beyond 32 bits", "negative site", "point beyond int32"])
def test_point_columns_outside_the_native_range_are_refused(case):
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
    with pytest.raises((ValueError, OverflowError)):
        plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))


@pytest.mark.parametrize("blob", [b"", b"\0" * 11, b"\0" * 13, b"\1" * 25, bytearray(12), "abc", None])
def test_native_point_columns_check_the_site_blob(blob):
    points, point_tokens, order = [(2, 10, 1, 10, 5, 1)], [7], [0]
    if type(blob) is bytes and len(blob) % 12 == 0:  # (well formed: no site, or a (0, 0, 0) site)
        assert _native.point_columns(points, point_tokens, order, blob)[-1] == array("i", [-1]).tobytes()
        return
    with pytest.raises(ValueError if type(blob) is bytes else TypeError):
        _native.point_columns(points, point_tokens, order, blob)


def test_point_columns_of_values_that_are_not_ints_are_refused():
    class Index:  # an int only through __index__ (which native code must not call: it could change the lists)
        def __index__(self):
            return 0

    sites = [(7, 2, 0), (9, 1, Index())]
    points, point_tokens, order = [(2, 10, 1, 10, 5, 1)], [7], [0]
    with pytest.raises(TypeError):
        plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))


@pytest.mark.parametrize("tables", ["one table", "two tables"])
def test_the_job_orders_the_branch_counters_by_method_row(monkeypatch, tables):
    rng = random.Random(5)
    tops = [0x06000000] if tables == "one table" else [0x06000000, 0x2B000000]
    sites = [(rng.choice(tops) | rng.randrange(1, 300), rng.randrange(0, 90), rng.choice([0, 0, 1, 2, 5]))
             for _ in range(4000)]
    module = SimpleNamespace(path="m.dll", mvid=b"m" * 16, pdb_id=b"p" * 20, sites=sites, hits=[0] * len(sites))
    jobs = []
    real_dumps = plan_worker.pickle.dumps
    monkeypatch.setattr(plan_worker.pickle, "dumps", lambda job, **k: jobs.append(job) or real_dumps(job, **k))
    monkeypatch.setattr(plan_worker.sys, "executable", "/bin/false")
    worker = plan_worker.BranchWorker(module, PathMapper(None, REPO))
    worker.close()
    index = sorted((i for i, s in enumerate(sites) if s[2]), key=lambda i: sites[i][0] & 0x00FFFFFF)  # (main's)
    assert worker._index == index
    [job] = jobs
    assert job[5] == array("q", [v for i in index for v in sites[i]]).tobytes()
    assert job[7] == plan_worker.chunk_bounds([sites[i][0] for i in index])
