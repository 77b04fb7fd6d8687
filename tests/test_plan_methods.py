"""The cold plan's per-method and per-record loops in native code (`_native.MethodPlan`, plan._make_plan) give,
byte for byte (marshal), the plan of their Python oracle (oracles/make_plan.py), on the samples and on made-up
symbol tables (state machines, lambdas, records' copy constructors, methods over several files, filtered, excluded
and not-measured methods, files whose points cannot be planned, Release switch lines without a point of their own);
tables they do not take raise, as the Python did, never crash."""

from __future__ import annotations

import marshal
from array import array
import random
import sys
from functools import partial
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_plan_cache import REPO, module_data  # noqa: E402

from dotcov.analysis import results  # noqa: E402
from dotcov.analysis.branches.analyse import branch_rows  # noqa: E402
from dotcov.analysis.filters import Filters  # noqa: E402
from dotcov.analysis.plans import plan  # noqa: E402
from dotcov.analysis.results import ReportOptions  # noqa: E402
from dotcov.analysis.symbols import COMPILER_GENERATED, Symbols  # noqa: E402
from dotcov.data.datafiles import ModuleHits  # noqa: E402
from oracles.make_plan import make_plan_py  # noqa: E402
from oracles.pack_records import pack_records_py  # noqa: E402
from dotcov import _native  # noqa: E402
from dotcov.analysis.plans import packed  # noqa: E402


def both(module, raw: dict, options: ReportOptions, mapper, rows=None) -> tuple[bytes, bytes]:
    """The native plan and the oracle's as marshal bytes, each from fresh Symbols; `rows`: branch_rows' rows (by
    default the module's own, as make_plan reads them). (Dumped, loaded and dumped again: marshal also marks an
    object that something outside the plan holds, such as a cache of the process that the first run filled; what
    stays is the plan's values and which of them are one object.)"""
    def made(make_plan) -> bytes:
        sym = Symbols(raw)
        made = make_plan(module, sym, options, mapper, results.SourceChecks(),
                         rows or partial(branch_rows, module, sym, mapper))
        return marshal.dumps(marshal.loads(marshal.dumps(made)))

    return made(plan._make_plan), made(make_plan_py)


def both_packed(plan_bytes: bytes, monkeypatch) -> tuple[bytes, bytes]:
    """packed.pack of a plan (marshal bytes) with the native record loop and with the oracle's."""
    got = marshal.dumps(packed.pack(marshal.loads(plan_bytes)))
    with monkeypatch.context() as m:
        m.setattr(_native, "pack_records", pack_records_py)
        want = marshal.dumps(packed.pack(marshal.loads(plan_bytes)))
    return got, want


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True, skip_auto_properties=True)],
                         ids=["user", "all"])
def test_the_native_plan_is_the_python_one_on_the_snippets(snippets, monkeypatch, config, options):
    cov = module_data(snippets[config])
    module = next(iter(cov.modules.values()))
    raw = results.load_symbols(module, str(snippets[config])).raw
    rids = sorted(raw["sequence_points"])
    module.unmeasured = {0x06000000 | rids[3]: "its IL could not be rewritten", 0x06000000 | rids[-5]: "stack"}
    mapper = results.PathMapper(None, REPO)
    got, want = both(module, raw, options, mapper)
    assert marshal.loads(got)["records"] and marshal.loads(got)["files"][0][5]  # (records; not-measured lines)
    assert got == want
    assert marshal.loads(got)["records"] and any(r[12] for r in marshal.loads(got)["records"]) == (config == "Release")
    got_packed, want_packed = both_packed(got, monkeypatch)
    assert got_packed == want_packed


def test_the_native_plan_is_the_python_one_on_the_samples(built_samples):
    checked = 0
    for dll in sorted(built_samples.glob("*/bin/Debug/net*/*.dll")):
        if not dll.with_suffix(".pdb").exists() or dll.parent.parent.parent.parent.name != dll.stem:
            continue
        module = next(iter(module_data(dll).modules.values()))
        raw = results.load_symbols(module, str(dll)).raw
        mapper = results.PathMapper(None, REPO)
        got, want = both(module, raw, ReportOptions(), mapper)
        assert got == want, dll
        checked += 1
    assert checked > 10


# --- made-up tables -------------------------------------------------------------------------------------------------

NAMES = ["M", "N", "Get", "get_X", "set_X", ".ctor", "ToString", "PrintMembers", "<Clone>$", "<M>b__0_0",
         "<N>d__2", "<M>g__Local|0_1", "<>b__1", "MoveNext", "<>c", "Équipe\u0301", "\ud800odd", "<\ud800x>b__1",
         "<Équipe>b__0", "<\U0001F600>d__0"]
SIGNATURES = [b"\x20\x00\x01", b"\x00\x01\x01\x08", b"\x20\x02\x08\x0e\x08", b"\xff"]  # (the last unreadable)
EXCLUDE = "System.Diagnostics.CodeAnalysis.ExcludeFromCodeCoverageAttribute"


