"""Path remapping: data and PDBs from other machines, CI shards and deterministic builds.

A `[paths]` entry maps every alias prefix to its canonical path (coverage.py's rule); a Windows alias
(`C:\\...`, as PDBs built on Windows record sources) matches as Windows compares paths: either separator, any
case. Deterministic builds (`ContinuousIntegrationBuild=true`) record sources as `/_/...`; with no mapping
configured, `/_/` is mapped to the first directory, from the source root and the assembly's directory upward,
under which the file exists.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PathMapper:
    def __init__(self, paths: dict[str, list[str]] | None = None, source_root: Path | None = None):
        self.rules: list[tuple[str, str]] = []
        for entries in (paths or {}).values():
            canonical = entries[0].rstrip("/\\")
            for alias in entries[1:]:
                self.rules.append((alias, canonical))
        # Longest alias first, so nested prefixes map precisely.
        self.rules.sort(key=lambda r: -len(r[0]))
        self.source_root = source_root
        self._deterministic_cache: dict[tuple[str, str], str] = {}

    def map(self, path: str, *, near: str | None = None) -> str:
        for alias, canonical in self.rules:
            if _prefix_match(path, alias):
                rest = path[len(alias):].lstrip("/\\").replace("\\", "/")
                return f"{canonical}/{rest}" if rest else canonical
        if path.startswith("/_/") or path.startswith("/_") and path[2:3].isdigit():
            return self._deterministic(path.replace("\\", "/"), near)
        return path

    def _deterministic(self, path: str, near: str | None) -> str:
        prefix, _, rest = path[1:].partition("/")
        key = (prefix, near or "")
        base = self._deterministic_cache.get(key)
        if base is None:
            base = ""
            starts = [p for p in (self.source_root, Path(near).parent if near else None) if p]
            for start in starts:
                for directory in (start, *start.parents):
                    if (directory / rest).is_file():
                        base = str(directory)
                        break
                if base:
                    break
            if base:
                self._deterministic_cache[key] = base
        return f"{base}/{rest}" if base else path


def _is_windows_path(path: str) -> bool:
    return len(path) >= 3 and path[0].isascii() and path[0].isalpha() and path[1] == ":" and path[2] in "/\\"


def _comparable(path: str) -> str:
    """A Windows path with '/' separators and ASCII letters in lower case (as Windows compares; the length stays),
    other paths as they are."""
    if not _is_windows_path(path):
        return path
    return "".join(c.lower() if c.isascii() else c for c in path.replace("\\", "/"))


def _prefix_match(path: str, alias: str) -> bool:
    path, alias = _comparable(path), _comparable(alias)
    if not path.startswith(alias):
        return False
    return alias.endswith(("/", "\\")) or len(path) == len(alias) or path[len(alias)] in "/\\"


def display_path(path: str, root: str | None) -> str:
    """As `relative_path`, with control characters shown as `?` (names in tables and notes)."""
    return _CONTROL.sub("?", relative_path(path, root))


def relative_path(path: str, root: str | None) -> str:
    """`path` relative to `root` with `/` separators, or `path` itself (with `/`) when outside `root`."""
    p = PurePath(path)
    if root:
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            pass
    return p.as_posix()
