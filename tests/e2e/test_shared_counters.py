"""Counter sharing changes no count: every sample (All.sln and the CPU-bound Bench suite), Debug and Release,
ReJIT versions and the JIT-time path, run with shared counters (the default) and with one counter per probe
site (`DOTCOV_SHARE=0`, the design before sharing) gives the same hit count at every sequence point and branch
outcome, the same method states and notes, and the same `dotcov json` report (line counts, branch outcome
counts, verdicts). docs/architecture.md, "Shared counters"; the samples' marks are checked against both designs
by test_calc_sample.py ("unshared-counters") and the lowering test (whose MidBlock sample throws mid-block)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov.data import datafiles as data
from dotcov.analysis import results
from dotcov.reports.json_report import json_report

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

VARIANTS = [(build, rejit) for build in ("Debug", "Release") for rejit in ("1", "0")]
# ReJIT is the agent's default (agent_config.cpp: any DOTCOV_REJIT but "0"), so the rejit1 runs set nothing and
# are the very runs test_exact_counts_change_no_count compares with: each distinct run is made once (`measured`).
REJIT_ENV = {"1": {}, "0": {"DOTCOV_REJIT": "0"}}


@pytest.fixture(scope="module")
def every_build(dotnet_build, built_samples, samples_release):
    for build in ("Debug", "Release"):
        dotnet_build("Bench.Tests", build)
    return SAMPLES


@pytest.fixture(scope="module")
def measured(every_build, dotnet, tmp_path_factory):
    """measured(build, env) -> data dir: every sample run under dotcov with these settings, once per module (the
    tests only read the data)."""
    runs: dict[tuple, Path] = {}

    def measure(build: str, env_extra: dict[str, str]) -> Path:
        key = (build, tuple(sorted(env_extra.items())))
        if key not in runs:
            runs[key] = tmp_path_factory.mktemp("every-sample") / "data"
            run_every_sample(dotnet, runs[key], build, env_extra)
        return runs[key]

    return measure


def run_every_sample(dotnet: str, data_dir: Path, build: str, env_extra: dict[str, str]) -> None:
    env = _dotnet_env() | env_extra
    tests = (f"{dotnet} test All.sln --no-build --nologo -c {build} && "
             f"{dotnet} test Bench.Tests --no-build --nologo -c {build}")
    proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--no-report", "--data-dir", str(data_dir), "--",
                           "sh", "-c", tests], cwd=SAMPLES, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


def counts(data_dir: Path) -> dict:
    loaded = data.load(data_dir)
    assert not loaded.warnings, loaded.warnings
    return {m.path: (m.sites, m.hits, m.method_states, sorted(m.not_measured)) for m in loaded.modules.values()}


def report(data_dir: Path) -> dict:
    result, problems = results.build(data.load(data_dir), SAMPLES)
    assert not problems, problems
    doc = json_report(result, version="test", timestamp=0)
    doc.pop("meta", None)
    return json.loads(json.dumps(doc))


@pytest.mark.parametrize(("build", "rejit"), VARIANTS, ids=[f"{b}-rejit{r}" for b, r in VARIANTS])
def test_shared_counters_change_no_count(measured, build, rejit):
    unshared = measured(build, REJIT_ENV[rejit] | {"DOTCOV_SHARE": "0"})
    shared = measured(build, REJIT_ENV[rejit])
    want, have = counts(unshared), counts(shared)
    assert sorted(have) == sorted(want)
    assert any("Bench" in p for p in have) and any("Lowering" in p for p in have), sorted(have)
    differ = {}
    for path, (sites, hits, states, notes) in want.items():
        h_sites, h_hits, h_states, h_notes = have[path]
        assert h_sites == sites, path
        assert (h_states, h_notes) == (states, notes), path
        wrong = [(sites[i], hits[i], h_hits[i]) for i in range(len(sites)) if hits[i] != h_hits[i]]
        if wrong:
            differ[path] = wrong[:20]
    assert not differ, differ
    assert sum(sum(h) for _, h, _, _ in have.values()) > 10**8  # Bench ran
    assert report(shared) == report(unshared)


@pytest.mark.parametrize("build", ["Debug", "Release"])
def test_exact_counts_change_no_count(measured, build):
    """`--exact-counts` (atomic increments, docs/architecture.md) gives every sample the same site counts, method
    states, notes and report as the default increment (the samples' threads do not collide on a probe; a lost
    increment in the default run would be the only legitimate difference, and would show here)."""
    default = measured(build, {})
    exact = measured(build, {"DOTCOV_EXACT_COUNTS": "1"})
    want, have = counts(default), counts(exact)
    assert sorted(have) == sorted(want)
    differ = {path: [(s, h, e) for s, h, e in zip(sites, hits, have[path][1]) if h != e][:20]
              for path, (sites, hits, _, _) in want.items() if hits != have[path][1]}
    assert not differ, differ
    assert {p: (v[0], v[2], v[3]) for p, v in have.items()} == {p: (v[0], v[2], v[3]) for p, v in want.items()}
    assert report(exact) == report(default)
