"""A module build's coverage plan: everything results.module_coverage decides without looking at hit counts.

Which sequence points decide which lines (analysis/lines.py), each point's class and method, excluded and
not-measured lines, stale sources, the branch records with their outcome keys, notes and switch arms
(analysis/branches/), and where each record lands. `make_plan` computes it from the PDB, the assembly's IL and the source files; packed.py packs
it and applies it to the module's hit counts in native code, making the model (`model.AssemblyCoverage`;
tests/oracles/apply_plan.py states that rule in Python, and tests/test_plan_cache.py compares both). Every build
goes through make_plan and the packed apply (plans/cache.py keeps packed plans between commands), so a cached plan
gives exactly the model a cold build gives.

A plan is plain data (lists, tuples, dicts, strings, ints, and `array` bytes for the per-point columns) that
`marshal` stores compactly; hit counts enter only as indexes into `ModuleHits.hits` (analysis/hit_exprs.py).
"""

from __future__ import annotations

from array import array
from functools import partial
from operator import itemgetter
from pathlib import Path

from dotcov import _native
from dotcov.analysis.branches.analyse import branch_rows
from dotcov.analysis import lines as line_rule
from dotcov.analysis.exclusions import ExclusionOptions, excluded_methods
from dotcov.analysis.filters import Filters
from dotcov.analysis.symbols import GENERATED_METHOD

def _user_method(raw: dict, rid: int) -> int:
    """MoveNext of an async/iterator state machine reports as the method the user wrote."""
    return raw["kickoff"].get(rid, rid)


def make_plan(module, sym, options, mapper, checks) -> dict:
    """The hit-independent part of results.module_coverage (see the module docstring)."""
    return _make_plan(module, sym, options, mapper, checks, partial(branch_rows, module, sym, mapper))


def _make_plan(module, sym, options, mapper, checks, branch_rows) -> dict:
    """The plan; its per-method and per-record loops are native (native_methods.cpp; in Python:
    tests/oracles/make_plan.py): a method's points in a file count for the class of its user type
    (`sym.user_type`) in that file and for the method the user wrote: a state machine's MoveNext for its kickoff
    method, a lambda or local function for the first method of its user method's name in that class (one made of
    that name when there is none). The user's methods are read first, then the generated ones, each part by rid."""
    raw = sym.raw
    name, excluded, unmeasured, doc_paths = plan_inputs(module, sym, options, mapper)
    sequence_points, kickoff, raw_methods = raw["sequence_points"], raw["kickoff"], raw["methods"]
    attributes = raw.get("attributes", {})
    generated = [g and g.group(1) for g in map(GENERATED_METHOD.match, map(itemgetter(0), raw_methods))]
    generated_member = line_rule.generated_member
    dropped = {rid for rid in sequence_points  # (e.g. a record's copy constructor: no statement the user wrote)
               if (a := attributes.get(0x06000000 | rid)) and generated_member(raw_methods[rid - 1][0], a)}

    def type_owner(type_rid: int) -> tuple[int, str]:
        user_type = sym.user_type(type_rid) if type_rid else 0
        return user_type, sym.type_full_name(user_type) if user_type else "<Module>"

    core = _native.MethodPlan(sequence_points, kickoff, raw_methods, generated, dropped, excluded, unmeasured,
                              doc_paths, type_owner)
    points, point_tokens, files, spans = core.points, core.tokens, core.files, core.spans
    texts = sym.method_texts(*core.new_methods())  # (a generated method is never a record's member)
    line_plan, owner_lines, problems, refused = line_plans(points, point_tokens, spans, files)
    file_rows, kept = plan_files(files, line_plan, stale_sources(raw, doc_paths, files, checks))
    # The classes in (name, file) order, each method's points together (in the order read), the files' point ids
    # renumbered so.
    class_rows, order, file_rows = core.rows(owner_lines, texts, refused, file_rows)
    columns = point_columns(points, point_tokens, array("i", order), module)
    # Branch outcomes as expressions of the counters (hit_exprs.py), on the lines of the files and methods kept.
    records = kept_records(branch_rows(), raw, excluded, unmeasured, options.all_branches, refused)
    unclassified = unclassified_methods(records, raw, sym)
    record_rows = core.records(records, {path: lp[0] for path, lp in line_plan.items()}, kept)
    return {"name": name, "files": file_rows, "classes": class_rows, "records": record_rows,
            "points": columns, "problems": problems, "unclassified": unclassified}


