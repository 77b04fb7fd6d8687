"""A full disk under the data directory: the tests run on, nothing dies of SIGBUS, the loss is reported
(issue 13, item 4). Needs root to mount a tiny tmpfs in a private mount namespace (`unshare -m`)."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e


def test_a_full_data_directory_loses_data_loudly_and_kills_nothing(built_samples, dotnet, tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=4k tmpfs {data_dir}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.decode(errors='replace').strip()}")
    # One 4 KiB page: each data file's header and process record fit, no module record does.
    run = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "dotcov", "run", "--data-dir", str(data_dir), "--",
                                            dotnet, "test", "Calc.Tests", "--no-build", "--nologo"])
    r = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=4k tmpfs {data_dir} && {run}"],
                       cwd=SAMPLES, env=_dotnet_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr  # the test host was not killed; the tests passed
    assert "Passed!" in r.stdout
    assert "data was lost" in r.stderr and "No space left on device" in r.stderr, r.stderr
