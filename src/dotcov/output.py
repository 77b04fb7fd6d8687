"""Helpers every writer shares: percentages, display paths, text encoding and atomic writes.

One place each, so the table, the XML writers, lcov, JSON and HTML round and write alike.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path, PurePath
from typing import Iterable

_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


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


def truncated_percent(covered: int, total: int) -> str:
    """covered/total as a percentage truncated to 2 decimals ("50", "33.33", "100"), as coverlet writes it."""
    if total <= 0:
        return "100"
    whole, frac = divmod(covered * 10000 // total, 100)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


# --- line ranges ---

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


# --- text and files ------------------------------------------------------------

def without_surrogates(text: str) -> str:
    """Lone surrogates (from undecodable file names) cannot be written as UTF-8: U+FFFD instead."""
    return _SURROGATES.sub("\ufffd", text)


def encode_text(text: str) -> bytes:
    """UTF-8, undecodable file names written back as the bytes they came from."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte made
        return text.encode("utf-8", "replace")


def write_atomic(path: str | os.PathLike, payload: bytes | Iterable[bytes]) -> None:
    """Writes `payload` (bytes, or bytes in pieces as a writer makes them) next to `path` and renames it over
    `path`: a reader never sees half a file, and an existing file is replaced only by a complete one. `-` is
    standard output."""
    chunks = (payload,) if isinstance(payload, (bytes, bytearray, memoryview)) else payload
    if str(path) == "-":
        sys.stdout.flush()
        for chunk in chunks:
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
        return
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # A temporary of this writer's own (JSON and OpenCover are written in pieces over seconds: another command
    # writing the same report meanwhile must not write into it, nor rename it away), made as open() makes files
    # (0666 less the umask; mkstemp's would be 0600).
    while True:
        tmp = out.with_name(f"{out.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with open(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