def plan_inputs(module, sym, options, mapper) -> tuple[str, dict[int, str], dict[int, str], list[str | None]]:
    """What a module's plan starts from: its assembly name, the methods excluded from coverage, the methods the agent
    could not measure (each rid -> why) and each PDB document's path (`document_paths`)."""
    name = sym.raw["assembly_name"]
    filters = options.filters or Filters()
    excluded = excluded_methods(sym, name, ExclusionOptions(filters, options.skip_auto_properties))
    unmeasured = {token & 0x00FFFFFF: why for token, why in getattr(module, "unmeasured", {}).items()}
    return name, excluded, unmeasured, document_paths(sym.raw["documents"], mapper, module.path, filters)


def document_paths(documents: list[str], mapper, near: str, filters: Filters) -> list[str | None]:
    """Each PDB document's path as [paths] maps it (None for a file the filters leave out), by document number
    (from 1; the list's first entry is None)."""
    out: list[str | None] = [None]
    for d in documents:
        path = mapper.map(d, near=near)
        out.append(None if filters.files and filters.file_excluded(path) else path)
    return out


def line_plans(points: list[tuple], point_tokens: list[int], spans: dict, files: dict) -> tuple:
    """Each line decided by its own points (analysis/lines.py): {path: (its lines, each one's first point id, the
    lines decided by several points)} of each file of `spans` (file_line_plan's runs), {owner ref: its lines}, the
    problems to report and the refused files. A file whose points no compiler writes (a damaged PDB) is refused:
    the lines its points start on are not measured, in `files`, and say why."""
    line_plan: dict[str, tuple[list[int], array, dict[int, list[int]]]] = {}
    owner_lines: dict[int, tuple[int, int] | list[int]] = {}
    problems: list[str] = []
    refused: set[str] = set()
    for path, runs in spans.items():
        text = line_rule.read_source(path)
        free = line_rule.CodeFreeLines(text, Path(path).suffix) if text is not None else set()
        try:
            file_lines, first, multi, specs = file_line_plan(points, runs, free, point_tokens)
        except ValueError as e:
            why = f"the PDB's sequence points of this file cannot be planned ({e})"
            not_measured = files[path]["not_measured"]
            for pid, count, _owners in runs:
                for p in points[pid:pid + count]:
                    not_measured.setdefault(p[1], why)
            problems.append(f"{path}: not measured: {why}")
            refused.add(path)
            file_lines, first, multi, specs = [], array("i"), {}, {}
        owner_lines.update(specs)
        line_plan[path] = (file_lines, first, multi)
    return line_plan, owner_lines, problems, refused


def stale_sources(raw: dict, doc_paths: list[str | None], files: dict, checks) -> dict[str, str | None]:
    """{path: why its source on disk is not the one built, or None} of the files, by the PDB's document hashes."""
    stale: dict[str, str | None] = {}
    for doc, (algorithm, expected) in enumerate(raw.get("document_hashes") or [], start=1):
        path = doc_paths[doc]  # (None for a filtered document: never in files)
        if path in files and stale.get(path) is None:
            stale[path] = checks.stale(path, algorithm, expected)
    return stale


def plan_files(files: dict, line_plan: dict, stale: dict) -> tuple[list[tuple], dict[str, list[int]]]:
    """The plan's file rows (path, lines, first point ids, multi-point lines, excluded lines, not-measured lines,
    stale), a file's excluded and not-measured lines being those that are not its statement lines; a wholly
    excluded file is not one. And {path: its statement lines} of those files."""
    kept: dict[str, list[int]] = {}
    rows = []
    for path, fc in files.items():
        file_lines, first, multi = line_plan.get(path, ([], array("i"), {}))
        line_set = set(file_lines) if fc["excluded"] or fc["not_measured"] else frozenset()  # (only to subtract)
        excluded_lines = fc["excluded"] - line_set
        not_measured = [(n, why) for n, why in fc["not_measured"].items() if n not in line_set]
        if not file_lines and not not_measured:
            continue  # wholly excluded: not a file of the report
        kept[path] = file_lines
        rows.append((path, file_lines, first, multi, sorted(excluded_lines), not_measured, stale.get(path)))
    return rows, kept


