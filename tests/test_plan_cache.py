"""Module plans (analysis/plans/plan.py) and their cache between commands (plans/cache.py): a cached plan gives
exactly the model a cold build gives; an edited source, a damaged cache file or other options never reuse a plan."""

from __future__ import annotations

import shutil
import subprocess
import sys
from array import array
from collections import Counter
from operator import attrgetter
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.data import datafiles as data
from dotcov.analysis.plans import cache as plan_cache
from dotcov.analysis import results
from dotcov.analysis.branches.il import VALUE_FALSE, VALUE_TRUE, MethodIL
from dotcov.data.datafiles import CoverageData, ModuleHits
from dotcov.analysis.filters import Filters
from dotcov.analysis.results import ReportOptions
from dotcov.analysis.branches.short_circuit import OPERAND_FALSE, OPERAND_SKIPPED, OPERAND_TRUE
from oracles.apply_plan import apply_plan

REPO = Path(__file__).resolve().parents[1]
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"


# `snippets` (Snippets.dll, every branch shape the recognisers know, Debug and Release) is tests/conftest.py's.


def module_data(dll: Path) -> CoverageData:
    """Data with every probe site the agent places (points, branch outcomes, value and operand counters), hit
    counts varied so that lines and outcomes are both covered and missed, and short circuits subtract."""
    raw = _native.read_symbols(str(dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    bodies = _native.read_method_bodies(str(dll))
    values = _native.read_value_conditions(str(dll))
    operands = _native.read_short_circuit_operands(str(dll))
    for rid in sorted(raw["sequence_points"]):
        if rid in bodies:
            found = MethodIL.decode(rid, bodies[rid]).branches()
            sites += [(0x06000000 | rid, b.offset, k) for b in found for k in range(1, b.outcome_count() + 1)]
            sites += [(0x06000000 | rid, o, k) for o in values.get(rid, ()) for k in (VALUE_FALSE, VALUE_TRUE)]
            sites += [(0x06000000 | rid, o, k) for o in operands.get(rid, ())
                      for k in (OPERAND_SKIPPED, OPERAND_FALSE, OPERAND_TRUE)]
    hits = [(i * 7919) % 5 for i in range(len(sites))]  # 0..4: some of everything
    out = CoverageData()
    out.add_module(ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, hits))
    return out


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_module_data_has_the_sites_the_agent_places(snippets, config):
    """module_data's sites, enumerated in Python, are the agent's (_native.read_probe_sites, which the report also
    gives an assembly no process loaded): the sites here are the ones the product reads."""
    dll = snippets[config]
    module = next(iter(module_data(dll).modules.values()))
    sites = _native.read_probe_sites(str(dll))
    assert sites == sorted(module.sites) and {kind for _t, _o, kind in sites} >= {0, 1, 2, VALUE_FALSE, OPERAND_TRUE}


def build(cov: CoverageData, options: ReportOptions | None = None, cache: Path | None = None):
    result, problems = results.build(cov, REPO, options, cache_dir=cache)
    assert not problems
    return result


def cached_plans(cache: Path) -> list[Path]:
    return sorted(cache.glob(plan_cache.PATTERN))


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True)], ids=["user", "all"])
def test_a_cached_plan_gives_the_model_of_a_cold_build(snippets, tmp_path, monkeypatch, config, options):
    cov = module_data(snippets[config])
    cold = repr(build(cov, options))
    assert repr(build(cov, options, tmp_path)) == cold  # (builds the plan and keeps it)
    assert len(cached_plans(tmp_path)) == 1

    def no_pdb_reading(*_a, **_k):
        raise AssertionError("a cached plan needs no PDB")

    monkeypatch.setattr(results, "load_symbols", no_pdb_reading)
    assert repr(build(cov, options, tmp_path)) == cold


def test_other_hits_with_a_cached_plan_give_their_own_model(snippets, tmp_path):
    cov = module_data(snippets["Debug"])
    build(cov, cache=tmp_path)
    module = next(iter(cov.modules.values()))
    module.hits = [h * 3 + (i % 2) for i, h in enumerate(module.hits)]
    assert repr(build(cov, cache=tmp_path)) == repr(build(cov))


