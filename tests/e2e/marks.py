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
