"""A file page's line rows (html/report.py's _line_rows, written by native/python/native_rows.cpp) are the rows
their Python statement (tests/oracles/html_rows.py) makes, byte for byte: every row kind (plain, missed, partial
with its note, excluded, not measured, the tests' cell), odd text, huge counts, pages without their source, the
samples' sources; odd values give a Python exception, never a crash."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.analysis.numbers import Numbers
from dotcov.html import report
from oracles import html_rows as oracle

REPO = Path(__file__).resolve().parents[1]

ODD = ['"', "'", "<", ">", "&", "&amp;", "é", "\u00d7", "\U0001f600", "\udc80", "\ud800", "\x00", "\u202e",
       "\ufffd", " ", "\t", "x" * 5000]


def job(lines, branches=None, excluded=None, not_measured=None, contexts=None) -> report.PageJob:
    return report.PageJob(name="A.cs", path="/src/A.cs", page="A_cs.html", assemblies=[], namespaces=[], stale=None,
                          numbers=Numbers(), lines=lines, excluded=excluded or set(),
                          not_measured=not_measured or {}, branches=branches or {}, contexts=contexts,
                          prev_page=None, next_page=None)


def both(numbers, source, j, context_sets=None) -> bytes:
    """The product's rows, checked against the oracle's."""
    expected = oracle.line_rows(numbers, source, j, context_sets).encode("utf-8", "surrogatepass")
    actual = report._line_rows(numbers, source, j, context_sets)
    assert actual == expected
    return actual


def odd_text(rnd: random.Random) -> str:
    return "".join(rnd.choice(ODD + ["a", "b", "1", ";"]) for _ in range(rnd.randrange(0, 6)))


def random_job(rnd: random.Random, size: int, contexts: bool, special: bool = True):
    """Lines of every kind (excluded and not measured ones only when `special`)."""
    lines, branches, excluded, not_measured, ctx = {}, {}, set(), {}, {}
    for n in range(-2, size + 5):
        kind = rnd.randrange(8) if special else rnd.randrange(3, 8)
        if kind == 0:
            continue
        if kind == 1:
            excluded.add(n)
        elif kind == 2:
            not_measured[n] = odd_text(rnd)
        hits = rnd.choice([0, 0, 1, 3, 255, 256, 2**31, 2**63 - 1, 2**63, 2**80, -1])
        if kind != 1 or rnd.random() < 0.5:  # (an excluded line may still have hits: exclusion wins)
            lines[n] = hits
        if rnd.random() < 0.3:
            total = rnd.randrange(0, 5)
            covered = rnd.randrange(0, total + 1)
            branches[n] = (covered, total, [odd_text(rnd) for _ in range(rnd.randrange(0, 3))])
        if contexts and rnd.random() < 0.6:
            ctx[n] = frozenset(rnd.sample(["T.A", "T.B<int>", "T.\"C\"", "T.é"], rnd.randrange(0, 4)))
    return job(lines, branches, excluded, not_measured, ctx if contexts else None)


@pytest.mark.parametrize("seed", range(40))
def test_random_pages_give_the_oracles_rows(seed):
    rnd = random.Random(seed)
    size = rnd.randrange(0, 60)
    contexts = seed % 3 == 0
    j = random_job(rnd, size, contexts, special=seed % 4 != 1)
    context_sets = report._context_sets(j.contexts)[0] if contexts else None
    source = [odd_text(rnd) for _ in range(size)]
    both(range(1, size + 8), source, j, context_sets)
    # Without the source: the data's lines, any numbers they have (zero, negative, past any source).
    data_lines = sorted(set(j.lines) | j.excluded | set(j.branches) | set(j.not_measured))
    both(data_lines, None, j, context_sets)
    both(data_lines, source, j, context_sets)


def test_every_row_kind():
    branches = {2: (1, 2, ["'a' < \"b\" & c"]), 3: (2, 2, []), 4: (0, 2, ["x", "y"]), 7: (0, 1, ["é"])}
    j = job({1: 0, 2: 5, 3: 2**70, 4: 0, 5: None, 6: 1, 8: 3, 9: 1},
            branches, excluded={6}, not_measured={8: "a <dynamic> 'method'"},
            contexts={1: frozenset({"T.A"}), 2: frozenset({"T.A", "T.B"}), 9: frozenset(), 3: frozenset({"T.A"})})
    source = ['<span class="k">int</span>', "é \U0001f600", "", "&amp;", "x" * 100_000]
    rows = both(range(1, 11), source, j).decode("utf-8")
    assert '<div class="l par" id="L2" title="run 5\u00d7; 1 of 2 branch outcomes taken; missed: &#39;a&#39; ' \
           '&lt; &quot;b&quot; &amp; c">' in rows
    assert '<span class="note">1 of 2 branch outcomes taken; missed: &#39;a&#39;' in rows
    assert 'id="L3" title="run 1180591620717411303424\u00d7; 2 of 2 branch outcomes taken"' in rows
    assert 'class="l exc" id="L6" title="excluded from coverage"' in rows
    assert 'class="l nm" id="L8" title="not measured: a &lt;dynamic&gt; &#39;method&#39;"' in rows
    assert '<div class="l" id="L7"><a class="ln" href="#L7">7</a><span class="hits"></span>' in rows
    context_sets = report._context_sets(j.contexts)[0]
    rows = both(range(1, 11), source, j, context_sets).decode("utf-8")
    assert rows.count('<details class="ctx"') == 2  # lines 2 and 3: run, with tests (line 1 did not run)
    assert rows.count('<span class="ctx"></span>') == 8


def test_the_samples_sources():
    rnd = random.Random(7)
    paths = sorted(p for ext in ("*.cs", "*.fs", "*.vb") for p in (REPO / "samples").rglob(ext)
                   if "obj" not in p.parts and "bin" not in p.parts)
    assert len(paths) > 20
    for path in paths:
        source = report.highlight_lines(report.read_source(str(path)), str(path))
        j = random_job(rnd, len(source), contexts=False, special=rnd.random() < 0.5)
        both(range(1, len(source) + 1), source, j)


def test_escape_is_the_oracles():
    rnd = random.Random(3)
    for _ in range(500):
        text = odd_text(rnd)
        assert report._escape(text) == oracle.escape(text)
    assert report._escape("a\udc80<") == "a\udc80&lt;"


@pytest.mark.parametrize("bad", [
    dict(branches={1: (1, 2)}),  # not three values
    dict(branches={1: (1, 2, [3])}),  # a missed outcome that is not text
    dict(branches={1: (1, 2, 5)}),  # missed outcomes that are not a list
    dict(numbers=["1"]),  # a line number that is not an int
    dict(source=5),  # a source that is not a list of lines
    dict(source=[1.5]),  # (formatted as an f-string would: no error)
])
def test_odd_values_raise_python_errors_not_crash(bad):
    j = job({1: 1}, bad.get("branches"))
    numbers, source = bad.get("numbers", range(1, 2)), bad.get("source", ["x"])
    try:
        expected = oracle.line_rows(numbers, source, j).encode()
    except (TypeError, ValueError):
        with pytest.raises((TypeError, ValueError)):
            report._line_rows(numbers, source, j)
    else:
        assert report._line_rows(numbers, source, j) == expected
    both(range(1, 3), ["a", "b"], job({1: 0, 2: 1}))  # and the next page is made as ever


def test_escape_is_markupsafes_rule():
    """The rows' escaping is the one Jinja's autoescape applies around them (markupsafe's), spelling `"` as
    `&quot;` as the file pages always have."""
    from markupsafe import escape

    rnd = random.Random(7)
    for text in ODD + [odd_text(rnd) for _ in range(2000)]:
        assert _native.html_escape(text) == str(escape(text)).replace("&#34;", "&quot;")


def test_escape_takes_only_text():
    with pytest.raises(TypeError):
        _native.html_escape(5)


def test_python_code_run_by_a_row_may_make_rows_or_change_the_source():
    class MakesRows:  # formatting it makes another page's rows (the rows' own buffer is in use)
        def __format__(self, spec):
            both(range(1, 3), ["a", "<b>"], job({1: 1, 2: 0}))
            return "<made>"

    both(range(1, 4), ["x", MakesRows(), "y"], job({1: 1, 2: 2, 3: 0}))

    source = ["x"] * 5

    class Shrinks:  # formatting it empties the source list: the later rows have no text, no crash
        def __format__(self, spec):
            source.clear()
            return "s"

    source[1] = Shrinks()
    rows = report._line_rows(range(1, 6), source, job({n: 1 for n in range(1, 6)})).decode()
    assert rows.count('<span class="src">x</span>') == 1 and '<span class="src">s</span>' in rows


def test_lines_held_in_other_ways_are_looked_up_as_python_does():
    from types import MappingProxyType

    source = ["a", "b", "c"]
    both(range(1, 4), source, job({1.0: 3, 2: 0, True: 7}))  # keys equal to a line's int but not ints
    both(range(1, 4), source, job(MappingProxyType({1: 3, 3: 0}), MappingProxyType({1: (1, 2, ["x"])})))
    both(range(1, 100_000), None, job({5: 1, 99_998: 0}))  # far more lines than the data has
    both(range(-3, 5), source, job({-1: 2, 0: 0, 2: None, 4: 1}, {2: None, 4: (0, 1, [])}))
