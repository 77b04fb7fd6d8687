"""A module build's coverage plan: everything results.module_coverage decides without looking at hit counts.

Which sequence points decide which lines (lines.py), each point's class and method, excluded and not-measured
lines, stale sources, the branch records with their outcome keys, notes and switch arms (branches.py), and where
each record lands. `make_plan` computes it from the PDB, the assembly's IL and the source files; `apply_plan`
states in Python how a plan and the module's hit counts make the model (`model.AssemblyCoverage`). Builds run
packed_plan.py's form of the same (the plan packed, then applied in native code; tests/test_plan_cache.py checks
it gives apply_plan's model); every build goes through make_plan and the packed apply (plan_cache.py keeps packed
plans between commands), so a cached plan gives exactly the model a cold build gives.

A plan is plain data (lists, tuples, dicts, strings, ints, and `array` bytes for the per-point columns) that
`marshal` stores compactly; hit counts enter only as indexes into `ModuleHits.hits` (hit_exprs.py).
"""

from __future__ import annotations

import re
from array import array
from functools import partial
from itertools import compress, groupby, repeat
from operator import itemgetter
from pathlib import Path

from dotcov import _native
from dotcov.analysis.branches import analyse as branches
from dotcov.analysis.branches.analyse import branch_rows
from dotcov.analysis import hit_exprs
from dotcov.analysis import lines as line_rule
from dotcov.analysis.contexts import site_contexts
from dotcov.analysis.exclusions import ExclusionOptions, excluded_methods
from dotcov.analysis.filters import Filters
from dotcov.analysis.model import AssemblyCoverage, BranchCoverage, ClassCoverage, FileCoverage, MethodCoverage, PointCoverage

# `<Name>b__0_0`, `<Name>d__3`, `<Name>g__Local|0_0` -> Name
_GENERATED_METHOD = re.compile(r"^<([^>]*)>")
# The PDB's point tuples: (IL offset, start line, start column, end line, end column, document).
_START, _END = itemgetter(1), itemgetter(3)
_FIRST, _SECOND, _DOC = itemgetter(0), itemgetter(1), itemgetter(5)


def _user_method(raw: dict, rid: int) -> int:
    """MoveNext of an async/iterator state machine reports as the method the user wrote."""
    return raw["kickoff"].get(rid, rid)


class _Class:
    __slots__ = ("name", "filename", "methods", "lines", "ref")

    def __init__(self, name: str, filename: str, ref: int) -> None:
        self.name, self.filename, self.methods = name, filename, []
        self.lines: tuple[int, int] | list[int] = []  # its lines (file_line_plan's spec)
        self.ref = ref  # its number among the plan's classes and methods (file_line_plan's owners)


class _Method:
    __slots__ = ("name", "signature", "token", "lines", "points", "index", "ref")

    def __init__(self, name: str, signature: str, token: int, ref: int) -> None:
        self.name, self.signature, self.token = name, signature, token
        self.lines: tuple[int, int] | list[int] = []  # its lines (file_line_plan's spec)
        self.points: list[range] = []  # its point ids, in the order read, as runs
        self.index = (0, 0)  # (class, method) in the plan
        self.ref = ref


def make_plan(module, sym, options, mapper, checks) -> dict:
    """The hit-independent part of results.module_coverage (see the module docstring)."""
    return _make_plan(module, sym, options, mapper, checks, partial(branch_rows, module, sym, mapper))


