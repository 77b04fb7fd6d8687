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
  recogniser below; branches a recogniser claims are left out unless `all_branches`.

docs/branches.md describes every pattern, with the IL it matches and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import Callable, Iterable

from dotcov import _native
from dotcov.analysis.hit_exprs import floor0
from dotcov.analysis.model import BranchCoverage
from dotcov.analysis.branches.il import (  # noqa: F401 (the IL model's names: the rules below and their users')
    ADD,
    ARITHMETIC,
    BR,
    BRANCH_IF_FALSE,
    BRANCH_IF_TRUE,
    BRTRUE_S,
    BR_S,
    Branch,
    CALL,
    CALLVIRT,
    CASTCLASS,
    CEQ,
    CLAUSE_FILTER,
    COMPILER_GENERATED,
    CONDITIONAL,
    CONSTANTS,
    CONSTRAINED,
    DUP,
    ISINST,
    LDARG,
    LDARG_0,
    LDARG_S,
    LDC_I4,
    LDC_I4_M1,
    LDFLD,
    LDFTN,
    LDLOCA,
    LDLOCA_S,
    LDSFLD,
    LDVIRTFTN,
    MethodIL,
    NOP,
    POP,
    STFLD,
    STSFLD,
    SUB,
    SWITCH,
    UNARY_BRANCHES,
    UNCONDITIONAL,
    VALUE_FALSE,
    VALUE_OPERATORS,
    VALUE_TRUE,
    containing_point,
    local_loaded,
    local_stored,
    same_load,
    shorten,
)

_KIND = itemgetter(2)  # of a site (method token, IL offset, kind)
_SITE, _HITS = itemgetter(0), itemgetter(1)  # of a (site, hits) pair

# --- recognisers of compiler-generated branches ------------------------------------


def state_machine_dispatch(il: MethodIL, b: Branch) -> bool:
    """A test of an async or iterator state machine's `<>1__state` (its state variable).

    MoveNext begins `ldarg.0; ldfld <>1__state; stloc.0` and then jumps to where the
    previous call stopped (`switch`, or `ldloc.0; brfalse` / `ldloc.0; ldc.i4.1; beq`);
    try blocks with an `await` inside dispatch again, and finally blocks test
    `state < 0` so they run only when the method really leaves the try. The user wrote
    none of these: they resume after an `await` or `yield return`.
    """
    if not il.is_move_next or (il.state_local is None and il.state_field is None):
        return False
    window = il.before(b, 4)
    if not window:
        return False
    # The condition: a load of the state, then only constants and arithmetic.
    for k in range(len(window) - 1, -1, -1):
        ins = window[k]
        if il.loads_state(ins, window[k - 1] if k else None):
            return True
        if ins[1] not in LDC_I4 and ins[1] not in ARITHMETIC:
            return False
    return False


def await_completion_check(il: MethodIL, b: Branch) -> bool:
    """`if (!awaiter.IsCompleted) { suspend }` of an `await`.

    Matched as: in a state machine's MoveNext, `call get_IsCompleted; brtrue` (or brfalse)
    whose not-completed path starts by storing a new state, `ldarg.0; ldc.i4 N; [dup;
    stloc.0;] stfld <>1__state`. Whether an awaited task had completed is not a decision
    in the user's code; the line of the `await` is covered either way.
    """
    if not il.is_move_next or il.state_field is None or b.opcode not in UNARY_BRANCHES:
        return False
    prev = il.before(b, 1)
    if not prev or prev[-1][1] not in (CALL, CALLVIRT):
        return False
    suspend = b.fall_through if b.opcode in BRANCH_IF_TRUE else b.targets[0]
    path = il.at(suspend)[:5]
    ops = [x[1] for x in path]
    if len(ops) < 3 or ops[0] != LDARG_0 or ops[1] not in LDC_I4:
        return False
    for x in path[2:]:
        if x[1] == STFLD:
            return x[2] == il.state_field
        if x[1] != DUP and local_stored(x) is None:
            return False
    return False


