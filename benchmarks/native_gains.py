#!/usr/bin/env python3
"""What each native loop saves: a report command with that loop and with its Python oracle (tests/oracles/), side by side.

    .venv/bin/python benchmarks/native_gains.py --work /tmp/a [--data DIR] [--rounds 3] [--loops branches,plan,colour]

On a layout report_scale.py made (--keep). Per round the variants take turns (native, then each oracle), each a fresh
`dotcov` process: `branches` and `plan` run a cold `report` (DATA/cache removed first), with the branch analysis
(native_branches.cpp) or make_plan's loops (native_methods.cpp) replaced by tests/oracles/branch_analyse.py or
make_plan.py; `colour` runs `html` on warm plans with C# coloured by tests/oracles/csharp_colour.py instead of
native_csharp.cpp. Prints median wall and CPU seconds per variant, and checks each variant printed the same table or
wrote the same HTML tree as the native one.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from report_scale import run  # noqa: E402 (wall, CPU, peak RSS of one child)

COMMAND = {"branches": "report", "plan": "report", "colour": "html"}


def swapped(loop: str) -> None:
    """Runs `dotcov` (sys.argv) with `loop` replaced by its oracle (in the child process)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    if loop == "branches":
        from dotcov.analysis.plans import plan
        from oracles.branch_analyse import branch_rows_py

        plan.branch_rows = lambda module, sym, mapper, *, bodies=None: branch_rows_py(
            module, sym, bodies=bodies, assembly_path=mapper.map(module.path),
            path_of=lambda doc: mapper.map(doc, near=module.path))
    elif loop == "plan":
        from dotcov.analysis.plans import plan
        from oracles.make_plan import make_plan_py

        plan._make_plan = make_plan_py
    elif loop == "colour":
        from dotcov.html import csharp
        from oracles.csharp_colour import highlight_escaped

        def lines(text: str) -> list[str]:
            out = highlight_escaped(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")).split("\n")
            if out[-1] == "":
                out.pop()
            return out

        csharp.lines = lines
    from dotcov.cli.commands import main

    main()


def same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(filecmp.cmp(a / f, b / f, shallow=False) for f in cmp.same_files) and \
        all(same_tree(a / d, b / d) for d in cmp.common_dirs)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--swapped":
        loop = sys.argv[2]
        sys.argv = ["dotcov", *sys.argv[3:]]
        swapped(loop)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=None, help="a copy of the data to report (default WORK/data)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--loops", default="branches,plan,colour")
    args = ap.parse_args()
    loops = args.loops.split(",")
    data = args.data or args.work / "data"
    out = Path(tempfile.mkdtemp(prefix="dotcov-gains-"))
    py = sys.executable
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    same = True
    print(f"load average before: {os.getloadavg()[0]:.1f}\n")
    for _ in range(args.rounds):
        for loop in loops:
            command = COMMAND[loop]
            for variant in ("native", "oracle"):
                if command == "report":
                    shutil.rmtree(data / "cache", ignore_errors=True)
                    cmd = ["report", "-m", "--data-dir", str(data)]
                else:
                    if not any((data / "cache").glob("plan.*.bin")):
                        run([py, "-m", "dotcov", "report", "--data-dir", str(data)], args.work)  # (warm plans)
                    shutil.rmtree(out / variant, ignore_errors=True)
                    cmd = ["html", "--data-dir", str(data), "-d", str(out / variant)]
                head = [py, "-m", "dotcov"] if variant == "native" else [py, __file__, "--swapped", loop]
                wall, cpu, _rss, stdout = run(head + cmd, args.work)
                times.setdefault((loop, variant), []).append((wall, cpu))
                if command == "report":
                    (out / f"{variant}.txt").write_text(stdout)
            same = same and (filecmp.cmp(out / "native.txt", out / "oracle.txt", shallow=False) if command == "report"
                             else same_tree(out / "native", out / "oracle"))
    print("| loop | command | native wall / CPU (s) | oracle wall / CPU (s) | wall saved |")
    print("|---|---|---:|---:|---:|")
    for loop in loops:
        (nw, nc), (ow, oc) = ((statistics.median(t[0] for t in times[loop, v]),
                               statistics.median(t[1] for t in times[loop, v])) for v in ("native", "oracle"))
        print(f"| {loop} | {COMMAND[loop]} | {nw:.2f} / {nc:.2f} | {ow:.2f} / {oc:.2f} | {1 - nw / ow:.0%} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}; outputs {'identical' if same else 'DIFFER'}")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
