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

This module also holds the merged view of classes and methods that lcov.py and opencover.py use:
builds of one assembly for several target frameworks add their hits, as in cobertura.py.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Iterable

from dotcov.model import BranchCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage, PointCoverage
from dotcov.report import format_ranges, percent, relative_path

FORMAT = "dotcov-json"
FORMAT_VERSION = 1

_SURROGATES = re.compile("[\ud800-\udfff]")


# --- merged view of the model (shared with lcov.py and opencover.py) -------------------------

@dataclass
class MergedMethod:
    name: str
    signature: str
    token: int
    lines: dict[int, int] = field(default_factory=dict)
    points: list[PointCoverage] = field(default_factory=list)  # sorted in source order
    # (line, IL offset) -> hits of each outcome, added over builds (OpenCover's BranchPoints)
    branch_outcomes: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    @property
    def first_line(self) -> int:
        return min(self.lines)

    @property
    def entry_point(self) -> PointCoverage | None:
        """The first sequence point in source order (None for a method built without points)."""
        return self.points[0] if self.points else None

    @property
    def hits(self) -> int:
        """How often the method was entered: hits of its first sequence point (else of its first line)."""
        entry = self.entry_point
        return entry.hits if entry is not None else self.lines[self.first_line]


@dataclass
class MergedClass:
    name: str
    filename: str
    lines: dict[int, int] = field(default_factory=dict)
    methods: list[MergedMethod] = field(default_factory=list)


def _add_hits(into: dict[int, int], lines: dict[int, int]) -> None:
    for line, hits in lines.items():
        into[line] = into.get(line, 0) + hits


def point_order(p: PointCoverage):
    return (p.start_line, p.start_column, p.end_line, p.end_column, p.method_token, p.il_offset)


def _merge_points(into: dict[tuple, PointCoverage], points: list[PointCoverage]) -> None:
    for p in points:
        key = (p.method_token, p.il_offset, p.start_line, p.start_column, p.end_line, p.end_column)
        have = into.get(key)
        if have is None:
            into[key] = PointCoverage(*key, hits=p.hits)
        else:
            have.hits += p.hits


def merge_classes(classes: Iterable[ClassCoverage]) -> list[MergedClass]:
    """One entry per (type, file), sorted; the same method in several builds adds its hits.

    A class's lines are its own plus any of its methods' it left out (as cobertura.py); methods
    without lines are left out (as coverlet); methods are sorted by first line, name, signature;
    points by position. The model is not modified.
    """
    by_key: dict[tuple[str, str], MergedClass] = {}
    methods: dict[tuple[str, str, str, str], MergedMethod] = {}
    points: dict[tuple[str, str, str, str], dict[tuple, PointCoverage]] = {}
    for cc in classes:
        into = by_key.get((cc.name, cc.filename))
        if into is None:
            into = by_key[(cc.name, cc.filename)] = MergedClass(cc.name, cc.filename)
        own = dict(cc.lines)
        for mc in cc.methods:
            for line, hits in mc.lines.items():
                if line not in cc.lines:
                    own[line] = max(own.get(line, 0), hits)
            key = (cc.name, cc.filename, mc.name, mc.signature)
            m = methods.get(key)
            if m is None:
                m = methods[key] = MergedMethod(mc.name, mc.signature, mc.token)
                points[key] = {}
                into.methods.append(m)
            elif not m.token:
                m.token = mc.token
            _add_hits(m.lines, mc.lines)
            _merge_points(points[key], mc.points)
            for line, b in mc.branches.items():
                for offset, hits in b.outcome_hits:
                    have = m.branch_outcomes.setdefault((line, offset), [0] * len(hits))
                    if len(have) == len(hits):
                        m.branch_outcomes[(line, offset)] = [x + y for x, y in zip(have, hits)]
        _add_hits(into.lines, own)
    for key, m in methods.items():
        m.points = sorted(points[key].values(), key=point_order)
        m.lines = dict(sorted(m.lines.items()))
    for c in by_key.values():
        c.methods = [m for m in c.methods if m.lines]
        c.methods.sort(key=lambda m: (m.first_line, m.name, m.signature))
        c.lines = dict(sorted(c.lines.items()))
    return [by_key[k] for k in sorted(by_key)]