def dispose_null_check(il: MethodIL, b: Branch) -> bool:
    """`if (resource != null) resource.Dispose();` in the finally of `using` or `foreach`.

    Matched as: a `brfalse` inside a finally handler on a local, argument or field X whose
    fall-through loads X again and calls a method on it (`callvirt Dispose`, possibly
    after `constrained.` or `castclass`). The user wrote `using`/`foreach`; the null test
    is the compiler's, and its "null" outcome is usually impossible.
    """
    if b.opcode not in BRANCH_IF_FALSE or not il.in_finally(b.offset):
        return False
    prev = il.before(b, 2)
    if not prev:
        return False
    load = prev[-1]
    if load[1] == LDFLD and not (len(prev) == 2 and prev[0][1] == LDARG_0):
        return False
    if local_loaded(load) is None and load[1] not in (LDFLD, LDSFLD, LDARG_0, LDARG_S, LDARG) and not (
            LDARG_0 <= load[1] <= LDARG_0 + 3):
        return False
    path = il.at(b.fall_through)[:5]
    if load[1] == LDFLD:
        path = path[1:] if path and path[0][1] == LDARG_0 else []
    if not path or not same_load(path[0], load):
        return False
    for x in path[1:4]:
        if x[1] == CALLVIRT:
            return True
        if x[1] not in (CONSTRAINED, CASTCLASS):
            return False
    return False


def lock_taken_check(il: MethodIL, b: Branch) -> bool:
    """`if (lockTaken) Monitor.Exit(obj);` in the finally of a `lock` statement.

    Matched as: a `brfalse` inside a finally handler on a local N whose address the method
    passes elsewhere (`ldloca N`: `Monitor.Enter(obj, ref lockTaken)`), and whose fall-through
    loads another local and calls (`ldloc M; call Monitor.Exit`). The user wrote `lock`; whether
    the lock was taken is the lowering's bookkeeping.
    """
    if b.opcode not in BRANCH_IF_FALSE or not il.in_finally(b.offset):
        return False
    prev = il.before(b, 1)
    if not prev or local_loaded(prev[-1]) is None or prev[-1][1] in (LDLOCA_S, LDLOCA):
        return False
    taken = local_loaded(prev[-1])
    if not any(x[1] in (LDLOCA_S, LDLOCA) and x[2] == taken for x in il.instructions):
        return False
    path = il.at(b.fall_through)[:2]
    return (len(path) == 2 and local_loaded(path[0]) not in (None, taken) and path[0][1] not in (LDLOCA_S, LDLOCA)
            and path[1][1] == CALL)


def exception_filter_type_check(il: MethodIL, b: Branch) -> bool:
    """The type test of `catch (E e) when (...)`: `isinst E; dup; brtrue L; pop; ldc.i4.0; br END`.

    An exception filter receives every exception; the compiler first checks its type, and the
    filter's `when` condition runs only for an E. Matched as: a `brtrue` inside a filter block
    (from the clause's filter offset to its handler) right after `isinst; dup`.
    """
    if b.opcode not in BRANCH_IF_TRUE:
        return False
    if not any(c[0] & CLAUSE_FILTER and c[5] <= b.offset < c[3] for c in il.clauses):
        return False
    prev = il.before(b, 2)
    return len(prev) == 2 and prev[0][1] == ISINST and prev[1][1] == DUP


def delegate_cache_check(il: MethodIL, b: Branch) -> bool:
    """The cached-delegate test of a lambda or method group: `ldsfld <>9__X; dup; brtrue L;
    pop; ldsfld <>9; ldftn; newobj; dup; stsfld <>9__X; L:`.

    Non-capturing lambdas are created once and cached in a static field; only the first
    call takes the creating path. The `pop` + `ldftn` + `stsfld` of the same field tell it
    apart from a user's `field ?? value` (which also compiles to `dup; brtrue; pop`).
    """
    if b.opcode not in BRANCH_IF_TRUE:
        return False
    prev = il.before(b, 2)
    if len(prev) < 2 or prev[0][1] != LDSFLD or prev[1][1] != DUP:
        return False
    cache = prev[0][2]
    path = il.at(b.fall_through)
    if not path or path[0][1] != POP:
        return False
    saw_ftn = False
    for x in path[1:10]:
        if x[0] >= b.targets[0]:
            break
        if x[1] in (LDFTN, LDVIRTFTN):
            saw_ftn = True
        if x[1] == STSFLD:
            return saw_ftn and x[2] == cache
    return False


