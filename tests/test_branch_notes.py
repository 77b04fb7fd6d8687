"""Missed branch outcomes in source terms (src/dotcov/analysis/branches/notes.py)."""

from __future__ import annotations

from dotcov.analysis.branches.analyse import BranchRecord, _Sources
from dotcov.analysis.branches.il import MethodIL
from dotcov.analysis.branches.notes import conditions, jump_means, notes, null_test, jumps_on_reference
from dotcov.analysis.branches.switch_arms import _arm_pattern

BRTRUE, BRFALSE, BLT, BGE, BLE = 0x2D, 0x2C, 0x32, 0x2F, 0x31


def test_conditions_split_at_top_level_or_and_and():
    assert conditions("if (w < 0 || h < 0)") == ["w < 0", "h < 0"]
    # A parenthesised `&&`/`||` is conditions of the statement too (each gets its outcomes); a call's arguments not.
    assert conditions("while ((a && b) || f(x, y || z))") == ["a", "b", "f(x, y || z)"]
    assert conditions("if (x < 0 && (flag || g))") == ["x < 0", "flag", "g"]
    assert conditions("return !(a || b);") == ["!(a || b)"]
    assert conditions("return s ?? \"none\";") == ["s ?? \"none\""]


def test_jump_sense_from_the_instruction_and_the_source_operator():
    assert jump_means(BLT, "w < 0") is True  # Release `w < 0 ||`: jump to `then` when true
    assert jump_means(BGE, "h < 0") is False  # Release: branch around `then` when false
    assert jump_means(BRFALSE, "x > 0") is False  # Debug: `cgt; stloc; ldloc; brfalse`
    assert jump_means(BRTRUE, "!done") is False
    assert jump_means(BLE, "0 < x") is None or jump_means(BLE, "0 < x") is False  # never a wrong "true"


def test_notes_name_the_condition_and_the_outcome():
    (a, b) = notes("if (w < 0 || h < 0)", [(BLT, {1: 1, 2: 1}), (BGE, {1: 0, 2: 1})])
    assert b[1] == "`h < 0` never true" and a[2] == "`w < 0` never true"
    (d,) = notes("return name ?? \"none\";", [(BRTRUE, {1: 0, 2: 3})])
    assert d[1] == "`??` right side never used"
    (d,) = notes("return s?.Length ?? 0;", [(BRTRUE, {1: 0, 2: 1})])
    assert d[1] == "`?.` receiver never null (`??` right side never used)"
    (d,) = notes("in", [(BRTRUE, {1: 1, 2: 0})])
    assert d[2] == "`foreach` never iterated (always empty)"
    (d,) = notes("x = (a ?? b).Ok;", [(BRFALSE, {1: 0, 2: 1})])  # unknown sense: no guess, no IL offset
    assert "IL_" not in d[1] and "one outcome never happened" in d[1]


def test_conditions_of_assignments_filters_and_patterns():
    assert conditions("bool b = x < 0 && y < 0;") == ["x < 0", "y < 0"]
    assert conditions("var ok = s is null || s.Length == 0;") == ["s is null", "s.Length == 0"]
    assert conditions("when (e.Code == 3)") == ["e.Code == 3"]
    assert conditions("x is > 0 and < 10") == ["x is > 0", "< 10"]
    assert conditions("done = a == b;") == ["a == b"]
    assert conditions("var s = brand or model;") == ["brand or model"]  # no `is`: not a pattern


def test_notes_of_a_value_condition_read_like_brtrue():
    # A value probe's outcomes (branches.value_hits): 1 = the value was false, 2 = true.
    (a, b) = notes("bool b = x < 0 && y < 0;", [(BGE, {1: 1, 2: 2}), (BRTRUE, {1: 0, 2: 1})])
    assert b[1] == "`y < 0` never false" and b[2] == "`y < 0` never true"
    (d,) = notes("when (e.Code == 3)", [(BRTRUE, {1: 0, 2: 1})])
    assert d[1] == "`e.Code == 3` never false"
    (e,) = notes("s.EndsWith('z')", [(BRTRUE, {1: 0, 2: 1})])
    assert e[1] == "`s.EndsWith('z')` never false"


