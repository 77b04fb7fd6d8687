#!/usr/bin/env python3
"""The contended case of `dotcov run --exact-counts`: samples/Contention (Work.Step for i in [0, N) on THREADS threads
started together, all on the same probes), plain, under dotcov, and under dotcov with exact counts.

    .venv/bin/python benchmarks/contention.py [--n 40000000] [--threads 1,4] [--builds Debug,Release] [--runs 3]

Builds the sample once per configuration, then alternates the three tools in one loop (the order rotating every
round; a warm-up round is discarded) and prints, per configuration and tool, the median (min) wall time and CPU
time (user+sys of the process tree, from getrusage(RUSAGE_CHILDREN)), the ratios to plain, and how many of
Step's `long v = i;` hits the coverage data holds (N when nothing was lost). Python 3 standard library plus the
dotcov package (to read the data). The load average is printed with each configuration.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
DOTCOV = ROOT / ".venv" / "bin" / "dotcov"
TOOLS = ("plain", "dotcov", "dotcov-exact")


def measure(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=SAMPLES, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def first_line_hits(data_dir: Path) -> int:
    from dotcov.data import datafiles as data
    from dotcov.analysis import results

    result, _ = results.build(data.load(data_dir), SAMPLES)
    work = {fc.path: fc for fc in result.all_files()}[str(SAMPLES / "Contention" / "Work.cs")]
    text = (SAMPLES / "Contention" / "Work.cs").read_text().splitlines()
    step = next(i for i, t in enumerate(text, 1) if "public static long Step" in t)
    return work.lines[step + 2]  # `long v = i;`


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=40_000_000)
    ap.add_argument("--threads", default="1,4")
    ap.add_argument("--builds", default="Debug,Release")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print("| build | threads | tool | wall median (min) s | × plain | CPU median (min) s | × plain "
          "| `long v = i;` hits (of N) | load avg |")
    print("|---|---|---|---|---|---|---|---|---|")
    for build in args.builds.split(","):
        subprocess.run(["dotnet", "build", "Contention", "-c", build, "-nologo", "-v", "quiet", "-clp:ErrorsOnly"],
                       cwd=SAMPLES, check=True)
        dll = SAMPLES / "Contention" / "bin" / build / "net10.0" / "Contention.dll"
        for threads in (int(t) for t in args.threads.split(",")):
            app = ["dotnet", str(dll), str(args.n), str(threads)]
            times: dict[str, list[tuple[float, float]]] = {t: [] for t in TOOLS}
            hits: dict[str, list[int]] = {t: [] for t in TOOLS}
            loads = []
            with tempfile.TemporaryDirectory() as tmp:
                for r in range(args.runs + 1):
                    order = TOOLS[r % 3:] + TOOLS[:r % 3]
                    for tool in order:
                        d = Path(tmp) / f"{tool}-{r}"
                        cmd = app if tool == "plain" else [
                            str(DOTCOV), "run", "--no-report", "--data-dir", str(d),
                            *(["--exact-counts"] if tool == "dotcov-exact" else []), "--", *app]
                        t = measure(cmd)
                        if r:  # round 0 warms up
                            times[tool].append(t)
                            loads.append(os.getloadavg()[0])
                            if tool != "plain":
                                hits[tool].append(first_line_hits(d))
            plain_wall = statistics.median(w for w, _ in times["plain"])
            plain_cpu = statistics.median(c for _, c in times["plain"])
            for tool in TOOLS:
                walls, cpus = [w for w, _ in times[tool]], [c for _, c in times[tool]]
                wall, cpu = statistics.median(walls), statistics.median(cpus)
                got = ", ".join(f"{h:,}" for h in hits[tool]) if hits[tool] else ""
                print(f"| {build} | {threads} | {tool} | {wall:.2f} ({min(walls):.2f}) | {wall / plain_wall:.2f}× | "
                      f"{cpu:.2f} ({min(cpus):.2f}) | {cpu / plain_cpu:.2f}× | {got} | "
                      f"{min(loads):.1f}–{max(loads):.1f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
