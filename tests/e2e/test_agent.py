"""The agent inside real .NET processes: loading, declining, and abrupt ends."""

from __future__ import annotations

import pytest

from dotcov.data import datafiles as data

from .conftest import SAMPLES, coverage_by_file
from .marks import read_marks

pytestmark = pytest.mark.e2e

CRASH_DLL = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll"


@pytest.mark.parametrize("probes", ["inline", "call"])
def test_agent_loads_injects_helper_and_counts(built_samples, dotcov_run, dotnet, probes):
    """Fails at once on a wrong vtable slot or IID: QI, metadata emit and IL rewrite all have to work. The CoreLib
    helper is injected only for the probes that call it (docs/architecture.md)."""
    run = dotcov_run([dotnet, str(CRASH_DLL), "ok"], cwd=SAMPLES, args=["--log"], env_extra={"DOTCOV_PROBE": probes})
    assert run.status == 0, run.stderr
    logs = list((run.data_dir / "logs").glob("agent.*.log"))
    assert len(logs) == 1, logs
    log = logs[0].read_text()
    assert ("helper DotCov.Probes::Hit injected into CoreLib" in log) == (probes == "call"), log
    assert f"cover {CRASH_DLL}" in log, log
    assert "left uninstrumented" not in log, log
    cov = data.load(run.data_dir)
    (module,) = [m for m in cov.modules.values() if m.path == str(CRASH_DLL)]
    assert sum(module.hits) > 0


def test_sdk_processes_decline(built_samples, dotcov_run, dotnet):
    """`dotnet build` starts the CLI and MSBuild nodes: all decline, leaving no data and no log."""
    run = dotcov_run([dotnet, "build", "Crash", "--no-restore", "-nologo", "-v", "quiet"], cwd=SAMPLES,
                     args=["--log"])
    assert run.status == 0, run.stdout + run.stderr
    assert not list(run.data_dir.glob("*.cov"))
    assert not (run.data_dir / "logs").exists() or not list((run.data_dir / "logs").iterdir())
    assert "no coverage was collected" in run.stderr


def test_hits_before_sigkill_are_reported(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(CRASH_DLL), "sigkill"], cwd=SAMPLES)
    assert run.status == 128 + 9, run.stderr
    files = coverage_by_file(run.data_dir, SAMPLES)
    program = SAMPLES / "Crash" / "Program.cs"
    hit, miss = read_marks(program)
    fc = files[str(program)]
    assert {n for n, h in fc.lines.items() if h > 0} == hit
    assert {n for n, h in fc.lines.items() if h == 0} == miss
