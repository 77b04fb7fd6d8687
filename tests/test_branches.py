"""Branch coverage (src/dotcov/analysis/branches/analyse.py): mapping branches to lines, and the recognisers of
compiler-generated branches, on real IL compiled from tests/branch_samples/Snippets (Debug and
Release) and on hand-written IL."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.analysis.branches import analyse as branches
from dotcov.analysis.branches.il import VALUE_FALSE, VALUE_TRUE, Branch, MethodIL
from dotcov.data.datafiles import CoverageData, ModuleHits
from dotcov.analysis.model import BranchCoverage
from dotcov.analysis.results import Symbols, build
from oracles import branch_rules as rules

REPO = Path(__file__).resolve().parents[1]
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"
SEQPOINTS = REPO / "tests" / "tools" / "SeqPoints"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(DOTNET_CLI_TELEMETRY_OPTOUT="1", DOTNET_NOLOGO="1", DOTNET_CLI_USE_MSBUILD_SERVER="0",
               UseSharedCompilation="false")
    return env


# `snippets` (Snippets.dll built Debug and Release once per run) is tests/conftest.py's.


@pytest.fixture(scope="module")
def hidden_points(dotnet, seqpoints):
    """{rid: [IL offsets of hidden sequence points]} of an assembly, from System.Reflection.Metadata."""
    dll = seqpoints

    def read(assembly: Path) -> dict[int, list[int]]:
        text = subprocess.run([dotnet, str(dll), str(assembly)], env=_env(), check=True, capture_output=True,
                              text=True).stdout
        hidden: dict[int, list[int]] = {}
        for row in text.splitlines():
            f = row.split("\t")
            if f[7] == "1":
                hidden.setdefault(int(f[0], 16) & 0xFFFFFF, []).append(int(f[1]))
        return hidden

    return read


def every_branch(dll: Path, raw: dict, hits=None) -> ModuleHits:
    """Module data with a site for every outcome of every branch of the assembly, as the agent counts them."""
    sites = []
    for rid, body in sorted(_native.read_method_bodies(str(dll)).items()):
        for b in MethodIL.decode(rid, body).branches():
            sites += [(0x06000000 | rid, b.offset, kind) for kind in range(1, b.outcome_count() + 1)]
    hit_list = [hits(s) for s in sites] if hits else [0] * len(sites)
    return ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, hit_list)


def classified(dll: Path, hidden: dict | None = None) -> dict[str, list[tuple[int, str | None]]]:
    """{user method name: [(line, recogniser or None for a user branch)]}; state machines under their method."""
    raw = _native.read_symbols(str(dll))
    if hidden is not None:
        raw["hidden_points"] = hidden
    out: dict[str, list[tuple[int, str | None]]] = {}
    for r in branches.analyse(every_branch(dll, raw), Symbols(raw)):
        rid = r.method_token & 0xFFFFFF
        owner = raw["kickoff"].get(rid, rid)
        out.setdefault(raw["methods"][owner - 1][0], []).append((r.line, r.generated))
    return out


# Per snippet method: how many user branches it keeps, and the recognisers that must claim the rest.
EXPECTED = {
    "IfElse": (1, set()),
    "OrElse": (1, set()),  # `a < 0 || b < 0` as a value: one jump (the `||`), the rest is `clt`
    "Loop": (1, set()),
    "Coalesce": (1, set()),  # `??` is the user's
    "StaticCoalesce": (1, set()),  # `s_name ?? x` is `ldsfld; dup; brtrue; pop` too, but no delegate cache
    "Conditional": (1, set()),  # `?.` is the user's
    "StaticConditional": (1, set()),
    "Lambda": (0, {"delegate cache check"}),
    "MethodGroup": (0, {"delegate cache check"}),
    "Using": (0, {"dispose null check"}),
    "ForeachEnumerable": (1, {"dispose null check"}),
    "ForeachList": (1, set()),  # struct enumerator: Dispose without a null check
    "ForeachArray": (1, set()),
    "SwitchExpression": (1, {"constant condition"}),  # one record: the switch, an outcome per arm
    "SwitchStatement": (1, set()),
    "Iterator": (1, {"state-machine dispatch", "before the first sequence point"}),
    "AsyncAwait": (1, {"state-machine dispatch", "await completion check", "before the first sequence point"}),
    "AsyncForeach": (1, {"state-machine dispatch", "await completion check", "dispose null check",
                         "before the first sequence point"}),
    "AsyncUsing": (0, {"state-machine dispatch", "await completion check", "dispose null check",
                       "before the first sequence point"}),
    # The user's switch in MoveNext sits under a hidden point after the switch value is stored: still the user's
    # (Debug: two `beq` on a hoisted field; Release: two `beq` on a local; iterator: one compare).
    "AsyncSwitch": (1, {"state-machine dispatch", "await completion check", "before the first sequence point"}),
    "IteratorSwitch": (2, {"state-machine dispatch", "before the first sequence point"}),
    "AsyncTryReturn": (1, {"state-machine dispatch", "await completion check", "before the first sequence point"}),
    "Lock": (0, {"lock taken check"}),  # `if (lockTaken) Monitor.Exit(gate)`
    "CatchWhen": (0, {"exception filter type check"}),  # `isinst OverflowException; dup; brtrue`
}


@pytest.mark.parametrize("with_hidden", [False, True], ids=["no-hidden-points", "hidden-points"])
@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_snippets_keep_exactly_the_user_branches(snippets, hidden_points, config, with_hidden):
    dll = snippets[config]
    found = classified(dll, hidden_points(dll) if with_hidden else None)
    problems = []
    for method, (users, recognisers) in EXPECTED.items():
        got = found.get(method, [])
        got_users = sum(1 for _line, g in got if g is None)
        got_recognisers = {g for _line, g in got if g}
        if got_users != users or not got_recognisers <= recognisers:
            problems.append(f"{method}: {got_users} user branches (want {users}), generated by {got_recognisers} "
                            f"(allowed {recognisers})")
    # Record members (Equals, PrintMembers, ...) have no sequence points: nothing maps.
    assert "Equals" not in found and "PrintMembers" not in found
    assert not problems, "\n".join(problems)


SWITCH_ARMS = {  # the snippets' switches: one outcome per arm, labelled from the source
    "SwitchExpression": ["arm `int`", "arm `string`", "arm `_`"],
    "SwitchStatement": ["`case 0:`", "`case 1:`", "`case 2:`", "`default:`"],
    "AsyncSwitch": ["`case 1:`", "`case 2:`", "`default:`"],
    "IteratorSwitch": ["`case 1:`", "`default:`"],
    "StringSwitch": ["`case \"a\":`", "`case \"b\":`", "`case \"c\":`", "`default:`"],
    # Cases sharing a section are one outcome; no `default`: falling out of the switch is the implicit default.
    "LongStringSwitch": ["`case \"alpha\":`", "`case \"beta\":`", "`case \"gamma\":`", "`case \"delta\":`",
                         "`case \"epsilon\":`", "`case \"zeta\":`", "`case \"eta\": case \"theta\":`",
                         "implicit `default` (no `case` matched)"],
}


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_switches_have_one_outcome_per_arm(snippets, config):
    dll = snippets[config]
    raw = _native.read_symbols(str(dll))
    source = (SNIPPETS / "Cases.cs").read_text().splitlines()
    got = {}
    for r in branches.analyse(every_branch(dll, raw), Symbols(raw)):
        rid = r.method_token & 0xFFFFFF
        name = raw["methods"][raw["kickoff"].get(rid, rid) - 1][0]
        if r.arms is not None:
            assert name not in got, name
            got[name] = [r.arms[k] for k in sorted(r.arms)]
            assert "switch" in source[r.line - 1], (name, r.line)  # reported on the `switch` line
            assert r.missed() == [f"{a} never taken" for a in got[name]]  # nothing ran: every arm missed
    assert got == SWITCH_ARMS


def test_snippet_recognisers_each_fire(snippets):
    found = classified(snippets["Debug"])
    fired = {g for rows in found.values() for _l, g in rows if g}
    assert {"state-machine dispatch", "await completion check", "dispose null check", "delegate cache check",
            "constant condition"} <= fired


def test_user_branches_map_to_their_statement_lines(snippets):
    found = classified(snippets["Debug"])
    source = (SNIPPETS / "Cases.cs").read_text().splitlines()

    def line_of(text: str) -> int:
        return next(n for n, s in enumerate(source, 1) if text in s)

    assert [l for l, g in found["IfElse"] if g is None] == [line_of("if (x > 0)")]
    assert [l for l, g in found["Loop"] if g is None] == [line_of("for (int i = 0; i < n; i++)")]
    # The loop test of `foreach` sits on the `in` keyword's point: the foreach line.
    assert [l for l, g in found["ForeachList"] if g is None] == [_nth(source, "foreach (int x in xs)", 2)]
    # MoveNext of a state machine maps through its own points, onto the user's lines.
    assert [l for l, g in found["AsyncAwait"] if g is None] == [line_of("if (v > 0)")]
    assert [l for l, g in found["Iterator"] if g is None] == [_nth(source, "for (int i = 0; i < n; i++)", 2)]


def _nth(source: list[str], text: str, n: int) -> int:
    return [i for i, s in enumerate(source, 1) if text in s][n - 1]


def test_all_branches_keeps_the_generated_ones(snippets):
    dll = snippets["Debug"]
    raw = _native.read_symbols(str(dll))
    records = branches.analyse(every_branch(dll, raw), Symbols(raw))
    user = branches.by_line(records)
    everything = branches.by_line(records, all_branches=True)
    assert sum(b.total for f in user.values() for b in f.values()) == sum(len(r.outcomes) for r in records if not r.generated)
    assert sum(b.total for f in everything.values() for b in f.values()) == sum(len(r.outcomes) for r in records)
    assert sum(b.total for f in everything.values() for b in f.values()) > sum(
        b.total for f in user.values() for b in f.values())


# --- mapping and counting on synthetic data -------------------------------------------------


def test_containing_point_is_the_last_point_at_or_before_the_branch():
    points = [(0, 10, 5, 10, 6, 1), (1, 11, 9, 11, 20, 1), (14, 13, 9, 13, 20, 1)]
    assert branches.containing_point(points, 7)[1] == 11
    assert branches.containing_point(points, 14)[1] == 13
    assert branches.containing_point(points, 1)[1] == 11
    assert branches.containing_point([(4, 3, 1, 3, 2, 1)], 2) is None


def test_outcomes_sum_per_line_and_missed_outcomes_are_described():
    recs = [
        branches.BranchRecord(0x06000001, 0x12, "/a.cs", 5, {1: 3, 2: 0}, text="if (x > 0)"),
        branches.BranchRecord(0x06000001, 0x20, "/a.cs", 5, {1: 1, 2: 2}),
        branches.BranchRecord(0x06000001, 0x30, "/a.cs", 7, {1: 0, 2: 4, 3: 0, 4: 1}, is_switch=True),
        branches.BranchRecord(0x06000001, 0x40, "/a.cs", 7, {1: 0, 2: 0}, generated="constant condition"),
    ]
    lines = branches.by_line(recs)["/a.cs"]
    assert (lines[5].covered, lines[5].total) == (3, 4)
    assert lines[5].missed_outcomes == ["`if (x > 0)`: one outcome never happened (same value every time)"]
    assert (lines[7].covered, lines[7].total) == (2, 4)
    assert lines[7].missed_outcomes == ["this line: no case matched never happened",
                                        "this line: case 1 never happened"]
    assert (branches.by_line(recs, all_branches=True)["/a.cs"][7].total) == 6


def _synthetic(sites, hits, rids=(1, 2)):
    """analyse's records of `sites` in methods without IL (no bodies), each with one point on its own line."""
    raw = {"sequence_points": {rid: [(0, 10 * rid, 1, 10 * rid, 5, 1)] for rid in rids},
           "methods": [(f"M{rid}",) for rid in rids], "kickoff": {}, "documents": ["/a.cs"]}
    module = ModuleHits(b"", b"", "/a.dll", sites, hits)
    return {(r.method_token, r.offset): r.outcomes
            for r in branches.analyse(module, Symbols(raw), bodies={}, read_sources=False)}


