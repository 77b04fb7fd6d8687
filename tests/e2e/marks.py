"""Reads the expected-coverage marks of sample sources (`// @hit`, `// @miss`)."""

from __future__ import annotations

import re
from pathlib import Path

MARK = re.compile(r"//\s*@(hit|miss)\b")


def read_marks(path: Path) -> tuple[set[int], set[int]]:
    hit, miss = set(), set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = MARK.search(line)
        if m:
            (hit if m.group(1) == "hit" else miss).add(number)
    return hit, miss


def marked_sources(project_dir: Path) -> list[Path]:
    return sorted(
        p for pattern in ("*.cs", "*.fs", "*.vb") for p in project_dir.rglob(pattern)
        if "bin" not in p.relative_to(project_dir).parts and "obj" not in p.relative_to(project_dir).parts
    )