def constant_condition(il: MethodIL, b: Branch) -> bool:
    """`ldc.i4.1; brtrue` (or any constant then brtrue/brfalse): one outcome is impossible.

    Debug builds of switch expressions start and end with such a jump. The constant must be
    the instruction just before the branch, and the branch no jump target: when control
    can reach the branch from elsewhere, as in the Release code of `a || b` (`blt L; ...;
    br M; L: ldc.i4.1; M: brfalse`), the value is not constant.
    """
    if b.opcode not in UNARY_BRANCHES or b.offset in il.jump_targets:
        return False
    prev = il.before(b, 1)
    return bool(prev) and prev[-1][1] in CONSTANTS


def hidden_point_branch(il: MethodIL, b: Branch) -> bool:
    """A branch under a hidden sequence point (line 0xFEEFEE) that tests no value of the
    user's statement.

    Only when the PDB's hidden points are known, and only in state-machine MoveNext methods,
    where the async/iterator lowering puts its plumbing (pending-exception rethrows of
    `await` in try/finally, `await using`, ...) under hidden points: a backstop for the
    recognisers above. Elsewhere hidden points do not mean "generated": Debug builds put
    the user's own switch and pattern dispatch (`o switch { int => .. }`: `isinst; brtrue`)
    and the Release `switch` statement under hidden points.

    The containing point is the last point (hidden or not) at or before the branch; a
    visible point at the same offset wins. A test of the value the user's statement stored just
    before the hidden point stays a user branch (see user_value_test): the Debug condition
    temporary of every `if`/`while` (`stloc.N` / hidden / `ldloc.N; brfalse`) and the dispatch
    of a `switch` statement (`stloc.N` / hidden / `ldloc.N; ldc.i4.1; beq; ldloc.N; ldc.i4.2;
    beq`, or through a hoisted field in Debug state machines).
    """
    if il.hidden_offsets is None or not il.is_move_next:
        return False
    hidden = max((o for o in il.hidden_offsets if o <= b.offset), default=-1)
    visible = max((o for o in il.visible_offsets if o <= b.offset), default=-1)
    if hidden < 0 or visible > hidden or hidden in il.visible_offsets:
        return False
    return not user_value_test(il, b, hidden)


def user_value_test(il: MethodIL, b: Branch, hidden: int) -> bool:
    """Whether `b` only tests, against constants, the value stored by the instruction just
    before the hidden point at `hidden` (a local, or a field of the state machine).

    Walks the instructions from the hidden point to the branch: loads of that value (or of a
    local it was copied into), constants, `add`/`sub`, earlier branches of the same dispatch
    and `br`. Anything else (a call, another field) means the branch tests something the
    lowering computed."""
    i = il.index.get(hidden)
    if i is None or i == 0:
        return False
    store = il.instructions[i - 1]
    locals_: set[int] = set()
    fields: set[int] = set()
    if local_stored(store) is not None:
        locals_.add(local_stored(store))
    elif store[1] == STFLD:
        fields.add(store[2])
    else:
        return False
    block = [x for x in il.instructions[i:b.index] if x[1] != NOP]
    k = 0
    while k < len(block):
        x = block[k]
        if local_loaded(x) is not None:
            if x[1] in (LDLOCA_S, LDLOCA) or local_loaded(x) not in locals_:
                return False
        elif x[1] == LDARG_0 and k + 1 < len(block) and block[k + 1][1] == LDFLD and block[k + 1][2] in fields:
            k += 1
        elif local_stored(x) is not None:
            locals_.add(local_stored(x))
        elif not (x[1] in CONSTANTS or x[1] in (ADD, SUB) or x[1] in CONDITIONAL or x[1] in (BR, BR_S)):
            return False
        k += 1
    return True


