"""Keeps each source file's coloured lines (html.highlight_lines) between `dotcov html` runs.

The colouring of a file depends only on its bytes, its kind (the extension picks the lexer) and the code that
colours it; hits never enter it. So a second report of the same sources (another `dotcov html`, other options,
a new run of tests over unchanged code in a data directory that was not erased) reads each file's coloured lines
instead of lexing the file again, the costliest part of a file's page (its measured gain: docs/benchmarks.md,
"Speed mechanisms").

Where: `DATA_DIR/cache/html/<digest>.lines`, next to the module plans (analysis/plans/cache.py), one file per source
text; the digest is a hash of the colouring code's stamp (code_stamp), the extension and the file's bytes, so an
edited source, another dotcov or another Pygments is another name, never a stale hit. A file holds MAGIC, the body's
length, line count and CRC-32, then the lines (UTF-8, joined by line breaks, which a coloured line never holds).
data/cache_files.py frames, writes and prunes the files, so concurrent reports never read half a file; one that is
damaged (bad magic, length, count, CRC or UTF-8) is ignored and written again. `prune` keeps the newest
(a hit refreshes the file's time); a report runs it only when it added colours or `over_count` finds more
files than it keeps (html.write_html); `clear` (dotcov erase) removes them all.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable

from dotcov.data.cache_files import FramedFiles

__all__ = ["ColourCache", "code_stamp", "prune", "over_count", "clear", "SUBDIR"]

SUBDIR = "html"  # inside DATA_DIR/cache
COLOURING_MODULES = ("report.py", "csharp.py", "pygments_colours.py")  # what makes the colours
MAGIC = b"dotcov-colour-1\n"
SUFFIX = ".lines"
MAX_FILES = 50_000
MAX_BYTES = 512 << 20
_HEAD = len(MAGIC) + 16  # body length (8), line count (4), CRC-32 (4)
FILES = FramedFiles(MAGIC, prefix="", suffix=SUFFIX, temp="colour", meta=4)  # the line count


def code_stamp() -> bytes:
    """What the colours are made by: dotcov's version, the colouring modules as they are on disk (an edited
    checkout colours anew) and Pygments' version (F#, VB and other files)."""
    import pygments

    from dotcov import __version__

    parts = [__version__, pygments.__version__]
    # The colouring modules by their paths (importing pygments_colours loads Pygments' lexers, needed only for
    # non-C# files; importing report here would make a circle).
    for name in COLOURING_MODULES:
        file = Path(__file__).with_name(name)
        try:
            st = os.stat(file)
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("?")
    return "\0".join(parts).encode("utf-8", "surrogateescape")


class ColourCache:
    """The coloured lines of source files, stored under `directory` (DATA_DIR/cache/html)."""

    def __init__(self, directory: str | os.PathLike, stamp: bytes | None = None):
        self.directory = Path(directory)
        self._stamp = stamp if stamp is not None else code_stamp()
        self.hits = self.misses = 0

    def _path(self, path: str, data: bytes) -> Path:
        h = hashlib.sha256(self._stamp)
        h.update(b"\0" + os.path.splitext(path)[1].lower().encode("utf-8", "surrogateescape") + b"\0")
        h.update(data)
        return self.directory / (h.hexdigest()[:40] + SUFFIX)

    def lines(self, path: str, data: bytes, colour: Callable[[], list[str]]) -> list[str]:
        """The coloured lines of the source file `path` whose bytes are `data`: stored ones, or `colour()`'s
        (then stored)."""
        file = self._path(path, data)
        lines = _load(file)
        if lines is not None:
            self.hits += 1
            try:
                os.utime(file)  # recently used: kept by prune
            except OSError:
                pass
            return lines
        self.misses += 1
        lines = colour()
        _store(file, lines)
        return lines


def _load(file: Path) -> list[str] | None:
    framed = FILES.read(file)
    if framed is None:
        return None
    meta, body = framed
    count = int.from_bytes(meta, "little")
    try:
        text = str(body, "utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n") if count else []
    return lines if len(lines) == count else None


def _store(file: Path, lines: list[str]) -> None:
    """Writes the lines atomically; a cache that cannot be written is no error (the file is coloured again)."""
    if any("\n" in line for line in lines):  # cannot be told apart when read; never made by highlight_lines
        return
    try:
        count = len(lines).to_bytes(4, "little")
    except OverflowError:
        return
    FILES.write(file, "\n".join(lines).encode("utf-8", "surrogatepass"), count)


def prune(directory: str | os.PathLike, max_files: int | None = None, max_bytes: int | None = None) -> None:
    """Keeps the newest files: at most `max_files` (MAX_FILES), `max_bytes` (MAX_BYTES) together; removes stray
    temporary files."""
    FILES.prune(directory, MAX_FILES if max_files is None else max_files,
                MAX_BYTES if max_bytes is None else max_bytes)


def over_count(directory: str | os.PathLike, max_files: int | None = None) -> bool:
    """Whether `directory` holds more entries than `prune` keeps files (MAX_FILES; names only: no file is opened
    or stat'ed), so a report that added nothing prunes only a cache left over its bound."""
    try:
        return len(os.listdir(directory)) > (MAX_FILES if max_files is None else max_files)
    except OSError:
        return False


def clear(cache_dir: str | os.PathLike) -> None:
    """Removes the stored colours under `cache_dir` (DATA_DIR/cache; dotcov erase)."""
    FILES.clear(Path(cache_dir) / SUBDIR)
