"""Property tests of the IL rewriter (dotcov._native il_* bindings).

Hypothesis builds valid method bodies -- straight-line stack-neutral runs,
forward and backward branches in short and long form, switch tables, nested
try/catch/filter/finally/fault regions left with `leave`, tiny and fat headers,
small, fat and split exception sections -- inserts coverage probes at random
legal offsets and checks that the result decodes, verifies, and is the original
instruction sequence plus the probes, with every branch target and exception
boundary moved to the start of the probes in front of its instruction. With
branch-outcome probes (il_find_branches / il_insert_probes(branch_probes=...))
it also follows each outcome of every instrumented branch through the rewritten
code and checks that exactly that outcome's probe runs before the original
successor or target is reached. Every rewrite is checked in each probe style
(the inline increment, the agent's default, and the helper call) and against
the IL offset map it returns: one entry per original instruction at the start
of its group, every rewritten offset translating back to its instruction.
"""

from __future__ import annotations

import struct
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dotcov import _native

HELPER = 0x0A00FFFF  # static void Hit(int32)
VOID0 = 0x0A000001  # static void M()
INT0 = 0x0A000002  # static int32 M()
FIELD = 0x04000001  # static int32 F
EXCEPTION = 0x01000001  # catch type
LOCALS = 0x11000001
CALLS = {HELPER: (1, 0), VOID0: (0, 0), INT0: (0, 1)}

NOP, DUP, POP, CALL, RET, LDC_I4, LDC_I4_S = 0x00, 0x25, 0x26, 0x28, 0x2A, 0x20, 0x1F
AND, OR, XOR, MUL, ADD, CONV_U, CONV_I8, LDIND_I8, STIND_I8 = 0x5F, 0x60, 0x61, 0x5A, 0x58, 0xE0, 0x6A, 0x4C, 0x55
CEQ, CGT, CGT_UN, CLT = 0xFE01, 0xFE02, 0xFE03, 0xFE04
BOOL_LOCALS = [True] * 6  # the generated locals 0..5, all bool for the value and operand finders
SWITCH, LDSFLD, ENDFINALLY, LEAVE, LEAVE_S = 0x45, 0x7E, 0xDC, 0xDD, 0xDE
ENDFILTER, VOLATILE, TAIL = 0xFE11, 0xFE13, 0xFE14
PREFIXES = {0xFE12, 0xFE13, 0xFE14, 0xFE16, 0xFE19, 0xFE1E}
CALL_FAMILY = {0x28, 0x29, 0x6F, 0x73}
SHORT_TO_LONG = {**{op: op + 0x0D for op in range(0x2B, 0x38)}, LEAVE_S: LEAVE}
BRANCHES = set(range(0x2B, 0x45)) | {LEAVE, LEAVE_S}
CATCH, FILTER, FINALLY, FAULT = 0, 1, 2, 4

COND1 = [0x2C, 0x2D]  # brfalse.s, brtrue.s (pop 1)
COND2 = list(range(0x2E, 0x38))  # beq.s ... blt.un.s (pop 2)

COUNTERS = 0x7F0000001000  # inline style: counter of slot s at COUNTERS + 8 * s
LDC_I8 = 0x21
INLINE_TAIL = [0xE0, DUP, 0x4C, LDC_I8, 0x58, 0x55]  # conv.u dup ldind.i8 ldc.i8 1 add stind.i8
STYLES = ("inline", "call")

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _op(opcode: int) -> bytes:
    return bytes([0xFE, opcode & 0xFF]) if opcode >> 8 == 0xFE else bytes([opcode])


class _Assembler:
    """Items: raw bytes, ('label', n), ('br', short_opcode, label, long?), ('switch', [labels])."""

    def __init__(self):
        self.items: list = []

    def raw(self, opcode: int, operand: bytes = b"") -> None:
        self.items.append(_op(opcode) + operand)

    def label(self, name: int) -> None:
        self.items.append(("label", name))

    def branch(self, short_opcode: int, target: int, long: bool) -> None:
        self.items.append(["br", short_opcode, target, long])

    def switch(self, targets: list[int]) -> None:
        self.items.append(("switch", targets))

    def assemble(self) -> tuple[bytes, dict[int, int]]:
        while True:
            pos, labels, ends = 0, {}, []
            for item in self.items:
                if isinstance(item, bytes):
                    pos += len(item)
                elif item[0] == "label":
                    labels[item[1]] = pos
                elif item[0] == "br":
                    pos += 5 if item[3] else 2
                else:
                    pos += 5 + 4 * len(item[1])
                ends.append(pos)
            widened = False
            for item, end in zip(self.items, ends):
                if isinstance(item, list) and not item[3] and not -128 <= labels[item[2]] - end <= 127:
                    item[3] = widened = True
            if not widened:
                break
        out = bytearray()
        for item, end in zip(self.items, ends):
            if isinstance(item, bytes):
                out += item
            elif item[0] == "br":
                rel = labels[item[2]] - end
                out += bytes([SHORT_TO_LONG[item[1]]]) + struct.pack("<i", rel) if item[3] else bytes([item[1]]) + struct.pack("<b", rel)
            elif item[0] == "switch":
                out += bytes([SWITCH]) + struct.pack("<I", len(item[1]))
                out += b"".join(struct.pack("<i", labels[t] - end) for t in item[1])
        return bytes(out), labels


