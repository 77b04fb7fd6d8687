"""The HTML report: an index of every source file and one highlighted page per file.

Modelled on coverage.py's HTML report (its own code, templates, CSS and JS). Layout:

    DIR/index.html        totals and a sortable, filterable table grouped by assembly
    DIR/<name>_<hash>.html  one page per source file (hits, colours, branch notes)
    DIR/methods.html      every method: coverage, complexity, CRAP (sortable; methods.py)
    DIR/hotspots.html     the risk hotspots: methods over ReportGenerator's CRAP/complexity thresholds
    DIR/style.css, DIR/dotcov.js, DIR/.gitignore

Numbers agree with `dotcov report` because both only format the one analysis
(`dotcov.analysis.numbers`); percentages and paths come from `dotcov.reports.output`.

Output is deterministic: nothing depends on the clock, the machine or dict order,
except the `timestamp` passed in. `index.html` is removed first and written last
(atomically), so a directory with an `index.html` holds a complete report.

Speed: each file is lexed once (never per line): C# by html_csharp (native code), which
only visits the tokens that get a colour; F# and VB by Pygments, whose token stream becomes the per-line
HTML directly. Big pages are written around their rows, never held
as one string (_write_around).

A page's rows are made by native code (native/python/native_rows.cpp) as UTF-8 bytes, written as they are.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Iterable

import jinja2
from markupsafe import Markup

from dotcov import __version__
from dotcov._native import html_escape as _escape, html_line_rows
from dotcov.html import csharp as html_csharp
from dotcov.html import directory as html_dir
from dotcov.html import methods as html_methods
from dotcov.html import search as html_search
from dotcov.analysis.numbers import Analysis, FileAnalysis, Numbers
from dotcov.analysis.model import BranchCoverage, CoverageResult
from dotcov.analysis.paths import display_path, relative_path
from dotcov.reports.output import display_percent

__all__ = ["write_html", "templates_dir", "highlight_lines", "page_name"]

ASSETS = ("style.css", "dotcov.js")
METHOD_PAGES = ("methods.html", "hotspots.html")

_DIGITS = re.compile(r"(\d+)")
_SLUG = re.compile(r"[^A-Za-z0-9]+")

# Characters that must not reach the page raw: C0 controls other than tab and newline,
# DEL, and the bidirectional overrides/isolates of "Trojan Source" (CVE-2021-42574).
_ODD = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_ODD_MAP = {c: chr(0x2400 + c) for c in range(0x20) if c not in (9, 10)}
_ODD_MAP[0x7F] = "\u2421"
_ODD_MAP.update({c: "\ufffd" for c in list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))})


# --- templates -----------------------------------------------------------------

def templates_dir() -> Path:
    """The `templates/` directory: inside the installed package, or at the repository root
    (editable installs and running from a checkout)."""
    here = Path(__file__).resolve().parents[1]  # the package
    for candidate in (here / "templates", here.parents[1] / "templates"):
        if (candidate / "html" / "index.html").is_file():
            return candidate
    raise FileNotFoundError(f"dotcov's templates are missing (looked in {here / 'templates'} "
                            f"and {here.parents[1] / 'templates'})")


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir() / "html")),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # each template is read once per run, not checked on disk again at every page
    )
    env.filters["wbr"] = wrap_points
    env.filters["wbr_name"] = wrap_name
    return env


def wrap_points(path: str) -> Markup:
    """`path` escaped, with a line-break opportunity (<wbr>) after each `/`: long paths wrap between
    directories, never inside a name."""
    return Markup(_escape(path).replace("/", "/<wbr>"))


_NAME_BREAKS = re.compile(r"[.,(+/]|&lt;|&gt;")  # in escaped text


def wrap_name(name: str) -> Markup:
    """A type or method name escaped, with a line-break opportunity (<wbr>) after each `.`, `,`, `(`, `<`,
    `>`, `+` and `/`: long namespaces and generic signatures wrap between their parts, never inside a word."""
    return Markup(_NAME_BREAKS.sub(r"\g<0><wbr>", _escape(name)))


# --- highlighting --------------------------------------------------------------

_CSHARP = (".cs", ".csx")


def _normalize(text: str, path: str) -> str:
    """Line breaks as the compiler counts them become `\\n`; unsafe characters become visible."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if os.path.splitext(path)[1].lower() in (".cs", ".csx", ".vb"):
        # Roslyn also ends lines at NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR.
        text = text.replace("\x85", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    if _ODD.search(text):
        text = text.translate(_ODD_MAP)
    return text


def highlight_lines(text: str, path: str) -> list[str]:
    """The source `text` as one HTML string per line (escaped, with token spans).

    C# is coloured by html_csharp (native code, Pygments' classes for the coloured tokens); F#,
    VB and other files by Pygments. The file is lexed once; a token that spans lines (a block comment, a verbatim
    string) is split into one span per line so every line stands on its own.
    """
    return _highlight(_normalize(text, path), path)


def _highlight(text: str, path: str) -> list[str]:
    """highlight_lines of a text already normalized."""
    if os.path.splitext(path)[1].lower() in _CSHARP:
        if text.startswith("\ufeff"):  # as Pygments' Lexer.get_tokens
            text = text[1:]
        return html_csharp.lines(text)
    from dotcov.html import pygments_colours as html_pygments  # (only for F#, VB and other files: Pygments takes a while to import)

    lines = html_pygments.highlight(text, path).split("\n")
    if lines[-1] == "":  # the text ends with a line break (or is empty)
        lines.pop()
    return lines


def read_source(path: str) -> str | None:
    """The text of `path` (BOM-aware, undecodable bytes replaced), or None if it cannot be read."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return _decode(data)


def _decode(data: bytes) -> str:
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


# --- data ----------------------------------------------------------------------

def _human_key(name: str):
    return ([int(p) if p.isdigit() else p for p in _DIGITS.split(name)], name)


def page_name(display_name: str) -> str:
    """The file name of a source file's page: readable, safe, unique by a hash of the name."""
    digest = hashlib.sha1(display_name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    slug = _SLUG.sub("_", display_name).strip("_")[-80:].lstrip("_") or "file"
    return f"{slug}_{digest}.html"


@dataclass
class _File:
    path: str
    name: str  # display name (relative path, control characters as "?")
    page: str
    fc: FileAnalysis
    assemblies: list[str]
    namespaces: list[str]
    order: int = 0  # position in name order

    @property
    def branches(self) -> dict[int, BranchCoverage]:
        return self.fc.branches


def _collect(analysis: Analysis, root: str | None) -> list[_File]:
    unloaded = {a.name for a in analysis.assemblies if a.not_loaded}
    files = []
    for f in analysis.files:
        raw = relative_path(f.path, root)
        namespaces = {c.name.split("/")[0].rpartition(".")[0] or "(global)" for c in f.classes}
        files.append(_File(
            path=f.path, name=display_path(f.path, root), page=page_name(raw), fc=f,
            assemblies=sorted((a + " (not loaded)" if a in unloaded else a for a in f.assemblies), key=_human_key),
            namespaces=sorted(namespaces, key=_human_key),
        ))
    files.sort(key=lambda f: _human_key(f.name))
    for i, f in enumerate(files):
        f.order = i
    return files


# --- file pages ----------------------------------------------------------------

def _context_sets(contexts: dict[int, frozenset[str]]) -> tuple[dict[int, int], str]:
    """The page's tests once: (line -> index of its set of tests, the JSON of {"names": sorted names, "sets":
    [[name indexes]]}). Lines of one method mostly share a set, so hundreds of tests per line cost a few bytes
    a line; dotcov.js lists a set's names when its count is opened."""
    names = sorted(set().union(*contexts.values())) if contexts else []
    index = {name: i for i, name in enumerate(names)}
    sets: dict[frozenset[str], int] = {}
    by_line = {}
    for line in sorted(contexts):
        by_line[line] = sets.setdefault(contexts[line], len(sets))
    doc = {"names": names, "sets": [sorted(index[n] for n in s) for s in sets]}
    # Safe inside <script>: no `<`, `>` or `&` can end the element or start markup.
    text = json.dumps(doc, ensure_ascii=True, separators=(",", ":"))
    return by_line, text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def contexts_cell(names: frozenset[str] | None, set_index: int | None) -> str:
    """A line's tests: their count, which opens to their names (filled in by dotcov.js from the page's sets)."""
    if not names:
        return '<span class="ctx"></span>'
    n = len(names)
    return (f'<details class="ctx" data-ctx="{set_index}"><summary title="run by {n} test{"" if n == 1 else "s"}">'
            f'{n}</summary></details>')


@dataclass
class PageJob:
    """Everything a file's page shows, as plain values."""
    name: str
    path: str
    page: str
    assemblies: list[str]
    namespaces: list[str]
    stale: str | None
    numbers: Numbers
    lines: dict[int, int]
    excluded: set[int]
    not_measured: dict[int, str]
    branches: dict[int, tuple[int, int, list[str]]]  # line -> (outcomes covered, outcomes, missed outcomes' texts)
    contexts: dict[int, frozenset[str]] | None  # None unless the page lists tests
    prev_page: str | None
    next_page: str | None


def _page_job(f: _File, prev_page: str | None, next_page: str | None, contexts: bool) -> PageJob:
    fc = f.fc
    return PageJob(
        name=f.name, path=f.path, page=f.page, assemblies=f.assemblies, namespaces=f.namespaces, stale=fc.stale,
        numbers=fc.numbers, lines=fc.lines, excluded=fc.excluded, not_measured=fc.not_measured,
        branches={n: (br.covered, br.total, br.missed_outcomes) for n, br in fc.branches.items()},
        contexts=fc.contexts if contexts else None, prev_page=prev_page, next_page=next_page)


def _line_rows(numbers: Iterable[int], source: list[str] | None, job: PageJob,
               context_sets: dict[int, int] | None = None) -> bytes:
    """The rows of lines `numbers` (`source`: the page's coloured lines, None when the file cannot be read;
    `context_sets`: line -> index of its set of tests, None unless the page lists tests), joined by newlines, as
    UTF-8. Written by native/python/native_rows.cpp: a line's class, title and note come from its hits, branch
    outcomes, exclusion or reason for not being measured; a line that ran shows its tests' cell."""
    cells = None if context_sets is None else _context_cells(job.contexts, context_sets)
    return html_line_rows(numbers, source, job.lines, job.branches, job.excluded, job.not_measured, cells)


def _context_cells(contexts: dict[int, frozenset[str]], context_sets: dict[int, int]) -> dict[int, str]:
    """The tests' cell of each line some test ran, made once per set of tests."""
    by_set: dict[int, str] = {}
    cells = {}
    for line, names in contexts.items():
        if names:
            i = context_sets[line]
            cell = by_set.get(i)
            if cell is None:
                cell = by_set[i] = contexts_cell(names, i)
            cells[line] = cell
    return cells


def _write_page(path: Path, env: jinja2.Environment, job: PageJob, common: dict) -> str | None:
    """Writes the page of `job`; returns its source text as the page numbers its lines (normalized), None when
    the file cannot be read: the search index takes it from here rather than read and normalize the file again."""
    text = read_source(job.path)
    last = max((max(lines) for lines in (job.lines, job.excluded, job.branches, job.not_measured) if lines),
               default=0)  # the data's last line
    if text is None:
        source = None
        numbers: Iterable[int] = sorted(set(job.lines) | job.excluded | set(job.branches) | set(job.not_measured))
        beyond = False
    else:
        text = _normalize(text, job.path)
        source = _highlight(text, job.path)
        numbers = range(1, max(len(source), last) + 1)
        beyond = last > len(source)
    nums = job.numbers
    context_sets = contexts_json = None
    if common.get("show_contexts"):
        context_sets, contexts_json = _context_sets(job.contexts)

    def render(rows: Markup) -> str:
        return env.get_template("file.html").render(
            common,
            file=job,
            nums=nums,
            cover=display_percent(nums.percent, common["precision"]),
            branch_cover=display_percent(nums.branch_percent, common["precision"]),
            missing_source=source is None,
            beyond=beyond,
            source_lines=len(source) if source is not None else 0,
            last_line=last,
            rows=rows,
            contexts_json=Markup(contexts_json) if contexts_json is not None else None,
            prev_page=job.prev_page,
            next_page=job.next_page,
        )
    _write_around(path, render, [_line_rows(numbers, source, job, context_sets)])
    return text


def _write(path: Path, text: str) -> None:
    html_dir.write_file(path, [text.encode("utf-8", "surrogatepass")])


_BODY = Markup("\x00dotcov-body\x00")  # where a page's big part goes (no template or text makes a NUL)


def _write_around(path: Path, render, body: Iterable[str | bytes]) -> None:
    """Writes `render(_BODY)` with the pieces of `body` (str, or bytes in UTF-8) in place of _BODY, as
    `render(Markup(join(body)))` would, without ever holding the page (tens of MB for the method page at a million
    statements) as one string: each fresh megabyte costs page faults, and one page was made four times over
    (joined, made Markup, escaped, concatenated) before it was encoded."""
    head, mark, tail = render(_BODY).partition(_BODY)
    if not mark or _BODY in tail:  # not where expected: make it the plain way
        _write(path, render(Markup("".join(p if isinstance(p, str) else p.decode("utf-8", "surrogatepass")
                                           for p in body))))
        return
    html_dir.write_file(path, _encoded([head], body, [tail]))


def _encoded(*parts: Iterable[str | bytes]) -> Iterable[bytes]:
    for part in chain.from_iterable(parts):
        yield part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")


def write_pages(directory: str, jobs: list[PageJob], common: dict) -> list[str | None]:
    """Writes the file pages of `jobs` into `directory`; returns their source texts (as _write_page, in order)."""
    env = _environment()
    out = Path(directory)
    return [_write_page(out / job.page, env, job, common) for job in jobs]


# --- index ---------------------------------------------------------------------

def _format_timestamp(timestamp) -> str | None:
    if timestamp is None or timestamp == "":
        return None
    if isinstance(timestamp, (int, float)):
        timestamp = _dt.datetime.fromtimestamp(timestamp, _dt.timezone.utc)
    if isinstance(timestamp, _dt.datetime):
        if timestamp.tzinfo is None:
            return timestamp.strftime("%Y-%m-%d %H:%M:%S")
        return timestamp.strftime("%Y-%m-%d %H:%M:%S %z")
    return str(timestamp)


def _sort_number(value: float) -> str:
    return repr(round(value, 9))


def write_html(result: CoverageResult | Analysis, directory, *, title: str = "Coverage report",
               version: str = __version__, timestamp=None, relative_to: str | None = None,
               show_contexts: bool = False, precision: int = 0,
               history=None, history_options: dict | None = None, warn=None) -> Path:
    """Writes the report into `directory` (created if needed) and returns the path of its index.html.

    `relative_to` defaults to `result.source_root` (as `dotcov report`); `timestamp` (seconds
    since the epoch, a datetime, or text) is shown in the footer and is the only thing in the
    output that is not a function of `result` and the source files. `show_contexts` adds to each
    line run by tests a count of them that opens to their names (the analysis must carry them:
    results.ReportOptions.contexts).

    `history` (a directory) keeps a record of this run there and shows coverage over time on the index
    (reports/history.py; `history_options` are passed to history.update); `warn(message)` is told of history
    records that cannot be read (they are also shown on the index).
    """
    out = Path(directory)
    previous = html_dir.previous_report(out)  # refuses a directory that is not a dotcov report

    analysis = Analysis.of(result)
    root = relative_to if relative_to is not None else analysis.source_root
    files = _collect(analysis, root)
    has_branches = any(f.branches for f in files)
    common = dict(
        title=title, version=version, created=_format_timestamp(timestamp),
        has_branches=has_branches, precision=precision, warnings=analysis.warnings,
    )
    if show_contexts:
        common["show_contexts"] = True

    hist = None
    if history is not None:  # before any file is written: a history that cannot be kept stops the report
        from dotcov.reports import history as history_mod

        hist = history_mod.update(history, analysis.totals, {f.name: f.fc.numbers for f in files},
                                  **(history_options or {}))
        for w in hist.warnings if warn is not None else ():
            warn(w)
    # Every file this run writes is listed in the manifest before it is written (directory.py); the search
    # index's files are known once it is built, below.
    written = {"index.html", ".gitignore", html_dir.MANIFEST, *ASSETS, *(f.page for f in files), *METHOD_PAGES}
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.unlink(missing_ok=True)  # from here on, no index.html means "incomplete"
    html_dir.write_manifest(out, previous | written)  # a run cut short leaves only files it lists
    tdir = templates_dir() / "html"
    for asset in ASSETS:
        html_dir.write_file(out / asset, [(tdir / asset).read_bytes()])
    html_dir.write_file(out / ".gitignore", [f"{html_dir.GITIGNORE_MARK}\n*\n".encode("utf-8")])

    page_jobs = [_page_job(f, files[i - 1].page if i > 0 else None,
                           files[i + 1].page if i + 1 < len(files) else None, show_contexts)
                 for i, f in enumerate(files)]
    texts = dict(zip((job.path for job in page_jobs), write_pages(str(out), page_jobs, common)))
    methods = html_methods.method_table([(f.fc, f.name, f.page) for f in files], precision, has_branches,
                                        wrap_name)
    # The search across files (search.py): scripts the pages load when the search box is used.
    search = html_search.prepare([(f.fc, f.name, f.page, display_percent(f.fc.numbers.percent, precision))
                                  for f in files], texts.get, precision, methods.covers)
    written.update(search.names)
    html_dir.write_manifest(out, previous | written)
    search.write(out)
    index_html = _write_rest(out, analysis, files, common, hist, precision, has_branches, methods)
    tmp = out / ".index.html.tmp"
    _write(tmp, index_html)
    os.replace(tmp, index)
    html_dir.remove_stale(out, previous, written)  # pages of files no longer in the report
    html_dir.write_manifest(out, written)
    return index


def _write_rest(out: Path, analysis: Analysis, files: list[_File], common: dict, hist,
                precision: int, has_branches: bool, methods: html_methods.MethodTable) -> str:
    """Writes the method view and the risk hotspots (methods.py); returns the index page's HTML
    (written last, by write_html)."""
    env = _environment()
    for page, heading, rows in (("methods", "Methods", methods.rows), ("hotspots", "Risk hotspots", methods.hot)):
        hidden = methods.record_members if page == "methods" else sum(methods.rows[i][6] for i in rows)

        def render(rows_html, page=page, heading=heading, rows=rows, hidden=hidden):
            return env.get_template("methods.html").render(
                common, page=page, heading=heading, rows=rows, rows_html=rows_html, record_members=hidden,
                crap_threshold=html_methods.CRAP_THRESHOLD, complexity_threshold=html_methods.COMPLEXITY_THRESHOLD)
        _write_around(out / f"{page}.html", render, methods.chunks(hotspots=page == "hotspots"))

    # Index: groups by the assemblies that compile each file, files within by name.
    groups: dict[str, list[_File]] = {}
    for f in files:
        groups.setdefault(" + ".join(f.assemblies) or "(no assembly)", []).append(f)
    group_list = []
    for gi, name in enumerate(sorted(groups, key=_human_key)):
        nums = sum((f.fc.numbers for f in groups[name]), Numbers())
        group_list.append(dict(name=name, order=gi, nums=nums, rows=[_index_row(f, precision)
                                                                     for f in groups[name]],
                               cover=display_percent(nums.percent, precision),
                               branch_cover=display_percent(nums.branch_percent, precision),
                               pc=_sort_number(nums.percent), bpc=_sort_number(nums.branch_percent)))
    totals = analysis.totals
    return _environment().get_template("index.html").render(
        common, groups=group_list, totals=totals, methods=len(methods), hotspots=len(methods.hot),
        history=_history_view(hist, files, precision), warnings=[*analysis.warnings, *(hist.warnings if hist else [])],
        cover=display_percent(totals.percent, precision),
        branch_cover=display_percent(totals.branch_percent, precision),
    )


def _index_row(f: _File, precision: int) -> dict:
    nums = f.fc.numbers
    return dict(
        file=f, nums=nums,
        namespace=", ".join(f.namespaces),
        cover=display_percent(nums.percent, precision),
        branch_cover=display_percent(nums.branch_percent, precision),
        pc=_sort_number(nums.percent), bpc=_sort_number(nums.branch_percent),
        full=nums.missed == 0 and nums.partial == 0 and nums.branches_covered == nums.branches,
    )


def _history_view(hist, files: list[_File], precision: int) -> dict | None:
    """The index's history: the chart, and each file's change of line coverage since the previous run."""
    if hist is None:
        return None
    from dotcov.reports import history as history_mod

    deltas = hist.deltas
    has_previous = hist.previous is not None and hist.previous.files is not None and hist.current.files is not None
    step = max(1, precision)
    return dict(
        chart=Markup(hist.chart()), runs=len(hist.records), previous=hist.previous,
        previous_time=history_mod.shown_time(hist.previous.timestamp) if hist.previous else "",
        show_deltas=has_previous,
        deltas={f.page: _delta(deltas.get(f.name), step) for f in files} if has_previous else {},
        total_delta=_delta(hist.total_delta, step),
    )


def _delta(points: float | None, decimals: int) -> dict:
    """A change of coverage for the index: text, sort value and kind (up, down, same, new)."""
    if points is None:
        return dict(text="new", sort="0", kind="new")
    shown = round(points, decimals)
    if shown == 0:
        return dict(text="\u00b10", sort="0", kind="same")
    sign = "+" if shown > 0 else "\u2212"
    return dict(text=f"{sign}{abs(shown):.{decimals}f}", sort=_sort_number(points), kind="up" if shown > 0 else "down")