def merge_branches(branch_maps: Iterable[dict[int, BranchCoverage]]) -> dict[int, BranchCoverage]:
    """One file's branches from several assemblies: the same conditions compiled more than once.

    Without per-outcome data the outcomes of two builds cannot be matched, so a line keeps the
    most outcomes covered in any one build (a lower bound) out of the most found.
    """
    merged: dict[int, BranchCoverage] = {}
    for branches in branch_maps:
        for line, b in branches.items():
            have = merged.get(line)
            if have is None:
                merged[line] = BranchCoverage(b.covered, b.total, list(b.missed_outcomes), list(b.conditions),
                                              list(b.outcome_hits))
            elif b.outcome_hits and len(b.outcome_hits) == len(have.outcome_hits) and \
                    [o for o, _ in sorted(b.outcome_hits)] == [o for o, _ in sorted(have.outcome_hits)]:
                # Same branches (same IL offsets) in another build: outcomes match one to one, hits add.
                added = []
                for (offset, mine), (_, theirs) in zip(sorted(have.outcome_hits), sorted(b.outcome_hits)):
                    added.append((offset, [x + y for x, y in zip(mine, theirs)] if len(mine) == len(theirs) else mine))
                have.outcome_hits = added
                have.covered = sum(1 for _, hits in added for h in hits if h > 0)
                have.missed_outcomes = [t for t in have.missed_outcomes if t in b.missed_outcomes]
            else:
                if b.covered > have.covered:
                    have.missed_outcomes = list(b.missed_outcomes)
                have.covered = max(have.covered, b.covered)
                have.total = max(have.total, b.total)
    return dict(sorted(merged.items()))


def result_files(result: CoverageResult) -> list[tuple[FileCoverage, dict[int, BranchCoverage], set[int]]]:
    """Every source file once, as the terminal table counts it (`CoverageResult.all_files`), with its
    branches (`merge_branches`) and excluded lines (union, less lines that are statements anywhere)."""
    out = []
    for fc in result.all_files():
        here = [asm.files[fc.path] for asm in result.assemblies if fc.path in asm.files]
        branches = merge_branches(f.branches for f in here)
        excluded = set().union(*(f.excluded for f in here)) - set(fc.lines)
        out.append((fc, branches, excluded))
    return out


def branches_measured(result: CoverageResult) -> bool:
    return any(fc.branches for asm in result.assemblies for fc in asm.files.values())


# --- the document -------------------------------------------------------------------------------

def _clean(text: str) -> str:
    """Lone surrogates (from undecodable file names) cannot be written as UTF-8: U+FFFD, as cobertura.py."""
    return _SURROGATES.sub("\ufffd", text)


def _summary(lines: dict[int, int], branches: dict[int, BranchCoverage] | None = None,
             excluded: int | None = None) -> dict:
    statements = len(lines)
    covered = sum(1 for h in lines.values() if h > 0)
    out = {
        "statements": statements,
        "covered": covered,
        "missed": statements - covered,
        "percent": percent(covered, statements),
    }
    if excluded is not None:
        out["excluded"] = excluded
    if branches is not None:
        out["branches"] = sum(b.total for b in branches.values())
        out["branches_covered"] = sum(b.covered for b in branches.values())
    return out


def _lines(lines: dict[int, int]) -> dict[str, int]:
    return {str(n): lines[n] for n in sorted(lines)}


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


def _method(m: MergedMethod) -> dict:
    return {
        "name": _clean(m.name),
        "signature": _clean(m.signature),
        "token": m.token,
        "first_line": m.first_line,
        "hits": m.hits,
        "summary": _summary(m.lines),
        "lines": _lines(m.lines),
        "points": [_point(p) for p in m.points],
    }


def _absolute(path: str) -> str:
    return _clean(PurePath(path).as_posix())


