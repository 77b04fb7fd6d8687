"""Stress mode: probes before every instruction of every method of every module but CoreLib
(framework, xunit, test SDK included). The tests must give the same results as without dotcov,
and the covered library's line coverage must still match its marks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lxml import etree

from dotcov.data import datafiles as data
from dotcov.analysis import results
from dotcov.analysis.branches.il import VALUE_FALSE, VALUE_TRUE

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks

pytestmark = pytest.mark.e2e

TRX_NS = "{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}"


def outcomes(trx: Path) -> dict[str, str]:
    root = etree.parse(str(trx)).getroot()
    return {r.get("testName"): r.get("outcome") for r in root.iter(f"{TRX_NS}UnitTestResult")}


@pytest.mark.parametrize("project,library,configuration", [
    ("Calc.Tests", "Calc", "Debug"),
    ("FsCalc.Tests", "FsCalc", "Debug"),
    # Release F# emits `tail.` calls, which probes must never separate from their `ret`.
    ("FsCalc.Tests", "FsCalc", "Release"),
])
def test_stress_run_changes_no_test_result(built_samples, dotnet_build, dotcov_run, dotnet, tmp_path, project,
                                           library, configuration):
    dotnet_build("All.sln", configuration)  # Release: the samples' one Release build of the run
    config = ["-c", configuration]
    plain_trx = tmp_path / "plain.trx"
    subprocess.run([dotnet, "test", project, *config, "--no-build", "--nologo", "--logger",
                    f"trx;LogFileName={plain_trx}"], cwd=SAMPLES, env=_dotnet_env(), check=True, capture_output=True)
    stress_trx = tmp_path / "stress.trx"
    run = dotcov_run([dotnet, "test", project, *config, "--no-build", "--nologo", "--logger",
                      f"trx;LogFileName={stress_trx}"], cwd=SAMPLES, args=["--log"],
                     env_extra={"DOTCOV_STRESS_ALL_METHODS": "1"})
    assert run.status == 0, run.stdout + run.stderr
    expected = outcomes(plain_trx)
    assert expected and outcomes(stress_trx) == expected

    logs = "\n".join(p.read_text() for p in (run.data_dir / "logs").glob("agent.*.log"))
    assert "left uninstrumented" not in logs
    assert " skip " not in logs
    cov = data.load(run.data_dir)
    names = {Path(m.path).name for m in cov.modules.values()}
    # The framework, the runner and the test SDK are rewritten too, and their probes run.
    for expected_module in ("System.Linq.dll", "System.Collections.dll", "xunit.execution.dotnet.dll",
                            "Microsoft.VisualStudio.TestPlatform.ObjectModel.dll", f"{library}.dll"):
        assert expected_module in names, sorted(names)
    assert "System.Private.CoreLib.dll" not in names
    assert sum(1 for m in cov.modules.values() for h in m.hits if h) > 50_000
    # Conditions computed into a value take their value probes too (both outcomes counted somewhere).
    value_kinds = {kind for m in cov.modules.values() for (_t, _o, kind), h in zip(m.sites, m.hits)
                   if h and kind in (VALUE_FALSE, VALUE_TRUE)}
    assert value_kinds == {VALUE_FALSE, VALUE_TRUE}

    # The library's coverage is still exact under stress.
    (module,) = [m for m in cov.modules.values() if Path(m.path).name == f"{library}.dll"]
    only = data.CoverageData(modules={module.key: module})
    result, problems = results.build(only, SAMPLES)
    assert not problems
    assert_matches_marks({fc.path: fc for fc in result.all_files()}, SAMPLES / library)