def kept_records(rows: list[tuple], raw: dict, excluded, unmeasured: dict, all_branches: bool, refused: set) -> list:
    """branch_rows' rows of the methods reported: not excluded, measured (the method and the one the user wrote),
    the user's own branches unless `all_branches`, in a file not refused."""
    return [r for r in rows if (r[0] & 0x00FFFFFF) not in excluded
            and not (unmeasured and (_user_method(raw, r[0] & 0x00FFFFFF) in unmeasured
                                     or (r[0] & 0x00FFFFFF) in unmeasured))
            and not (r[6] and not all_branches) and r[2] not in refused]


def unclassified_methods(records: list[tuple], raw: dict, sym) -> list[tuple[int, str, str]]:
    """(MethodDef token, `Type.Method`, why) of each method of `records` (branch_rows') whose branches the
    recognisers could not read, so that all of them count as the user's (results.build warns once per report)."""
    why: dict[int, str] = {}
    for r in records:
        if r[11] is not None:
            why.setdefault(r[0] & 0x00FFFFFF, r[11])
    out = []
    for rid in sorted(why):
        owner = _user_method(raw, rid)
        mname, type_rid = raw["methods"][owner - 1][:2]
        user_type = sym.user_type(type_rid) if type_rid else 0
        out.append((0x06000000 | rid, f"{sym.type_full_name(user_type) if user_type else '<Module>'}.{mname}",
                    why[rid]))
    return out


def _site_blob(module) -> bytes:
    """module's sites as uint32 columns (data.ModuleHits.site_blob; made here for a module given as plain sites)."""
    blob = getattr(module, "site_blob", None)
    if blob is not None:
        return blob()
    columns = [list(map(itemgetter(i), module.sites)) for i in range(3)]
    if not all(set(map(type, c)) <= {int} for c in columns):
        raise TypeError("a site of values that are not ints")  # (array("I") would take an __index__)
    return b"".join(array("I", c).tobytes() for c in columns)


def point_columns(points: list[tuple], point_tokens: list[int], order: list[int], module) -> list[bytes]:
    """The plan's per-point columns (int32 bytes) of the points `order` lists: their tokens, IL offsets, start
    lines and columns, end lines and columns, and each one's counter among `module`'s sites (the last of equal
    sites; -1 when the agent did not count it). Native from the data's site blob (no Python object per point,
    column or site). TypeError, ValueError or OverflowError for values outside int32 (lines, offsets and columns
    from a PDB are below 2^29) or sites outside uint32, which no data file holds."""
    return _native.point_columns(points, point_tokens, order, _site_blob(module))


def file_line_plan(points: list[tuple], runs: list[tuple[int, int, tuple[int, ...]]], free, tokens: list[int]) -> tuple:
    """One file's line plan: lines.deciding_lines on the file's points with `free` (the lines known to hold no
    code) and their methods (`tokens`, by point id: a lambda's lines are its own), then each line joins the classes
    and methods of its deciding points. `runs`: the file's points as (first point id, count, owners) in the order
    read, a run being points[first:first + count] and `owners` the refs of the class and method they count for. Returns (the file's lines, each one's first point id (array "i"), {position:
    point ids} of the lines decided by several points, {ref: its lines}), an owner's lines as (first, end) when they
    are the file's lines[first:end] (the usual case), else their list. Raises ValueError for points spanning more
    lines than _native.line_plan takes (only a damaged PDB's: see native_plan.cpp)."""
    file_lines, first, multi, specs = _native.line_plan(points, runs, free, tokens)
    ids = array("i")
    ids.frombytes(first)
    return file_lines, ids, multi, specs


