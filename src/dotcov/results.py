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
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from dotcov import _native, branches, lines as line_rule
from dotcov.analysis import add_branches, add_contexts, add_lines
from dotcov.contexts import site_contexts
from dotcov.data import CoverageData, ModuleHits
from dotcov.exclusions import ExclusionOptions, excluded_methods
from dotcov.filters import Filters
from dotcov.paths import PathMapper
from dotcov.model import AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage, PointCoverage
from dotcov.signatures import SignatureError, decode_type, method_signature

# `<Name>b__0_0`, `<Name>d__3`, `<Name>g__Local|0_0` -> Name
_GENERATED_METHOD = re.compile(r"^<([^>]*)>")


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
        try:
            _ret, params = method_signature(sig, self.type_ref_name)
        except SignatureError:
            return "(?)"
        return "(" + ",".join(params) + ")"


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


def _user_method(sym: Symbols, rid: int) -> int:
    """MoveNext of an async/iterator state machine reports as the method the user wrote."""
    return sym.raw["kickoff"].get(rid, rid)


def module_coverage(module: ModuleHits, sym: Symbols, options: ReportOptions | None = None,
                    mapper: PathMapper | None = None, checks: SourceChecks | None = None) -> AssemblyCoverage:
    options = options or ReportOptions()
    checks = checks or SourceChecks()
    mapper = mapper or PathMapper()
    asm = AssemblyCoverage(sym.raw["assembly_name"])
    filters = options.filters or Filters()
    excluded = excluded_methods(sym, asm.name, ExclusionOptions(filters, options.skip_auto_properties))
    hits = {(token, offset): h for (token, offset, kind), h in zip(module.sites, module.hits) if kind == 0}
    documents = sym.raw["documents"]
    # Methods the agent could not instrument (token -> why): their lines are "not measured".
    unmeasured = {token & 0x00FFFFFF: why for token, why in getattr(module, "unmeasured", {}).items()}
    classes: dict[tuple[int, str], ClassCoverage] = {}
    methods: dict[tuple[int, str, int], MethodCoverage] = {}
    # path -> (its points, each point's (class, method)), in the order read
    spans: dict[str, tuple[list[PointCoverage], list[tuple[ClassCoverage, MethodCoverage]]]] = {}
    # Per-test contexts, only when asked for and recorded: (token, offset) -> tests, and each span's place.
    point_ctx, branch_ctx = site_contexts(module) if options.contexts and module.contexts else ({}, {})
    span_places: dict[str, list[tuple[int, int]]] = {}
    def is_generated(rid: int) -> bool:
        name = sym.raw["methods"][_user_method(sym, rid) - 1][0]
        return bool(_GENERATED_METHOD.match(name))

    # Each document's path once (mapping and file filters cost a lot per point at scale).
    doc_paths: list[str | None] = [None]
    for d in documents:
        path = mapper.map(d, near=module.path)
        doc_paths.append(None if filters.files and filters.file_excluded(path) else path)
    n_docs = len(documents)

    # User-written methods first, so lambdas and local functions find the method they fold into.
    order = sorted(sym.raw["sequence_points"], key=lambda r: (is_generated(r), r))
    for rid in order:
        points = sym.raw["sequence_points"][rid]
        token = 0x06000000 | rid
        owner_rid = _user_method(sym, rid)
        name, type_rid, _flags, _sig = sym.raw["methods"][owner_rid - 1]
        generated = _GENERATED_METHOD.match(name)
        if generated and generated.group(1):
            name = generated.group(1)
        user_type = sym.user_type(type_rid) if type_rid else 0
        class_name = sym.type_full_name(user_type) if user_type else "<Module>"
        if line_rule.generated_member(sym.raw["methods"][rid - 1][0], sym.raw.get("attributes", {}).get(token, [])):
            continue  # e.g. a record's copy constructor: no statement the user wrote
        is_excluded = rid in excluded
        why = unmeasured.get(rid) or unmeasured.get(owner_rid)
        last_path = fc = cc = mc = None
        place = found = places = None
        for offset, start_line, _sc, end_line, _ec, doc in points:
            if not 0 < doc <= n_docs:
                continue
            path = doc_paths[doc]
            if path is None:  # excluded by --exclude-by-file
                continue
            if path is not last_path:
                last_path, mc = path, None
                fc = asm.files.get(path)
                if fc is None:
                    fc = asm.files[path] = FileCoverage(path)
            if is_excluded:
                fc.excluded.update(range(start_line, end_line + 1))
                continue
            if why is not None:
                for line in range(start_line, end_line + 1):
                    fc.not_measured.setdefault(line, why)
                continue
            if mc is None:  # a new method or file: find its class and method, and the file's point lists
                cc = classes.get((user_type, path))
                if cc is None:
                    cc = classes[(user_type, path)] = ClassCoverage(class_name, path)
                if generated:
                    mc = next((m for m in cc.methods if m.name == name), None)
                    if mc is None:
                        mc = MethodCoverage(name, sym.signature(owner_rid), token=0x06000000 | owner_rid)
                        cc.methods.append(mc)
                else:
                    mkey = (user_type, path, owner_rid)
                    mc = methods.get(mkey)
                    if mc is None:
                        mc = methods[mkey] = MethodCoverage(name, sym.signature(owner_rid),
                                                           token=0x06000000 | owner_rid)
                        cc.methods.append(mc)
                place = (cc, mc)
                found = spans.get(path)
                if found is None:
                    found = spans[path] = ([], [])
                if point_ctx:
                    places = span_places.setdefault(path, [])
            # The point is its own span (lines.py reads start_line, end_line and hits).
            pc = PointCoverage(token, offset, start_line, _sc, end_line, _ec, hits.get((token, offset), 0))
            mc.points.append(pc)
            found[0].append(pc)
            found[1].append(place)
            if places is not None:
                places.append((token, offset))
    for path, (points, owners_of) in spans.items():  # each line decided by its own points (lines.py)
        text = line_rule.read_source(path)
        free = line_rule.CodeFreeLines(text, Path(path).suffix) if text is not None else set()
        places = span_places.get(path)
        file_lines = asm.files[path].lines
        for line, ix in line_rule.deciding_points(points, free).items():
            if len(ix) == 1:
                i = ix[0]
                h = points[i].hits
                file_lines[line] = h
                cc, mc = owners_of[i]
                if line not in cc.lines or cc.lines[line] < h:
                    cc.lines[line] = h
                if line not in mc.lines or mc.lines[line] < h:
                    mc.lines[line] = h
            else:
                h = max(points[i].hits for i in ix)
                file_lines[line] = h
                for i in ix:
                    for lines in owners_of[i]:
                        lines = lines.lines
                        lines[line] = max(lines.get(line, 0), h)
            if places:  # the tests that ran the very points whose hits decide the line
                ctx = frozenset().union(*(point_ctx.get(places[i], ()) for i in ix))
                if ctx:
                    asm.files[path].contexts[line] = ctx
    # (path, token) -> its methods: no scans below.
    owners: dict[tuple[str, int], list[tuple[MethodCoverage, ClassCoverage]]] = {}
    for cc in classes.values():
        for mc in cc.methods:
            owners.setdefault((cc.filename, mc.token), []).append((mc, cc))
    hashes = sym.raw.get("document_hashes") or []
    for doc, (algorithm, expected) in enumerate(hashes, start=1):
        fc = asm.files.get(mapper.map(documents[doc - 1], near=module.path))
        if fc is not None and fc.stale is None:
            fc.stale = checks.stale(fc.path, algorithm, expected)
    for path, fc in list(asm.files.items()):
        fc.excluded -= set(fc.lines)
        for line in [n for n in fc.not_measured if n in fc.lines]:
            del fc.not_measured[line]
        if not fc.lines and not fc.not_measured:  # wholly excluded: not a file of the report
            del asm.files[path]
    asm.classes = sorted(classes.values(), key=lambda c: (c.name, c.filename))
    # Branch outcomes, on the lines of the files and methods kept above (see branches.py).
    records = branches.analyse(module, sym, assembly_path=mapper.map(module.path),
                               path_of=lambda doc: mapper.map(doc, near=module.path))
    records = [r for r in records if (r.method_token & 0x00FFFFFF) not in excluded
               and _user_method(sym, r.method_token & 0x00FFFFFF) not in unmeasured
               and (r.method_token & 0x00FFFFFF) not in unmeasured]
    # (path, line) -> the methods with a statement there, for the lines that have branch records only.
    methods_at: dict[tuple[str, int], list[MethodCoverage]] = {}
    wanted: dict[str, set[int]] = {}
    for r in records:
        wanted.setdefault(r.path, set()).add(r.line)
    for cc in classes.values():
        lines_wanted = wanted.get(cc.filename)
        if lines_wanted:
            for mc in cc.methods:
                for line in lines_wanted.intersection(mc.lines):
                    methods_at.setdefault((cc.filename, line), []).append(mc)
    for path, lines in branches.by_line(records, all_branches=options.all_branches).items():
        fc = asm.files.get(path)
        if fc is not None:
            fc.branches.update(lines)
    # The same outcomes per method and line, with each branch instruction as a condition (Cobertura).
    for r in records:
        if r.generated and not options.all_branches:
            continue
        owner = 0x06000000 | _user_method(sym, r.method_token & 0x00FFFFFF)
        if r.arms is not None and r.path in asm.files and r.line not in asm.files[r.path].lines:
            # A Release `switch (k)` line has no sequence point; its dispatch ran once per arm taken.
            for m, c in owners.get((r.path, owner), []):
                for lines in (asm.files[r.path].lines, c.lines, m.lines):
                    lines[r.line] = sum(r.outcomes.values())
                methods_at.setdefault((r.path, r.line), []).append(m)
            ctx = branch_ctx.get((r.method_token, r.offset))
            if ctx and r.line in asm.files[r.path].lines:  # the tests whose dispatch ran the switch's first
                # branch instruction (every dispatch does)
                asm.files[r.path].contexts[r.line] = ctx
        candidates = methods_at.get((r.path, r.line), [])
        mc = next((m for m in candidates if m.token == owner), candidates[0] if candidates else None)
        if mc is None:
            continue
        b = mc.branches.setdefault(r.line, BranchCoverage(0, 0))
        covered = sum(1 for h in r.outcomes.values() if h > 0)
        b.covered += covered
        b.total += len(r.outcomes)
        b.missed_outcomes.extend(r.missed())
        b.conditions.append((r.offset, "switch" if r.is_switch else "jump", covered, len(r.outcomes)))
        b.outcome_hits.append((r.offset, [r.outcomes[k] for k in sorted(r.outcomes)]))
    return asm


def build(data: CoverageData, source_root: Path, options: ReportOptions | None = None, *,
          all_branches: bool | None = None,
          not_loaded: list[ModuleHits] = ()) -> tuple[CoverageResult, list[str]]:
    """Returns the result and the problems found (modules that could not be reported).

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
        try:
            sym = load_symbols(module, mapper.map(module.path))
        except SymbolsError as e:
            problems.append(str(e))
            continue
        asm = module_coverage(module, sym, options, mapper, checks)
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
