"""The coverage results every report is made from.

`results.py` builds these from data files and PDBs; the report modules only read
them, so every output agrees with every other.

The merge rule (the only one; numbers.py and results.py use it)
--------------------------------------------------------------
A source file compiled into several assemblies, or into several builds of one assembly (target
frameworks), is one file of the report:

* a line's hits are the sum of its hits in every build; a line that is a statement in any build is a
  statement (excluded or not measured only where no build counts it as a statement);
* branch outcomes: within one build a branch outcome is identified by (MVID, method token, IL offset,
  outcome); across builds the same source branch has other tokens and offsets, so outcomes are matched
  by where they are in the source: (line, the branch instruction's position among the line's branch
  instructions, the outcome's position: fall-through first, then each target). Matched outcomes add
  their hits; an outcome only one build has is counted once. So a line with 2 outcomes compiled twice
  still has 2 outcomes, covered when either build took them.
* classes are (type name, file); methods are (name, signature) within them; sequence points are their
  source span (the n-th point of a span matches the n-th of the other build).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dotcov.data.deferred import defer, deferred_field, pending


@dataclass(slots=True)
class PointCoverage:
    """One sequence point (a statement) and its hits (slots: a million of them at scale)."""

    method_token: int
    il_offset: int
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    hits: int


@dataclass
class BranchCoverage:
    """Outcomes of the conditional branches on one line (filled in by branch coverage)."""

    covered: int
    total: int
    missed_outcomes: list[str] = field(default_factory=list)  # human-facing, e.g. "false of `a || b`"
    # One entry per branch instruction: (IL offset, "jump" or "switch", outcomes covered, outcomes).
    conditions: list[tuple[int, str, int, int]] = field(default_factory=list)
    # Per branch instruction: (IL offset, hits of each outcome: fall-through first, then each target). Read only:
    # the file's line and the method's line may hold the same entry.
    outcome_hits: list[tuple[int, list[int]]] = field(default_factory=list)


@dataclass
class MethodCoverage:
    """One user method; its lambdas, local functions and state machines fold into it."""

    name: str  # e.g. "Add"
    signature: str  # e.g. "(System.Int32,System.Int32)"
    lines: dict[int, int] = field(default_factory=dict)  # line -> its own hits (lines.py; 0 = missed)
    points: list[PointCoverage] = field(default_factory=list)
    token: int = 0  # MethodDef token of the user method
    branches: dict[int, BranchCoverage] = field(default_factory=dict)  # line -> outcomes in this method
    display: str = ""  # as people read it, in C# form: "Map<T>(IReadOnlyList<(string Sku, int Qty)>)"
    record_member: bool = False  # a member C# generated for a record (symbols.RECORD_MEMBERS): shown on request

    @property
    def display_name(self) -> str:
        """`display`, or the name and metadata signature of a model made without one."""
        return self.display or f"{self.name}{self.signature}"

    def defer_points(self, load: Callable[[], list[PointCoverage]]) -> None:
        """`points` made by `load()` when first read (plans/packed.py: the table and Cobertura never read them,
        and making a PointCoverage per statement is a large share of a warm build)."""
        defer(self, "points", load)


deferred_field(MethodCoverage, "points", lambda load: load(), "the sequence points (statements), in the order read")


@dataclass
class ClassCoverage:
    """A type, as reported in Cobertura's <class>: one per (type, source file)."""

    name: str  # full name, nested types as "Outer/Inner"
    filename: str  # absolute path of the source file
    methods: list[MethodCoverage] = field(default_factory=list)
    # line -> hits for this type in this file (read only: a type with all its file's lines may share the file's map)
    lines: dict[int, int] = field(default_factory=dict)
    # (methods with lines, those of them that ran, the sum of their cyclomatic complexities), when known without
    # reading `methods` (plans/packed.apply, for a class whose methods differ in name and signature); None: the
    # analysis counts `methods`. Must agree with them: set only by who made them.
    method_numbers: tuple[int, int, int] | None = field(default=None, compare=False, repr=False)

    def defer_methods(self, load: Callable[[], list[MethodCoverage]],
                      columns: Callable[[], MethodColumns] | None = None) -> None:
        """`methods` made by `load()` when first read (plans/packed.apply: the table never reads them; with
        `method_numbers` its analysis needs none); `columns()`, when given, says what `method_columns` does without
        making them (the same maps the methods will hold)."""
        defer(self, "methods", load)
        self._columns = columns

    def method_columns(self) -> MethodColumns:
        """Its methods' names, signatures, lines, branches, display names and record flags as columns, in `methods`'
        order: read from the methods, or, while they are not made yet, from what they will be made of (the analysis,
        Cobertura and the HTML method pages read no more of a method, and make no object per method for it)."""
        columns = self._columns
        if columns is not None and pending(self, "methods"):
            return columns()
        ms = self.methods
        return MethodColumns([m.name for m in ms], [m.signature for m in ms], [m.lines for m in ms],
                             [m.branches for m in ms], [m.display for m in ms], [m.record_member for m in ms])

    _columns = None  # (a class attribute, not a field, until defer_methods sets one)