def short_circuit_constants(il: MethodIL, b: Branch) -> dict[int, list[tuple[int, int]]] | None:
    """For a Debug build's `if (a || b)`, where `b` has no branch of its own: which outcome
    counts of `b`'s branch must be taken away to leave the last condition's own outcomes.

    Roslyn's Debug code computes `a || b` into a temporary: `a`'s branch jumps to `ldc.i4.1`,
    `b` is computed (`clt`), both join at `stloc N`, and the `if` branches on `ldloc N`. That
    branch counts the whole condition; the value of `b` alone is that count minus the runs that
    came through a constant. Matched as: a `brtrue`/`brfalse` whose block is `ldloc N` after
    the join `stloc N` (directly, or after a hidden point), the join's predecessors being one
    computed value and blocks `ldc.i4.0`/`ldc.i4.1` entered only by jumps. Returns {outcome
    kind of `b`: [(branch offset, outcome kind) entering a constant that ends in that outcome]},
    or None when the shape is not this one.
    """
    if b.opcode not in UNARY_BRANCHES:
        return None
    prev = il.before(b, 1)
    if not prev or local_loaded(prev[0]) is None or prev[0][1] in (LDLOCA_S, LDLOCA):
        return None
    i = il.index[prev[0][0]] - 1
    while i >= 0 and il.instructions[i][1] == NOP:
        i -= 1
    if i < 0 or local_stored(il.instructions[i]) != local_loaded(prev[0]):
        return None
    join = il.instructions[i][0]
    # The join's predecessors: the instruction before it (falling through) and every `br` to it.
    preds = []
    if i > 0 and il.instructions[i - 1][1] not in UNCONDITIONAL and il.instructions[i - 1][1] not in CONDITIONAL:
        preds.append(i - 1)
    preds += [k - 1 for k in il.branches_into(join) if k > 0]
    if join not in il.jump_targets or len(preds) < 2:
        return None
    true_kind, false_kind = (2, 1) if b.opcode in BRANCH_IF_TRUE else (1, 2)
    subtract: dict[int, list[tuple[int, int]]] = {true_kind: [], false_kind: []}
    computed = 0
    for k in preds:
        off, op, arg = il.instructions[k]
        value = {LDC_I4_M1 + 1: 0, LDC_I4_M1 + 2: 1}.get(op)
        if value is None or off not in il.jump_targets:
            computed += 1
            continue
        # Only jumps may enter a constant block (never a fall-through from computed code).
        before = il.instructions[k - 1][1] if k > 0 else None
        if before is not None and before not in UNCONDITIONAL and before not in CONDITIONAL and before != 0x2A:
            return None
        entering = [(x.offset, kind) for x in il.branches() for kind, t in
                    [(1, x.fall_through)] + [(2 + j, t) for j, t in enumerate(x.targets)] if t == off]
        subtract[true_kind if value else false_kind].extend(entering)
    return subtract if computed == 1 else None


def tests_zero_comparison(il: MethodIL, b: Branch) -> bool:
    """Whether the `brtrue`/`brfalse` `b` tests a value computed as `ldc.i4.0; ceq` (Debug's `!x`), directly or
    through `stloc N; ldloc N` and a join whose other predecessors are constants entered by jumps (the shape of
    short_circuit_constants). Then the branch tests the written `!x`, not `x` (branch_notes.jump_means)."""
    if b.opcode not in UNARY_BRANCHES:
        return False
    ins = il.instructions

    def back(i: int) -> int:
        while i >= 0 and ins[i][1] == NOP:
            i -= 1
        return i

    i = back(b.index - 1)
    if i >= 0 and local_loaded(ins[i]) is not None and ins[i][1] not in (LDLOCA_S, LDLOCA):
        slot = local_loaded(ins[i])
        i = back(i - 1)
        if i < 0 or local_stored(ins[i]) != slot:
            return False
        join = ins[i][0]
        preds = [i - 1] if i > 0 and ins[i - 1][1] not in UNCONDITIONAL and ins[i - 1][1] not in CONDITIONAL else []
        preds += [k - 1 for k in il.branches_into(join) if k > 0]
        computed = [k for k in preds
                    if not (ins[k][1] in (LDC_I4_M1 + 1, LDC_I4_M1 + 2) and ins[k][0] in il.jump_targets)]
        if len(computed) != 1:
            return False
        i = back(computed[0])
    return i > 0 and ins[i][1] == CEQ and ins[back(i - 1)][1] == LDC_I4_M1 + 1


RECOGNISERS: list[tuple[str, Callable[[MethodIL, Branch], bool]]] = [
    ("state-machine dispatch", state_machine_dispatch),
    ("await completion check", await_completion_check),
    ("dispose null check", dispose_null_check),
    ("lock taken check", lock_taken_check),
    ("exception filter type check", exception_filter_type_check),
    ("delegate cache check", delegate_cache_check),
    ("constant condition", constant_condition),
    ("hidden sequence point", hidden_point_branch),
]


