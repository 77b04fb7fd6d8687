"""The line rule (src/dotcov/analysis/lines.py): which lines are statements and with which hits, on the shapes of
docs/accuracy.md and on random nested spans (Hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dotcov.analysis.lines import (CodeFreeLines, Span, code_free_lines, deciding_points, generated_member,
                                   lambda_body_openings, line_hits)

FIELD_LAMBDA = """\
public static readonly Func<string, int> NeverCalled = s =>
{
    var t = s.Trim();

    // a comment inside the lambda
    return t.Length * 2;
};
"""


def test_lambda_in_a_field_initializer_that_never_ran_is_missed():
    # Debug: the initializer (static constructor) spans lines 1-7 and ran once; the lambda's own points
    # (`{`, two statements, `}`) never ran.
    outer = Span(1, 5, 7, 6, 1)
    inner = [Span(2, 5, 2, 6, 0), Span(3, 9, 3, 26, 0), Span(6, 9, 6, 29, 0), Span(7, 5, 7, 6, 0)]
    free = code_free_lines(FIELD_LAMBDA, ".cs")
    assert line_hits([outer, *inner], free) == {1: 1, 2: 0, 3: 0, 6: 0, 7: 0}
    # Release: no points on the lambda's braces; `{` and `};` hold no code of their own.
    assert line_hits([outer, inner[1], inner[2]], free) == {1: 1, 3: 0, 6: 0}
    # Without the source, blank and comment lines inside the initializer take the innermost hits.
    assert line_hits([outer, inner[1], inner[2]]) == {1: 1, 2: 1, 3: 0, 4: 1, 5: 1, 6: 0, 7: 1}


def test_counts_inside_a_lambda_are_the_lambdas_own():
    outer = Span(1, 5, 4, 6, 1)
    body = Span(2, 9, 2, 20, 7)
    assert line_hits([outer, body]) == {1: 1, 2: 7, 3: 1, 4: 1}


def test_switch_expression_arms_decide_their_lines():
    text = "=> k switch\n{\n    1 => a,\n    _ => throw X(),\n};\n"
    # Debug: the whole expression twice on line 1 (the second is jumped over), one point per arm.
    spans = [Span(1, 4, 5, 2, 2), Span(1, 6, 5, 2, 0), Span(3, 10, 3, 11, 2), Span(4, 10, 4, 20, 0),
             Span(1, 4, 5, 2, 0)]
    assert line_hits(spans, code_free_lines(text, ".cs")) == {1: 2, 3: 2, 4: 0}
    # Columns do not pick the innermost of points starting on the same line: the most hits wins.
    assert line_hits(spans)[2] == 2


LAMBDA_ON_THE_STATEMENTS_LINE = """\
return Register(args => selector(
    Unpack(args, 0),
    Unpack(args, 1)));
