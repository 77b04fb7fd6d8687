"""The branch analysis' native loop (_native.branch_rows, native/python/native_branches.cpp, behind
branches.analyse and branch_rows) agrees with its Python oracle, tests/oracles/branch_analyse.py (the loop as it was
in Python): on random methods (random IL, sites, sequence points, source lines, damaged values too), on the source
slices alone, and on the samples' and snippets' assemblies with a site for every branch outcome, value and operand."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dotcov import _native
from dotcov.analysis.branches import analyse as branches
from dotcov.analysis.branches.il import VALUE_FALSE, VALUE_TRUE, MethodIL
from dotcov.analysis.branches.short_circuit import OPERAND_FALSE, OPERAND_SKIPPED, OPERAND_TRUE
from dotcov.analysis.paths import PathMapper
from dotcov.analysis.symbols import COMPILER_GENERATED, Symbols
from dotcov.data.datafiles import ModuleHits
from oracles import branch_analyse as oracle
from test_branch_facts import _encode, _program

REPO = Path(__file__).resolve().parents[1]
AND, OR = 0x5F, 0x60

# Source lines the rules read: conditions, null tests, short circuits, switches, comments and strings, odd Unicode.
LINES = ["if (x == null || y)", "if (a && b) // and", "switch (k)", "case 1: return 2;", "x switch", "{",
         "s?.Length ?? 0", "foreach (var x in xs)", "bool ok = a < b && c;", "If x IsNot Nothing AndAlso y Then _",
         "  Select Case k ' comment", "\"// not a comment\" + '\\'' // yes", "ünï \u00a0cödé\t_", "", "   ",
         "x > 0 ? 1 : 2", "when (e.Code == 3)", "a = b | c;", "match v with", "| Some s when s > 0 -> 1",
         "𝔘𝔫𝔦 \"𝔠𝔬𝔡𝔢\" // 𝔢", "return flag || other;", "x" * 300 + " || y"]


def _sources(tmp: Path, rng: random.Random) -> list[str]:
    docs = []
    for name in ("A.cs", "B.vb", "C.fs"):
        path = tmp / name
        path.write_text("\n".join(rng.choice(LINES) for _ in range(12)) + "\n", encoding="utf-8")
        docs.append(str(path))
    return docs + [str(tmp / "missing.cs")]


def _method(rng: random.Random, rid: int, body: bytes, docs: int) -> tuple[list[tuple], list[tuple]]:
    """(sites, sequence points) of one method: every branch outcome, some twice, value and operand sites, counters
    at offsets that are no branch; points on the method's instructions or elsewhere, some damaged."""
    token = 0x06000000 | rid
    sites = []
    try:
        il = MethodIL.decode(rid, body)
        offsets = [i[0] for i in il.instructions]
        for b in il.branches():
            sites += [(token, b.offset, k) for k in range(1, b.outcome_count() + 1) if rng.random() < 0.9]
            if rng.random() < 0.2:
                sites.append((token, b.offset, rng.choice([1, 2])))
        ins = il.instructions
        for k in range(1, len(ins)):
            if any(j < len(ins) and ins[j][1] in (AND, OR) for j in (k + 1, k + 2)) and rng.random() < 0.7:
                sites += [(token, ins[k][0], kind) for kind in (OPERAND_SKIPPED, OPERAND_FALSE, OPERAND_TRUE)]
    except ValueError:
        offsets = [0]
    for _ in range(rng.randrange(3)):
        at = rng.choice(offsets + [rng.randrange(200)])
        sites += [(token, at, VALUE_FALSE), (token, at, VALUE_TRUE)][:rng.choice([1, 2, 2])]
    if rng.random() < 0.3:
        sites.append((token, rng.randrange(200), rng.choice([1, 2, 3, VALUE_TRUE, OPERAND_SKIPPED])))
    points = []
    for _ in range(rng.randrange(5)):
        line = rng.randrange(1, 13)
        end = line + rng.choice([0, 0, 0, 1, 2])
        p = [rng.choice(offsets + [rng.randrange(200)]), line, rng.randrange(1, 30), end, rng.randrange(1, 40),
             rng.randrange(1, docs + 1)]
        if rng.random() < 0.1:
            p[rng.randrange(1, 6)] = rng.choice([0, -1, 99, 10**6])
        points.append(tuple(p))
    return sites, points


