"""The branch rules in Python: the oracle the product's native branch facts (native/core/src/branch_facts.cpp,
_native.il_branch_facts) are checked against (tests/test_branch_facts.py), and the readable statement of each
rule (docs/branches.md). The product runs only the native ones.

Each recogniser tells whether the C# compiler, not the user, wrote a conditional branch or switch (state-machine
dispatch, `await` completion checks, `using`/`foreach` dispose null checks, delegate cache checks, constant
conditions, ...); RECOGNISERS lists them in branch_facts.h's order (the index il_branch_facts returns).
short_circuit_constants and tests_zero_comparison read the Debug shapes of `a || b` and `!x`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from dotcov.analysis.branches.il import (
    ADD,
    ARITHMETIC,
    BR,
    BRANCH_IF_FALSE,
    BRANCH_IF_TRUE,
    BR_S,
    Branch,
    CALL,
    CALLVIRT,
    CASTCLASS,
    CEQ,
    CLAUSE_FILTER,
    CLAUSE_FINALLY,
    CONDITIONAL,
    CONSTANTS,
    CONSTRAINED,
    DUP,
    ISINST,
    LDARG,
    LDARG_0,
    LDARG_S,
    LEAVE,
    LEAVE_S,
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
    local_loaded,
    local_stored,
)
from dotcov.analysis.branches.analyse import RECOGNISER_NAMES, compiler_generated_method

@dataclass
class RuleIL(MethodIL):
    """A decoded method body plus what the rules read of its method, and the walks they make over its IL."""

    name: str = ""
    attributes: list[str] = field(default_factory=list)
    is_move_next: bool = False  # MoveNext of an async or iterator state machine
    hidden_offsets: set[int] | None = None  # IL offsets of hidden sequence points, when known
    visible_offsets: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        super().__post_init__()
        # Roslyn state machines start with `ldarg.0; ldfld <>1__state; stloc.0`.
        ins = self.instructions
        self.state_field = None
        self.state_local = None
        if self.is_move_next and len(ins) >= 2 and ins[0][1] == LDARG_0 and ins[1][1] == LDFLD:
            self.state_field = ins[1][2]
            if len(ins) >= 3:
                self.state_local = local_stored(ins[2])
        self.br_into: dict[int, list[int]] = {}
        for k, x in enumerate(ins):
            if x[1] in (BR, BR_S):
                self.br_into.setdefault(x[2], []).append(k)

    def branches_into(self, offset: int) -> list[int]:
        """The positions of the `br`/`br.s` instructions that jump to `offset`, in IL order."""
        return self.br_into.get(offset, [])

    def at(self, offset: int, skip_nops: bool = True) -> list[tuple]:
        """The instructions from `offset` on (nops left out)."""
        i = self.index.get(offset)
        if i is None:
            return []
        return [x for x in self.instructions[i:] if not (skip_nops and x[1] == NOP)]

    def before(self, b: Branch, n: int) -> list[tuple]:
        """Up to n instructions just before the branch, nearest last, within its straight-line block."""
        out: list[tuple] = []
        i = b.index - 1
        while i >= 0 and len(out) < n:
            ins = self.instructions[i]
            if ins[1] == SWITCH or ins[1] in CONDITIONAL or ins[1] in UNCONDITIONAL:
                break
            if ins[1] != NOP:
                out.insert(0, ins)
            if ins[0] in self.jump_targets:
                break  # control can arrive here from elsewhere: the block starts here
            i -= 1
        return out

    def in_finally(self, offset: int) -> bool:
        return any(c[0] & CLAUSE_FINALLY and c[3] <= offset < c[3] + c[4] for c in self.clauses)

    def loads_state(self, ins: tuple, prev: tuple | None) -> bool:
        if self.state_local is not None and local_loaded(ins) == self.state_local and ins[1] not in (LDLOCA_S, LDLOCA):
            return True
        return (self.state_field is not None and ins[1] == LDFLD and ins[2] == self.state_field
                and prev is not None and prev[1] == LDARG_0)


def same_load(a: tuple, b: tuple) -> bool:
    """Both instructions load the same local, argument or field (ldloc.1 and ldloc.s 1 alike)."""
    la, lb = local_loaded(a), local_loaded(b)
    if la is not None or lb is not None:
        return la == lb
    if a[1] != b[1]:
        return False
    if LDARG_0 <= a[1] <= LDARG_0 + 3:
        return True
    return a[1] in (LDARG_S, LDARG, LDFLD, LDSFLD) and a[2] == b[2]




def state_machine_dispatch(il: RuleIL, b: Branch) -> bool:
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


def await_completion_check(il: RuleIL, b: Branch) -> bool:
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


def dispose_null_check(il: RuleIL, b: Branch) -> bool:
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


def lock_taken_check(il: RuleIL, b: Branch) -> bool:
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


def exception_filter_type_check(il: RuleIL, b: Branch) -> bool:
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


def delegate_cache_check(il: RuleIL, b: Branch) -> bool:
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


def constant_condition(il: RuleIL, b: Branch) -> bool:
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


def hidden_point_branch(il: RuleIL, b: Branch) -> bool:
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
    hidden = containing_hidden_point(il, b)
    return hidden >= 0 and not user_value_test(il, b, hidden) and not after_await_result(il, b, hidden)


def containing_hidden_point(il: RuleIL, b: Branch) -> int:
    """The offset of the hidden point containing `b` in a MoveNext (the last point at or before it is hidden, and
    no visible point shares its offset), or -1."""
    if il.hidden_offsets is None or not il.is_move_next:
        return -1
    hidden = max((o for o in il.hidden_offsets if o <= b.offset), default=-1)
    visible = max((o for o in il.visible_offsets if o <= b.offset), default=-1)
    if hidden < 0 or visible > hidden or hidden in il.visible_offsets:
        return -1
    return hidden


def dispose_mode_check(il: RuleIL, b: Branch) -> bool:
    """An async iterator's dispose-mode test under a hidden point, before its first point and after each
    resumption: `ldarg.0; ldfld <>w__disposeMode; brfalse L; leave EXIT` (a field of the state machine, not its
    state). It is never an arm of a `switch` written above the iterator."""
    if b.opcode not in BRANCH_IF_FALSE or containing_hidden_point(il, b) < 0:
        return False
    prev = il.before(b, 2)
    if len(prev) != 2 or prev[0][1] != LDARG_0 or prev[1][1] != LDFLD or prev[1][2] == il.state_field:
        return False
    path = il.at(b.fall_through)[:1]
    return bool(path) and path[0][1] in (LEAVE, LEAVE_S)


def after_await_result(il: RuleIL, b: Branch, hidden: int) -> bool:
    """Whether `b` comes after an await's resumption under the hidden point at `hidden`: the state reset to -1
    (`ldc.i4.m1`, perhaps `dup; stloc`, `stfld <>1__state`), then a call (the awaiter's GetResult), between the
    hidden point and the branch. The rest of the user's statement runs there (`await F() ?? throw ...`)."""
    i = il.index.get(hidden)
    if il.state_field is None or i is None:
        return False
    ins = il.instructions
    reset = False
    for k in range(i, b.index):
        x = ins[k]
        if x[1] == STFLD and x[2] == il.state_field:
            j = k
            while j > i and (ins[j - 1][1] in (DUP, NOP) or local_stored(ins[j - 1]) is not None):
                j -= 1
            reset = j > i and ins[j - 1][1] == LDC_I4_M1
        elif reset and x[1] in (CALL, CALLVIRT):
            return True
    return False


def user_value_test(il: RuleIL, b: Branch, hidden: int) -> bool:
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


def join_predecessors(il: RuleIL, i: int) -> list[int]:
    """The positions of the instructions reaching position `i`: the one before it (falling through) and the one
    before every `br` to it."""
    ins = il.instructions
    preds = [i - 1] if i > 0 and ins[i - 1][1] not in UNCONDITIONAL and ins[i - 1][1] not in CONDITIONAL else []
    return preds + [k - 1 for k in il.branches_into(ins[i][0]) if k > 0]


def joined_values(il: RuleIL, i: int) -> tuple[int, list[int]]:
    """Where the value stored at position `i` (`stloc N`) comes from, as (join position, the positions of the
    instructions leaving each value): the predecessors of `i`, or, when the value was spilled (VB Debug, a condition
    after Await: each arm stores `stloc M`, then `J: ldloc M; stloc N`), the values stored at J's."""
    ins = il.instructions
    j = i - 1
    while j >= 0 and ins[j][1] == NOP:
        j -= 1
    plain = (i, join_predecessors(il, i))
    if ins[i][0] in il.jump_targets or j < 0:
        return plain
    spill = local_loaded(ins[j])
    if spill is None or ins[j][1] in (LDLOCA_S, LDLOCA) or ins[j][0] not in il.jump_targets:
        return plain
    values = []
    for k in join_predecessors(il, j):
        if k == 0 or local_stored(ins[k]) != spill:
            return plain
        values.append(k - 1)
    return j, values


def short_circuit_constants(il: RuleIL, b: Branch) -> dict[int, list[tuple[int, int]]] | None:
    """For a Debug build's `if (a || b)`, where `b` has no branch of its own: which outcome
    counts of `b`'s branch must be taken away to leave the last condition's own outcomes.

    Roslyn's Debug code computes `a || b` into a temporary: `a`'s branch jumps to `ldc.i4.1`,
    `b` is computed (`clt`), both join at `stloc N`, and the `if` branches on `ldloc N`. That
    branch counts the whole condition; the value of `b` alone is that count minus the runs that
    came through a constant. Matched as: a `brtrue`/`brfalse` whose block is `ldloc N` after
    the join `stloc N` (directly, or after a hidden point), the join's predecessors being one
    computed value and blocks `ldc.i4.0`/`ldc.i4.1` entered only by jumps (or their stores of a spilled
    temporary, joined_values). Returns {outcome
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
    j, preds = joined_values(il, i)
    if il.instructions[j][0] not in il.jump_targets or len(preds) < 2:
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


def tests_zero_comparison(il: RuleIL, b: Branch) -> bool:
    """Whether the `brtrue`/`brfalse` `b` tests a value computed as `ldc.i4.0; ceq` (Debug's `!x`), directly or
    through `stloc N; ldloc N` and a join whose other predecessors are constants entered by jumps (the shape of
    short_circuit_constants). Then the branch tests the written `!x`, not `x` (notes.jump_means)."""
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
        computed = [k for k in joined_values(il, i)[1]
                    if not (ins[k][1] in (LDC_I4_M1 + 1, LDC_I4_M1 + 2) and ins[k][0] in il.jump_targets)]
        if len(computed) != 1:
            return False
        i = back(computed[0])
    return i > 0 and ins[i][1] == CEQ and ins[back(i - 1)][1] == LDC_I4_M1 + 1


# In branch_facts.h's order: the names are the product's (analyse.RECOGNISER_NAMES).
RECOGNISERS: list[tuple[str, Callable[[RuleIL, Branch], bool]]] = list(zip(RECOGNISER_NAMES, (
    state_machine_dispatch, await_completion_check, dispose_null_check, lock_taken_check, exception_filter_type_check,
    delegate_cache_check, constant_condition, dispose_mode_check, hidden_point_branch), strict=True))




def classify(il: RuleIL, b: Branch) -> str | None:
    """The name of the pattern that makes `b` compiler-generated, or None for a user branch."""
    if compiler_generated_method(il.name, il.attributes, il.is_move_next):
        return "compiler-generated method"
    for name, recognise in RECOGNISERS:
        if recognise(il, b):
            return name
    return None