"""
M, LAMBDA = 0x06000001, 0x06000002  # the method holding the statement, and its lambda


def test_a_lambda_starting_on_its_statements_line_decides_the_continuation_lines():
    # The statement (M) ran; the lambda's body, another method's point starting on the same line inside the
    # statement's span, never did: its continuation lines are the lambda's, missed.
    free = code_free_lines(LAMBDA_ON_THE_STATEMENTS_LINE, ".cs")
    statement, body = Span(1, 9, 3, 31, 1, M), Span(1, 33, 3, 29, 0, LAMBDA)
    assert line_hits([statement, body], free) == {1: 1, 2: 0, 3: 0}
    assert line_hits([statement, Span(1, 33, 3, 29, 4, LAMBDA)], free) == {1: 4, 2: 4, 3: 4}
    # A conditional lambda whose arms sit on continuation lines (`args.Length > 0` / `? args[0]` / `: -1`).
    assert line_hits([statement, Span(1, 33, 3, 18, 0, LAMBDA)], free) == {1: 1, 2: 0, 3: 0}
    # Points of one method starting on one line: the most hits, as before (a Debug switch expression's two).
    assert line_hits([statement, Span(1, 33, 3, 29, 0, M)], free) == {1: 1, 2: 1, 3: 1}


BLOCK_LAMBDA = """\
public static readonly Func<int, int> CountDown = n =>
{
    int count;
    count = 0;
    do
    {
        count++;
    }
    while (--n > 0);
    return count;
};
"""


def test_code_without_a_point_inside_a_block_lambda_is_no_statement():
    free = code_free_lines(BLOCK_LAMBDA, ".cs")
    initializer = Span(1, 5, 11, 7, 1, M)  # (a point of the static constructor, which ran)
    # Debug: the lambda (never run) has points on its braces and statements; `int count;` and `do` have none.
    body = [Span(2, 5, 2, 6, 0, LAMBDA), Span(4, 5, 4, 15, 0, LAMBDA), Span(6, 5, 6, 6, 0, LAMBDA),
            Span(7, 9, 7, 17, 0, LAMBDA), Span(8, 5, 8, 6, 0, LAMBDA), Span(9, 5, 9, 21, 0, LAMBDA),
            Span(10, 5, 10, 18, 0, LAMBDA), Span(11, 1, 11, 2, 0, LAMBDA)]
    assert line_hits([initializer, *body], free) == {1: 1, 2: 0, 4: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0}
    # Release: no points on the braces; `do` lies between the lambda's first and last points: no statement. So is
    # `int count;` before the lambda's first point, after the `{` that opens its body (found in the source text).
    release = [body[1], body[3], body[5], body[6]]
    assert line_hits([initializer, *release], CodeFreeLines(BLOCK_LAMBDA, ".cs")) == {1: 1, 4: 0, 7: 0, 9: 0, 10: 0}
    # (Without the text only the points speak: `int count;` takes the initializer's hits.)
    assert line_hits([initializer, *release], free) == {1: 1, 3: 1, 4: 0, 7: 0, 9: 0, 10: 0}
    # Without the lambda's method the initializer's span decides (the rule before: `do` covered).
    assert line_hits([initializer, *(Span(s.start_line, s.start_column, s.end_line, s.end_column, 0, M)
                                     for s in release)], free)[5] == 1


LAMBDA_DICTIONARY = """\
public static readonly Dictionary<string, Func<int, int>> Named = new()
{
    ["twice"] = x =>
    {
        int count;
        count = x * 2;
        return count;
    },
    ["negate"] = x =>
    {
        int count;
        count = -x;
        return count;
    },
    ["=> {"] = /* => { */
        x =>
            x + 1,
};
"""
# Release points of LAMBDA_DICTIONARY: the initializer (ran), "twice" (ran twice), "negate" and the last (never).
DICTIONARY_POINTS = [Span(1, 5, 18, 3, 1, M), Span(6, 9, 6, 23, 2, LAMBDA), Span(7, 9, 7, 22, 2, LAMBDA),
                     Span(12, 9, 12, 20, 0, LAMBDA + 1), Span(13, 9, 13, 22, 0, LAMBDA + 1),
                     Span(17, 13, 17, 18, 0, LAMBDA + 2)]


def test_code_first_in_a_release_block_lambda_is_the_lambdas_and_the_initializers_own_code_is_not():
    # `int count;` (5, 11) lies after the `{` opening its lambda's body and before the lambda's first point: no
    # statement. `["negate"] = x =>` (9) and the lines before an expression lambda's body (15-16) are the
    # initializer's code: its hits. `=> {` in a comment or a string opens nothing.
    got = line_hits(DICTIONARY_POINTS, CodeFreeLines(LAMBDA_DICTIONARY, ".cs"))
    assert got == {1: 1, 3: 1, 6: 2, 7: 2, 9: 1, 12: 0, 13: 0, 15: 1, 16: 1, 17: 0}
    # Points alone cannot tell line 5 from line 9: both take the initializer's hits.
    assert line_hits(DICTIONARY_POINTS, code_free_lines(LAMBDA_DICTIONARY, ".cs"))[5] == 1


def test_lambda_body_openings_are_found_in_code_only():
    assert lambda_body_openings(LAMBDA_DICTIONARY, ".cs") == [(4, 5), (10, 5)]
    assert lambda_body_openings('var s = "=> {"; // => {\nF(x => { return x; });\n', ".cs") == [(2, 8)]
    vb = ("Public ReadOnly F As Func(Of Integer, Integer) = Function(n) ' Function(x)\n"
          "    Dim count As Integer\n"
          "End Function\n"
          "G = Function(x As Integer) As Integer\n"
          "H = Function(x) x + 1\n"
          "Dim s = \"Sub(a)\"\n")
    assert lambda_body_openings(vb, ".vb") == [(1, 60), (4, 26)]
    assert lambda_body_openings("let f = fun x ->\n    x\n", ".fs") == []


def test_an_initializer_shared_by_constructors_is_no_function_inside_itself():
    # A field initializer is a point of each constructor (two methods, one span): neither owns the other's lines.
    a, b = Span(1, 5, 3, 7, 1, M), Span(1, 5, 3, 7, 0, M + 1)
    assert line_hits([a, b]) == {1: 1, 2: 1, 3: 1}


def test_query_clause_never_reached_is_missed():
    spans = [Span(1, 9, 3, 36, 1), Span(2, 29, 2, 34, 3), Span(3, 30, 3, 35, 0)]
    assert line_hits(spans) == {1: 1, 2: 3, 3: 0}


def test_multi_line_call_with_blank_and_comment_lines():
    text = "var total = Add(\n    a,\n\n    // the middle one\n    b,\n    /* the last */\n    c);\n"
    spans = [Span(1, 9, 7, 16, 1)]
    assert line_hits(spans, code_free_lines(text, ".cs")) == {1: 1, 2: 1, 5: 1, 7: 1}


def test_code_free_lines_by_language():
    cs = 'var s = "// not a comment";\n/* a\n   block */\n#region x\n  } ;\nx(); // c\n'
    assert code_free_lines(cs, ".cs") == {2, 3, 4, 5}
    assert code_free_lines("let x = 1\n(* a\n b *)\n// c\n  [\n  ]\n  (fun x ->\n", ".fs") == {2, 3, 4, 5, 6}
    assert code_free_lines("Dim x = 1\n' comment\n\n", ".vb") == {2, 3}
    assert code_free_lines("x\n\n  \ny\n", ".txt") == {2, 3}  # unknown language: blank lines only


def test_directives_pygments_does_not_know_are_code_free():
    text = "a();\n#nullable disable\n  #nullable restore\nvar x = y # z;\n"
    assert code_free_lines(text, ".cs", lex=True) == code_free_lines(text, ".cs") == {2, 3}
    assert code_free_lines("/* c */\n" + text, ".cs") == {1, 3, 4}


def test_line_by_line_shortcut_agrees_with_the_lexer():
    from pathlib import Path

    samples = Path(__file__).resolve().parents[1] / "samples"
    sources = [p for ext in ("*.cs", "*.fs") for p in samples.rglob(ext) if "obj" not in p.parts and "bin" not in p.parts]
    assert len(sources) > 10
    for src in sources:
        text = src.read_text(encoding="utf-8-sig")
        assert code_free_lines(text, src.suffix) == code_free_lines(text, src.suffix, lex=True), src
    tricky = "a();\n  }; // x\n#region r\n  ( [ ] ) ,\nvar c = '{';\n  /// doc\n"
    assert code_free_lines(tricky, ".cs") == code_free_lines(tricky, ".cs", lex=True) == {2, 3, 4, 6}


def test_record_copy_constructor_is_generated_but_lambdas_are_not():
    cg = ["System.Runtime.CompilerServices.CompilerGeneratedAttribute"]
    assert generated_member(".ctor", cg)
    assert not generated_member(".ctor", [])  # the primary constructor
    assert not generated_member("<.ctor>b__0_0", cg)  # a lambda in a constructor
    assert not generated_member("get_Name", cg)  # an auto-property accessor (--skip-auto-properties)


@st.composite
def nested_spans(draw):
    spans = []
    for _ in range(draw(st.integers(1, 12))):
        start = draw(st.integers(1, 30))
        end = start + draw(st.integers(0, 8))
        col = draw(st.integers(1, 40))
        spans.append(Span(start, col, end, col + 1 if end == start else draw(st.integers(1, 40)),
                          draw(st.integers(0, 5))))
    return spans


@settings(max_examples=300, deadline=None)
@given(nested_spans(), st.sets(st.integers(1, 40)))
def test_properties_of_the_rule(spans, free):
    got = line_hits(spans, free)
    starts = {s.start_line for s in spans}
    for line, hits in got.items():
        spanning = [s for s in spans if s.start_line <= line <= s.end_line]
        assert spanning, line  # only lines some point spans
        assert hits in {s.hits for s in spanning}  # never an invented count
        if line in starts:  # decided by the points that start on it, whatever encloses it
            assert hits == max(s.hits for s in spans if s.start_line == line)
        else:
            assert line not in free  # blank/comment/bracket lines are statements only where a point starts
            innermost = max(s.start_line for s in spanning)
            assert hits == max(s.hits for s in spanning if s.start_line == innermost)
    # Every line a point starts on is a statement; every spanned code line too.
    assert starts <= set(got)
    assert {n for s in spans for n in range(s.start_line, s.end_line + 1)} - free <= set(got)
    # The order of the points does not matter.
    shuffled = list(spans)
    random.Random(len(spans)).shuffle(shuffled)
    assert line_hits(shuffled, free) == got
    # A point's own hits decide its start line: an enclosing point that ran never covers a line whose own
    # code did not.
    for line in starts:
        assert (got[line] == 0) == all(s.hits == 0 for s in spans if s.start_line == line)


@settings(max_examples=300, deadline=None)
@given(nested_spans(), st.lists(st.integers(0, 3), min_size=12, max_size=12), st.sets(st.integers(1, 40)))
def test_properties_of_functions_written_inside_a_point(spans, methods, free):
    spans = [Span(s.start_line, s.start_column, s.end_line, s.end_column, s.hits, methods[i])
             for i, s in enumerate(spans)]
    got = deciding_points(spans, free)
    starts = {s.start_line for s in spans}
    for line, ix in got.items():
        if line in starts:  # rule 1 whatever the methods
            assert ix == [i for i, s in enumerate(spans) if s.start_line == line]
            continue
        for i in ix:
            s = spans[i]
            assert s.start_line < line <= s.end_line
            # No function written inside the deciding point reaches over this line.
            for m in {t.method_token for t in spans} - {s.method_token}:
                own = [t for t in spans if t.method_token == m]
                first = min((t.start_line, t.start_column) for t in own)
                last = max((t.end_line, t.end_column) for t in own)
                inside = (s.start_line, s.start_column) <= first and last <= (s.end_line, s.end_column)
                assert not (inside and (first, last) != ((s.start_line, s.start_column), (s.end_line, s.end_column))
                            and first[0] <= line <= last[0])
    # One method: the rule without methods.
    assert deciding_points([Span(s.start_line, s.start_column, s.end_line, s.end_column, s.hits, 7)
                            for s in spans], free) == deciding_points(
        [Span(s.start_line, s.start_column, s.end_line, s.end_column, s.hits) for s in spans], free)


def test_deciding_points_name_the_points():
    spans = [Span(1, 1, 3, 2, 1), Span(2, 5, 2, 9, 0)]
    assert deciding_points(spans) == {1: [0], 2: [1], 3: [0]}


def test_code_free_lines_asked_line_by_line_agree_with_the_set():
    from dotcov.analysis.lines import CodeFreeLines

    texts = [('var s = "// not a comment";\n/* a\n   block */\n#region x\n  } ;\nx(); // c\n', ".cs"),
             ("a();\n  }; // x\n#region r\n  ( [ ] ) ,\nvar c = '{';\n  /// doc\n", ".cs"),
             ("let x = 1\n(* a\n b *)\n// c\n  [\n  ]\n  (fun x ->\n", ".fs"),
             ("let x = 1\n// c\n  [\n  ]\n", ".FS"),
             ("Dim x = 1\n' comment\n\n", ".vb"),
             ("x\n\n  \ny\n", ".txt")]
    for text, suffix in texts:
        free = CodeFreeLines(text, suffix)
        expected = code_free_lines(text, suffix)
        assert expected, text
        assert {n for n in range(-1, text.count("\n") + 3) if n in free} == expected, (text, suffix)
        assert "1" not in free