def _module(tmp: Path, seed: int, programs: list) -> tuple[ModuleHits, Symbols, dict]:
    rng = random.Random(seed)
    docs = _sources(tmp, rng)
    bodies, sites, points, methods, attributes = {}, [(0, 0, 0)], {}, [], {}
    for rid, (program, clauses) in enumerate(programs, start=1):
        body = _encode(program, clauses)
        if rng.random() < 0.1:
            body = body[:rng.randrange(len(body) + 1)]  # a damaged body
        if rng.random() < 0.95:
            bodies[rid] = body
        method_sites, method_points = _method(rng, rid, body, len(docs))
        sites += method_sites
        if method_points or rng.random() < 0.5:
            points[rid] = method_points
        methods.append((rng.choice(["M", "<M>b__0_1", "<M>g__L|0_0", "Equals", "MoveNext"]),))
        if rng.random() < 0.3:
            attributes[0x06000000 | rid] = [COMPILER_GENERATED]
    rng.shuffle(sites)
    kickoff = {rid: 1 for rid in points if rng.random() < 0.3}
    raw = {"sequence_points": points, "methods": methods, "kickoff": kickoff, "attributes": attributes,
           "documents": docs}
    if rng.random() < 0.7:
        raw["hidden_points"] = {rid: [p[0] for p in pts[::2]] for rid, pts in points.items()}
    hits = [rng.choice([0, 1, 5]) for _ in sites]
    return ModuleHits(b"", b"", str(tmp / "A.dll"), sites, hits), Symbols(raw), bodies


def _outcome(call):
    try:
        return call()
    except Exception as e:  # (damaged input: the same exception, or none, from both)
        return type(e).__name__


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(programs=st.lists(st.tuples(_program(), st.just([])), min_size=1, max_size=4), seed=st.integers(0, 10**6))
def test_branch_rows_agree_with_the_oracle_on_random_methods(tmp_path, programs, seed):
    module, sym, bodies = _module(tmp_path, seed, programs)
    mapper = PathMapper()
    native = _outcome(lambda: branches.branch_rows(module, sym, mapper, bodies=bodies))
    python = _outcome(lambda: oracle.branch_rows_py(module, sym, bodies=bodies, assembly_path=module.path,
                                                    path_of=lambda doc: mapper.map(doc, near=module.path)))
    assert native == python
    # analyse: the same records, with their hits
    assert (_outcome(lambda: branches.analyse(module, sym, bodies=bodies))
            == _outcome(lambda: oracle.analyse_py(module, sym, bodies=bodies)))
    assert (_outcome(lambda: branches.analyse(module, sym, bodies=bodies, read_sources=False))
            == _outcome(lambda: oracle.analyse_py(module, sym, bodies=bodies, read_sources=False)))


def test_the_random_methods_reach_every_rule(tmp_path):
    """The random input above is not idle: every classification, switches, notes and value and operand records."""
    seen: set = set()
    rng = random.Random(7)
    for n in range(150):
        module, sym, bodies = _module(tmp_path, n, _long_program(rng))
        for r in branches.branch_rows(module, sym, PathMapper(), bodies=bodies):
            seen.add(r[6])
            seen.add("notes" if r[10] else "switch" if r[9] else "text" if r[8] else None)
    assert {None, "not a branch in the method's IL", "compiler-generated method", "notes", "text"} <= seen, seen