def compiler_generated_method(name: str, attributes: Iterable[str]) -> bool:
    """A method the compiler wrote whole: [CompilerGenerated] (record Equals, PrintMembers,
    GetHashCode, auto-property accessors, ...). Lambdas (`<M>b__..`) and local functions
    (`<M>g__..`) carry the attribute too, but their bodies are the user's."""
    return COMPILER_GENERATED in attributes and ">b__" not in name and ">g__" not in name


def classify(il: MethodIL, b: Branch) -> str | None:
    """The name of the pattern that makes `b` compiler-generated, or None for a user branch."""
    if compiler_generated_method(il.name, il.attributes):
        return "compiler-generated method"
    for name, recognise in RECOGNISERS:
        if recognise(il, b):
            return name
    return None


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
    notes: dict[int, str] | None = None  # outcome kind -> "`h < 0` never true" (see branch_notes)

    def missed(self) -> list[str]:
        said, none_ran = self.missed_parts()
        if none_ran is not None and not any(self.outcomes.values()):
            return list(none_ran)
        return [said[k] for k in sorted(self.outcomes) if self.outcomes[k] == 0 and k in said]

    def missed_parts(self) -> tuple[dict[int, str], list[str] | None]:
        """What `missed` says, known before the hits (packed_plan.py keeps it): each outcome kind's description
        when that outcome never happened (kinds without one say nothing), and what is said instead when no outcome
        happened (None: the descriptions of them all)."""
        kinds = sorted(self.outcomes)
        if self.arms is not None:
            head = f"`{self.text}`: " if self.text else ""
            return {k: f"{head}{self.arms[k]} never taken" for k in kinds if k in self.arms}, None
        if self.notes is not None:
            return ({k: self.notes[k] for k in kinds if k in self.notes},
                    [f"`{self.text}`: never evaluated" if self.text else "never evaluated"])
        # No source-level description (no source text, an IL `switch` not recognised as the user's switch, or a
        # compiler-generated branch shown by --all-branches): still no IL offsets.
        where = f"`{self.text}`" if self.text else "this line"
        tag = f" (compiler-generated: {self.generated})" if self.generated else ""
        said = {}
        for kind in kinds:
            if self.is_switch:
                what = "no case matched" if kind == 1 else f"case {kind - 2}"
                said[kind] = f"{where}: {what} never happened{tag}"
            else:
                said[kind] = f"{where}: one outcome never happened (same value every time){tag}"
        return said, None


class _Sources:
    """Source text slices of sequence points, for the missed-outcome descriptions."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}
        self._texts: dict[str, str | None] = {}
        self._switches: dict[tuple[str, bool, bool], bool] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._files:
            try:
                text = Path(path).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                text = None
            self._files[path] = text.splitlines() if text is not None else None
            self._texts[path] = text
        return self._files[path]

    def may_hold_switches(self, path: str, fsharp: bool, vb: bool) -> bool:
        """switch_arms.may_hold_switches of the file's text, once per file."""
        key = (path, fsharp, vb)
        if key not in self._switches:
            from dotcov.analysis.branches import switch_arms  # (it builds on this module)

            self.lines(path)
            text = self._texts[path]
            self._switches[key] = text is not None and switch_arms.may_hold_switches(text, fsharp, vb)
        return self._switches[key]

    def span(self, path: str, p: tuple) -> str:
        """The whole source text of a sequence point, over several lines too ("" when unreadable)."""
        _off, sl, sc, el, ec, _doc = p
        lines = self.lines(path)
        if not lines or not 0 < sl <= el <= len(lines) or sc <= 0 or ec <= 0:
            return ""
        text = "\n".join(lines[sl - 1:el])
        return text[sc - 1:len(text) - len(lines[el - 1]) + ec - 1]

    def code_lines(self, path: str, p: tuple) -> str:
        """The lines a sequence point spans, without trailing comments ("" when unreadable): F# puts a point on a
        short circuit's last operand alone (`big` of `x > 0 && big`), so its own text does not show the operator."""
        lines = self.lines(path)
        if not lines or not 0 < p[1] <= p[3] <= len(lines):
            return ""
        mark = "'" if path.endswith(".vb") else "//"
        return "\n".join(line.split(mark, 1)[0] for line in lines[p[1] - 1:p[3]])

    def slice(self, path: str, p: tuple, limit: int = 60) -> str:
        _off, sl, sc, el, ec, _doc = p
        if sl != el or sc <= 0 or ec <= sc:
            return ""
        lines = self.lines(path)
        if not lines or sl > len(lines):
            return ""
        return shorten(lines[sl - 1][sc - 1:ec - 1].strip(), limit)


