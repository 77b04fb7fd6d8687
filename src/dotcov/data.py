"""Coverage data files: reading, merging, combining and erasing them.

Each covered process writes `dotcov.<pid>.<random>.cov` into the data directory
(format: docs/architecture.md). `combine` merges them into
`dotcov.combined.<host>.<pid>.<random>.cov`, keeping hit counts: a name of its own, so
the combined files of CI shards copied into one directory never overwrite each other.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from dotcov import _native

COMBINED_PREFIX = "dotcov.combined."
PATTERN = "*.cov"


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
    unmeasured: dict[int, str] = field(default_factory=dict)  # MethodDef token -> why the agent could not instrument it

    @property
    def key(self) -> tuple[bytes, bytes]:
        return (self.mvid, self.pdb_id)


@dataclass
class CoverageData:
    modules: dict[tuple[bytes, bytes], ModuleHits] = field(default_factory=dict)
    processes: list[dict] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    damaged: list[Path] = field(default_factory=list)  # read only in part
    newest_mtime: float = 0.0

    def add_module(self, m: ModuleHits) -> None:
        have = self.modules.get(m.key)
        if have is None:
            self.modules[m.key] = m
            return
        have.processes += m.processes
        if have.sites == m.sites:
            have.hits = [a + b for a, b in zip(have.hits, m.hits)]
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


def combined_name() -> str:
    """A combined file's name, unique across machines and processes (and matching PATTERN)."""
    host = re.sub(r"[^A-Za-z0-9-]", "_", socket.gethostname()) or "host"
    return f"{COMBINED_PREFIX}{host}.{os.getpid()}.{secrets.token_hex(4)}.cov"


def data_files(data_dir: Path) -> list[Path]:
    if not data_dir.is_dir():
        return []
    return sorted(p for p in data_dir.glob(PATTERN) if p.is_file())


def read_file(path: Path, into: CoverageData) -> None:
    try:
        raw = _native.read_data_file(str(path))
    except OSError as e:
        into.warnings.append(f"{path}: cannot read: {e}")
        return
    except ValueError as e:
        into.warnings.append(f"{path}: {e}")
        return
    for w in raw["warnings"]:
        into.warnings.append(f"{path}: {w}; the data before that point was used")
    if raw["warnings"]:
        into.damaged.append(path)
    into.processes.extend(raw["processes"])
    for m in raw["modules"]:
        into.add_module(ModuleHits(m["mvid"], m["pdb_id"], m["path"],
                                   list(zip(m["tokens"], m["offsets"], m["kinds"])), list(m["hits"]),
                                   m.get("processes", 1)))
    into.files.append(path)
    into.newest_mtime = max(into.newest_mtime, path.stat().st_mtime)


def load(data_dir: Path) -> CoverageData:
    data = CoverageData()
    for path in data_files(data_dir):
        read_file(path, data)
    return data


def write(data: CoverageData, path: Path) -> None:
    """Writes merged data atomically: a crash leaves the old file or the new one, never half."""
    modules = [
        {"mvid": m.mvid, "pdb_id": m.pdb_id, "path": m.path, "tokens": [s[0] for s in m.sites],
         "offsets": [s[1] for s in m.sites], "kinds": [s[2] for s in m.sites], "hits": m.hits}
        for m in data.modules.values()
    ]
    fd, tmp = tempfile.mkstemp(prefix=".combine.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        _native.write_data_file(tmp, {"processes": data.processes, "modules": modules})
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def combine(data_dir: Path) -> CoverageData:
    """Merges every data file of the directory into one, then removes the merged inputs."""
    files = data_files(data_dir)
    data = CoverageData()
    for path in files:
        read_file(path, data)
    if not files:
        return data
    target = data_dir / combined_name()
    write(data, target)
    for path in data.files:  # only files that were read are removed
        if path == target:
            continue
        if path in data.damaged:
            # Keep what could not be read whole, out of the way of later reads.
            path.rename(path.with_name(path.name + ".damaged"))
        else:
            path.unlink(missing_ok=True)
    data.files = [target]
    return data


def erase(data_dir: Path) -> int:
    """Removes the data files (and damaged ones) and the agent logs; returns how many data files went."""
    n = 0
    for path in data_files(data_dir):
        path.unlink(missing_ok=True)
        n += 1
    if data_dir.is_dir():
        for path in data_dir.glob("*.cov.damaged"):
            path.unlink(missing_ok=True)
    logs = data_dir / "logs"
    if logs.is_dir():
        for path in logs.glob("agent.*.log"):
            path.unlink(missing_ok=True)
    return n