@dataclass
class MethodColumns:
    """Methods as columns (ClassCoverage.method_columns): item i of each list is the i-th method's."""

    names: list[str]
    signatures: list[str]
    lines: list[dict[int, int]]  # line -> its own hits
    branches: list[dict[int, BranchCoverage]]
    displays: list[str]  # MethodCoverage.display
    record_members: list[bool]  # MethodCoverage.record_member


deferred_field(ClassCoverage, "methods", lambda load: load(), "the type's methods in this file")


@dataclass
class FileCoverage:
    path: str  # absolute path of the source file
    lines: dict[int, int] = field(default_factory=dict)  # line -> hits (0 = missed)
    branches: dict[int, BranchCoverage] = field(default_factory=dict)  # line -> outcomes (may be empty)
    excluded: set[int] = field(default_factory=set)  # lines excluded by filters/attributes (not in `lines`)
    # Lines of methods the agent could not instrument (line -> why): neither covered nor missed.
    not_measured: dict[int, str] = field(default_factory=dict)
    stale: str | None = None  # why the source on disk is not the one compiled (its checksum differs from the PDB's)
    # line -> the tests that ran it (per-test contexts; filled only when asked for: ReportOptions.contexts)
    contexts: dict[int, frozenset[str]] = field(default_factory=dict)

    @property
    def statements(self) -> int:
        return len(self.lines)

    @property
    def missed(self) -> int:
        return sum(1 for h in self.lines.values() if h == 0)

    @property
    def covered(self) -> int:
        return self.statements - self.missed

    def missed_lines(self) -> list[int]:
        return sorted(n for n, h in self.lines.items() if h == 0)


@dataclass
class AssemblyCoverage:
    name: str  # simple assembly name, Cobertura's <package>
    classes: list[ClassCoverage] = field(default_factory=list)
    files: dict[str, FileCoverage] = field(default_factory=dict)  # path -> file
    not_loaded: bool = False  # built under the project but never loaded by a test process (all at 0%)


@dataclass
class CoverageResult:
    assemblies: list[AssemblyCoverage] = field(default_factory=list)
    source_root: str = ""  # directory reports make paths relative to
    timestamp: int = 0  # seconds since the epoch of the newest data
    not_loaded: list[str] = field(default_factory=list)  # assemblies built but never loaded (reported at 0%)
    # methods whose branches the recognisers could not read, all counted as the user's: (module path, MethodDef
    # token, name, why)
    unclassified: list[tuple[str, int, str, str]] = field(default_factory=list)

    def all_files(self) -> list[FileCoverage]:
        """Every source file once, merged by this module's one rule (hits add, outcomes matched)."""
        by_path: dict[str, list[FileCoverage]] = {}
        for asm in self.assemblies:
            for path, fc in asm.files.items():
                by_path.setdefault(path, []).append(fc)
        return [merge_files(by_path[p], p) for p in sorted(by_path)]


# --- the merge rule ---------------------------------------------------------------

def branch_outcomes(b: BranchCoverage) -> list[tuple[int, list[int]]]:
    """Per branch instruction (IL offset, hits per outcome); a hand-built line without them is one
    instruction whose first `covered` outcomes were taken once."""
    if b.outcome_hits:
        return [(off, list(hits)) for off, hits in b.outcome_hits]
    covered = min(b.covered, b.total)
    return [(-1, [1] * covered + [0] * (b.total - covered))]


def _notes(b: BranchCoverage) -> list[list[str | None]] | None:
    """Each outcome's missed-outcome text (None when taken), when the texts line up with the outcomes."""
    outcomes = branch_outcomes(b)
    if sum(1 for _, hits in outcomes for h in hits if h == 0) != len(b.missed_outcomes):
        return None
    texts = iter(b.missed_outcomes)
    return [[None if h else next(texts) for h in hits] for _, hits in outcomes]


