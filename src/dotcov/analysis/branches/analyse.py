"""Branch coverage: which branch outcomes the user wrote, and on which line they are.

The agent counts every outcome of every conditional branch and `switch` of a covered
method (data sites of kind 1 = fall-through, 2 + i = target i; see data.ModuleHits).
Here each branch is

* mapped to a line: the line of the sequence point that contains it, i.e. the last
  non-hidden sequence point of its method whose IL offset is <= the branch's offset
  (state-machine MoveNext methods map through their own points, like lines do);
* classified: the C# compiler emits branches the user never wrote (state-machine
  dispatch, `await` completion checks, `using`/`foreach` dispose null checks, delegate
  cache checks, constant conditions of switch expressions, ...). Each pattern is one
  recogniser of native/core/src/branch_facts.cpp (RECOGNISER_NAMES); branches a recogniser
  claims are left out unless `all_branches`.

The loop over a module's methods is native (_native.branch_rows, native/python/native_branches.cpp: counters
grouped, points sorted, branch facts, containing points, classification, Debug short-circuit constants, source
texts, statements grouped for their notes); the rarer rules stay Python (_Hooks: switch arms, operand and value
probes, null tests' IL, notes.py's texts), asked only for the methods that need them.
tests/oracles/branch_analyse.py states the loop in Python.

docs/branches.md describes every pattern, with the IL it matches and why.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Iterable

from dotcov import _native
from dotcov.analysis import hit_exprs
from dotcov.analysis.lines import read_source
from dotcov.analysis.model import BranchCoverage
from dotcov.analysis.symbols import COMPILER_GENERATED
from dotcov.analysis.branches.il import (
    VALUE_OPERATORS,
    MethodIL,
    containing_point,
    shorten,
)

# The recognisers of compiler-generated branches, in native/core/src/branch_facts.cpp (il_branch_facts gives the
# index of the first that claims a branch) and docs/branches.md; tests/oracles/branch_rules.py states them in
# Python, the oracle tests/test_branch_facts.py compares the native ones with.
RECOGNISER_NAMES = ("state-machine dispatch", "await completion check", "dispose null check", "lock taken check",
                    "exception filter type check", "delegate cache check", "constant condition",
                    "async iterator dispose mode", "hidden sequence point")


def compiler_generated_method(name: str, attributes: Iterable[str], move_next: bool = False) -> bool:
    """A method the compiler wrote whole: [CompilerGenerated] (record Equals, PrintMembers,
    GetHashCode, auto-property accessors, ...). Lambdas (`<M>b__..`) and local functions
    (`<M>g__..`) carry the attribute too, but their bodies are the user's, and so is a state
    machine's MoveNext (`move_next`: it has a kickoff method), which VB marks too."""
    return COMPILER_GENERATED in attributes and ">b__" not in name and ">g__" not in name and not move_next


# --- mapping to lines --------------------------------------------------------------


