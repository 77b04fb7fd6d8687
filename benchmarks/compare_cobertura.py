#!/usr/bin/env python3
"""Line verdicts and branch counts of two Cobertura files of the same run, line by line.

    .venv/bin/python benchmarks/compare_cobertura.py DOTCOV.xml OTHER.xml [--under DIR] [--json FILE]

For comparing dotcov with coverlet (or any Cobertura producer) on a real library's suite: run the suite once
under each tool, write each tool's Cobertura, then point this at the two files. Prints the number of lines both
call covered / missed, every line where the verdicts differ, and every line whose branch counts (covered/total
from `condition-coverage`) differ, each with its source text. Python 3 standard library only; builds and runs
nothing. docs/accuracy.md shows how it was used.
"""

from __future__ import annotations

import argparse
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

_CONDITION = re.compile(r"\((\d+)/(\d+)\)")


def read(xml: Path) -> dict[str, dict[int, tuple[int, tuple[int, int] | None]]]:
    """path -> line -> (hits, (branches covered, branches) or None); a line in several classes adds up."""
    root = ET.parse(xml).getroot()
    sources = [Path(s.text.strip()) for s in root.iter("source") if s.text and s.text.strip()]
    out: dict[str, dict[int, tuple[int, tuple[int, int] | None]]] = {}
    for cls in root.iter("class"):
        name = cls.get("filename", "")
        path = Path(name)
        if not path.is_absolute():
            path = next((s / name for s in sources if (s / name).exists()), sources[0] / name if sources else path)
        into = out.setdefault(str(path.resolve()), {})
        lines = cls.find("lines")
        for line in (lines.iter("line") if lines is not None else ()):
            n = int(line.get("number"))
            hits = int(line.get("hits"))
            m = _CONDITION.search(line.get("condition-coverage", "")) if line.get("branch") == "True" else None
            branch = (int(m.group(1)), int(m.group(2))) if m else None
            old_hits, old_branch = into.get(n, (0, None))
            if old_branch and branch:  # the same line in two classes (e.g. a lambda's): most covered wins
                branch = max(branch, old_branch)
            into[n] = (max(hits, old_hits), branch or old_branch)
    return out


def verdict(lines: dict, n: int) -> str:
    return "absent" if n not in lines else ("covered" if lines[n][0] > 0 else "missed")


def compare(a: dict, b: dict, under: Path | None) -> dict:
    files = sorted(p for p in set(a) | set(b) if under is None or Path(p).is_relative_to(under))
    agree = {"covered": 0, "missed": 0}
    lines_differ, branches_differ = [], []
    branch_totals = {"a": [0, 0], "b": [0, 0]}
    for path in files:
        la, lb = a.get(path, {}), b.get(path, {})
        source = Path(path).read_text(errors="replace").splitlines() if Path(path).exists() else []
        name = str(Path(path).relative_to(under)) if under else path
        for n in sorted(set(la) | set(lb)):
            text = source[n - 1].strip() if 0 < n <= len(source) else ""
            va, vb = verdict(la, n), verdict(lb, n)
            if va == vb:
                if va != "absent":
                    agree[va] += 1
            else:
                lines_differ.append({"file": name, "line": n, "a": va, "b": vb, "source": text})
            ba = la.get(n, (0, None))[1]
            bb = lb.get(n, (0, None))[1]
            for key, br in (("a", ba), ("b", bb)):
                if br:
                    branch_totals[key][0] += br[0]
                    branch_totals[key][1] += br[1]
            if ba != bb:
                branches_differ.append({"file": name, "line": n, "a": list(ba) if ba else None,
                                        "b": list(bb) if bb else None, "source": text})
    return {"agree": agree, "lines_differ": lines_differ, "branches_differ": branches_differ,
            "branch_totals": branch_totals,
            "lines": {"a": sum(len(v) for p, v in a.items() if p in files),
                      "b": sum(len(v) for p, v in b.items() if p in files)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="dotcov's Cobertura")
    ap.add_argument("b", type=Path, help="the other tool's Cobertura")
    ap.add_argument("--under", type=Path, help="only source files under this directory (paths shown relative)")
    ap.add_argument("--json", type=Path, help="also write the comparison as JSON")
    args = ap.parse_args()
    r = compare(read(args.a), read(args.b), args.under.resolve() if args.under else None)
    print(f"lines: {r['lines']['a']} / {r['lines']['b']}; verdicts agree on {r['agree']['covered']} covered + "
          f"{r['agree']['missed']} missed; differ on {len(r['lines_differ'])}")
    ta, tb = r["branch_totals"]["a"], r["branch_totals"]["b"]
    print(f"branch outcomes covered/total: {ta[0]}/{ta[1]} / {tb[0]}/{tb[1]}; "
          f"lines whose branch counts differ: {len(r['branches_differ'])}")
    for d in r["lines_differ"]:
        print(f"line    {d['file']}:{d['line']}\t{d['a']}\t{d['b']}\t{d['source']}")
    for d in r["branches_differ"]:
        fmt = lambda x: "-" if x is None else f"{x[0]}/{x[1]}"  # noqa: E731
        print(f"branch  {d['file']}:{d['line']}\t{fmt(d['a'])}\t{fmt(d['b'])}\t{d['source']}")
    if args.json:
        args.json.write_text(json.dumps(r, indent=1) + "\n")


if __name__ == "__main__":
    main()
