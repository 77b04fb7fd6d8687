#!/usr/bin/env python3
"""A speed mechanism with and without, side by side: report commands on a layout report_scale.py made.

    .venv/bin/python benchmarks/mechanisms.py --work DIR [--rounds 3] [--commands report,xml,html]
        [--states cold,warm] NAME=ENV [NAME=ENV ...]

Each NAME=ENV is a variant: the environment it adds (`with=` adds nothing; `without=DOTCOV_OFF=pages` sets
DOTCOV_OFF, a switch that exists only in a measuring patch), or `python=PATH` to run another checkout's
interpreter. Per round, the variants take turns (A B A B ...); each runs the commands as a user does
(`python -m dotcov CMD`, a fresh process each) first cold (DATA/cache removed before the first command, so it
builds the plans and the others reuse them, as after `dotcov run --no-report`), then warm (the same again). Prints
the median wall and CPU seconds and the largest peak RSS per (state, command, variant), with the load average,
and checks every variant wrote the same bytes (report -m text, XML, HTML tree).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report_scale import run  # noqa: E402 (wall, CPU, peak RSS of one child)


def commands(data: Path, out: Path) -> dict[str, list[str]]:
    return {
        "report": ["report", "-m", "--data-dir", str(data)],
        "xml": ["xml", "--data-dir", str(data), "-o", str(out / "coverage.cobertura.xml")],
        "html": ["html", "--data-dir", str(data), "-d", str(out / "htmlcov")],
    }


def same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    if filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)[1:] != ([], []):
        return False
    return all(same_tree(a / d, b / d) for d in cmp.common_dirs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="a report_scale.py --keep directory (its data/)")
    ap.add_argument("--data", type=Path, default=None, help="the data directory (default WORK/data)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--commands", default="report,xml,html")
    ap.add_argument("--states", default="cold,warm")
    ap.add_argument("variants", nargs="+", help="NAME=ENV (e.g. with=  without=DOTCOV_OFF=pages)")
    args = ap.parse_args()
    data = args.data or args.work / "data"
    names = args.commands.split(",")
    states = args.states.split(",")
    variants = []
    for v in args.variants:
        name, _, env = v.partition("=")
        key, _, value = env.partition("=")
        variants.append((name, {key: value} if key else {}))
    out = Path(tempfile.mkdtemp(prefix="dotcov-mech-"))
    times: dict[tuple, list] = {}
    loads = [os.getloadavg()[0]]
    for _round in range(args.rounds):
        for name, extra in variants:
            env = dict(os.environ, **{k: v for k, v in extra.items() if k != "python"})
            py = extra.get("python", sys.executable)
            vout = out / name
            vout.mkdir(exist_ok=True)
            shutil.rmtree(data / "cache", ignore_errors=True)
            for state in ("cold", "warm"):
                for cmd in names:
                    saved = os.environ.copy()
                    os.environ.clear()
                    os.environ.update(env)
                    try:
                        wall, cpu, rss, stdout = run([py, "-m", "dotcov", *commands(data, vout)[cmd]], args.work)
                    finally:
                        os.environ.clear()
                        os.environ.update(saved)
                    if cmd == "report":
                        (vout / "report.txt").write_text(stdout)
                    if state in states:
                        times.setdefault((state, cmd, name), []).append((wall, cpu, rss))
                if "warm" not in states:
                    break  # (cold only: the warm pass is not needed)
        loads.append(os.getloadavg()[0])
    print(f"`benchmarks/mechanisms.py --work {args.work} --rounds {args.rounds} --commands {args.commands} "
          f"--states {args.states} {' '.join(args.variants)}`\n")
    print(f"load average (1 min) at the start and after each round: {', '.join(f'{x:.1f}' for x in loads)}\n")
    others = [n for n, _ in variants[1:]]
    head = [f"{n} {what}" for n, _ in variants for what in ("wall (s)", "CPU (s)", "RSS (MiB)")]
    head += [f"{variants[0][0]} saves of {n}'s wall" for n in others]
    print("| state | command | " + " | ".join(head) + " |")
    print("|---|---|" + "---:|" * (3 * len(variants) + len(others)))
    for state in states:
        for cmd in names:
            cells, walls = [], []
            for name, _ in variants:
                rows = times[(state, cmd, name)]
                wall = statistics.median(r[0] for r in rows)
                walls.append(wall)
                cells += [f"{wall:.2f}", f"{statistics.median(r[1] for r in rows):.2f}", f"{max(r[2] for r in rows):.0f}"]
            gains = [f"{(w - walls[0]) / w:+.0%}" if w else "" for w in walls[1:]]
            print(f"| {state} | `{cmd}` | " + " | ".join(cells + gains) + " |")
    first = out / variants[0][0]
    for name, _ in variants[1:]:
        other = out / name
        ok = all(filecmp.cmp(first / f, other / f, shallow=False) for f in ("report.txt", "coverage.cobertura.xml")
                 if (first / f).exists()) and (not (first / "htmlcov").exists() or same_tree(first / "htmlcov",
                                                                                           other / "htmlcov"))
        print(f"\noutputs of {name} {'identical to' if ok else 'DIFFER from'} {variants[0][0]}'s")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