def _long_program(rng: random.Random) -> list:
    """Methods of `ldarg.0; brtrue.s; ldarg.1; ldarg.2; or; brfalse.s; ...`: plain branches and short circuits."""
    out = []
    for _ in range(rng.randrange(1, 4)):
        program = []
        for _ in range(rng.randrange(1, 6)):
            program += [(0x02, None), (0x2D, ("rel", 2)), (0x03, None), (0x04, None), (OR, None),
                        (0x2C, ("rel", 1)), (0x00, None)]
        out.append((program + [(0x2A, None)], []))
    return out


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.tuples(st.one_of(st.sampled_from(LINES), st.text(max_size=40)),
                                st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\u2029", "\x0b", "\x0c", "\x1d",
                                                 "\x85", ""])), max_size=6),
       point=st.tuples(st.integers(0, 9), st.integers(-1, 8), st.integers(-1, 45), st.integers(-1, 8),
                       st.integers(-1, 45), st.integers(0, 2)),
       vb=st.booleans())
def test_source_slices_agree_with_the_oracle(parts, point, vb):
    text = "".join(line + end for line, end in parts)
    path = "/x/A.vb" if vb else "/x/A.cs"
    sources = oracle._Sources()
    sources._files[path] = text.splitlines()
    assert _native.source_slice(text, point, vb) == sources.slice(path, point)
    assert _native.source_slice(text, point, span=True) == sources.span(path, point)
    assert _native.source_slice(None, point) == "" and _native.source_slice("", point, span=True) == ""


def test_containing_point_agrees_with_the_oracle():
    rng = random.Random(3)
    for _ in range(2000):
        points = [(rng.randrange(20), rng.randrange(9), 1, 1, 1, 1) for _ in range(rng.randrange(6))]
        offset = rng.randrange(-2, 22)
        assert branches.containing_point(points, offset) == oracle.containing_point(points, offset)


@pytest.mark.dotnet
@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_branch_rows_agree_with_the_oracle_on_the_samples(dotnet_build, snippets, config):
    """Every branch outcome, value condition and short-circuit operand of the samples' and snippets' assemblies."""
    dotnet_build("All.sln", config)
    dlls = {}
    for pdb in [*(REPO / "samples").glob(f"*/bin/{config}/*/*.pdb"),
                *(REPO / "tests" / "branch_samples" / "Snippets").glob(f"bin/{config}/*/*.pdb")]:
        if pdb.with_suffix(".dll").exists():
            dlls.setdefault(pdb.name, pdb.with_suffix(".dll"))
    assert len(dlls) >= 10, sorted(dlls)
    rows, kinds = 0, set()
    for dll in sorted(dlls.values()):
        raw = _native.read_symbols(str(dll))
        sites = []
        for rid, body in sorted(_native.read_method_bodies(str(dll)).items()):
            token, il = 0x06000000 | rid, MethodIL.decode(rid, body)
            for b in il.branches():
                sites += [(token, b.offset, k) for k in range(1, b.outcome_count() + 1)]
            sites += [(token, off, kind) for off in _native.il_find_value_conditions(body)
                      for kind in (VALUE_FALSE, VALUE_TRUE)]
            ins = il.instructions
            sites += [(token, ins[k][0], kind) for k in range(1, len(ins))
                      if any(j < len(ins) and ins[j][1] in (AND, OR) for j in (k + 1, k + 2))
                      for kind in (OPERAND_SKIPPED, OPERAND_FALSE, OPERAND_TRUE)]
        module = ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, [1] * len(sites))
        native = branches.branch_rows(module, Symbols(raw), PathMapper())
        assert native == oracle.branch_rows_py(module, Symbols(raw)), dll
        rows += len(native)
        kinds.update(r[6] for r in native)
    # (not idle: hundreds of records, user branches and several recognisers' claims among them)
    assert rows > 250 and None in kinds and len(kinds & set(branches.RECOGNISER_NAMES)) >= 3, (rows, kinds)
