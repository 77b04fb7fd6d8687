"""`--fail-under`: line, branch and method coverage against minimums, in total or per assembly."""

from __future__ import annotations

from dotcov.model import AssemblyCoverage, CoverageResult

KINDS = ("line", "branch", "method")


def _files(assemblies: list[AssemblyCoverage]):
    merged: dict[str, dict[int, int]] = {}
    branches: dict[str, dict[int, tuple[int, int]]] = {}
    for asm in assemblies:
        for path, fc in asm.files.items():
            lines = merged.setdefault(path, {})
            for n, h in fc.lines.items():
                lines[n] = lines.get(n, 0) + h
            for n, b in fc.branches.items():
                branches.setdefault(path, {})[n] = (b.covered, b.total)
    return merged, branches


def percentages(assemblies: list[AssemblyCoverage]) -> dict[str, float | None]:
    """Coverage percent of each kind; None when there is nothing of that kind to cover."""
    lines, branches = _files(assemblies)
    statements = sum(len(v) for v in lines.values())
    covered = sum(1 for v in lines.values() for h in v.values() if h)
    outcomes = sum(t for v in branches.values() for _c, t in v.values())
    taken = sum(c for v in branches.values() for c, _t in v.values())
    methods = [m for asm in assemblies for cls in asm.classes for m in cls.methods if m.lines]
    hit_methods = sum(1 for m in methods if any(h for h in m.lines.values()))
    return {
        "line": 100.0 * covered / statements if statements else None,
        "branch": 100.0 * taken / outcomes if outcomes else None,
        "method": 100.0 * hit_methods / len(methods) if methods else None,
    }


def check(result: CoverageResult, minimums: dict[str, float], scope: str = "total") -> list[str]:
    """Messages for every minimum not met (empty when all are)."""
    groups = [("total", result.assemblies)] if scope == "total" else [(a.name, [a]) for a in result.assemblies]
    failures = []
    for name, assemblies in groups:
        got = percentages(assemblies)
        for kind, minimum in minimums.items():
            value = got[kind]
            if value is not None and value < minimum:
                where = "total" if scope == "total" else f"assembly {name}"
                failures.append(f"{where} {kind} coverage {value:.2f}% is below --fail-under={minimum:g}")
    return failures
