#!/usr/bin/env python3
"""Line verdicts of dotcov, coverlet.collector and Microsoft.CodeCoverage on the sample suites, side by side.

    .venv/bin/python benchmarks/accuracy.py [--suites Calc,FsCalc,TextKit] [--no-build]

Python 3 standard library only. Runs each suite's tests three times (Debug, already built unless --build):
`dotcov run` + `dotcov xml`, `dotnet test --collect "XPlat Code Coverage"` and `dotnet test --collect
"Code Coverage;Format=cobertura"`, reads the three Cobertura files the same way (a line's hits are the most
of its <line> elements), keeps the library's own source files (Microsoft's tool also reports the test
assemblies) and prints, per suite, how many lines all three agree on and every line where they do not,
with its source text. Writes benchmarks/results/accuracy.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_cobertura  # noqa: E402
from run import COVERLET_ADAPTER, DOTCOV, RESULTS, SAMPLES, dotnet_env  # noqa: E402

TOOLS = ("dotcov", "coverlet", "ms")


def cobertura_lines(xml: Path) -> dict[str, dict[int, int]]:
    """path -> line -> hits (the most of its <line> elements), as compare_cobertura reads them."""
    return {path: {n: hits for n, (hits, _branch) in lines.items()}
            for path, lines in compare_cobertura.read(xml).items()}


def collect(suite: str, tool: str, work: Path, env: dict[str, str]) -> dict[str, dict[int, int]]:
    test = ["dotnet", "test", f"{suite}.Tests", "--no-build", "--nologo"]
    out = work / tool
    if tool == "dotcov":
        subprocess.run([str(DOTCOV), "run", "--no-report", "--data-dir", str(out), "--", *test], cwd=SAMPLES,
                       env=env, check=True, capture_output=True)
        subprocess.run([str(DOTCOV), "xml", "--data-dir", str(out), "-o", str(work / "dotcov.xml")], cwd=SAMPLES,
                       env=env, check=True, capture_output=True)
        return cobertura_lines(work / "dotcov.xml")
    collect_arg = "XPlat Code Coverage" if tool == "coverlet" else "Code Coverage;Format=cobertura"
    extra = ["--test-adapter-path", str(COVERLET_ADAPTER)] if tool == "coverlet" else []
    subprocess.run([*test, "--collect", collect_arg, "--results-directory", str(out), *extra], cwd=SAMPLES, env=env,
                   check=True, capture_output=True)
    merged: dict[str, dict[int, int]] = {}
    for xml in sorted(out.rglob("*.cobertura.xml")):
        for path, lines in cobertura_lines(xml).items():
            into = merged.setdefault(path, {})
            for n, h in lines.items():
                into[n] = max(into.get(n, 0), h)
    return merged


def verdict(lines: dict[int, int], n: int) -> str:
    return "absent" if n not in lines else ("covered" if lines[n] > 0 else "missed")


def compare(suite: str, env: dict[str, str], work: Path) -> dict:
    library = (SAMPLES / suite).resolve()
    per_tool = {}
    for tool in TOOLS:
        got = collect(suite, tool, work / suite, env)
        per_tool[tool] = {p: l for p, l in got.items() if Path(p).is_relative_to(library)}
    files = sorted(set().union(*(set(t) for t in per_tool.values())))
    agree = {"covered": 0, "missed": 0}
    differences = []
    for path in files:
        source = Path(path).read_text(errors="replace").splitlines() if Path(path).exists() else []
        lines = sorted(set().union(*(set(per_tool[t].get(path, {})) for t in TOOLS)))
        for n in lines:
            v = {t: verdict(per_tool[t].get(path, {}), n) for t in TOOLS}
            if len(set(v.values())) == 1:
                agree[v["dotcov"]] += 1
                continue
            text = source[n - 1].strip() if 0 < n <= len(source) else ""
            differences.append({"file": str(Path(path).relative_to(SAMPLES)), "line": n, **v, "source": text})
    totals = {t: {"lines": sum(len(l) for l in per_tool[t].values()),
                  "covered": sum(1 for l in per_tool[t].values() for h in l.values() if h > 0)} for t in TOOLS}
    return {"suite": suite, "agree": agree, "totals": totals, "differences": differences}


def markdown(results: list[dict]) -> str:
    out = ["| suite | lines (dotcov / coverlet / MS) | covered (dotcov / coverlet / MS) | all three agree: covered + missed "
           "| lines that differ |", "|---|---|---|---|---|"]
    for r in results:
        t = r["totals"]
        out.append(f"| {r['suite']} | {t['dotcov']['lines']} / {t['coverlet']['lines']} / {t['ms']['lines']} | "
                   f"{t['dotcov']['covered']} / {t['coverlet']['covered']} / {t['ms']['covered']} | "
                   f"{r['agree']['covered']} + {r['agree']['missed']} | {len(r['differences'])} |")
    out += ["", "| file:line | dotcov | coverlet | Microsoft | source |", "|---|---|---|---|---|"]
    for r in results:
        for d in r["differences"]:
            src = d["source"].replace("|", "\\|")
            out.append(f"| {d['file']}:{d['line']} | {d['dotcov']} | {d['coverlet']} | {d['ms']} | `{src}` |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="Calc,FsCalc,TextKit")
    ap.add_argument("--build", action="store_true", help="build All.sln (Debug) first")
    ap.add_argument("--keep", type=Path, help="keep the three tools' output under this directory")
    args = ap.parse_args()
    env = dotnet_env()
    if args.build:
        subprocess.run(["dotnet", "build", "All.sln", "-nologo", "-v", "quiet", "-clp:ErrorsOnly"], cwd=SAMPLES,
                       env=env, check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="dotcov-accuracy-") as tmp:
        work = args.keep or Path(tmp)
        results = [compare(s, env, work) for s in args.suites.split(",") if s]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "accuracy.json").write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))


if __name__ == "__main__":
    main()
