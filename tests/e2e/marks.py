"""Reads the expected-coverage marks of sample sources (`// @hit`, `// @miss`)."""

from __future__ import annotations

import re
from pathlib import Path

MARK = re.compile(r"(?://|')\s*@(hit|miss|excluded)\b")  # C#/F# // comments, VB ' comments


def read_marks(path: Path) -> tuple[set[int], set[int]]:
    hit, miss = set(), set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = MARK.search(line)
        if m and m.group(1) != "excluded":
            (hit if m.group(1) == "hit" else miss).add(number)
    return hit, miss


def read_excluded(path: Path) -> set[int]:
    """Lines marked `// @excluded`: left out of reports (e.g. [ExcludeFromCodeCoverage])."""
    return {n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if (m := MARK.search(line)) and m.group(1) == "excluded"}


def marked_sources(project_dir: Path) -> list[Path]:
    return sorted(
        p for pattern in ("*.cs", "*.fs", "*.vb") for p in project_dir.rglob(pattern)
        if "bin" not in p.relative_to(project_dir).parts and "obj" not in p.relative_to(project_dir).parts
    )


COUNT = re.compile(r"@count\s+(\d+)\b")
BRANCHES = re.compile(r"@branches\s+(\d+)/(\d+)\b")
# A line holding only brackets and separators: Roslyn gives it a sequence point in Debug builds only.
BRACKETS_LINE = re.compile(r"^\s*[{}][{}()\[\];,\s]*(?://|')")


def read_counts(path: Path) -> dict[int, int]:
    """Hit counts of `@hit` lines: `@count N`, else 1 (use only where every count is marked)."""
    hit, _miss = read_marks(path)
    counts = {n: 1 for n in hit}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if (m := COUNT.search(line)) and number in hit:
            counts[number] = int(m.group(1))
    return counts


def read_branch_marks(path: Path) -> dict[int, tuple[int, int]]:
    """`@branches C/T`: C of the line's T branch outcomes taken."""
    return {n: (int(m.group(1)), int(m.group(2))) for n, line in enumerate(
        path.read_text(encoding="utf-8").splitlines(), start=1) if (m := BRANCHES.search(line))}


def debug_only_lines(path: Path) -> set[int]:
    """Lines that are statements in Debug builds only: bracket-only lines (unless marked `@also-release`: the
    closing brace of a method whose Release code still has a point there, e.g. after a `try` or in a state
    machine), and lines marked `@debug-only`."""
    return {n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if MARK.search(line) and ((BRACKETS_LINE.match(line) and "@also-release" not in line)
                                      or "@debug-only" in line)}


RELEASE_COUNT = re.compile(r"@release-count\s+(\d+)\b")


def release_misses(path: Path) -> set[int]:
    """`@hit` lines marked `@release-miss`: statements that do not run in a Release build (where the language's
    optimizer moved the code elsewhere; the mark's line says why)."""
    return {n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if "@release-miss" in line and MARK.search(line)}


def release_counts(path: Path) -> dict[int, int]:
    """`@release-count N`: the line's hits in a Release build, where its sequence point sits elsewhere in the IL."""
    return {n: int(m.group(1)) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if (m := RELEASE_COUNT.search(line))}


CONTEXTS = re.compile(r"(?://|')\s*ctx:\s*(.*?)\s*$")


def read_context_marks(path: Path) -> dict[int, set[str]]:
    """`// ctx: A B`: the exact tests that run the line; `// ctx: -`: it runs, only outside any test (empty set)."""
    marks = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if m := CONTEXTS.search(line):
            names = m.group(1).split()
            marks[number] = set() if names == ["-"] else set(names)
    return marks


PHASES = re.compile(r"@by((?:\s+[a-z]\w*)+)")


def read_phase_marks(path: Path) -> dict[int, set[str]]:
    """`// @hit @by a b`: the phases of a sample's scenario that run the line (samples/Service)."""
    return {n: set(m.group(1).split()) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if (m := PHASES.search(line)) and MARK.search(line)}


def phase_marks(path: Path, phases: set[str]) -> tuple[set[int], set[int]]:
    """The lines covered and missed once the scenario's `phases` ran: a line marked `@hit @by P...` is covered when
    one of its phases ran, and missed before; `@miss` lines stay missed."""
    hit, miss = read_marks(path)
    by = read_phase_marks(path)
    unmarked = hit - by.keys()
    if unmarked:
        raise ValueError(f"{path}: @hit lines without @by {sorted(unmarked)}")
    covered = {n for n in hit if by[n] & phases}
    return covered, miss | (hit - covered)
