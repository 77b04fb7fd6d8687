"""The HTML report's directory: it holds only the current report, and nothing of the user's is touched.

`dotcov html` writes into a directory that is new, empty, or a previous dotcov report. Every file it
writes is listed in a manifest (MANIFEST, JSON); after a run, the files of the previous manifest that the
new report did not write (pages of files now excluded or gone) are removed. Nothing else is ever
deleted: a file the user added to the report's directory stays.

A directory holding anything else is refused with a message (`ReportDirectoryError`), so `-d .` or
`-d src` can never mix a report into (or clean up) the user's files. A report written before the
manifest existed is recognised by the `.gitignore` dotcov writes into it; of such a directory only the
pages that say dotcov generated them (`<meta name="generator" content="dotcov …">`) are removed.

While a report is written the manifest lists the old and the new files together, so a run cut short
leaves nothing that the next run would not recognise as its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from dotcov.reports.output import write_atomic

MANIFEST = ".dotcov-report.json"
GITIGNORE_MARK = "# Created by dotcov's html report."
_GENERATOR = b'<meta name="generator" content="dotcov '


class ReportDirectoryError(Exception):
    """The directory holds files that are not a dotcov report."""


def _own_name(name: str) -> bool:
    """A plain file name inside the directory (a manifest never names anything outside it)."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name


def _read_manifest(out: Path) -> set[str] | None:
    try:
        doc = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ReportDirectoryError(f"{out}: its report manifest {MANIFEST} is unreadable ({e}); "
                                   "remove the directory or choose another") from e
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, list):
        raise ReportDirectoryError(f"{out}: its report manifest {MANIFEST} is not dotcov's; "
                                   "remove the directory or choose another")
    return {f for f in files if isinstance(f, str) and _own_name(f)}


def _legacy_report(out: Path) -> set[str] | None:
    """The files of a report written before manifests existed, or None if `out` is not one."""
    try:
        marked = (out / ".gitignore").read_text(encoding="utf-8").startswith(GITIGNORE_MARK)
    except (OSError, UnicodeDecodeError):
        return None
    if not marked:
        return None
    own = {".gitignore", "style.css", "dotcov.js"}
    for p in out.iterdir():
        if p.suffix == ".html" and p.is_file():
            try:
                with p.open("rb") as fh:
                    head = fh.read(4096)
            except OSError:
                continue
            if _GENERATOR in head:
                own.add(p.name)
    return own


def previous_report(directory: str | os.PathLike) -> set[str]:
    """The files a previous report wrote into `directory` (empty for a new or empty directory).

    Raises ReportDirectoryError when the directory holds something that is not a dotcov report.
    """
    out = Path(directory)
    if not out.exists():
        return set()
    if not out.is_dir():
        raise ReportDirectoryError(f"{out} is not a directory")
    entries = [p.name for p in out.iterdir()]
    if not entries:
        return set()
    files = _read_manifest(out)
    if files is None:
        files = _legacy_report(out)
    if files is None:
        raise ReportDirectoryError(
            f"{out} is not empty and is not a dotcov HTML report: refusing to write into it "
            "(choose a new or empty directory with -d)")
    return files


def write_file(path: str | os.PathLike, pieces: Iterable[bytes]) -> None:
    """Writes the concatenation of `pieces` into `path`, writing only from the first piece that differs from what
    the file holds on: a report made again is mostly the same pages, and reading a page is much cheaper than
    rewriting it (truncating a file frees its cached pages, writing it allocates them again). The file ends up
    exactly the new content; pieces are never held together (a method page runs to tens of MB)."""
    try:
        f = open(path, "r+b")
    except (FileNotFoundError, PermissionError):
        f = open(path, "wb")
    with f:
        pieces = iter(pieces)
        for piece in pieces:
            old = f.read(len(piece)) if f.readable() else b""
            if old != piece:
                f.seek(-len(old), os.SEEK_CUR)
                f.write(piece)
                for rest in pieces:
                    f.write(rest)
                break
        if f.tell() != os.fstat(f.fileno()).st_size:  # (truncating to the same size would still touch the file)
            f.truncate()


def write_manifest(directory: str | os.PathLike, files: set[str]) -> None:
    payload = json.dumps({"generator": "dotcov html", "files": sorted(files)}, indent=1) + "\n"
    write_atomic(Path(directory) / MANIFEST, payload.encode("utf-8"))


def remove_stale(directory: str | os.PathLike, previous: set[str], current: set[str]) -> list[str]:
    """Removes the files of the previous report the current one did not write; returns their names."""
    out = Path(directory)
    removed = []
    for name in sorted(previous - current - {MANIFEST}):
        p = out / name
        if _own_name(name) and p.is_file() and not p.is_symlink():
            p.unlink(missing_ok=True)
            removed.append(name)
    return removed