@dataclass
class BranchRecord:
    """One branch of one method, with its outcomes' hits (kind -> hits)."""

    method_token: int
    offset: int
    path: str
    line: int
    outcomes: dict[int, int]
    generated: str | None = None  # the recogniser that claimed it
    is_switch: bool = False
    text: str = ""  # source text of the containing sequence point, when readable
    arms: dict[int, str] | None = None  # a whole switch (see switch_arms): outcome kind -> the arm's label
    notes: dict[int, str] | None = None  # outcome kind -> "`h < 0` never true" (see notes.py)
    unclassified: str | None = None  # why the recognisers could not read the method, which leaves it the user's

    def missed(self) -> list[str]:
        said, none_ran = self.missed_parts()
        if none_ran is not None and not any(self.outcomes.values()):
            return list(none_ran)
        return [said[k] for k in sorted(self.outcomes) if self.outcomes[k] == 0 and k in said]

    def missed_parts(self) -> tuple[dict[int, str], list[str] | None]:
        """What `missed` says, known before the hits (plans/packed.py keeps it): each outcome kind's description
        when that outcome never happened (kinds without one say nothing), and what is said instead when no outcome
        happened (None: the descriptions of them all)."""
        kinds = sorted(self.outcomes)
        statement = shorten(self.text)  # (a condition or arm is named whole; a whole statement shortened)
        if self.arms is not None:
            head = f"`{statement}`: " if self.text else ""
            return {k: f"{head}{self.arms[k]} never taken" for k in kinds if k in self.arms}, None
        if self.notes is not None:
            # (notes.py's kind 0: this branch's own condition never evaluated, as `b` of `a || b`)
            return ({k: self.notes[k] for k in kinds if k in self.notes},
                    [self.notes[0] if 0 in self.notes else
                     f"`{statement}`: never evaluated" if self.text else "never evaluated"])
        # No source-level description (no source text, an IL `switch` not recognised as the user's switch, or a
        # compiler-generated branch shown by --all-branches): still no IL offsets.
        where = f"`{statement}`" if self.text else "this line"
        tag = f" (compiler-generated: {self.generated})" if self.generated else ""
        said = {}
        for kind in kinds:
            if self.is_switch:
                what = "no case matched" if kind == 1 else f"case {kind - 2}"
                said[kind] = f"{where}: {what} never happened{tag}"
            else:
                said[kind] = f"{where}: one outcome never happened (same value every time){tag}"
        return said, None


def code_lines(lines: list[str] | None, path: str, p: tuple) -> str:
    """The lines (of the file `path`) a sequence point spans, without trailing comments ("" when unreadable): F#
    puts a point on a short circuit's last operand alone (`big` of `x > 0 && big`), so its own text does not show
    the operator."""
    if not lines or not 0 < p[1] <= p[3] <= len(lines):
        return ""
    mark = "'" if path.endswith(".vb") else "//"
    return "\n".join(line.split(mark, 1)[0] for line in lines[p[1] - 1:p[3]])


class _Sources:
    """Source files' lines, for the records' texts and the rare rules that read the source."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}
        self._texts: dict[str, str | None] = {}
        self._switches: dict[tuple[str, bool, bool], bool] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = read_source(path)
        return self._texts[path]

    def lines(self, path: str) -> list[str] | None:
        if path not in self._files:
            text = self.text(path)
            self._files[path] = text.splitlines() if text is not None else None
        return self._files[path]

    def may_hold_switches(self, path: str, fsharp: bool, vb: bool) -> bool:
        """switch_arms.may_hold_switches of the file's text, once per file."""
        key = (path, fsharp, vb)
        if key not in self._switches:
            from dotcov.analysis.branches import switch_arms  # (it builds on this module)

            text = self.text(path)
            self._switches[key] = text is not None and switch_arms.may_hold_switches(text, fsharp, vb)
        return self._switches[key]

    def span(self, path: str, p: tuple) -> str:
        """The whole source text of a sequence point, over several lines too ("" when unreadable)."""
        return _native.source_slice(self.text(path), p, span=True)

    def code_lines(self, path: str, p: tuple) -> str:
        return code_lines(self.lines(path), path, p)

    def slice(self, path: str, p: tuple) -> str:
        """The source text of a sequence point, whole (_native.source_slice: over several lines joined into one,
        each line stripped, its trailing comment and VB's `_` continuation dropped)."""
        return _native.source_slice(self.text(path), p, path.endswith(".vb"))


def site_columns(module) -> tuple:
    """(method tokens, IL offsets, kinds) of `module`'s sites, without making the site tuples a data.ModuleHits
    has not made yet (a tuple per counter: most are sequence points, which analyse never reads)."""
    columns = getattr(module, "site_columns", None)
    if columns is not None:
        return columns()
    return tuple(map(list, zip(*module.sites))) if module.sites else ([], [], [])


