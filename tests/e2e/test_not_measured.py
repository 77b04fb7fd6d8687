"""A method the agent could not instrument is "not measured", never "missed" (issue 13, item 3)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e


def dotcov(*args):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=SAMPLES, env=_dotnet_env(),
                          capture_output=True, text=True)


def test_a_failed_rewrite_is_recorded_with_its_reason(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo"], cwd=SAMPLES, args=["--log"],
                     env_extra={"DOTCOV_TEST_FAIL_REWRITE": "Calc.Calculator.Add"})
    assert run.status == 0, run.stderr
    d = dotcov("debug", "data", "--data-dir", str(run.data_dir))
    assert d.returncode == 0, d.stderr
    assert "not measured (the agent could not instrument them): 1 method(s)" in d.stdout, d.stdout
    assert "Calc.Calculator.Add: rewrite failed on purpose (DOTCOV_TEST_FAIL_REWRITE)" in d.stdout
    from dotcov.data import datafiles as data

    cov = data.load(run.data_dir)
    calc = next(m for m in cov.modules.values() if m.path.endswith("/Calc.dll"))
    [token] = calc.unmeasured
    # Its counters are zero (no probes ran), but they are declared unknown, not "not run".
    assert all(h == 0 for s, h in zip(calc.sites, calc.hits) if s[0] == token)
    # Every other method the tests ran was instrumented and counted.
    assert any(h for s, h in zip(calc.sites, calc.hits) if s[0] != token)
    logs = (run.data_dir / "logs")
    assert any("left uninstrumented: rewrite failed on purpose" in p.read_text() for p in logs.glob("agent.*.log"))


def test_a_failed_rejit_is_not_measured_with_its_reason(built_samples, dotcov_run, dotnet):
    # GetReJITParameters fails after the rewrite recorded the method "instrumented": the runtime calls ReJITError
    # and runs the original IL, so no probe of it runs; its lines must not read "missed".
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo"], cwd=SAMPLES, args=["--log"],
                     env_extra={"DOTCOV_TEST_FAIL_REJIT": "Calc.Calculator.Add"})
    assert run.status == 0, run.stderr
    from dotcov.data import datafiles as data

    cov = data.load(run.data_dir)
    calc = next(m for m in cov.modules.values() if m.path.endswith("/Calc.dll"))
    assert set(calc.unmeasured.values()) == {"ReJIT failed 0x80004005"}, calc.unmeasured
    [token] = calc.unmeasured
    assert all(h == 0 for s, h in zip(calc.sites, calc.hits) if s[0] == token)
    assert any(h for s, h in zip(calc.sites, calc.hits) if s[0] != token)
    d = dotcov("debug", "data", "--data-dir", str(run.data_dir))
    assert "Calc.Calculator.Add: ReJIT failed 0x80004005" in d.stdout, d.stdout
