#!/usr/bin/env python3
"""What the cold model build spends making module plans (issue 12, item 7): `plan.make_plan` per module.

    .venv/bin/python benchmarks/cold_plan.py DATA_DIR [--root DIR] [--repeat 1] [--dump FILE] [--profile]

Reads the data and each module's symbols as `dotcov report` does (collector off, as api._no_gc), then times
`make_plan` for every module (wall and CPU, best of REPEAT),
without the plan cache. `--dump FILE`
writes the plans (marshal, in module order) so two versions of dotcov can be compared (`--compare FILE`
checks this run's plans equal those, with ==). `--profile` prints cProfile's top functions of one extra run.
Run it in the directory the data was recorded in (or give `--root`), so paths are mapped as the CLI maps them.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import marshal
import os
import pstats
import resource
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--root", type=Path, default=None, help="source root (default: the current directory)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--dump", type=Path, default=None)
    ap.add_argument("--compare", type=Path, default=None)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    from dotcov.data import datafiles as data_mod
    from dotcov.analysis.paths import PathMapper
    from dotcov.analysis.plans.plan import make_plan
    from dotcov.analysis.results import ReportOptions, SourceChecks, load_symbols
    from dotcov.analysis.unloaded import never_loaded

    root = (args.root or Path.cwd()).resolve()
    gc.disable()
    cov = data_mod.load(args.data)
    modules = [*cov.modules.values(), *never_loaded(cov, root)]
    options = ReportOptions()
    mapper = PathMapper(options.paths, root)
    syms = [load_symbols(m, mapper.map(m.path)) for m in modules]

    def run():
        checks = SourceChecks()
        return [make_plan(m, s, options, mapper, checks) for m, s in zip(modules, syms)]

    best = None
    for _ in range(args.repeat):
        w, c, k = time.perf_counter(), time.process_time(), _children_cpu()
        plans = run()
        w, c, k = time.perf_counter() - w, time.process_time() - c, _children_cpu() - k
        best = (w, c, k) if best is None or w < best[0] else best
        del plans
    print(f"make_plan of {len(modules)} modules: {best[0]:.2f} s wall, {best[1]:.2f} s CPU here + "
          f"{best[2]:.2f} s in workers "
          f"(best of {args.repeat}; load average {os.getloadavg()[0]:.2f}); peak RSS "
          f"{_rss_mb(resource.RUSAGE_SELF)} MB here, {_rss_mb(resource.RUSAGE_CHILDREN)} MB in a worker")
    if args.dump or args.compare:
        plans = run()
        if args.dump:
            args.dump.write_bytes(marshal.dumps(plans))
        if args.compare:
            same = marshal.loads(args.compare.read_bytes()) == plans
            print("plans equal to", args.compare, ":", same)
            if not same:
                sys.exit(1)
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(run)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _rss_mb(who: int) -> int:
    return resource.getrusage(who).ru_maxrss // 1024


if __name__ == "__main__":
    main()
