"""OpenCover XML, as SonarQube's OpenCover importer and ReportGenerator read it.

    <?xml version="1.0" encoding="utf-8"?>
    <CoverageSession xmlns:xsd=".../XMLSchema" xmlns:xsi=".../XMLSchema-instance">
      <Summary numSequencePoints visitedSequencePoints numBranchPoints visitedBranchPoints sequenceCoverage
               branchCoverage maxCyclomaticComplexity minCyclomaticComplexity visitedClasses numClasses
               visitedMethods numMethods />
      <Modules>
        <Module hash="…">
          <Summary … />
          <ModulePath>Calc</ModulePath> <ModuleTime>…</ModuleTime> <ModuleName>Calc</ModuleName>
          <Files><File uid="1" fullPath="/abs/Calc/Calculator.cs" /></Files>
          <Classes>
            <Class>
              <Summary … /> <FullName>Calc.Calculator</FullName>
              <Methods>
                <Method visited cyclomaticComplexity nPathComplexity sequenceCoverage branchCoverage
                        isConstructor isGetter isSetter isStatic crapScore>
                  <Summary … /> <MetadataToken>100663297</MetadataToken>
                  <Name>Calc.Calculator::Add(System.Int32,System.Int32)</Name>
                  <FileRef uid="1" />
                  <SequencePoints><SequencePoint vc uspid ordinal offset sl sc el ec bec bev fileid /></SequencePoints>
                  <BranchPoints />
                  <MethodPoint xsi:type="SequencePoint" … (the first sequence point again) />

What the consumers read (checked in their parsers): SonarQube takes the root tag, File uid/fullPath,
SequencePoint sl/vc/fileid (falling back to the FileRef) and BranchPoint sl/vc/offset/offsetend/path;
it keys files by uid across the whole session. ReportGenerator groups modules by ModuleName, classes by
FullName (nested "Outer/Inner" under "Outer"), reads each SequencePoint's sl..el and vc, the method
metrics (cyclomaticComplexity, nPathComplexity, sequenceCoverage, branchCoverage, parsed
culture-invariant) and the method name as `…::Name(Args)`.

Decisions, and where they depart from coverlet's OpenCover output:

* SequencePoints are one per statement line of the method (lambdas and state machines folded into the
  method they belong to), sl = el = the line, with the line's hits as the line rule gives them
  (docs/accuracy.md): a multi-line PDB sequence point would make a consumer that reads sl..el count the
  lines of a lambda or switch arm inside it that never ran. Each carries the IL offset and columns of the
  first real sequence point that starts on its line (a continuation line: the offset of the innermost point
  spanning it, sc="1", ec="2", as coverlet writes its per-line points). Points are in source order; `ordinal` counts them within the
  method; `uspid` numbers every SequencePoint of the session from 1. The MethodPoint is the method's first
  sequence point written again (same uspid), as OpenCover writes it; coverlet writes uspid="0" there.
* Summaries count sequence points, which are the statement lines: the terminal table's numbers. A
  consumer rebuilding line coverage from the points (lines sl..el, hits added across modules, as
  ReportGenerator does) gets exactly the table's rows and TOTAL, and so does SonarQube, which reads each
  point's start line.
* One <Class> per type and module (OpenCover's shape), each method pointing at its file with FileRef;
  coverlet writes one per (type, file). File uids are unique in the session, one per path.
* Booleans are "true"/"false" (xs:boolean, as OpenCover writes them; coverlet writes "True"/"False").
  Every reader checked compares them case-insensitively, except ReportGenerator's `visited`, which
  must be lower-case (coverlet leaves `visited` out).
* isConstructor for `.ctor`/`.cctor`, isGetter/isSetter for `get_`/`set_` names (coverlet tests for a
  substring, which misfires on names like `Target_get_X`). isStatic: the model has no flag, so it is
  "true" only for `.cctor` and "false" otherwise (coverlet writes "True" for nearly every method).
* <Name> is `Namespace.Type::Method(Parameters)` without the return type, which the model does not
  hold (OpenCover and coverlet write `ReturnType Namespace.Type::Method(Parameters)`). ReportGenerator's
  name pattern `^.*::(Name)\\((Args)\\)$` and SonarQube (which ignores names) accept it.
* cyclomaticComplexity is the method's complexity from its user branches (analysis.cyclomatic_complexity,
  docs/reports.md); a Summary's max/minCyclomaticComplexity are the largest and smallest of its methods'
  (OpenCover's meaning at every level; coverlet's module and session Summaries take the max/min of the
  modules' sums instead), 0 with no methods. nPathComplexity is "0": dotcov does not count paths.
  crapScore (OpenCover 4.7's attribute, which ReportGenerator reads) is the method's CRAP score
  (analysis.crap_score) with 2 decimals.
* Branches: one <BranchPoint> per outcome of each branch instruction (offset = the instruction's IL
  offset, path = the outcome: fall-through first, then each target, vc = its hits, sl = its line;
  offsetend repeats the offset, as the targets' offsets are not in the model). A line's outcome counts
  also go into the bec/bev of the first sequence point starting on that line, and into the summaries. Without any branch data in the
  result, branch counts and branchCoverage are "0" (as cobertura.py's branch-rate); with some, a method
  without branches has branchCoverage "100" (coverlet's convention for nothing to cover).
* Percentages are truncated to 2 decimals ("66.66"), as coverlet writes them.
* The session's <Summary> counts each source file once, as every other report's total (a file compiled
  into two modules is not counted twice); a <Module>'s Summary counts the module's own view.
* The model holds no module file: ModulePath is the assembly name, the module hash the SHA-1 of that
  name (stable, unlike coverlet's random GUID), ModuleTime the data's timestamp in UTC. Nothing read
  by the consumers above depends on them.
* fullPath is always absolute (SonarQube resolves it against its own working directory).
* Everything is sorted (modules by name, classes by name, methods by file, first line, name,
  signature, points by position) and nothing depends on the clock, so output is stable.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath

from dotcov.analysis import Analysis, AssemblyAnalysis, ClassAnalysis, MethodAnalysis
from dotcov.model import BranchCoverage, CoverageResult
from dotcov.output import truncated_percent as _percent
from dotcov.output import write_atomic
from dotcov.xmlwriter import XmlWriter as _Writer

XSD = "http://www.w3.org/2001/XMLSchema"
XSI = "http://www.w3.org/2001/XMLSchema-instance"


def _bool(value: bool) -> str:
    return "true" if value else "false"


@dataclass
class _Counts:
    points: int = 0
    visited_points: int = 0
    branches: int = 0
    visited_branches: int = 0
    classes: int = 0
    visited_classes: int = 0
    methods: int = 0
    visited_methods: int = 0
    complexities: tuple[int, ...] = ()  # each method's cyclomatic complexity

    def add(self, other: _Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def sequence_coverage(self) -> str:
        return _percent(self.visited_points, self.points)

    def branch_coverage(self, measured: bool) -> str:
        return _percent(self.visited_branches, self.branches) if measured else "0"

    def attrs(self, measured: bool) -> list[tuple[str, object]]:
        return [
            ("numSequencePoints", self.points),
            ("visitedSequencePoints", self.visited_points),
            ("numBranchPoints", self.branches),
            ("visitedBranchPoints", self.visited_branches),
            ("sequenceCoverage", self.sequence_coverage()),
            ("branchCoverage", self.branch_coverage(measured)),
            ("maxCyclomaticComplexity", max(self.complexities, default=0)),
            ("minCyclomaticComplexity", min(self.complexities, default=0)),
            ("visitedClasses", self.visited_classes),
            ("numClasses", self.classes),
            ("visitedMethods", self.visited_methods),
            ("numMethods", self.methods),
        ]


@dataclass
class _Point:
    vc: int
    offset: int | None
    sl: int
    sc: int
    el: int
    ec: int
    bec: int = 0
    bev: int = 0


def _points(m: MethodAnalysis) -> list[_Point]:
    """One SequencePoint per statement line of the method, with that line's hits (docs/accuracy.md's
    line rule), so a consumer reading sl..el gets the table's lines. The IL offset and columns are those
    of the first real sequence point starting on the line, when one does (a continuation line has none)."""
    starts: dict[int, object] = {}
    for p in sorted(m.points, key=lambda p: p.il_offset):
        starts.setdefault(p.start_line, p)
    out = []
    for line, hits in sorted(m.lines.items()):
        p = starts.get(line)
        if p is not None:
            end_column = p.end_column if p.end_line == line else p.start_column + 1
            out.append(_Point(hits, p.il_offset, line, p.start_column, line, end_column))
            continue
        # A continuation line: the offset of the innermost point spanning it (none without points).
        spanning = [q for q in m.points if q.start_line < line <= q.end_line]
        inner = max(spanning, key=lambda q: (q.start_line, -q.il_offset), default=None)
        out.append(_Point(hits, inner.il_offset if inner else None, line, 1, line, 2))
    return out


def _module_hash(name: str) -> str:
    return "-".join(f"{b:02X}" for b in hashlib.sha1(name.encode("utf-8", "surrogatepass")).digest())


def _time(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Session:
    def __init__(self, analysis: Analysis, measured: bool) -> None:
        self.measured = measured
        self.next_uspid = 1
        paths = set()
        for asm in analysis.assemblies:
            paths |= {f.path for f in asm.files}
        self.uids = {path: i for i, path in enumerate(sorted(paths), start=1)}

    def point_attrs(self, p: _Point, uspid: int, ordinal: int, fileid: int) -> list[tuple[str, object]]:
        attrs: list[tuple[str, object]] = [("vc", p.vc), ("uspid", uspid), ("ordinal", ordinal)]
        if p.offset is not None:
            attrs.append(("offset", p.offset))
        attrs += [("sl", p.sl), ("sc", p.sc), ("el", p.el), ("ec", p.ec), ("bec", p.bec), ("bev", p.bev),
                  ("fileid", fileid)]
        return attrs

    def method(self, w: _Writer, cls: ClassAnalysis, m: MethodAnalysis, branches: dict[int, BranchCoverage],
               claimed: set[tuple[str, int]]) -> _Counts:
        points = _points(m)
        for p in points:
            b = branches.get(p.sl)
            if b is not None and (cls.filename, p.sl) not in claimed:
                claimed.add((cls.filename, p.sl))
                p.bec, p.bev = b.total, min(b.covered, b.total)
        counts = _Counts(points=len(points), visited_points=sum(1 for p in points if p.vc > 0),
                         branches=sum(p.bec for p in points), visited_branches=sum(p.bev for p in points),
                         methods=1, complexities=(m.complexity,))
        visited = counts.visited_points > 0
        counts.visited_methods = int(visited)
        fileid = self.uids[cls.filename]

        w.start("Method", [
            ("visited", _bool(visited)),
            ("cyclomaticComplexity", m.complexity),
            ("nPathComplexity", 0),
            ("sequenceCoverage", counts.sequence_coverage()),
            ("branchCoverage", counts.branch_coverage(self.measured)),
            ("isConstructor", _bool(m.name in (".ctor", ".cctor"))),
            ("isGetter", _bool(m.name.startswith("get_"))),
            ("isSetter", _bool(m.name.startswith("set_"))),
            ("isStatic", _bool(m.name == ".cctor")),
            ("crapScore", f"{m.crap:.2f}"),
        ])
        w.empty("Summary", counts.attrs(self.measured))
        if m.token:
            w.text_element("MetadataToken", str(m.token))
        else:
            w.empty("MetadataToken")
        w.text_element("Name", f"{cls.name}::{m.name}{m.signature}")
        w.empty("FileRef", [("uid", fileid)])
        first: list[tuple[str, object]] = []
        w.start("SequencePoints")
        for ordinal, p in enumerate(points):
            attrs = self.point_attrs(p, self.next_uspid, ordinal, fileid)
            self.next_uspid += 1
            if ordinal == 0:
                first = attrs
            w.empty("SequencePoint", attrs)
        w.end("SequencePoints")
        if m.branch_outcomes:
            w.start("BranchPoints")
            ordinal = 0
            for (line, offset), hits in sorted(m.branch_outcomes.items()):
                for path, vc in enumerate(hits):
                    w.empty("BranchPoint", [("vc", vc), ("uspid", self.next_uspid), ("ordinal", ordinal),
                                            ("offset", offset), ("sl", line), ("path", path),
                                            ("offsetend", offset), ("fileid", fileid)])
                    self.next_uspid += 1
                    ordinal += 1
            w.end("BranchPoints")
        else:
            w.empty("BranchPoints")
        w.empty("MethodPoint", [("xsi:type", "SequencePoint")] + first)
        w.end("Method")
        return counts

    def module(self, w: _Writer, asm: AssemblyAnalysis, timestamp: int) -> _Counts:
        by_type: dict[str, list[ClassAnalysis]] = {}
        for c in asm.classes:
            by_type.setdefault(c.name, []).append(c)
        files = {f.path: f for f in asm.files}
        paths = sorted(files)

        body = _Writer(depth=w.depth + 2)
        total = _Counts()
        claimed: set[tuple[str, int]] = set()
        for name in sorted(by_type):
            methods = [(c, m) for c in by_type[name] for m in c.methods]
            methods.sort(key=lambda cm: (cm[0].filename, cm[1].first_line, cm[1].name, cm[1].signature))
            methods_xml = _Writer(depth=body.depth + 2)
            counts = _Counts(classes=1)
            for c, m in methods:
                fc = files.get(c.filename)
                counts.add(self.method(methods_xml, c, m, fc.branches if fc else {}, claimed))
            counts.visited_classes = int(counts.visited_methods > 0)
            total.add(counts)
            body.start("Class")
            body.empty("Summary", counts.attrs(self.measured))
            body.text_element("FullName", name)
            if methods:
                body.start("Methods")
                body.parts.extend(methods_xml.parts)
                body.end("Methods")
            else:
                body.empty("Methods")
            body.end("Class")

        w.start("Module", [("hash", _module_hash(asm.name))])
        w.empty("Summary", total.attrs(self.measured))
        w.text_element("ModulePath", asm.name)
        w.text_element("ModuleTime", _time(timestamp))
        w.text_element("ModuleName", asm.name)
        if paths:
            w.start("Files")
            for path in paths:
                w.empty("File", [("uid", self.uids[path]), ("fullPath", PurePath(path).as_posix())])
            w.end("Files")
        else:
            w.empty("Files")
        if body.parts:
            w.start("Classes")
            w.parts.extend(body.parts)
            w.end("Classes")
        else:
            w.empty("Classes")
        w.end("Module")
        return total


def _session_counts(analysis: Analysis) -> _Counts:
    """The session's Summary counts each source file once (as every other report's total): sequence
    points merged by span over the assemblies that compile a file, branch outcomes as the analysis
    merges them, classes by name, methods by class, name and signature."""
    total = _Counts(branches=analysis.totals.branches, visited_branches=analysis.totals.branches_covered)
    classes: dict[str, bool] = {}
    for f in analysis.files:
        for c in f.classes:
            visited_class = False
            for m in c.methods:
                points = _points(m)
                visited = sum(1 for p in points if p.vc > 0)
                total.points += len(points)
                total.visited_points += visited
                total.methods += 1
                total.visited_methods += int(visited > 0)
                total.complexities += (m.complexity,)
                visited_class = visited_class or visited > 0
            classes[c.name] = classes.get(c.name, False) or visited_class
    total.classes = len(classes)
    total.visited_classes = sum(classes.values())
    return total


def opencover_xml(result: CoverageResult | Analysis, *, version: str, timestamp: int | None = None) -> bytes:
    """The report as UTF-8 bytes (no BOM). `timestamp` (seconds, for ModuleTime) defaults to `result.timestamp`.

    `version` is accepted for symmetry with the other writers; OpenCover's format has no place for the
    producer's version, so it is written in no attribute.
    """
    del version
    analysis = Analysis.of(result)
    ts = int(analysis.timestamp if timestamp is None else timestamp)
    session = _Session(analysis, analysis.branches_measured)
    modules = _Writer(depth=2)
    total = _Counts()
    for asm in analysis.assemblies:
        session.module(modules, asm, ts)
    total = _session_counts(analysis)

    w = _Writer(declaration=True)
    w.start("CoverageSession", [("xmlns:xsd", XSD), ("xmlns:xsi", XSI)])
    for note in analysis.notes(None):
        w.comment(note)
    w.empty("Summary", total.attrs(session.measured))
    if modules.parts:
        w.start("Modules")
        w.parts.extend(modules.parts)
        w.end("Modules")
    else:
        w.empty("Modules")
    w.end("CoverageSession")
    return w.getvalue()


def write_opencover(result: CoverageResult | Analysis, path: str | os.PathLike, *, version: str,
                    timestamp: int | None = None) -> None:
    """Writes `opencover_xml` to `path`, replacing it whole (a reader never sees half a file)."""
    write_atomic(path, opencover_xml(result, version=version, timestamp=timestamp))
