#!/usr/bin/env python3
"""Post-processing at scale, from real PDBs: `report`, `xml` and `html` on a generated library.

    .venv/bin/python benchmarks/report_scale.py [--files 1250] [--methods 100] [--assemblies 1] [--work DIR] [--keep]

Generates ScaleLib (FILES classes of METHODS methods; each method a guard `if`, eight statement lines and a
return: 14 statements as `dotcov report` counts them (the braces included) and 2 branch outcomes, so 500 files
x 100 methods are 700,000 statements; with --assemblies N, a solution of N such libraries
ScaleLib0..ScaleLibN-1, e.g. `--assemblies 60 --files 10 --methods 50`: 420,000 statements), and ScaleLib.Tests (one
test calling every other method of every class), builds them (Debug), runs the tests under `dotcov run`, then
times each report command as the user runs it (`python -m dotcov report|xml|html`, a fresh process each, so PDB
reading, `results.build` and the analysis are included), with its peak RSS (getrusage of the child).
Prints Markdown; figures go to docs/benchmarks.md with this command.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"


def method(i: int) -> str:
    return f"""
    public static int M{i}(int x)
    {{
        if (x < 0)
        {{
            return -x;
        }}
        int a = x + {i};
        int b = a * 3;
        int c = b - x;
        int d = c ^ a;
        int e = d + b;
        int f = e % 7;
        int g = f + c;
        int h = g - d;
        return h;
    }}
"""


def generate(work: Path, files: int, methods: int, assemblies: int = 1) -> None:
    libs = ["ScaleLib"] if assemblies == 1 else [f"ScaleLib{a}" for a in range(assemblies)]
    tests = work / "ScaleLib.Tests"
    tests.mkdir(parents=True, exist_ok=True)
    for name in ("Directory.Build.props", "NuGet.config"):
        shutil.copyfile(SAMPLES / name, work / name)
    body = "".join(method(i) for i in range(methods))
    for name in libs:
        lib = work / name
        lib.mkdir(parents=True, exist_ok=True)
        (lib / f"{name}.csproj").write_text('<Project Sdk="Microsoft.NET.Sdk">\n</Project>\n')
        for f in range(files):
            (lib / f"C{f}.cs").write_text(f"namespace {name};\n\npublic static class C{f}\n{{{body}}}\n")
    csproj = (SAMPLES / "Linked.Tests" / "Linked.Tests.csproj").read_text()
    start = csproj.index("  <ItemGroup>\n    <ProjectReference")
    end = csproj.index("</ItemGroup>", start) + len("</ItemGroup>")
    refs = "".join(f'    <ProjectReference Include="../{name}/{name}.csproj" />\n' for name in libs)
    csproj = csproj[:start] + f"  <ItemGroup>\n{refs}  </ItemGroup>" + csproj[end:]
    (tests / "ScaleLib.Tests.csproj").write_text(csproj)
    calls = "\n".join(f"        s += {name}.C{f}.M{i}({i});" for name in libs for f in range(files)
                      for i in range(0, methods, 2))
    (tests / "CallTests.cs").write_text(
        "namespace ScaleLib.Tests;\n\npublic class CallTests\n{\n    [Fact]\n    public void CallEveryOther()\n"
        f"    {{\n        long s = 0;\n{calls}\n        Assert.NotEqual(-1, s);\n    }}\n}}\n")


def run(cmd: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS in MiB of that child and its children (wait4's
    rusage; the plan worker is a child), its standard output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, text=True)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read()
        if proc.returncode not in (0, 2):
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{stdout[-2000:]}\n{err.read()[-4000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1250)
    ap.add_argument("--methods", type=int, default=100)
    ap.add_argument("--assemblies", type=int, default=1, help="libraries (a solution), each --files x --methods")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the generated projects and data")
    ap.add_argument("--skip-build", action="store_true", help="reuse a --work directory already built and run")
    ap.add_argument("--data", type=Path, default=None, help="the data directory to report (default WORK/data)")
    ap.add_argument("--out", type=Path, default=None, help="where the XML and HTML go (default WORK)")
    ap.add_argument("--cache", choices=("sequence", "cold", "warm"), default="sequence",
                    help="module plans (DATA/cache, plan_cache.py): 'sequence' removes them once, so the first "
                         "command builds them and the others reuse them, as after `dotcov run`; 'cold' before "
                         "every command; 'warm' keeps what is there")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="dotcov-scale-"))
    env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1", DOTNET_CLI_USE_MSBUILD_SERVER="0",
               UseSharedCompilation="false")
    os.environ.update(env)
    py = sys.executable
    data = args.data or work / "data"
    out = args.out or work
    if not args.skip_build:
        generate(work, args.files, args.methods, args.assemblies)
        t = time.perf_counter()
        subprocess.run(["dotnet", "build", "ScaleLib.Tests", "-nologo", "-v", "quiet", "-clp:ErrorsOnly",
                        "-p:NuGetAudit=false"], cwd=work, check=True)
        print(f"build: {time.perf_counter() - t:.1f} s", file=sys.stderr)
        t = time.perf_counter()
        subprocess.run([py, "-m", "dotcov", "run", "--data-dir", str(data), "--no-report", "--", "dotnet", "test",
                        "ScaleLib.Tests", "--no-build", "--nologo"], cwd=work, check=True, capture_output=True)
        print(f"dotcov run: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    rows = []
    commands = [
        ("report", ["report", "--data-dir", str(data)]),
        ("xml", ["xml", "--data-dir", str(data), "-o", str(out / "coverage.cobertura.xml")]),
        ("html", ["html", "--data-dir", str(data), "-d", str(out / "htmlcov")]),
    ]
    statements = None
    cache = data / "cache"
    if args.cache == "sequence":
        shutil.rmtree(cache, ignore_errors=True)
    for name, cmd in commands:
        if args.cache == "cold":
            shutil.rmtree(cache, ignore_errors=True)
        plans = "warm" if any(cache.glob("plan.*.bin")) else "cold"
        wall, cpu, rss, stdout = run([py, "-m", "dotcov", *cmd], work)
        if name == "report":
            total = next(line for line in stdout.splitlines() if line.startswith("TOTAL")).split()
            statements = int(total[1])
        rows.append((name, wall, cpu, rss, plans))
    print(f"Generated: {args.assemblies} assemblies x {args.files} files x {args.methods} methods, {statements:,} "
          f"statements (`benchmarks/report_scale.py --assemblies {args.assemblies} --files {args.files} "
          f"--methods {args.methods}`)\n")
    print(f"load average before: {os.getloadavg()[0]:.1f} (wall time is only meaningful on an idle machine)\n")
    print("| command | plans | wall (s) | CPU (s) | peak RSS (MiB) |")
    print("|---|---|---:|---:|---:|")
    for name, wall, cpu, rss, plans in rows:
        print(f"| `dotcov {name}` | {plans} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
    print(f"| together | | {sum(r[1] for r in rows):.2f} | {sum(r[2] for r in rows):.2f} | "
          f"{max(r[3] for r in rows):.0f} |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    if not args.keep and args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
