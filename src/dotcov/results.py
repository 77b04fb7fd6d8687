"""Turns merged counters plus each module's portable PDB into line coverage.

A line's statements are the module's non-hidden sequence points, read as the
user reads lines (lines.py: the points that start on a line decide it, an
enclosing multi-line statement only its continuation lines, never blank or
comment lines). Compiler-generated types (closures, state machines) are
reported under the user type that contains them, and state-machine MoveNext
methods under the method the user wrote.
"""

from __future__ import annotations

import dataclasses
import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path

from dotcov import __version__, _native, html_cache, plan_cache
from dotcov.analysis import add_branches, add_contexts, add_lines
from dotcov.data import CoverageData, ModuleHits
from dotcov.paths import PathMapper
from dotcov.model import AssemblyCoverage, CoverageResult, FileCoverage
from dotcov.packed_plan import apply as apply_plan, pack
from dotcov.plan import WORKER_MIN_SITES, make_plan
from dotcov.plan_worker import BranchWorker
from dotcov.signatures import SignatureError, decode_type, method_signature


@dataclass
class Symbols:
    raw: dict

    @property
    def mvid(self) -> bytes:
        return self.raw["mvid"]

    @property
    def pdb_id(self) -> bytes:
        return self.raw["pdb_id"]

    def type_full_name(self, rid: int) -> str:
        ns, name, enclosing, _flags = self.raw["types"][rid - 1]
        if enclosing:
            return f"{self.type_full_name(enclosing)}/{name}"
        return f"{ns}.{name}" if ns else name

    def user_type(self, rid: int) -> int:
        """The outermost type that is not compiler-generated (`<>c`, `<M>d__1`, display classes)."""
        types = self.raw["types"]
        while True:
            _ns, name, enclosing, _flags = types[rid - 1]
            if name.startswith("<") and enclosing:
                rid = enclosing
            else:
                return rid

    def type_ref_name(self, tag: int, rid: int) -> str:
        try:
            if tag == 0:
                return self.type_full_name(rid)
            if tag == 1:
                ns, name = self.raw["typerefs"][rid - 1]
                return f"{ns}.{name}" if ns else name
            if tag == 2:
                return decode_type(self.raw["typespecs"][rid - 1], self.type_ref_name)
        except (IndexError, SignatureError):
            pass
        return "?"

    def signature(self, method_rid: int) -> str:
        _name, _type, _flags, sig = self.raw["methods"][method_rid - 1]
        known = self.__dict__.setdefault("_signatures", {})  # (one decoding per distinct blob: most methods share)
        found = known.get(sig)
        if found is None:
            try:
                _ret, params = method_signature(sig, self.type_ref_name)
            except SignatureError:
                found = known[sig] = "(?)"
            else:
                found = known[sig] = "(" + ",".join(params) + ")"
        return found


class SymbolsError(Exception):
    pass


# Portable PDB document hash algorithms (the Document table's HashAlgorithm GUID).
_HASHES = {
    "ff1816ec-aa5e-4d10-87f7-6f4963833460": "sha1",
    "8829d00f-11b8-4213-878b-770e8597ac16": "sha256",
}


class SourceChecks:
    """Checks each source file once against the checksum its PDB records (stale sources)."""

    def __init__(self) -> None:
        self._digests: dict[tuple[str, str], str | None] = {}

    def stale(self, path: str, algorithm: bytes, expected: bytes) -> str | None:
        """Why `path` is not the file that was compiled, or None (it is, or it cannot be told)."""
        name = _HASHES.get(str(uuid.UUID(bytes_le=algorithm))) if len(algorithm) == 16 else None
        if name is None or not expected:
            return None
        key = (path, name)
        if key not in self._digests:
            try:
                with open(path, "rb") as f:
                    self._digests[key] = hashlib.file_digest(f, name).hexdigest()
            except OSError:
                self._digests[key] = None  # missing: the reports say so where they show source
        digest = self._digests[key]
        if digest is None or digest == expected.hex():
            return None
        return f"changed since it was compiled (its {name.upper()} differs from the one in the PDB); " \
               "line numbers may not match: rebuild and run the tests again"


@dataclass
class ReportOptions:
    """What the reports include, and where paths point (dotcov.toml [report] and [paths])."""

    filters: Filters | None = None
    skip_auto_properties: bool = False
    all_branches: bool = False
    paths: dict[str, list[str]] | None = None
    contexts: bool = False  # also each line's per-test contexts (FileCoverage.contexts; contexts.py)


