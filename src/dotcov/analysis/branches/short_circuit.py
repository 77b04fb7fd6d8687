"""Short circuits Roslyn compiles without a branch: `ok || flag`, `x > 0 && big` (docs/branches.md).

When the right operand of `||` / `&&` is a bool local or argument (or one captured in a closure or hoisted into
a state machine), Roslyn evaluates both operands and combines them with `or` / `and`, in Debug and Release:
`<left>; ldarg flag; or`. Neither operand has a branch. The agent puts an operand probe before the right
operand's load (native il::FindShortCircuitOperands) with three counters: the left operand decided the result
(the right one is not evaluated in the source), the right operand was false, or true. From them:

- the right operand's two outcomes (false, true), counted only when the source evaluates it;
- the left operand's two outcomes, when the left operand is a single condition with no branch of its own (a
  comparison, a bool load or call right before the load, which nothing jumps to): decided / not decided;
- the branch that tests the combined value (`if (a < 0 || flag)`: `or; brfalse`, Debug `or; stloc; ldloc;
  brfalse`) counts the whole condition, whose conditions are now counted one by one: it is no outcome of its own.

The IL is the same for a non-short-circuit `a | flag`, so the operands count only when the statement's text
has the operator (`||` for `or`, `&&` for `and`); otherwise, or without the source, nothing is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from dotcov import _native
from dotcov.analysis.branches.il import BR, BR_S, NOP, UNARY_BRANCHES, local_loaded, local_stored

# Site kinds (native data_file.h kOperandSkipped / kOperandFalse / kOperandTrue).
OPERAND_SKIPPED, OPERAND_FALSE, OPERAND_TRUE = (_native.SITE_OPERAND_SKIPPED, _native.SITE_OPERAND_FALSE,
                                                _native.SITE_OPERAND_TRUE)
AND, OR = 0x5F, 0x60
# What can leave the left operand as one condition: comparisons, loads of arguments, locals and fields, calls.
LEAF_LEFT = ({0xFE01, 0xFE02, 0xFE03, 0xFE04, 0xFE05} | set(range(0x02, 0x0A)) | {0x0E, 0x11, 0xFE09, 0xFE0C}
             | {0x7B, 0x7E, 0x28, 0x6F, 0x47})


@dataclass
class Shape:
    """What the IL around one operand probe says."""

    is_or: bool
    left: int | None  # offset of the left operand's instruction, when it is one condition with no branch
    whole: int | None  # offset of the branch testing the combined value, if any


def shape(il, offset: int) -> Shape | None:
    """The short circuit whose right operand is loaded at `offset` in `il` (branches.MethodIL), or None."""
    ins = il.instructions
    k = il.index.get(offset)
    if k is None or k == 0:
        return None
    op_at = next((j for j in (k + 1, k + 2) if j < len(ins) and ins[j][1] in (AND, OR)), None)
    if op_at is None:
        return None
    left = ins[k - 1][0] if offset not in il.jump_targets and ins[k - 1][1] in LEAF_LEFT else None
    return Shape(ins[op_at][1] == OR, left, _tested_by(il, op_at + 1))


def _tested_by(il, j: int) -> int | None:
    """The brtrue/brfalse the value computed before ins[j] flows into (through `br`, `stloc N; ldloc N`)."""
    ins = il.instructions
    for _ in range(8):
        while j < len(ins) and ins[j][1] == NOP:
            j += 1
        if j >= len(ins):
            return None
        off, op, arg = ins[j]
        if op in UNARY_BRANCHES:
            return off
        if op in (BR_S, BR) and arg in il.index:
            j = il.index[arg]
            continue
        stored = local_stored(ins[j])
        if stored is None:
            return None
        m = j + 1
        while m < len(ins) and ins[m][1] == NOP:
            m += 1
        if m >= len(ins) or local_loaded(ins[m]) != stored or ins[m][0] in il.jump_targets:
            return None
        j = m + 1
    return None


def confirmed(text: str, is_or: bool) -> bool:
    """Whether the statement's source text has the short-circuit operator the IL's `or`/`and` stands for."""
    return ("||" if is_or else "&&") in text


def outcomes(counts: dict[int, int], s: Shape) -> tuple[dict[int, int], dict[int, int]]:
    """({1: false, 2: true} hits of the left operand, the same of the right operand)."""
    skipped, evaluated = counts[OPERAND_SKIPPED], counts[OPERAND_FALSE] + counts[OPERAND_TRUE]
    left = {1: evaluated, 2: skipped} if s.is_or else {1: skipped, 2: evaluated}
    return left, {1: counts[OPERAND_FALSE], 2: counts[OPERAND_TRUE]}
