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

import re
import string
from dataclasses import dataclass
from pathlib import PurePath

from dotcov.model import CoverageResult, FileCoverage

SORT_KEYS = ("name", "stmts", "miss", "cover")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DIGITS = re.compile(r"(\d+)")


# --- numbers -----------------------------------------------------------------

def percent(covered: int, total: int) -> float:
    """Covered share in percent; nothing to cover counts as fully covered (as coverage.py)."""
    return 100.0 * covered / total if total else 100.0


def display_percent(pc: float, precision: int = 0) -> str:
    """`pc` with `precision` decimals, never rounded up to 100 nor down to 0.

    coverage.py's rule: a value strictly between 0 and the smallest step shows as
    that step (1/1000 -> "1"), one strictly between 100 minus a step and 100 shows as
    100 minus a step (199/200 -> "99"); anything else is rounded to `precision`.
    """
    step = 1.0 / 10**precision
    if 0 < pc < step:
        pc = step
    elif 100.0 - step < pc < 100.0:
        pc = 100.0 - step
    else:
        pc = round(pc, precision)
    return f"{pc:.{precision}f}"


def total_percent(result: CoverageResult) -> float:
    """Line coverage of every source file together, in percent, unrounded (100.0 if no statements)."""
    files = result.all_files()
    statements = sum(f.statements for f in files)
    covered = sum(f.covered for f in files)
    return percent(covered, statements)


def format_ranges(statements, missed) -> str:
    """Missed lines as coverage.py shows them: `12-14, 20`.

    A range runs over consecutive *statements* that were all missed, so lines that are
    not statements (blank lines, comments, braces) do not break it.
    """
    missed = set(missed)
    parts: list[str] = []
    start = end = None
    for line in sorted(set(statements) | missed):
        if line in missed:
            if start is None:
                start = line
            end = line
        elif start is not None:
            parts.append(_range(start, end))
            start = None
    if start is not None:
        parts.append(_range(start, end))
    return ", ".join(parts)


def _range(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"


# --- paths -------------------------------------------------------------------

def relative_path(path: str, root: str | None) -> str:
    """`path` relative to `root` with `/` separators, or `path` itself (with `/`) when outside `root`."""
    p = PurePath(path)
    if root:
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            pass
    return p.as_posix()


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
    missing: str
    branches: int = 0  # branch outcomes
    partial: int = 0  # lines with some outcomes never taken

    @property
    def covered(self) -> int:
        return self.statements - self.missed


@dataclass(frozen=True)
class Summary:
    rows: list[Row]
    total: Row
    skipped_covered: int
    skipped_empty: int


def _row(fc: FileCoverage, name: str) -> Row:
    return Row(
        name=name,
        statements=fc.statements,
        missed=fc.missed,
        percent=percent(fc.covered, fc.statements),
        missing=format_ranges(fc.lines, fc.missed_lines()),
        branches=sum(b.total for b in fc.branches.values()),
        partial=sum(1 for b in fc.branches.values() if b.covered < b.total),
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


def summarize(result: CoverageResult, *, skip_covered: bool = False, skip_empty: bool = False,
              sort: str | None = None, relative_to: str | None = None) -> Summary:
    """The rows of the table, sorted, and the total (which always counts every file, skipped or not)."""
    key, reverse = _parse_sort(sort)
    root = relative_to if relative_to is not None else result.source_root
    rows: list[Row] = []
    statements = missed = branch_total = partial = 0
    skipped_covered = skipped_empty = 0
    for fc in result.all_files():
        statements += fc.statements
        missed += fc.missed
        branch_total += sum(b.total for b in fc.branches.values())
        partial += sum(1 for b in fc.branches.values() if b.covered < b.total)
        if skip_covered and fc.missed == 0:
            skipped_covered += 1  # as coverage.py: an empty file has nothing missed, so it counts here
        elif skip_empty and fc.statements == 0:
            skipped_empty += 1
        else:
            rows.append(_row(fc, _CONTROL.sub("?", relative_path(fc.path, root))))
    if key == "name":
        rows.sort(key=lambda r: _human_key(r.name), reverse=reverse)
    else:
        attr = {"stmts": "statements", "miss": "missed", "cover": "percent"}[key]
        rows.sort(key=lambda r: (getattr(r, attr), _human_key(r.name)), reverse=reverse)
    total = Row("TOTAL", statements, missed, percent(statements - missed, statements), "", branch_total, partial)
    return Summary(rows, total, skipped_covered, skipped_empty)


def _end_lines(summary: Summary) -> list[str]:
    lines = []
    if summary.skipped_covered:
        lines += ["", f"{_plural(summary.skipped_covered, 'file')} skipped due to complete coverage."]
    if summary.skipped_empty:
        lines += ["", f"{_plural(summary.skipped_empty, 'empty file')} skipped."]
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
    header = ["Name", "Stmts", "Miss", "Cover"] + (["Missing"] if show_missing else [])
    right = [False, True, True, True] + ([False] if show_missing else [])
    body = []
    for row in summary.rows:
        cells = [escape_markdown(row.name), str(row.statements), str(row.missed),
                 display_percent(row.percent, precision) + "%"]
        if show_missing:
            cells.append(row.missing)
        body.append(cells)
    total = [f"**{v}**" for v in ("TOTAL", summary.total.statements, summary.total.missed,
                                  display_percent(summary.total.percent, precision) + "%")]
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
