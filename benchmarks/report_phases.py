#!/usr/bin/env python3
"""What `dotcov report` and `dotcov xml` spend after the model is built (issue 12, item 7).

    .venv/bin/python benchmarks/report_phases.py DATA_DIR [--root DIR] [--repeat 3] [--only PHASE]... [--profile PHASE]

Builds the model once (`api.Coverage(DATA_DIR).result()`, as the commands do: collector off, then frozen),
then times each later phase REPEAT times in the same process and prints the best and the median wall time
and the best CPU time (this process's user + system, `time.process_time`: steadier on a shared machine):
`Analysis.of` (the analysis layer), `render_table` (the terminal table, `-m`), `cobertura_xml` (the Cobertura
document in memory) and `write_cobertura` (the same, written to a file under /tmp). Each phase runs as the
commands run it: the collector off (`api._no_gc`); `Analysis.of` is timed on the model, each writer on a
fresh analysis (so what the analysis computes only when a writer asks, the classes, is the writer's). `--profile PHASE` prints cProfile's top functions for that phase (one extra run).
Run it in the directory the data was recorded in (or give `--root`), so paths are reported as the CLI does.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--root", type=Path, default=None, help="source root (default: the current directory)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", choices=["analysis", "table", "xml", "write"], default=None)
    ap.add_argument("--only", action="append", choices=["analysis", "table", "xml", "write"],
                    help="time only these phases (repeatable; default: all)")
    args = ap.parse_args()

    from dotcov.analysis.numbers import Analysis
    from dotcov.api import Coverage, _no_gc
    from dotcov.reports.cobertura import cobertura_xml, write_cobertura
    from dotcov.reports.text import render_table

    cov = Coverage(args.data, source_root=args.root, warn=lambda m: None)
    t = time.perf_counter()
    result = cov.result()
    print(f"model built in {time.perf_counter() - t:.2f} s (not counted below)", file=sys.stderr)
    def fresh():
        with _no_gc():
            return Analysis.of(result)

    root = str(cov.source_root)
    out = Path(tempfile.mkdtemp(prefix="report_phases_")) / "coverage.cobertura.xml"

    # Each writer gets a fresh analysis (made before its clock starts): what an analysis computes when first
    # asked (a file's or an assembly's classes) is the writer's cost, as in the command.
    phases = {
        "analysis": lambda: lambda: Analysis.of(result),
        "table": lambda: (lambda a: lambda: render_table(a, show_missing=True, relative_to=root))(fresh()),
        "xml": lambda: (lambda a: lambda: cobertura_xml(a, version="bench"))(fresh()),
        "write": lambda: (lambda a: lambda: write_cobertura(a, out, version="bench"))(fresh()),
    }
    print(f"| phase | best s | median s | best CPU s | (of {args.repeat}; load average {os.getloadavg()[0]:.1f}) |")
    print("|---|---:|---:|---:|---|")
    for name, make in phases.items():
        if args.only and name not in args.only:
            continue
        times, cpu = [], []
        for _ in range(args.repeat):
            run = make()
            with _no_gc():
                t, c = time.perf_counter(), time.process_time()
                run()
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            gc.collect()
        print(f"| {name} | {min(times):.3f} | {statistics.median(times):.3f} | {min(cpu):.3f} | |")
    if args.profile:
        prof = cProfile.Profile()
        with _no_gc():
            prof.runcall(phases[args.profile]())
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    out.unlink(missing_ok=True)
    out.parent.rmdir()


if __name__ == "__main__":
    main()
