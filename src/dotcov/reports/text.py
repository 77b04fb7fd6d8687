"""The summary table, in coverage.py's layout (text) and as a GitHub-flavoured markdown table.

The text table keeps coverage.py's columns and widths so that tools and habits built
around `coverage report` (GitLab's `^TOTAL.+?(\\d+\\%)$` coverage regex among them)
work unchanged:

    Name              Stmts   Miss  Cover   Missing
    -----------------------------------------------
    src/Calculator.cs    12      3    75%   12-14
    -----------------------------------------------
    TOTAL                12      3    75%

Percentages follow coverage.py's display rule: a total that is not 100% never shows
as 100%, and one that is not 0% never shows as 0%.
"""

from __future__ import annotations

import os
import re
import string
from dataclasses import dataclass, field
from functools import cached_property

from dotcov.analysis.numbers import Analysis, FileAnalysis
from dotcov.analysis.model import CoverageResult
from dotcov.analysis.numbers import format_ranges, percent
from dotcov.analysis.paths import display_path, relative_path
from dotcov.reports.output import display_percent

__all__ = ["SORT_KEYS", "percent", "display_percent", "relative_path", "total_percent", "format_ranges",
           "Row", "Summary", "summarize", "render_table", "render_markdown", "escape_markdown", "print_table"]

SORT_KEYS = ("name", "stmts", "miss", "cover")

_DIGITS = re.compile(r"(\d+)")


# --- numbers -----------------------------------------------------------------

def total_percent(result: CoverageResult | Analysis) -> float:
    """Line coverage of every source file together, in percent, unrounded (100.0 if no statements)."""
    return Analysis.of(result).totals.percent


def _human_key(name: str):
    """Sorts `File2` before `File10` (coverage.py sorts names the same way)."""
    return ([int(part) if part.isdigit() else part for part in _DIGITS.split(name)], name)


# --- rows --------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    name: str
    statements: int
    missed: int
    percent: float
    file: FileAnalysis | None = field(repr=False, compare=False)  # None for the total
    branches: int = 0  # branch outcomes
    partial: int = 0  # lines with some outcomes never taken

    @cached_property
    def missing(self) -> str:
        """The missed lines as ranges (made only for a table that shows them)."""
        return self.file.missing() if self.file is not None else ""

    @property
    def covered(self) -> int:
        return self.statements - self.missed


@dataclass(frozen=True)
class Summary:
    rows: list[Row]
    total: Row
    skipped_covered: int
    skipped_empty: int
    notes: tuple[str, ...] = ()  # lines not measured and why; warnings every report carries


def _row(f: FileAnalysis, name: str) -> Row:
    n = f.numbers
    return Row(
        name=name,
        statements=n.statements,
        missed=n.missed,
        percent=n.percent,
        file=f,
        branches=n.branches,
        partial=n.partial,
    )


def _parse_sort(sort: str | None) -> tuple[str, bool]:
    key = (sort or "name").strip().lower()
    reverse = False
    if key[:1] in ("-", "+"):
        reverse = key[0] == "-"
        key = key[1:]
    if key not in SORT_KEYS:
        raise ValueError(f"invalid sort {sort!r}: use one of {', '.join(SORT_KEYS)}, optionally prefixed with '-'")
    return key, reverse


def summarize(result: CoverageResult | Analysis, *, skip_covered: bool = False, skip_empty: bool = False,
              sort: str | None = None, relative_to: str | None = None) -> Summary:
    """The rows of the table, sorted, and the total (which always counts every file, skipped or not).

    `skip_covered` leaves out files with nothing missed: no statement and no branch outcome
    (a file with a partial line stays)."""
    key, reverse = _parse_sort(sort)
    analysis = Analysis.of(result)
    root = relative_to if relative_to is not None else analysis.source_root
    rows: list[Row] = []
    skipped_covered = skipped_empty = 0
    for f in analysis.files:
        if skip_covered and f.numbers.complete:
            skipped_covered += 1  # as coverage.py: an empty file has nothing missed, so it counts here
        elif skip_empty and f.numbers.statements == 0:
            skipped_empty += 1
        else:
            rows.append(_row(f, display_path(f.path, root)))
    if key == "name":
        rows.sort(key=lambda r: _human_key(r.name), reverse=reverse)
    else:
        attr = {"stmts": "statements", "miss": "missed", "cover": "percent"}[key]
        rows.sort(key=lambda r: (getattr(r, attr), _human_key(r.name)), reverse=reverse)
    t = analysis.totals
    total = Row("TOTAL", t.statements, t.missed, t.percent, None, t.branches, t.partial)
    notes = tuple(analysis.notes(root))
    return Summary(rows, total, skipped_covered, skipped_empty, notes)


def _end_lines(summary: Summary) -> list[str]:
    lines = []
    if summary.skipped_covered:
        lines += ["", f"{_plural(summary.skipped_covered, 'file')} skipped due to complete coverage."]
    if summary.skipped_empty:
        lines += ["", f"{_plural(summary.skipped_empty, 'empty file')} skipped."]
    if summary.notes:
        lines += [""] + list(summary.notes)
    return lines


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_precision(precision: int) -> None:
    if not isinstance(precision, int) or precision < 0:
        raise ValueError(f"precision must be a non-negative integer, not {precision!r}")


# --- text --------------------------------------------------------------------

