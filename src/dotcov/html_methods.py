"""The rows of the HTML report's method pages: every method with its coverage, complexity and CRAP
(methods.html), and the risk hotspots among them (hotspots.html).

A hotspot is what ReportGenerator calls one, with its default thresholds: a method whose CRAP score (as
ReportGenerator shows it, a whole number) is above 30 or whose cyclomatic complexity is above 15. Hotspots
are listed by CRAP score, highest first. Numbers come from the analysis (analysis.MethodAnalysis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from dotcov.analysis import FileAnalysis, MethodAnalysis, crap_shown
from dotcov.output import display_percent, percent

CRAP_THRESHOLD = 30
COMPLEXITY_THRESHOLD = 15


@dataclass(slots=True)  # ~70,000 of them at a million statements
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


def _row(order: int, class_name: str, m: MethodAnalysis, file_name: str, page: str, precision: int,
         shown: dict) -> MethodRow:
    n = m.numbers
    crap = m.crap
    # A percentage is a function of its two counts, and methods share a few sizes: each shown once.
    cover = shown.get((n.covered, n.statements))
    if cover is None:
        cover = shown[n.covered, n.statements] = display_percent(n.percent, precision)
    branch_cover = shown.get((n.branches_covered, n.branches))
    if branch_cover is None:
        branch_cover = shown[n.branches_covered, n.branches] = display_percent(n.branch_percent, precision)
    return MethodRow(
        order=order, class_name=class_name, name=f"{m.name}{m.signature}", file_name=file_name,
        href=f"{page}#L{m.first_line}", statements=n.statements, covered=n.covered,
        cover=cover, pc=n.percent,
        branches=n.branches, branches_covered=n.branches_covered,
        branch_cover=branch_cover, bpc=percent(n.branches_covered, n.branches),
        complexity=n.complexity, crap=crap, crap_shown=crap_shown(crap))


def method_rows(files: list[tuple[FileAnalysis, str, str]], precision: int = 0) -> list[MethodRow]:
    """Every method of `files` ((analysis, display name, page) in display order) once, in file, class and
    line order."""
    rows: list[MethodRow] = []
    shown: dict[tuple[int, int], str] = {}
    for fa, name, page in files:
        for c in fa.classes:
            for m in c.methods:
                rows.append(_row(len(rows), c.name, m, name, page, precision, shown))
    return rows


def hotspots(rows: list[MethodRow]) -> list[MethodRow]:
    """The risk hotspots, highest CRAP first (then complexity, then the methods' order)."""
    return sorted((r for r in rows if r.hotspot), key=lambda r: (-r.crap, -r.complexity, r.order))


def row_chunks(rows: list[MethodRow], has_branches: bool, wrap_name: Callable[[str], str],
               chunk: int = 2000) -> Iterator[str]:
    """The <tbody> rows of a method page, `chunk` rows to a string. Built here rather than by a loop in
    methods.html: at a million statements there are ~70,000 methods, and the template loop was most of the
    page's time; yielded in pieces so the page is written as it is made, never held whole (html.py).
    `wrap_name` marks a name's line-break points (html.wrap_name). Class names, method names and the
    numbers repeat (methods of one shape), so each cell is made once and looked up after."""
    class_cells: dict[str, str] = {}
    name_cells: dict[str, tuple[str, str]] = {}  # method name -> (data-sort attribute, wrapped name)
    titles: dict[str, str] = {}  # file name -> escaped
    tails: dict[tuple, str] = {}  # the number cells, by the numbers
    out: list[str] = []
    append = out.append
    for i, r in enumerate(rows):
        cls = class_cells.get(r.class_name)
        if cls is None:
            cls = class_cells[r.class_name] = (f'  <td class="name" data-sort="{_escape(r.class_name)}">'
                                               f'{wrap_name(r.class_name)}</td>\n')
        name = name_cells.get(r.name)
        if name is None:
            name = name_cells[r.name] = (_escape(r.name), wrap_name(r.name))
        file_name = titles.get(r.file_name)
        if file_name is None:
            file_name = titles[r.file_name] = _escape(r.file_name)
        key = (r.statements, r.branches, r.bpc, r.branch_cover, r.pc, r.cover, r.complexity, r.crap,
               r.crap_shown)
        tail = tails.get(key)
        if tail is None:
            tail = tails[key] = _number_cells(r, has_branches)
        append(f'<tr class="method{" hot" if r.hotspot else ""}" data-order="{i}">\n{cls}'
               f'  <td class="name" data-sort="{name[0]}"><a href="{_escape(r.href)}" '
               f'title="{file_name}">{name[1]}</a></td>\n{tail}')
        if len(out) >= chunk:
            yield "".join(out)
            out.clear()
    if out:
        yield "".join(out)


def _number_cells(r: MethodRow, has_branches: bool) -> str:
    if not has_branches:
        branch = ""
    elif r.branches:
        branch = f'  <td class="num" data-sort="{r.bpc}">{r.branch_cover}%</td>\n'
    else:
        branch = '  <td class="num none" data-sort="-1" title="no branches">&mdash;</td>\n'
    return (f'  <td class="num" data-sort="{r.statements}">{r.statements}</td>\n'
            f'{branch}'
            f'  <td class="num cov" data-sort="{r.pc}"><span class="bar" aria-hidden="true"><span style="width: '
            f'{r.pc:.1f}%"></span></span>{r.cover}%</td>\n'
            f'  <td class="num" data-sort="{r.complexity}">{r.complexity}</td>\n'
            f'  <td class="num crap" data-sort="{r.crap:.4f}" title="{r.crap:.2f}">{r.crap_shown}</td>\n'
            '</tr>\n')


def _escape(text: str) -> str:
    """As Jinja's autoescape (markupsafe) writes text, without making a Markup object of each."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
            .replace("'", "&#39;"))