def test_branch_hits_group_outcome_sites_and_ignore_sequence_points():
    sites = [(0x06000001, 0, 0), (0x06000001, 7, 1), (0x06000001, 7, 2), (0x06000002, 3, 1), (0x06000001, 7, 1)]
    assert _synthetic(sites, [5, 2, 0, 1, 4]) == {(0x06000001, 7): {1: 6, 2: 0}, (0x06000002, 3): {1: 1}}


def test_results_build_reports_branches_and_keeps_lines(snippets):
    dll = snippets["Debug"]
    raw = _native.read_symbols(str(dll))
    rid = next(i for i, m in enumerate(raw["methods"], 1) if m[0] == "IfElse")
    module = every_branch(dll, raw, hits=lambda s: 1 if s[0] & 0xFFFFFF == rid and s[2] == 2 else 0)
    module.sites.append((0x06000000 | rid, 0, 0))
    module.hits.append(1)
    data = CoverageData()
    data.add_module(module)
    result, problems = build(data, SNIPPETS)
    assert not problems
    fc = result.assemblies[0].files[str(SNIPPETS / "Cases.cs")]
    if_line = next(n for n, s in enumerate((SNIPPETS / "Cases.cs").read_text().splitlines(), 1) if "if (x > 0)" in s)
    b = fc.branches[if_line]
    assert (b.covered, b.total, len(b.missed_outcomes)) == (1, 2, 1)
    (offset, hits), = b.outcome_hits
    assert hits == [0, 1]  # fall-through never, the jump once
    assert fc.branches[if_line].missed_outcomes == ["`x > 0` never true"]  # in source terms, no IL offset
    assert fc.lines  # line coverage still there
    everything, _ = build(data, SNIPPETS, all_branches=True)
    assert sum(b.total for b in everything.assemblies[0].files[fc.path].branches.values()) > sum(
        b.total for b in fc.branches.values())


