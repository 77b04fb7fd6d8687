"""Keeps module plans (plan.py) between report commands, so only the first command after a run pays for them.

A plan depends on the module build (MVID, PDB id, its probe sites and the methods the agent could not measure),
on dotcov itself, on the options that shape it (filters, [paths], the source root, --all-branches,
--skip-auto-properties), and on the files it was read from: the assembly, its PDB and every source file its PDB
names. The first group makes the file's name (a digest); the files are checked by (size, mtime_ns) when the plan
is loaded, after mapping each document again as [paths] does, so an edited or rebuilt file means a cold build.

Where: `DATA_DIR/cache/plan.<digest>.bin`, so `dotcov run` (which erases the data but keeps the cache, then
reports) builds it once per build and `dotcov xml`, `dotcov html`, ... and later runs of the same build reuse it;
`dotcov erase` removes it, as does deleting the directory. The directory keeps the newest plans only (MAX_FILES, MAX_BYTES). Each file is written to a temporary
name and renamed over, so concurrent commands never see half a file; a file that is damaged (bad magic, length
or CRC, or contents marshal cannot read) is ignored and rebuilt, never trusted.
"""

from __future__ import annotations

import marshal
import mmap
import os
import tempfile
import zlib
from pathlib import Path

CACHE_DIR = "cache"
MAGIC = b"dotcov-plan-2\n"  # 2: packed_plan.py's form
PATTERN = "plan.*.bin"
MAX_FILES = 16
MAX_BYTES = 1 << 30


def code_stamp() -> list:
    """(size, mtime_ns) of the code that makes plans: a changed dotcov (a new version, an edited checkout) makes
    new plans."""
    import importlib

    from dotcov import _native

    names = ("dotcov.plan", "dotcov.branches", "dotcov.lines", "dotcov.switch_arms", "dotcov.branch_notes",
             "dotcov.short_circuit", "dotcov.exclusions", "dotcov.results", "dotcov.hit_exprs", "dotcov.paths",
             "dotcov.filters", "dotcov.signatures", "dotcov.model", "dotcov.plan_cache", "dotcov.packed_plan")
    files = [importlib.import_module(n).__file__ for n in names] + [_native.__file__]  # (imported either way)
    return [(Path(f).name, _stat(f)) if f else None for f in files]


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
    path = directory / f"plan.{key}.bin"
    try:
        with open(path, "rb") as f:
            blob = _read(f)
    except (OSError, ValueError):
        return None
    head = len(MAGIC) + 12
    if len(blob) < head or blob[:len(MAGIC)] != MAGIC:
        return None
    size = int.from_bytes(blob[len(MAGIC):len(MAGIC) + 8], "little")
    crc = int.from_bytes(blob[len(MAGIC) + 8:head], "little")
    body = memoryview(blob)[head:]
    if len(body) != size or zlib.crc32(body) != crc:
        return None
    try:
        stored = marshal.loads(body)
        checked = stored["inputs"]
        documents, assembly, pdb = stored["documents"], stored["assembly"], stored["pdb"]
    except (ValueError, EOFError, TypeError, KeyError):
        return None
    if inputs(assembly, pdb, documents, mapper, near) != checked:
        return None
    return stored["plan"]


def _read(f) -> bytes | mmap.mmap:
    """The whole file, mapped with its pages filled in one call (MAP_POPULATE: a 45 MB plan read into a new buffer
    took its pages one fault at a time, half of loading it). dotcov never changes a plan file in place (it writes
    a new one and renames it over), so the mapping sees one whole file; only a file cut short in place by something
    else while it is being checked could fault (SIGBUS)."""
    size = os.fstat(f.fileno()).st_size
    populate = getattr(mmap, "MAP_POPULATE", 0)
    if not size or not populate:
        return f.read()
    return mmap.mmap(f.fileno(), size, flags=mmap.MAP_PRIVATE | populate, prot=mmap.PROT_READ)


def store(directory: Path, key: str, plan: dict, *, assembly: str, pdb: str, documents: list[str],
          read: list) -> None:
    """Writes the plan atomically; a directory that cannot be written is no error (the plan is rebuilt).
    `read`: inputs() taken before the plan was made (a file edited meanwhile then fails the check)."""
    stored = {"inputs": read, "documents": list(documents), "assembly": assembly, "pdb": pdb, "plan": plan}
    body = marshal.dumps(stored)
    tmp = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".plan.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + len(body).to_bytes(8, "little") + zlib.crc32(body).to_bytes(4, "little"))
            f.write(body)
        os.replace(tmp, directory / f"plan.{key}.bin")
        tmp = None
        _prune(directory)
    except OSError:
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _prune(directory: Path) -> None:
    """Keeps the newest plans: at most MAX_FILES, MAX_BYTES together (the newest always)."""
    found = []
    for p in directory.glob(PATTERN):
        try:
            st = p.stat()
        except OSError:
            continue
        found.append((st.st_mtime_ns, st.st_size, p))
    found.sort(reverse=True)
    total = 0
    for n, (_mtime, size, p) in enumerate(found):
        total += size
        if n and (n >= MAX_FILES or total > MAX_BYTES):
            p.unlink(missing_ok=True)


def clear(data_dir: Path) -> None:
    """Removes the cached plans of a data directory (dotcov erase)."""
    directory = Path(data_dir) / CACHE_DIR
    if not directory.is_dir():
        return
    for p in [*directory.glob(PATTERN), *directory.glob(".plan.*.tmp")]:
        p.unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:
        pass