def branch_hits(sites: Iterable[tuple[int, int, int]], hits: Iterable[int]) -> dict[tuple[int, int], dict[int, int]]:
    """{(method token, IL offset): {kind: hits}} of the branch-outcome sites (kind >= 1)."""
    out: dict[tuple[int, int], dict[int, int]] = {}
    for (token, offset, kind), h in zip(sites, hits):
        if 1 <= kind < VALUE_FALSE:
            outcomes = out.setdefault((token, offset), {})
            outcomes[kind] = outcomes.get(kind, 0) + h
    return out


def value_hits(sites: Iterable[tuple[int, int, int]], hits: Iterable[int]) -> dict[tuple[int, int], dict[int, int]]:
    """{(method token, IL offset): {1: false hits, 2: true hits}} of the value-condition sites, the outcomes in the
    order of a `brtrue`'s (fall-through = false, taken = true) so the notes read them alike."""
    out: dict[tuple[int, int], dict[int, int]] = {}
    for (token, offset, kind), h in zip(sites, hits):
        if kind in (VALUE_FALSE, VALUE_TRUE):
            outcomes = out.setdefault((token, offset), {1: 0, 2: 0})
            outcomes[1 if kind == VALUE_FALSE else 2] += h
    return out


def analyse(module, sym, *, bodies: dict[int, bytes] | None = None, assembly_path: str | None = None,
            path_of: Callable[[str], str] | None = None, read_sources: bool = True,
            hits: list | None = None) -> list[BranchRecord]:
    """Every branch the agent counted in `module` (a data.ModuleHits) that maps to a line,
    classified. `sym` is results.Symbols; `bodies` defaults to the method bodies of
    `assembly_path` (default module.path); `path_of` maps PDB document paths (as [paths] does).
    `hits` (default module.hits) may be hit_exprs.symbolic(module.sites): the outcomes are then expressions."""
    from dotcov.analysis.branches import notes as branch_notes  # switch_arms builds on this module's IL model
    from dotcov.analysis.branches import short_circuit
    from dotcov.analysis.branches import switch_arms

    hits = module.hits if hits is None else hits
    # (the sequence points' counters, kind 0, are most of a module's and none of these: left out at C speed)
    counters = list(compress(zip(module.sites, hits), map(_KIND, module.sites)))
    counted = branch_hits(map(_SITE, counters), map(_HITS, counters))
    values = value_hits(map(_SITE, counters), map(_HITS, counters))
    operands = short_circuit.operand_hits(map(_SITE, counters), map(_HITS, counters))
    if not counted and not values and not operands:
        return []  # the agent measured no branches in this module
    raw = sym.raw
    if bodies is None:
        try:
            bodies = _native.read_method_bodies(assembly_path or module.path)
        except (OSError, ValueError):
            bodies = {}
    hidden_all = raw.get("hidden_points")
    documents = raw["documents"]
    sources = _Sources()
    by_method: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), outcomes in counted.items():
        by_method.setdefault(token & 0x00FFFFFF, []).append((offset, outcomes))
    values_of: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), outcomes in values.items():
        values_of.setdefault(token & 0x00FFFFFF, []).append((offset, outcomes))
        by_method.setdefault(token & 0x00FFFFFF, [])
    operands_of: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), counts in operands.items():
        operands_of.setdefault(token & 0x00FFFFFF, []).append((offset, counts))
        by_method.setdefault(token & 0x00FFFFFF, [])
    records: list[BranchRecord] = []
    said: dict[tuple, list[dict[int, str]]] = {}  # branch_notes.notes of each statement shape

    mapped: dict[int, str | None] = {}

    def path_of_doc(doc: int) -> str | None:
        if doc not in mapped:  # (once per document)
            mapped[doc] = None if not 0 < doc <= len(documents) else \
                path_of(documents[doc - 1]) if path_of is not None else documents[doc - 1]
        return mapped[doc]

    for rid, found in sorted(by_method.items()):
        points = sorted(raw["sequence_points"].get(rid, []))
        if not points:
            continue  # only hidden points (or none): nothing the user wrote to report against
        name = raw["methods"][rid - 1][0] if rid <= len(raw["methods"]) else ""
        attrs = raw.get("attributes", {}).get(0x06000000 | rid, [])
        move_next = rid in raw["kickoff"]
        # Each branch's recogniser, short_circuit_constants and tests_zero_comparison, in native code
        # (branch_facts.h: the rules of the functions above; tests/test_branch_facts.py checks they agree):
        # [(offset, opcode, RECOGNISERS index or -1, short_circuit_constants, tests_zero_comparison)].
        facts = None
        if rid in bodies:
            try:
                facts = _native.il_branch_facts(
                    bodies[rid], move_next,
                    list(hidden_all.get(rid, [])) if hidden_all is not None and move_next else None,
                    [p[0] for p in points] if move_next else [])
            except ValueError:
                facts = None
        il = _LazyIL(rid, bodies[rid], name, attrs, move_next, hidden_all, points) if facts is not None else None
        il_branches = {f[0]: f for f in facts} if facts is not None else {}
        whole_method = compiler_generated_method(name, attrs)
        # Short circuits compiled to `or`/`and` (short_circuit.py): confirmed by the source's operator.
        combined = []  # (offset, counts, Shape, point)
        for offset, counts in sorted(operands_of.get(rid, [])) if il is not None and read_sources else ():
            sc = short_circuit.shape(il.get(), offset)
            at = containing_point(points, offset) or points[0]
            where = path_of_doc(at[5])
            if sc and where and short_circuit.confirmed(sources.span(where, at), sc.is_or):
                combined.append((offset, counts, sc, at))
        whole = {c[2].whole for c in combined}
        rows = []
        for offset, outcomes in sorted(found):
            p = containing_point(points, offset)
            b = il_branches.get(offset)
            generated = None
            if b is not None:  # (classify)
                generated = "compiler-generated method" if whole_method else RECOGNISERS[b[2]][0] if b[2] >= 0 else None
            if il and not b:
                generated = "not a branch in the method's IL"
            if generated is None and offset in whole:
                generated = "whole condition, counted per operand"
            if p is None:
                # Before the first point: in MoveNext the state-machine prologue; elsewhere e.g. a
                # Release `switch` statement's dispatch (under a hidden point). Either is reported
                # on the method's first line.
                p = points[0]
                if il is not None and move_next:
                    generated = generated or "before the first sequence point"
            rows.append((offset, outcomes, p, b, generated))
        # Debug `a || b` / `a && b`: the last condition's own outcomes (short_circuit_constants).
        counts = dict(found)
        for n, (offset, outcomes, p, b, generated) in enumerate(rows):
            sub = b[3] if b is not None and generated is None else None  # (short_circuit_constants)
            if sub:
                own = {k: floor0(h - sum(counts.get(o, {}).get(kind, 0) for o, kind in sub.get(k, [])))
                       for k, h in outcomes.items()}
                rows[n] = (offset, own, p, b, generated)
        # A switch's dispatch becomes one record with an outcome per arm (switch_arms.py), in the document of the
        # method's first point.
        grouped: set[int] = set()
        doc = points[0][5]
        path = path_of_doc(doc)
        fsharp, vb = path is not None and path.endswith((".fs", ".fsx", ".fsi")), path is not None and path.endswith(".vb")
        if il is not None and read_sources and path is not None and sources.may_hold_switches(path, fsharp, vb):
            # Under a hidden point in MoveNext (Release async code loads the switch value from a hoisted field after
            # `GetResult()`), a dispatch the source confirms as a switch is the user's too.
            user = {offset: outcomes for offset, outcomes, _p, _b, g in rows
                    if g in (None, "hidden sequence point") and _b is not None}
            for sw in switch_arms.find(il.get(), [q for q in points if q[5] == doc], user, sources.lines(path),
                                       fsharp=fsharp, vb=vb):
                grouped.update(sw.offsets)
                records.append(BranchRecord(0x06000000 | rid, sw.offsets[0], path, sw.line, sw.outcomes, None,
                                            True, arms=sw.arms))
        by_statement: dict[int, list[tuple[int, BranchRecord, bool]]] = {}  # (opcode, record, tests written value)
        for offset, outcomes, p, b, generated in rows:
            where = path_of_doc(p[5])
            if offset in grouped or where is None:
                continue
            is_switch = b is not None and b[1] == SWITCH
            r = BranchRecord(0x06000000 | rid, offset, where, p[1], outcomes, generated, is_switch,
                             sources.slice(where, p) if read_sources else "")
            records.append(r)
            if b is not None and generated is None and not is_switch:
                by_statement.setdefault(p[0], []).append((b[1], r, b[4]))  # (b[4]: tests_zero_comparison)
        # Conditions computed into a value (the agent's value probes): two outcomes each, read like a `brtrue`.
        for offset, outcomes in sorted(values_of.get(rid, [])):
            p = containing_point(points, offset) or points[0]
            where = path_of_doc(p[5])
            if where is None:
                continue
            text = sources.code_lines(where, p) if read_sources else ""
            if text and not VALUE_OPERATORS.search(text):
                continue  # `if (x < 0) return true; return flag;` compiles like `x < 0 || flag`: no condition
            generated = "compiler-generated method" if compiler_generated_method(name, attrs) else None
            r = BranchRecord(0x06000000 | rid, offset, where, p[1], outcomes, generated, False,
                             sources.slice(where, p) if read_sources else "")
            records.append(r)
            if generated is None:
                by_statement.setdefault(p[0], []).append((BRTRUE_S, r, True))  # counts the written value
                by_statement[p[0]].sort(key=lambda row: row[1].offset)
        # Both operands of a short circuit compiled to `or`/`and`: two outcomes each, read like a `brtrue`.
        for offset, counts, sc, at in combined:
            left, right = short_circuit.outcomes(counts, sc)
            where = path_of_doc(at[5])
            generated = "compiler-generated method" if compiler_generated_method(name, attrs) else None
            for at, o in ([(sc.left, left)] if sc.left is not None else []) + [(offset, right)]:
                q = containing_point(points, at) or points[0]
                r = BranchRecord(0x06000000 | rid, at, where, q[1], o, generated, False, sources.slice(where, q))
                records.append(r)
                if generated is None:
                    by_statement.setdefault(q[0], []).append((BRTRUE_S, r, True))
                    by_statement[q[0]].sort(key=lambda row: row[1].offset)
        # Missed outcomes in source terms (branch_notes.py), per statement.
        for rows_of in by_statement.values():
            # (notes depend on the text, opcodes and written flags only: once per distinct statement; read-only)
            key = (rows_of[0][1].text, *[(op, w) for op, _r, w in rows_of])
            descriptions = said.get(key)
            if descriptions is None:
                descriptions = said[key] = branch_notes.notes(rows_of[0][1].text,
                                                              [(op, r.outcomes, w) for op, r, w in rows_of])
            for (_op, r, _w), d in zip(rows_of, descriptions):
                r.notes = d
    return records


