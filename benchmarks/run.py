#!/usr/bin/env python3
"""dotcov's overhead next to coverlet.collector and Microsoft.CodeCoverage, on three test suites.

    .venv/bin/python benchmarks/run.py [--quick] [--runs N] [--matrix calc:Debug,bench:Debug,all:Debug,bench:Release]
        [--tools plain,coverlet,ms,dotcov,dotcov-ctx]

Python 3 standard library only. For each suite and build configuration it builds once, then runs, alternating
in one loop (the order of the four rotates every round; one warm-up round is discarded):

    plain     dotnet test SUITE --no-build
    coverlet  ... --collect "XPlat Code Coverage"            (coverlet.collector 6.0.4)
    ms        ... --collect "Code Coverage;Format=cobertura" (Microsoft.CodeCoverage 18.0.1)
    dotcov    dotcov run --no-report -- dotnet test SUITE --no-build
    dotcov-ctx  dotcov run --contexts test --no-report -- ...  (per-test contexts; only when --tools names it)
    dotcov-unshared, dotcov-other, dotcov-jit, dotcov-call, dotcov-exact: see DOTCOV_VARIANTS

and records for each run: the sum of the per-test durations the test platform reports (read from a TRX log,
the figure `dotnet test --logger "console;verbosity=normal"` prints rounded: the test code's own cost, without
start-up); wall time; CPU time (user+sys) of the whole process tree; the peak RSS (VmHWM) of
every process of the run, the test hosts' reported separately; the test hosts' own CPU time and lifetime;
the bytes of coverage data written. After each dotcov run it times `dotcov xml` (and `dotcov html` when that
command exists). Finally it times the report writers on a synthetic result of 1,000,000 sequence points in
5,000 files. Prints Markdown to stdout and writes benchmarks/results/latest.json.

How the process tree is measured (Linux only):
- The harness makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so processes orphaned during a
  run (a test host whose parent exited first) are re-parented to it and reaped by it; the CPU time of a run is
  the delta of getrusage(RUSAGE_CHILDREN) around the run, which then covers every process of the tree.
- Each run starts in its own session (setsid); a sampler thread scans /proc every 50 ms for processes of that
  session (the session id survives re-parenting) and keeps each one's VmHWM (the kernel's own peak-RSS high
  water mark, so sampling only has to see a process once late in its life, not at its peak) and utime+stime.
  Growth in a process's last <50 ms of life can be missed; test hosts live for seconds.
- MSBuild node reuse and the MSBuild server are switched off so no run leaves processes that a later run
  would be charged for (or would profit from); any session process still alive 10 s after the command ends is
  reported in the JSON ("leftover").
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# DOTCOV_BENCH_SAMPLES: a copy of samples/ to build and run in (so tests using samples/ can run meanwhile).
SAMPLES = Path(os.environ.get("DOTCOV_BENCH_SAMPLES") or ROOT / "samples")
RESULTS = ROOT / "benchmarks" / "results"
# DOTCOV_BENCH_VENV: the virtual environment whose dotcov runs (default ROOT/.venv; a worktree may use the main
# checkout's, with PYTHONPATH naming its own src/).
VENV = Path(os.environ.get("DOTCOV_BENCH_VENV") or ROOT / ".venv")
DOTCOV = VENV / "bin" / "dotcov"
PYTHON = VENV / "bin" / "python"

SUITES = {
    # name: (dotnet test target under samples/, description)
    "calc": ("Calc.Tests", "small, startup-dominated (samples/Calc.Tests, 1 test project)"),
    "bench": ("Bench.Tests", "CPU-bound (samples/Bench.Tests: ~1.5e9 sequence-point hits)"),
    "all": ("All.sln", "largest (samples/All.sln: 3 test projects, C# and F#)"),
}
TOOLS = ["plain", "coverlet", "ms", "dotcov"]
# dotcov variants --tools can add, each its settings (environment, and arguments of `dotcov run`): the JIT-time IL
# path instead of ReJIT versions, the helper-call probe design instead of inline increments, per-test contexts,
# one counter per probe site (no counter sharing), atomic increments (exact counts under contention), and another
# build of the agent (DOTCOV_BENCH_OTHER_AGENT: the path of its libdotcov_agent.so, e.g. one built from an earlier
# commit, to compare before and after side by side).
DOTCOV_VARIANTS = {"dotcov-jit": ({"DOTCOV_REJIT": "0"}, []), "dotcov-call": ({"DOTCOV_PROBE": "call"}, []),
                   "dotcov-ctx": ({}, ["--contexts", "test"]), "dotcov-unshared": ({"DOTCOV_SHARE": "0"}, []),
                   "dotcov-exact": ({}, ["--exact-counts"]),
                   "dotcov-other": ({"DOTCOV_AGENT_PATH": os.environ.get("DOTCOV_BENCH_OTHER_AGENT", "")}, [])}
COVERLET_ADAPTER = Path.home() / ".nuget/packages/coverlet.collector/6.0.4/build/netstandard2.0"
SAMPLE_PERIOD = 0.05


def dotnet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_NOLOGO": "1",
        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
        "DOTNET_CLI_USE_MSBUILD_SERVER": "0",
        "MSBUILDDISABLENODEREUSE": "1",
        "UseSharedCompilation": "false",
    })
    for k in ("DOTCOV_DATA_DIR", "DOTCOV_LOG", "CORECLR_ENABLE_PROFILING"):
        env.pop(k, None)
    return env


def make_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_CHILD_SUBREAPER = 36
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except OSError:
        return False


# ---------------------------------------------------------------- process-tree sampling

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat(pid: str):
    """(session id, utime+stime seconds, start ticks) of a process, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    rest = raw[raw.rfind(")") + 2:].split()
    # rest[0] is field 3 (state); session is field 6, utime 14, stime 15, starttime 22
    return int(rest[3]), (int(rest[11]) + int(rest[12])) / CLK_TCK, int(rest[19])