def _make_plan(module, sym, options, mapper, checks, branch_rows) -> dict:
    raw = sym.raw
    name = raw["assembly_name"]
    filters = options.filters or Filters()
    excluded = excluded_methods(sym, name, ExclusionOptions(filters, options.skip_auto_properties))
    documents = raw["documents"]
    unmeasured = {token & 0x00FFFFFF: why for token, why in getattr(module, "unmeasured", {}).items()}
    classes: dict[tuple[int, str], _Class] = {}
    methods: dict[tuple[int, str, int], _Method] = {}
    files: dict[str, dict] = {}  # path -> {"excluded": set, "not_measured": dict}; insertion order is the model's
    spans: dict[str, list[tuple[int, int, tuple[int, int]]]] = {}  # path -> its points as runs (file_line_plan)
    owners_by_ref: list[_Class | _Method] = []
    points: list[tuple] = []  # id -> the PDB's (offset, start line, start column, end line, end column, document)
    point_tokens: list[int] = []  # id -> its method's token

    def is_generated(rid: int) -> bool:
        return bool(_GENERATED_METHOD.match(raw["methods"][_user_method(raw, rid) - 1][0]))

    doc_paths: list[str | None] = [None]
    for d in documents:
        path = mapper.map(d, near=module.path)
        doc_paths.append(None if filters.files and filters.file_excluded(path) else path)
    n_docs = len(documents)

    order = sorted(raw["sequence_points"], key=lambda r: (is_generated(r), r))
    type_names: dict[int, tuple[int, str]] = {}  # type rid -> (its user type, that type's name)
    # (Bound once: this loop runs once per method, 71,500 times at a million statements.)
    sequence_points, kickoff, raw_methods = raw["sequence_points"], raw["kickoff"], raw["methods"]
    attributes = raw.get("attributes", {})
    generated_member, match_generated, signature = line_rule.generated_member, _GENERATED_METHOD.match, sym.signature

    def owner(path: str, user_type: int, class_name: str, generated, mname: str, owner_rid: int):
        """The class and method a method's points in `path` count for (their refs), the method, and the file's
        point lists."""
        cc = classes.get((user_type, path))
        if cc is None:
            cc = classes[(user_type, path)] = _Class(class_name, path, len(owners_by_ref))
            owners_by_ref.append(cc)
        if generated:
            mc = next((m for m in cc.methods if m.name == mname), None)
            if mc is None:
                mc = _Method(mname, signature(owner_rid), 0x06000000 | owner_rid, len(owners_by_ref))
                owners_by_ref.append(mc)
                cc.methods.append(mc)
        else:
            mkey = (user_type, path, owner_rid)
            mc = methods.get(mkey)
            if mc is None:
                mc = methods[mkey] = _Method(mname, signature(owner_rid), 0x06000000 | owner_rid,
                                             len(owners_by_ref))
                owners_by_ref.append(mc)
                cc.methods.append(mc)
        found = spans.get(path)
        if found is None:
            found = spans[path] = []
        return (cc.ref, mc.ref), mc, found

    for rid in order:
        rid_points = sequence_points[rid]
        token = 0x06000000 | rid
        owner_rid = kickoff.get(rid, rid)  # (_user_method)
        mname, type_rid, _flags, _sig = raw_methods[owner_rid - 1]
        generated = match_generated(mname)
        if generated and generated.group(1):
            mname = generated.group(1)
        named = type_names.get(type_rid)  # (once per type)
        if named is None:
            user_type = sym.user_type(type_rid) if type_rid else 0
            named = type_names[type_rid] = (user_type, sym.type_full_name(user_type) if user_type else "<Module>")
        user_type, class_name = named
        its_attributes = attributes.get(token)
        if its_attributes and generated_member(raw_methods[rid - 1][0], its_attributes):
            continue  # e.g. a record's copy constructor: no statement the user wrote
        is_excluded = rid in excluded
        why = (unmeasured.get(rid) or unmeasured.get(owner_rid)) if unmeasured else None
        docs = set(map(_DOC, rid_points))
        if not is_excluded and why is None and len(docs) == 1:
            doc = docs.pop()
            path = doc_paths[doc] if 0 < doc <= n_docs else None
            if path is not None:  # (the usual method: its points at once, as the loop below would add them)
                if path not in files:
                    files[path] = {"excluded": set(), "not_measured": {}}
                place, mc, found = owner(path, user_type, class_name, generated, mname, owner_rid)
                n = len(rid_points)
                mc.points.append(range(len(points), len(points) + n))
                found.append((len(points), n, place))
                points += rid_points
                point_tokens += repeat(token, n)
            continue
        last_path = fc = mc = place = found = None
        for p in rid_points:
            doc = p[5]
            if not 0 < doc <= n_docs:
                continue
            path = doc_paths[doc]
            if path is None:
                continue
            if path is not last_path:
                last_path, mc = path, None
                fc = files.get(path)
                if fc is None:
                    fc = files[path] = {"excluded": set(), "not_measured": {}}
            if is_excluded:
                fc["excluded"].update(range(p[1], p[3] + 1))
                continue
            if why is not None:
                for line in range(p[1], p[3] + 1):
                    fc["not_measured"].setdefault(line, why)
                continue
            if mc is None:
                place, mc, found = owner(path, user_type, class_name, generated, mname, owner_rid)
            pid = len(points)
            points.append(p)
            point_tokens.append(token)
            mc.points.append(range(pid, pid + 1))
            found.append((pid, 1, place))
    # Each line decided by its own points (lines.py): the line's points, and the classes and methods it joins.
    line_plan: dict[str, tuple[list[int], list[int], dict[int, list[int]]]] = {}
    for path, runs in spans.items():
        text = line_rule.read_source(path)
        free = line_rule.CodeFreeLines(text, Path(path).suffix) if text is not None else set()
        file_lines, first, multi, specs = file_line_plan(points, runs, free)
        for ref, spec in specs.items():
            owners_by_ref[ref].lines = spec
        line_plan[path] = (file_lines, first, multi)
    hashes = raw.get("document_hashes") or []
    stale: dict[str, str | None] = {}
    for doc, (algorithm, expected) in enumerate(hashes, start=1):
        path = doc_paths[doc]  # (None for a filtered document: never in files)
        if path in files and stale.get(path) is None:
            stale[path] = checks.stale(path, algorithm, expected)
    kept: dict[str, set[int]] = {}  # path -> its statement lines (before the switch lines below)
    file_rows = []
    for path, fc in files.items():
        file_lines, first, multi = line_plan.get(path, ([], [], {}))
        line_set = set(file_lines)
        excluded_lines = fc["excluded"] - line_set
        not_measured = [(n, why) for n, why in fc["not_measured"].items() if n not in line_set]
        if not file_lines and not not_measured:
            continue  # wholly excluded: not a file of the report
        kept[path] = line_set
        file_rows.append((path, file_lines, first, multi, sorted(excluded_lines), not_measured, stale.get(path)))
    ordered = sorted(classes.values(), key=lambda c: (c.name, c.filename))
    for ci, cc in enumerate(ordered):
        for mi, mc in enumerate(cc.methods):
            mc.index = (ci, mi)
    # Per-point columns, each method's points together (in the order read).
    class_rows = []
    order = array("i")  # new point number -> point id
    renumber = array("i", bytes(4 * len(points)))  # point id -> new point number (runs of ids stay runs)
    for cc in ordered:
        method_rows = []
        for mc in cc.methods:
            start = len(order)
            for run in mc.points:
                renumber[run.start:run.stop] = array("i", range(len(order), len(order) + len(run)))
                order.extend(run)
            method_rows.append((mc.name, mc.signature, mc.token, mc.lines, start, len(order)))
        class_rows.append((cc.name, cc.filename, cc.lines, method_rows))
    columns = point_columns(points, point_tokens, order, module)
    file_rows = [(path, file_lines, array("i", list(map(renumber.__getitem__, first))).tobytes(),
                  {k: [renumber[p] for p in v] for k, v in multi.items()}, excluded_lines, not_measured, why)
                 for path, file_lines, first, multi, excluded_lines, not_measured, why in file_rows]
    # Branch outcomes as expressions of the counters (hit_exprs.py), on the lines of the files and methods kept.
    records = [r for r in branch_rows() if (r[0] & 0x00FFFFFF) not in excluded
               and _user_method(raw, r[0] & 0x00FFFFFF) not in unmeasured
               and (r[0] & 0x00FFFFFF) not in unmeasured
               and not (r[6] and not options.all_branches)]
    # Where each record lands (results.module_coverage's rules): a switch line without a point of its own, and
    # the method whose branches hold it.
    methods_at: dict[tuple[str, int], list[_Method]] = {}
    wanted: dict[str, set[int]] = {}
    for r in records:
        wanted.setdefault(r[2], set()).add(r[3])
    for cc in classes.values():
        lines_wanted = wanted.get(cc.filename)
        if lines_wanted:
            file_lines = line_plan[cc.filename][0]
            for mc in cc.methods:
                spec = mc.lines
                for line in lines_wanted.intersection(file_lines[spec[0]:spec[1]] if type(spec) is tuple else spec):
                    methods_at.setdefault((cc.filename, line), []).append(mc)
    owners: dict[tuple[str, int], list[_Method]] = {}
    for cc in classes.values():
        for mc in cc.methods:
            owners.setdefault((cc.filename, mc.token), []).append(mc)
    record_rows = []
    once = _Once()  # (equal paths, texts, outcome kinds and notes as one object: marshal stores them once)
    for token, offset, path, line, kinds, codes, generated, is_switch, text, arms, notes in records:
        owner = 0x06000000 | _user_method(raw, token & 0x00FFFFFF)
        fix = None
        if arms is not None and path in kept and line not in kept[path]:
            fix = [m.index for m in owners.get((path, owner), [])]
            if fix:
                kept[path].add(line)
            for m in owners.get((path, owner), []):
                methods_at.setdefault((path, line), []).append(m)
        candidates = methods_at.get((path, line), [])
        mc = next((m for m in candidates if m.token == owner), candidates[0] if candidates else None)
        record_rows.append((token, offset, once(path), line, once(kinds), codes,
                            all(type(c) is int for c in codes), generated, is_switch, once(text),
                            arms, once(notes), fix, mc.index if mc is not None else None))
    return {"name": name, "files": file_rows, "classes": class_rows, "records": record_rows,
            "points": columns}