def copy_branch(b: BranchCoverage) -> BranchCoverage:
    return BranchCoverage(b.covered, b.total, list(b.missed_outcomes), list(b.conditions),
                          [(off, list(hits)) for off, hits in b.outcome_hits])


def merge_branch(a: BranchCoverage, b: BranchCoverage) -> BranchCoverage:
    """One source line's outcomes from two builds: matched by position (see the module's docstring)."""
    xa, xb = branch_outcomes(a), branch_outcomes(b)
    na, nb = _notes(a), _notes(b)
    outcome_hits: list[tuple[int, list[int]]] = []
    notes: list[str] = []
    for i in range(max(len(xa), len(xb))):
        off = xa[i][0] if i < len(xa) else xb[i][0]
        ha = xa[i][1] if i < len(xa) else []
        hb = xb[i][1] if i < len(xb) else []
        hits = [(ha[k] if k < len(ha) else 0) + (hb[k] if k < len(hb) else 0)
                for k in range(max(len(ha), len(hb)))]
        outcome_hits.append((off, hits))
        for k, h in enumerate(hits):
            if h:
                continue
            for src in (na, nb):
                if src is not None and i < len(src) and k < len(src[i]) and src[i][k] is not None:
                    notes.append(src[i][k])
                    break
    if na is None and nb is None:  # texts we cannot place: those both builds missed
        notes = [t for t in a.missed_outcomes if t in b.missed_outcomes]
    covered = sum(1 for _, hits in outcome_hits for h in hits if h > 0)
    total = sum(len(hits) for _, hits in outcome_hits)
    conditions = []
    if a.conditions or b.conditions:
        base = a.conditions if len(a.conditions) >= len(b.conditions) else b.conditions
        for i, (off, hits) in enumerate(outcome_hits):
            kind = base[i][1] if i < len(base) else ("switch" if len(hits) > 2 else "jump")
            conditions.append((base[i][0] if i < len(base) else off, kind,
                               sum(1 for h in hits if h > 0), len(hits)))
    keep_hits = bool(a.outcome_hits or b.outcome_hits)
    return BranchCoverage(covered, total, notes, conditions, outcome_hits if keep_hits else [])


def add_lines(into: dict[int, int], lines: dict[int, int]) -> None:
    for line, hits in lines.items():
        into[line] = into.get(line, 0) + hits


def add_contexts(into: dict[int, frozenset[str]], contexts: dict[int, frozenset[str]]) -> None:
    """A line's tests in several builds: every build's (the line ran in a build where a test ran it)."""
    for line, names in contexts.items():
        have = into.get(line)
        into[line] = names if have is None else have | names


def add_branches(into: dict[int, BranchCoverage], branches: dict[int, BranchCoverage]) -> None:
    for line, b in branches.items():
        have = into.get(line)
        into[line] = copy_branch(b) if have is None else merge_branch(have, b)


def merge_files(files: Iterable[FileCoverage], path: str | None = None) -> FileCoverage:
    """Several builds' view of one source file as one (the model's inputs are not modified)."""
    files = list(files)
    if len(files) == 1:  # nothing to merge: share the build's maps (nothing downstream modifies them)
        fc = files[0]
        out = FileCoverage(path or fc.path, fc.lines, fc.branches, fc.excluded - fc.lines.keys(),
                           {n: r for n, r in fc.not_measured.items() if n not in fc.lines}, fc.stale, fc.contexts)
        if not ascending_keys(out.lines):
            out.lines = dict(sorted(out.lines.items()))
        if not ascending_keys(out.branches):
            out.branches = dict(sorted(out.branches.items()))
        return out
    out = FileCoverage(path or files[0].path)
    for fc in files:
        add_lines(out.lines, fc.lines)
        add_branches(out.branches, fc.branches)
        add_contexts(out.contexts, fc.contexts)
        out.excluded |= fc.excluded
        for line, reason in fc.not_measured.items():
            out.not_measured.setdefault(line, reason)
        out.stale = out.stale or fc.stale
    out.excluded -= out.lines.keys()
    for line in [n for n in out.not_measured if n in out.lines]:
        del out.not_measured[line]
    out.lines = dict(sorted(out.lines.items()))
    out.branches = dict(sorted(out.branches.items()))
    return out


def ascending_keys(d: dict) -> bool:
    keys = list(d)
    return keys == sorted(keys)  # (one pass over keys already in order)
