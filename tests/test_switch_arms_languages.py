"""F# `match` and VB `Select Case` read as a switch (src/dotcov/analysis/branches/switch_arms.py): the decision's
line, arm labels, F# guard points passed through. The whole grouping on compiled code is proven by
tests/e2e/test_lowering_sample.py (FsLowering: `grade`, `discount`; VbLowering: `Name`, `Color`)."""

from __future__ import annotations

from dotcov.analysis.branches import switch_arms

LINES = [
    "    let grade score =",
    "        match score with // @hit",
    '        | s when s >= 90 -> "A"',
    '        | s when s >= 50 -> "B"',
    '        | _ -> failwith "no grade"',
]


def point(line: int, col: int, end_col: int) -> tuple:
    return (0, line, col, line, end_col, 1)


def test_match_line_found_above_the_guard_point():
    guard = point(3, 16, 23)  # `s >= 90`
    assert switch_arms._switch_line(LINES, guard, 3, fsharp=True) == 2
    assert switch_arms._switch_line(LINES, guard, 3) is None  # C#: no `switch` keyword


def test_arm_labels_are_the_patterns():
    assert switch_arms._label(LINES, point(3, 30, 33), 2) == "arm `s when s >= 90`"
    assert switch_arms._label(LINES, point(5, 16, 34), 2) == "arm `_`"


def test_guard_points_are_passed_only_in_fsharp():
    assert switch_arms.FS_GUARD_ARM.match(LINES[2]) and not switch_arms.FS_GUARD_ARM.match(LINES[4])


VB = [
    "    Public Function Name(k As Integer) As String",
    "        Select Case k ' @hit",
    "            Case 1 ' @hit",
    '                Return "one"',
    "            Case 2, 3",
    "            Case Else ' @miss",
]


def test_vb_select_case_line_and_case_labels():
    assert switch_arms._switch_line(VB, point(2, 9, 22), 3, vb=True) == 2
    assert switch_arms._switch_line(VB, point(2, 9, 22), 3) is None
    assert switch_arms._label(VB, point(3, 13, 19), 2, vb=True) == "`Case 1`"
    assert switch_arms._label(VB, point(5, 13, 22), 2, vb=True) == "`Case 2, 3`"
    assert switch_arms._label(VB, point(6, 13, 22), 2, vb=True) == "`Case Else`"


def test_a_file_without_the_keyword_cannot_hold_a_switch():
    """branches.analyse skips switch_arms.find for such a file: every switch line _switch_line can return has the
    keyword, so the texts above (whose switches it finds) must pass and keyword-free text must not."""
    assert switch_arms.may_hold_switches("\n".join(LINES), fsharp=True)
    assert switch_arms.may_hold_switches("\n".join(VB), vb=True)
    assert switch_arms.may_hold_switches("int F(int k)\n{\n    switch (k) { case 1: return 2; }\n}\n")
    assert not switch_arms.may_hold_switches("if (x < 0)\n    return 1;\n// switches: none\n")
    assert not switch_arms.may_hold_switches("\n".join(LINES))  # C#: `match` is not its keyword
    assert not switch_arms.may_hold_switches("\n".join(LINES), vb=True)
    assert not switch_arms.may_hold_switches("let f x = if x then 1 else 2", fsharp=True)


ABOVE = [
    "    public static string Size(int n)",
    "    {",
    "        switch (n)",
    "        {",
    '            default: return "many";',
    "        }",
    "    }",
    "",
    "    public static async IAsyncEnumerable<int> Upto(int n)",
    "    {",
    "        await Task.CompletedTask;",
]


def test_a_switch_search_never_goes_up_into_the_method_above():
    """A dispatch before a method's first point (no containing point) looks above its first arm for the keyword, but
    not at or above `floor`, the last line of the methods written above (Size ends on line 7)."""
    assert switch_arms._switch_line(ABOVE, None, 10) == 3  # (without a floor: Size's switch)
    assert switch_arms._switch_line(ABOVE, None, 10, floor=7) is None
    assert switch_arms._switch_line(ABOVE, None, 5, floor=2) == 3  # a Release switch above its method's first point