def test_a_negation_computed_into_the_tested_value_keeps_its_sense():
    # Release `ldarg done; brtrue` (jumps when `!done` is false) against Debug `ldc.i4.0; ceq; ...; brfalse`
    # on the computed `!done` (also jumps when it is false): the same sense, found two ways.
    assert jump_means(BRTRUE, "!done") is False
    assert jump_means(BRFALSE, "!done", tests_written_value=True) is False
    assert jump_means(BRFALSE, "!done") is True  # the Release reading, wrong for Debug's computed value
    # Humanizer FixedNumberOfWordsTruncator.cs:42 `if (!lastCharactersWasWhiteSpace)`: the body ran every time.
    (d,) = notes("if (!last)", [(BRFALSE, {1: 24, 2: 0}, True)])
    assert d[2] == "`!last` never false"
    (d,) = notes("if (!last)", [(BRTRUE, {1: 24, 2: 0})])  # Release: fall-through = `last` false = `!last` true
    assert d[2] == "`!last` never false"
    # A value probe's outcomes are the written condition's values (2 = true), `!` included.
    (a, b) = notes("return n > 0 && !seen;", [(BRFALSE, {1: 3, 2: 2}), (BRTRUE_S, {1: 0, 2: 3}, True)])
    assert b[1] == "`!seen` never false"


BRTRUE_S = 0x2D


def test_a_conditional_operator_names_its_condition_and_the_value_never_seen():
    # (issue 25 item 4: "one outcome never happened (same value every time)" without saying which)
    assert conditions("x = f(a) ? 1 : 2;") == ["f(a)"]
    assert conditions("return a && b ? x : y;") == ["a", "b"]
    assert conditions("var z = c ? (p || q) : r;") == ["c", "p", "q"]  # an arm's own short circuit
    assert conditions("var s = ok ? \"a ? b : c\" : d;") == ["ok"]  # a `?` inside a string is no operator
    assert conditions("int? n = s?.Length;") == ["s?.Length"]  # nullable type, `?.`: no `?:`
    assert conditions("var t = x ?? y;") == ["x ?? y"]
    (d,) = notes("x = f(a) ? 1 : 2;", [(BRTRUE, {1: 0, 2: 1})])
    assert d == {2: "`f(a)` never true", 1: "`f(a)` never false"}
    (d,) = notes("var sign = x < 0 ? -1 : 1;", [(BGE, {1: 4, 2: 0})])
    assert d[2] == "`x < 0` never false"


def test_the_right_operand_never_evaluated_is_named_alone():
    # `a || b` with `a` always true: `b`'s branch has no outcome at all. The note names `b`, not the statement.
    (a, b) = notes("if (a || b)", [(BRTRUE, {1: 0, 2: 5}), (BRFALSE, {1: 0, 2: 0})])
    r = BranchRecord(0x06000001, 8, "x.cs", 3, {1: 0, 2: 0}, text="if (a || b)", notes=b)
    assert r.missed() == ["`b` never evaluated"]
    assert a[1] == "`a` never false"
    # One condition: the statement itself never ran.
    (d,) = notes("if (a)", [(BRTRUE, {1: 0, 2: 0})])
    r = BranchRecord(0x06000001, 8, "x.cs", 3, {1: 0, 2: 0}, text="if (a)", notes=d)
    assert r.missed() == ["`if (a)`: never evaluated"]


