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

Every number comes from the one analysis (analysis.py); this module only lays it out.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import PurePath

from dotcov.analysis import Analysis, FileAnalysis, MethodAnalysis, Numbers, merge_classes
from dotcov.model import BranchCoverage, CoverageResult, PointCoverage
from dotcov.output import relative_path, without_surrogates, write_atomic

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


def _method(m: MethodAnalysis) -> dict:
    return {
        "name": _clean(m.name),
        "signature": _clean(m.signature),
        "token": m.token,
        "first_line": m.first_line,
        "hits": m.hits,
        "summary": _summary(m.numbers),
        "crap": round(m.crap, 2),
        "lines": _lines(m.lines),
        "points": [_point(p) for p in m.points],
    }


def _absolute(path: str) -> str:
    return _clean(PurePath(path).as_posix())


def _iso(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _file_detail(f: FileAnalysis, root: str | None, show_contexts: bool) -> dict:
    out = {
        "path": _clean(relative_path(f.path, root)),
        "absolute_path": _absolute(f.path),
        "summary": _summary(f.numbers, files=True),
        "lines": _lines(f.lines),
        "branches": _branches(f.branches),
        "excluded_lines": sorted(f.excluded),
        "not_measured_lines": {str(n): _clean(r) for n, r in sorted(f.not_measured.items())},
    }
    if show_contexts:
        out["contexts"] = _contexts(f.contexts)
    if f.stale:
        out["stale"] = _clean(f.stale)
    out["classes"] = [
        {"name": _clean(c.name), "summary": _summary(c.numbers), "lines": _lines(c.lines),
         "methods": [_method(m) for m in c.methods]}
        for c in f.classes
    ]
    return out


def json_report(result: CoverageResult | Analysis, *, version: str, relative_to: str | None = None,
                timestamp: int | None = None, show_contexts: bool = False) -> dict:
    """The report as a dict (see docs/json-format.md).

    `relative_to` (default the result's source root) is the directory `path`s are relative to, as in
    the terminal table; files outside it keep their absolute path. `timestamp` (seconds) defaults to
    the result's. `show_contexts` adds each file's `contexts` (line -> the sorted names of the tests
    that ran it; the analysis must carry them: results.ReportOptions.contexts).
    """
    analysis = Analysis.of(result)
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
        entry["files"] = [_file_detail(f, root, show_contexts) for f in asm.files]
        assemblies.append(entry)

    return {
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


def json_text(result: CoverageResult | Analysis, *, version: str, relative_to: str | None = None,
              timestamp: int | None = None, indent: int | None = 2, show_contexts: bool = False) -> str:
    """`json_report` serialised: UTF-8-safe text ending in a newline; `indent=None` for one line."""
    doc = json_report(result, version=version, relative_to=relative_to, timestamp=timestamp,
                      show_contexts=show_contexts)
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(doc, indent=indent, ensure_ascii=False, allow_nan=False, separators=separators) + "\n"


def write_json(result: CoverageResult | Analysis, path: str | os.PathLike, *, version: str, relative_to: str | None = None,
               timestamp: int | None = None, indent: int | None = 2, show_contexts: bool = False) -> None:
    """Writes `json_text` to `path` as UTF-8 (no BOM), replacing it whole (a reader never sees half a file)."""
    payload = json_text(result, version=version, relative_to=relative_to, timestamp=timestamp,
                        indent=indent, show_contexts=show_contexts).encode("utf-8")
    write_atomic(path, payload)