def _site_blob(module) -> bytes:
    """module's sites as uint32 columns (data.ModuleHits.site_blob; made here for a module given as plain sites)."""
    blob = getattr(module, "site_blob", None)
    if blob is not None:
        return blob()
    columns = [list(map(itemgetter(i), module.sites)) for i in range(3)]
    if not all(set(map(type, c)) <= {int} for c in columns):
        raise TypeError("a site of values that are not ints")  # (array("I") would take an __index__)
    return b"".join(array("I", c).tobytes() for c in columns)


class _Once:
    """Equal values as one shared object (read-only in the plan's users: apply_plan, branches.BranchRecord)."""

    def __init__(self) -> None:
        self.seen: dict = {}

    def __call__(self, value):
        if value is None:
            return None
        key = (type(value), tuple(value.items()) if type(value) is dict else
               tuple(value) if type(value) is list else value)
        return self.seen.setdefault(key, value)


def point_columns(points: list[tuple], point_tokens: list[int], order: list[int], module) -> list[bytes]:
    """The plan's per-point columns (int32 bytes) of the points `order` lists: their tokens, IL offsets, start
    lines and columns, end lines and columns, and each one's counter among `module`'s sites (the last of equal
    sites; -1 when the agent did not count it). Native from the data's site blob (no Python object per point,
    column or site); in Python for values the native one does not take."""
    try:
        return _native.point_columns(points, point_tokens, order, _site_blob(module))
    except (TypeError, ValueError, OverflowError):
        pass
    sites = module.sites
    tokens = list(map(point_tokens.__getitem__, order))
    ordered = list(map(points.__getitem__, order))
    offsets, *spans = (list(map(itemgetter(i), ordered)) for i in range(5))  # (not zip(*): slow at 1M)
    site_of = dict(zip(sites, range(len(sites))))  # (the last of equal sites, as before)
    counters = list(map(site_of.get, zip(tokens, offsets, repeat(0)), repeat(-1)))
    return [array("i", c).tobytes() for c in (tokens, offsets, *spans, counters)]