@pytest.mark.parametrize("damage", ["undecodable", "missing"])
def test_a_method_whose_il_cannot_be_read_warns_that_its_branches_count_as_the_users(snippets, monkeypatch, damage):
    """Without its IL the recognisers claim none of a method's branches: they all count as the user's, and the
    report says so once, the model naming the method and the reason (for `dotcov debug data`); the other methods
    are classified as before."""
    dll = snippets["Debug"]
    raw = _native.read_symbols(str(dll))
    kickoff = next(i for i, m in enumerate(raw["methods"], 1) if m[0] == "AsyncAwait")
    [rid] = [r for r, k in raw["kickoff"].items() if k == kickoff]
    module = every_branch(dll, raw)
    data = CoverageData()
    data.add_module(module)

    def classified() -> tuple[list, list]:
        """(line, generated) of the branch records of AsyncAwait's MoveNext, and of the other methods."""
        records = branches.analyse(module, Symbols(raw))
        return tuple(sorted(((r.line, r.generated) for r in records if (r.method_token & 0xFFFFFF == rid) == mine),
                            key=lambda x: (x[0], x[1] or ""))
                     for mine in (True, False))

    bodies = _native.read_method_bodies(str(dll))
    intact, others = classified()
    assert any(g for _line, g in intact) and any(g is None for _line, g in intact)
    before, problems = build(data, SNIPPETS)
    assert problems == []
    garbage = b"\x13\x30\x08\x00\xff\xff\xff\x7f\x00\x00\x00\x00"  # (a fat header promising 2 GB of code)
    with pytest.raises(ValueError) as undecodable:
        _native.il_branch_facts(garbage)
    damaged = {r: garbage if r == rid else b for r, b in bodies.items()}
    if damage == "missing":
        del damaged[rid]
    monkeypatch.setattr(_native, "read_method_bodies", lambda path: damaged)
    after, problems = build(data, SNIPPETS)
    why = f"its IL does not decode ({undecodable.value})" if damage == "undecodable" else \
        "its IL could not be read from the assembly"
    assert problems == ["the branches of 1 method(s) in 1 module(s) are all counted as the user's, compiler-generated "
                        "ones too, for the recognisers could not read them ('dotcov debug data' lists them with the "
                        "reason)"]
    assert after.unclassified == [(str(dll), 0x06000000 | rid, "Snippets.Cases.AsyncAwait", why)]
    assert classified() == ([(line, None) for line, _g in intact], others)

    def user_outcomes(result) -> int:
        return sum(b.total for f in result.assemblies[0].files.values() for b in f.branches.values())

    assert user_outcomes(after) > user_outcomes(before)


