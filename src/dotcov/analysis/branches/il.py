"""The IL model the branch rules read: opcodes, a method's instructions and jumps, the locals they load and store.

Built on the native decoder (_native.il_decode); the recognisers (analyse.py), short circuits and switch arms read
a method only through this model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter

from dotcov import _native

# --- opcodes ------------------------------------------------------------------

NOP = 0x00
LDARG_0 = 0x02
LDLOC_0, LDLOC_3 = 0x06, 0x09
STLOC_0, STLOC_3 = 0x0A, 0x0D
LDARG_S, LDARGA_S, STARG_S = 0x0E, 0x0F, 0x10
LDLOC_S, LDLOCA_S, STLOC_S = 0x11, 0x12, 0x13
LDNULL = 0x14
LDC_I4_M1, LDC_I4_8, LDC_I4_S, LDC_I4, LDC_I8 = 0x15, 0x1E, 0x1F, 0x20, 0x21
DUP, POP = 0x25, 0x26
CALL, CALLVIRT = 0x28, 0x6F
BR_S, BRFALSE_S, BRTRUE_S = 0x2B, 0x2C, 0x2D
BR, BRFALSE, BRTRUE = 0x38, 0x39, 0x3A
SWITCH = 0x45
CASTCLASS, ISINST = 0x74, 0x75
LDFLD, LDFLDA, STFLD, LDSFLD, STSFLD = 0x7B, 0x7C, 0x7D, 0x7E, 0x80
ENDFINALLY, LEAVE, LEAVE_S = 0xDC, 0xDD, 0xDE
ADD, SUB = 0x58, 0x59
CEQ, CGT, CGT_UN, CLT, CLT_UN = 0xFE01, 0xFE02, 0xFE03, 0xFE04, 0xFE05
LDFTN, LDVIRTFTN = 0xFE06, 0xFE07
LDARG, LDARGA, LDLOC, LDLOCA, STLOC = 0xFE09, 0xFE0A, 0xFE0C, 0xFE0D, 0xFE0E
CONSTRAINED = 0xFE16

BRANCH_IF_TRUE = {BRTRUE_S, BRTRUE}
BRANCH_IF_FALSE = {BRFALSE_S, BRFALSE}
UNARY_BRANCHES = BRANCH_IF_TRUE | BRANCH_IF_FALSE
# beq.s .. blt.un.s and beq .. blt.un: compare two values and jump.
COMPARE_BRANCHES = set(range(0x2E, 0x38)) | set(range(0x3B, 0x45))
CONDITIONAL = UNARY_BRANCHES | COMPARE_BRANCHES
UNCONDITIONAL = {BR_S, BR, LEAVE, LEAVE_S}
_JUMPS = CONDITIONAL | UNCONDITIONAL  # (one membership test per instruction; SWITCH is in neither)
_BRANCHES = CONDITIONAL | {SWITCH}
_OFFSET, _OPCODE, _OPERAND = itemgetter(0), itemgetter(1), itemgetter(2)  # of an instruction
LDC_I4 = set(range(LDC_I4_M1, LDC_I4_8 + 1)) | {LDC_I4_S, LDC_I4}
CONSTANTS = LDC_I4 | {LDC_I8, LDNULL}
ARITHMETIC = {ADD, SUB, CEQ, CGT, CGT_UN, CLT, CLT_UN}

CLAUSE_FILTER, CLAUSE_FINALLY = 1, 2  # ECMA-335 II.25.4.6 flags; a filter clause's last field is the filter offset
HIDDEN_LINE = 0xFEEFEE
# Site kinds of a condition computed into a value (docs/branches.md, "Conditions computed into a value"): the
# value the instruction at the site's offset left was false (zero) / true (nonzero). (data_file.h's SiteKind)
VALUE_FALSE, VALUE_TRUE = _native.SITE_VALUE_FALSE, _native.SITE_VALUE_TRUE
# A statement holding a condition computed into a value has one of these: `&&`, `||`, a pattern `and`/`or`, `?:`,
# `when`, VB's AndAlso/OrElse.
VALUE_OPERATORS = re.compile(r"&&|\|\||\?|\b(?:and|or|when|AndAlso|OrElse)\b")


def local_loaded(ins: tuple) -> int | None:
    """The local variable index an instruction loads (ldloc*), else None."""
    op, arg = ins[1], ins[2]
    if LDLOC_0 <= op <= LDLOC_3:
        return op - LDLOC_0
    if op in (LDLOC_S, LDLOC, LDLOCA_S, LDLOCA):
        return arg
    return None


def local_stored(ins: tuple) -> int | None:
    op, arg = ins[1], ins[2]
    if STLOC_0 <= op <= STLOC_3:
        return op - STLOC_0
    if op in (STLOC_S, STLOC):
        return arg
    return None


# --- one method's IL -------------------------------------------------------------


@dataclass
class Branch:
    """A conditional branch or switch: its instruction and its outcomes' target offsets."""

    index: int  # position in MethodIL.instructions
    offset: int
    opcode: int
    targets: list[int]  # [jump target] for a conditional branch, the case targets for a switch
    fall_through: int  # offset of the next instruction

    @property
    def is_switch(self) -> bool:
        return self.opcode == SWITCH

    def outcome_count(self) -> int:
        return 1 + len(self.targets)


@dataclass
class MethodIL:
    """A decoded method body: its instructions, clauses, jump targets and branches."""

    rid: int
    instructions: list[tuple]  # (offset, opcode, operand or switch targets)
    clauses: list[tuple] = field(default_factory=list)

    def __post_init__(self) -> None:
        # (C-level maps over the instructions, not Python loops: this runs for every method of a module)
        ins = self.instructions
        self._ops = ops = list(map(_OPCODE, ins))
        self.index = dict(zip(map(_OFFSET, ins), range(len(ins))))
        self.jump_targets: set[int] = set(compress(map(_OPERAND, ins), map(_JUMPS.__contains__, ops)))
        if SWITCH in ops:
            for _off, op, arg in ins:
                if op == SWITCH:
                    self.jump_targets.update(arg)
        for c in self.clauses:
            self.jump_targets.add(c[3])

    @classmethod
    def decode(cls, rid: int, body: bytes, **kw) -> MethodIL:
        d = _native.il_decode(body)  # (instructions and clauses are tuples already)
        return cls(rid, list(d["instructions"]), list(d["clauses"]), **kw)

    def branches(self) -> list[Branch]:
        found = self.__dict__.get("_branches")
        if found is None:  # (decoded once: its users ask again)
            found = self.__dict__["_branches"] = self._find_branches()
        return list(found)

    def _find_branches(self) -> list[Branch]:
        out = []
        ins = self.instructions
        for i in compress(range(len(ins)), map(_BRANCHES.__contains__, self._ops)):
            off, op, arg = ins[i]
            nxt = ins[i + 1][0] if i + 1 < len(ins) else off + 1
            out.append(Branch(i, off, op, list(arg) if op == SWITCH else [arg], nxt))
        return out


def containing_point(points: list[tuple], offset: int) -> tuple | None:
    """The last (non-hidden) sequence point of the method at or before `offset`; points are
    read_symbols' (il_offset, start_line, start_col, end_line, end_col, document). (The rule is
    _native.containing_point's, which branch_rows follows too.)"""
    return _native.containing_point(points, offset)


def shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
