"""The files of dotcov's caches (analysis/plans/cache.py): framed, written atomically, kept in bounds.

A file holds the cache's MAGIC, the body's length (8 bytes, little-endian), the body's CRC-32 (4 bytes), then the
body. It is written to a temporary name in the
same directory and renamed over, so a concurrent reader sees the old file or the new one, never half of one. A
file that is missing, short, of another magic, length or CRC reads as None (a miss, rebuilt by the caller), never
as an error. `prune` keeps the newest files (by mtime: a cache refreshes a file it hits), always the newest one;
`clear` removes them all. What the body means, and how files are named by key, stays with each cache.
"""

from __future__ import annotations

import mmap
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

MAGIC_START = b"dotcov-"  # every cache's MAGIC starts so (clear_tree removes only such files)
MAP_FROM = 1 << 20  # bodies this big are mapped rather than read (below, a read is cheaper than a mapping)
STALE_TMP_NS = 3600 * 10**9  # a temporary file this old was left by a command that was killed


@dataclass(frozen=True)
class FramedFiles:
    """One cache's files: `<prefix><key><suffix>` in a directory, temporaries `.<temp>.*.tmp` beside them."""

    magic: bytes
    prefix: str
    suffix: str
    temp: str

    def __post_init__(self) -> None:
        if not self.magic.startswith(MAGIC_START):
            raise ValueError(f"a cache's magic starts with {MAGIC_START!r} (clear_tree finds its files by it)")

    def path(self, directory: str | os.PathLike, key: str) -> Path:
        return Path(directory) / f"{self.prefix}{key}{self.suffix}"

    def read(self, path: str | os.PathLike) -> memoryview | None:
        """The body of a whole, undamaged file; None if it is missing, unreadable or damaged."""
        try:
            with open(path, "rb") as f:
                blob = _read(f)
        except (OSError, ValueError):
            return None
        n = len(self.magic)
        head = n + 8 + 4
        if len(blob) < head or blob[:n] != self.magic:
            return None
        size = int.from_bytes(blob[n:n + 8], "little")
        crc = int.from_bytes(blob[head - 4:head], "little")
        body = memoryview(blob)[head:]
        if len(body) != size or zlib.crc32(body) != crc:
            return None
        return body

    def write(self, path: str | os.PathLike, body: bytes) -> bool:
        """Writes the file atomically; False (no error) if it cannot be written: the cache then only misses."""
        import tempfile  # here: a command that only reads its caches skips shutil, random, bz2, lzma

        path = Path(path)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.temp}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as f:
                f.write(self.magic + len(body).to_bytes(8, "little") + zlib.crc32(body).to_bytes(4, "little"))
                f.write(body)
            os.replace(tmp, path)
            tmp = None
            return True
        except OSError:
            return False
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def _names(self, directory: str | os.PathLike):
        """(kind, entry) of the directory's regular files of this cache: kind 'file' or 'tmp'."""
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for e in entries:
            name = e.name
            try:
                if not e.is_file(follow_symlinks=False):
                    continue
            except OSError:
                continue
            if name.startswith(self.prefix) and name.endswith(self.suffix) and not name.startswith("."):
                yield "file", e
            elif name.startswith(f".{self.temp}.") and name.endswith(".tmp"):
                yield "tmp", e

    def prune(self, directory: str | os.PathLike, max_bytes: int) -> None:
        """Keeps the newest files: at most `max_bytes` together, but always the newest one (the file just written);
        removes temporary files left by killed commands."""
        found = []
        now = time.time_ns()
        for kind, e in self._names(directory):
            try:
                st = e.stat()
                if kind == "file":
                    found.append((st.st_mtime_ns, st.st_size, e.path))
                elif st.st_mtime_ns < now - STALE_TMP_NS:
                    os.unlink(e.path)
            except OSError:
                continue
        found.sort(reverse=True)
        total = 0
        for n, (_mtime, size, path) in enumerate(found):
            total += size
            if n and total > max_bytes:
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def clear(self, directory: str | os.PathLike) -> None:
        """Removes this cache's files (and temporaries) from `directory`, then the directory if it is empty."""
        for _kind, e in self._names(directory):
            try:
                os.unlink(e.path)
            except OSError:
                pass
        try:
            os.rmdir(directory)
        except OSError:
            pass


def clear_tree(directory: str | os.PathLike) -> None:
    """Removes every cache's files under `directory` (DATA_DIR/cache and its folders: each starts with a magic
    beginning `dotcov-`) and the temporaries beside them, then the folders left empty; other files stay."""
    directory = Path(directory)
    if not directory.is_dir():
        return
    for folder, subdirs, names in os.walk(directory, topdown=False):
        for name in names:
            path = os.path.join(folder, name)
            try:
                if not (name.startswith(".") and name.endswith(".tmp")):
                    with open(path, "rb") as f:
                        if not f.read(len(MAGIC_START)) == MAGIC_START:
                            continue
                os.unlink(path)
            except OSError:
                pass
        try:
            os.rmdir(folder)
        except OSError:
            pass


def _read(f) -> bytes | mmap.mmap:
    """The whole file; a big one mapped with its pages filled in one call (MAP_POPULATE: read into a new buffer, a big
    plan took its pages one fault at a time, much of the cost of loading it). dotcov never changes a cache file in place
    (it writes a new one and renames it over), so the mapping sees one whole file; only a file cut short in place by
    something else while it is being checked could fault (SIGBUS)."""
    size = os.fstat(f.fileno()).st_size
    populate = getattr(mmap, "MAP_POPULATE", 0)
    if size < MAP_FROM or not populate:
        return f.read()
    return mmap.mmap(f.fileno(), size, flags=mmap.MAP_PRIVATE | populate, prot=mmap.PROT_READ)