def test_no_branch_sites_means_no_branch_data(snippets):
    dll = snippets["Debug"]
    raw = _native.read_symbols(str(dll))
    module = ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), [(0x06000001, 0, 0)], [1])
    assert branches.analyse(module, Symbols(raw)) == []


# --- recognisers on hand-written IL -----------------------------------------------------------

LDARG_0, LDFLD, STLOC_0, LDLOC_0 = 0x02, 0x7B, 0x0A, 0x06


def il(instructions, clauses=(), **kw) -> rules.RuleIL:
    return rules.RuleIL(1, instructions, list(clauses), **kw)


def only_branch(m: MethodIL) -> Branch:
    (b,) = [b for b in m.branches()]
    return b


def test_state_dispatch_needs_a_state_machine():
    body = [(0, LDARG_0, 0), (1, LDFLD, 0x04000001), (6, STLOC_0, 0), (7, LDLOC_0, 0), (8, 0x2C, 12),
            (10, 0x2B, 14), (12, 0x2B, 20), (14, 0x00, 0), (20, 0x2A, 0)]
    b = [x for x in il(body).branches() if x.opcode == 0x2C][0]
    assert rules.state_machine_dispatch(il(body, is_move_next=True), b)
    assert not rules.state_machine_dispatch(il(body), b)


