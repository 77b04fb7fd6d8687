"""Times `write_html` on a synthetic report: N C# files of ~200 lines (default 5,000).

    .venv/bin/python benchmarks/html_render.py [--files N] [--lines L] [--keep DIR]
    .venv/bin/python benchmarks/html_render.py --colour-only DIR   (only the colouring of DIR's C# files)
    .venv/bin/python benchmarks/html_render.py --data-dir DATA --out DIR [--source-root ROOT]
            [--repeat N]
        (real data: `Coverage(DATA).analysis()` is built first, untimed, as `dotcov html` builds it, run in
        ROOT (default: DATA's parent); then `write_html` alone is timed as `dotcov html --data-dir DATA -d DIR`
        runs it: wall, the CPU of this process, and page faults. N runs, each into a new DIR)

Each file's text differs (names, numbers, literals), so no cache or dedupe could help;
about a third of statements are missed and every tenth branch line is partial.
Prints the seconds `write_html` took, wall and CPU (source files are written before timing starts).
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import tempfile
import time
from pathlib import Path

from dotcov.html import search as html_search
from dotcov.analysis.numbers import Analysis
from dotcov.html.report import search_text, write_html
from dotcov.analysis.model import AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage

METHOD = '''
        /// <summary>Computes {name} for the given input.</summary>
        public int {name}(int a, string label)
        {{
            var total = a * {k} + _offset; // running total
            if (a > {k} && label != null)
            {{
                total += label.Length;
                Console.WriteLine($"{{label}}: {{total}} ({k})");
            }}
            /* try the
               slow path */
            for (int i = 0; i < {k}; i++) {{ total ^= i << 2; }}
            return total;
        }}
'''


def make_source(i: int, lines: int, rng: random.Random) -> tuple[str, dict[int, int], dict[int, BranchCoverage]]:
    parts = [f"using System;\nusing System.Collections.Generic;\n\nnamespace Bench.Area{i % 50}\n{{\n"
             f"    public sealed class Type{i}\n    {{\n        private readonly int _offset = {i};\n"]
    m = 0
    while sum(p.count("\n") for p in parts) < lines - 3:
        parts.append(METHOD.format(name=f"Method{i}_{m}", k=rng.randint(1, 999)))
        m += 1
    parts.append("    }\n}\n")
    text = "".join(parts)
    hits: dict[int, int] = {}
    branches: dict[int, BranchCoverage] = {}
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s and not s.startswith(("//", "/*", "slow", "using", "namespace", "{", "}", "///")) or s == "{":
            hits[n] = 0 if rng.random() < 0.33 else rng.randint(1, 5000)
            if s.startswith("if (") and rng.random() < 0.3:
                branches[n] = BranchCoverage(1, 2, [f"false of `a > {n}`"])
    return text, hits, branches


def _cpu() -> float:
    """User + system CPU seconds of this process and its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def colour_only(directory: Path) -> None:
    from dotcov.html.report import highlight_lines, read_source

    paths = sorted(directory.rglob("*.cs"))
    texts = [(read_source(str(p)), str(p)) for p in paths]
    cpu_start = _cpu()
    lines = sum(len(highlight_lines(text, path)) for text, path in texts)
    print(f"{len(paths)} files, {lines} lines coloured: CPU {_cpu() - cpu_start:.2f} s")


def real_data(data_dir: Path, out: Path, source_root: Path | None = None, repeat: int = 1) -> None:
    import os
    import shutil

    from dotcov.api import Coverage

    data_dir = data_dir.resolve()
    os.chdir(source_root or data_dir.parent)  # as `dotcov html` run in the project
    cov = Coverage(data_dir)
    start = time.perf_counter()
    analysis = cov.analysis()
    print(f"{data_dir}: analysis built in {time.perf_counter() - start:.1f} s (not counted)")
    gc_was = gc.isenabled()
    gc.disable()  # as api.Coverage.html_report: the model is frozen, the writer runs without the collector
    gc.freeze()
    for _ in range(repeat):
        shutil.rmtree(out, ignore_errors=True)
        own0 = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        write_html(analysis, out, version=cov.version, timestamp=analysis.timestamp,
                   relative_to=str(cov.source_root))
        wall = time.perf_counter() - start
        own = resource.getrusage(resource.RUSAGE_SELF)
        size = sum(p.stat().st_size for p in out.iterdir())
        print(f"write_html: {wall:.2f} s wall; {own.ru_utime - own0.ru_utime:.2f} "
              f"user + {own.ru_stime - own0.ru_stime:.2f} system; page faults {own.ru_minflt - own0.ru_minflt}; "
              f"{size / 1e6:.0f} MB written")
    if gc_was:
        gc.enable()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--tmp", default=None, help="where to make the temporary tree (e.g. /dev/shm)")
    ap.add_argument("--keep", default=None, help="also copy the report to this new directory (for "
                    "benchmarks/search_in_browser.js)")
    ap.add_argument("--colour-only", metavar="DIR", default=None,
                    help="only time the source colouring (html.highlight_lines) of every *.cs file under DIR")
    ap.add_argument("--data-dir", type=Path, default=None, help="time write_html on this real data directory")
    ap.add_argument("--out", type=Path, default=None, help="with --data-dir: the report directory (replaced)")
    ap.add_argument("--source-root", type=Path, default=None,
                    help="with --data-dir: the directory `dotcov html` runs in (default: the data's parent)")
    ap.add_argument("--repeat", type=int, default=1, help="with --data-dir: how many runs")
    args = ap.parse_args()
    if args.data_dir:
        if args.out is None:
            ap.error("--data-dir needs --out")
        real_data(args.data_dir, args.out, args.source_root, args.repeat)
        return
    if args.colour_only:
        colour_only(Path(args.colour_only))
        return
    rng = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="dotcov-bench-", dir=args.tmp) as tmp:
        src = Path(tmp) / "src"
        assemblies = [AssemblyCoverage(f"Bench.Asm{a}") for a in range(5)]
        total_lines = 0
        for i in range(args.files):
            text, hits, branches = make_source(i, args.lines, rng)
            total_lines += text.count("\n")
            path = src / f"Area{i % 50}" / f"Type{i}.cs"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            asm = assemblies[i % len(assemblies)]
            asm.files[str(path)] = FileCoverage(str(path), hits, branches)
            asm.classes.append(ClassCoverage(f"Bench.Area{i % 50}.Type{i}", str(path)))
        result = CoverageResult(assemblies, source_root=str(src))
        start, cpu_start = time.perf_counter(), _cpu()
        index = write_html(result, Path(tmp) / "htmlcov")
        seconds, cpu = time.perf_counter() - start, _cpu() - cpu_start
        size = sum(p.stat().st_size for p in index.parent.iterdir())
        print(f"{args.files} files, {total_lines} lines, {size / 1e6:.0f} MB written: {seconds:.2f} s "
              f"(CPU {cpu:.2f} s)")
        # The search index's share (html/search.py): built again on its own, and its files' size.
        analysis = Analysis.of(result)
        files = [(f, f.path, f"p{i}.html", "0") for i, f in enumerate(analysis.files)]
        start = time.perf_counter()
        search = html_search.build(files, search_text)
        seconds = time.perf_counter() - start
        print(f"  of which the search index: {seconds:.2f} s to build, "
              f"{sum(map(len, search.values())) / 1e6:.0f} MB in {len(search)} files")
        if args.keep:
            import shutil

            shutil.copytree(index.parent, args.keep)


if __name__ == "__main__":
    main()