def test_an_edited_source_file_is_read_again(snippets, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SNIPPETS, src, ignore=shutil.ignore_patterns("bin", "obj"))
    # The PDB's path of Cases.cs now means the copy.
    options = ReportOptions(paths={"cases": [str(src / "Cases.cs"), str(SNIPPETS / "Cases.cs")]})
    cov = module_data(snippets["Debug"])
    cache = tmp_path / "cache"
    before = build(cov, options, cache)
    assert all(f.stale is None for a in before.assemblies for f in a.files.values())
    cases = src / "Cases.cs"
    cases.write_text(cases.read_text() + "\n// edited after the build\n")
    after = build(cov, options, cache)
    assert repr(after) == repr(build(cov, options))
    assert any(f.stale for a in after.assemblies for f in a.files.values())  # (a cached plan would say none)


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "empty", "not a plan"])
def test_a_damaged_cache_file_is_ignored(snippets, tmp_path, damage):
    cov = module_data(snippets["Debug"])
    cold = repr(build(cov))
    build(cov, cache=tmp_path)
    [path] = cached_plans(tmp_path)
    blob = path.read_bytes()
    if damage == "truncated":
        blob = blob[: len(blob) // 2]
    elif damage == "flipped byte":
        blob = blob[:-100] + bytes([blob[-100] ^ 0x40]) + blob[-99:]
    elif damage == "empty":
        blob = b""
    else:
        blob = b"\x00" * 64
    path.write_bytes(blob)
    module = next(iter(cov.modules.values()))
    key = path.name.split(".")[1]
    assert plan_cache.load(tmp_path, key, results.PathMapper(None, REPO), module.path) is None
    assert repr(build(cov, cache=tmp_path)) == cold
    assert plan_cache.load(tmp_path, key, results.PathMapper(None, REPO), module.path) is not None  # rebuilt


def test_a_kept_plan_that_does_not_add_up_is_made_again(snippets, tmp_path):
    # Whole and with the right CRC, but a column cut short: applying it fails its checks, so it is built again.
    import marshal

    cov = module_data(snippets["Debug"])
    cold = repr(build(cov))
    build(cov, cache=tmp_path)
    [path] = cached_plans(tmp_path)
    stored = marshal.loads(path.read_bytes()[len(plan_cache.MAGIC) + 12:])
    whole = stored["plan"]["records"]
    stored["plan"]["records"] = whole[:-4]
    key = path.name.split(".")[1]
    plan_cache.store(tmp_path, key, stored["plan"], assembly=stored["assembly"], pdb=stored["pdb"],
                     documents=stored["documents"], read=stored["inputs"])
    assert plan_cache.load(tmp_path, key, results.PathMapper(None, REPO), next(iter(cov.modules.values())).path)
    assert repr(build(cov, cache=tmp_path)) == cold
    stored = marshal.loads(path.read_bytes()[len(plan_cache.MAGIC) + 12:])
    assert stored["plan"]["records"] == whole  # (kept again, whole)
    assert repr(build(cov, cache=tmp_path)) == cold


def test_different_options_do_not_share_a_plan(snippets, tmp_path):
    cov = module_data(snippets["Debug"])
    variants = [ReportOptions(), ReportOptions(all_branches=True), ReportOptions(skip_auto_properties=True),
                ReportOptions(filters=Filters.build(exclude=["[*]Snippets.Cases"])),
                ReportOptions(filters=Filters.build(exclude_by_file=["*Other.cs"])),
                ReportOptions(paths={"x": [str(tmp_path / "elsewhere"), "/nowhere"]})]
    for options in variants:
        assert repr(build(cov, options, tmp_path)) == repr(build(cov, options))
    assert len(cached_plans(tmp_path)) == len(variants)
    for options in variants:  # each served by its own plan
        assert repr(build(cov, options, tmp_path)) == repr(build(cov, options))
    assert len(cached_plans(tmp_path)) == len(variants)


def test_another_site_list_of_the_same_build_gets_its_own_plan(snippets, tmp_path):
    cov = module_data(snippets["Debug"])
    build(cov, cache=tmp_path)
    module = next(iter(cov.modules.values()))
    lines_only = [i for i, s in enumerate(module.sites) if s[2] == 0]  # e.g. DOTCOV_BRANCHES=0
    module.sites = [module.sites[i] for i in lines_only]
    module.hits = [module.hits[i] for i in lines_only]
    assert repr(build(cov, cache=tmp_path)) == repr(build(cov))
    assert len(cached_plans(tmp_path)) == 2


def test_erase_removes_the_cached_plans(snippets, tmp_path):
    cov = module_data(snippets["Debug"])
    cache = tmp_path / plan_cache.CACHE_DIR
    build(cov, cache=cache)
    assert cached_plans(cache)
    data.erase(tmp_path)
    assert not cache.exists()


def test_an_unwritable_cache_directory_is_no_error(snippets, tmp_path):
    cov = module_data(snippets["Debug"])
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert repr(build(cov, cache=blocker / "cache")) == repr(build(cov))


WARM_BUILD = """
import sys
from pathlib import Path
from dotcov.analysis import results
from dotcov.data.datafiles import CoverageData, ModuleHits
import ast
def no_pdb_reading(*_a, **_k):
    raise SystemExit("a cached plan needs no PDB")
results.load_symbols = no_pdb_reading
cov = CoverageData()
for m in ast.literal_eval(Path(sys.argv[1]).read_text()):
    cov.add_module(ModuleHits(*m))
result, problems = results.build(cov, Path(sys.argv[2]), cache_dir=Path(sys.argv[3]))
print(repr(result))
"""


def test_every_module_is_served_from_the_cache_in_a_new_process(snippets, tmp_path):
    # Two module builds: a later command (a fresh process, which imports less) finds both plans.
    cov = CoverageData()
    for config in ("Debug", "Release"):
        for m in module_data(snippets[config]).modules.values():
            cov.add_module(m)
    cold = repr(build(cov, cache=tmp_path / "cache"))
    assert len(cached_plans(tmp_path / "cache")) == 2
    modules = tmp_path / "modules.txt"
    modules.write_text(repr([(m.mvid, m.pdb_id, m.path, m.sites, m.hits) for m in cov.modules.values()]))
    import sys
    out = subprocess.run([sys.executable, "-c", WARM_BUILD, str(modules), str(REPO), str(tmp_path / "cache")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == cold


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("cached", [False, True], ids=["cold", "warm"])
def test_points_read_when_needed_are_the_pdb_points_with_their_hits(snippets, tmp_path, config, cached):
    """MethodCoverage.points are made from the plan's columns only when read (model.defer_points): read after the
    build (and after the analysis took them unread), each method has exactly its PDB points with their sites' hits,
    every non-hidden point of a method the model keeps is in one of them, and the analysis sorts the same objects."""
    from dotcov.analysis.numbers import Analysis, point_order

    cov = module_data(snippets[config])
    if cached:
        build(cov, cache=tmp_path)
    result = build(cov, cache=tmp_path if cached else None)
    analysis = Analysis.of(result)  # (takes the points unread)
    module = next(iter(cov.modules.values()))
    hits = dict(zip(module.sites, module.hits))
    raw = _native.read_symbols(str(snippets[config]))
    pdb = {}  # token -> its non-hidden points as PointCoverage fields
    for rid, points in raw["sequence_points"].items():
        token = 0x06000000 | rid
        pdb[token] = Counter((token, p[0], p[1], p[2], p[3], p[4], hits.get((token, p[0], 0), 0))
                             for p in points if p[1] != 0xFEEFEE)
    fields = attrgetter("method_token", "il_offset", "start_line", "start_column", "end_line", "end_column", "hits")
    seen = Counter()
    for asm in result.assemblies:
        for cc in asm.classes:
            for mc in cc.methods:
                got = Counter(map(fields, mc.points))
                assert got, mc.name
                for token in {t for t, *_ in got}:
                    owner = raw["kickoff"].get(token & 0xFFFFFF, token & 0xFFFFFF)
                    name = raw["methods"][owner - 1][0]
                    assert 0x06000000 | owner == mc.token or name.startswith(f"<{mc.name}>"), (mc.name, name)
                seen += got
                assert mc.points is mc.points  # (made once)
    tokens = {t for t, *_ in seen}
    assert seen == sum((pdb[t] for t in tokens), Counter())
    assert sum(seen.values()) > 100
    checked = 0
    for fa in analysis.files:
        for ca in fa.classes:
            for m in ca.methods:
                model_points = [p for asm in result.assemblies for cc in asm.classes if cc.name == ca.name
                                and cc.filename == ca.filename for mc in cc.methods
                                if (mc.name, mc.signature) == (m.name, m.signature) for p in mc.points]
                assert m.points == sorted(model_points, key=point_order)
                assert (m.hits > 0) == m.ran == any(p.hits for p in m.points)  # (entered: its own code ran)
                assert m.hits in {p.hits for p in m.points} or not m.points
                checked += 1
    assert checked


# --- the packed plan applied in native code (packed_plan.py) against its oracle, oracles/apply_plan.py ------------

def reference_build(cov: CoverageData, options: ReportOptions | None = None, monkeypatch=None):
    """results.build with the unpacked plan applied by the oracle's apply_plan (no cache)."""
    monkeypatch.setattr(results, "pack", lambda p: p)
    monkeypatch.setattr(results, "apply_plan", apply_plan)
    try:
        return build(cov, options)
    finally:
        monkeypatch.undo()


def with_contexts(cov: CoverageData) -> CoverageData:
    """Per-test contexts on some of the sites that ran (points and branch outcomes both)."""
    for module in cov.modules.values():
        ran = [i for i, h in enumerate(module.hits) if h]
        module.contexts = {"Tests.A": set(ran[::2]), "Tests.B": set(ran[::3]), "Tests.C": set(ran[1::5])}
    return cov


def plans(cov: CoverageData, options: ReportOptions) -> list[dict]:
    """Each module's cold plan, made as results.build makes it (test_plan_lines)."""
    from dotcov.analysis.plans import plan

    mapper = results.PathMapper(options.paths, REPO)
    return [plan.make_plan(m, results.load_symbols(m, mapper.map(m.path)), options, mapper, results.SourceChecks())
            for m in cov.modules.values()]


def plan_of(dll: Path, cov: CoverageData, options: ReportOptions) -> dict:
    from dotcov.analysis.plans import plan

    module = next(iter(cov.modules.values()))
    return plan.make_plan(module, results.load_symbols(module, str(dll)), options, results.PathMapper(None, REPO),
                          results.SourceChecks())


@pytest.mark.parametrize("config", ["Debug", "Release"])
@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True),
                                     ReportOptions(contexts=True), ReportOptions(all_branches=True, contexts=True)],
                         ids=["user", "all", "user-contexts", "all-contexts"])
