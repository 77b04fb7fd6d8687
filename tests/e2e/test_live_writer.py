"""`dotcov combine` next to a process that is still writing its data file (issue 13, item 4)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from dotcov.measure import agent
from dotcov.data import datafiles as data

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

CRASH_DLL = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll"


def combine(data_dir):
    return subprocess.run([sys.executable, "-m", "dotcov", "combine", "--data-dir", str(data_dir)], cwd=SAMPLES,
                          env=_dotnet_env(), capture_output=True, text=True)


def test_combine_never_removes_the_file_of_a_live_process(built_samples, dotnet, tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    env = _dotnet_env()
    env.update(agent.profiler_environment(data_dir, SAMPLES, include_tests=False, log=False))
    # "sigterm" sends itself SIGTERM, then sleeps 5 s: with SIGTERM ignored, a live writer for 5 s.
    proc = subprocess.Popen([dotnet, str(CRASH_DLL), "sigterm"], env=env, stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
    try:
        assert proc.stdout.readline().strip() == "crash: sigterm"
        [live] = data.data_files(data_dir)
        r = combine(data_dir)
        assert r.returncode == 0, r.stderr
        assert "still being written by a running process" in r.stderr
        assert live.exists()
        assert not list(data_dir.glob(data.COMBINED_PREFIX + "*"))  # nothing finished to combine
    finally:
        proc.wait(timeout=60)
    alone = data.CoverageData()
    data.read_file(live, alone)
    hits = {k: list(m.hits) for k, m in alone.modules.items()}
    assert any(any(h) for h in hits.values())
    r = combine(data_dir)  # the writer has ended: merged once, then removed
    assert r.returncode == 0, r.stderr
    assert not live.exists()
    assert {k: m.hits for k, m in data.load(data_dir).modules.items()} == hits
    assert len(list(data_dir.glob(data.COMBINED_PREFIX + "*.cov"))) == 1
