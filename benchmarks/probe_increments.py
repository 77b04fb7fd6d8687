#!/usr/bin/env python3
"""How many counter increments a test run executes, against the probe-site hits they stand for (shared counters).

    .venv/bin/python benchmarks/probe_increments.py SAMPLES_DIR PROJECT CONFIG [--per-method]
    e.g. .venv/bin/python benchmarks/probe_increments.py "$PWD/samples" Bench.Tests Debug

Runs `dotnet test PROJECT --no-build -c CONFIG` in SAMPLES_DIR with the agent's environment (as `dotcov run`
sets it, without the combine) and reads the raw per-process data files: a derived counter (top bit set,
docs/architecture.md "The data file") executed no increment and counts its source's hits (a summed one, bit 62
too, the sum of its two sources'). The figures do not
depend on the machine's load. Needs the project built in that configuration.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from dotcov.measure.agent import profiler_environment

DERIVED = 1 << 63
SUMMED = 1 << 62
LOW31 = (1 << 31) - 1


def site_count(raw: tuple[int, ...], i: int) -> int:
    """The count counter i stands for: its own, or its sources' (the writer makes no cycle)."""
    total, todo = 0, [i]
    while todo:
        c = raw[todo.pop()]
        if not c & DERIVED:
            total += c
        elif c & SUMMED:
            todo += [(c >> 31) & LOW31, c & LOW31]
        else:
            todo.append(c & 0xFFFFFFFF)
    return total


def main() -> None:
    samples, project, config = Path(sys.argv[1]).resolve(), sys.argv[2], sys.argv[3]
    data_dir = Path(tempfile.mkdtemp(prefix="dotcov-increments-"))
    env = dict(os.environ) | profiler_environment(data_dir, samples, include_tests=False, log=False)
    subprocess.run(["dotnet", "test", project, "--no-build", "--nologo", "-v", "q", "-c", config], env=env,
                   cwd=samples, check=True, stdout=subprocess.DEVNULL)
    executed = site_hits = sites = derived = 0
    per_method: dict[tuple[str, int], list[int]] = {}  # (module path, method token) -> [increments, site hits]
    for f in data_dir.glob("*.cov"):
        b = f.read_bytes()
        at = 64  # file header
        while at + 16 <= len(b):
            kind, state, size = struct.unpack_from("<IIQ", b, at)
            if kind == 0 or size == 0:
                break
            if kind == 1 and state == 1:  # a committed module record
                n, = struct.unpack_from("<I", b, at + 16 + 36)
                counters_at, = struct.unpack_from("<I", b, at + 16 + 44)
                raw = struct.unpack_from(f"<{n}Q", b, at + counters_at)
                path_len, = struct.unpack_from("<I", b, at + 16 + 40)
                path = b[at + 16 + 56:at + 16 + 56 + path_len].decode()
                tokens = struct.unpack_from(f"<{3 * n}I", b, at + ((16 + 56 + path_len + 7) & ~7))[::3]
                for i, c in enumerate(raw):
                    sites += 1
                    here = per_method.setdefault((path, tokens[i]), [0, 0])
                    if c & DERIVED:
                        derived += 1
                        count = site_count(raw, i)
                        site_hits += count
                        here[1] += count
                    else:
                        executed += c
                        site_hits += c
                        here[0] += c
                        here[1] += c
            at += (size + 7) & ~7
    print(f"{project} {config}: {sites} probe sites ({derived} derived), site hits {site_hits:,}, "
          f"increments executed {executed:,} ({executed / max(site_hits, 1):.1%})")
    if "--per-method" in sys.argv:  # the methods executing the most increments
        from dotcov import _native

        names = {}
        for (path, token), (inc, hits) in sorted(per_method.items(), key=lambda kv: -kv[1][0])[:12]:
            if path not in names:
                names[path] = [m[0] for m in _native.read_symbols(path)["methods"]]
            print(f"  {names[path][(token & 0xFFFFFF) - 1]:24} increments {inc:>14,}  site hits {hits:>14,}")


if __name__ == "__main__":
    main()