def test_the_native_apply_gives_the_python_reference_model(snippets, monkeypatch, config, options):
    cov = with_contexts(module_data(snippets[config]))
    want = reference_build(cov, options, monkeypatch)
    got = build(cov, options)
    assert repr(got) == repr(want)
    assert got == want
    if options.contexts:
        assert any(f.contexts for a in got.assemblies for f in a.files.values())
    # The sample has what the packed form encodes apart: lines decided by several points, Release switch lines
    # without a point (fixed from their outcomes), outcomes that are expressions of counters, missed-outcome
    # texts said differently when nothing ran.
    from dotcov.analysis.plans import packed as packed_plan

    packed = packed_plan.pack(plan_of(snippets[config], cov, options))
    assert any(row[3] for row in packed["files"])  # multi-point lines
    assert packed["expressions"]
    assert any(none_ran is not None for _parts, none_ran in packed["missed"])
    if config == "Release":
        assert packed["fixes"]


@pytest.mark.parametrize("one_class", [False, True], ids=["classes", "one-class"])
def test_the_native_apply_merges_two_builds_as_the_reference_does(snippets, tmp_path, monkeypatch, one_class):
    # Debug and Release are two builds of one assembly: results.build merges their files. With the other classes
    # filtered out, Cases.cs has one class, whose line map is its file's (packed_plan.apply): it must not take the
    # other build's hits.
    options = ReportOptions(filters=Filters.build(exclude=["[*]Snippets.Combined", "[*]Snippets.Negations",
                                                           "[*]Snippets.Point"])) if one_class else None
    cov = CoverageData()
    for config in ("Debug", "Release"):
        for m in module_data(snippets[config]).modules.values():
            cov.add_module(m)
    want = reference_build(cov, options, monkeypatch)
    got = build(cov, options)
    assert repr(got) == repr(want)
    if one_class:  # (each build alone: the class shares its file's map)
        alone = CoverageData()
        alone.add_module(next(iter(cov.modules.values())))
        [asm] = build(alone, options).assemblies
        assert asm.classes[0].lines is asm.files[asm.classes[0].filename].lines
    assert repr(build(cov, options, tmp_path)) == repr(want)
    assert repr(build(cov, options, tmp_path)) == repr(want)  # (from the kept plans)


