#!/usr/bin/env python3
"""The timeline of one cold `Coverage(DATA_DIR).result()` (what `dotcov report` builds, the module plans made, not
loaded), and the critical path two idle cores would give it (issue 12, item 7; analysis/plans/worker.py).

    cd DIR_OF_THE_RUN && .venv/bin/python benchmarks/cold_timeline.py DATA_DIR

DATA_DIR's plan cache (DATA_DIR/cache) is removed first. Each step is printed with this process's wall clock and
CPU (user + sys, all its threads) at its end; then the worker's CPU (RUSAGE_CHILDREN) and the chunks each side took.
On a shared machine the wall clock says little: the line "expected on two idle cores" computes, from the CPU
figures alone, when the parent and the worker would finish the branch analysis together:
    T = (parent CPU when the worker started + worker CPU + parent's chunks' CPU + parent CPU at its share) / 2
(the worker starts after the former and works on until T; the parent from the latter), at least the parent's CPU at
its share; then the rest of the build is added. (For a dotcov whose worker analyses every branch, main before the
split: the join is at the worker's start plus its CPU.) With DOTCOV_NO_WORKERS=1 it times the serial build. The
worker is started without its colouring of the sources after the chunks (analysis/plans/worker.py: niced, on the
idle core).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    args = ap.parse_args()
    shutil.rmtree(args.data / "cache", ignore_errors=True)

    from dotcov import api
    from dotcov.analysis.plans import plan
    from dotcov.analysis.plans import worker as plan_worker
    from dotcov.analysis import results

    t0, c0 = time.perf_counter(), time.process_time()
    marks: list[tuple[str, float, float]] = []

    def mark(what: str) -> None:
        marks.append((what, time.perf_counter() - t0, time.process_time() - c0))

    def wrap(owner, name: str, before: str | None, after: str | None):
        real = getattr(owner, name)

        def wrapped(*a, **k):
            if before:
                mark(before)
            out = real(*a, **k)
            if after:
                mark(after)
            return out

        setattr(owner, name, wrapped)

    workers = []
    real_init = plan_worker.BranchWorker.__init__

    def init(self, *a, **k):
        mark("counters known")
        k.pop("colour_dir", None)  # (its colouring after the chunks, niced on the idle core, is not the build's)
        real_init(self, *a, **k)
        workers.append(self)
        mark("worker started" if self.started else "no worker")

    plan_worker.BranchWorker.__init__ = init
    wrap(results, "load_symbols", None, "symbols read")
    wrap(plan_worker.BranchWorker, "result", "own part of make_plan done", "branch rows joined")
    chunk_cpu = [0.0]
    real_rows = plan.branch_rows

    def rows(*a, **k):  # this process's chunks (or the serial rows)
        c = time.process_time()
        try:
            return real_rows(*a, **k)
        finally:
            chunk_cpu[0] += time.process_time() - c

    plan.branch_rows = rows
    wrap(results, "make_plan", None, "make_plan done")
    wrap(results, "build", "data read, never-loaded scan done", "build done")
    cov = api.Coverage(args.data)
    cov.result()
    mark("result() done")
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = child.ru_utime + child.ru_stime
    for what, wall, cpu in marks:
        print(f"{wall:7.2f} s wall {cpu:7.2f} s CPU  {what}")
    at = {what: cpu for what, _wall, cpu in marks}
    total = marks[-1][2]
    print(f"parent CPU {total:.2f} s (of which branch rows here {chunk_cpu[0]:.2f} s); worker CPU {worker_cpu:.2f} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    shares = getattr(workers[0], "shares", None) if workers else None
    if shares and shares[0]:  # the branch analysis shared (analysis/plans/worker.py)
        n, theirs, mine = shares
        print(f"chunks: {n}, worker {theirs}, here {mine}")
        own = at["own part of make_plan done"]
        meet = max(own, (at["worker started"] + worker_cpu + chunk_cpu[0] + own) / 2)
    elif "worker started" in at:  # (a dotcov whose worker analyses every branch: it joins when that is done)
        meet = max(at["own part of make_plan done"], at["worker started"] + worker_cpu)
    else:
        return
    print(f"expected on two idle cores: branch rows joined at {meet:.2f} s, result() at "
          f"{meet + total - at['branch rows joined']:.2f} s (parent CPU alone: {total:.2f} s)")

if __name__ == "__main__":
    main()
