"""Missed branch outcomes in source terms (src/dotcov/analysis/branches/notes.py)."""

from __future__ import annotations

from dotcov.analysis.branches.notes import conditions, jump_means, notes

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
    (d,) = notes("x = f(a) ? 1 : 2;", [(BRTRUE, {1: 0, 2: 1})])  # unknown sense: no guess, no IL offset
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
