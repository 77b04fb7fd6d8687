"""`dotcov debug`: the answers to "why is my coverage 0%?"."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

CRASH_DLL = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll"


def debug(*args, cwd=SAMPLES):
    return subprocess.run([sys.executable, "-m", "dotcov", "debug", *args], cwd=cwd, env=_dotnet_env(),
                          capture_output=True, text=True)


def test_debug_shows_processes_modules_and_reasons(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "TextKit.Tests", "--no-build", "--nologo"], cwd=SAMPLES, args=["--log"])
    assert run.status == 0, run.stderr
    d = debug("data", "--data-dir", str(run.data_dir))
    assert d.returncode == 0, d.stderr
    assert "testhost.dll" in d.stdout and "Crash.dll ok" in d.stdout  # the test host and the program it started
    assert f"{SAMPLES}/TextKit.Tests/bin/Debug/net10.0/TextKit.dll" in d.stdout
    assert "reportable" in d.stdout
    logs = debug("logs", "--data-dir", str(run.data_dir))
    assert logs.returncode == 0
    # Why the test assembly and the runner's assemblies were not covered:
    assert "TextKit.Tests.dll: test assembly (references xunit" in logs.stdout
    assert "cover " in logs.stdout and "TextKit.dll" in logs.stdout
    info = debug("info", "--data-dir", str(run.data_dir))
    assert "agent CLSID" in info.stdout and str(run.data_dir) in info.stdout


def test_debug_logs_without_logs_says_how_to_get_them(tmp_path):
    r = debug("logs", "--data-dir", str(tmp_path))
    assert r.returncode == 1
    assert "dotcov run --log" in r.stdout