def load_symbols(module: ModuleHits, path: str | None = None) -> Symbols:
    """Reads the module's symbols from `path` (its recorded path, or where [paths] maps it)."""
    path = path or module.path
    try:
        raw = _native.read_symbols(path)
    except (OSError, ValueError) as e:
        raise SymbolsError(f"{path}: {e}") from e
    if raw["mvid"] != module.mvid:
        raise SymbolsError(
            f"{module.path} was rebuilt after the coverage run (its MVID changed); "
            "run the tests again to report it"
        )
    if raw["pdb_id"] != module.pdb_id:
        raise SymbolsError(f"{module.path}: its PDB changed after the coverage run (PDB id differs); run again")
    return Symbols(raw)


def module_coverage(module: ModuleHits, sym: Symbols, options: ReportOptions | None = None,
                    mapper: PathMapper | None = None, checks: SourceChecks | None = None) -> AssemblyCoverage:
    """The model of one module build: its plan (plan.py: what does not depend on hits) with its hits."""
    options = options or ReportOptions()
    the_plan = pack(make_plan(module, sym, options, mapper or PathMapper(), checks or SourceChecks()))
    return apply_plan(the_plan, module, contexts=options.contexts)


def build(data: CoverageData, source_root: Path, options: ReportOptions | None = None, *,
          all_branches: bool | None = None,
          not_loaded: list[ModuleHits] = (), cache_dir: Path | None = None) -> tuple[CoverageResult, list[str]]:
    """Returns the result and the problems found (modules that could not be reported).

    cache_dir: where module plans are kept between commands (plan_cache.py; default none: always built).

    all_branches (default: options.all_branches, False) also reports the branches the
    compiler generated; see branches.py."""
    options = options or ReportOptions()
    if all_branches is not None:
        options = dataclasses.replace(options, all_branches=all_branches)
    mapper = PathMapper(options.paths, source_root)
    result = CoverageResult(source_root=str(source_root), timestamp=int(data.newest_mtime))
    problems: list[str] = []
    by_name: dict[str, AssemblyCoverage] = {}
    checks = SourceChecks()
    unloaded = {id(m) for m in not_loaded}
    for module in [*data.modules.values(), *not_loaded]:
        assembly = mapper.map(module.path)
        key = plan_cache.cache_key(module, options, mapper, __version__) if cache_dir is not None else None
        the_plan = plan_cache.load(cache_dir, key, mapper, module.path) if key is not None else None
        asm = None
        if the_plan is not None:
            try:
                asm = apply_plan(the_plan, module, contexts=options.contexts)
            except (ValueError, IndexError, KeyError, TypeError):
                the_plan = None  # a kept plan that does not add up (packed_plan.apply checks it): made again
        if the_plan is None:
            # The branch analysis starts in a worker now, while this process reads the symbols (plan_worker.py).
            # With a cache, it then colours the sources for a later `dotcov html` (html_cache.py) while this process
            # finishes: the core it would leave idle.
            colour_dir = str(cache_dir / html_cache.SUBDIR) if key is not None else None
            worker = BranchWorker(module, mapper, start=len(module.hits) >= WORKER_MIN_SITES, colour_dir=colour_dir)
            try:
                sym = load_symbols(module, assembly)
            except SymbolsError as e:
                worker.close()
                problems.append(str(e))
                continue
            pdb, documents = sym.raw.get("pdb_path") or "", sym.raw["documents"]
            try:
                read = plan_cache.inputs(assembly, pdb, documents, mapper, module.path) if key is not None else None
                the_plan = pack(make_plan(module, sym, options, mapper, checks, worker=worker))
            finally:
                worker.close()
            if key is not None:
                plan_cache.store(cache_dir, key, the_plan, assembly=assembly, pdb=pdb, documents=documents, read=read)
            asm = apply_plan(the_plan, module, contexts=options.contexts)
        asm.not_loaded = id(module) in unloaded
        if not asm.files:
            continue  # everything filtered out
        have = by_name.get(asm.name)
        if have is None:
            by_name[asm.name] = asm
            continue
        # Another build of the same assembly (e.g. another target framework): merge.
        # The one merge rule (analysis.py): hits add, branch outcomes matched by their place in the source.
        for path, fc in asm.files.items():
            into = have.files.setdefault(path, FileCoverage(path))
            into.lines = dict(into.lines)  # (not the map a class of `have` may share: packed_plan.apply)
            add_lines(into.lines, fc.lines)
            add_branches(into.branches, fc.branches)
            add_contexts(into.contexts, fc.contexts)
            into.stale = into.stale or fc.stale
            into.excluded = (into.excluded | fc.excluded) - into.lines.keys()
            for line, why in fc.not_measured.items():
                if line not in into.lines:
                    into.not_measured.setdefault(line, why)
        have.classes.extend(asm.classes)
    result.assemblies = [by_name[n] for n in sorted(by_name)]
    result.not_loaded = sorted(a.name for a in result.assemblies if a.not_loaded)
    return result, problems


def relative_name(path: str, root: str) -> str:
    p = Path(path)
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()