def test_state_dispatch_sees_compare_and_switch_forms():
    body = [(0, LDARG_0, 0), (1, LDFLD, 0x04000001), (6, STLOC_0, 0), (7, LDLOC_0, 0), (8, 0x1F, -3),
            (10, 0x59, 0), (11, 0x45, [30, 31]), (24, 0x2A, 0), (30, 0x2A, 0), (31, 0x2A, 0)]
    assert rules.state_machine_dispatch(il(body, is_move_next=True), only_branch(il(body)))
    # A user's `if (x == 1)` on another local is not dispatch.
    body2 = [(0, LDARG_0, 0), (1, LDFLD, 0x04000001), (6, STLOC_0, 0), (7, 0x07, 0), (8, 0x17, 0),
             (9, 0x2E, 12), (11, 0x2A, 0), (12, 0x2A, 0)]
    assert not rules.state_machine_dispatch(il(body2, is_move_next=True), only_branch(il(body2)))


def test_await_check_needs_the_state_store_on_the_suspending_path():
    def body(store_field):
        return [(0, LDARG_0, 0), (1, LDFLD, 0x04000001), (6, STLOC_0, 0), (7, 0x12, 2), (9, 0x28, 0x0A000001),
                (14, 0x2D, 30), (16, LDARG_0, 0), (17, 0x16, 0), (18, 0x25, 0), (19, STLOC_0, 0),
                (20, 0x7D, store_field), (25, 0xDE, 40), (30, 0x2A, 0), (40, 0x2A, 0)]
    m = il(body(0x04000001), is_move_next=True)
    assert rules.await_completion_check(m, only_branch(m))
    m = il(body(0x04000009), is_move_next=True)  # stores another field: a user's `if (!x.Flag) { ... }`
    assert not rules.await_completion_check(m, only_branch(m))


def test_dispose_check_only_in_finally_before_a_call_on_the_same_value():
    body = [(0, 0x00, 0), (1, 0xDE, 12), (3, LDLOC_0, 0), (4, 0x2C, 11), (6, LDLOC_0, 0), (7, 0x6F, 0x0A000001),
            (11, 0xDC, 0), (12, 0x2A, 0)]
    finally_clause = [(2, 0, 3, 3, 9, 0)]
    m = il(body, finally_clause)
    assert rules.dispose_null_check(m, only_branch(m))
    assert not rules.dispose_null_check(il(body), only_branch(il(body)))  # not in a finally
    other = [x if x[0] != 6 else (6, 0x07, 0) for x in body]  # calls a method on another local
    m = il(other, finally_clause)
    assert not rules.dispose_null_check(m, only_branch(m))


def test_delegate_cache_versus_user_coalescing_of_a_static_field():
    cache = [(0, 0x7E, 0x04000002), (5, 0x25, 0), (6, 0x2D, 30), (8, 0x26, 0), (9, 0x7E, 0x04000001),
             (14, 0xFE06, 0x06000003), (20, 0x73, 0x0A000001), (25, 0x25, 0), (26, 0x80, 0x04000002),
             (30, 0x2A, 0)]
    m = il(cache)
    assert rules.delegate_cache_check(m, only_branch(m))
    coalesce = [(0, 0x7E, 0x04000002), (5, 0x25, 0), (6, 0x2D, 14), (8, 0x26, 0), (9, 0x72, 0x70000001),
                (14, 0x2A, 0)]
    m = il(coalesce)
    assert not rules.delegate_cache_check(m, only_branch(m))


