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
  offsetend repeats the offset, as the targets' offsets are not in the model). A method's outcome counts
  on a line also go into the bec/bev of its sequence point for that line, and into the summaries (every
  figure a method's, as the analysis gives it: numbers.MethodAnalysis). Without any branch data in the
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

How it is written (for speed at a million statements): each module's counts are made first from the methods' numbers
(a Summary comes before what it counts), then each `<Class>` is formatted and handed to `write_atomic` in turn, so
`write_opencover` never holds the document. Formatted strings, not lxml's `etree.xmlfile`: on OpenCover's
`<SequencePoint>`s lxml was the slower (benchmarks/xml_writers.py, docs/benchmarks.md).
tests/test_opencover.py's `test_gold_awkward` holds this writer to the output of the element-by-element one it
replaced.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from operator import attrgetter
from pathlib import PurePath
from typing import Iterator

from dotcov.analysis.numbers import Analysis, AssemblyAnalysis, ClassAnalysis, MethodAnalysis
from dotcov.analysis.model import CoverageResult
from dotcov.reports.output import truncated_percent as _percent
from dotcov.reports.output import write_atomic
from dotcov.reports.xmlwriter import INDENT, text
from dotcov.reports.xmlwriter import XmlWriter as _Writer

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
    max_complexity: int | None = None  # over the methods counted (None: no method)
    min_complexity: int | None = None

    def add(self, other: _Counts) -> None:
        self.points += other.points
        self.visited_points += other.visited_points
        self.branches += other.branches
        self.visited_branches += other.visited_branches
        self.classes += other.classes
        self.visited_classes += other.visited_classes
        self.methods += other.methods
        self.visited_methods += other.visited_methods
        if other.max_complexity is not None:
            self.complexity(other.max_complexity)
            self.complexity(other.min_complexity)

    def complexity(self, value: int) -> None:
        if self.max_complexity is None:
            self.max_complexity = self.min_complexity = value
        else:
            self.max_complexity = max(self.max_complexity, value)
            self.min_complexity = min(self.min_complexity, value)

    def sequence_coverage(self) -> str:
        return _percent(self.visited_points, self.points)

    def branch_coverage(self, measured: bool) -> str:
        return _percent(self.visited_branches, self.branches) if measured else "0"

    def summary(self, pad: str, measured: bool) -> str:
        """The `<Summary />` line of these counts at `pad`."""
        return (f'{pad}<Summary numSequencePoints="{self.points}" visitedSequencePoints="{self.visited_points}" '
                f'numBranchPoints="{self.branches}" visitedBranchPoints="{self.visited_branches}" '
                f'sequenceCoverage="{self.sequence_coverage()}" branchCoverage="{self.branch_coverage(measured)}" '
                f'maxCyclomaticComplexity="{self.max_complexity or 0}" '
                f'minCyclomaticComplexity="{self.min_complexity or 0}" visitedClasses="{self.visited_classes}" '
                f'numClasses="{self.classes}" visitedMethods="{self.visited_methods}" numMethods="{self.methods}" />\n')


def _method_counts(m: MethodAnalysis) -> _Counts:
    """A method's counts (the analysis's): one sequence point per statement line (see `_sequence_points`)."""
    n = m.numbers
    c = _Counts(points=n.statements, visited_points=n.covered, branches=n.branches,
                visited_branches=n.branches_covered, methods=1, visited_methods=n.methods_covered)
    c.complexity(n.complexity)
    return c


def _sequence_points(m: MethodAnalysis, uspid: int, fileid: int) -> list[str]:
    """The attributes of each SequencePoint of the method: one per statement line, with the method's own hits on
    it (docs/accuracy.md's line rule), so a consumer reading sl..el gets the table's lines. The IL offset and
    columns are those of the first real sequence point starting on the line, when one does (a continuation line has
    none). bec/bev: the method's branch outcomes on the line. `uspid`: the first point's."""
    starts: dict[int, object] = {}
    for p in sorted(m.points, key=_il_offset):
        starts.setdefault(p.start_line, p)
    out = []
    for ordinal, (line, hits) in enumerate(sorted(m.lines.items())):
        p = starts.get(line)
        if p is not None:
            offset = f' offset="{p.il_offset}"'
            sc = p.start_column
            ec = p.end_column if p.end_line == line else sc + 1
        else:  # a continuation line: the offset of the innermost point spanning it (none without points)
            spanning = [q for q in m.points if q.start_line < line <= q.end_line]
            inner = max(spanning, key=lambda q: (q.start_line, -q.il_offset), default=None)
            offset = "" if inner is None else f' offset="{inner.il_offset}"'
            sc, ec = 1, 2
        b = m.branches.get(line)
        bec, bev = (b.total, min(b.covered, b.total)) if b is not None else _NO_BRANCHES
        out.append(f'vc="{hits}" uspid="{uspid + ordinal}" ordinal="{ordinal}"{offset} sl="{line}" sc="{sc}" '
                   f'el="{line}" ec="{ec}" bec="{bec}" bev="{bev}" fileid="{fileid}"')
    return out


_il_offset = attrgetter("il_offset")
_NO_BRANCHES = (0, 0)


def _module_hash(name: str) -> str:
    return "-".join(f"{b:02X}" for b in hashlib.sha1(name.encode("utf-8", "surrogatepass")).digest())


def _time(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Planned:
    """A method as its module writes it: its class's part and its counts."""

    cls: ClassAnalysis
    method: MethodAnalysis
    counts: _Counts


class _Session:
    """The document, written a class at a time: each module's counts are made first (its Summary comes before its
    classes), from the methods' numbers, then its classes are formatted one by one."""

    def __init__(self, analysis: Analysis, measured: bool) -> None:
        self.measured = measured
        self.next_uspid = 1
        paths = set()
        for asm in analysis.assemblies:
            paths |= {f.path for f in asm.files}
        self.uids = {path: i for i, path in enumerate(sorted(paths), start=1)}

    def plan_module(self, asm: AssemblyAnalysis) -> tuple[list[tuple[str, list[_Planned], _Counts]], _Counts]:
        """Each type of the module (sorted) with its methods in writing order and counts, and the module's counts."""
        by_type: dict[str, list[ClassAnalysis]] = {}
        for c in asm.classes:
            by_type.setdefault(c.name, []).append(c)
        types = []
        total = _Counts()
        for name in sorted(by_type):
            methods = [(c, m) for c in by_type[name] for m in c.methods]
            methods.sort(key=lambda cm: (cm[0].filename, cm[1].first_line, cm[1].name, cm[1].signature))
            counts = _Counts(classes=1)
            planned = []
            for c, m in methods:
                mc = _method_counts(m)
                counts.add(mc)
                planned.append(_Planned(c, m, mc))
            counts.visited_classes = int(counts.visited_methods > 0)
            total.add(counts)
            types.append((name, planned, counts))
        return types, total

    def method(self, p: _Planned, pad: str) -> str:
        """One `<Method>` at `pad`."""
        cls, m, counts = p.cls, p.method, p.counts
        fileid = self.uids[cls.filename]
        inner = pad + INDENT
        deeper = inner + INDENT
        out = [f'{pad}<Method visited="{_bool(counts.visited_methods > 0)}" cyclomaticComplexity="{m.complexity}" '
               f'nPathComplexity="0" sequenceCoverage="{counts.sequence_coverage()}" '
               f'branchCoverage="{counts.branch_coverage(self.measured)}" '
               f'isConstructor="{_bool(m.name in (".ctor", ".cctor"))}" isGetter="{_bool(m.name.startswith("get_"))}" '
               f'isSetter="{_bool(m.name.startswith("set_"))}" isStatic="{_bool(m.name == ".cctor")}" '
               f'crapScore="{m.crap:.2f}">\n',
               counts.summary(inner, self.measured),
               f"{inner}<MetadataToken>{m.token}</MetadataToken>\n" if m.token else f"{inner}<MetadataToken />\n",
               f"{inner}<Name>{text(f'{cls.name}::{m.name}{m.signature}')}</Name>\n",
               f'{inner}<FileRef uid="{fileid}" />\n']
        attrs = _sequence_points(m, self.next_uspid, fileid)
        first = ""
        if attrs:
            self.next_uspid += len(attrs)
            first = " " + attrs[0]
            out.append(f"{inner}<SequencePoints>\n{deeper}<SequencePoint ")
            out.append(f" />\n{deeper}<SequencePoint ".join(attrs))
            out.append(f" />\n{inner}</SequencePoints>\n")
        else:
            out.append(f"{inner}<SequencePoints />\n")
        outcomes = m.branch_outcomes
        if outcomes:
            out.append(f"{inner}<BranchPoints>\n")
            ordinal = 0
            for (line, offset), hits in sorted(outcomes.items()):
                for path, vc in enumerate(hits):
                    out.append(f'{deeper}<BranchPoint vc="{vc}" uspid="{self.next_uspid}" ordinal="{ordinal}" '
                               f'offset="{offset}" sl="{line}" path="{path}" offsetend="{offset}" '
                               f'fileid="{fileid}" />\n')
                    self.next_uspid += 1
                    ordinal += 1
            out.append(f"{inner}</BranchPoints>\n")
        else:
            out.append(f"{inner}<BranchPoints />\n")
        out.append(f'{inner}<MethodPoint xsi:type="SequencePoint"{first} />\n{pad}</Method>\n')
        return "".join(out)

    def module(self, asm: AssemblyAnalysis, timestamp: int, depth: int) -> Iterator[bytes]:
        """One `<Module>` at `depth`, in UTF-8 pieces: its head, then each `<Class>`, then its end."""
        types, total = self.plan_module(asm)
        paths = sorted({f.path for f in asm.files})
        w = _Writer(depth=depth)
        w.start("Module", [("hash", _module_hash(asm.name))])
        w.parts.append(total.summary(INDENT * w.depth, self.measured))
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
        if not types:
            w.empty("Classes")
            w.end("Module")
            yield w.getvalue()
            return
        w.start("Classes")
        yield w.getvalue()
        pad = INDENT * w.depth
        inner = pad + INDENT
        for name, planned, counts in types:
            out = [f"{pad}<Class>\n", counts.summary(inner, self.measured), f"{inner}<FullName>{text(name)}</FullName>\n"]
            if planned:
                out.append(f"{inner}<Methods>\n")
                out += [self.method(p, inner + INDENT) for p in planned]
                out.append(f"{inner}</Methods>\n")
            else:
                out.append(f"{inner}<Methods />\n")
            out.append(f"{pad}</Class>\n")
            yield "".join(out).encode("utf-8")
        w.parts.clear()
        w.end("Classes")
        w.end("Module")
        yield w.getvalue()


def _session_counts(analysis: Analysis) -> _Counts:
    """The session's Summary counts each source file once (as every other report's total): sequence
    points merged by span over the assemblies that compile a file, branch outcomes as the analysis
    merges them, classes by name, methods by class, name and signature."""
    total = _Counts()
    classes: dict[str, bool] = {}
    for f in analysis.files:
        for c in f.classes:
            visited_class = False
            for m in c.methods:
                mc = _method_counts(m)
                total.add(mc)
                visited_class = visited_class or mc.visited_points > 0
            classes[c.name] = classes.get(c.name, False) or visited_class
    total.branches, total.visited_branches = analysis.totals.branches, analysis.totals.branches_covered
    total.classes = len(classes)
    total.visited_classes = sum(classes.values())
    return total


def _document(analysis: Analysis, timestamp: int | None) -> Iterator[bytes]:
    """The document in UTF-8 pieces (one per `<Class>`, the rest in a few), so a writer can write as it goes."""
    ts = int(analysis.timestamp if timestamp is None else timestamp)
    session = _Session(analysis, analysis.branches_measured)
    total = _session_counts(analysis)
    w = _Writer(declaration=True)
    w.start("CoverageSession", [("xmlns:xsd", XSD), ("xmlns:xsi", XSI)])
    for note in analysis.notes(None):
        w.comment(note)
    w.parts.append(total.summary(INDENT * w.depth, session.measured))
    if not analysis.assemblies:
        w.empty("Modules")
        w.end("CoverageSession")
        yield w.getvalue()
        return
    w.start("Modules")
    yield w.getvalue()
    w.parts.clear()
    for asm in analysis.assemblies:
        yield from session.module(asm, ts, w.depth)
    w.end("Modules")
    w.end("CoverageSession")
    yield w.getvalue()


def opencover_xml(result: CoverageResult | Analysis, *, version: str, timestamp: int | None = None) -> bytes:
    """The report as UTF-8 bytes (no BOM). `timestamp` (seconds, for ModuleTime) defaults to `result.timestamp`.

    `version` is accepted for symmetry with the other writers; OpenCover's format has no place for the
    producer's version, so it is written in no attribute.
    """
    del version
    return b"".join(_document(Analysis.of(result), timestamp))


def write_opencover(result: CoverageResult | Analysis, path: str | os.PathLike, *, version: str,
                    timestamp: int | None = None) -> None:
    """Writes `opencover_xml` to `path` a class at a time, replacing it whole (a reader never sees half a file)."""
    del version
    write_atomic(path, _document(Analysis.of(result), timestamp))
