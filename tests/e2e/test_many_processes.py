"""Many processes: a solution whose test projects run in parallel test hosts, a test that starts
another .NET program, and two `dotcov run`s at once."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from dotcov.data import datafiles as data

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e

CRASH_DLL = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll"


def test_solution_with_several_test_projects(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "All.sln", "--no-build", "--nologo"], cwd=SAMPLES)
    assert run.status == 0, run.stdout + run.stderr
    cov = data.load(run.data_dir)
    commands = [p["command_line"] for p in cov.processes]
    test_projects = re.findall(r'"[^"]+\.Tests\\[^"]+\.(?:cs|fs|vb)proj"', (SAMPLES / "All.sln").read_text())
    assert sum("testhost.dll" in c for c in commands) == len(test_projects) >= 3, commands
    assert any(c.endswith("Crash.dll ok") for c in commands), commands
    files = coverage_by_file(run.data_dir, SAMPLES)
    assert_matches_marks(files, SAMPLES / "Calc")
    assert_matches_marks(files, SAMPLES / "TextKit")
    assert_matches_marks(files, SAMPLES / "FsCalc")
    program = (SAMPLES / "Crash" / "Program.cs")
    ok_line = next(i for i, l in enumerate(program.read_text().splitlines(), 1) if 'Console.WriteLine("crash: ok")' in l)
    assert files[str(program)].lines[ok_line] == 1


def test_two_runs_at_once_do_not_interfere(built_samples, tmp_path, dotnet):
    env = _dotnet_env()
    procs = []
    for mode in ("ok", "sigkill"):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "dotcov", "run", "--data-dir", str(tmp_path / mode), "--no-report", "--",
             dotnet, str(CRASH_DLL), mode], cwd=SAMPLES, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    statuses = [p.wait(timeout=300) for p in procs]
    assert statuses == [0, 137]
    for mode in ("ok", "sigkill"):
        cov = data.load(tmp_path / mode)
        assert [p["command_line"].split()[-1] for p in cov.processes] == [mode]
