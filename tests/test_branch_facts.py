"""The native branch facts (_native.il_branch_facts, native/core/src/branch_facts.cpp: the product's branch rules)
agree with their Python oracle, tests/oracles/branch_rules.py (the recognisers of RECOGNISERS,
short_circuit_constants, tests_zero_comparison) on every
method: the samples' assemblies and the branch snippets built Debug and Release (with their PDBs' state machines,
hidden and visible points), the framework's and the SDK's assemblies (each method taken as an ordinary method and
as a state machine's MoveNext, with made-up hidden and visible points), and random IL, including IL no compiler
writes (targets outside the code, clauses over anything)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dotcov import _native
from oracles import branch_rules as rules
from oracles.branch_rules import RECOGNISERS, RuleIL

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"
STORES = {0x0A, 0x0B, 0x0C, 0x0D, 0x13, 0xFE0E, 0x7D}  # stloc*, stfld: what a hidden point's test may follow


def reference(body: bytes, is_move_next: bool, hidden: list[int] | None, visible: list[int]):
    """The oracle's facts of each branch, in il_branch_facts' form."""
    try:
        il = RuleIL.decode(0, body, is_move_next=is_move_next,
                             hidden_offsets=None if hidden is None else set(hidden), visible_offsets=set(visible))
    except ValueError:
        return "ValueError"
    return [(b.offset, b.opcode, next((i for i, (_n, f) in enumerate(RECOGNISERS) if f(il, b)), -1),
             rules.short_circuit_constants(il, b), rules.tests_zero_comparison(il, b))
            for b in il.branches()]


def native(body: bytes, is_move_next: bool, hidden: list[int] | None, visible: list[int]):
    try:
        return [tuple(f) for f in _native.il_branch_facts(body, is_move_next, hidden, visible)]
    except ValueError:
        return "ValueError"


class Tally:
    """Mismatches, and how often each answer came up (so an agreement on nothing is noticed)."""

    def __init__(self) -> None:
        self.methods = self.branches = 0
        self.recognisers: dict[int, int] = {}
        self.constants = self.zero_tests = 0
        self.mismatches: list[str] = []

    def check(self, where: str, body: bytes, is_move_next: bool, hidden, visible) -> None:
        expected, got = reference(body, is_move_next, hidden, visible), native(body, is_move_next, hidden, visible)
        self.methods += 1
        if expected != got:
            self.mismatches.append(f"{where} move_next={is_move_next} hidden={hidden}: {expected} != {got}")
        if expected == "ValueError":
            return
        for _off, _op, rec, constants, zero in expected:
            self.branches += 1
            self.recognisers[rec] = self.recognisers.get(rec, 0) + 1
            self.constants += constants is not None
            self.zero_tests += zero


def check_assembly(dll: Path, tally: Tally, *, symbols: bool) -> None:
    """Every method of `dll`: as its PDB says (symbols), and as an ordinary method and a MoveNext with made-up
    points (every fourth instruction visible, hidden ones after each store)."""
    bodies = _native.read_method_bodies(str(dll))
    raw = _native.read_symbols(str(dll)) if symbols else None
    for rid, body in sorted(bodies.items()):
        where = f"{dll.name} 0x{0x06000000 | rid:08x}"
        if raw is not None:
            move_next = rid in raw["kickoff"]
            hidden_all = raw.get("hidden_points")
            hidden = list(hidden_all.get(rid, [])) if hidden_all is not None else None
            tally.check(where, body, move_next, hidden, [p[0] for p in raw["sequence_points"].get(rid, [])])
        try:
            ins = _native.il_decode(body)["instructions"]
        except ValueError:
            tally.check(where, body, False, None, [])
            continue
        offsets = [x[0] for x in ins]
        visible = offsets[::4]
        hidden = [offsets[i] for i in range(1, len(ins)) if ins[i - 1][1] in STORES and offsets[i] not in visible]
        for move_next, hid in ((False, None), (True, hidden), (True, None)):
            tally.check(where, body, move_next, hid, visible)


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_native_facts_agree_on_the_samples_and_snippets(dotnet_build, snippets, config):
    """Built as the e2e tests build them (samples/All.sln, Debug and Release) and as test_branches.py builds the
    snippets: the same builds (tests/conftest.py), made once per run."""
    dotnet_build("All.sln", config)
    # The projects' own assemblies (each next to its PDB), once each.
    dlls = {}
    for pdb in [*SAMPLES.glob(f"*/bin/{config}/*/*.pdb"), *SNIPPETS.glob(f"bin/{config}/*/*.pdb")]:
        dll = pdb.with_suffix(".dll")
        if dll.exists():
            dlls.setdefault(dll.name, dll)
    assert len(dlls) >= 10, sorted(dlls)
    tally = Tally()
    for dll in sorted(dlls.values()):
        check_assembly(dll, tally, symbols=True)
    assert not tally.mismatches, "\n".join(tally.mismatches[:20])
    # Each recogniser came up, and in Debug both shapes of its condition temporaries (Release has none).
    assert set(tally.recognisers) == set(range(-1, len(RECOGNISERS))), tally.recognisers
    if config == "Debug":
        assert tally.constants > 0 and tally.zero_tests > 0


def _runtime_dir() -> Path:
    dotnet = shutil.which("dotnet")
    if not dotnet:
        pytest.fail("the .NET SDK (dotnet) is required for the framework's assemblies")
    root = Path(dotnet).resolve().parent
    found = sorted((root / "shared" / "Microsoft.NETCore.App").glob("*/System.Private.CoreLib.dll"))
    assert found, f"no shared runtime under {root}"
    return root


def test_native_facts_agree_on_the_framework_and_sdk_assemblies():
    root = _runtime_dir()
    runtime = sorted((root / "shared" / "Microsoft.NETCore.App").glob("*/System.Private.CoreLib.dll"))[-1].parent
    sdk = sorted((root / "sdk").glob("*/Roslyn/bincore/Microsoft.CodeAnalysis.dll"))
    dlls = [runtime / name for name in ("System.Private.CoreLib.dll", "System.Linq.dll", "System.Net.Http.dll",
                                        "System.Text.Json.dll")] + sdk[-1:]
    tally = Tally()
    for dll in dlls:
        check_assembly(dll, tally, symbols=False)
    assert not tally.mismatches, "\n".join(tally.mismatches[:20])
    assert tally.methods > 100_000
    assert set(tally.recognisers) == set(range(-1, len(RECOGNISERS))), tally.recognisers
    assert tally.constants > 0 and tally.zero_tests > 0


# --- random IL -------------------------------------------------------------------------------------------------

SIMPLE = [0x00, 0x02, 0x03, 0x06, 0x07, 0x0A, 0x0B, 0x14, 0x15, 0x16, 0x17, 0x25, 0x26, 0x2A, 0x58, 0x59, 0x5F,
          0x60, 0x7A, 0xDC]
UINT8 = [0x0E, 0x11, 0x12, 0x13]
TOKEN = [0x28, 0x6F, 0x73, 0x74, 0x75, 0x7B, 0x7D, 0x7E, 0x80]
TWO_BYTE = [0xFE01, 0xFE02, 0xFE04]
TWO_BYTE_TOKEN = [0xFE06, 0xFE07, 0xFE16]
TWO_BYTE_UINT16 = [0xFE09, 0xFE0C, 0xFE0D, 0xFE0E]
SHORT_BRANCH = [0x2B, 0x2C, 0x2D, 0x2E, 0x32, 0xDE]
LONG_BRANCH = [0x38, 0x39, 0x3A, 0x3B, 0x3F, 0xDD]
SWITCH = 0x45
TOKENS = [0x04000001, 0x04000002, 0x0A000001]


F1, F2, M = TOKENS
# The shapes the recognisers look for (docs/branches.md), as fragments of random programs: ("rel", k) targets the
# instruction k after the branch.
FRAGMENTS = [
    [(0x02, None), (0x7B, F1), (0x0A, None)],  # a state machine's prologue
    [(0x06, None), (0x17, None), (0x3B, ("rel", 3))],  # state dispatch
    [(0x06, None), (0x45, [("rel", 1), ("rel", 2)])],
    [(0x28, M), (0x3A, ("rel", 6)), (0x02, None), (0x16, None), (0x25, None), (0x0A, None), (0x7D, F1)],  # await
    [(0x07, None), (0x39, ("rel", 3)), (0x07, None), (0xFE16, M), (0x6F, M)],  # dispose
    [(0x02, None), (0x7B, F2), (0x2C, ("rel", 4)), (0x02, None), (0x7B, F2), (0x6F, M)],
    [(0x12, 2)], [(0x11, 2), (0x2C, ("rel", 3)), (0x09, None), (0x28, M)],  # lock
    [(0x75, M), (0x25, None), (0x2D, ("rel", 4)), (0x26, None), (0x16, None), (0x2B, ("rel", 2))],  # filter
    [(0x7E, F2), (0x25, None), (0x2D, ("rel", 7)), (0x26, None), (0x7E, F1), (0xFE06, M), (0x73, M), (0x25, None),
     (0x80, F2)],  # delegate cache
    [(0x17, None), (0x2D, ("rel", 2))],  # constant
    [(0x32, ("rel", 5)), (0x03, None), (0x16, None), (0xFE04, None), (0x2B, ("rel", 2)), (0x17, None), (0x0B, None),
     (0x07, None), (0x2C, ("rel", 2))],  # Debug `a || b`
    [(0x03, None), (0x16, None), (0xFE01, None), (0x0B, None), (0x07, None), (0x2C, ("rel", 2))],  # Debug `!x`
    [(0x0A, None), (0x06, None), (0x17, None), (0x3B, ("rel", 2))],  # a test of a stored value
]


def _program():
    """Random instructions and fragments, flattened, with each ("rel", k) made ("at", index)."""
    def flatten(parts):
        out = []
        for part in parts:
            for op, arg in part:
                rel = lambda t, i=len(out): ("at", i + t[1]) if t[0] == "rel" else t  # noqa: E731
                out.append((op, [rel(t) for t in arg] if op == SWITCH else rel(arg) if type(arg) is tuple else arg))
        return out
    part = st.one_of(_instruction().map(lambda x: [x]), st.sampled_from(FRAGMENTS), st.sampled_from(FRAGMENTS))
    return st.tuples(st.booleans(), st.lists(part, min_size=1, max_size=12)).map(
        lambda p: flatten(([FRAGMENTS[0]] if p[0] else []) + p[1]))


def _instruction():
    small = st.integers(0, 3)
    target = st.one_of(st.integers(0, 40).map(lambda i: ("at", i)), st.integers(-300, 300).map(lambda d: ("raw", d)))
    return st.one_of(
        st.sampled_from(SIMPLE).map(lambda op: (op, None)),
        st.tuples(st.sampled_from(UINT8), small),
        st.tuples(st.sampled_from(TOKEN), st.sampled_from(TOKENS)),
        st.sampled_from(TWO_BYTE).map(lambda op: (op, None)),
        st.tuples(st.sampled_from(TWO_BYTE_TOKEN), st.sampled_from(TOKENS)),
        st.tuples(st.sampled_from(TWO_BYTE_UINT16), small),
        st.tuples(st.sampled_from(SHORT_BRANCH + LONG_BRANCH), target),
        st.tuples(st.just(SWITCH), st.lists(target, min_size=0, max_size=3)),
    )


def _size(op: int, arg) -> int:
    if op == SWITCH:
        return 5 + 4 * len(arg)
    if op > 0xFF:
        return 2 + (4 if op in TWO_BYTE_TOKEN else 2 if op in TWO_BYTE_UINT16 else 0)
    return 1 + (1 if op in UINT8 or op in SHORT_BRANCH else 4 if op in TOKEN or op in LONG_BRANCH else 0)


def _encode(program: list[tuple], clauses: list[tuple]) -> bytes:
    offsets, at = [], 0
    for op, arg in program:
        offsets.append(at)
        at += _size(op, arg)

    def target(spec, end: int) -> int:
        kind, value = spec
        return (offsets[value] if 0 <= value < len(offsets) else at) - end if kind == "at" else value

    code = bytearray()
    for (op, arg), start in zip(program, offsets):
        end = start + _size(op, arg)
        code += bytes([op]) if op <= 0xFF else bytes([0xFE, op & 0xFF])
        if op == SWITCH:
            code += struct.pack("<I", len(arg)) + b"".join(struct.pack("<i", target(t, end)) for t in arg)
        elif op in UINT8:
            code += bytes([arg])
        elif op in SHORT_BRANCH:
            code += struct.pack("<b", max(-128, min(127, target(arg, end))))
        elif op in LONG_BRANCH:
            code += struct.pack("<i", target(arg, end))
        elif op in TOKEN or op in TWO_BYTE_TOKEN:
            code += struct.pack("<I", arg)
        elif op in TWO_BYTE_UINT16:
            code += struct.pack("<H", arg)
    flags = 0x3003 | (0x08 if clauses else 0)  # fat header, 3 dwords; MoreSects
    body = struct.pack("<HHII", flags, 8, len(code), 0) + code
    if clauses:
        body += b"\0" * (-len(body) % 4)
        body += struct.pack("<I", 0x41 | ((4 + 24 * len(clauses)) << 8))  # EHTable | FatFormat
        for flags_, parts in clauses:
            spans = [offsets[p] if p < len(offsets) else at for p in parts]
            body += struct.pack("<6I", flags_, spans[0], max(spans[1] - spans[0], 0), spans[2],
                                max(spans[3] - spans[2], 0), spans[4])
    return bytes(body)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=_program(),
       clauses=st.lists(st.one_of(
           st.tuples(st.sampled_from([0, 1, 2, 4]), st.lists(st.integers(0, 60), min_size=5, max_size=5)),
           st.just((2, [0, 0, 0, 99, 0])), st.just((1, [0, 0, 99, 99, 0]))), max_size=2),  # (all in a finally, filter)
       move_next=st.booleans(), marks=st.lists(st.integers(0, 60), max_size=8), hidden_known=st.booleans())
def test_native_facts_agree_on_random_il(program, clauses, move_next, marks, hidden_known):
    body = _encode(program, clauses)
    offsets = []
    at = 0
    for op, arg in program:
        offsets.append(at)
        at += _size(op, arg)
    points = [offsets[m] for m in marks if m < len(offsets)]
    visible = points[::2]
    hidden = points[1::2] if hidden_known else None
    assert native(body, move_next, hidden, visible) == reference(body, move_next, hidden, visible)


def test_undecodable_bodies_raise_value_error():
    for body in (b"", b"\x03", b"\x0a\x28", b"\x13\x30\x08\x00\xff\xff\xff\x7f\x00\x00\x00\x00"):
        with pytest.raises(ValueError):
            _native.il_branch_facts(body)


def _best_of(runs: int, work) -> float:
    import time

    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t)
    return best


def test_a_large_debug_method_is_not_analysed_in_quadratic_time():
    """Every Debug `if` is `stloc.N; ldloc.N; brfalse`, which short_circuit_constants and tests_zero_comparison
    follow to the join's predecessors (the `br`s into the store). The Python looks them up in a table made once
    (RuleIL.branches_into); the native facts must not scan the method again for each branch: on 8,000 such
    `if`s that was ten times the Python reference's time, and it grows with the square of the method."""
    code = bytes([0x02, 0x0A, 0x06, 0x2C, 0x01, 0x00]) * 8000 + bytes([0x2A])  # ldarg.0; stloc.0; ldloc.0;
    body = struct.pack("<HHII", 0x3003, 8, len(code), 0) + code                 # brfalse.s +1; nop ... ret
    assert native(body, False, None, []) == reference(body, False, None, [])
    native_time = _best_of(3, lambda: _native.il_branch_facts(body, False, None, []))
    python_time = _best_of(3, lambda: reference(body, False, None, []))
    assert native_time < python_time, (native_time, python_time)