def made_up(rng: random.Random, tmp_path: Path):
    """A module, its symbol tables, options and branch rows (see the module docstring)."""
    docs = [str(tmp_path / f"F{i}.cs") for i in range(rng.randrange(1, 5))]
    for d in docs[:-1]:  # (the last has no source)
        Path(d).write_text("".join(rng.choice(["{\n", "}\n", "\n", "// note\n", "x = 1;\n", "M(a,\n"])
                                   for _ in range(80)))
    types = [("", "<Module>", 0, 0)]
    for i in range(rng.randrange(1, 6)):
        types.append(("N", f"C{i % 3}", 0, 0))  # (two types may share a name)
        if rng.random() < 0.5:
            types.append(("", rng.choice(["<>c", "<M>d__1", "<>c__DisplayClass0_0"]), len(types), 0))
    methods = [(rng.choice(NAMES), rng.randrange(0, len(types) + 1), 0, rng.choice(SIGNATURES))
               for _ in range(rng.randrange(3, 40))]
    n = len(methods)
    kickoff = {rid: rng.randrange(1, n + 1) for rid in range(1, n + 1) if rng.random() < 0.15}
    attributes = {}
    for rid in range(1, n + 1):
        if rng.random() < 0.3:
            attributes[0x06000000 | rid] = rng.choice([[COMPILER_GENERATED], [EXCLUDE], [], ["Other"]])
    points, huge = {}, set()
    for rid in rng.sample(range(1, n + 1), rng.randrange(1, n + 1)):
        doc = rng.randrange(1, len(docs) + 1)
        own = []
        for k in range(rng.choice([0, 1, 1, 2, 5, 12])):
            if rng.random() < 0.15:
                doc = rng.choice([0, len(docs) + 1, *range(1, len(docs) + 1)])  # (out of range now and then)
            start = rng.randrange(1, 70)
            end = start + rng.choice([0, 0, 0, 1, 3])
            if rng.random() < 0.02 and EXCLUDE not in attributes.get(0x06000000 | rid, ()) and rid not in kickoff \
                    and rid not in kickoff.values():
                end = start + (1 << 25)  # (a damaged PDB's span: its file cannot be planned)
                huge.add(rid)  # (never excluded or not measured: Python would list its 2^25 lines)
            own.append((rng.randrange(0, 300), start, rng.randrange(1, 30), end, rng.randrange(1, 30), doc))
        points[rid] = own
    raw = {"assembly_name": "A", "documents": docs, "sequence_points": points, "kickoff": kickoff,
           "methods": methods, "types": types, "attributes": attributes, "typerefs": [], "typespecs": [],
           "nullable_context": {0x02000002: 1} if rng.random() < 0.5 else {}}
    sites = [(0x06000000 | rid, p[0], 0) for rid, ps in points.items() for p in ps if rng.random() < 0.8]
    module = ModuleHits(b"m" * 16, b"p" * 20, str(tmp_path / "A.dll"), sites, [1] * len(sites))
    with_points = list(points)
    module.unmeasured = {0x06000000 | rid: rng.choice(["why", ""])
                         for rid in rng.sample(with_points, min(len(with_points), rng.randrange(0, 3)))
                         if rid not in huge}
    filters = None
    if rng.random() < 0.3:
        filters = Filters.build(exclude_by_file=[Path(docs[0]).name], exclude_by_attribute=["ExcludeFromCodeCoverage"])
    options = ReportOptions(filters=filters, all_branches=rng.random() < 0.5, skip_auto_properties=rng.random() < 0.3)
    kinds = [[1, 2], [1, 2], [2, 1], [1, 2, 3]]
    arms = {1: "arm `0`", 2: "arm `_`", 3: "`default:`"}
    rows = []
    for _ in range(rng.randrange(0, 30)):
        rid = rng.choice(with_points) if rng.random() < 0.9 else rng.randrange(1, n + 1)
        ps = points.get(rid) or [(0, 5, 1, 5, 2, 1)]
        line = rng.choice(ps)[1] + (rng.choice([0, 0, 1, 2]) if rng.random() < 0.3 else 0)
        path = docs[min(max(rng.choice(ps)[5], 1), len(docs)) - 1] if rng.random() < 0.95 else "elsewhere.cs"
        its_kinds = rng.choice(kinds)  # (equal kinds: sometimes one object, sometimes not)
        its_kinds = list(its_kinds) if rng.random() < 0.5 else its_kinds
        codes = [rng.randrange(0, 50) if rng.random() < 0.8 else ("+", 1, 2) for _ in its_kinds]
        is_switch = rng.random() < 0.3
        rows.append((0x06000000 | rid, rng.randrange(0, 300), path, line, its_kinds, codes,
                     rng.choice([None, None, None, "constant condition"]), is_switch, rng.choice(["if (x)", "", "{"]),
                     {k: arms[k] for k in its_kinds} if is_switch and rng.random() < 0.7 else None,
                     rng.choice([None, {1: "`x` never true"}, {2: "`x` never false"}]),
                     rng.choice([None, None, "unreadable"])))
    return module, raw, options, lambda: list(rows)


