"""The rows of the HTML report's method pages: every method with its coverage, complexity and CRAP
(methods.html), and the risk hotspots among them (hotspots.html).

A hotspot is what ReportGenerator calls one, with its default thresholds: a method whose CRAP score (as
ReportGenerator shows it, a whole number) is above 30 or whose cyclomatic complexity is above 15. Hotspots
are listed by CRAP score, highest first. Numbers come from the analysis (analysis.MethodAnalysis).
"""

from __future__ import annotations

from dataclasses import dataclass

from dotcov.analysis import FileAnalysis, MethodAnalysis, crap_shown
from dotcov.output import display_percent, percent

CRAP_THRESHOLD = 30
COMPLEXITY_THRESHOLD = 15


@dataclass
class MethodRow:
    order: int  # position in file, class and line order
    class_name: str
    name: str  # method name and signature
    file_name: str  # the file's display name
    href: str  # its page, at the method's first line
    statements: int
    covered: int
    cover: str  # display percent
    pc: float
    branches: int
    branches_covered: int
    branch_cover: str
    bpc: float
    complexity: int
    crap: float
    crap_shown: int

    @property
    def hotspot(self) -> bool:
        return self.crap_shown > CRAP_THRESHOLD or self.complexity > COMPLEXITY_THRESHOLD


def _row(order: int, class_name: str, m: MethodAnalysis, file_name: str, page: str, precision: int) -> MethodRow:
    n = m.numbers
    return MethodRow(
        order=order, class_name=class_name, name=f"{m.name}{m.signature}", file_name=file_name,
        href=f"{page}#L{m.first_line}", statements=n.statements, covered=n.covered,
        cover=display_percent(n.percent, precision), pc=n.percent,
        branches=n.branches, branches_covered=n.branches_covered,
        branch_cover=display_percent(n.branch_percent, precision), bpc=percent(n.branches_covered, n.branches),
        complexity=m.complexity, crap=m.crap, crap_shown=crap_shown(m.crap))


def method_rows(files: list[tuple[FileAnalysis, str, str]], precision: int = 0) -> list[MethodRow]:
    """Every method of `files` ((analysis, display name, page) in display order) once, in file, class and
    line order."""
    rows: list[MethodRow] = []
    for fa, name, page in files:
        for c in fa.classes:
            for m in c.methods:
                rows.append(_row(len(rows), c.name, m, name, page, precision))
    return rows


def hotspots(rows: list[MethodRow]) -> list[MethodRow]:
    """The risk hotspots, highest CRAP first (then complexity, then the methods' order)."""
    return sorted((r for r in rows if r.hotspot), key=lambda r: (-r.crap, -r.complexity, r.order))
