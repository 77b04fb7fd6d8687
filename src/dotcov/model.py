"""The coverage results every report is made from.

`results.py` builds these from data files and PDBs; the report modules only read
them, so every output agrees with every other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dotcov.deferred import defer, deferred_field


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
    lines: dict[int, int] = field(default_factory=dict)  # line -> hits (0 = missed)
    points: list[PointCoverage] = field(default_factory=list)
    token: int = 0  # MethodDef token of the user method
    branches: dict[int, BranchCoverage] = field(default_factory=dict)  # line -> outcomes in this method

    def defer_points(self, load: Callable[[], list[PointCoverage]]) -> None:
        """`points` made by `load()` when first read (plan.apply_plan: the table and Cobertura never read them,
        and a million PointCoverage objects are a fifth of a warm build)."""
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
    # reading `methods` (packed_plan.apply, for a class whose methods differ in name and signature); None: the
    # analysis counts `methods`. Must agree with them: set only by who made them.
    method_numbers: tuple[int, int, int] | None = field(default=None, compare=False, repr=False)

    def defer_methods(self, load: Callable[[], list[MethodCoverage]]) -> None:
        """`methods` made by `load()` when first read (packed_plan.apply: the table never reads them; with
        `method_numbers` its analysis needs none)."""
        defer(self, "methods", load)


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

    def all_files(self) -> list[FileCoverage]:
        """Every source file once, merged by the one rule of analysis.py (hits add, outcomes matched)."""
        from dotcov.analysis import merge_files

        by_path: dict[str, list[FileCoverage]] = {}
        for asm in self.assemblies:
            for path, fc in asm.files.items():
                by_path.setdefault(path, []).append(fc)
        return [merge_files(by_path[p], p) for p in sorted(by_path)]
