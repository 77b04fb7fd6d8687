"""A service (samples/Service, an ASP.NET Core minimal API) measured under `dotcov run` while tests drive it over
HTTP (issue 28): stopped by SIGTERM or Ctrl-C as services are, with every request made before the signal counted
(exact line marks per phase, tests/e2e/service_driver.py) and the summary saying how it stopped."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from .conftest import REPO, SAMPLES, _dotnet_env, coverage_by_file
from .service_driver import Service, assert_phases, free_port


def _dotcov_service(tmp_path, dll, *args: str) -> Service:
    port = free_port()
    argv = [sys.executable, "-m", "dotcov", "run", "--data-dir", str(tmp_path / "data"), *args, "--",
            "dotnet", str(dll), str(port)]
    return Service(argv, port, cwd=SAMPLES, env=_dotnet_env(), log=tmp_path / "out.txt")


@pytest.mark.parametrize("sig, group, name", [(signal.SIGTERM, False, "SIGTERM"), (signal.SIGINT, False, "Ctrl-C"),
                                              (signal.SIGINT, True, "Ctrl-C")],
                         ids=["sigterm-to-dotcov", "sigint-to-dotcov", "sigint-to-group"])
def test_run_then_signal(service_dll, tmp_path, sig, group, name):
    """SIGTERM or SIGINT to dotcov alone (as `docker stop` or `kill` send them) is passed on; SIGINT to the process
    group (a terminal's Ctrl-C) reaches the service by itself. The .NET host shuts down gracefully and exits 0."""
    with _dotcov_service(tmp_path, service_dll) as svc:
        svc.wait_ready()
        svc.run_phase("a")
        svc.run_phase("b")
        status = svc.stop(sig, group=group)
        out = svc.output()
    assert status == 0, out
    assert "service: stopped" in out
    assert (f"dotcov: the command stopped on {name} (exit status 0); the data is complete: the coverage below is "
            "all that ran until then") in out
    assert_phases(coverage_by_file(tmp_path / "data", SAMPLES), {"start", "a", "b", "stop"})


def _dotcov(*args: str):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=SAMPLES, env=_dotnet_env(),
                          capture_output=True, text=True, timeout=300)


def test_snapshots_while_the_service_runs(service_dll, tmp_path):
    """Requests A, snapshot 1 (the marks of A), requests B, snapshot 2 (A and B): the service answers throughout,
    each snapshot stays as it was, reports read it, and the data after the service stops is complete."""
    data_dir = tmp_path / "data"
    with _dotcov_service(tmp_path, service_dll) as svc:
        svc.wait_ready()
        svc.run_phase("a")
        r = _dotcov("snapshot", "--data-dir", str(data_dir), "--output", str(tmp_path / "s1"))
        assert r.returncode == 0, r.stderr
        assert "(1 of running processes)" in r.stdout
        assert_phases(coverage_by_file(tmp_path / "s1", SAMPLES), {"start", "a"})
        svc.run_phase("b")
        r = _dotcov("snapshot", "--data-dir", str(data_dir), "--output", str(tmp_path / "s2"))
        assert r.returncode == 0, r.stderr
        assert_phases(coverage_by_file(tmp_path / "s2", SAMPLES), {"start", "a", "b"})
        assert_phases(coverage_by_file(tmp_path / "s1", SAMPLES), {"start", "a"})
        r = _dotcov("report", "--data-dir", str(tmp_path / "s1"), "--show-missing")
        assert r.returncode == 0, r.stderr
        assert "Service/Handlers.cs" in r.stdout
        assert svc.request("GET", "/health") == (200, "ok")  # still answering
        assert svc.stop(signal.SIGTERM) == 0
    assert_phases(coverage_by_file(data_dir, SAMPLES), {"start", "a", "b", "stop"})


def _recipe_environment() -> dict[str, str]:
    """The ENV lines of docs/services.md's Dockerfile."""
    text = (REPO / "docs" / "services.md").read_text()
    block = text[text.index("```dockerfile"):]
    block = block[:block.index("\n```\n")]
    return dict(line[len("ENV "):].split("=", 1) for line in block.splitlines() if line.startswith("ENV "))


def test_the_container_recipe_measures_the_service_without_dotcov_run(service_dll, tmp_path):
    """docs/services.md's container recipe, without the container: the documented variables (every one `dotcov
    run` sets but the arm64 agent's) with this machine's paths, the service stopped by SIGTERM, the reports after."""
    from dotcov.measure import agent

    env = _recipe_environment()
    made = agent.profiler_environment(tmp_path, SAMPLES, include_tests=False, log=False)
    assert env.keys() == made.keys() - {"CORECLR_PROFILER_PATH_ARM64"}
    assert env["CORECLR_PROFILER"] == agent.CLSID
    data_dir = tmp_path / "coverage"
    data_dir.mkdir()  # (the volume)
    here = {"/opt/dotcov/libdotcov_agent.so": str(agent.agent_path()), "/coverage": str(data_dir),
            "/src": str(REPO)}
    run_env = _dotnet_env()
    run_env.update({k: here.get(v, v) for k, v in env.items()})
    port = free_port()
    with Service(["dotnet", str(service_dll), str(port)], port, cwd=service_dll.parent, env=run_env,
                 log=tmp_path / "out.txt") as svc:
        svc.wait_ready()
        svc.run_phase("a")
        assert svc.stop(signal.SIGTERM) == 0
    assert_phases(coverage_by_file(data_dir, SAMPLES), {"start", "a", "stop"})
    r = _dotcov("report", "--data-dir", str(data_dir))
    assert r.returncode == 0, r.stderr
    assert "Service/Program.cs" in r.stdout