def test_constant_condition_but_not_after_a_join():
    m = il([(0, 0x17, 0), (1, 0x2D, 4), (3, 0x00, 0), (4, 0x2A, 0)])
    assert rules.constant_condition(m, only_branch(m))
    # Release `a || b`: `blt L; ldarg.1; ldc.i4.0; clt; br M; L: ldc.i4.1; M: brfalse` - M is a join.
    join = [(0, 0x02, 0), (1, 0x16, 0), (2, 0x32, 9), (4, 0x03, 0), (5, 0x16, 0), (6, 0xFE04, 0), (8, 0x2B, 10),
            (9, 0x17, 0), (10, 0x2C, 13), (12, 0x2A, 0), (13, 0x2A, 0)]
    m = il(join)
    b = [x for x in m.branches() if x.opcode == 0x2C][0]
    assert not rules.constant_condition(m, b)


def test_hidden_point_rule_keeps_the_debug_condition_temporary():
    # `stloc.0` / hidden / `ldloc.0; brfalse`: the user's `if`.
    body = [(0, 0x03, 0), (1, 0x16, 0), (2, 0xFE04, 0), (4, STLOC_0, 0), (5, LDLOC_0, 0), (6, 0x2C, 9),
            (8, 0x00, 0), (9, 0x2A, 0)]
    m = il(body, is_move_next=True, hidden_offsets={5}, visible_offsets={0})
    assert not rules.hidden_point_branch(m, only_branch(m))
    # A test of something else under a hidden point in MoveNext: generated.
    body2 = [(0, 0x03, 0), (1, STLOC_0, 0), (2, 0x11, 5), (4, 0x2C, 9), (6, 0x00, 0), (9, 0x2A, 0)]
    m = il(body2, is_move_next=True, hidden_offsets={2}, visible_offsets={0})
    assert rules.hidden_point_branch(m, only_branch(m))
    # Outside state machines hidden points do not decide (Debug switch dispatch sits under them).
    m = il(body2, hidden_offsets={2}, visible_offsets={0})
    assert not rules.hidden_point_branch(m, only_branch(m))
    # Without hidden points known, the rule does nothing.
    m = il(body2, is_move_next=True, visible_offsets={0})
    assert not rules.hidden_point_branch(m, only_branch(m))


def test_compiler_generated_methods_but_not_lambdas_or_local_functions():
    cg = [branches.COMPILER_GENERATED]
    assert branches.compiler_generated_method("Equals", cg)
    assert not branches.compiler_generated_method("<SumOfSquares>g__Square|11_0", cg)
    assert not branches.compiler_generated_method("<Scale>b__0", cg)
    assert not branches.compiler_generated_method("Equals", [])
    assert not branches.compiler_generated_method("MoveNext", cg, move_next=True)  # (VB marks a state machine's)


