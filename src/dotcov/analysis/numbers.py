"""One analysis of a coverage result, computed once; every report only formats it.

On coverage.py's model (`coverage.results.Analysis` and its summable `Numbers`): per file, per
assembly, per class and per method, the statements, covered, excluded and not-measured lines, the
branch outcomes and the partial lines.

The totals are the sum of the files' numbers (each file once). An assembly's own numbers count only
its own builds. A partial line (`BrPart`) is one that ran with at least one outcome missed
(coverage.py's meaning): a line that never ran is missed, not partial.

Every figure a report shows of a method, class or file is here, and the writers only format it: a
method's lines are its own hits (lines.py, "a method's own hits"), so it ran (`MethodAnalysis.ran`)
when its own code ran; its branch outcomes are those of its own branch instructions; a class's are
its methods' together.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, compress
from operator import attrgetter, eq, lt, sub
from typing import Callable, Iterable

from dotcov._native import line_counts
from dotcov.data.deferred import defer, deferred_field
from dotcov.analysis.model import (
    add_branches,
    ascending_keys,
    branch_outcomes,
    add_lines,
    merge_files,
    AssemblyCoverage,
    BranchCoverage,
    ClassCoverage,
    CoverageResult,
    FileCoverage,
    MethodCoverage,
    PointCoverage,
)
from dotcov.analysis.paths import display_path


def percent(covered: int, total: int) -> float:
    """Covered share in percent; nothing to cover counts as fully covered (as coverage.py)."""
    return 100.0 * covered / total if total else 100.0


def format_ranges(statements, missed) -> str:
    """Missed lines as coverage.py shows them: `12-14, 20`.

    A range runs over consecutive *statements* that were all missed, so lines that are
    not statements (blank lines, comments, braces) do not break it.
    """
    missed = set(missed)
    parts: list[str] = []
    start = end = None
    for line in sorted(set(statements) | missed):
        if line in missed:
            if start is None:
                start = line
            end = line
        elif start is not None:
            parts.append(_range(start, end))
            start = None
    if start is not None:
        parts.append(_range(start, end))
    return ", ".join(parts)


def _range(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"



# --- numbers -------------------------------------------------------------------

@dataclass
class Numbers:
    """Counts that add up (coverage.py's `Numbers`): a file's, a class's, an assembly's, the total."""

    files: int = 0
    statements: int = 0
    missed: int = 0
    excluded: int = 0
    not_measured: int = 0
    branches: int = 0  # branch outcomes
    branches_covered: int = 0
    partial: int = 0  # lines that ran with some outcome missed
    methods: int = 0
    methods_covered: int = 0
    complexity: int = 0  # the sum of the methods' cyclomatic complexities (see `cyclomatic_complexity`)

    def __add__(self, other: Numbers) -> Numbers:
        return Numbers(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))

    def __radd__(self, other):  # sum() starts from 0
        return self if other == 0 else NotImplemented

    @property
    def covered(self) -> int:
        return self.statements - self.missed

    @property
    def branches_missed(self) -> int:
        return self.branches - self.branches_covered

    @property
    def percent(self) -> float:
        """Line coverage in percent (100.0 with nothing to cover)."""
        return percent(self.covered, self.statements)

    @property
    def branch_percent(self) -> float:
        return percent(self.branches_covered, self.branches)

    @property
    def method_percent(self) -> float:
        return percent(self.methods_covered, self.methods)

    @property
    def complete(self) -> bool:
        """Nothing missed: no statement, no branch outcome (what --skip-covered skips)."""
        return self.missed == 0 and self.branches_covered == self.branches


def line_numbers(lines: dict[int, int], branches: dict[int, BranchCoverage] | None = None,
                 excluded: int = 0, not_measured: int = 0) -> Numbers:
    """The counts of `lines` (line -> hits) and their `branches`: statements, missed (0 hits), branch outcomes and
    those taken (at most the line's outcomes), and partial lines (lines that ran with an outcome missed). Counted
    by native/python/native_numbers.cpp (`line_counts`), which counts many methods' at once."""
    statements, missed, outcomes, covered, partial, _complexity = line_counts([(lines, branches or {})])[0]
    return Numbers(0, statements, missed, excluded, not_measured, outcomes, covered, partial)


# --- complexity and CRAP -----------------------------------------------------------

def cyclomatic_complexity(branches: dict[int, BranchCoverage]) -> int:
    """A method's cyclomatic complexity from its user branches (docs/reports.md, "Complexity and CRAP").

    1 + one decision per outcome beyond the first of each user condition: a two-way condition adds 1,
    a switch of n arms (one outcome per arm, switch_arms.py) adds n - 1. That is 1 + outcomes - conditions,
    over the same outcomes the branch columns count. coverlet's max(1, outcomes) gives the same for a
    method without branches (1) and one with a single two-way condition (2).
    """
    return line_counts([(_NO_LINES, branches)])[0][5]  # (native_numbers.cpp)


_NO_LINES: dict[int, int] = {}


def crap_score(complexity: int, covered: int, statements: int) -> float:
    """CRAP = comp^2 * (1 - cov)^3 + comp, cov the method's line coverage as Cobertura writes its
    line-rate (truncated to 4 decimals), which is what ReportGenerator computes CRAP from; it shows
    the score rounded half away from zero (`crap_shown`)."""
    uncovered = 0.0 if statements <= 0 else (10000 - covered * 10000 // statements) / 10000
    return complexity ** 2 * uncovered ** 3 + complexity


def crap_shown(score: float) -> int:
    """A CRAP score as ReportGenerator shows it: a whole number, halves rounded away from zero."""
    return int(score + 0.5)


# --- classes and methods ----------------------------------------------------------

point_order = attrgetter("start_line", "start_column", "end_line", "end_column", "method_token", "il_offset")


@dataclass
class MethodAnalysis:
    name: str
    signature: str
    token: int
    lines: dict[int, int] = field(default_factory=dict)
    points: list[PointCoverage] = field(default_factory=list)  # in source order
    branches: dict[int, BranchCoverage] = field(default_factory=dict)  # line -> outcomes in this method
    display: str = ""  # model.MethodCoverage.display
    record_member: bool = False  # model.MethodCoverage.record_member
    _complexity: int | None = field(default=None, init=False, repr=False, compare=False)  # see `complexity`
    _numbers: Numbers | None = field(default=None, init=False, repr=False, compare=False)  # see `numbers`

    @property
    def display_name(self) -> str:
        """The method as people read it (C# form: model.MethodCoverage.display), or its name and metadata
        signature when the model has no display name."""
        return self.display or f"{self.name}{self.signature}"

    @property
    def first_line(self) -> int:
        return min(self.lines)

    @property
    def entry_point(self) -> PointCoverage | None:
        return self.points[0] if self.points else None

    @property
    def ran(self) -> bool:
        """Whether its own code ran: one of its lines, with its own hits (lines.py), ran."""
        return any(self.lines.values())

    @property
    def hits(self) -> int:
        """How often the method was entered: the hits of its first point in source order that ran, among the
        points of its own token (a state machine's kickoff method has none: then among all its points, MoveNext's
        and its lambdas'); else of its first line. Not 0 exactly when it `ran`: a lambda or local function written
        before the first statement (folded into the method, with a token of its own) never counts as its entry."""
        points = self.points
        if not points:
            return self.lines[self.first_line]
        own = [p for p in points if p.method_token == self.token] or points
        entry = next((p for p in own if p.hits), None) or next((p for p in points if p.hits), None)
        if entry is not None:
            return entry.hits
        return max(self.lines.values())  # (a Release switch line's dispatch, the one line without a point)

    @property
    def branch_outcomes(self) -> dict[tuple[int, int], list[int]]:
        """(line, IL offset) -> hits of each outcome (OpenCover's BranchPoints)."""
        return {(line, off): hits for line, b in sorted(self.branches.items()) for off, hits in b.outcome_hits}

    @property
    def complexity(self) -> int:
        """`cyclomatic_complexity` of its branches, computed when first asked for (the file's numbers,
        Cobertura's method, class and package ask for it): the analysis is finished by then."""
        if self._complexity is None:
            count_methods([self])
        return self._complexity

    @property
    def crap(self) -> float:
        n = self.numbers
        return crap_score(n.complexity, n.covered, n.statements)

    @property
    def numbers(self) -> Numbers:
        """Its numbers, computed when first asked for (the analysis is finished by then) and kept: readers
        must not modify them."""
        if self._numbers is None:
            count_methods([self])
        return self._numbers


def count_methods(methods: list[MethodAnalysis]) -> None:
    """Counts the methods' lines and branches (`line_numbers`, `cyclomatic_complexity`) in one native call, for
    their `numbers` and `complexity` (a report asks them of every method)."""
    _set_counts(methods, line_counts([(m.lines, m.branches) for m in methods]))


def _set_counts(methods: list[MethodAnalysis], counts: list[tuple]) -> None:
    """The methods' `numbers` and `complexity` from their `line_counts`."""
    for m, (statements, missed, outcomes, covered, partial_lines, complexity) in zip(methods, counts):
        # (`ran` from the counts: a line with hits)
        m._numbers = Numbers(0, statements, missed, 0, 0, outcomes, covered, partial_lines, 1,
                             int(missed < statements), complexity)
        m._complexity = complexity


def _set_unsorted_points(m: MethodAnalysis, points) -> None:
    """Points in any order (a list, or the model method whose points they are), sorted when first read: Cobertura and the table
    never read them (sorting every point would be a large share of `dotcov xml`'s own time)."""
    defer(m, "points", points)


def _sorted_points(unsorted) -> list[PointCoverage]:
    if isinstance(unsorted, MethodCoverage):  # (a model method's points, themselves made when first read)
        unsorted = unsorted.points
    return sorted(unsorted, key=point_order)


deferred_field(MethodAnalysis, "points", _sorted_points, "the sequence points, in source order")


@dataclass
class MethodTable:
    """A class's methods as columns, item i of each being `ClassAnalysis.methods[i]`'s: what a writer reads of every
    method (Cobertura), without a MethodAnalysis object per method."""

    names: list[str]
    signatures: list[str]
    lines: list[dict[int, int]]  # each in line order
    branches: list[dict[int, BranchCoverage]]  # each in line order
    counts: list[tuple[int, int, int, int, int, int]]  # `line_counts`: the figures of the methods' `numbers`
    displays: list[str]  # MethodAnalysis.display
    record_members: list[bool]  # MethodAnalysis.record_member

    def display_names(self) -> list[str]:
        """Each method's `MethodAnalysis.display_name`."""
        return [d or f"{n}{s}" for d, n, s in zip(self.displays, self.names, self.signatures)]

    def first_lines(self) -> list[int]:
        """Each method's `MethodAnalysis.first_line`."""
        return [min(lines, default=0) for lines in self.lines]

    def numbers(self) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
        """(statements, lines covered, branch outcomes, outcomes covered, complexity) of each method, as its
        `MethodAnalysis.numbers` has them."""
        if not self.counts:
            return [], [], [], [], []
        statements, missed, outcomes, covered, _partial, complexity = map(list, zip(*self.counts))
        return statements, list(map(sub, statements, missed)), outcomes, covered, complexity


@dataclass
class ClassAnalysis:
    name: str
    filename: str
    lines: dict[int, int] = field(default_factory=dict)
    methods: list[MethodAnalysis] = field(default_factory=list)

    _numbers: Numbers | None = field(default=None, init=False, repr=False, compare=False)  # see `numbers`
    _branches: dict[int, BranchCoverage] | None = field(default=None, init=False, repr=False, compare=False)
    _table: MethodTable | None = field(default=None, init=False, repr=False, compare=False)  # see `method_table`

    @property
    def method_table(self) -> MethodTable:
        """Its methods as columns; made when first asked for from `methods` unless the analysis made the methods
        from it (`_single_class`). Readers must not modify it."""
        if self._table is None:  # (methods given as objects: a merged class's, a hand-built one)
            ms = self.methods
            count_methods([m for m in ms if m._numbers is None])
            self._table = MethodTable([m.name for m in ms], [m.signature for m in ms], [m.lines for m in ms],
                                      [m.branches for m in ms],
                                      [(n.statements, n.missed, n.branches, n.branches_covered, n.partial,
                                        n.complexity) for n in (m.numbers for m in ms)],
                                      [m.display for m in ms], [m.record_member for m in ms])
        return self._table

    @property
    def branches(self) -> dict[int, BranchCoverage]:
        """line -> the outcomes of every method of the class on it (each branch instruction is one method's: a
        line two methods share, e.g. a field initializer's condition compiled into two constructors, has both's),
        in line order; made when first asked for and kept: readers must not modify them."""
        if self._branches is None:
            lines: dict[int, list[BranchCoverage]] = {}
            for branches in filter(None, self.method_table.branches):
                for line, b in branches.items():
                    lines.setdefault(line, []).append(b)
            self._branches = {line: bs[0] if len(bs) == 1 else _joined(bs) for line, bs in sorted(lines.items())}
        return self._branches

    @property
    def numbers(self) -> Numbers:
        """Its numbers, computed when first asked for and kept (as `MethodAnalysis.numbers`)."""
        if self._numbers is None:
            n = line_numbers(self.lines, self.branches)
            statements, covered, _outcomes, _taken, complexity = self.method_table.numbers()
            n.methods = len(statements)
            n.methods_covered = sum(map(bool, covered))  # (those that ran: a line with hits)
            n.complexity = sum(complexity)
            self._numbers = n
        return self._numbers


deferred_field(ClassAnalysis, "methods", lambda make: make(), "its methods, by first line, name, signature")


def _joined(branches: list[BranchCoverage]) -> BranchCoverage:
    """One line's outcomes of several methods: each one's branch instructions, side by side."""
    return BranchCoverage(sum(b.covered for b in branches), sum(b.total for b in branches),
                          [t for b in branches for t in b.missed_outcomes],
                          [c for b in branches for c in b.conditions],
                          [o for b in branches for o in b.outcome_hits])


def merge_classes(classes: Iterable[ClassCoverage], memo: dict[int, ClassAnalysis] | None = None) -> list[ClassAnalysis]:
    """One entry per (type, file), sorted; the same method in several builds merged by the rule above.

    A class's lines are its own plus any of its methods' it left out; methods without lines are left
    out (as coverlet); methods are sorted by first line, name, signature; points by position.
    `memo` (id of a model class -> its analysis) shares the analysis of a class only one build has between the
    file, the merged file and the assembly that show it (Analysis.of keeps one per analysis; writers only read).
    """
    classes = list(classes)
    count = Counter((cc.name, cc.filename) for cc in classes)
    out = [_single_class(cc, memo) for cc in classes if count[(cc.name, cc.filename)] == 1 and _unique_methods(cc)]
    by_key: dict[tuple[str, str], ClassAnalysis] = {}
    methods: dict[tuple[str, str, str, str], MethodAnalysis] = {}
    points: dict[tuple[str, str, str, str], dict[tuple, PointCoverage]] = {}
    done = {(c.name, c.filename) for c in out}
    for cc in classes:
        if (cc.name, cc.filename) in done:
            continue
        into = by_key.get((cc.name, cc.filename))
        if into is None:
            into = by_key[(cc.name, cc.filename)] = ClassAnalysis(cc.name, cc.filename)
        own = dict(cc.lines)
        for mc in cc.methods:
            for line, hits in mc.lines.items():
                if line not in cc.lines:
                    own[line] = max(own.get(line, 0), hits)
            key = (cc.name, cc.filename, mc.name, mc.signature)
            m = methods.get(key)
            if m is None:
                m = methods[key] = MethodAnalysis(mc.name, mc.signature, mc.token, display=mc.display,
                                                   record_member=mc.record_member)
                points[key] = {}
                into.methods.append(m)
            elif not m.token:
                m.token = mc.token
            add_lines(m.lines, mc.lines)
            add_branches(m.branches, mc.branches)
            seen: dict[tuple, int] = {}
            for p in mc.points:
                span = (p.start_line, p.start_column, p.end_line, p.end_column)
                n = seen[span] = seen.get(span, -1) + 1
                have = points[key].get((span, n))
                if have is None:
                    points[key][(span, n)] = PointCoverage(p.method_token, p.il_offset, *span, hits=p.hits)
                else:
                    have.hits += p.hits
        add_lines(into.lines, own)
    for key, m in methods.items():
        m.points = sorted(points[key].values(), key=point_order)
        m.lines = dict(sorted(m.lines.items()))
        m.branches = dict(sorted(m.branches.items()))
    for c in by_key.values():
        c.methods = [m for m in c.methods if m.lines]
        c.methods.sort(key=lambda m: (m.first_line, m.name, m.signature))
        c.lines = dict(sorted(c.lines.items()))
    out += by_key.values()
    out.sort(key=lambda c: (c.name, c.filename))
    return out


def _sorted_map(d: dict) -> dict:
    return d if ascending_keys(d) else dict(sorted(d.items()))


def _single_class(cc: ClassCoverage, memo: dict[int, ClassAnalysis] | None = None) -> ClassAnalysis:
    """merge_classes of a class only one build has: the same result without copying points or maps (nothing
    downstream modifies them), each step over all the class's methods at once."""
    if memo is not None:
        have = memo.get(id(cc))
        if have is None:
            have = memo[id(cc)] = _single_class(cc)
        return have
    columns = cc.method_columns()  # (no method object is made for it: see MethodTable)
    keep = list(compress(range(len(columns.lines)), columns.lines))  # (methods without lines are left out)
    names, signatures, method_lines, branches, displays, record_members = (
        (c if len(keep) == len(c) else list(map(c.__getitem__, keep)))
        for c in (columns.names, columns.signatures, columns.lines, columns.branches, columns.displays,
                  columns.record_members))
    lines = cc.lines
    if not all(map(lines.__contains__, chain.from_iterable(method_lines))):  # (usually the class has them all)
        lines = dict(lines)
        for of_method in method_lines:
            for line, hits in of_method.items():
                if line not in cc.lines:
                    lines[line] = max(lines.get(line, 0), hits)
    method_lines, branches = _sorted_maps(method_lines), _sorted_maps(branches)
    firsts = list(map(next, map(iter, method_lines)))
    if not all(map(lt, firsts, firsts[1:])):  # by first line, name, signature (stable)
        keys = list(zip(firsts, names, signatures))
        order = sorted(range(len(keys)), key=keys.__getitem__)
        keep, names, signatures, method_lines, branches, displays, record_members = (
            list(map(c.__getitem__, order))
            for c in (keep, names, signatures, method_lines, branches, displays, record_members))
    c = ClassAnalysis(cc.name, cc.filename, _sorted_map(lines))
    c._table = MethodTable(names, signatures, method_lines, branches, line_counts(list(zip(method_lines, branches))),
                           displays, record_members)
    defer(c, "methods", partial(_methods_of, cc, keep, c._table))  # (made only if a writer reads them)
    return c


def _methods_of(cc: ClassCoverage, keep: list[int], table: MethodTable) -> list[MethodAnalysis]:
    """The MethodAnalysis objects of `table`, `keep` their indexes in `cc.methods`."""
    methods = list(map(_method_of, map(cc.methods.__getitem__, keep), table.lines, table.branches))
    _set_counts(methods, table.counts)
    return methods


def _sorted_maps(maps: list[dict]) -> list[dict]:
    """Each map with its keys in ascending order: the same maps when they are, checked at C speed (all their keys
    in one ascending run, as methods in source order have them; else map by map)."""
    keys = list(chain.from_iterable(maps))
    if keys == sorted(keys) or all(map(eq, map(list, maps), map(sorted, maps))):
        return maps
    return list(map(_sorted_map, maps))


def _method_of(mc: MethodCoverage, lines: dict[int, int], branches: dict[int, BranchCoverage]) -> MethodAnalysis:
    m = MethodAnalysis(mc.name, mc.signature, mc.token, lines, [], branches, mc.display, mc.record_member)
    # The points read from `mc` when needed, sorted stably then (already sorted points keep their order).
    _set_unsorted_points(m, mc)
    return m


def _unmerged_methods(sources: list[ClassCoverage]) -> tuple[int, int, int] | None:
    """(methods, methods covered, complexity) of classes that need no merging (each (type, file) once, each
    method once: what `_single_class` analyses), from the model's methods as they are, with no Python step per
    method but `cyclomatic_complexity` (a large report has very many methods); None when some need merging."""
    if len({(cc.name, cc.filename) for cc in sources}) != len(sources):
        return None
    methods: list[MethodCoverage] = []
    known = [0, 0, 0]
    for cc in sources:
        counted = cc.method_numbers  # (the same figures, counted without making the methods: model.py)
        if counted is not None:
            known = list(map(sum, zip(known, counted)))
            continue
        if not _unique_methods(cc):
            return None
        methods += cc.methods
    measured = list(filter(_lines, methods))  # (methods without lines are not reported)
    covered = sum(map(any, map(dict.values, map(_lines, measured))))
    complexity = sum(map(cyclomatic_complexity, map(_branches, measured)))
    return len(measured) + known[0], covered + known[1], complexity + known[2]


def _unique_methods(cc: ClassCoverage) -> bool:
    """Whether no two of the class's methods have the same name and signature (one build's class: none)."""
    columns = cc.method_columns()
    n = len(columns.names)
    if len(set(columns.names)) == n:  # (no overloads: no pairs to make)
        return True
    return len(set(zip(columns.names, columns.signatures))) == n


_lines, _branches = attrgetter("lines"), attrgetter("branches")


# --- files and assemblies -------------------------------------------------------------

@dataclass
class FileAnalysis:
    """One source file: its lines (line -> hits), branch outcomes, excluded and not-measured lines."""

    path: str
    lines: dict[int, int]
    branches: dict[int, BranchCoverage]
    excluded: set[int]
    not_measured: dict[int, str]  # line -> why the agent could not measure it
    assemblies: list[str] = field(default_factory=list)
    stale: str | None = None  # why the source on disk is not the one built, when it is not
    numbers: Numbers = field(default_factory=Numbers)
    # line -> the tests that ran it (only when contexts were asked for and recorded; see contexts.py)
    contexts: dict[int, frozenset[str]] = field(default_factory=dict)
    # The file's classes, merged when first asked for (the table never asks).
    _classes: list[ClassAnalysis] | Callable[[], list[ClassAnalysis]] = field(default=list, repr=False)

    @property
    def classes(self) -> list[ClassAnalysis]:
        if callable(self._classes):
            self._classes = self._classes()
        return self._classes

    @classmethod
    def of(cls, fc: FileCoverage, assemblies: list[str], sources: list[ClassCoverage],
           memo: dict[int, ClassAnalysis] | None = None) -> FileAnalysis:
        """`sources`: the model's classes in this file (every build's), merged lazily (`memo`: merge_classes)."""
        f = cls(fc.path, fc.lines, fc.branches, fc.excluded, fc.not_measured, assemblies, fc.stale,
                line_numbers(fc.lines, fc.branches, len(fc.excluded), len(fc.not_measured)),
                fc.contexts, lambda: merge_classes(sources, memo))
        f.numbers.files = 1
        unmerged = _unmerged_methods(sources)
        if unmerged is not None:
            f.numbers.methods, f.numbers.methods_covered, f.numbers.complexity = unmerged
            return f
        # Methods (name and signature within a class; with lines), covered when any build ran them.
        methods: dict[tuple[str, str, str], bool] = {}
        for cc in sources:
            for mc in cc.methods:
                if mc.lines:
                    key = (cc.name, mc.name, mc.signature)
                    methods[key] = methods.get(key, False) or any(mc.lines.values())
        f.numbers.methods = len(methods)
        f.numbers.methods_covered = sum(methods.values())
        # Complexity sums the merged methods' (cyclomatic_complexity): here the classes are merged for it (the
        # table merges them only when a build's classes or methods need merging).
        f.numbers.complexity = sum(m.complexity for c in f.classes for m in c.methods)
        return f

    @property
    def statements(self) -> int:
        return self.numbers.statements

    @property
    def missed(self) -> int:
        return self.numbers.missed

    @property
    def covered(self) -> int:
        return self.numbers.covered

    def missed_lines(self) -> list[int]:
        return [n for n, h in self.lines.items() if h == 0]

    def missing(self) -> str:
        """The missed lines as ranges (`format_ranges`)."""
        return format_ranges(self.lines, self.missed_lines())

    def partial_lines(self) -> list[int]:
        return [n for n, b in self.branches.items() if b.covered < b.total and self.lines.get(n, 0) > 0]


@dataclass
class AssemblyAnalysis:
    """One assembly (its builds merged): Cobertura's package, OpenCover's module."""

    name: str
    files: list[FileAnalysis]
    sources: list[ClassCoverage] = field(default_factory=list, repr=False)  # the model's classes
    not_loaded: bool = False
    numbers: Numbers = field(default_factory=Numbers)
    _classes: list[ClassAnalysis] | None = field(default=None, repr=False)
    _memo: dict[int, ClassAnalysis] | None = field(default=None, repr=False)  # see merge_classes

    @property
    def classes(self) -> list[ClassAnalysis]:
        """Its classes, its builds merged (computed when first asked for)."""
        if self._classes is None:
            self._classes = merge_classes(self.sources, self._memo)
        return self._classes


def _same_file(analysed: tuple[FileAnalysis, int] | None, path: str, builds: list[FileCoverage],
               sources: list[ClassCoverage]) -> FileAnalysis | None:
    """An assembly's analysis of a file, when it is the report's too: the file has one build, and every class in it
    is that assembly's (else None: the file is analysed again, its builds merged). Shared, not copied: readers
    only read."""
    if analysed is None or len(builds) != 1 or analysed[1] != len(sources) or analysed[0].path != path:
        return None
    return analysed[0]


def _assembly_files(asm: AssemblyCoverage) -> dict[str, FileCoverage]:
    """The assembly's files; a hand-built assembly listing only classes gets its files from them."""
    if asm.files:
        return asm.files
    files: dict[str, FileCoverage] = {}
    for cc in asm.classes:
        fc = files.setdefault(cc.filename, FileCoverage(cc.filename))
        for lines in [cc.lines] + [m.lines for m in cc.methods]:
            for line, hits in lines.items():
                fc.lines[line] = max(fc.lines.get(line, 0), hits)
    return files


@dataclass
class Analysis:
    """Everything the reports say, computed once from a `CoverageResult`."""

    files: list[FileAnalysis]  # every source file once, sorted by path
    assemblies: list[AssemblyAnalysis]  # sorted by name
    totals: Numbers
    source_root: str = ""
    timestamp: int = 0
    branches_measured: bool = False
    warnings: list[str] = field(default_factory=list)  # what every report should say (stale sources, lost data)

    @classmethod
    def of(cls, result: CoverageResult | Analysis) -> Analysis:
        """The analysis of `result` (an Analysis is returned as it is)."""
        if isinstance(result, Analysis):
            return result
        return cls._build(result)

    @classmethod
    def _build(cls, result: CoverageResult) -> Analysis:
        per_path: dict[str, list[FileCoverage]] = {}
        names: dict[str, set[str]] = {}
        classes_by_file: dict[str, list[ClassCoverage]] = {}
        assemblies = []
        memo: dict[int, ClassAnalysis] = {}  # each class one build has, analysed once (merge_classes)
        analysed: dict[str, tuple[FileAnalysis, int]] = {}  # path -> an assembly's analysis of it, how many classes
        for asm in result.assemblies:
            files = _assembly_files(asm)
            by_file: dict[str, list[ClassCoverage]] = {}
            for cc in asm.classes:
                by_file.setdefault(cc.filename, []).append(cc)
                classes_by_file.setdefault(cc.filename, []).append(cc)
            own = []
            for path in sorted(set(files) | set(by_file)):
                sources = by_file.get(path, [])
                fc = files.get(path)
                if fc is None:  # a class in a file the assembly does not list: its lines from its classes
                    fc = FileCoverage(path)
                    for c in merge_classes(by_file[path]):
                        for n, h in c.lines.items():
                            fc.lines[n] = max(fc.lines.get(n, 0), h)
                else:  # the report's files are those the assemblies list
                    per_path.setdefault(path, []).append(fc)
                    names.setdefault(path, set()).add(asm.name)
                own.append(FileAnalysis.of(merge_files([fc]), [asm.name], sources, memo))
                if fc is files.get(path):
                    analysed[path] = (own[-1], len(sources))
            a = AssemblyAnalysis(asm.name, own, asm.classes, asm.not_loaded, _memo=memo)
            a.numbers = sum((f.numbers for f in own), Numbers())
            assemblies.append(a)
        files = [_same_file(analysed.get(p), p, per_path[p], classes_by_file.get(p, []))
                 or FileAnalysis.of(merge_files(per_path[p], p), sorted(names[p]), classes_by_file.get(p, []), memo)
                 for p in sorted(per_path)]
        totals = sum((f.numbers for f in files), Numbers())
        measured = any(fc.branches for asm in result.assemblies for fc in asm.files.values())
        warnings = [f"{f.path}: {f.stale}" for f in files if f.stale]
        warnings += [f"{a.name}: not loaded by any test process; its code counts as not run"
                     for a in assemblies if a.not_loaded]
        assemblies.sort(key=lambda a: a.name)
        return cls(files, assemblies, totals, result.source_root, result.timestamp, measured, warnings)

    def notes(self, root: str | None) -> list[str]:
        """What every report says besides its numbers: not-measured lines with their reason
        (`path: lines 3-5 not measured (why)`), then `warning: ...` for each warning."""
        out = []
        for f in self.files:
            by_reason: dict[str, list[int]] = {}
            for line, reason in sorted(f.not_measured.items()):
                by_reason.setdefault(reason, []).append(line)
            for reason, lines in by_reason.items():
                ranges = format_ranges(f.not_measured, lines)
                out.append(f"{display_path(f.path, root)}: line{'s' if len(lines) > 1 else ''} {ranges} "
                           f"not measured ({reason})")
        return out + [f"warning: {w}" for w in self.warnings]

    def file(self, path: str) -> FileAnalysis | None:
        for f in self.files:
            if f.path == path:
                return f
        return None
