"""Diff coverage: how many of the statement lines added or changed since a git revision the tests ran.

A changed line counts when it is a statement line of the coverage data (a line a sequence point spans, not
excluded); lines that are not statements (blank lines, comments, braces without a sequence point) and files the
data does not know are not counted. A file git does not track yet (and does not ignore) that the data knows is
wholly changed: every statement line of it counts, and the reports name it (`untracked`); files git does not track
that the data does not know are left out silently (scratch files, build outputs). Paths are relative to the git
repository root. With no changed statement line the diff coverage is 100%, as coverage.py counts nothing to cover
as fully covered.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from dotcov.data.gitdiff import Base
from dotcov.analysis.model import CoverageResult
from dotcov.reports.text import display_percent, escape_markdown, format_ranges, percent

PRECISION = 1  # decimals of the percentages people read (JSON keeps the exact value)


def statement_lines(result: CoverageResult) -> dict[str, dict[int, int]]:
    """The one reader of the report model here: absolute source path -> {statement line: hits}."""
    return {fc.path: dict(fc.lines) for fc in result.all_files()}


@dataclass
class FileDiff:
    path: str  # relative to the repository root, with `/`
    changed: list[int]  # changed statement lines
    missed: list[int]  # those of them no test ran
    source: dict[int, str] = field(default_factory=dict)  # missed line -> its text


@dataclass
class DiffCoverage:
    base: Base
    files: list[FileDiff]
    unknown: list[str]  # changed source files the coverage data does not know
    stale: list[str]  # changed files modified after the coverage data was written
    untracked: list[str] = field(default_factory=list)  # files of `files` git does not track yet (wholly changed)

    @property
    def changed(self) -> int:
        return sum(len(f.changed) for f in self.files)

    @property
    def missed(self) -> int:
        return sum(len(f.missed) for f in self.files)

    @property
    def percent(self) -> float:
        return percent(self.changed - self.missed, self.changed)


def compute(statements: dict[str, dict[int, int]], root: Path, changed: dict[str, set[int]], base: Base,
            data_time: float = 0.0, untracked: Iterable[str] = ()) -> DiffCoverage:
    """Joins the changed lines (repository-relative) with the statement lines (absolute paths).

    data_time, the newest data file's time, flags changed files edited since (their lines may have moved).
    untracked: repository-relative files git does not track yet (gitdiff.untracked_files); each the data knows
    counts as wholly changed."""
    root = Path(os.path.realpath(root))
    by_relative: dict[str, dict[int, int]] = {}
    for path, lines in statements.items():
        try:
            rel = Path(os.path.realpath(path)).relative_to(root).as_posix()
        except ValueError:
            continue  # outside this repository
        into = by_relative.setdefault(rel, {})
        for n, h in lines.items():
            into[n] = into.get(n, 0) + h
    known_suffixes = {PurePosixPath(p).suffix for p in by_relative} - {""}
    changed = dict(changed)
    new = {rel for rel in untracked if rel in by_relative and rel not in changed}
    for rel in new:
        changed[rel] = set(by_relative[rel])
    files, unknown, stale = [], [], []
    for rel in sorted(changed):
        lines = by_relative.get(rel)
        if lines is None:
            if PurePosixPath(rel).suffix in known_suffixes:
                unknown.append(rel)
            continue
        hit = sorted(n for n in changed[rel] if n in lines)
        if not hit:
            continue
        missed = [n for n in hit if lines[n] == 0]
        text = _source_lines(root / rel)
        files.append(FileDiff(rel, hit, missed, {n: text[n - 1] if n <= len(text) else "" for n in missed}))
        try:
            if data_time and (root / rel).stat().st_mtime > data_time + 1:
                stale.append(rel)
        except OSError:
            pass
    return DiffCoverage(base, files, unknown, stale, [f.path for f in files if f.path in new])


def _source_lines(path: Path) -> list[str]:
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    text = raw.decode("utf-8-sig", errors="replace")
    return [line.rstrip("\r") for line in text.split("\n")]


# --- rendering ---------------------------------------------------------------

def _cover(pc: float) -> str:
    return display_percent(pc, PRECISION) + "%"


def untracked_note(paths: list[str]) -> str:
    """The line naming the files git does not track yet that a report counts (empty when none)."""
    if not paths:
        return ""
    n = len(paths)
    return (f"Includes {n} file{'s' if n > 1 else ''} git does not track yet, every statement line counted as "
            f"changed (--exclude-untracked leaves {'them' if n > 1 else 'it'} out): " + ", ".join(paths))


def render_json(d: DiffCoverage) -> str:
    return json.dumps({"base": d.base.label, "percent": d.percent,
                       "files": [{"path": f.path, "changed": f.changed, "missed": f.missed} for f in d.files],
                       "untracked_files": d.untracked},
                      indent=2) + "\n"


def _notes(d: DiffCoverage) -> list[str]:
    notes = []
    if d.unknown:
        notes.append("Changed files the coverage data does not know (not counted): " + ", ".join(d.unknown))
    if d.stale:
        notes.append("Changed after the coverage data was written (line numbers may not match): "
                     + ", ".join(d.stale))
    return notes


def render_text(d: DiffCoverage) -> str:
    out = [f"Diff coverage since {d.base.described}"]
    if d.untracked:
        out.append(untracked_note(d.untracked))
    if not d.files:
        out.append("No statement line was added or changed: 100%")
        return "\n".join(out + _notes(d)) + "\n"
    rows = [(f.path, str(len(f.changed)), str(len(f.missed)), _cover(percent(len(f.changed) - len(f.missed),
             len(f.changed))), format_ranges(f.changed, f.missed)) for f in d.files]
    # Not "TOTAL": GitLab's coverage regex reads the last line starting with TOTAL as the project's coverage.
    total = ("DIFF TOTAL", str(d.changed), str(d.missed), _cover(d.percent), "")
    header = ("Name", "Changed", "Miss", "Cover", "Missing")
    widths = [max(len(r[i]) for r in [header, total, *rows]) for i in range(4)]

    def line(cells) -> str:
        name, *numbers, missing = cells
        text = name.ljust(widths[0]) + "".join("   " + c.rjust(w) for c, w in zip(numbers, widths[1:]))
        return (text + "   " + missing).rstrip()

    rule = "-" * len(line(header))
    out += [line(header), rule, *(line(r) for r in rows), rule, line(total)]
    if d.missed:
        out += ["", "Missed changed lines:"]
        out += [f"{f.path}:{n}: {f.source[n]}".rstrip() for f in d.files for n in f.missed]
    notes = _notes(d)
    return "\n".join(out + ([""] + notes if notes else [])) + "\n"


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in the text (CommonMark's rule for closing a fence)."""
    return "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))