def test_value_sites_are_not_branch_outcomes_and_read_as_false_true():
    sites = [(0x06000001, 7, 1), (0x06000001, 7, 2), (0x06000001, 9, VALUE_FALSE),
             (0x06000001, 9, VALUE_TRUE)]
    assert _synthetic(sites, [1, 2, 3, 4], rids=(1,)) == {(0x06000001, 7): {1: 1, 2: 2}, (0x06000001, 9): {1: 3, 2: 4}}
    assert _synthetic(sites[:3], [1, 2, 3], rids=(1,))[0x06000001, 9] == {1: 3, 2: 0}  # (a value never true)


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_conditions_computed_into_values_get_two_outcomes(snippets, config):
    """`a < 0 || b < 0` as a value and `when (...)`: the last operand and the filter condition have no branch of their
    own; the agent's value sites (il_find_value_conditions) give them their two outcomes, on their own lines."""
    dll = snippets[config]
    raw = _native.read_symbols(str(dll))
    module = every_branch(dll, raw)
    found = _native.read_value_conditions(str(dll))
    names = {"OrElse", "CatchWhen"}
    rids = {i for i, m in enumerate(raw["methods"], 1) if m[0] in names}
    for rid in sorted(rids):
        for offset in found.get(rid, []):
            module.sites += [(0x06000000 | rid, offset, VALUE_FALSE), (0x06000000 | rid, offset,
                                                                                  VALUE_TRUE)]
            module.hits += [0, 3]
    lines = (SNIPPETS / "Cases.cs").read_text().splitlines()
    values = {r.line: r for r in branches.analyse(module, Symbols(raw)) if r.offset in
              {o for rid in rids for o in found.get(rid, [])} and r.method_token & 0xFFFFFF in rids}
    assert sorted("OrElse" in lines[n - 1] or "when" in lines[n - 1] for n in values) == [True, True]
    for r in values.values():
        assert r.generated is None and r.outcomes == {1: 0, 2: 3}
    orelse = next(r for n, r in values.items() if "OrElse" in lines[n - 1])
    assert orelse.missed() == ["`b < 0` never false"]


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_short_circuits_compiled_to_or_and_count_each_operand(snippets, config):
    """`if (a < 0 || flag)`, `x > 0 && big`, ... with a bool argument (or a `ref bool` local) last: Roslyn emits
    `or`/`and` and no branch for either operand. The operand probe's counters (short_circuit.py) give each operand
    two outcomes, the right one counted only when the source evaluates it; the branch on the combined value is no
    outcome of its own; `a | flag` (no short circuit in the source, the same IL) reports nothing. The same outcome
    sets and notes in Debug and Release."""
    from dotcov.analysis.branches import short_circuit

    dll = snippets[config]
    raw = _native.read_symbols(str(dll))
    module = every_branch(dll, raw, hits=lambda s: 1)
    operands = _native.read_short_circuit_operands(str(dll))
    values = _native.read_value_conditions(str(dll))
    counts = {short_circuit.OPERAND_SKIPPED: 2, short_circuit.OPERAND_FALSE: 3, short_circuit.OPERAND_TRUE: 0}
    for rid, offsets in operands.items():
        for offset in offsets:
            for kind, h in counts.items():
                module.sites.append((0x06000000 | rid, offset, kind))
                module.hits.append(h)
    for rid, offsets in values.items():
        for offset in offsets:
            module.sites += [(0x06000000 | rid, offset, VALUE_FALSE), (0x06000000 | rid, offset,
                                                                                  VALUE_TRUE)]
            module.hits += [1, 1]
    lines = (SNIPPETS / "Cases.cs").read_text().splitlines()
    by_text = {lines[n - 1].strip(): cov for n, cov in
               next(iter(branches.by_line(branches.analyse(module, Symbols(raw))).values())).items()}
    got = {t: (c.covered, c.total, c.missed_outcomes) for t, c in by_text.items()
           if any(k in t for k in ("flag", "big", "(flag || g)", "first"))}
    assert got == {
        "if (a < 0 || flag)": (3, 4, ["`flag` never true"]),
        "public static bool AndBig(int x, bool big) => x > 0 && big;": (3, 4, ["`big` never true"]),
        "public static bool Three(int x, int y, bool flag) => x < 0 || y < 0 || flag;": (5, 6, ["`flag` never true"]),
        "if (x < 0 && (flag || g))": (5, 6, ["`g` never true"]),
        "return x < 0 || first;": (3, 4, ["`first` never true"]),
    }


def test_a_debug_negation_is_a_tested_value_of_its_own():
    # Debug `if (!done)`: `ldarg.1; ldc.i4.0; ceq; stloc.0; ldloc.0; brfalse` tests the written `!done`.
    debug = [(0, 0x03, 0), (1, 0x16, 0), (2, 0xFE01, 0), (4, STLOC_0, 0), (5, LDLOC_0, 0), (6, 0x2C, 10),
             (8, 0x00, 0), (9, 0x00, 0), (10, 0x2A, 0)]
    assert rules.tests_zero_comparison(il(debug), only_branch(il(debug)))
    # Release `if (!done)`: `ldarg.1; brtrue` tests `done` itself; `x == 1` is no negation.
    release = [(0, 0x03, 0), (1, 0x2D, 4), (3, 0x00, 0), (4, 0x2A, 0)]
    assert not rules.tests_zero_comparison(il(release), only_branch(il(release)))
    other = [(0, 0x03, 0), (1, 0x17, 0), (2, 0xFE01, 0), (4, STLOC_0, 0), (5, LDLOC_0, 0), (6, 0x2C, 10),
             (8, 0x00, 0), (9, 0x00, 0), (10, 0x2A, 0)]
    assert not rules.tests_zero_comparison(il(other), only_branch(il(other)))


