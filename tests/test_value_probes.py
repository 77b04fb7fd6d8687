"""Value probes on real IL (docs/branches.md, "Conditions computed into a value"): every condition
read_value_conditions finds in framework assemblies (compiled by Roslyn in Release, with filters, async state
machines, pattern matching) takes its probe together with every branch's outcome probes; the result verifies, and
each probe sits right after its value (`dup; ldc.i4.0; cgt.un; ...`), its value's instruction unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dotcov import _native

HELPER = 0x0A00FFFF
DUP, LDC_I4_0, CGT_UN, CALL = 0x25, 0x16, 0xFE03, 0x28
ASSEMBLIES = ["System.Linq.dll", "System.Collections.dll", "System.Text.RegularExpressions.dll",
              "System.Private.CoreLib.dll"]


def framework_dir() -> Path:
    dotnet = shutil.which("dotnet")
    if not dotnet:
        pytest.fail("the .NET runtime (dotnet) is required")
    shared = Path(dotnet).resolve().parent / "shared" / "Microsoft.NETCore.App"
    return sorted(shared.iterdir())[-1]


def branch_probes_of(body: bytes) -> tuple[list, int]:
    """Outcome probes on every branch of `body`, slots numbered from 0, and the next free slot."""
    slot = 0
    probes = []
    for offset, targets in _native.il_find_branches(body):
        probes.append((offset, slot, list(range(slot + 1, slot + 1 + targets))))
        slot += 1 + targets
    return probes, slot


@pytest.mark.parametrize("name", ASSEMBLIES)
def test_every_value_condition_of_framework_code_takes_its_probe(name):
    path = str(framework_dir() / name)
    bodies = _native.read_method_bodies(path)
    conditions = _native.read_value_conditions(path)  # as the agent finds them, bool-returning calls included
    found = rewritten = 0
    for rid, body in sorted(bodies.items()):
        values = conditions.get(rid, [])
        assert set(_native.il_find_value_conditions(body)) <= set(values)  # without the calls' signatures: fewer
        if not values:
            continue
        found += len(values)
        branch_probes, slot = branch_probes_of(body)
        value_probes = [(offset, slot + 2 * k, slot + 2 * k + 1) for k, offset in enumerate(values)]
        try:
            out = _native.il_insert_probes(body, [], HELPER, branch_probes, value_probes)
        except ValueError as e:  # a refused probe: the agent skips it (not measured); it must be rare and explained
            assert "jump target" in str(e) or "region" in str(e), (name, rid, str(e))
            continue
        _native.il_verify(out, calls={HELPER: (1, 0)})
        rewritten += 1
        original = _native.il_decode(body)["instructions"]
        new = _native.il_decode(out)["instructions"]
        opcodes = [i[1] for i in new]
        for offset, false_slot, _ in value_probes:
            op = next(i[1] for i in original if i[0] == offset)
            at = [k for k, i in enumerate(new) if i[1] == op]
            # some instruction with the value's opcode is followed by the probe counting this value's slots
            assert any(opcodes[k + 1:k + 4] == [DUP, LDC_I4_0, CGT_UN] and new[k + 6][2] == false_slot for k in at), (
                name, rid, offset)
    assert found >= 5 and rewritten >= 5, (found, rewritten)  # the shapes are common in real code


@pytest.mark.parametrize("name", ASSEMBLIES)
def test_every_short_circuit_operand_of_framework_code_takes_its_probe(name):
    """`a || flag` / `x && big` with a bool local or argument last, compiled to `or`/`and` (docs/branches.md, "Short
    circuits compiled without a branch"): every operand read_short_circuit_operands finds takes its operand probe,
    with every branch's and value condition's probes; the result verifies and each probe sits before its load."""
    path = str(framework_dir() / name)
    bodies = _native.read_method_bodies(path)
    operands = _native.read_short_circuit_operands(path)
    conditions = _native.read_value_conditions(path)
    found = 0
    for rid, offsets in sorted(operands.items()):
        body = bodies[rid]
        found += len(offsets)
        branch_probes, slot = branch_probes_of(body)
        value_probes = []
        for offset in conditions.get(rid, []):
            value_probes.append((offset, slot, slot + 1))
            slot += 2
        operand_probes = [(offset, slot + 3 * k, slot + 3 * k + 1, slot + 3 * k + 2) for k, offset in enumerate(offsets)]
        try:
            out = _native.il_insert_probes(body, [], HELPER, branch_probes, value_probes, operand_probes=operand_probes)
        except ValueError as e:  # a refused value probe (see above); operand probes are never refused
            assert "jump target" in str(e) or "region" in str(e), (name, rid, str(e))
            out = _native.il_insert_probes(body, [], HELPER, branch_probes, [], operand_probes=operand_probes)
        _native.il_verify(out, calls={HELPER: (1, 0)})
        original = {i[0]: i for i in _native.il_decode(body)["instructions"]}
        new = _native.il_decode(out)["instructions"]
        for offset, skipped, _f, _t in operand_probes:
            # dup; ldc.i4.0; cgt.un; [ldc.i4.1; xor]; <the load>; ... ldc.i4 skipped; add; call
            starts = [k for k in range(len(new) - 3) if [i[1] for i in new[k:k + 3]] == [DUP, LDC_I4_0, CGT_UN]
                      and any(new[m][1] == CALL and new[m - 2][2] == skipped for m in range(k + 10, min(k + 20, len(new))))]
            assert starts, (name, rid, offset)
            load = original[offset][1]
            assert any(new[k + 3][1] == load or new[k + 5][1] == load for k in starts), (name, rid, offset)
    assert found >= 1 or name != "System.Private.CoreLib.dll", found  # the shape occurs in real code