def test_other_hits_give_the_reference_model(snippets, monkeypatch):
    # Hits of 0 everywhere (every description of "nothing ran"), and large counts.
    for scale in (0, 10**12):
        cov = module_data(snippets["Release"])
        module = next(iter(cov.modules.values()))
        module.hits = [h * scale for h in module.hits]
        assert repr(build(cov)) == repr(reference_build(cov, None, monkeypatch))


def test_a_packed_plan_that_does_not_add_up_is_an_error_not_a_crash(snippets):
    from dotcov.analysis.plans import packed as packed_plan

    cov = module_data(snippets["Debug"])
    module = next(iter(cov.modules.values()))
    packed = packed_plan.pack(plan_of(snippets["Debug"], cov, ReportOptions()))
    packed_plan.apply(packed, module)  # (whole: fine)
    damaged = [dict(packed, records=packed["records"][:-4]),
               dict(packed, records=packed["records"] + b"\xff\xff\xff\x7f"),
               dict(packed, missed=packed["missed"][:-1]),
               dict(packed, points=[*packed["points"][:6], b"\x01\x00\x00\x7f" * 4]),
               dict(packed, classes=[(*c[:2], c[2][:-4], *c[3:]) for c in packed["classes"]]),
               dict(packed, files=[(f[0], f[1], f[2][:-4], *f[3:]) for f in packed["files"]])]
    for plan in damaged:
        with pytest.raises((ValueError, IndexError)):
            packed_plan.apply(plan, module)