def test_a_negation_joined_with_a_constant_is_the_tested_value():
    # Humanizer VietnameseNumberToWordsConverter.cs:124, Debug `if (n > 0 && big && !hasTens)`:
    # `cgt; ldarg big; and; brfalse C; ldarg hasTens; ldc.i4.0; ceq; br J; C: ldc.i4.0; J: stloc; ldloc; brfalse`.
    body = [(0, 0x02, 0), (1, 0x16, 0), (2, 0xFE02, 0), (4, 0x04, 0), (5, 0x5F, 0), (6, 0x2C, 14),
            (8, 0x03, 0), (9, 0x16, 0), (10, 0xFE01, 0), (12, 0x2B, 15), (14, 0x16, 0), (15, STLOC_0, 0),
            (16, LDLOC_0, 0), (17, 0x2C, 21), (19, 0x00, 0), (20, 0x00, 0), (21, 0x2A, 0)]
    m = il(body)
    first, last = m.branches()
    assert rules.tests_zero_comparison(m, last)
    assert not rules.tests_zero_comparison(m, first)  # tests `n > 0 & big`


@pytest.mark.parametrize("config", ["Debug", "Release"])
def test_a_negated_condition_reads_the_same_in_debug_and_release(snippets, config):
    """`if (!done) Count++;` whose body ran every time: `!done` never false, whether the branch tests `done`
    (Release `brtrue`) or the computed `!done` (Debug `ldc.i4.0; ceq; stloc; ldloc; brfalse`); both fall through
    into the body. (Humanizer `FixedNumberOfWordsTruncator.cs:42` was noted "never true" before.)"""
    dll = snippets[config]
    raw = _native.read_symbols(str(dll))
    module = every_branch(dll, raw, hits=lambda s: 1 if s[2] == 1 else 0)  # fall-through only
    lines = (SNIPPETS / "Cases.cs").read_text().splitlines()
    by_text = {lines[n - 1].strip(): cov for n, cov in
               next(iter(branches.by_line(branches.analyse(module, Symbols(raw))).values())).items()}
    cov = by_text["if (!done)"]
    assert (cov.covered, cov.total, cov.missed_outcomes) == (1, 2, ["`!done` never false"])


def test_a_spilled_vb_condition_after_await_is_one_join():
    # VB Debug `If Await F() IsNot Nothing AndAlso flag Then`: each arm stores the spilled temporary itself and the
    # join loads it into the `If`'s: `ldarg.0; brfalse C; ldarg.1; stloc.1; br J; C: ldc.i4.0; stloc.1;
    # J: ldloc.1; stloc.0; ldloc.0; brfalse E; nop; E: ret`. The `If` counts `flag` (less the runs through the
    # constant) and `flag` is no value site of its own: 2 conditions, not 3.
    code = bytes([0x02, 0x2C, 0x04, 0x03, 0x0B, 0x2B, 0x02, 0x16, 0x0B, 0x07, 0x0A, 0x06, 0x2C, 0x01, 0x00, 0x2A])
    body = bytes([(len(code) << 2) | 2]) + code
    m = rules.RuleIL.decode(0, body)
    last = [b for b in m.branches() if b.offset == 12][0]
    assert rules.short_circuit_constants(m, last) == {1: [], 2: [(1, 2)]}
    native = {f[0]: f for f in _native.il_branch_facts(body, False, None, [])}
    assert native[12][3] == rules.short_circuit_constants(m, last)
    assert _native.il_find_value_conditions(body, [True, True], [False, True]) == []
    # The same `flag` returned, not tested, stays a value site.
    returned = bytes([0x02, 0x2C, 0x04, 0x03, 0x0B, 0x2B, 0x02, 0x16, 0x0B, 0x07, 0x2A])
    assert _native.il_find_value_conditions(bytes([(len(returned) << 2) | 2]) + returned, [True, True],
                                            [False, True]) == [3]