class _LazyIL:
    """A method's MethodIL, decoded when first asked for (analyse needs it only for operand probes and switches)."""

    __slots__ = ("args", "il")

    def __init__(self, *args) -> None:
        self.args, self.il = args, None

    def get(self) -> MethodIL:
        if self.il is None:
            rid, body, name, attrs, move_next, hidden_all, points = self.args
            self.il = MethodIL.decode(
                rid, body, name=name, attributes=list(attrs), is_move_next=move_next,
                hidden_offsets=set(hidden_all.get(rid, [])) if hidden_all is not None else None,
                visible_offsets={p[0] for p in points})
        return self.il


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


def branch_rows(module, sym, mapper, hits: list | None = None, bodies: dict | None = None) -> list[tuple]:
    """branches.analyse's records with their outcomes as expressions of the counters (hit_exprs.py; `hits`
    default hit_exprs.symbolic(module.sites)), as plain tuples (method token, offset, path, line, outcome kinds,
    their codes, generated, is_switch, text, arms, notes): what make_plan keeps of them. `bodies`: the assembly's method bodies, when already read."""
    from dotcov.analysis import hit_exprs

    encode = hit_exprs.encode
    return [(r.method_token, r.offset, r.path, r.line, list(r.outcomes), [encode(h) for h in r.outcomes.values()],
             r.generated, r.is_switch, r.text, r.arms, r.notes)
            for r in analyse(module, sym, bodies=bodies, assembly_path=mapper.map(module.path),
                                      path_of=lambda doc: mapper.map(doc, near=module.path),
                                      hits=hit_exprs.symbolic(module.sites) if hits is None else hits)]
