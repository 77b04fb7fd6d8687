"""Starts samples/Service (an ASP.NET Core minimal API), waits until it answers, drives it over HTTP and stops it.

The sample's marks say which phase of SCENARIO runs each line (`// @hit @by start a`, marks.phase_marks): start
(startup and the readiness requests to /health), the request groups "a" and "b", and stop (the graceful shutdown
after SIGTERM or SIGINT). A test makes the phases it wants and compares the coverage with `expected(phases)`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from conftest import SAMPLES

from .marks import marked_sources, phase_marks

PROJECT = SAMPLES / "Service"
DLL = PROJECT / "bin" / "Debug" / "net10.0" / "Service.dll"
PHASES = ("start", "a", "b", "stop")
# Each request group: (method, path, expected answer).
SCENARIO = {
    "a": [("GET", "/add?a=2&b=3", "5"), ("GET", "/classify/4", "even")],
    "b": [("GET", "/classify/-1", "negative"), ("GET", "/greet?name=Ann", "hello, Ann")],
}


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's choice; the service binds it a moment later)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expected(phases: set[str]) -> dict[Path, tuple[set[int], set[int]]]:
    """Each marked source of the sample: (covered, missed) lines once `phases` ran."""
    unknown = set(phases) - set(PHASES)
    assert not unknown, unknown
    return {src: phase_marks(src, set(phases)) for src in marked_sources(PROJECT)}


def assert_phases(files, phases: set[str]) -> None:
    """The coverage by file (e2e conftest's coverage_by_file) is exactly the marks of `phases`."""
    problems = []
    for src, (hit, miss) in expected(phases).items():
        fc = files.get(str(src))
        lines = fc.lines if fc else {}
        covered = {n for n, h in lines.items() if h > 0}
        missed = {n for n, h in lines.items() if h == 0}
        if covered != hit or missed != miss:
            problems.append(f"{src.name} after {sorted(phases)}: covered but not expected {sorted(covered - hit)}, "
                            f"expected but not covered {sorted(hit - covered)}, missed but not expected "
                            f"{sorted(missed - miss)}, expected missed but not {sorted(miss - missed)}")
    assert not problems, "\n".join(problems)


class Service:
    """A command that runs the service on `port` (e.g. [dotnet, DLL, port], or the same under `dotcov run`),
    started in its own session so that a signal to its process group, as a terminal's Ctrl-C sends, reaches
    nothing else. Use as a context manager: on leaving, a service still running is killed."""

    def __init__(self, argv: list[str], port: int, *, cwd: Path, env: dict[str, str], log: Path):
        self.argv, self.port, self.cwd, self.env, self.log = argv, port, cwd, env, log
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "Service":
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def request(self, method: str, path: str, timeout: float = 30) -> tuple[int, str]:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                     data=b"" if method == "POST" else None)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def wait_ready(self, timeout: float = 120) -> None:
        """Until GET /health answers "ok"; fails with the output if the process ends or the time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the service exited ({self.proc.returncode}) before answering:\n"
                                     f"{self.output()}")
            try:
                if self.request("GET", "/health", timeout=5) == (200, "ok"):
                    return
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            time.sleep(0.2)
        raise AssertionError(f"the service did not answer within {timeout} s:\n{self.output()}")

    def run_phase(self, name: str) -> None:
        """Makes the requests of SCENARIO[name] and checks their answers."""
        for method, path, answer in SCENARIO[name]:
            assert self.request(method, path) == (200, answer), (method, path)

    def stop(self, sig: int = signal.SIGTERM, *, group: bool = False, timeout: float = 120) -> int:
        """Sends `sig` to the process (or, `group`, to its process group, as a terminal's Ctrl-C does) and
        returns its exit status (negative: the signal that ended it)."""
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {timeout} s after {signal.Signals(sig).name}:\n"
                                 f"{self.output()}") from None