class _Generator:
    def __init__(self, draw):
        self.draw = draw
        self.asm = _Assembler()
        self.clauses: list[tuple] = []  # label-based, post-order (inner first)
        self.labels = 0
        self.budget = draw(st.integers(1, 60))
        self.uses_locals = False

    def new_label(self) -> int:
        self.labels += 1
        return self.labels

    def push(self) -> None:
        kind = self.draw(st.integers(0, 3))
        if kind == 0:
            self.asm.raw(0x16 + self.draw(st.integers(0, 8)))  # ldc.i4.0 .. ldc.i4.8
        elif kind == 1:
            self.asm.raw(LDC_I4_S, struct.pack("<b", self.draw(st.integers(-128, 127))))
        elif kind == 2:
            self.asm.raw(LDC_I4, struct.pack("<i", self.draw(st.integers(-(2**31), 2**31 - 1))))
        else:
            self.asm.raw(CALL, struct.pack("<I", INT0))

    def load_local(self) -> None:
        i = self.draw(st.integers(0, 5))
        if i < 4 and self.draw(st.booleans()):
            self.asm.raw(0x06 + i)  # ldloc.i
        elif self.draw(st.booleans()):
            self.asm.raw(0x11, bytes([i]))  # ldloc.s
        else:
            self.asm.raw(0xFE0C, struct.pack("<H", i))  # ldloc

    def region(self, depth: int, exits: list[int], allow_try: bool, allow_branches: bool = True) -> None:
        """A run of stack-neutral statements; branch targets are statement starts of this run
        (the last one, index n, is whatever the caller emits next)."""
        n = self.draw(st.integers(0, max(0, min(8, self.budget))))
        starts = [self.new_label() for _ in range(n + 1)]
        for i in range(n):
            self.budget -= 1
            self.asm.label(starts[i])
            self.statement(depth, starts, starts[i + 1], exits, allow_try, allow_branches)
        self.asm.label(starts[n])

    def statement(self, depth, starts, after, exits, allow_try, allow_branches) -> None:
        kinds = ["nop", "push_pop", "local", "dup", "call", "volatile", "nops", "or_operand"]
        if allow_branches:
            kinds += ["br", "cond", "cond", "switch", "short_circuit_value", "joined_operand"]
            if exits:
                kinds += ["leave"]
        if allow_try and depth < 3:
            kinds += ["try"] * 4
        kind = self.draw(st.sampled_from(kinds))
        a = self.asm
        if kind == "nop":
            a.raw(NOP)
        elif kind == "nops":
            for _ in range(self.draw(st.integers(1, 40))):
                a.raw(NOP)
        elif kind == "push_pop":
            self.push()
            a.raw(POP)
        elif kind == "local":
            self.uses_locals = True
            i = self.draw(st.integers(0, 5))
            form = self.draw(st.integers(0, 2))
            if form == 0 and i < 4:
                a.raw(0x06 + i), a.raw(0x0A + i)  # ldloc.i / stloc.i
            elif form == 1:
                a.raw(0x11, bytes([i])), a.raw(0x13, bytes([i]))  # ldloc.s / stloc.s
            else:
                a.raw(0xFE0C, struct.pack("<H", i)), a.raw(0xFE0E, struct.pack("<H", i))
        elif kind == "or_operand":  # `a || flag` with a bool local: <a>; ldloc flag; or (and)
            self.uses_locals = True
            self.push()
            self.load_local()
            a.raw(self.draw(st.sampled_from([OR, AND]))), a.raw(POP)
        elif kind == "joined_operand":  # `x < 0 || y < 0 || flag`: the load is where the first two join
            self.uses_locals = True
            one, join = self.new_label(), self.new_label()
            self.push()
            a.branch(self.draw(st.sampled_from(COND1)), one, self.draw(st.booleans()))
            self.push()
            a.branch(0x2B, join, self.draw(st.booleans()))
            a.label(one), a.raw(0x17)
            a.label(join)
            self.load_local()
            a.raw(OR), a.raw(POP)
        elif kind == "short_circuit_value":  # `bool b = a || x < y;`: the comparison's value leaves by br
            one, join = self.new_label(), self.new_label()
            self.push()
            a.branch(self.draw(st.sampled_from(COND1)), one, self.draw(st.booleans()))
            self.push(), self.push()
            a.raw(self.draw(st.sampled_from([CEQ, CGT, CLT])))
            a.branch(0x2B, join, self.draw(st.booleans()))
            a.label(one), a.raw(0x16 + self.draw(st.integers(0, 1)))
            a.label(join), a.raw(POP)
        elif kind == "dup":
            self.push()
            a.raw(DUP), a.raw(POP), a.raw(POP)
        elif kind == "call":
            a.raw(CALL, struct.pack("<I", VOID0))
        elif kind == "volatile":
            a.raw(VOLATILE), a.raw(LDSFLD, struct.pack("<I", FIELD)), a.raw(POP)
        elif kind == "br":
            a.branch(0x2B, self.draw(st.sampled_from(starts)), self.draw(st.booleans()))
        elif kind == "cond":
            if self.draw(st.booleans()):
                self.push()
                opcode = self.draw(st.sampled_from(COND1))
            else:
                self.push(), self.push()
                opcode = self.draw(st.sampled_from(COND2))
            a.branch(opcode, self.draw(st.sampled_from(starts)), self.draw(st.booleans()))
        elif kind == "switch":
            self.push()
            a.switch(self.draw(st.lists(st.sampled_from(starts), min_size=0, max_size=5)))
        elif kind == "leave":
            a.branch(LEAVE_S, self.draw(st.sampled_from(exits)), self.draw(st.booleans()))
        else:
            self.try_statement(depth, after, exits)

    def try_statement(self, depth, after, exits) -> None:
        a = self.asm
        try_start, try_end = self.new_label(), self.new_label()
        inner_exits = [after] + exits
        a.label(try_start)
        self.region(depth + 1, inner_exits, True)
        a.branch(LEAVE_S, after, self.draw(st.booleans()))
        a.label(try_end)
        shape = self.draw(st.sampled_from(["catch", "catch2", "filter", "filter_catch", "finally", "fault"]))
        handlers = {"catch": [CATCH], "catch2": [CATCH, CATCH], "filter": [FILTER], "filter_catch": [FILTER, CATCH],
                    "finally": [FINALLY], "fault": [FAULT]}[shape]
        mine = []
        for flags in handlers:
            filter_start = None
            if flags == FILTER:
                filter_start = self.new_label()
                a.label(filter_start)
                a.raw(POP)
                self.region(depth + 1, [], False)
                a.raw(0x17), a.raw(ENDFILTER)  # ldc.i4.1
            start, end = self.new_label(), self.new_label()
            a.label(start)
            if flags in (CATCH, FILTER):
                a.raw(POP)
                self.region(depth + 1, inner_exits, True)
                a.branch(LEAVE_S, after, self.draw(st.booleans()))
            else:
                self.region(depth + 1, [], True)
                a.raw(ENDFINALLY)
            a.label(end)
            mine.append((flags, try_start, try_end, start, end, filter_start))
        self.clauses.extend(mine)

    def method(self) -> None:
        if self.draw(st.booleans()):  # make exception regions common
            after = self.new_label()
            self.try_statement(0, after, [])
            self.asm.label(after)
        self.region(0, [], True)
        if self.draw(st.booleans()):
            self.asm.raw(RET)
        else:
            self.asm.raw(TAIL), self.asm.raw(CALL, struct.pack("<I", VOID0)), self.asm.raw(RET)