def test_a_multi_line_condition_is_read_whole_and_named(tmp_path):
    # A point over three lines: its text is the lines joined, comments dropped (a `//` inside a string kept).
    src = tmp_path / "Orders.cs"
    src.write_text("class C {\n    void M() {\n        if (order.Total > 100 && // big\n"
                   "            order.Customer.IsNew\n            || url == \"http://x\")\n")
    joined = _Sources().slice(str(src), (0, 3, 9, 5, 35, 1))
    assert joined == "if (order.Total > 100 && order.Customer.IsNew || url == \"http://x\")"
    (a, b, c) = notes(joined, [(0x2C, {1: 1, 2: 1}), (BRTRUE, {1: 1, 2: 1}), (BRFALSE, {1: 1, 2: 0})])
    assert c[2] == "`url == \"http://x\"` never false"  # not "this line (condition 3 of 3)"
    assert a[1] == "`order.Total > 100` never true"
    vb = tmp_path / "Orders.vb"
    vb.write_text("        If total > 100 AndAlso _ ' big\n           isNew Then\n")
    assert _Sources().slice(str(vb), (0, 1, 9, 2, 17, 1)) == "If total > 100 AndAlso isNew"


def test_a_switch_expression_arm_is_named_by_its_whole_pattern():
    lines = ["    return e switch",
             "    {",
             "        PaymentException { Code: 402 } => \"pay\",",
             "        PaymentException { Code: var c, Retry: true } when c > 500",
             "            => \"retry\", // comment, with a comma",
             "        (int x, int y) => \"pair\",",
             "        _ => \"other\",",
             "    };"]
    assert _arm_pattern(lines, 3, lines[2].index('"pay"') + 1, 1) == "PaymentException { Code: 402 }"
    assert _arm_pattern(lines, 5, lines[4].index('"retry"') + 1, 1) == \
        "PaymentException { Code: var c, Retry: true } when c > 500"
    assert _arm_pattern(lines, 6, lines[5].index('"pair"') + 1, 1) == "(int x, int y)"
    assert _arm_pattern(lines, 7, lines[6].index('"other"') + 1, 1) == "_"
    assert _arm_pattern(lines, 2, 5, 1) is None  # no `=>` before the point: not an arm's expression


def test_a_null_test_jumping_on_the_reference_reads_the_reference():
    # Debug `if (a == null || n > 3)`: `ldarg a; brfalse` jumps when `a` is null, i.e. when `a == null` is true;
    # `if (a == null)` alone: `ldarg a; ldnull; ceq; stloc; ldloc; brfalse` jumps when the computed value is false.
    assert null_test("a == null") is True and null_test("null != a.B") is False
    assert null_test("s is not null") is False and null_test("x Is Nothing") is True
    assert null_test("a == b") is None and null_test("x ?? null") is None
    assert jump_means(BRFALSE, "a == null", tests_ref=True) is True
    assert jump_means(BRTRUE, "a == null", tests_ref=True) is False  # Release `ldarg a; brtrue` around the body
    assert jump_means(BRFALSE, "a == null") is False
    (a, b) = notes("if (a == null || n > 3)", [(BRFALSE, {1: 0, 2: 2}, False, True), (BLE, {1: 0, 2: 0})])
    assert a[1] == "`a == null` never false" and b[0] == "`n > 3` never evaluated"


def il(*instructions) -> MethodIL:
    offsets = range(0, 2 * len(instructions), 2)
    return MethodIL(1, [(o, op, arg) for o, (op, arg) in zip(offsets, instructions)])


def test_which_null_tests_test_the_reference_itself():
    LDARG_0, LDNULL, CEQ, STLOC_0, LDLOC_0, LDC_I4_1, CALL = 0x02, 0x14, 0xFE01, 0x0A, 0x06, 0x17, 0x28
    assert jumps_on_reference(il((LDARG_0, None), (BRFALSE, 8)), 2)  # `a == null ||` as a jump
    assert jumps_on_reference(il((CALL, 1), (STLOC_0, None), (LDLOC_0, None), (BRTRUE, 8)), 6)  # a call's result
    assert not jumps_on_reference(il((LDARG_0, None), (LDNULL, None), (CEQ, None), (STLOC_0, None), (LDLOC_0, None),
                                  (BRFALSE, 8)), 10)  # Debug `if (a == null)`: the comparison's value
    assert not jumps_on_reference(il((LDC_I4_1, None), (STLOC_0, None), (LDLOC_0, None), (BRFALSE, 8)), 6)  # a join
