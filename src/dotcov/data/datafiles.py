"""Coverage data files: reading, merging, combining and erasing them.

Each covered process writes `dotcov.<pid>.<random>.cov` into the data directory
(format: docs/architecture.md) and holds an flock on it while it lives.
`combine` merges the finished ones into `dotcov.combined.<host>.<pid>.<random>.cov`,
keeping hit counts: a name of its own, so the combined files of CI shards copied into
one directory never overwrite each other. A file whose writer still runs is read but
never removed.

A combined file lists the identities (header pid and start time) of the files it holds,
and every read skips a file so listed: a combine interrupted after writing its file and
before removing its inputs never makes them count twice.
"""

from __future__ import annotations

import errno as errno_names
import fcntl
import os
import re
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from operator import itemgetter
from pathlib import Path

from dotcov import _native
from dotcov.data.cache_files import clear_tree
from dotcov.data.deferred import defer, deferred_field

CACHE_DIR = "cache"  # DATA_DIR/cache: the caches' folder (plans, sources' colours), kept by `dotcov run`
COMBINED_PREFIX = "dotcov.combined."
PATTERN = "*.cov"
LOCK_NAME = ".combine.lock"
ASIDE_DIR = ".previous-run"  # DATA_DIR/.previous-run: the last run's data while `dotcov run` runs a new one

# Per-method states in the data file (data_file.h: MethodState).
NOT_COMPILED, INSTRUMENTED, NOT_MEASURED = 0, 1, 2
WHOLE_METHOD = _native.WHOLE_METHOD


class DataError(Exception):
    pass


