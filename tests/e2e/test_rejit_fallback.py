"""A module whose ReJIT request is not done within the bound takes the JIT-time path, and is still measured
exactly (issue 13, item 7): DOTCOV_TEST_STALL_REJIT holds the request for Calc.dll back until the module load
stops waiting."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e


def test_a_stalled_rejit_request_falls_back_to_the_jit_time_path(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo"], cwd=SAMPLES, args=["--log"],
                     env_extra={"DOTCOV_TEST_STALL_REJIT": "Calc.dll", "DOTNET_TC_CallCountThreshold": "1"})
    assert run.status == 0, run.stdout + run.stderr
    logs = "".join(p.read_text() for p in (run.data_dir / "logs").glob("agent.*.log"))
    assert "/Calc.dll not done after 10000 ms; rewriting at JIT time" in logs, logs[-3000:]
    # Other modules were not held back: the stall is Calc.dll's alone.
    stalled = [line for line in logs.splitlines() if "not done after" in line]
    assert stalled and all("/Calc.dll not done" in line for line in stalled), stalled
    files = coverage_by_file(run.data_dir, SAMPLES)
    assert_matches_marks(files, SAMPLES / "Calc")
