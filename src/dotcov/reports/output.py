"""Helpers every writer shares: how percentages are shown, text encoding and atomic writes.

One place each, so the table, the XML writers, lcov, JSON and HTML round and write alike. The rules behind the
figures (percent, format_ranges) and the paths (display_path, relative_path) are the analysis's: the writers import
them from analysis.numbers and analysis.paths.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Iterable


_SURROGATES = re.compile("[\ud800-\udfff]")


# --- numbers -----------------------------------------------------------------

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

# --- paths -------------------------------------------------------------------

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
