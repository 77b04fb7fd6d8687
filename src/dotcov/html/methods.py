"""The rows of the HTML report's method pages: every method with its coverage, complexity and CRAP
(methods.html), and the risk hotspots among them (hotspots.html).

A hotspot is what ReportGenerator calls one, with its default thresholds: a method whose CRAP score (as
ReportGenerator shows it, a whole number) is above 30 or whose cyclomatic complexity is above 15. Hotspots
are listed by CRAP score, highest first. Numbers come from the analysis (each class's `method_table`: columns, no
object per method).

Speed: at a million statements there are ~70,000 methods. Their rows are made in one pass (`method_table`)
as a few references each: the cells of a class, a method name and a file are made once, and the number
cells once per (statements, covered, branch outcomes, outcomes covered, complexity), which is all they
depend on. The pages' HTML is made from them in pieces as it is written (`MethodTable.chunks`), never held
whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

from markupsafe import escape

from dotcov.analysis.numbers import FileAnalysis, crap_score, crap_shown
from dotcov.analysis.numbers import percent
from dotcov.reports.output import display_percent

CRAP_THRESHOLD = 30
COMPLEXITY_THRESHOLD = 15


@dataclass(slots=True)
class _Shape:
    """What a method's number cells show, shared by every method with the same counts."""
    cells: str  # the number cells, to the row's end
    cover: str  # display percent
    hot: bool
    crap: float
    complexity: int


@dataclass
class MethodTable:
    """Every method's row (in file, class and line order) and the risk hotspots among them."""
    # (class cell, name's data-sort, href, file title, shape, wrapped name, a member C# generated for a record)
    rows: list[tuple[str, str, str, str, _Shape, str, bool]] = field(default_factory=list)
    covers: list[str] = field(default_factory=list)  # each row's display cover (the search index shows them)
    hot: list[int] = field(default_factory=list)  # indexes of the hotspot rows, highest CRAP first
    record_members: int = 0  # rows of members C# generated for records: hidden until the page is asked to show them

    def __len__(self) -> int:
        return len(self.rows)

    def chunks(self, hotspots: bool = False, chunk: int = 2000) -> Iterator[str]:
        """The <tbody> rows of methods.html (or of hotspots.html), `chunk` rows to a string."""
        rows = self.rows
        out: list[str] = []
        append = out.append
        for i, r in enumerate(map(rows.__getitem__, self.hot) if hotspots else rows):
            shape = r[4]
            append(f'<tr class="method{" hot" if shape.hot else ""}{" record-member" if r[6] else ""}" '
                   f'data-order="{i}">\n{r[0]}'
                   f'  <td class="name" data-sort="{r[1]}"><a href="{r[2]}" title="{r[3]}">{r[5]}</a></td>\n'
                   f'{shape.cells}')
            if len(out) >= chunk:
                yield "".join(out)
                out.clear()
        if out:
            yield "".join(out)


def method_table(files: list[tuple[FileAnalysis, str, str]], precision: int, has_branches: bool,
                 wrap_name: Callable[[str], str]) -> MethodTable:
    """The rows of every method of `files` ((analysis, display name, page) in display order) once, in file,
    class and line order. `wrap_name` marks a name's line-break points (html.wrap_name)."""
    table = MethodTable()
    rows, covers = table.rows, table.covers
    names: dict[str, tuple[str, str]] = {}  # method name -> (data-sort attribute, wrapped name)
    shapes: dict[tuple[int, int, int, int, int], _Shape] = {}
    hot: list[tuple[float, int, int]] = []
    for fa, file_name, page in files:
        title = _escape(file_name)
        href = _escape(page) + "#L"
        for c in fa.classes:
            cls = f'  <td class="name" data-sort="{_escape(c.name)}">{wrap_name(c.name)}</td>\n'
            methods = c.method_table  # (columns: no object per method)
            for key, name, first, record_member in zip(zip(*methods.numbers()), methods.display_names(),
                                                       methods.first_lines(), methods.record_members):
                shape = shapes.get(key)
                if shape is None:
                    shape = shapes[key] = _shape(*key, precision, has_branches)
                cells = names.get(name)
                if cells is None:
                    cells = names[name] = (_escape(name), wrap_name(name))
                if shape.hot:
                    hot.append((-shape.crap, -shape.complexity, len(rows)))
                rows.append((cls, cells[0], f"{href}{first}", title, shape, cells[1], record_member))
                table.record_members += record_member
                covers.append(shape.cover)
    hot.sort()
    table.hot = [i for _crap, _complexity, i in hot]
    return table


def _shape(statements: int, covered: int, branches: int, branches_covered: int, complexity: int,
           precision: int, has_branches: bool) -> _Shape:
    pc = percent(covered, statements)
    crap = crap_score(complexity, covered, statements)
    if not has_branches:
        branch = ""
    elif branches:
        bpc = percent(branches_covered, branches)
        branch = f'  <td class="num" data-sort="{bpc}">{display_percent(bpc, precision)}%</td>\n'
    else:
        branch = '  <td class="num none" data-sort="-1" title="no branches">&mdash;</td>\n'
    cover = display_percent(pc, precision)
    cells = (f'  <td class="num" data-sort="{statements}">{statements}</td>\n'
             f'{branch}'
             f'  <td class="num cov" data-sort="{pc}"><span class="bar" aria-hidden="true"><span style="width: '
             f'{pc:.1f}%"></span></span>{cover}%</td>\n'
             f'  <td class="num" data-sort="{complexity}">{complexity}</td>\n'
             f'  <td class="num crap" data-sort="{crap:.4f}" title="{crap:.2f}">{crap_shown(crap)}</td>\n'
             '</tr>\n')
    return _Shape(cells, cover, crap_shown(crap) > CRAP_THRESHOLD or complexity > COMPLEXITY_THRESHOLD, crap,
                  complexity)


def _escape(text: str) -> str:
    """As Jinja's autoescape writes text in the templates around these rows: markupsafe's rule, not a copy of it."""
    return str(escape(text))