def _iso(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def json_report(result: CoverageResult, *, version: str, relative_to: str | None = None,
                timestamp: int | None = None) -> dict:
    """The report as a dict (see docs/json-format.md).

    `relative_to` (default `result.source_root`) is the directory `path`s are relative to, as in the
    terminal table; files outside it keep their absolute path. `timestamp` (seconds) defaults to
    `result.timestamp`.
    """
    root = relative_to if relative_to is not None else result.source_root
    ts = int(result.timestamp if timestamp is None else timestamp)
    measured = branches_measured(result)

    files = []
    total_lines: dict[tuple[str, int], int] = {}
    total_branches: dict[tuple[str, int], BranchCoverage] = {}
    total_excluded = 0
    for fc, branches, excluded in result_files(result):
        for n, h in fc.lines.items():
            total_lines[(fc.path, n)] = h
        for n, b in branches.items():
            total_branches[(fc.path, n)] = b
        total_excluded += len(excluded)
        files.append({
            "path": _clean(relative_path(fc.path, root)),
            "absolute_path": _absolute(fc.path),
            "summary": _summary(fc.lines, branches, len(excluded)),
            "missing": format_ranges(fc.lines, fc.missed_lines()),
        })
    totals = _summary(total_lines, total_branches, total_excluded)
    totals["files"] = len(files)

    assemblies = []
    for asm in sorted(result.assemblies, key=lambda a: a.name):
        classes = merge_classes(asm.classes)
        paths = sorted(set(asm.files) | {c.filename for c in classes})
        asm_lines: dict[tuple[str, int], int] = {}
        asm_branches: dict[tuple[str, int], BranchCoverage] = {}
        asm_excluded = 0
        asm_files = []
        for path in paths:
            fc = asm.files.get(path)
            if fc is None:  # no file entry: its lines from its classes, as cobertura.py
                fc = FileCoverage(path)
                for c in classes:
                    if c.filename == path:
                        for n, h in c.lines.items():
                            fc.lines[n] = max(fc.lines.get(n, 0), h)
            excluded = sorted(fc.excluded - set(fc.lines))
            for n, h in fc.lines.items():
                asm_lines[(path, n)] = h
            for n, b in fc.branches.items():
                asm_branches[(path, n)] = b
            asm_excluded += len(excluded)
            asm_files.append({
                "path": _clean(relative_path(path, root)),
                "absolute_path": _absolute(path),
                "summary": _summary(fc.lines, fc.branches, len(excluded)),
                "lines": _lines(fc.lines),
                "branches": _branches(fc.branches),
                "excluded_lines": excluded,
                "classes": [
                    {"name": _clean(c.name), "summary": _summary(c.lines), "lines": _lines(c.lines),
                     "methods": [_method(m) for m in c.methods]}
                    for c in classes if c.filename == path
                ],
            })
        assemblies.append({
            "name": _clean(asm.name),
            "summary": _summary(asm_lines, asm_branches, asm_excluded),
            "files": asm_files,
        })

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "meta": {
            "dotcov_version": version,
            "timestamp": ts,
            "timestamp_utc": _iso(ts),
            "source_root": _absolute(root) if root else "",
            "branches_measured": measured,
        },
        "totals": totals,
        "files": files,
        "assemblies": assemblies,
    }


def json_text(result: CoverageResult, *, version: str, relative_to: str | None = None,
              timestamp: int | None = None, indent: int | None = 2) -> str:
    """`json_report` serialised: UTF-8-safe text ending in a newline; `indent=None` for one line."""
    doc = json_report(result, version=version, relative_to=relative_to, timestamp=timestamp)
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(doc, indent=indent, ensure_ascii=False, allow_nan=False, separators=separators) + "\n"


def write_json(result: CoverageResult, path: str | os.PathLike, *, version: str, relative_to: str | None = None,
               timestamp: int | None = None, indent: int | None = 2) -> None:
    """Writes `json_text` to `path` as UTF-8 (no BOM), replacing it whole (a reader never sees half a file)."""
    payload = json_text(result, version=version, relative_to=relative_to, timestamp=timestamp,
                        indent=indent).encode("utf-8")
    write_atomic(path, payload)


def write_atomic(path: str | os.PathLike, payload: bytes) -> None:
    """Writes `payload` next to `path` and renames it over `path` (as write_cobertura)."""
    out = Path(path)
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_bytes(payload)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
