"""dotcov's own JSON report: everything the model holds, in a documented, versioned schema.

The schema is described in docs/json-format.md. In short:

    {"format": "dotcov-json", "format_version": 1,
     "meta": {...}, "totals": {summary}, "files": [{path, summary, missing}],
     "assemblies": [{name, summary, files: [{path, summary, lines, branches, excluded_lines,
                     classes: [{name, summary, lines, methods: [{name, signature, token, first_line,
                                hits, summary, lines, points: [...]}]}]}]}]}

* `totals` and the top-level `files` are the terminal table's TOTAL and rows (a file compiled into
  several assemblies counted once, its hits added), so the numbers always agree with `dotcov report`.
* `assemblies` is the detail, each assembly's own view of its files (as Cobertura's packages).
* Key order is fixed (the order documented), lists are sorted, line maps are ordered by line
  number and the timestamp is the data's, so the same data always gives the same bytes.

Every number comes from the one analysis (analysis/numbers.py); this module only lays it out.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from json.encoder import encode_basestring
from operator import attrgetter
from pathlib import PurePath

from dotcov.analysis.numbers import Analysis, FileAnalysis, MethodAnalysis, Numbers, merge_classes
from dotcov.analysis.model import BranchCoverage, CoverageResult, PointCoverage
from dotcov.analysis.paths import relative_path
from dotcov.reports.output import without_surrogates, write_atomic

__all__ = ["FORMAT", "FORMAT_VERSION", "json_report", "json_text", "write_json", "merge_classes"]

FORMAT = "dotcov-json"
FORMAT_VERSION = 1


# --- the document -------------------------------------------------------------------------------

_clean = without_surrogates


def _summary(n: Numbers, *, files: bool = False) -> dict:
    """A summary object; `files` (file, assembly and total level) adds excluded, not measured, branches."""
    out = {
        "statements": n.statements,
        "covered": n.covered,
        "missed": n.missed,
        "percent": n.percent,
        "complexity": n.complexity,
    }
    if files:
        out["excluded"] = n.excluded
        out["not_measured"] = n.not_measured
        out["branches"] = n.branches
        out["branches_covered"] = n.branches_covered
        out["partial"] = n.partial
    return out


def _lines(lines: dict[int, int]) -> dict[str, int]:
    return {str(n): lines[n] for n in sorted(lines)}


def _contexts(contexts: dict[int, frozenset[str]]) -> dict[str, list[str]]:
    return {str(n): sorted(_clean(name) for name in contexts[n]) for n in sorted(contexts)}


def _branches(branches: dict[int, BranchCoverage]) -> dict[str, dict]:
    return {str(n): {"covered": b.covered, "total": b.total, "missed_outcomes": [_clean(s) for s in b.missed_outcomes]}
            for n, b in sorted(branches.items())}


def _point(p: PointCoverage) -> dict:
    return {
        "method_token": p.method_token,
        "il_offset": p.il_offset,
        "start_line": p.start_line,
        "start_column": p.start_column,
        "end_line": p.end_line,
        "end_column": p.end_column,
        "hits": p.hits,
    }


_POINT_KEYS = tuple(_point(PointCoverage(0, 0, 0, 0, 0, 0, 0)))
_point_fields = attrgetter(*_POINT_KEYS)


class _Layout:
    """How the document's big maps are made: as dicts (`json_report`), or as `_Text` the streaming writer
    formats directly (`_LAZY`). One layout function per object below serves both, so they cannot drift."""

    def lines(self, lines: dict[int, int]):
        return _lines(lines)

    def points(self, points: list[PointCoverage]):
        return [_point(p) for p in points]

    def summary(self, n: Numbers, files: bool = False):
        return _summary(n, files=files)

    def branches(self, branches: dict[int, BranchCoverage]):
        return _branches(branches)


class _LazyLayout(_Layout):
    def lines(self, lines):
        return _Text(_lines_text, lines)

    def points(self, points):
        return _Text(_points_text, points)

    def summary(self, n, files=False):
        return _Text(_numbers_text, _summary(n, files=files))

    def branches(self, branches):
        return _Text(_branches_text, branches) if branches else {}


_DICTS, _LAZY = _Layout(), _LazyLayout()


def _method(m: MethodAnalysis, layout: _Layout = _DICTS) -> dict:
    return {
        "name": _clean(m.name),
        "signature": _clean(m.signature),
        "token": m.token,
        "first_line": m.first_line,
        "hits": m.hits,
        "summary": layout.summary(m.numbers),
        "crap": round(m.crap, 2),
        "lines": layout.lines(m.lines),
        "points": layout.points(m.points),
    }


def _absolute(path: str) -> str:
    return _clean(PurePath(path).as_posix())


def _iso(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _file_detail(f: FileAnalysis, root: str | None, show_contexts: bool, layout: _Layout = _DICTS) -> dict:
    out = {
        "path": _clean(relative_path(f.path, root)),
        "absolute_path": _absolute(f.path),
        "summary": layout.summary(f.numbers, files=True),
        "lines": layout.lines(f.lines),
        "branches": layout.branches(f.branches),
        "excluded_lines": sorted(f.excluded),
        "not_measured_lines": {str(n): _clean(r) for n, r in sorted(f.not_measured.items())},
    }
    if show_contexts:
        out["contexts"] = _contexts(f.contexts)
    if f.stale:
        out["stale"] = _clean(f.stale)
    out["classes"] = [
        {"name": _clean(c.name), "summary": layout.summary(c.numbers), "lines": layout.lines(c.lines),
         "methods": [_method(m, layout) for m in c.methods]}
        for c in f.classes
    ]
    return out


def _document(analysis: Analysis, version: str, relative_to: str | None, timestamp: int | None,
              show_contexts: bool, layout: _Layout) -> dict:
    """The document; with `_LAZY`, each assembly's `files` is a `_Each` of the files' details, made one at a time."""
    root = relative_to if relative_to is not None else analysis.source_root
    ts = int(analysis.timestamp if timestamp is None else timestamp)

    files = []
    for f in analysis.files:
        entry = {
            "path": _clean(relative_path(f.path, root)),
            "absolute_path": _absolute(f.path),
            "summary": _summary(f.numbers, files=True),
            "missing": f.missing(),
        }
        if show_contexts:
            entry["contexts"] = _contexts(f.contexts)
        if f.stale:
            entry["stale"] = _clean(f.stale)
        files.append(entry)
    totals = _summary(analysis.totals, files=True)
    totals["files"] = len(files)

    assemblies = []
    for asm in analysis.assemblies:
        entry = {"name": _clean(asm.name), "summary": _summary(asm.numbers, files=True)}
        if asm.not_loaded:
            entry["not_loaded"] = True
        if layout is _LAZY:
            entry["files"] = _Each(lambda fs=asm.files: (_file_detail(f, root, show_contexts, layout) for f in fs))
        else:
            entry["files"] = [_file_detail(f, root, show_contexts) for f in asm.files]
        assemblies.append(entry)

    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "meta": {
            "dotcov_version": version,
            "timestamp": ts,
            "timestamp_utc": _iso(ts),
            "source_root": _absolute(root) if root else "",
            "branches_measured": analysis.branches_measured,
            "warnings": [_clean(w) for w in analysis.warnings],
        },
        "totals": totals,
        "files": files,
        "assemblies": assemblies,
    }
    if layout is _LAZY:  # (the containers `_Format.pieces` writes in pieces, down to each file)
        doc = _Parts(doc)
        doc["assemblies"] = _PartList(_Parts(entry) for entry in assemblies)
    return doc


def json_report(result: CoverageResult | Analysis, *, version: str, relative_to: str | None = None,
                timestamp: int | None = None, show_contexts: bool = False) -> dict:
    """The report as a dict (see docs/json-format.md).

    `relative_to` (default the result's source root) is the directory `path`s are relative to, as in
    the terminal table; files outside it keep their absolute path. `timestamp` (seconds) defaults to
    the result's. `show_contexts` adds each file's `contexts` (line -> the sorted names of the tests
    that ran it; the analysis must carry them: results.ReportOptions.contexts).
    """
    return _document(Analysis.of(result), version, relative_to, timestamp, show_contexts, _DICTS)


# --- the text -------------------------------------------------------------------------------------
#
# `json.dumps(doc, indent=2)` encodes in pure Python (the C encoder serves only indent=None) and needs the whole
# document in memory: far too slow and too big for a large report. `_Format` writes the same text, byte for byte:
# small values as the json module lays them out, the line maps and points (most of the document) from a template per
# indentation, and the assemblies' files one at a time, so the writer never holds the document.
# tests/test_json_report.py checks it against json.dumps.


class _Text:
    """A value `_Format` writes with `make(value, format, indent)` (a line map, a method's points)."""

    __slots__ = ("make", "value")

    def __init__(self, make, value) -> None:
        self.make, self.value = make, value


class _Each:
    """A list whose elements are made one at a time, as `_Format.pieces` writes them."""

    __slots__ = ("elements",)

    def __init__(self, elements) -> None:
        self.elements = elements


class _Parts(dict):
    """A dict `_Format.pieces` writes value by value (the document, an assembly)."""


class _PartList(list):
    """A list `_Format.pieces` writes element by element (the assemblies)."""


class _Format:
    """json.dumps's layout for `indent` (None: one line, separators "," and ":"), ensure_ascii=False."""

    def __init__(self, indent: int | None) -> None:
        self.newline = "" if indent is None else "\n"
        self.unit = "" if indent is None else " " * indent
        self.colon = ":" if indent is None else ": "
        self._templates: dict[str, str] = {}

    def value(self, v, pad: str) -> str:
        """`v` as text, its first line not indented, the rest at `pad` and deeper."""
        if type(v) is str:
            return encode_basestring(v)
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return int.__repr__(v)
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                raise ValueError(f"Out of range float values are not JSON compliant: {v!r}")
            return float.__repr__(v)
        if type(v) is _Text:
            return v.make(v.value, self, pad)
        inner = pad + self.unit
        if isinstance(v, dict):
            if not v:
                return "{}"
            colon, value = self.colon, self.value
            items = [encode_basestring(k) + colon + value(x, inner) for k, x in v.items()]
            return self._wrap("{", items, pad, "}")
        if isinstance(v, (list, tuple)):
            if not v:
                return "[]"
            return self._wrap("[", [self.value(x, inner) for x in v], pad, "]")
        if isinstance(v, str):
            return encode_basestring(v)
        raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")

    def _wrap(self, open_: str, items: list[str], pad: str, close: str) -> str:
        inner = self.newline + pad + self.unit
        return open_ + inner + ("," + inner).join(items) + self.newline + pad + close

    def pieces(self, v, pad: str = ""):
        """`value(v, pad)` in pieces: dicts holding `_Each` and the `_Each` lists are written as they go."""
        if type(v) is _Each:
            inner = self.newline + pad + self.unit
            first = True
            for element in v.elements():
                yield ("[" if first else ",") + inner
                first = False
                yield from self.pieces(element, pad + self.unit)
            yield "[]" if first else self.newline + pad + "]"
        elif type(v) is _Parts and v:
            inner = self.newline + pad + self.unit
            sep = "{"
            for k, x in v.items():
                yield sep + inner + encode_basestring(k) + self.colon
                sep = ","
                yield from self.pieces(x, pad + self.unit)
            yield self.newline + pad + "}"
        elif type(v) is _PartList and v:
            inner = self.newline + pad + self.unit
            sep = "["
            for x in v:
                yield sep + inner
                sep = ","
                yield from self.pieces(x, pad + self.unit)
            yield self.newline + pad + "]"
        else:
            yield self.value(v, pad)

    def template(self, key, make) -> str:
        t = self._templates.get(key)
        if t is None:
            t = self._templates[key] = make()
        return t


def _lines_text(lines: dict[int, int], fmt: _Format, pad: str) -> str:
    """`_lines(lines)` as json.dumps writes it (line numbers and hits are ints)."""
    if not lines:
        return "{}"
    colon = fmt.colon
    return fmt._wrap("{", [f'"{n}"{colon}{h}' for n, h in sorted(lines.items())], pad, "}")


def _points_text(points: list[PointCoverage], fmt: _Format, pad: str) -> str:
    """`[_point(p) for p in points]` as json.dumps writes it, each point from one template."""
    if not points:
        return "[]"
    inner = pad + fmt.unit

    def make() -> str:
        field = fmt.newline + inner + fmt.unit
        return "{" + ",".join(field + '"' + key + '"' + fmt.colon + "%d" for key in _POINT_KEYS) + \
            fmt.newline + inner + "}"

    template = fmt.template(inner, make)
    return fmt._wrap("[", list(map(template.__mod__, map(_point_fields, points))), pad, "]")


def _numbers_text(numbers: dict, fmt: _Format, pad: str) -> str:
    """A dict of ints and floats (a `_summary`) as json.dumps writes it, from one template per key set."""
    inner = pad + fmt.unit

    def make() -> str:
        field = fmt.newline + inner
        return "{" + ",".join(field + encode_basestring(k) + fmt.colon + "%s" for k in numbers) + \
            fmt.newline + pad + "}"

    template = fmt.template((pad, *numbers), make)
    return template % tuple(map(_number, numbers.values()))


def _number(v) -> str:
    if type(v) is int:
        return int.__repr__(v)
    if type(v) is float and v == v and v not in (float("inf"), float("-inf")):
        return float.__repr__(v)
    raise TypeError(f"not a summary number: {v!r}")


def _branches_text(branches: dict[int, BranchCoverage], fmt: _Format, pad: str) -> str:
    """`_branches(branches)` as json.dumps writes it."""
    inner = pad + fmt.unit
    deeper = inner + fmt.unit

    def make() -> str:
        field = fmt.newline + deeper
        return "{" + field + '"covered"' + fmt.colon + "%d," + field + '"total"' + fmt.colon + "%d," + field + \
            '"missed_outcomes"' + fmt.colon + "%s" + fmt.newline + inner + "}"

    template = fmt.template(("branches", pad), make)
    value, colon = fmt.value, fmt.colon
    return fmt._wrap("{", [f'"{n}"{colon}' + template % (b.covered, b.total,
                                                            value([_clean(s) for s in b.missed_outcomes], deeper))
                           for n, b in sorted(branches.items())], pad, "}")


def _text_pieces(result: CoverageResult | Analysis, version: str, relative_to: str | None, timestamp: int | None,
                 indent: int | None, show_contexts: bool):
    doc = _document(Analysis.of(result), version, relative_to, timestamp, show_contexts, _LAZY)
    yield from _Format(indent).pieces(doc)
    yield "\n"


def json_text(result: CoverageResult | Analysis, *, version: str, relative_to: str | None = None,
              timestamp: int | None = None, indent: int | None = 2, show_contexts: bool = False) -> str:
    """`json_report` serialised as `json.dumps(doc, indent=indent, ensure_ascii=False)` writes it (separators
    "," and ":" with `indent=None`, one line), ending in a newline."""
    return "".join(_text_pieces(result, version, relative_to, timestamp, indent, show_contexts))


def write_json(result: CoverageResult | Analysis, path: str | os.PathLike, *, version: str, relative_to: str | None = None,
               timestamp: int | None = None, indent: int | None = 2, show_contexts: bool = False) -> None:
    """Writes `json_text` to `path` as UTF-8 (no BOM), a file at a time, replacing it whole (a reader never sees
    half a file)."""
    pieces = _text_pieces(result, version, relative_to, timestamp, indent, show_contexts)
    write_atomic(path, (piece.encode("utf-8") for piece in pieces))