def apply_args(packed: dict, module) -> tuple:
    """_native.apply_plan's and apply_methods' arguments for a packed plan, as packed_plan.apply makes them."""
    from dotcov.analysis import hit_exprs
    from dotcov.analysis.model import BranchCoverage

    return ([(row[1], row[2], row[3]) for row in packed["files"]], [(row[1], row[2], row[3], row[6]) for row in packed["classes"]],
            packed["records"], packed["missed"], module.hits,
            [hit_exprs.evaluate(c, module.hits) for c in packed["expressions"]], packed["points"][6], BranchCoverage)


def test_a_packed_plan_that_does_not_add_up_fails_before_its_methods_are_made(snippets):
    # The methods are made later, when a writer reads them (packed_plan.apply): whatever they would read is
    # checked when the plan is applied, so a damaged kept plan is still made again (results.build), and
    # apply_methods refuses it too.
    from dotcov.analysis.plans import packed as packed_plan

    cov = module_data(snippets["Debug"])
    module = next(iter(cov.modules.values()))
    packed = packed_plan.pack(plan_of(snippets["Debug"], cov, ReportOptions()))
    assert not packed["fixes"]  # (the methods are made when read)
    lines, branches = _native.apply_methods(*apply_args(packed, module))
    assert len(lines) == len(branches) == len(packed["classes"])
    i = next(i for i, c in enumerate(packed["classes"]) if c[4])  # (a class with methods)
    c = packed["classes"][i]
    # Its first method's lines past its file's end; (below) every listed position out of range.
    bad_specs = (*c[:2], c[2][:12] + array("i", [0, 0, 1 << 20]).tobytes() + c[2][24:], *c[3:])
    damaged = [dict(packed, records=packed["records"][:-4]),
               dict(packed, missed=packed["missed"][:-1]),
               dict(packed, classes=[*packed["classes"][:i], bad_specs, *packed["classes"][i + 1:]])]
    if any(c[3] for c in packed["classes"]):
        i = next(i for i, c in enumerate(packed["classes"]) if c[3])
        c = packed["classes"][i]
        bad_positions = (*c[:3], array("i", [-1] * (len(c[3]) // 4)).tobytes(), *c[4:])
        damaged.append(dict(packed, classes=[*packed["classes"][:i], bad_positions, *packed["classes"][i + 1:]]))
    records = array("i", packed["records"])
    records[4] = 10**6  # the first record's method index
    damaged.append(dict(packed, records=records.tobytes()))
    for plan in damaged:
        with pytest.raises((ValueError, IndexError)):
            packed_plan.apply(plan, module)
        with pytest.raises((ValueError, IndexError)):
            _native.apply_methods(*apply_args(plan, module))


@pytest.mark.parametrize("options", [ReportOptions(), ReportOptions(all_branches=True)], ids=["user", "all"])
def test_methods_are_made_when_read_and_the_analysis_counts_them_without(snippets, monkeypatch, options):
    """A Debug build (no switch line to fix): the table's analysis makes no method (apply_methods is not called)
    and gives the reference's numbers from the counts of apply_plan (ClassCoverage.method_numbers), which are
    those of the methods made later: with lines, run, and their cyclomatic complexity."""
    from dotcov.analysis.numbers import Analysis, cyclomatic_complexity

    cov = module_data(snippets["Debug"])
    want = Analysis.of(reference_build(cov, options, monkeypatch))
    calls = []
    made = _native.apply_methods
    monkeypatch.setattr(_native, "apply_methods", lambda *a: calls.append(1) or made(*a))
    result = build(cov, options)
    got = Analysis.of(result)
    assert [f.numbers for f in got.files] == [f.numbers for f in want.files] and got.totals == want.totals
    assert got.totals.methods and got.totals.complexity > got.totals.methods  # (methods with branches)
    assert not calls
    counted = [cc for asm in result.assemblies for cc in asm.classes if cc.method_numbers is not None]
    assert counted
    for cc in counted:
        measured = [m for m in cc.methods if m.lines]
        assert cc.method_numbers == (len(measured), sum(any(m.lines.values()) for m in measured),
                                     sum(cyclomatic_complexity(m.branches) for m in measured))
    assert calls == [1]  # (every class's methods at once)
    assert [[(c.name, [(m.name, m.numbers) for m in c.methods]) for c in f.classes] for f in got.files] == \
        [[(c.name, [(m.name, m.numbers) for m in c.methods]) for c in f.classes] for f in want.files]


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_cobertura_writes_the_methods_without_making_them(snippets, monkeypatch, config):
    """Cobertura reads a class's methods as the analysis' columns (numbers.MethodTable, from
    ClassCoverage.method_columns): no method object is made for it where the plan makes them when read (Debug:
    no switch line to fix), and the document is the reference model's, whose methods are objects."""
    from dotcov.analysis.numbers import Analysis
    from dotcov.data.deferred import pending
    from dotcov.reports.cobertura import cobertura_xml

    cov = module_data(snippets[config])
    want = cobertura_xml(reference_build(cov, None, monkeypatch), version="1")
    result = build(cov)
    analysis = Analysis.of(result)
    assert cobertura_xml(analysis, version="1") == want
    classes = [cc for asm in result.assemblies for cc in asm.classes]
    assert all(pending(cc, "methods") for cc in classes) == (config == "Debug")
    # (the methods, made when read, are those the columns said)
    written = [(c.name, c.method_table) for a in analysis.assemblies for c in a.classes]
    assert [(c.name, [(m.name, m.signature, m.lines, m.branches) for m in c.methods])
            for a in analysis.assemblies for c in a.classes] == \
        [(name, list(zip(t.names, t.signatures, t.lines, t.branches))) for name, t in written]
    assert cobertura_xml(analysis, version="1") == want


def test_a_class_with_methods_of_one_name_and_signature_is_counted_from_its_methods(snippets):
    # (analysis merges such methods, so their count is not the native one)
    from dotcov.analysis.plans import packed as packed_plan

    cov = module_data(snippets["Debug"])
    module = next(iter(cov.modules.values()))
    packed = packed_plan.pack(plan_of(snippets["Debug"], cov, ReportOptions()))
    i = next(i for i, c in enumerate(packed["classes"]) if len(c[4]) > 1)
    c = packed["classes"][i]
    packed["classes"][i] = (*c[:4], ["Same"] * len(c[4]), ["()"] * len(c[5]), *c[6:])
    asm = packed_plan.apply(packed, module)
    assert asm.classes[i].method_numbers is None
    assert all(cc.method_numbers is not None for j, cc in enumerate(asm.classes) if j != i)


def test_dotcov_run_keeps_the_cache_and_erase_does_not(tmp_path):
    """`dotcov run` erases the data but keeps DATA_DIR/cache (plans, checked when read); `dotcov erase` removes it,
    with the colours an older dotcov kept there."""
    cache = tmp_path / plan_cache.CACHE_DIR
    (cache / "html").mkdir(parents=True)
    plan = cache / "plan.0123.bin"
    colours = cache / "html" / "0123.lines"
    plan.write_bytes(b"dotcov-plan-3\nkept")  # (erase removes only files a cache wrote: they start with its magic)
    colours.write_bytes(b"dotcov-colour-1\nkept")
    theirs = cache / "notes.txt"  # (not the caches': kept)
    theirs.write_bytes(b"kept")
    old = tmp_path / "dotcov.old.cov"
    old.write_bytes(b"")
    r = subprocess.run([sys.executable, "-m", "dotcov", "run", "--no-report", "--data-dir", str(tmp_path), "--",
                        "true"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not old.exists() and plan.read_bytes().endswith(b"kept") and colours.read_bytes().endswith(b"kept")
    data.erase(tmp_path)
    assert not plan.exists() and not colours.exists() and not (cache / "html").exists()
    assert theirs.read_bytes() == b"kept"


def test_a_switch_line_fixed_for_its_class_is_not_written_into_another_sharing_the_file_map(snippets):
    # A class holding every line of its file shares the file's map (packed_plan.apply); a Release switch line
    # fixed for its owner must reach the file and the owner only, as in the reference apply.
    from dotcov.analysis.plans import packed as packed_plan

    cov = module_data(snippets["Release"])
    module = next(iter(cov.modules.values()))
    made = plan_of(snippets["Release"], cov, ReportOptions())
    fixed = next(row for row in made["records"] if row[12])
    path, line = fixed[2], fixed[3]
    file_lines = next(f[1] for f in made["files"] if f[0] == path)
    assert line not in file_lines  # (a switch line with no point of its own)
    made["classes"].append(("Snippets.Bystander", path, (0, len(file_lines)), []))
    want = apply_plan(made, module)
    got = packed_plan.apply(packed_plan.pack(made), module)
    assert line in got.files[path].lines and line not in want.classes[-1].lines
    assert repr(got) == repr(want)