@pytest.mark.parametrize("seed", range(80))
def test_the_native_plan_is_the_python_one_on_made_up_tables(seed, tmp_path, monkeypatch):
    rng = random.Random(seed)
    module, raw, options, rows = made_up(rng, tmp_path)
    mapper = results.PathMapper(None, tmp_path)
    got, want = both(module, raw, options, mapper, rows)
    assert got == want
    got_packed, want_packed = both_packed(got, monkeypatch)
    assert got_packed == want_packed


def test_the_made_up_tables_reach_every_rule(tmp_path):
    """Over the seeds above: fixes, landed and unlanded records, refused files, not-measured and excluded lines."""
    seen = {"fix": 0, "at": 0, "no at": 0, "refused": 0, "not measured": 0, "excluded": 0, "generated": 0}
    for seed in range(80):
        (tmp_path / str(seed)).mkdir()
        module, raw, options, rows = made_up(random.Random(seed), tmp_path / str(seed))
        p = plan._make_plan(module, Symbols(raw), options, results.PathMapper(None, tmp_path), results.SourceChecks(),
                            rows)
        seen["fix"] += sum(r[12] is not None and r[12] != [] for r in p["records"])
        seen["at"] += sum(r[13] is not None for r in p["records"])
        seen["no at"] += sum(r[13] is None for r in p["records"])
        seen["refused"] += len(p["problems"])
        seen["not measured"] += sum(len(f[5]) for f in p["files"])
        seen["excluded"] += sum(len(f[4]) for f in p["files"])
        seen["generated"] += sum(m[0] != raw["methods"][(m[2] & 0xFFFFFF) - 1][0] for c in p["classes"] for m in c[3])
    assert all(seen.values()), seen


@pytest.mark.parametrize("damage", ["kickoff", "point", "doc", "method", "type"])
def test_tables_the_native_plan_does_not_take_raise_as_the_python_did(damage, tmp_path):
    module, raw, options, rows = made_up(random.Random(7), tmp_path)
    rid = next(r for r, ps in raw["sequence_points"].items() if ps)
    if damage == "kickoff":
        raw["kickoff"][rid] = len(raw["methods"]) + 5
    elif damage == "point":
        raw["sequence_points"][rid] = [(0, 1, 1, 1)]
    elif damage == "doc":
        raw["sequence_points"][rid] = [(0, 1, 1, 1, 1, "1")]
    elif damage == "method":
        raw["methods"][raw["kickoff"].get(rid, rid) - 1] = ("M", 1, 0)
    else:
        raw["methods"][raw["kickoff"].get(rid, rid) - 1] = ("M", "1", 0, b"")
    mapper = results.PathMapper(None, tmp_path)
    with pytest.raises(Exception) as want:
        make_plan_py(module, Symbols(raw), options, mapper, results.SourceChecks(), rows)
    with pytest.raises(type(want.value)):
        plan._make_plan(module, Symbols(raw), options, mapper, results.SourceChecks(), rows)


@pytest.mark.parametrize("case", ["not a tuple", "short", "kinds not a list", "code too big", "codes short"])
def test_records_pack_does_not_take_raises_as_the_python_did(case):
    record = [0x06000001, 3, "a.cs", 4, [1, 2], [0, 1], True, None, False, "if (x)", None, None, None, (0, 0)]
    if case == "not a tuple":
        record = 7
    elif case == "short":
        record = tuple(record[:5])
    elif case == "kinds not a list":
        record[4] = None
    elif case == "code too big":
        record[5] = [0, 1 << 40]
    else:
        record[5] = [0]
    records = [record if type(record) is not list else tuple(record)]
    with pytest.raises(Exception) as want:
        pack_records_py(records, {"a.cs": 0}, lambda r, o: ((None, None), None))
    with pytest.raises((type(want.value), ValueError, TypeError)):
        _native.pack_records(records, {"a.cs": 0}, lambda r, o: ((None, None), None))


def test_rows_the_method_plan_does_not_take_raise(tmp_path):
    module, raw, options, rows = made_up(random.Random(3), tmp_path)
    core = _native.MethodPlan(raw["sequence_points"], raw["kickoff"], raw["methods"],
                              [None] * len(raw["methods"]), set(), {}, {}, [None, *raw["documents"]],
                              lambda t: (0, "<Module>"))
    texts = tuple([""] * len(core.new_methods()[0]) for _ in range(3))
    for bad in [[("a.cs", [], b"", {}, [], [], None)], [("a.cs", [], array("i"), [], [], [], None)],
                [("a.cs", [], array("i"), {0: (1,)}, [], [], None)], [3]]:
        with pytest.raises((TypeError, ValueError, BufferError)):
            core.rows({}, texts, set(), bad)
    with pytest.raises(ValueError):
        core.rows({}, ([], [], []), set(), [])
    with pytest.raises((TypeError, ValueError)):
        core.records([("not", "twelve")], {}, {})