def render_markdown(d: DiffCoverage) -> str:
    """A pull-request comment or GitHub job summary: headline, table, missed lines with their text."""
    base = escape_markdown(d.base.described)
    out = [f"### Diff coverage: {_cover(d.percent)}", ""]
    if d.untracked:
        out += [escape_markdown(untracked_note(d.untracked)), ""]
    if not d.files:
        out.append(f"No statement line was added or changed since {base}.")
    else:
        out += [f"{d.changed} statement lines added or changed since {base}: "
                f"{d.changed - d.missed} covered, {d.missed} missed.", "",
                "| File | Changed | Miss | Cover | Missing |", "| :--- | ---: | ---: | ---: | :--- |"]
        for f in d.files:
            pc = percent(len(f.changed) - len(f.missed), len(f.changed))
            out.append(f"| {escape_markdown(f.path)} | {len(f.changed)} | {len(f.missed)} | {_cover(pc)} | "
                       f"{format_ranges(f.changed, f.missed)} |")
        out.append(f"| **TOTAL** | **{d.changed}** | **{d.missed}** | **{_cover(d.percent)}** | |")
        if d.missed:
            out += ["", f"<details><summary>Missed changed lines ({d.missed})</summary>", ""]
            for f in d.files:
                if not f.missed:
                    continue
                code = "\n".join(f"{n}: {f.source[n]}".rstrip() for n in f.missed)
                fence = _fence(code)
                out += [f"**{escape_markdown(f.path)}**", "", fence, code, fence, ""]
            out.append("</details>")
    notes = _notes(d)
    if notes:
        out += [""] + [escape_markdown(n) for n in notes]
    return "\n".join(out) + "\n"


def _property(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(d: DiffCoverage) -> str:
    """GitHub Actions workflow commands: a warning per run of missed changed lines, a notice naming the files git
    does not track yet (when any counts), then a notice with the total."""
    out = []
    for f in d.files:
        for part in format_ranges(f.changed, f.missed).split(", ") if f.missed else []:
            start, _, end = part.partition("-")
            where = f"file={_property(f.path)},line={start}" + (f",endLine={end}" if end else "")
            what = f"line {start}" if not end else f"lines {start}-{end}"
            out.append(f"::warning {where},title=Not covered::Changed {what} not run by the tests")
    if d.untracked:
        out.append(f"::notice title=Untracked files::{_data(untracked_note(d.untracked))}")
    out.append(f"::notice title=Diff coverage::{_data(_cover(d.percent))} of {d.changed} changed statement lines "
               f"covered ({d.missed} missed) since {_data(d.base.described)}")
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json, "github": render_github}
