"""Keeps module plans (plan.py) between report commands, so only the first command after a run pays for them
(a warm `dotcov report` takes about a fifth of a cold one's wall time: docs/benchmarks.md, "Speed mechanisms").

A plan depends on the module build (MVID, PDB id, its probe sites and the methods the agent could not measure),
on dotcov itself, on the options that shape it (filters, [paths], the source root, --all-branches,
--skip-auto-properties), and on the files it was read from: the assembly, its PDB and every source file its PDB
names. The first group makes the file's name (a digest); the files are checked by (size, mtime_ns) when the plan
is loaded, after mapping each document again as [paths] does, so an edited or rebuilt file means a cold build.

Where: `DATA_DIR/cache/plan.<digest>.bin`, so `dotcov run` (which erases the data but keeps the cache, then
reports) builds it once per build and `dotcov xml`, `dotcov html`, ... and later runs of the same build reuse it;
`dotcov erase` removes it, as does deleting the directory. The directory is bounded by size (MAX_BYTES), not by a
count of files (a solution has as many module builds as it has): a hit refreshes the file's mtime, and pruning
removes the least recently used plans first. Files are framed, written and pruned by data/cache_files.py, so concurrent commands never see half a file; a
file that is damaged (bad magic, length or CRC, or contents marshal cannot read) is ignored and rebuilt, never
trusted.
"""

from __future__ import annotations

import marshal
import os
from functools import cache
from pathlib import Path

from dotcov.data.cache_files import FramedFiles
from dotcov.data.datafiles import CACHE_DIR

MAGIC = b"dotcov-plan-3\n"  # 3: packed.py's form
PATTERN = "plan.*.bin"
MAX_BYTES = 1 << 30
FILES = FramedFiles(MAGIC, prefix="plan.", suffix=".bin", temp="plan")  # PATTERN's files


@cache
def code_stamp() -> list:
    """(size, mtime_ns) of the code that makes plans: a changed dotcov (a new version, an edited checkout) makes
    new plans. Read once per process (a solution has a plan per module build); callers only read it."""
    from dotcov import _native

    # (every module of the analysis package by its path: the plan is made by them, and a walk misses none)
    analysis = Path(__file__).resolve().parents[1]
    files = [str(f) for f in sorted(analysis.rglob("*.py"))] + [_native.__file__]
    return [(str(Path(f).relative_to(analysis)) if f.endswith(".py") else Path(f).name, _stat(f)) for f in files]


def cache_key(module, options, mapper, version: str) -> str:
    """The digest naming a module's plan: everything it depends on except the files (checked on load)."""
    filters = options.filters
    shape = (
        version, code_stamp(), module.mvid, module.pdb_id, module.path, str(mapper.source_root or ""), mapper.rules,
        None if filters is None else ([f.text for f in filters.include], [f.text for f in filters.exclude],
                                      list(filters.attributes), list(filters.files)),
        bool(options.all_branches), bool(options.skip_auto_properties),
        module.sites_digest(),
        sorted(getattr(module, "unmeasured", {}).items()),
    )
    import hashlib  # here, not at the top: `dotcov run`'s erase imports this module and needs no OpenSSL

    return hashlib.sha256(repr(shape).encode("utf-8", "surrogateescape")).hexdigest()[:40]


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_size, st.st_mtime_ns)


def inputs(assembly: str, pdb: str, documents: list[str], mapper, near: str) -> list:
    """What a plan was read from: (path, (size, mtime_ns) or None) of the assembly, its PDB and each document."""
    paths = [assembly, pdb, *(mapper.map(d, near=near) for d in documents)]
    return [(p, _stat(p) if p else None) for p in paths]


def load(directory: Path, key: str, mapper, near: str) -> dict | None:
    """The plan stored under `key`, if its files are unchanged; None otherwise (missing, stale or damaged)."""
    body = FILES.read(FILES.path(directory, key))
    if body is None:
        return None
    try:
        stored = marshal.loads(body)
        checked = stored["inputs"]
        documents, assembly, pdb = stored["documents"], stored["assembly"], stored["pdb"]
    except (ValueError, EOFError, TypeError, KeyError):
        return None
    if inputs(assembly, pdb, documents, mapper, near) != checked:
        return None
    try:
        os.utime(FILES.path(directory, key))  # recently used: prune removes the least recently used first
    except OSError:
        pass
    return stored["plan"]


def store(directory: Path, key: str, plan: dict, *, assembly: str, pdb: str, documents: list[str],
          read: list) -> None:
    """Writes the plan atomically; a directory that cannot be written is no error (the plan is rebuilt).
    `read`: inputs() taken before the plan was made (a file edited meanwhile then fails the check)."""
    stored = {"inputs": read, "documents": list(documents), "assembly": assembly, "pdb": pdb, "plan": plan}
    if FILES.write(FILES.path(directory, key), marshal.dumps(stored)):
        FILES.prune(directory, MAX_BYTES)


def clear(data_dir: Path) -> None:
    """Removes the cached plans of a data directory (dotcov erase)."""
    FILES.clear(Path(data_dir) / CACHE_DIR)