def file_line_plan(points: list[tuple], runs: list[tuple[int, int, tuple[int, ...]]], free) -> tuple:
    """One file's line plan: lines.deciding_lines on the file's points with `free` (the lines known to hold no
    code), then each line joins the classes and methods of its deciding points. `runs`: the file's points as (first
    point id, count, owners) in the order read, a run being points[first:first + count] and `owners` the refs of the
    class and method they count for. Returns (the file's lines, each one's first point id (array "i"), {position:
    point ids} of the lines decided by several points, {ref: its lines}), an owner's lines as (first, end) when they
    are the file's lines[first:end] (the usual case), else their list. Natively; file_line_plan_py for what that
    does not take."""
    try:
        file_lines, first, multi, specs = _native.line_plan(points, runs, free)
    except (TypeError, ValueError, OverflowError):
        return file_line_plan_py(points, runs, free)
    ids = array("i")
    ids.frombytes(first)
    return file_lines, ids, multi, specs


def file_line_plan_py(points: list[tuple], runs: list[tuple[int, int, tuple[int, ...]]], free) -> tuple:
    """file_line_plan in Python: the reference _native.line_plan is tested against."""
    ids = [i for first, count, _owners in runs for i in range(first, first + count)]
    owners = [o for _first, count, o in runs for _ in range(count)]
    of_file = list(map(points.__getitem__, ids))
    deciding = line_rule.deciding_lines(list(map(_START, of_file)), list(map(_END, of_file)), free)
    file_lines = list(deciding)
    groups = list(deciding.values())
    heads = list(map(_FIRST, groups))
    first = array("i", map(ids.__getitem__, heads))
    shared = list(compress(range(len(groups)), map((1).__lt__, map(len, groups))))  # lines of several points
    multi = {pos: [ids[i] for i in groups[pos]] for pos in shared}
    # Each line joins its point's class and method; runs of lines of one method at once (C-level updates in the
    # same order as line by line), a line of several points joins each point's.
    places = list(map(owners.__getitem__, heads))
    for pos in shared:
        places[pos] = None
    owned: dict[int, tuple[int, dict[int, None]]] = {}  # ref -> (the position of its first line, its lines)
    pos = 0
    for place, run in groupby(zip(file_lines, places, groups), key=_SECOND):
        if place is not None:
            run_lines = dict.fromkeys(map(_FIRST, run))
            for ref in place:
                have = owned.get(ref)
                if have is None:
                    have = owned[ref] = (pos, {})
                have[1].update(run_lines)
            pos += len(run_lines)
            continue
        for line, _none, ix in run:
            for i in ix:
                for ref in owners[i]:
                    have = owned.get(ref)
                    if have is None:
                        have = owned[ref] = (pos, {})
                    have[1][line] = None
            pos += 1
    specs = {}
    for ref, (at, lines) in owned.items():
        lines = list(lines)
        specs[ref] = (at, at + len(lines)) if file_lines[at:at + len(lines)] == lines else lines
    return file_lines, first, multi, specs


