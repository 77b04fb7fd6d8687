"""Another coverage tool turned on in the command line is refused before anything runs (issue 13, item 6)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov.measure.coexistence import in_command_line


@pytest.mark.parametrize("argv, tool", [
    (["dotnet", "test", "--collect", "XPlat Code Coverage"], "coverlet's collector"),
    (["dotnet", "test", "--collect:XPlat Code Coverage;Format=opencover"], "coverlet's collector"),
    (["dotnet", "test", "--collect", "Code Coverage;Format=cobertura"], "Microsoft's code coverage collector"),
    (["dotnet", "test", "/p:CollectCoverage=true"], "coverlet.msbuild"),
    (["dotnet", "test", "-p:collectcoverage=true"], "coverlet.msbuild"),
])
def test_collectors_on_the_command_line_are_named(argv, tool):
    assert tool in in_command_line(argv, Path.cwd())


def test_other_collectors_and_plain_runs_pass(tmp_path):
    assert in_command_line(["dotnet", "test", "--collect", "blame"], tmp_path) is None
    assert in_command_line(["dotnet", "test"], tmp_path) is None


def test_runsettings_with_a_coverage_collector(tmp_path):
    (tmp_path / "c.runsettings").write_text(
        '<RunSettings><DataCollectionRunSettings><DataCollectors>'
        '<DataCollector friendlyName="XPlat code coverage"/></DataCollectors></DataCollectionRunSettings></RunSettings>')
    found = in_command_line(["dotnet", "test", "--settings", "c.runsettings"], tmp_path)
    assert "coverlet's collector" in found and "c.runsettings" in found


def test_dotcov_run_refuses_before_erasing(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "dotcov.combined.cov").write_bytes(b"earlier")
    r = subprocess.run([sys.executable, "-m", "dotcov", "run", "--data-dir", str(d), "--", "dotnet", "test",
                        "--collect", "XPlat Code Coverage"], cwd=tmp_path, env=dict(os.environ),
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "another coverage tool is turned on: coverlet's collector" in r.stderr
    assert "Two coverage tools cannot measure one run" in r.stderr
    assert (d / "dotcov.combined.cov").read_bytes() == b"earlier"
