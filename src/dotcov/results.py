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
import re
from dataclasses import dataclass
from pathlib import Path

from dotcov import _native, branches, lines as line_rule
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


@dataclass
class ReportOptions:
    """What the reports include, and where paths point (dotcov.toml [report] and [paths])."""

    filters: Filters | None = None
    skip_auto_properties: bool = False
    all_branches: bool = False
    paths: dict[str, list[str]] | None = None


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
                    mapper: PathMapper | None = None) -> AssemblyCoverage:
    options = options or ReportOptions()
    mapper = mapper or PathMapper()
    asm = AssemblyCoverage(sym.raw["assembly_name"])
    filters = options.filters or Filters()
    excluded = excluded_methods(sym, asm.name, ExclusionOptions(filters, options.skip_auto_properties))
    hits = {(token, offset): h for (token, offset, kind), h in zip(module.sites, module.hits) if kind == 0}
    documents = sym.raw["documents"]
    classes: dict[tuple[int, str], ClassCoverage] = {}
    methods: dict[tuple[int, str, int], MethodCoverage] = {}
    spans: dict[str, list[tuple[line_rule.Span, ClassCoverage, MethodCoverage]]] = {}  # path -> points
    def is_generated(rid: int) -> bool:
        name = sym.raw["methods"][_user_method(sym, rid) - 1][0]
        return bool(_GENERATED_METHOD.match(name))

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
        for offset, start_line, _sc, end_line, _ec, doc in points:
            if not 0 < doc <= len(documents):
                continue
            path = mapper.map(documents[doc - 1], near=module.path)
            if filters.files and filters.file_excluded(path):
                continue
            h = hits.get((token, offset), 0)
            fc = asm.files.setdefault(path, FileCoverage(path))
            if rid in excluded:
                fc.excluded.update(range(start_line, end_line + 1))
                continue
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
                    mc = methods[mkey] = MethodCoverage(name, sym.signature(owner_rid), token=0x06000000 | owner_rid)
                    cc.methods.append(mc)
            mc.points.append(PointCoverage(token, offset, start_line, _sc, end_line, _ec, h))
            spans.setdefault(path, []).append((line_rule.Span(start_line, _sc, end_line, _ec, h), cc, mc))
    for path, found in spans.items():  # each line decided by its own points (lines.py)
        text = line_rule.read_source(path)
        free = line_rule.code_free_lines(text, Path(path).suffix) if text is not None else set()
        points = [s for s, _cc, _mc in found]
        for line, ix in line_rule.deciding_points(points, free).items():
            h = max(points[i].hits for i in ix)
            asm.files[path].lines[line] = h
            for i in ix:
                for lines in (found[i][1].lines, found[i][2].lines):
                    lines[line] = max(lines.get(line, 0), h)
    for path, fc in list(asm.files.items()):
        fc.excluded -= set(fc.lines)
        if not fc.lines:  # wholly excluded: not a file of the report
            del asm.files[path]
    asm.classes = sorted(classes.values(), key=lambda c: (c.name, c.filename))
    # Branch outcomes, on the lines of the files and methods kept above (see branches.py).
    records = branches.analyse(module, sym, assembly_path=mapper.map(module.path),
                               path_of=lambda doc: mapper.map(doc, near=module.path))
    records = [r for r in records if (r.method_token & 0x00FFFFFF) not in excluded]
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
            for c in asm.classes:
                for m in (m for m in c.methods if c.filename == r.path and m.token == owner):
                    for lines in (asm.files[r.path].lines, c.lines, m.lines):
                        lines[r.line] = sum(r.outcomes.values())
        candidates = [m for c in asm.classes if c.filename == r.path for m in c.methods if r.line in m.lines]
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


def _merge_branches(into: FileCoverage, fc: FileCoverage) -> None:
    for line, b in fc.branches.items():
        have = into.branches.get(line)
        if have is None:
            into.branches[line] = BranchCoverage(b.covered, b.total, list(b.missed_outcomes),
                                                 list(b.conditions), list(b.outcome_hits))
        else:
            have.covered += b.covered
            have.total += b.total
            have.missed_outcomes.extend(b.missed_outcomes)
            have.outcome_hits.extend(b.outcome_hits)


def build(data: CoverageData, source_root: Path, options: ReportOptions | None = None, *,
          all_branches: bool | None = None) -> tuple[CoverageResult, list[str]]:
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
    for module in data.modules.values():
        try:
            sym = load_symbols(module, mapper.map(module.path))
        except SymbolsError as e:
            problems.append(str(e))
            continue
        asm = module_coverage(module, sym, options, mapper)
        if not asm.files:
            continue  # everything filtered out
        have = by_name.get(asm.name)
        if have is None:
            by_name[asm.name] = asm
            continue
        # Another build of the same assembly (e.g. another target framework): merge.
        for path, fc in asm.files.items():
            into = have.files.setdefault(path, FileCoverage(path))
            for line, h in fc.lines.items():
                into.lines[line] = into.lines.get(line, 0) + h
            _merge_branches(into, fc)
        have.classes.extend(asm.classes)
    result.assemblies = [by_name[n] for n in sorted(by_name)]
    return result, problems


def relative_name(path: str, root: str) -> str:
    p = Path(path)
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()