def analyse(module, sym, *, bodies: dict[int, bytes] | None = None, assembly_path: str | None = None,
            path_of: Callable[[str], str] | None = None, read_sources: bool = True,
            hits: list | None = None) -> list[BranchRecord]:
    """Every branch the agent counted in `module` (a data.ModuleHits) that maps to a line,
    classified: branch_rows' records with their outcomes' hits (`hits`, default module.hits). `sym` is
    results.Symbols; `bodies` defaults to the method bodies of `assembly_path` (default module.path); `path_of` maps
    PDB document paths (as [paths] does)."""
    hits = module.hits if hits is None else hits
    evaluate = hit_exprs.evaluate
    return [BranchRecord(token, offset, path, line, {k: evaluate(c, hits) for k, c in zip(kinds, codes)}, generated,
                         is_switch, text, arms, notes, unclassified)
            for token, offset, path, line, kinds, codes, generated, is_switch, text, arms, notes, unclassified
            in _rows(module, sym, bodies, assembly_path, path_of, read_sources)]


def _rows(module, sym, bodies, assembly_path, path_of, read_sources) -> list[tuple]:
    """branch_rows' tuples; the common path is native (_native.branch_rows), the rare rules are _Hooks'."""
    tokens, offsets, kinds = site_columns(module)
    if not any(kinds):
        return []  # the agent measured no branches in this module
    if bodies is None:
        try:
            bodies = _native.read_method_bodies(assembly_path or module.path)
        except (OSError, ValueError):
            bodies = {}
    raw = sym.raw
    return _native.branch_rows(tokens, offsets, kinds, raw, bodies, _Hooks(raw, bodies, path_of), RECOGNISER_NAMES,
                               read_sources)


