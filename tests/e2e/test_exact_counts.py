"""`dotcov run --exact-counts` (the agent's DOTCOV_EXACT_COUNTS=1): every increment is atomic, so counts stay exact
when threads hit the same probes at once (docs/architecture.md, "The increment is not atomic").

samples/Contention runs Work.Step for i in [0, N) on 4 threads started together, every one on the same lines,
branch outcomes, value conditions and short-circuit operands. With exact counts each of Step's lines and outcomes
has the count of a one-thread run (which no race can lower), in Debug and Release, with inline and helper-call
probes and with shared counters; without it they may be lower (lost increments), never a different verdict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SAMPLES, _dotnet_env, coverage_by_file

pytestmark = pytest.mark.e2e

PROJECT = SAMPLES / "Contention"
WORK = PROJECT / "Work.cs"
N = 20_000_000  # enough for 2 cores to collide on the default increments (tens of thousands lost per line here)
VARIANTS = [(build, probes) for build in ("Debug", "Release") for probes in ("inline", "call")]


@pytest.fixture(scope="module")
def contention(dotnet_build):
    for build in ("Debug", "Release"):
        dotnet_build("Contention", build)
    return PROJECT


def run(dotnet: str, data_dir: Path, build: str, threads: int, env_extra: dict[str, str], args=()) -> str:
    dll = PROJECT / "bin" / build / "net10.0" / "Contention.dll"
    proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--no-report", "--log", "--data-dir", str(data_dir),
                           *args, "--", dotnet, str(dll), str(N), str(threads)],
                          cwd=SAMPLES, env=_dotnet_env() | env_extra, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    log = "".join(p.read_text() for p in (data_dir / "logs").glob("agent.*.log"))
    assert "left uninstrumented" not in log and "skip " + str(dll) not in log, log
    return log


def step_lines() -> range:
    """The lines of Work.Step (its counts depend on N only, not on the number of threads)."""
    text = WORK.read_text().splitlines()
    first = next(i for i, t in enumerate(text, 1) if "public static long Step" in t)
    end = next(i for i, t in enumerate(text, 1) if "public static long RunAll" in t)
    return range(first, end)


def step_counts(data_dir: Path) -> dict:
    fc = coverage_by_file(data_dir, SAMPLES)[str(WORK)]
    lines = step_lines()
    return {"lines": {n: h for n, h in fc.lines.items() if n in lines},
            "outcomes": {n: b.outcome_hits for n, b in fc.branches.items() if n in lines}}


def verdicts(data_dir: Path) -> dict:
    return {path: ({n for n, h in fc.lines.items() if h}, {n for n, h in fc.lines.items() if not h},
                   {n: (b.covered, b.total, tuple(b.missed_outcomes)) for n, b in fc.branches.items()},
                   fc.not_measured)
            for path, fc in coverage_by_file(data_dir, SAMPLES).items()}


@pytest.mark.parametrize(("build", "probes"), VARIANTS, ids=[f"{b}-{p}" for b, p in VARIANTS])
def test_exact_counts_under_contention(contention, dotnet, tmp_path, build, probes):
    env = {"DOTCOV_PROBE": probes}
    one = tmp_path / "one-thread"
    run(dotnet, one, build, 1, env)
    want = step_counts(one)
    assert want["lines"][step_lines()[0] + 2] == N, want  # `long v = i;` once per i
    assert len(want["outcomes"]) >= 5, want  # the if, the value condition, the operand, the loop, the switch

    exact = tmp_path / "exact"
    log = run(dotnet, exact, build, 4, env, args=["--exact-counts"])
    assert "exact counts: atomic increments" in log, log
    if probes == "call":
        # the CoreLib helper counts with Interlocked.Increment
        assert re.search(r"Hit injected into CoreLib .*, atomic increments\)", log), log
    assert step_counts(exact) == want

    default = tmp_path / "default"
    run(dotnet, default, build, 4, env)
    have = step_counts(default)
    # Lost increments lower counts, never below 1 where the one-thread run counted (the verdicts below).
    for n, h in have["lines"].items():
        assert 0 < h <= want["lines"][n], (n, h, want["lines"][n])
    assert verdicts(default) == verdicts(exact)


def test_exact_counts_with_unshared_counters_and_the_jit_time_path(contention, dotnet, tmp_path):
    """Every site its own counter (DOTCOV_SHARE=0), IL set at the first JIT (DOTCOV_REJIT=0): exact too."""
    one, exact = tmp_path / "one", tmp_path / "exact"
    env = {"DOTCOV_SHARE": "0", "DOTCOV_REJIT": "0"}
    run(dotnet, one, "Debug", 1, env)
    run(dotnet, exact, "Debug", 4, env, args=["--exact-counts"])
    assert step_counts(exact) == step_counts(one)


def test_exact_counts_from_the_environment(contention, dotnet, tmp_path):
    """DOTCOV_EXACT_COUNTS=1 set outside dotcov reaches the agent as the flag does."""
    log = run(dotnet, tmp_path / "d", "Release", 2, {"DOTCOV_EXACT_COUNTS": "1"})
    assert "exact counts: atomic increments" in log, log
