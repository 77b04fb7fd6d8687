#!/usr/bin/env python3
"""What a report command's model build costs when the module plans are kept (issue 12, item 7).

    .venv/bin/python benchmarks/warm_build.py DATA_DIR [--root DIR] [--repeat 3] [--profile] [--small-pages]

DATA_DIR must hold the plans already (run any report command on it once). Times, REPEAT times in one process
with the collector off (as `api.Coverage.result` runs the build), each step of the warm build: reading the data
files (`data.load`), the plans' cache keys, loading the plans (`plan_cache.load`) and applying them
(`packed_plan.apply`), and prints the best and the median of each and of their sum. `--profile` prints cProfile's
top functions of one more whole build. Times are CPU seconds of the process (time.process_time). Run it in the directory the data was recorded in (or give `--root`).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--root", type=Path, default=Path.cwd())
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    from dotcov import __version__
    from dotcov.data import datafiles as data
    from dotcov.analysis.plans import cache as plan_cache
    from dotcov.analysis.paths import PathMapper
    try:
        from dotcov.analysis.plans.packed import apply as apply_plan
    except ImportError:  # (before the packed plans: to compare)
        from dotcov.analysis.plans.plan import apply_plan
    from dotcov.cli.config import load_config
    from dotcov.cli.settings import report_options

    # The options a report command without flags has (dotcov.toml read as the CLI reads it): the same cache keys.
    options = report_options(load_config())
    mapper = PathMapper(options.paths, args.root)
    cache = args.data / plan_cache.CACHE_DIR

    def build(times: dict) -> None:
        t0 = time.process_time()
        cov = data.load(args.data)
        t1 = time.process_time()
        keys = [(m, plan_cache.cache_key(m, options, mapper, __version__)) for m in cov.modules.values()]
        t2 = time.process_time()
        plans = [(m, plan_cache.load(cache, k, mapper, m.path)) for m, k in keys]
        t3 = time.process_time()
        if any(p is None for _m, p in plans):
            sys.exit(f"no kept plan for every module in {cache}: run `dotcov report --data-dir {args.data}` first")
        models = [apply_plan(p, m) for m, p in plans]
        t4 = time.process_time()
        for name, dt in (("data.load", t1 - t0), ("cache keys", t2 - t1), ("plan_cache.load", t3 - t2),
                         ("apply_plan", t4 - t3), ("warm build", t4 - t0)):
            times.setdefault(name, []).append(dt)
        del models, plans

    times: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        gc.collect()
        gc.disable()
        try:
            build(times)
        finally:
            gc.enable()
    for name, ts in times.items():
        print(f"{name:16} best {min(ts):6.3f} s  median {statistics.median(ts):6.3f} s")
    if args.profile:
        prof = cProfile.Profile()
        gc.disable()
        prof.enable()
        build({})
        prof.disable()
        gc.enable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