def render_table(result: CoverageResult, *, show_missing: bool = False, skip_covered: bool = False,
                 skip_empty: bool = False, precision: int = 0, sort: str | None = None,
                 relative_to: str | None = None) -> str:
    """coverage.py's `report` table (no trailing newline).

    `sort` is one of name, stmts, miss, cover, with a `-` prefix for descending; `relative_to`
    defaults to `result.source_root`. Raises ValueError for a bad `sort` or `precision`.
    """
    _check_precision(precision)
    summary = summarize(result, skip_covered=skip_covered, skip_empty=skip_empty, sort=sort,
                        relative_to=relative_to)
    covers = [display_percent(r.percent, precision) for r in summary.rows]
    total_cover = display_percent(summary.total.percent, precision)

    name_w = max([len(r.name) for r in summary.rows] + [len("TOTAL")]) + 1
    # The Cover column holds "NN%" right-aligned: at least " Cover" plus a space, and (as
    # coverage.py) one more space before the total's percentage than before the others'.
    cover_w = max([len(" Cover") + 1, len(total_cover) + 3] + [len(c) + 2 for c in covers])

    # Branch and BrPart (coverage.py's columns) appear when the data has branch outcomes.
    with_branches = summary.total.branches > 0

    def line(name, stmts, miss, cover, missing=None, branch="", brpart="") -> str:
        text = f"{name:<{name_w}}{stmts:>7}{miss:>7}"
        if with_branches:
            text += f"{branch:>7}{brpart:>7}"
        text += f"{cover:>{cover_w}}"
        if missing is not None:
            text += missing
        return text.rstrip()

    header = line("Name", "Stmts", "Miss", "Cover", f"{'Missing':>10}" if show_missing else None, "Branch", "BrPart")
    rule = "-" * len(header)
    out = [header, rule]
    for row, cover in zip(summary.rows, covers):
        out.append(line(row.name, row.statements, row.missed, cover + "%",
                        f"   {row.missing}" if show_missing else None, row.branches, row.partial))
    if summary.rows:
        out.append(rule)
    out.append(line("TOTAL", summary.total.statements, summary.total.missed, total_cover + "%", None,
                    summary.total.branches, summary.total.partial))
    out += _end_lines(summary)
    return "\n".join(out)


# --- markdown ----------------------------------------------------------------

# Every ASCII punctuation character may be backslash-escaped in CommonMark/GFM; leave the
# ones common in paths and harmless in a table alone so names stay readable.
_MD_ESCAPES = str.maketrans({c: "\\" + c for c in string.punctuation if c not in ".,/-:@"})


def escape_markdown(text: str) -> str:
    return text.translate(_MD_ESCAPES)


def render_markdown(result: CoverageResult, *, show_missing: bool = False, skip_covered: bool = False,
                    skip_empty: bool = False, precision: int = 0, sort: str | None = None,
                    relative_to: str | None = None) -> str:
    """The same rows as `render_table`, as a GitHub-flavoured markdown table (for job summaries)."""
    _check_precision(precision)
    summary = summarize(result, skip_covered=skip_covered, skip_empty=skip_empty, sort=sort,
                        relative_to=relative_to)
    with_branches = summary.total.branches > 0  # as the text table: coverage.py's Branch and BrPart
    header = ["Name", "Stmts", "Miss"] + (["Branch", "BrPart"] if with_branches else []) + ["Cover"] \
        + (["Missing"] if show_missing else [])
    right = [False] + [True] * (len(header) - 1 - int(show_missing)) + ([False] if show_missing else [])
    body = []
    for row in summary.rows:
        cells = [escape_markdown(row.name), str(row.statements), str(row.missed)]
        if with_branches:
            cells += [str(row.branches), str(row.partial)]
        cells.append(display_percent(row.percent, precision) + "%")
        if show_missing:
            cells.append(row.missing)
        body.append(cells)
    t = summary.total
    total = ["TOTAL", t.statements, t.missed] + ([t.branches, t.partial] if with_branches else []) \
        + [display_percent(t.percent, precision) + "%"]
    total = [f"**{v}**" for v in total]
    if show_missing:
        total.append("")
    body.append(total)

    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    widths = [max(w, 4) for w in widths]  # room for the "---:" alignment marks

    def line(cells) -> str:
        return "| " + " | ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else (":" + "-" * (w - 1))
                             for w, r in zip(widths, right)) + " |"
    out = [line(header), rule] + [line(cells) for cells in body]
    out += _end_lines(summary)
    return "\n".join(out)


# --- terminal ------------------------------------------------------------------

_PERCENT = re.compile(r"(?<=\s)(\d+(?:\.\d+)?)%(?=\s|$)")


def print_table(result: CoverageResult | Analysis, out, *, color: bool | None = None, **kwargs) -> None:
    """`render_table` written to `out`; on a terminal (unless NO_COLOR is set) rich colours each
    row's percentage: green when nothing is missed, red otherwise. The characters are the same."""
    text = render_table(result, **kwargs)
    if color is None:
        color = bool(getattr(out, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")
    if not color:
        out.write(text + "\n")
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(file=out, force_terminal=True, highlight=False, soft_wrap=True, emoji=False,
                      markup=False)
    for line in text.split("\n"):
        styled = Text(line)
        m = _PERCENT.search(line)
        if m is not None:
            full = float(m.group(1)) >= 100.0
            styled.stylize("bold green" if full else "bold red", m.start(), m.end())
        console.print(styled)
