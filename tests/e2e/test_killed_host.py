"""vstest kills a test host that does not exit within 100 ms of the end of the run (here: a foreground
thread that never ends). Every hit made before the kill is still reported."""

from __future__ import annotations

import time

import pytest

from .conftest import SAMPLES, coverage_by_file

pytestmark = pytest.mark.e2e


def test_hits_survive_vstest_killing_the_host(built_samples, dotnet_build, dotcov_run, dotnet):
    dotnet_build("HangingHost.Tests")
    started = time.monotonic()
    run = dotcov_run([dotnet, "test", "HangingHost.Tests", "--no-build", "--nologo"], cwd=SAMPLES, args=["--log"])
    elapsed = time.monotonic() - started
    assert run.status == 0, run.stdout + run.stderr
    assert elapsed < 120  # the host could only end by being killed
    (host_log,) = [p for p in (run.data_dir / "logs").glob("agent.*.log") if "testhost.dll" in p.read_text()]
    assert "shutdown" not in host_log.read_text()  # no runtime shutdown: the host was killed
    files = coverage_by_file(run.data_dir, SAMPLES)
    slug = SAMPLES / "TextKit" / "Slug.cs"
    lines = files[str(slug)].lines
    text = slug.read_text().splitlines()
    append = next(i for i, l in enumerate(text, 1) if "sb.Append(c);" in l)
    truncate = next(i for i, l in enumerate(text, 1) if "text.Length <= max" in l)
    assert lines[append] > 0  # ran in the killed host
    assert lines[truncate] == 0