@dataclass
class ModuleHits:
    """One module's counters, merged over every process that loaded this build of it."""

    mvid: bytes
    pdb_id: bytes
    path: str
    sites: list[tuple[int, int, int]]  # (method token, IL offset, kind: 0 sequence point, 1+ branch outcome)
    hits: list[int]
    processes: int = 1
    # MethodState per MethodDef rid - 1, merged: instrumented in any process wins.
    method_states: bytes = b""
    # Why the agent left a method or a probe site uninstrumented: (token, IL offset, site kind, reason);
    # offset and kind are WHOLE_METHOD for a whole method.
    not_measured: list[tuple[int, int, int, str]] = field(default_factory=list)
    # MethodDef token -> why it is not measured: no process instrumented it, at least one tried and
    # failed. Its zero counters mean "unknown", never "not run".
    unmeasured: dict[int, str] = field(default_factory=dict)
    # (token, IL offset, site kind) -> why that one probe site was skipped (the rest of its method is measured).
    unmeasured_sites: dict[tuple[int, int, int], str] = field(default_factory=dict)
    # Per-test contexts (`dotcov run --contexts test`): context name (a test's `Namespace.Class.Method`) ->
    # indexes into `sites` whose probe ran at least once while that test's async flow was running.
    contexts: dict[str, set[int]] = field(default_factory=dict)

    @property
    def key(self) -> tuple[bytes, bytes]:
        return (self.mvid, self.pdb_id)

    def defer_sites(self, tokens: Sequence[int], offsets: Sequence[int], kinds: Sequence[int]) -> None:
        """`sites` made from these columns when first read: a report from a kept plan (analysis/plans/cache.py)
        needs only their digest, and making a tuple per site would cost a warm build more than the rest of reading."""
        defer(self, "sites", (tokens, offsets, kinds))

    def defer_site_blob(self, blob: bytes) -> None:
        """As `defer_sites`, from the native reader's columns as they are (tokens, offsets, kinds: uint32 each, one
        column after another): the digest reads them without a copy (copying the
        columns of a large module is a visible share of a warm build)."""
        defer(self, "sites", blob)

    def sites_digest(self) -> str:
        """A digest of the site list (its columns as uint32, the data file's type), without making the site
        tuples: the same in every process."""
        columns = self._sites_pending
        import hashlib  # here, not at the top: `dotcov run`'s combine needs no OpenSSL

        if type(columns) is bytes:  # (defer_site_blob: the three columns' bytes, one after another)
            digest = hashlib.blake2b((len(columns) // 12).to_bytes(8, "little"), digest_size=20)
            digest.update(columns)
            return digest.hexdigest()
        if columns is None:
            columns = tuple(zip(*self._sites)) if self._sites else ((), (), ())
        digest = hashlib.blake2b(len(columns[0]).to_bytes(8, "little"), digest_size=20)
        for c in columns:
            digest.update((c if isinstance(c, array) and c.typecode == "I" else array("I", c)).tobytes())
        return digest.hexdigest()

    def site_columns(self) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
        """The sites as columns (method tokens, IL offsets, kinds), without making the site tuples when they are
        not made yet."""
        columns = self._sites_pending
        if columns is None:
            columns = tuple(list(map(itemgetter(i), self._sites)) for i in range(3))
        elif type(columns) is bytes:  # (defer_site_blob)
            columns = _site_columns(columns)
        return columns

    def site_blob(self) -> bytes:
        """The sites as the native reader's blob (tokens, offsets, kinds: uint32 each, one column after another),
        as read when nothing made the site tuples since (make_plan's counters without a million site tuples).
        OverflowError or TypeError for a site outside uint32 or not of ints (set directly, not read from a file)."""
        columns = self._sites_pending
        if type(columns) is bytes:
            return columns
        columns = self.site_columns()
        if not all(isinstance(c, array) or set(map(type, c)) <= {int} for c in columns):
            raise TypeError("a site of values that are not ints")  # (array("I") would take an __index__)
        return b"".join(array("I", c).tobytes() for c in columns)

    def settle(self) -> None:
        """Derives `unmeasured` and `unmeasured_sites` from the method states and notes (entries given
        directly are kept unless a process instrumented that method)."""
        reasons: dict[int, str] = {}
        for token, offset, kind, reason in self.not_measured:
            if offset == WHOLE_METHOD:
                reasons.setdefault(token, reason)
            else:
                self.unmeasured_sites.setdefault((token, offset, kind), reason)
        for i, state in enumerate(self.method_states):
            token = 0x06000000 | (i + 1)
            if state == INSTRUMENTED:
                self.unmeasured.pop(token, None)
            elif state == NOT_MEASURED:
                self.unmeasured.setdefault(token, reasons.get(
                    token, "left uninstrumented (the reason was not recorded: the data file could not grow)"))


deferred_field(ModuleHits, "sites",
               lambda columns: list(zip(*(_site_columns(columns) if type(columns) is bytes else columns))),
               "(method token, IL offset, kind) of each counter")


def _merge_states(a: bytes, b: bytes) -> bytes:
    """Per method: instrumented in any process wins, then not measured, then not compiled."""
    if len(a) < len(b):
        a, b = b, a
    out = bytearray(a)
    for i, state in enumerate(b):
        out[i] = INSTRUMENTED if INSTRUMENTED in (out[i], state) else max(out[i], state)
    return bytes(out)


@dataclass
class CoverageData:
    modules: dict[tuple[bytes, bytes], ModuleHits] = field(default_factory=dict)
    processes: list[dict] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    damaged: list[Path] = field(default_factory=list)  # read only in part
    live: list[Path] = field(default_factory=list)  # still being written by a running process
    # Records the agents could not write (full disk, quota): the data is incomplete.
    lost_records: int = 0
    lost_errno: int = 0
    # Another coverage tool the agents found at work (e.g. coverlet rewrote an assembly): the data is not usable.
    conflicts: list[str] = field(default_factory=list)
    newest_mtime: float = 0.0
    # Files skipped because a combined file already holds their data (an interrupted combine left them).
    already_merged: list[Path] = field(default_factory=list)
    # Identities (pid, start time ns) of the files whose data this holds, for the combined file's list.
    identities: list[tuple[int, int]] = field(default_factory=list)

    def add_module(self, m: ModuleHits) -> None:
        have = self.modules.get(m.key)
        if have is None:
            m.settle()
            self.modules[m.key] = m
            return
        have.processes += m.processes
        have.method_states = _merge_states(have.method_states, m.method_states)
        have.not_measured.extend(n for n in m.not_measured if n not in have.not_measured)
        for token, why in m.unmeasured.items():
            have.unmeasured.setdefault(token, why)
        have.unmeasured_sites.update(m.unmeasured_sites)
        have.settle()
        if have.sites == m.sites:
            have.hits = [a + b for a, b in zip(have.hits, m.hits)]
            for name, indexes in m.contexts.items():
                have.contexts.setdefault(name, set()).update(indexes)
            return
        # Same build but a different site list (should not happen): merge by site.
        index = {s: i for i, s in enumerate(have.sites)}
        for s, h in zip(m.sites, m.hits):
            if s in index:
                have.hits[index[s]] += h
            else:
                index[s] = len(have.sites)
                have.sites.append(s)
                have.hits.append(h)
        for name, indexes in m.contexts.items():
            have.contexts.setdefault(name, set()).update(index[m.sites[i]] for i in indexes)


def combined_name() -> str:
    """A combined file's name, unique across machines and processes (and matching PATTERN)."""
    # os.uname and os.urandom rather than socket and secrets, whose imports (hmac, OpenSSL) `dotcov run` paid.
    host = re.sub(r"[^A-Za-z0-9-]", "_", os.uname().nodename) or "host"
    return f"{COMBINED_PREFIX}{host}.{os.getpid()}.{os.urandom(4).hex()}.cov"


def data_files(data_dir: Path) -> list[Path]:
    if not data_dir.is_dir():
        return []
    return sorted(p for p in data_dir.glob(PATTERN) if p.is_file())


def lost_records_message(lost: int, err: int) -> str:
    """What a count of records the agent could not write means for the reports."""
    why = os.strerror(err) if err else "unknown error"
    return (f"the agent could not record {lost} module(s) or method note(s) because the data file could not "
            f"grow ({why}); code loaded after that is missing from the report. "
            "Free space in the data directory and run again")


def _lost_warning(path: Path, lost: int, err: int) -> str:
    return f"{path}: data was lost: {lost_records_message(lost, err)}"


def _parse(path: Path, into: CoverageData) -> dict | None:
    """The native reader's dict of a data file, or None (with a warning) when it is unusable."""
    try:
        return _native.read_data_file(str(path))
    except OSError as e:
        into.warnings.append(f"{path}: cannot read: {e}")
    except ValueError as e:
        into.warnings.append(f"{path}: {e}")
    return None


def _identity(raw: dict) -> tuple[int, int]:
    return (raw["pid"], raw["start_time_ns"])


def read_file(path: Path, into: CoverageData, *, live: bool = False, raw: dict | None = None) -> None:
    raw = raw if raw is not None else _parse(path, into)
    if raw is None:
        return
    for w in raw["warnings"]:
        into.warnings.append(f"{path}: {w}; what could be read was used")
    for w in raw.get("notices", ()):
        into.warnings.append(f"{path}: {w}")
    if raw["warnings"] and not live:  # a live writer may be mid-record
        into.damaged.append(path)
    if raw["lost_records"]:
        into.warnings.append(_lost_warning(path, raw["lost_records"], raw["lost_errno"]))
        into.lost_records += raw["lost_records"]
        into.lost_errno = into.lost_errno or raw["lost_errno"]
    for c in raw["conflicts"]:
        if c not in into.conflicts:
            into.conflicts.append(c)
            into.warnings.append(f"{path}: another coverage tool was at work: {c}")
    into.processes.extend(raw["processes"])
    for m in raw["modules"]:
        module = ModuleHits(m["mvid"], m["pdb_id"], m["path"], None, m["hits"],
                            m.get("processes", 1), bytes(m["method_states"]), list(m["not_measured"]),
                            contexts={name: set(indexes) for name, indexes in m["contexts"].items()})
        module.defer_site_blob(m["site_columns"])
        into.add_module(module)
    into.files.append(path)
    if not live and raw["start_time_ns"]:  # (a combined file of format 5 or older has no identity)
        into.identities.append(_identity(raw))
    into.newest_mtime = max(into.newest_mtime, path.stat().st_mtime)


def _merged_inputs(files: list[Path], into: CoverageData) -> tuple[set[tuple[int, int]], dict[Path, dict]]:
    """The identities every combined file of `files` lists, and those files' parsed contents (read once)."""
    merged: set[tuple[int, int]] = set()
    raws: dict[Path, dict] = {}
    for path in files:
        if path.name.startswith(COMBINED_PREFIX):
            raw = _parse(path, into)
            if raw is not None:
                raws[path] = raw
                merged.update(map(tuple, raw.get("merged_inputs", ())))
    return merged, raws


def _site_columns(blob: bytes) -> tuple[array, array, array]:
    """The native reader's site columns (tokens, offsets, kinds: uint32 each, one column after another)."""
    a = array("I")
    assert a.itemsize == 4
    a.frombytes(blob)
    n = len(a) // 3
    return a[:n], a[n:2 * n], a[2 * n:]


def load(data_dir: Path) -> CoverageData:
    data = CoverageData()
    files = data_files(data_dir)
    merged, raws = _merged_inputs(files, data)
    for path in files:
        raw = raws.get(path) or _parse(path, data)
        if raw is None:
            continue
        if _identity(raw) in merged:  # a combined file holds it already
            data.already_merged.append(path)
            data.identities.append(_identity(raw))
            continue
        read_file(path, data, raw=raw)
    return data


def write(data: CoverageData, path: Path) -> None:
    """Writes merged data atomically: a crash leaves the old file or the new one, never half."""
    modules = []
    for m in data.modules.values():
        tokens, offsets, kinds = m.site_columns()  # (as read: no site tuples made only to be split again)
        modules.append({"mvid": m.mvid, "pdb_id": m.pdb_id, "path": m.path, "tokens": tokens, "offsets": offsets,
                        "kinds": kinds, "hits": m.hits, "method_states": m.method_states,
                        "not_measured": m.not_measured, "contexts": m.contexts})
    # The files it holds (and those already held by one it holds): every later read skips them.
    merged = sorted(set(data.identities))
    import tempfile  # here, as cache_files.py: a command that writes no data file skips its imports

    fd, tmp = tempfile.mkstemp(prefix=".combine.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        _native.write_data_file(tmp, {"pid": os.getpid(), "start_time_ns": time.time_ns(),
                                      "merged_inputs": merged, "processes": data.processes, "modules": modules,
                                      "lost_records": min(data.lost_records, 0xFFFFFFFF),
                                      "lost_errno": data.lost_errno, "conflicts": data.conflicts})
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _try_lock(path: Path, mode: int) -> int | None:
    """An fd holding the file's lock in `mode` (LOCK_EX or LOCK_SH), or None while its writer holds it: a writing
    process holds the lock for its life. FileNotFoundError when the file is gone."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno_names.EWOULDBLOCK, errno_names.EAGAIN):
            return None
        raise
    return fd


def _lock_finished(path: Path) -> int | None:
    """An fd holding the file's lock, or None when its writer is alive (or the file is gone)."""
    try:
        return _try_lock(path, fcntl.LOCK_EX)
    except FileNotFoundError:
        return None


def _damaged_name(path: Path) -> Path:
    """`<name>.damaged`, or `<name>.damaged.N` when that exists: a damaged copy never replaces another."""
    candidate = path.with_name(path.name + ".damaged")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.damaged.{n}")
        n += 1
    return candidate


def combine(data_dir: Path) -> CoverageData:
    """Merges the finished data files of the directory into one, then removes the merged inputs.

    A file whose writer still runs (its flock is held) is read into the result but neither merged
    into the combined file nor removed: it is combined once its process has ended. A damaged file,
    the combined one included, is kept as `<name>.damaged`.
    """
    data = CoverageData()
    files = data_files(data_dir)
    if not files:
        return data
    target = data_dir / combined_name()
    with open(data_dir / LOCK_NAME, "a") as combine_lock:
        fcntl.flock(combine_lock, fcntl.LOCK_EX)  # one combine at a time per directory
        locks: list[int] = []
        try:
            live = []
            for tmp in data_dir.glob(".combine.*.tmp"):  # a combine killed while writing (none runs now)
                tmp.unlink(missing_ok=True)
            files = data_files(data_dir)
            merged, raws = _merged_inputs(files, data)
            for path in files:
                fd = _lock_finished(path)
                if fd is None:
                    if path.exists():
                        live.append(path)
                    continue
                locks.append(fd)
                raw = raws.get(path) or _parse(path, data)
                if raw is not None and _identity(raw) in merged:
                    # An interrupted combine wrote the file that holds it, then stopped: remove it now.
                    data.already_merged.append(path)
                    data.identities.append(_identity(raw))
                    if raw["warnings"]:
                        data.damaged.append(path)
                    continue
                read_file(path, data, raw=raw)
            written = False
            if data.files:
                try:
                    write(data, target)
                    written = True
                except OSError as e:  # a full disk: keep every input as it is
                    data.warnings.append(f"cannot write {target}: {e.strerror or e}; the data files were left "
                                         "as they are (reports read them all)")
            if written:
                for path in data.already_merged + data.files:  # only files that were read are removed
                    if path == target:
                        continue
                    if path in data.damaged:
                        # Keep what could not be read whole, out of the way of later reads.
                        path.rename(_damaged_name(path))
                    else:
                        path.unlink(missing_ok=True)
                data.files = [target]
        finally:
            for fd in locks:
                os.close(fd)
    for path in live:
        data.warnings.append(f"{path} is still being written by a running process; it was read but left in "
                             "place, to be combined once that process ends")
        read_file(path, data, live=True)
        data.live.append(path)
    return data


def set_aside(data_dir: Path) -> Path:
    """Moves the data files (damaged ones too) into DATA_DIR/.previous-run, until the new run has written data
    of its own (`drop_aside`) or has not (`restore_aside`): a command that fails before any .NET process
    recorded coverage keeps the last run's data. What an earlier `dotcov run`, killed, left there comes back
    first when nothing replaced it."""
    aside = data_dir / ASIDE_DIR
    if aside.is_dir() and not data_files(data_dir):
        restore_aside(aside)
    drop_aside(aside)
    aside.mkdir(parents=True)
    for path in data_files(data_dir) + damaged_files(data_dir):
        path.rename(aside / path.name)
    return aside


def restore_aside(aside: Path) -> None:
    for path in sorted(aside.iterdir()) if aside.is_dir() else []:
        path.rename(aside.parent / path.name)
    drop_aside(aside)


def drop_aside(aside: Path) -> None:
    if aside.is_dir():
        for path in aside.iterdir():
            path.unlink(missing_ok=True)
        aside.rmdir()


def damaged_files(data_dir: Path) -> list[Path]:
    """The damaged files combine kept: `<name>.damaged`, and `<name>.damaged.N` when that existed."""
    if not data_dir.is_dir():
        return []
    return sorted(p for p in data_dir.iterdir() if re.fullmatch(r".+\.cov\.damaged(\.[0-9]+)?", p.name))


def erase(data_dir: Path, *, keep_cache: bool = False, keep_aside: bool = False) -> int:
    """Removes the data files (and damaged ones), the cached plans and colours (unless `keep_cache`: `dotcov run`
    keeps them, each checked against what it was made from when read) and the agent logs; returns how many data
    files went."""
    n = 0
    for path in data_files(data_dir):
        path.unlink(missing_ok=True)
        n += 1
    for path in damaged_files(data_dir):
        path.unlink(missing_ok=True)
    if not keep_aside:  # (`dotcov run` keeps the last run's data it set aside)
        drop_aside(data_dir / ASIDE_DIR)
    if not keep_cache:
        clear_tree(data_dir / CACHE_DIR)  # the cached plans (plans/cache.py), and colours an older dotcov kept
    logs = data_dir / "logs"
    if logs.is_dir():
        for path in logs.glob("agent.*.log"):
            path.unlink(missing_ok=True)
    return n


SNAPSHOTS_DIR = "snapshots"  # DATA_DIR/snapshots/<UTC time>: where `dotcov snapshot` writes unless told


def snapshot_dir(data_dir: Path) -> Path:
    """A new snapshot's default directory: DATA_DIR/snapshots/<UTC time to the second>[.N]."""
    base = data_dir / SNAPSHOTS_DIR / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate, n = base, 1
    while candidate.exists():
        candidate = base.with_name(f"{base.name}.{n}")
        n += 1
    return candidate


def _running(path: Path) -> bool:
    """Whether a process still writes the file (it holds the file's lock); tested with a shared lock, so that two
    readers asking at once do not take each other for writers."""
    try:
        fd = _try_lock(path, fcntl.LOCK_SH)
    except FileNotFoundError:
        return False
    if fd is None:
        return True
    os.close(fd)
    return False


def snapshot(data_dir: Path, output: Path, *, ignore_errors: bool = False) -> tuple[CoverageData, Path]:
    """Reads every data file of `data_dir` as it is now, those of running processes too, and writes their merged
    data into the directory `output` as one combined file: a frozen copy that reports read as a data directory,
    and that combines with other data as any combined file does. Nothing in `data_dir` changes, and no combine
    runs meanwhile (its lock, shared here). Returns the data read (`live`: files of running processes) and the file
    written. Each counter of a running process is read once, at some moment of the read: what ran before the
    snapshot began is in it; what runs meanwhile may be in part. A file read in part or not at all is an error
    (unless `ignore_errors`): the sealed copy would no longer show it."""
    if output.resolve() == data_dir.resolve():
        raise DataError(f"the snapshot's directory {output} is the data directory itself; choose another")
    if data_files(output):
        raise DataError(f"{output} already holds coverage data; a snapshot goes into a new or empty directory")
    lock = None
    try:
        lock = open(data_dir / LOCK_NAME, "a")
        fcntl.flock(lock, fcntl.LOCK_SH)
    except OSError:  # a data directory one may only read (a volume mounted read-only): no combine runs there
        pass
    try:
        files = data_files(data_dir)
        if not files:
            raise DataError(f"no coverage data in {data_dir}")
        data = load(data_dir)
        data.live = [path for path in data.files if _running(path)]
    finally:
        if lock is not None:
            lock.close()
    lost = [p for p in files if p not in data.files and p not in data.already_merged] + data.damaged
    if lost and not ignore_errors:
        raise DataError("no snapshot was written: data could not be read whole from " +
                        ", ".join(map(str, lost)) + " (--ignore-errors writes what could be read)")
    try:
        output.mkdir(parents=True, exist_ok=True)
        target = output / combined_name()
        write(data, target)
    except OSError as e:
        raise DataError(f"cannot write the snapshot into {output}: {e.strerror or e}") from e
    return data, target


def attach_notes(data: CoverageData) -> list[str]:
    """What every report says of each process `dotcov attach` loaded the agent into: when, and what it cannot show
    (docs/services.md, "Attach")."""
    return [f"process `{p['command_line']}` was attached at {attach_time(p)}: what it ran before then is not "
            "counted, nor what a method already running then ran until it was called again"
            for p in data.processes if p.get("attached_ns")]


def attach_time(process: dict) -> str:
    """When `dotcov attach` loaded the agent into the process (a process of CoverageData.processes), as shown."""
    return datetime.fromtimestamp(process["attached_ns"] / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