class _Hooks:
    """The rules _native.branch_rows leaves to Python, asked only for the methods that need them: where a document
    is, switch arms (switch_arms.py), operand probes (short_circuit.py), value probes' operators, null tests' IL and
    notes (notes.py). Outcomes cross as hit_exprs codes."""

    def __init__(self, raw: dict, bodies: dict, path_of: Callable[[str], str] | None) -> None:
        from dotcov.analysis.branches import notes as branch_notes  # switch_arms builds on this module's IL model

        self.raw, self.bodies, self.path_of, self.sources = raw, bodies, path_of, _Sources()
        self.notes, self._jumps_on_reference = branch_notes.notes, branch_notes.jumps_on_reference
        self.compiler_generated_method = compiler_generated_method
        self.text, self.may_hold_switches = self.sources.text, self.sources.may_hold_switches
        self._il: dict[int, MethodIL] = {}
        self._mapped: dict[int, str | None] = {}
        self._ends: dict[int, list[int]] | None = None

    def path_of_doc(self, doc: int) -> str | None:
        if doc not in self._mapped:  # (once per document)
            documents = self.raw["documents"]
            self._mapped[doc] = None if not 0 < doc <= len(documents) else \
                self.path_of(documents[doc - 1]) if self.path_of is not None else documents[doc - 1]
        return self._mapped[doc]

    def il(self, rid: int) -> MethodIL:
        if rid not in self._il:
            self._il[rid] = MethodIL.decode(rid, self.bodies[rid])
        return self._il[rid]

    def jumps_on_reference(self, rid: int, offset: int) -> bool:
        return self._jumps_on_reference(self.il(rid), offset)

    def value_kept(self, path: str, p: tuple) -> bool:
        """Whether a value probe's statement has a condition operator: `if (x < 0) return true; return flag;`
        compiles like `x < 0 || flag`, with no condition."""
        text = self.sources.code_lines(path, p)
        return not text or VALUE_OPERATORS.search(text) is not None

    def operands(self, rid: int, points: list[tuple], items: list) -> tuple[list, list]:
        """Short circuits compiled to `or`/`and` (short_circuit.py), confirmed by the source's operator:
        ([(offset, counts, Shape, point)], the offsets of the branches testing their whole conditions)."""
        from dotcov.analysis.branches import short_circuit

        combined = []
        for offset, counts in items:
            sc = short_circuit.shape(self.il(rid), offset)
            at = containing_point(points, offset) or points[0]
            where = self.path_of_doc(at[5])
            if sc and where and short_circuit.confirmed(self.sources.span(where, at), sc.is_or):
                combined.append((offset, {k: hit_exprs.decode(c) for k, c in counts.items()}, sc, at))
        return combined, [c[2].whole for c in combined]

    def operand_rows(self, combined: tuple) -> tuple[int, list]:
        """Both operands of one short circuit: (document, [(offset, outcome kinds, codes)])."""
        from dotcov.analysis.branches import short_circuit

        offset, counts, sc, at = combined
        left, right = short_circuit.outcomes(counts, sc)
        return at[5], [(o_at, list(o), [hit_exprs.encode(h) for h in o.values()])
                       for o_at, o in ([(sc.left, left)] if sc.left is not None else []) + [(offset, right)]]

    def switches(self, rid: int, points: list[tuple], doc: int, user: list, path: str, fsharp: bool,
                 vb: bool) -> list[tuple]:
        """The method's switches (switch_arms.find) among its user branches [(offset, {kind: code})]:
        [(offsets, line, outcome kinds, codes, arms)]."""
        from dotcov.analysis.branches import switch_arms

        decoded = {offset: {k: hit_exprs.decode(c) for k, c in outcomes.items()} for offset, outcomes in user}
        return [(sw.offsets, sw.line, list(sw.outcomes), [hit_exprs.encode(h) for h in sw.outcomes.values()],
                 sw.arms)
                for sw in switch_arms.find(self.il(rid), [q for q in points if q[5] == doc], decoded,
                                           self.sources.lines(path), fsharp=fsharp, vb=vb,
                                           floor=self._method_floor(doc, points[0][1]))]

    def _method_floor(self, doc: int, first_line: int) -> int:
        """The last line of the methods that end above `first_line` in `doc` (0: none): a switch search never
        goes up into another method's lines."""
        if self._ends is None:  # (once per module, when a method needs it)
            last: dict[tuple[int, int], int] = {}
            for method, pts in self.raw["sequence_points"].items():
                for q in pts:
                    last[method, q[5]] = max(last.get((method, q[5]), 0), q[3])
            self._ends = {}
            for (_method, d), line in last.items():
                self._ends.setdefault(d, []).append(line)
            for lines_ in self._ends.values():
                lines_.sort()
        below = self._ends.get(doc, [])
        k = bisect_left(below, first_line)
        return below[k - 1] if k else 0


def by_line(records: Iterable[BranchRecord], *, all_branches: bool = False) -> dict[str, dict[int, BranchCoverage]]:
    """{path: {line: BranchCoverage}} summed over the line's branches (user branches only,
    unless all_branches)."""
    out: dict[str, dict[int, BranchCoverage]] = {}
    for r in records:
        if r.generated and not all_branches:
            continue
        line = out.setdefault(r.path, {}).setdefault(r.line, BranchCoverage(0, 0))
        line.total += len(r.outcomes)
        line.covered += sum(1 for h in r.outcomes.values() if h > 0)
        line.missed_outcomes.extend(r.missed())
        line.outcome_hits.append((r.offset, [r.outcomes[k] for k in sorted(r.outcomes)]))
    return out


def branch_rows(module, sym, mapper, *, bodies: dict | None = None) -> list[tuple]:
    """branches.analyse's records with their outcomes as expressions of the counters (hit_exprs.encode's codes), as
    plain tuples (method token, offset, path, line, outcome kinds, their codes, generated, is_switch, text, arms,
    notes, unclassified): what make_plan keeps of them. `bodies`: the assembly's method bodies, when already read."""
    return _rows(module, sym, bodies, mapper.map(module.path), lambda doc: mapper.map(doc, near=module.path), True)
