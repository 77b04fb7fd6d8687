"""`--fail-under`: line, branch and method coverage against minimums, in total or per assembly."""

from __future__ import annotations

from dotcov.analysis.numbers import Analysis, Numbers
from dotcov.analysis.model import AssemblyCoverage, CoverageResult

KINDS = ("line", "branch", "method")


def percentages(numbers: Numbers | list[AssemblyCoverage]) -> dict[str, float | None]:
    """Coverage percent of each kind (of `numbers`, or of these assemblies together); None when there
    is nothing of that kind to cover."""
    if not isinstance(numbers, Numbers):
        numbers = Analysis.of(CoverageResult(list(numbers))).totals
    return {
        "line": numbers.percent if numbers.statements else None,
        "branch": numbers.branch_percent if numbers.branches else None,
        "method": numbers.method_percent if numbers.methods else None,
    }


def check(result: CoverageResult | Analysis, minimums: dict[str, float], scope: str = "total") -> list[str]:
    """Messages for every minimum not met (empty when all are)."""
    analysis = Analysis.of(result)
    if scope == "total":
        groups = [("total", analysis.totals)]
    else:
        groups = [(a.name, a.numbers) for a in analysis.assemblies]
    failures = []
    for name, numbers in groups:
        got = percentages(numbers)
        for kind, minimum in minimums.items():
            value = got[kind]
            if value is not None and value < minimum:
                where = "total" if scope == "total" else f"assembly {name}"
                failures.append(f"{where} {kind} coverage {value:.2f}% is below --fail-under={minimum:g}")
    return failures