def apply_plan(plan: dict, module, *, contexts: bool = False) -> AssemblyCoverage:
    """The model of one module build: `plan` (make_plan's) with the hits of `module` (a data.ModuleHits). The
    reference for packed_plan.apply, which builds run."""
    asm = AssemblyCoverage(plan["name"])
    hits = list(module.hits)
    hits.append(0)  # site -1: a point the agent did not count
    cols = []
    for blob in plan["points"]:
        a = array("i")
        a.frombytes(blob)
        cols.append(a)
    tokens, offsets, sls, scs, els, ecs, sites = cols
    point_hits = list(map(hits.__getitem__, sites))
    point_columns = (tokens, offsets, sls, scs, els, ecs, point_hits)
    point_ctx, branch_ctx = site_contexts(module) if contexts and module.contexts else ({}, {})
    files = asm.files
    columns: dict[str, tuple[list[int], list[int]]] = {}  # path -> its lines and their hits
    for path, file_lines, first, multi, excluded_lines, not_measured, stale in plan["files"]:
        fc = files[path] = FileCoverage(path)
        firsts = array("i")
        firsts.frombytes(first)
        values = list(map(point_hits.__getitem__, firsts))
        for pos, ids in multi.items():
            values[pos] = max(map(point_hits.__getitem__, ids))
        fc.lines = dict(zip(file_lines, values))
        columns[path] = (file_lines, values)
        fc.excluded = set(excluded_lines)
        fc.not_measured = dict(not_measured)
        fc.stale = stale
        if point_ctx:  # the tests that ran the very points whose hits decide the line
            for pos, line in enumerate(file_lines):
                ids = multi.get(pos) or [firsts[pos]]
                ctx = frozenset().union(*(point_ctx.get((tokens[i], offsets[i]), ()) for i in ids))
                if ctx:
                    fc.contexts[line] = ctx
    classes = []
    for name, filename, class_lines, method_rows in plan["classes"]:
        cc = ClassCoverage(name, filename)
        file_lines, values = columns[filename]
        lookup = files[filename].lines.__getitem__

        def lines_of(spec) -> dict[int, int]:
            if type(spec) is tuple:
                if spec[0] == 0 and spec[1] == len(file_lines):
                    return dict(files[filename].lines)
                return dict(zip(file_lines[spec[0]:spec[1]], values[spec[0]:spec[1]]))
            return dict(zip(spec, map(lookup, spec)))

        cc.lines = lines_of(class_lines)
        for mname, signature, token, method_lines, start, end in method_rows:
            mc = MethodCoverage(mname, signature, lines_of(method_lines), None, token)
            mc.defer_points(partial(_points, point_columns, start, end))
            cc.methods.append(mc)
        classes.append(cc)
    asm.classes = classes
    evaluate = hit_exprs.evaluate
    records = [branches.BranchRecord(token, offset, path, line,
                                     dict(zip(kinds, map(hits.__getitem__, codes) if plain
                                              else [evaluate(c, hits) for c in codes])),
                                     generated, is_switch, text, arms, notes)
               for token, offset, path, line, kinds, codes, plain, generated, is_switch, text, arms, notes, _fix, _at
               in plan["records"]]
    # Each record's outcomes on its file's line (branches.by_line: the records kept are the reported ones) and,
    # with each branch instruction as a condition (Cobertura), on its method's line.
    for r, row in zip(records, plan["records"]):
        outcomes = r.outcomes
        covered = sum(1 for h in outcomes.values() if h > 0)
        missed = r.missed()
        ordered = sorted(outcomes)
        fc = files.get(r.path)
        if fc is not None:
            b = fc.branches.get(r.line)
            if b is None:
                b = fc.branches[r.line] = BranchCoverage(0, 0)
            b.total += len(outcomes)
            b.covered += covered
            b.missed_outcomes.extend(missed)
            b.outcome_hits.append((r.offset, [outcomes[k] for k in ordered]))
        fix, at = row[12], row[13]
        if fix is not None:
            # A Release `switch (k)` line has no sequence point; its dispatch ran once per arm taken.
            for ci, mi in fix:
                c = classes[ci]
                for lines in (fc.lines, c.lines, c.methods[mi].lines):
                    lines[r.line] = sum(outcomes.values())
            ctx = branch_ctx.get((r.method_token, r.offset))
            if ctx and r.line in fc.lines:  # the tests whose dispatch ran the switch's first branch instruction
                fc.contexts[r.line] = ctx
        if at is None:
            continue
        b = classes[at[0]].methods[at[1]].branches.setdefault(r.line, BranchCoverage(0, 0))
        b.covered += covered
        b.total += len(outcomes)
        b.missed_outcomes.extend(missed)
        b.conditions.append((r.offset, "switch" if r.is_switch else "jump", covered, len(outcomes)))
        b.outcome_hits.append((r.offset, [outcomes[k] for k in ordered]))
    return asm


def _points(columns, start: int, end: int) -> list[PointCoverage]:
    """A method's points, made from apply_plan's per-point columns when first read (MethodCoverage.defer_points)."""
    return list(map(PointCoverage, *(c[start:end] for c in columns)))
