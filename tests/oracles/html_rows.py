"""A file page's line rows stated in Python: the oracle of the product's rows (html/report.py's _line_rows, written
by native/python/native_rows.cpp) that tests/test_html_rows.py compares it with. `job` is a report.PageJob."""

from __future__ import annotations

from typing import Iterable

from dotcov.html.report import contexts_cell  # (the tests' cell: Python in the product too)


def escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def branch_text(covered: int, total: int, missed_outcomes: list[str]) -> str:
    text = f"{covered} of {total} branch outcomes taken"
    if missed_outcomes:
        text += "; missed: " + "; ".join(missed_outcomes)
    return escape(text)


def line_rows(numbers: Iterable[int], source: list[str] | None, job, context_sets: dict[int, int] | None = None) -> str:
    """The rows of lines `numbers` (`source`: the page's coloured lines, None when the file cannot be read;
    `context_sets`: line -> index of its set of tests, None unless the page lists tests), joined by newlines."""
    lines = job.lines
    contexts = job.contexts if context_sets is not None else None
    branches = job.branches
    excluded = job.excluded
    not_measured = job.not_measured
    rows = []
    nsrc = len(source) if source is not None else 0
    special = excluded or not_measured
    for n in numbers:
        hits = lines.get(n)
        br = branches.get(n)
        note = ""
        if special and n in excluded:
            cls, hits_text, title_attr = "l exc", "", ' title="excluded from coverage"'
        elif special and n in not_measured:
            cls, hits_text = "l nm", ""
            title_attr = f' title="{escape(f"not measured: {not_measured[n]}")}"'
        elif hits is None:
            cls, hits_text, title_attr = "l", "", ""
        elif hits == 0:
            cls, hits_text = "l mis", "0"
            title_attr = f' title="not run; {branch_text(*br)}"' if br else ' title="not run"'
        elif br is not None and br[0] < br[1]:
            cls, hits_text = "l par", str(hits)
            text = branch_text(*br)
            title_attr = f' title="run {hits}\u00d7; {text}"'
            note = f'<span class="note">{text}</span>'
        else:
            cls, hits_text = "l run", str(hits)
            title_attr = f' title="run {hits}\u00d7; {branch_text(*br)}"' if br else f' title="run {hits}\u00d7"'
        src = source[n - 1] if 0 < n <= nsrc else ""
        ctx = "" if contexts is None else contexts_cell(contexts.get(n) if hits else None, context_sets.get(n))
        n = str(n)
        rows.append(f'<div class="{cls}" id="L{n}"{title_attr}><a class="ln" href="#L{n}">{n}</a>'
                    f'<span class="hits">{hits_text}</span>{ctx}<span class="src">{src}{note}</span></div>')
    return "\n".join(rows)