def _eh_sections(clauses, draw) -> list[bytes]:
    def fits_small(c):
        return c[1] <= 0xFFFF and c[2] <= 0xFF and c[3] <= 0xFFFF and c[4] <= 0xFF

    groups = [clauses]
    if len(clauses) >= 2 and draw(st.booleans()):
        k = draw(st.integers(1, len(clauses) - 1))
        groups = [clauses[:k], clauses[k:]]
    sections = []
    for g in groups:
        small = len(g) <= 20 and all(fits_small(c) for c in g) and draw(st.booleans())
        if small:
            data = b"".join(struct.pack("<HHBHBI", *c) for c in g)
            sections.append(bytes([0x01, 4 + len(data), 0, 0]) + data)
        else:
            data = b"".join(struct.pack("<IIIIII", *c) for c in g)
            sections.append(bytes([0x41]) + (4 + len(data)).to_bytes(3, "little") + data)
    return sections


@st.composite
def method_bodies(draw):
    g = _Generator(draw)
    g.method()
    code, labels = g.asm.assemble()
    clauses = []
    for flags, ts, te, hs, he, fs in g.clauses:
        extra = labels[fs] if flags == FILTER else (EXCEPTION if flags == CATCH else 0)
        clauses.append((flags, labels[ts], labels[te] - labels[ts], labels[hs], labels[he] - labels[hs], extra))
    locals_token = LOCALS if g.uses_locals or draw(st.booleans()) else 0
    init_locals = locals_token != 0 and draw(st.booleans())
    tiny_ok = len(code) < 64 and not locals_token and not clauses
    if tiny_ok and draw(st.booleans()):
        return bytes([0x2 | (len(code) << 2)]) + code
    sections = _eh_sections(clauses, draw) if clauses else []
    flags = 0x3 | (0x8 if sections else 0) | (0x10 if init_locals else 0)
    max_stack = draw(st.integers(2, 8))
    body = bytearray(struct.pack("<HHII", flags | 0x3000, max_stack, len(code), locals_token) + code)
    for i, s in enumerate(sections):
        while len(body) % 4:
            body.append(0)
        if i + 1 < len(sections):
            s = bytes([s[0] | 0x80]) + s[1:]
        body += s
    return bytes(body)