def _hwm_kib(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _kind(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return "?"
    text = " ".join(argv)
    if "testhost" in text:
        return "testhost"
    if "vstest.console" in text:
        return "vstest.console"
    if "MSBuild.dll" in text and "nodemode" in text.lower():
        return "msbuild-node"
    if argv and (argv[0].endswith("python") or "python3" in argv[0] or "dotcov" in text.split(" -- ")[0]):
        return "dotcov(python)"
    if argv and argv[0].endswith("dotnet"):
        return "dotnet"
    return os.path.basename(argv[0]) if argv else "?"


class Sampler(threading.Thread):
    def __init__(self, sid: int):
        super().__init__(daemon=True)
        self.sid = sid
        self.procs: dict[tuple[str, int], dict] = {}
        self.stop = threading.Event()

    def scan(self) -> list[str]:
        alive = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            st = _stat(pid)
            if st is None or st[0] != self.sid:
                continue
            alive.append(pid)
            key = (pid, st[2])
            rec = self.procs.get(key)
            if rec is None:
                rec = self.procs[key] = {"pid": int(pid), "kind": _kind(pid), "hwm_kib": 0, "cpu_s": 0.0,
                                         "first": time.monotonic()}
            elif rec["kind"] in ("dotnet", "?"):  # exec'ed since (dotnet exec testhost.dll ...)
                rec["kind"] = _kind(pid)
            hwm = _hwm_kib(pid)
            if hwm:
                rec["hwm_kib"] = max(rec["hwm_kib"], hwm)
            rec["cpu_s"] = st[1]
            rec["last"] = time.monotonic()
        return alive

    def run(self):
        while not self.stop.is_set():
            self.scan()
            self.stop.wait(SAMPLE_PERIOD)


def loadavg() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def measure(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> dict:
    """Runs cmd in a new session; wall and tree CPU time, per-process peak RSS."""
    load = loadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        sampler = Sampler(proc.pid)
        sampler.start()
        _, status = os.waitpid(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    # Reap what the run orphaned onto us (subreaper), waiting up to 10 s for the session to end.
    deadline = time.monotonic() + 10
    leftover = []
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        leftover = sampler.scan()
        if not leftover or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    sampler.stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    procs = sorted(sampler.procs.values(), key=lambda r: r["first"])
    hosts = [p for p in procs if p["kind"] == "testhost"]
    return {
        "status": proc.returncode,
        "loadavg_before": load,
        "wall_s": wall,
        "cpu_s": cpu,
        "testhost_peak_rss_mib": max((p["hwm_kib"] for p in hosts), default=0) / 1024,
        "testhost_cpu_s": sum(p["cpu_s"] for p in hosts),
        "testhost_life_s": max((p["last"] - p["first"] for p in hosts), default=0.0),
        "testhosts": len(hosts),
        "max_peak_rss_mib": max((p["hwm_kib"] for p in procs), default=0) / 1024,
        "processes": [{"kind": p["kind"], "peak_rss_mib": round(p["hwm_kib"] / 1024, 1),
                       "cpu_s": round(p["cpu_s"], 2)} for p in procs],
        "leftover": leftover,
    }


def test_durations_s(trx: Path) -> float | None:
    """The sum of the test results' durations in a TRX log (None without one)."""
    import xml.etree.ElementTree as ET

    if not trx.is_file():
        return None
    total = 0.0
    for el in ET.parse(trx).iter():
        if el.tag.endswith("UnitTestResult") and el.get("duration"):
            h, m, sec = el.get("duration").split(":")
            total += int(h) * 3600 + int(m) * 60 + float(sec)
    return total


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


# ---------------------------------------------------------------- the suites

def build(target: str, config: str, env: dict[str, str]) -> None:
    print(f"building {target} ({config}) ...", file=sys.stderr)
    subprocess.run(["dotnet", "build", target, "-c", config, "-nologo", "-v", "quiet", "-clp:ErrorsOnly"],
                   cwd=SAMPLES, env=env, check=True, stdout=subprocess.DEVNULL)
    reap_all()


def reap_all(timeout: float = 30) -> None:
    """Waits for build processes orphaned onto us (subreaper), so no measured run is charged their CPU time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.1)
        except ChildProcessError:
            return


def dotcov_has(command: str) -> bool:
    out = subprocess.run([str(DOTCOV), "--help"], capture_output=True, text=True).stdout
    return any(line.split()[:1] == [command] for line in out.splitlines())


def tool_command(tool: str, target: str, config: str, work: Path) -> list[str]:
    test = ["dotnet", "test", target, "--no-build", "--nologo", "-c", config,
            "--logger", f"trx;LogFileName={work / 'tests.trx'}"]
    if tool == "plain":
        return test
    if tool == "coverlet":
        # --test-adapter-path: TextKit.Tests (in All.sln) does not reference coverlet.collector itself.
        return test + ["--collect", "XPlat Code Coverage", "--results-directory", str(work / "out"),
                       "--test-adapter-path", str(COVERLET_ADAPTER)]
    if tool == "ms":
        return test + ["--collect", "Code Coverage;Format=cobertura", "--results-directory", str(work / "out")]
    if tool == "dotcov" or tool in DOTCOV_VARIANTS:
        env_settings, run_args = DOTCOV_VARIANTS.get(tool, ({}, []))
        settings = [f"{k}={v}" for k, v in env_settings.items()]
        return (["env", *settings] if settings else []) + [
            str(DOTCOV), "run", *run_args, "--no-report", "--data-dir", str(work / "out"), "--"] + test
    raise ValueError(tool)


def compile_dotcov() -> None:
    """Compiles dotcov's modules to bytecode once, as `pip install` does: with PYTHONDONTWRITEBYTECODE=1 in the
    environment (set on some CI machines and on the one these figures come from) an editable install would
    otherwise compile every module it imports again in each `dotcov run`, a cost users of an installed dotcov
    never pay (Python still reads existing .pyc files under that setting)."""
    python = DOTCOV.parent / "python"
    package = subprocess.run([str(python), "-c", "import dotcov, os; print(os.path.dirname(dotcov.__file__))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([str(python), "-m", "compileall", "-q", package], check=True, stdout=subprocess.DEVNULL)


def run_suite(suite: str, config: str, runs: int, env: dict[str, str], scratch: Path, has_html: bool,
              tools: list[str] = TOOLS) -> dict:
    target = SUITES[suite][0]
    samples: dict[str, list[dict]] = {t: [] for t in tools}
    rounds = runs + 1  # round 0 is a warm-up, discarded
    for r in range(rounds):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        for tool in order:
            work = scratch / f"{suite}-{config}-{tool}-{r}"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            m = measure(tool_command(tool, target, config, work), SAMPLES, env, work / "log.txt")
            if m["status"] != 0:
                sys.exit(f"{suite}/{config}/{tool} failed with status {m['status']}; see {work / 'log.txt'}")
            m["data_bytes"] = tree_bytes(work / "out")
            m["tests_s"] = test_durations_s(work / "tests.trx")
            if tool.startswith("dotcov"):
                x = measure([str(DOTCOV), "xml", "--data-dir", str(work / "out"), "-o", str(work / "cov.xml")],
                            SAMPLES, env, work / "xml.txt")
                if x["status"] != 0:
                    sys.exit(f"dotcov xml failed; see {work / 'xml.txt'}")
                m["xml_wall_s"], m["xml_cpu_s"] = x["wall_s"], x["cpu_s"]
                if has_html:
                    h = measure([str(DOTCOV), "html", "--data-dir", str(work / "out"), "-d", str(work / "html")],
                                SAMPLES, env, work / "html.txt")
                    m["html_wall_s"] = h["wall_s"] if h["status"] == 0 else None
            print(f"  {suite:5} {config:7} round {r} {tool:8} tests {fmt(m['tests_s'])} s  wall {m['wall_s']:6.2f} s  "
                  f"cpu {m['cpu_s']:6.2f} s  "
                  f"testhost {m['testhost_peak_rss_mib']:6.1f} MiB", file=sys.stderr)
            if r > 0:
                samples[tool].append(m)
            shutil.rmtree(work, ignore_errors=True)
    return {"suite": suite, "target": target, "config": config, "runs": runs, "samples": samples,
            "summary": summarize(samples)}


def _stats(values: list[float]) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {"median": None, "min": None}
    return {"median": statistics.median(values), "min": min(values)}


def summarize(samples: dict[str, list[dict]]) -> dict:
    out = {}
    for tool, ms in samples.items():
        s = {k: _stats([m.get(k) for m in ms]) for k in
             ("tests_s", "wall_s", "cpu_s", "testhost_cpu_s", "testhost_life_s", "testhost_peak_rss_mib", "max_peak_rss_mib",
              "data_bytes", "xml_wall_s", "html_wall_s", "loadavg_before")}
        out[tool] = s
    plain = out["plain"]
    for tool, s in out.items():
        for k in ("tests_s", "wall_s", "cpu_s", "testhost_cpu_s"):
            p = plain[k]["median"]
            s[k]["ratio"] = s[k]["median"] / p if p else None
        p = plain["testhost_peak_rss_mib"]["median"]
        s["testhost_peak_rss_mib"]["delta"] = s["testhost_peak_rss_mib"]["median"] - p if p else None
    return out


# ---------------------------------------------------------------- report writers at scale

def synthetic(files: int = 5000, points_per_file: int = 200, methods_per_file: int = 10):
    sys.path.insert(0, str(ROOT / "src"))
    from dotcov.analysis.model import (AssemblyCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage,
                              PointCoverage)

    rng = random.Random(1)
    root = "/synthetic/src"
    result = CoverageResult(source_root=root, timestamp=1_700_000_000)
    per_method = points_per_file // methods_per_file
    for a in range(10):
        asm = AssemblyCoverage(f"Synthetic.Assembly{a}")
        for f in range(files // 10):
            path = f"{root}/Assembly{a}/Dir{f % 25}/File{f}.cs"
            fc = FileCoverage(path)
            cc = ClassCoverage(f"Synthetic.Assembly{a}.Type{f}", path)
            line = 10
            for m in range(methods_per_file):
                mc = MethodCoverage(f"Method{m}", "(System.Int32)", token=0x06000000 | (f * methods_per_file + m + 1))
                for p in range(per_method):
                    hits = 0 if rng.random() < 0.2 else rng.randint(1, 10_000)
                    mc.points.append(PointCoverage(mc.token, p * 4, line, 9, line, 30, hits))
                    mc.lines[line] = hits
                    line += 1
                line += 2
                cc.methods.append(mc)
                cc.lines.update(mc.lines)
            fc.lines.update(cc.lines)
            asm.classes.append(cc)
            asm.files[path] = fc
        result.assemblies.append(asm)
    return result


def bench_writers(scratch: Path) -> dict:
    sys.path.insert(0, str(ROOT / "src"))
    from dotcov import __version__
    from dotcov.reports.cobertura import cobertura_xml
    from dotcov.reports.text import render_table

    t = time.perf_counter()
    result = synthetic()
    out = {"points": sum(len(m.points) for a in result.assemblies for c in a.classes for m in c.methods),
           "files": sum(len(a.files) for a in result.assemblies),
           "build_model_s": time.perf_counter() - t}
    t, c = time.perf_counter(), time.process_time()
    xml = cobertura_xml(result, version=__version__)
    out["cobertura_xml_s"] = time.perf_counter() - t
    out["cobertura_xml_cpu_s"] = time.process_time() - c
    out["cobertura_bytes"] = len(xml)
    del xml
    t = time.perf_counter()
    table = render_table(result, show_missing=True)
    out["render_table_s"] = time.perf_counter() - t
    out["table_bytes"] = len(table)
    try:
        from dotcov.html.report import write_html  # not yet reachable from the CLI when this harness was written
    except ImportError:
        out["write_html_s"] = None
    else:
        d = scratch / "synthetic-html"
        t, c = time.perf_counter(), time.process_time()
        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        write_html(result, d)
        out["write_html_s"] = time.perf_counter() - t
        ch2 = resource.getrusage(resource.RUSAGE_CHILDREN)  # its page-rendering worker processes
        out["write_html_cpu_s"] = (time.process_time() - c + ch2.ru_utime - ch.ru_utime + ch2.ru_stime - ch.ru_stime)
        out["html_bytes"] = tree_bytes(d)
        shutil.rmtree(d, ignore_errors=True)
    return out


# ---------------------------------------------------------------- machine and output

def machine() -> dict:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    dotnet = subprocess.run(["dotnet", "--version"], capture_output=True, text=True).stdout.strip()
    runtime = ""
    for line in subprocess.run(["dotnet", "--list-runtimes"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Microsoft.NETCore.App"):
            runtime = line.split()[1]
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram_gib": round(mem_kib / 2**20, 1), "kernel": platform.release(),
            "dotnet_sdk": dotnet, "dotnet_runtime": runtime, "python": platform.python_version()}


def fmt(v, spec=".2f", suffix=""):
    return "n/a" if v is None else f"{v:{spec}}{suffix}"


def markdown(doc: dict) -> str:
    lines = [f"dotcov benchmarks, {doc['date']}, `{doc['command']}`", "",
             "Machine: {nproc} CPUs ({cpu}), {ram_gib} GiB RAM, kernel {kernel}, .NET SDK {dotnet_sdk} "
             "(runtime {dotnet_runtime})".format(**doc["machine"]), ""]
    lines += ["| suite | config | tool | tests Σ median (min) s | × plain | wall median (min) s | × plain | "
              "CPU median (min) s | × plain | testhost CPU s | testhost peak RSS MiB | Δ RSS | data written | xml s | "
              "html s | load avg |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in doc["suites"]:
        for tool in s["summary"]:
            x = s["summary"][tool]
            lines.append("| {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} "
                         "| {} |".format(
                s["suite"], s["config"], tool,
                fmt(x["tests_s"]["median"]), fmt(x["tests_s"]["min"]), fmt(x["tests_s"]["ratio"], ".2f", "×"),
                fmt(x["wall_s"]["median"]), fmt(x["wall_s"]["min"]), fmt(x["wall_s"]["ratio"], ".2f", "×"),
                fmt(x["cpu_s"]["median"]), fmt(x["cpu_s"]["min"]), fmt(x["cpu_s"]["ratio"], ".2f", "×"),
                fmt(x["testhost_cpu_s"]["median"]),
                fmt(x["testhost_peak_rss_mib"]["median"], ".1f"),
                fmt(x["testhost_peak_rss_mib"]["delta"], "+.1f"),
                _size(x["data_bytes"]["median"]),
                fmt(x["xml_wall_s"]["median"]) if tool.startswith("dotcov") else "",
                (fmt(x["html_wall_s"]["median"]) if doc["dotcov_html_command"] else "n/a")
                if tool.startswith("dotcov") else "",
                fmt(x["loadavg_before"]["median"], ".1f")))
    w = doc.get("writers")
    if w:
        lines += ["", f"Report writers on a synthetic result of {w['points']:,} sequence points in {w['files']:,} files "
                  "(in-process, no PDB reading):", "",
                  "| step | seconds | output |", "|---|---|---|",
                  f"| build the CoverageResult | {w['build_model_s']:.2f} | |",
                  f"| cobertura.cobertura_xml | {w['cobertura_xml_s']:.2f} (CPU {w['cobertura_xml_cpu_s']:.2f}) "
                  f"| {_size(w['cobertura_bytes'])} |",
                  f"| report.render_table (show_missing) | {w['render_table_s']:.2f} | {_size(w['table_bytes'])} |",
                  f"| html.write_html | {fmt(w.get('write_html_s'))} (CPU {fmt(w.get('write_html_cpu_s'))}) "
                  f"| {_size(w.get('html_bytes'))} |"]
    return "\n".join(lines)


def _size(n) -> str:
    if n is None:
        return "n/a"
    if n == 0:
        return "0"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 measured runs per tool (instead of --runs)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs per tool and suite (default 5)")
    ap.add_argument("--matrix", default="calc:Debug,bench:Debug,all:Debug,bench:Release",
                    help="comma-separated SUITE:CONFIG pairs, suites: " + ",".join(SUITES)
                    + " (default: every suite in Debug, the CPU-bound one also in Release)")
    ap.add_argument("--no-writers", action="store_true", help="skip the synthetic report-writer timing")
    ap.add_argument("--output", type=Path, default=RESULTS / "latest.json")
    ap.add_argument("--tools", default=",".join(TOOLS),
                    help="comma-separated tools to compare, plain first (default: %(default)s; also "
                    + ", ".join(DOTCOV_VARIANTS) + ")")
    args = ap.parse_args()
    tools = [t for t in args.tools.split(",") if t]
    if not tools or tools[0] != "plain" or any(t not in TOOLS and t not in DOTCOV_VARIANTS for t in tools):
        ap.error("--tools: plain first, then any of " + ", ".join(TOOLS[1:] + list(DOTCOV_VARIANTS)))
    other = os.environ.get("DOTCOV_BENCH_OTHER_AGENT", "")
    if "dotcov-other" in tools and not Path(other).is_file():
        ap.error("--tools dotcov-other: set DOTCOV_BENCH_OTHER_AGENT to the path of another libdotcov_agent.so")
    runs = 2 if args.quick else args.runs
    matrix = [tuple(p.split(":")) for p in args.matrix.split(",") if p]
    if not make_subreaper():
        print("warning: could not become a child subreaper; orphaned processes' CPU time is not counted",
              file=sys.stderr)
    env = dotnet_env()
    has_html = dotcov_has("html")
    compile_dotcov()
    doc = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "command": " ".join([".venv/bin/python", "benchmarks/run.py", *sys.argv[1:]]),
           "machine": machine(), "dotcov_html_command": has_html, "runs": runs, "suites": []}
    with tempfile.TemporaryDirectory(prefix="dotcov-bench-") as tmp:
        scratch = Path(tmp)
        for suite, config in matrix:
            build(SUITES[suite][0], config, env)
        for suite, config in matrix:
            doc["suites"].append(run_suite(suite, config, runs, env, scratch, has_html, tools))
        if not args.no_writers:
            print("timing the report writers on 1,000,000 synthetic points ...", file=sys.stderr)
            doc["writers"] = bench_writers(scratch)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(doc, indent=1) + "\n")
    print(markdown(doc))


if __name__ == "__main__":
    main()
