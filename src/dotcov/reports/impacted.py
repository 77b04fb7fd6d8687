"""Test impact: the tests whose recorded lines intersect the statement lines changed since a git revision.

The changed lines are `dotcov diff`'s (data/gitdiff.py: `git diff REV` against the working tree, the same default
base) and the same join with the coverage data (diff_coverage.compute: statement lines only, paths relative to the
repository root, files the data does not know, files git does not track yet counted as wholly changed). A changed statement line is "run by T" when the per-test
contexts say so (analysis/contexts.py: the tests that ran the points deciding the line). What no recorded test ran is
reported apart: those lines are not protected by running the impacted tests.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dotcov.reports.diff_coverage import FileDiff, compute, untracked_note
from dotcov.data.gitdiff import Base
from dotcov.analysis.numbers import format_ranges

# vstest's filter syntax: these characters in a value are escaped with a backslash (FilterHelper.Escape);
# a comma is written %2C, as Microsoft's `dotnet test --filter` documentation says (MSBuild passes the filter on).
_FILTER_SPECIAL = set("\\()&|=!~")


@dataclass
class Impact:
    base: Base
    tests: list[str]  # sorted
    changed: int  # changed statement lines
    untested: list[FileDiff]  # per file, the changed statement lines no recorded test ran (`missed`)
    unknown: list[str]  # changed source files the coverage data does not know
    stale: list[str]  # changed files modified after the coverage data was written
    untracked: list[str] = field(default_factory=list)  # counted files git does not track yet (wholly changed)

    @property
    def untested_lines(self) -> int:
        return sum(len(f.missed) for f in self.untested)


def compute_impact(line_tests: dict[str, dict[int, frozenset[str]]], statements: dict[str, set[int]], root: Path,
                   changed: dict[str, set[int]], base: Base, data_time: float = 0.0,
                   untracked: Iterable[str] = ()) -> Impact:
    """`line_tests`: absolute source path -> {line: the tests that ran it}; `statements`: absolute path -> its
    statement lines; `changed`: repository-relative path -> changed lines (gitdiff.changed_lines); `untracked`:
    files git does not track yet (gitdiff.untracked_files), wholly changed when the data knows them."""
    counts = {path: {n: len(line_tests.get(path, {}).get(n, ())) for n in lines} for path, lines in statements.items()}
    diff = compute(counts, root, changed, base, data_time, untracked)
    real_root = Path(os.path.realpath(root))
    by_relative: dict[str, dict[int, frozenset[str]]] = {}
    for path, lines in line_tests.items():
        try:
            rel = Path(os.path.realpath(path)).relative_to(real_root).as_posix()
        except ValueError:
            continue
        into = by_relative.setdefault(rel, {})
        for n, names in lines.items():
            into[n] = into.get(n, frozenset()) | names
    tests: set[str] = set()
    for f in diff.files:
        lines = by_relative.get(f.path, {})
        for n in f.changed:
            tests |= lines.get(n, frozenset())
    return Impact(base, sorted(tests), diff.changed, [f for f in diff.files if f.missed], diff.unknown, diff.stale,
                  diff.untracked)


# --- rendering ---------------------------------------------------------------

def filter_value(name: str) -> str:
    """A test name as a value of a `dotnet test --filter` condition."""
    return "".join("\\" + c if c in _FILTER_SPECIAL else "%2C" if c == "," else c for c in name)


def render_filter(d: Impact) -> str:
    """`dotnet test --filter` selecting the impacted tests; empty (no line) when no test is impacted.

    Each test is `FullyQualifiedName=NAME` (xUnit, MSTest, NUnit's plain tests) or `FullyQualifiedName~NAME(`
    (NUnit names each case of a parameterized test `NAME(args)`)."""
    if not d.tests:
        return ""
    return "|".join(f"FullyQualifiedName={v}|FullyQualifiedName~{v}\\("
                    for v in (filter_value(t) for t in d.tests)) + "\n"


def render_json(d: Impact) -> str:
    return json.dumps({"base": d.base.label, "tests": d.tests, "changed_statements": d.changed,
                       "untested_changes": [{"path": f.path, "lines": f.missed} for f in d.untested],
                       "unknown_files": d.unknown, "untracked_files": d.untracked}, indent=2, ensure_ascii=False) + "\n"


def render_text(d: Impact) -> str:
    out = [f"Tests impacted by the changes since {d.base.described}: {len(d.tests)} "
           f"(of the tests recorded, those that ran any of the {d.changed} changed statement lines)"]
    out += [f"  {t}" for t in d.tests]
    if d.untracked:
        out += ["", untracked_note(d.untracked)]
    if d.untested:
        out += ["", f"Changed statement lines no recorded test ran ({d.untested_lines}): running the tests above "
                "does not exercise them"]
        out += [f"  {f.path}: {format_ranges(f.changed, f.missed)}" for f in d.untested]
    if d.unknown:
        out += ["", "Changed files the coverage data does not know: " + ", ".join(d.unknown)]
    if d.stale:
        out += ["", "Changed after the coverage data was written (line numbers may not match): " + ", ".join(d.stale)]
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "filter": render_filter}