def _legal_offsets(instructions) -> list[int]:
    out = []
    for i, (offset, opcode, _) in enumerate(instructions):
        if i > 0 and instructions[i - 1][1] in PREFIXES:
            continue
        if opcode == RET and i > 0 and instructions[i - 1][1] in CALL_FAMILY:
            j = i - 2
            tail = False
            while j >= 0 and instructions[j][1] in PREFIXES:
                tail |= instructions[j][1] == TAIL
                j -= 1
            if tail:
                continue
        out.append(offset)
    return out


@st.composite
def bodies_with_probes(draw):
    body = draw(method_bodies())
    legal = _legal_offsets(_native.il_decode(body)["instructions"])
    if not legal:
        return body, []
    mode = draw(st.sampled_from(["few", "subset", "all", "all_twice"]))
    if mode == "few":
        chosen = draw(st.lists(st.sampled_from(legal), max_size=4))
    elif mode == "subset":
        chosen = [o for o in legal if draw(st.booleans())]
    else:
        chosen = legal * (2 if mode == "all_twice" else 1)
    chosen = draw(st.permutations(chosen))
    probes = [(offset, slot) for slot, offset in enumerate(chosen)]
    return body, probes


def insert(body: bytes, probes, style: str, branch_probes=(), il_map=False, value_probes=(), operand_probes=()):
    """il_insert_probes in `style`."""
    return _native.il_insert_probes(body, probes, HELPER, branch_probes=list(branch_probes),
                                    counters_base=COUNTERS if style == "inline" else 0, il_map=il_map,
                                    value_probes=list(value_probes), operand_probes=list(operand_probes))


LOCAL_LOADS = {0x06, 0x07, 0x08, 0x09, 0x11, 0xFE0C}


