"""`dotcov attach PID` on a running program started without dotcov (samples/AttachTarget): the work it does before
the attach is not counted, the work after it is, line for line; and each refusal's message and exit status."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e

PROJECT = SAMPLES / "AttachTarget"
DLL = PROJECT / "bin" / "Debug" / "net10.0" / "AttachTarget.dll"
RELEASE_DLL = PROJECT / "bin" / "Release" / "net10.0" / "AttachTarget.dll"

# The runtime configurations that change which code runs when the agent arrives; each must give the marks.
CONFIGURATIONS = {
    "default": {},
    "no-tiering": {"DOTNET_TieredCompilation": "0"},
    # Tier-1 recompiles after 1 call: Work.Run was promoted before the attach.
    "aggressive-tiering": {"DOTNET_TC_CallCountThreshold": "1", "DOTNET_TC_CallCountingDelayMs": "0"},
    # Main's loop moves to on-stack-replacement code at its first iterations.
    "osr": {"DOTNET_TC_QuickJitForLoops": "1", "DOTNET_TC_OnStackReplacement_InitialCounter": "1",
            "DOTNET_OSR_HitLimit": "1"},
}


@pytest.fixture(scope="module")
def target(dotnet_build):
    dotnet_build(PROJECT / "AttachTarget.csproj")
    return DLL


class Target:
    """samples/AttachTarget running without dotcov, driven a line at a time."""

    def __init__(self, dotnet: str, env_extra: dict[str, str] | None = None, argv: list[str] | None = None):
        env = _dotnet_env()
        env.update(env_extra or {})
        self.proc = subprocess.Popen(argv or [dotnet, str(DLL)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1, env=env, cwd=SAMPLES)
        # (The runtime opens its diagnostic socket at startup, before Main prints this.)
        assert self.proc.stdout.readline().strip() == "ready"

    def send(self, command: str) -> str:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def quit(self) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def dotcov(*args, cwd=SAMPLES, env_extra=None):
    env = _dotnet_env()
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
def test_only_the_work_after_the_attach_is_counted(target, dotnet, tmp_path, config):
    data_dir = tmp_path / "data"
    t = Target(dotnet, CONFIGURATIONS[config])
    try:
        assert t.send("before") == "before 10"
        before = time.time_ns()
        a = dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid))
        after = time.time_ns()
        assert a.returncode == 0, a.stderr
        assert f"attached to process {t.proc.pid}" in a.stdout
        assert t.send("after") == "after 14"
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    assert_matches_marks(coverage_by_file(data_dir, SAMPLES), PROJECT)
    from dotcov.data import datafiles as data

    [process] = data.load(data_dir).processes
    assert before <= process["attached_ns"] <= after
    r = dotcov("report", "--data-dir", str(data_dir))
    assert r.returncode == 0, r.stderr
    assert f"process `{dotnet} {DLL}` was attached at " in r.stdout, r.stdout
    d = dotcov("debug", "data", "--data-dir", str(data_dir))
    assert f"  {dotnet} {DLL}  (in {SAMPLES}, attached at {data.attach_time(process)})" in d.stdout, d.stdout


def test_counts_of_the_work_after_the_attach(target, dotnet, tmp_path):
    data_dir = tmp_path / "data"
    t = Target(dotnet)
    try:
        t.send("before")
        assert dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid)).returncode == 0
        for _ in range(3):
            t.send("after")
    finally:
        t.quit()
    files = coverage_by_file(data_dir, SAMPLES)
    work = files[str(PROJECT / "Work.cs")]
    # `total += i * i;` runs 3 times per call, in 3 calls after the attach; `total += i;` (Before) never after it.
    lines = (PROJECT / "Work.cs").read_text().splitlines()
    assert work.lines[lines.index("            total += i * i; // @hit") + 1] == 9
    assert work.lines[lines.index("            total += i; // @miss") + 1] == 0


def test_a_method_inlined_before_the_attach_reads_missed(dotnet_build, dotnet, tmp_path):
    # Release without tiering: Main is compiled optimized at its start, Commands.IsQuit inlined into it. Main never
    # returns, so that copy, which has no probe, is what runs after the attach: IsQuit's line reads missed
    # (measured, 0 hits), never covered and not "not measured". Run is never inlined and is counted as in Debug.
    dotnet_build(PROJECT / "AttachTarget.csproj", "Release")
    data_dir = tmp_path / "data"
    jit_list = tmp_path / "jitted.txt"
    t = Target(dotnet, {"DOTNET_TieredCompilation": "0", "DOTNET_JitDisasmSummary": "1",
                        "DOTNET_JitStdOutFile": str(jit_list)}, argv=[dotnet, str(RELEASE_DLL)])
    try:
        assert t.send("before") == "before 10"
        a = dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid))
        assert a.returncode == 0, a.stderr
        assert t.send("after") == "after 14"
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    jitted = jit_list.read_text()
    # IsQuit was never compiled on its own, before the attach or after it: every call ran Main's inlined copy.
    assert "AttachTarget.Program:Main()" in jitted and "AttachTarget.Work:Run(" in jitted, jitted
    assert "IsQuit" not in jitted, jitted
    files = coverage_by_file(data_dir, SAMPLES)
    lines = (PROJECT / "Commands.cs").read_text().splitlines()
    is_quit = next(n for n, text in enumerate(lines, 1) if "IsQuit(string line)" in text)
    assert files[str(PROJECT / "Commands.cs")].lines == {is_quit: 0}
    work_lines = (PROJECT / "Work.cs").read_text().splitlines()
    work = files[str(PROJECT / "Work.cs")]
    assert work.lines[work_lines.index("            total += i * i; // @hit") + 1] == 6
    assert work.lines[work_lines.index("            total += i; // @miss") + 1] == 0
    r = dotcov("report", "--data-dir", str(data_dir), "-m")
    assert r.returncode == 0, r.stderr
    assert "AttachTarget/Commands.cs" in r.stdout and "not measured" not in r.stdout, r.stdout


def test_exact_counts_after_the_attach(target, dotnet, tmp_path):
    # `--exact-counts` as under `dotcov run`: the agent counts with atomic increments, and says so in its log.
    data_dir = tmp_path / "data"
    t = Target(dotnet)
    try:
        t.send("before")
        a = dotcov("attach", "--exact-counts", "--log", "--data-dir", str(data_dir), str(t.proc.pid))
        assert a.returncode == 0, a.stderr
        for _ in range(3):
            assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    [log] = (data_dir / "logs").iterdir()
    assert f"agent attached: {dotnet} {DLL} (exact counts: atomic increments)" in log.read_text()
    assert "exact counts:" not in log.read_text().replace("(exact counts: atomic increments)", "")
    assert_matches_marks(coverage_by_file(data_dir, SAMPLES), PROJECT)
    lines = (PROJECT / "Work.cs").read_text().splitlines()
    work = coverage_by_file(data_dir, SAMPLES)[str(PROJECT / "Work.cs")]
    assert work.lines[lines.index("            total += i * i; // @hit") + 1] == 9


def test_a_module_whose_rejit_fails_at_the_attach_is_not_measured(target, dotnet, tmp_path):
    # The catch-up's ReJIT request for AttachTarget.dll is held back until the agent stops waiting for it (tests
    # only): its methods may have run already, so none of them can be measured, and the report says so.
    data_dir = tmp_path / "data"
    t = Target(dotnet)
    try:
        t.send("before")
        a = dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid),
                   env_extra={"DOTCOV_TEST_STALL_REJIT": "AttachTarget.dll"})
        assert a.returncode == 0, a.stderr
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    from dotcov.data import datafiles as data

    [module] = data.load(data_dir).modules.values()
    assert set(module.unmeasured.values()) == {"ReJIT request at attach timed out"}, module.unmeasured
    assert not any(module.hits)
    r = dotcov("report", "--data-dir", str(data_dir))
    for name, lines in (("Program.cs", "lines 12-20"), ("Work.cs", "lines 11-44"), ("Commands.cs", "line 11")):
        assert f"AttachTarget/{name}: {lines} not measured (ReJIT request at attach timed out)" \
            in r.stdout, r.stdout


def test_attaching_where_no_loaded_module_has_its_sources_says_so(target, dotnet, tmp_path):
    # Run from a directory outside the sample's work tree: the sources measured are those under it, none of them.
    t = Target(dotnet)
    try:
        a = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(t.proc.pid), cwd=tmp_path)
        assert a.returncode == 0, a.stderr
        assert (f"dotcov: warning: no module process {t.proc.pid} has loaded so far has its sources under "
                f"{tmp_path}") in a.stderr
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    assert not list((tmp_path / "data").glob("*.cov"))


def test_client_data_not_dotcovs_is_declined_and_the_process_runs_on(target, dotnet, tmp_path):
    # The agent declines data it cannot read (CORPROF_E_PROFILER_CANCEL_ACTIVATION): the runtime unloads it and the
    # profiler slot stays free, so a proper attach still works.
    from dotcov.measure import agent, attach as attach_mod, diagnostics_ipc as ipc

    t = Target(dotnet)
    try:
        path = attach_mod.socket_path(t.proc.pid, {})
        assert ipc.attach_profiler(path, agent.CLSID, str(agent.agent_path()), b"DOTCOV_DATA_DIR=/x\n") == \
            (False, 0x80131375)
        assert t.send("after") == "after 14"
        a = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(t.proc.pid))
        assert a.returncode == 0, a.stderr
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0
    assert coverage_by_file(tmp_path / "data", SAMPLES)[str(PROJECT / "Work.cs")].lines


def test_attaching_twice_is_refused(target, dotnet, tmp_path):
    data_dir = tmp_path / "data"
    t = Target(dotnet)
    try:
        assert dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid)).returncode == 0
        again = dotcov("attach", "--data-dir", str(data_dir), str(t.proc.pid))
        assert again.returncode == 8, again.stderr
        assert f"dotcov's agent is already loaded in process {t.proc.pid}" in again.stderr
        assert str(data_dir) in again.stderr
        assert t.send("after") == "after 14"  # the program runs on, unharmed
    finally:
        assert t.quit() == 0


def test_attaching_twice_before_any_module_is_covered_is_refused(target, dotnet, tmp_path):
    # Attached from a directory holding none of its sources: the agent is in but has no data file yet.
    t = Target(dotnet)
    try:
        assert dotcov("attach", "--data-dir", str(tmp_path / "data"), str(t.proc.pid), cwd=tmp_path).returncode == 0
        assert not list((tmp_path / "data").glob("*.cov"))
        again = dotcov("attach", "--data-dir", str(tmp_path / "data2"), str(t.proc.pid))
        assert again.returncode == 8, again.stderr
        assert f"dotcov's agent is already loaded in process {t.proc.pid}" in again.stderr
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0


def test_a_process_started_under_dotcov_run_is_refused(target, dotnet, tmp_path):
    from .conftest import REPO

    env = dict(PYTHONPATH=str(REPO / "src"))
    t = Target(dotnet, env, argv=[sys.executable, "-m", "dotcov", "run", "--data-dir", str(tmp_path / "run"),
                                  "--no-report", "--", dotnet, str(DLL)])
    try:
        dotnet_pid = int(subprocess.run(["pgrep", "-P", str(t.proc.pid)], capture_output=True,
                                        text=True).stdout.split()[0])
        r = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(dotnet_pid))
        assert r.returncode == 8, r.stderr
        assert "dotcov's agent is already loaded" in r.stderr and str(tmp_path / "run") in r.stderr
    finally:
        t.quit()


def test_another_profiler_is_refused(target, dotnet, tmp_path):
    # A profiler of its own (other_profiler/other_profiler.cpp: loads, does nothing), built over dotcov's ABI.
    from .conftest import REPO

    gxx = shutil.which("g++")
    assert gxx, "g++ builds the other profiler (scripts/setup.sh installs it)"
    other = tmp_path / "libother_profiler.so"
    subprocess.run([gxx, "-std=c++20", "-shared", "-fPIC", "-O1", "-I", str(REPO / "native" / "agent"), "-o",
                    str(other), str(Path(__file__).parent / "other_profiler" / "other_profiler.cpp")], check=True)
    clsid = "{5A1E0B7F-0C41-4D2E-9B55-3F261A7C4011}"
    t = Target(dotnet, {"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": clsid,
                        "CORECLR_PROFILER_PATH": str(other)})
    try:
        r = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(t.proc.pid))
        assert r.returncode == 6, r.stderr
        assert f"another profiler is loaded in process {t.proc.pid}: CORECLR_PROFILER={clsid}" in r.stderr
        assert t.send("after") == "after 14"
    finally:
        assert t.quit() == 0


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root, to run the attacher as another user (setpriv)")
def test_another_users_process_is_refused(target, dotnet, tmp_path):
    # The target runs as root, `dotcov attach` as nobody: the package, the venv's python and the sources are
    # readable by all here; the data directory is one nobody may write.
    data_dir = Path(tempfile.mkdtemp(prefix="dotcov-attach-"))
    data_dir.chmod(0o777)
    t = Target(dotnet)
    try:
        env = _dotnet_env()
        env["HOME"] = str(data_dir)
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                            "dotcov", "attach", "--data-dir", str(data_dir), str(t.proc.pid)],
                           cwd=SAMPLES, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 7, r.stderr
        assert (f"dotcov: error: process {t.proc.pid} belongs to another user (uid 0); run dotcov attach as that "
                "user") in r.stderr, r.stderr
        assert t.send("after") == "after 14"
        assert not list(data_dir.glob("*.cov"))
    finally:
        assert t.quit() == 0
        shutil.rmtree(data_dir, ignore_errors=True)


def test_diagnostics_disabled_is_refused(target, dotnet, tmp_path):
    t = Target(dotnet, {"DOTNET_EnableDiagnostics": "0"})
    try:
        r = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(t.proc.pid))
        assert r.returncode == 5, r.stderr
        assert "DOTNET_EnableDiagnostics=0" in r.stderr
    finally:
        assert t.quit() == 0
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").glob("*.cov"))


def test_not_a_dotnet_process_is_refused(tmp_path):
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        r = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(sleeper.pid))
        assert r.returncode == 4, r.stderr
        assert f"process {sleeper.pid} is not a .NET process" in r.stderr
    finally:
        sleeper.kill()
        sleeper.wait()


def test_no_such_process_is_refused(tmp_path):
    gone = subprocess.Popen(["true"])
    gone.wait()
    r = dotcov("attach", "--data-dir", str(tmp_path / "data"), str(gone.pid))
    assert r.returncode == 3, r.stderr
    assert f"no process {gone.pid}" in r.stderr


def test_attach_to_the_sample_service(service_dll, dotnet, tmp_path):
    """samples/Service started without dotcov: requests A, attach, requests B, SIGTERM. Only B and the graceful
    stop are counted, exactly (service_driver's phase marks), except Main: it runs the host the whole time, so it
    keeps its original code (a method gets its probes when it is next called) and none of its lines counts."""
    from .service_driver import PROJECT as SERVICE, Service, expected, free_port

    port = free_port()
    data_dir = tmp_path / "data"
    with Service([dotnet, str(service_dll), str(port)], port, cwd=SAMPLES, env=_dotnet_env(),
                 log=tmp_path / "out.txt") as svc:
        svc.wait_ready()
        svc.run_phase("a")
        a = dotcov("attach", "--data-dir", str(data_dir), str(svc.proc.pid))
        assert a.returncode == 0, a.stderr
        svc.run_phase("b")
        assert svc.stop() == 0, svc.output()
    files = coverage_by_file(data_dir, SAMPLES)
    problems = []
    for src, (hit, miss) in expected({"b", "stop"}).items():
        if src.name == "Program.cs":  # Main, on the stack from the start
            hit, miss = set(), hit | miss
        lines = files[str(src)].lines
        covered = {n for n, h in lines.items() if h}
        missed = {n for n, h in lines.items() if not h}
        if (covered, missed) != (hit, miss):
            problems.append(f"{src.name}: covered {sorted(covered ^ hit)} and missed {sorted(missed ^ miss)} differ")
    assert not problems, "\n".join(problems)
    from dotcov.data import datafiles as data

    [process] = data.load(data_dir).processes
    assert process["attached_ns"] and process["command_line"] == f"{dotnet} {service_dll} {port}"