def _run_probe(ins, left: int, right: int, style: str) -> tuple[dict[int, int], list[int]]:
    """Runs a value or operand probe's instructions on a stack holding `left` (a local load reads `right`): the
    counters it adds to, by slot, and the stack it leaves."""
    counts: dict[int, int] = defaultdict(int)
    s = [left]
    for _, op, arg in ins:
        if op == DUP:
            s.append(s[-1])
        elif 0x16 <= op <= 0x1E:
            s.append(op - 0x16)
        elif op in (LDC_I4, LDC_I8):
            s.append(arg)
        elif op in LOCAL_LOADS:
            s.append(right)
        elif op in (CGT_UN, MUL, ADD, XOR):
            b, a = s.pop(), s.pop()
            s.append({CGT_UN: int(a % 2**64 > b % 2**64), MUL: a * b, ADD: a + b, XOR: a ^ b}[op])
        elif op in (CONV_U, CONV_I8):
            pass
        elif op == CALL:
            assert arg == HELPER
            counts[s.pop()] += 1
        elif op == LDIND_I8:
            s.append(counts[s.pop()])
        elif op == STIND_I8:
            v = s.pop()
            counts[s.pop()] = v
        else:
            raise AssertionError(f"unexpected opcode {op:#x} in a probe")
    if style == "inline":
        counts = {(address - COUNTERS) // 8: n for address, n in counts.items() if n}
    return {k: n for k, n in counts.items() if n}, s


def _value_probe_length(style: str) -> int:
    return 8 if style == "call" else 15  # dup; ldc.i4.0; cgt.un + the slot arithmetic and the count


def _expect_value_probe(ins, j: int, false_slot: int, true_slot: int, style: str) -> int:
    """The value probe at ins[j]: counts false_slot on zero, true_slot on any other value, keeps the value."""
    n = _value_probe_length(style)
    probe = ins[j:j + n]
    assert [op for _, op, _ in probe[:3]] == [DUP, 0x16, CGT_UN], probe
    for v in (0, 1, 5):
        assert _run_probe(probe, v, 0, style) == ({true_slot if v else false_slot: 1}, [v]), (v, probe)
    return n


def _expect_operand_probe(ins, j: int, slots: tuple[int, int, int], is_or: bool, style: str) -> int:
    """The operand probe at ins[j] (before a local's load feeding `or`/`and`): counts the skipped slot when the
    left value decides, else the false/true slot by the local, and keeps the left value."""
    skipped, false_slot, true_slot = slots
    n = 3 + (2 if is_or else 0) + 1 + 7 + (3 if style == "call" else 11)
    probe = ins[j:j + n]
    for left in (0, 1, 5):
        for right in (0, 1):
            decided = bool(left) if is_or else not left
            want = skipped if decided else true_slot if right else false_slot
            assert _run_probe(probe, left, right, style) == ({want: 1}, [left]), (left, right, probe)
    return n


def _probe_slot(ins, k: int, style: str):
    """(slot, length) of the counter probe at ins[k] in `style`, or None."""
    if style == "call":
        if ins[k][1] == LDC_I4 and k + 1 < len(ins) and ins[k + 1][1:] == (CALL, HELPER):
            return ins[k][2], 2
        return None
    if ins[k][1] != LDC_I8 or [i[1] for i in ins[k + 1:k + 7]] != INLINE_TAIL or ins[k + 4][2] != 1:
        return None
    slot, rest = divmod(ins[k][2] - COUNTERS, 8)
    return (slot, 7) if rest == 0 and slot >= 0 else None


def _expect_probe(ins, j: int, slot: int, style: str) -> int:
    found = _probe_slot(ins, j, style)
    assert found is not None and found[0] == slot, (ins[j], slot, style)
    return found[1]


def _walk(new, by_offset, start: int, stop: int, style: str) -> list[int]:
    """Slots of the counter probes executed going from `start` to `stop` through
    probes and unconditional `br`s only (anything else fails)."""
    ins, slots, pc = new["instructions"], [], start
    for _ in range(100_000):
        if pc == stop:
            return slots
        k = by_offset[pc]
        _, opcode, operand = ins[k]
        probe = _probe_slot(ins, k, style)
        if probe is not None:
            slots.append(probe[0])
            pc = ins[k + probe[1]][0] if k + probe[1] < len(ins) else new["code_size"]
        elif opcode in (0x2B, 0x38):  # br.s, br
            pc = operand
        else:
            raise AssertionError(f"walk from {start} to {stop} met opcode {opcode:#x} at {pc}")
    raise AssertionError(f"walk from {start} loops")


def check_rewrite(body: bytes, probes: list[tuple[int, int]], branch_probes=(), style: str = "call",
                  value_probes=(), operand_probes=()) -> None:
    """Rewrites with before-probes and branch-outcome probes in `style`, then
    checks that the result verifies, is the original plus the probes (each
    instrumented branch followed by <F>; br, then <Tk>; br per target), that each
    outcome of an instrumented branch runs exactly its own probe on the way to
    the original successor/target, that everything else maps to the probe
    starts, and that the IL offset map translates every rewritten offset back to
    the original instruction whose group (probes, itself, outcome blocks) holds it."""
    orig = _native.il_decode(body)
    _native.il_verify(body, 0, CALLS)  # the generator makes valid bodies
    new_body, il_map = insert(body, probes, style, branch_probes, True, value_probes, operand_probes)
    assert new_body == insert(body, probes, style, branch_probes, False, value_probes, operand_probes)
    new = _native.il_decode(new_body)
    _native.il_verify(new_body, 0, CALLS)

    by_offset = defaultdict(list)
    for offset, slot in probes:
        by_offset[offset].append(slot)
    branches = {offset: (fall, list(targets)) for offset, fall, targets in branch_probes}
    values = {offset: (f, t) for offset, f, t in value_probes}
    operands = {offset: slots for offset, *slots in operand_probes}
    new_ins = new["instructions"]
    label, pairs, blocks, owner, j = {}, [], {}, {}, 0
    for n_orig, ins in enumerate(orig["instructions"]):
        start, group = None, j
        for slot in by_offset.get(ins[0], []):
            start = new_ins[j][0] if start is None else start
            j += _expect_probe(new_ins, j, slot, style)
        before = orig["instructions"][n_orig - 1][0] if n_orig else None
        if before in values:  # a value probe right after the previous instruction's value, in this group
            start = new_ins[j][0] if start is None else start
            j += _expect_value_probe(new_ins, j, *values[before], style)
        if ins[0] in operands:  # an operand probe before the load, behind the load's own probes
            start = new_ins[j][0] if start is None else start
            is_or = orig["instructions"][n_orig + 1][1] == OR
            j += _expect_operand_probe(new_ins, j, tuple(operands[ins[0]]), is_or, style)
        assert new_ins[j][1] == ins[1] or new_ins[j][1] == SHORT_TO_LONG.get(ins[1]), (ins, new_ins[j])
        label[ins[0]] = new_ins[j][0] if start is None else start
        pairs.append((ins, new_ins[j], j))
        j += 1
        if ins[0] in branches:
            fall, targets = branches[ins[0]]
            begin = new_ins[j][0]
            for slot in [fall] + targets:  # <probe>; br
                j += _expect_probe(new_ins, j, slot, style)
                assert new_ins[j][1] in (0x2B, 0x38)
                j += 1
            blocks[ins[0]] = (begin, new_ins[j][0] if j < len(new_ins) else new["code_size"])
        owner.update((new_ins[k][0], ins[0]) for k in range(group, j))
    assert j == len(new_ins), "extra instructions in the rewritten body"

    # The IL offset map, as the runtime reads it for stack traces and stepping.
    assert il_map == [(ins[0], label[ins[0]]) for ins in orig["instructions"]]
    for new_offset, old_offset in owner.items():
        assert _native.il_translate_to_original(il_map, new_offset) == old_offset, (new_offset, old_offset)

    index = {ins[0]: k for k, ins in enumerate(new_ins)}
    orig_ins = orig["instructions"]
    for n, ((offset, opcode, operand), (_, _, new_operand), k) in enumerate(pairs):
        if offset in branches:
            fall, targets = branches[offset]
            # Fall-through: exactly F, then the original next instruction (its probes).
            assert _walk(new, index, new_ins[k + 1][0], label[orig_ins[n + 1][0]], style) == [fall]
            old_targets = operand if opcode == SWITCH else [operand]
            new_targets = new_operand if opcode == SWITCH else [new_operand]
            assert len(old_targets) == len(targets)
            for old, entry, slot in zip(old_targets, new_targets, targets):
                begin, end = blocks[offset]
                assert begin <= entry < end
                assert _walk(new, index, entry, label[old], style) == [slot]
        elif opcode in BRANCHES:
            assert new_operand == label[operand]
        elif opcode == SWITCH:
            assert new_operand == [label[t] for t in operand]
        else:
            assert new_operand == operand

    end = {**label, orig["code_size"]: new["code_size"]}
    assert len(new["clauses"]) == len(orig["clauses"])
    for (flags, ts, tl, hs, hl, extra), (nflags, nts, ntl, nhs, nhl, nextra) in zip(orig["clauses"], new["clauses"]):
        assert nflags == flags
        assert (nts, nts + ntl) == (label[ts], end[ts + tl])
        assert (nhs, nhs + nhl) == (label[hs], end[hs + hl])
        assert nextra == (label[extra] if flags == FILTER else extra)
        # A branch's block lies in exactly the regions holding the branch.
        for offset, (begin, stop) in blocks.items():
            for o in (begin, stop - 1):
                assert (nts <= o < nts + ntl) == (ts <= offset < ts + tl)
                assert (nhs <= o < nhs + nhl) == (hs <= offset < hs + hl)

    probe_stack = 3 if style == "inline" else 1  # ldc.i8 addr; dup; ldind.i8 ... / ldc.i4 slot
    if value_probes:
        probe_stack = max(probe_stack, 3 if style == "inline" else 2)  # above the value: dup; ldc.i4.0 ...
    if operand_probes:
        probe_stack = max(probe_stack, 3)  # above the left value: e, the local, ldc.i4.0
    any_probe = probes or branch_probes or value_probes or operand_probes
    assert new["max_stack"] == orig["max_stack"] + (probe_stack if any_probe else 0)
    assert new["local_var_sig_token"] == orig["local_var_sig_token"]
    assert new["init_locals"] == orig["init_locals"]


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(bodies_with_probes())
def test_probes_preserve_the_method(style, case):
    body, probes = case
    check_rewrite(body, probes, style=style)


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(method_bodies())
def test_probe_everywhere_and_unchanged_reencoding(style, body):
    assert insert(body, [], style) == body
    assert insert(body, [], style, il_map=True)[1] == [(ins[0], ins[0]) for ins in _native.il_decode(body)["instructions"]]
    legal = _legal_offsets(_native.il_decode(body)["instructions"])
    check_rewrite(body, [(offset, slot) for slot, offset in enumerate(legal)], style=style)


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(method_bodies(), st.data())
def test_illegal_offsets_are_rejected(style, body, data):
    decoded = _native.il_decode(body)
    instructions = decoded["instructions"]
    legal = set(_legal_offsets(instructions))
    boundaries = {ins[0] for ins in instructions}
    illegal = [o for o in range(decoded["code_size"] + 2) if o not in legal]
    if not illegal:
        return
    offset = data.draw(st.sampled_from(illegal))
    probes = [(o, i) for i, o in enumerate(sorted(legal))][:3] + [(offset, 99)]
    with pytest.raises(ValueError) as e:
        insert(body, probes, style)
    message = str(e.value)
    if offset not in boundaries:
        assert "not an instruction boundary" in message
    else:
        assert "prefix" in message or "tail call" in message


def _expected_branches(instructions) -> list[tuple[int, int]]:
    out = []
    for i, (offset, opcode, operand) in enumerate(instructions):
        conditional = 0x2C <= opcode <= 0x37 or 0x39 <= opcode <= 0x45
        if not conditional or i + 1 == len(instructions) or (i > 0 and instructions[i - 1][1] in PREFIXES):
            continue
        out.append((offset, len(operand) if opcode == SWITCH else 1))
    return out


@st.composite
def bodies_with_branch_probes(draw):
    body, probes = draw(bodies_with_probes())
    sites = _native.il_find_branches(body)
    chosen = [s for s in sites if draw(st.booleans())] if draw(st.booleans()) else sites
    slot = 10_000
    branch_probes = []
    for offset, count in draw(st.permutations(chosen)):
        branch_probes.append((offset, slot, list(range(slot + 1, slot + 1 + count))))
        slot += 1 + count
    return body, probes, branch_probes


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(bodies_with_branch_probes())
def test_branch_outcome_probes(style, case):
    body, probes, branch_probes = case
    check_rewrite(body, probes, branch_probes, style)


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(method_bodies())
def test_every_branch_with_probes_everywhere(style, body):
    instructions = _native.il_decode(body)["instructions"]
    sites = _native.il_find_branches(body)
    assert sites == _expected_branches(instructions)
    legal = _legal_offsets(instructions)
    branch_probes = [(offset, 5000 + 100 * i, [5001 + 100 * i + k for k in range(count)])
                     for i, (offset, count) in enumerate(sites)]
    check_rewrite(body, [(offset, slot) for slot, offset in enumerate(legal)], branch_probes, style)


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(method_bodies(), st.data())
def test_bad_branch_probes_are_rejected(style, body, data):
    instructions = _native.il_decode(body)["instructions"]
    sites = dict(_native.il_find_branches(body))
    others = [ins[0] for ins in instructions if ins[0] not in sites]
    if others:
        offset = data.draw(st.sampled_from(others))
        with pytest.raises(ValueError, match="not a conditional branch|prefix|last instruction"):
            insert(body, [], style, [(offset, 1, [2])])
    if sites:
        offset, count = data.draw(st.sampled_from(sorted(sites.items())))
        with pytest.raises(ValueError, match="targets"):
            insert(body, [], style, [(offset, 1, list(range(count + 1)))])
        with pytest.raises(ValueError, match="already instrumented"):
            insert(body, [], style, [(offset, 1, [2] * count)] * 2)


def test_branch_probe_layout():
    # ldarg.0; brtrue.s L; nop; L: ret
    body = bytes([0x2 | (5 << 2), 0x02, 0x2D, 0x01, NOP, RET])
    new = _native.il_decode(_native.il_insert_probes(body, [], HELPER, branch_probes=[(1, 7, [8])]))
    ops = [(opcode, operand) for _, opcode, operand in new["instructions"]]
    offsets = [offset for offset, _, _ in new["instructions"]]
    # ldarg.0; brtrue.s T; ldc 7; call; br.s NEXT; T: ldc 8; call; br.s L; NEXT: nop; L: ret
    assert [o for o, _ in ops] == [0x02, 0x2D, LDC_I4, CALL, 0x2B, LDC_I4, CALL, 0x2B, NOP, RET]
    assert ops[1][1] == offsets[5] and ops[4][1] == offsets[8] and ops[7][1] == offsets[9]
    assert (ops[2][1], ops[5][1]) == (7, 8)
    for style in STYLES:
        check_rewrite(body, [(1, 1), (3, 2), (4, 3)], [(1, 7, [8])], style)


def test_inline_branch_probe_layout_and_map():
    # ldarg.0; brtrue.s L; nop; L: ret -- inline style, with the IL map.
    body = bytes([0x2 | (5 << 2), 0x02, 0x2D, 0x01, NOP, RET])
    new_body, il_map = insert(body, [], "inline", [(1, 7, [8])], il_map=True)
    new = _native.il_decode(new_body)
    ops = [opcode for _, opcode, _ in new["instructions"]]
    increment = [LDC_I8] + INLINE_TAIL
    assert ops == [0x02, 0x2D] + increment + [0x2B] + increment + [0x2B, NOP, RET]
    assert new["instructions"][2][2] == COUNTERS + 8 * 7 and new["instructions"][10][2] == COUNTERS + 8 * 8
    nop_at, ret_at = new["instructions"][-2][0], new["instructions"][-1][0]
    assert il_map == [(0, 0), (1, 1), (3, nop_at), (4, ret_at)]
    # Both outcome blocks translate back to the branch.
    for offset, _, _ in new["instructions"][2:-2]:
        assert _native.il_translate_to_original(il_map, offset) == 1


def test_widening_of_a_short_branch_over_probes():
    # br.s over 100 nops; with a probe before each nop the branch needs the long form.
    code = bytes([0x2B, 100]) + bytes(100) + bytes([RET])
    body = struct.pack("<HHII", 0x3003, 1, len(code), 0) + code
    probes = [(2 + i, i) for i in range(100)]
    for style in STYLES:
        check_rewrite(body, probes, style=style)
        new = _native.il_decode(insert(body, probes, style))
        assert new["instructions"][0][1] == 0x38


def test_ref_bool_loads_are_operands_only_when_typed_so():
    """`x < 0 || r` with `r` a `ref bool` local (`ldloc.1; ldind.u1; or`) or `in bool` argument (`ldarg.1; ldind.u1;
    or`): an operand load exactly when byref_locals / byref_arguments say that index is a `ref bool`."""
    for load in (0x07, 0x03):  # ldloc.1, ldarg.1
        code = bytes([0x02, 0x16, 0xFE, 0x04, load, 0x47, OR, RET])  # ldarg.0 ldc.i4.0 clt <load> ldind.u1 or ret
        body = bytes([len(code) << 2 | 0x02]) + code
        flags = [False, True]
        typed = {"byref_locals": flags} if load == 0x07 else {"byref_arguments": flags}
        other = {"byref_arguments": flags} if load == 0x07 else {"byref_locals": flags}
        assert _native.il_find_short_circuit_operands(body, **typed) == [4]
        assert _native.il_find_short_circuit_operands(body, **other) == []
        assert _native.il_find_short_circuit_operands(body, flags, flags) == []  # bool, not `ref bool`


def test_bad_bodies_raise_value_error():
    for bad in (b"", b"\x07", b"\x0e", bytes([0x03, 0x30])):
        with pytest.raises(ValueError):
            _native.il_decode(bad)
    with pytest.raises(ValueError, match="stack"):
        _native.il_verify(bytes([0x02 | (2 << 2), POP, RET]))


def _expected_operands(decoded) -> list[int]:
    """The loads FindShortCircuitOperands must find in generated bodies (every local bool): a local load right
    before `or`/`and`, not first, not after a prefix, not at a region boundary, the `or`/`and` entered only from
    the load."""
    ins = decoded["instructions"]
    jumps = set()
    for _, op, arg in ins:
        if op == SWITCH:
            jumps.update(arg)
        elif op in BRANCHES:
            jumps.add(arg)
    regions = set()
    for flags, ts, tl, hs, hl, extra in decoded["clauses"]:
        regions.update((ts, ts + tl, hs, hs + hl))
        if flags == FILTER:
            regions.add(extra)
    return [ins[k - 1][0] for k in range(2, len(ins) - 1)
            if ins[k][1] in (OR, AND) and ins[k - 1][1] in LOCAL_LOADS and ins[k - 2][1] not in PREFIXES
            and ins[k - 1][0] not in regions and ins[k][0] not in jumps | regions]


@st.composite
def bodies_with_value_probes(draw):
    body, probes, branch_probes = draw(bodies_with_branch_probes())
    decoded = _native.il_decode(body)
    values = _native.il_find_value_conditions(body, BOOL_LOCALS)
    operands = _native.il_find_short_circuit_operands(body, BOOL_LOCALS)
    assert operands == _expected_operands(decoded)
    everything = draw(st.booleans())
    slot = 20_000
    value_probes, operand_probes = [], []
    for offset in values:
        if everything or draw(st.booleans()):
            value_probes.append((offset, slot, slot + 1))
            slot += 2
    for offset in operands:
        if everything or draw(st.booleans()):
            operand_probes.append((offset, slot + 2, slot, slot + 1))  # slots in any order
            slot += 3
    return body, probes, branch_probes, value_probes, operand_probes


@pytest.mark.parametrize("style", STYLES)
@SETTINGS
@given(bodies_with_value_probes())
def test_value_and_operand_probes(style, case):
    """Value probes (a short circuit's last operand computed into a value) and operand probes (`a || flag` compiled
    to `or`) with sequence-point and branch probes: the same structural checks, and each probe, run on every value,
    counts exactly its outcome and keeps the stack."""
    body, probes, branch_probes, value_probes, operand_probes = case
    check_rewrite(body, probes, branch_probes, style, value_probes, operand_probes)


def test_generated_bodies_hold_value_and_operand_sites():
    """The generator's short-circuit shapes are found (so the property above is not vacuous)."""
    found = {"values": 0, "operands": 0}

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(method_bodies())
    def count(body):
        found["values"] += len(_native.il_find_value_conditions(body, BOOL_LOCALS))
        found["operands"] += len(_native.il_find_short_circuit_operands(body, BOOL_LOCALS))

    count()
    assert found["values"] > 0 and found["operands"] > 0, found
