"""A module's plan (plan.make_plan, its loops in native/python/native_methods.cpp) stated in Python: the oracle
tests/test_plan_methods.py compares the native one with, byte for byte (marshal), on the samples and made-up tables:
which class and method each point counts for, the files' excluded and not-measured lines, the classes' order and
the points' renumbering, and where each branch record lands."""

from __future__ import annotations

from array import array
from itertools import repeat
from operator import itemgetter

from dotcov.analysis import lines as line_rule
from dotcov.analysis.plans.plan import (
    kept_records,
    line_plans,
    plan_files,
    plan_inputs,
    point_columns,
    stale_sources,
    unclassified_methods,
)
from dotcov.analysis.symbols import GENERATED_METHOD

# The PDB's point tuples: (IL offset, start line, start column, end line, end column, document).
_DOC = itemgetter(5)


class _Class:
    __slots__ = ("name", "filename", "methods", "lines", "ref")

    def __init__(self, name: str, filename: str, ref: int) -> None:
        self.name, self.filename, self.methods = name, filename, []
        self.lines: tuple[int, int] | list[int] = []  # its lines (file_line_plan's spec)
        self.ref = ref  # its number among the plan's classes and methods (file_line_plan's owners)


class _Method:
    __slots__ = ("name", "signature", "token", "lines", "points", "index", "ref", "display", "record_member")

    def __init__(self, name: str, signature: str, token: int, ref: int, display: str, record_member: bool) -> None:
        self.name, self.signature, self.token, self.display = name, signature, token, display
        self.record_member = record_member
        self.lines: tuple[int, int] | list[int] = []  # its lines (file_line_plan's spec)
        self.points: list[range] = []  # its point ids, in the order read, as runs
        self.index = (0, 0)  # (class, method) in the plan
        self.ref = ref


def make_plan_py(module, sym, options, mapper, checks, branch_rows) -> dict:
    """plan._make_plan with its loops in Python (`branch_rows`: a callable giving branch_rows' rows)."""
    raw = sym.raw
    name, excluded, unmeasured, doc_paths = plan_inputs(module, sym, options, mapper)
    classes: dict[tuple[int, str], _Class] = {}
    methods: dict[tuple[int, str, int], _Method] = {}
    files: dict[str, dict] = {}  # path -> {"excluded": set, "not_measured": dict}; insertion order is the model's
    spans: dict[str, list[tuple[int, int, tuple[int, int]]]] = {}  # path -> its points as runs (file_line_plan)
    owners_by_ref: list[_Class | _Method] = []
    points: list[tuple] = []  # id -> the PDB's (offset, start line, start column, end line, end column, document)
    point_tokens: list[int] = []  # id -> its method's token

    n_docs = len(raw["documents"])

    type_names: dict[int, tuple[int, str]] = {}  # type rid -> (its user type, that type's name)
    # (Bound once: this loop runs once per method.)
    sequence_points, kickoff, raw_methods = raw["sequence_points"], raw["kickoff"], raw["methods"]
    attributes = raw.get("attributes", {})
    generated_member, match_generated, signature = line_rule.generated_member, GENERATED_METHOD.match, sym.signature
    # The user's methods first, then the generated ones (each part by rid).
    order, generated_rids = [], []
    for rid in sorted(sequence_points):
        (generated_rids if match_generated(raw_methods[kickoff.get(rid, rid) - 1][0]) else order).append(rid)
    order += generated_rids
    display_name = sym.display_name

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
                mc = _Method(mname, signature(owner_rid), 0x06000000 | owner_rid, len(owners_by_ref),
                             display_name(owner_rid, mname), False)
                owners_by_ref.append(mc)
                cc.methods.append(mc)
        else:
            mkey = (user_type, path, owner_rid)
            mc = methods.get(mkey)
            if mc is None:
                mc = methods[mkey] = _Method(mname, signature(owner_rid), 0x06000000 | owner_rid,
                                             len(owners_by_ref), display_name(owner_rid, mname),
                                             sym.record_member(owner_rid))
                owners_by_ref.append(mc)
                cc.methods.append(mc)
        found = spans.get(path)
        if found is None:
            found = spans[path] = []
        return (cc.ref, mc.ref), mc, found

    for rid in order:
        rid_points = sequence_points[rid]
        token = 0x06000000 | rid
        owner_rid = kickoff.get(rid, rid)  # (the method the user wrote)
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
    line_plan, owner_lines, problems, refused = line_plans(points, point_tokens, spans, files)
    for ref, spec in owner_lines.items():
        owners_by_ref[ref].lines = spec
    file_rows, kept = plan_files(files, line_plan, stale_sources(raw, doc_paths, files, checks))
    if refused:  # (their classes and methods have no line)
        classes = {k: cc for k, cc in classes.items() if cc.filename not in refused}
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
            method_rows.append((mc.name, mc.signature, mc.token, mc.lines, start, len(order), mc.display,
                                mc.record_member))
        class_rows.append((cc.name, cc.filename, cc.lines, method_rows))
    columns = point_columns(points, point_tokens, order, module)
    file_rows = [(path, file_lines, _gather(renumber, first),
                  {k: [renumber[p] for p in v] for k, v in multi.items()}, excluded_lines, not_measured, why)
                 for path, file_lines, first, multi, excluded_lines, not_measured, why in file_rows]
    # Branch outcomes as expressions of the counters (hit_exprs.py), on the lines of the files and methods kept.
    records = kept_records(branch_rows(), raw, excluded, unmeasured, options.all_branches, refused)
    unclassified = unclassified_methods(records, raw, sym)
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
    for token, offset, path, line, kinds, codes, generated, is_switch, text, arms, notes, _why in records:
        rid = token & 0x00FFFFFF
        owner = 0x06000000 | kickoff.get(rid, rid)  # (the method the user wrote)
        fix = None
        lines_kept = kept.get(path) if arms is not None else None
        if lines_kept is not None and type(lines_kept) is not set:
            lines_kept = kept[path] = set(lines_kept)
        if lines_kept is not None and line not in lines_kept:
            fix = [m.index for m in owners.get((path, owner), [])]
            if fix:
                lines_kept.add(line)
            for m in owners.get((path, owner), []):
                methods_at.setdefault((path, line), []).append(m)
        candidates = methods_at.get((path, line))
        mc = None
        if candidates:  # (its owner's method when that is there, else the first)
            mc = candidates[0]
            for m in candidates:
                if m.token == owner:
                    mc = m
                    break
        record_rows.append((token, offset, once(path), line, once(kinds), codes,
                            all(type(c) is int for c in codes), generated, is_switch, once(text),
                            arms, once(notes), fix, mc.index if mc is not None else None))
    return {"name": name, "files": file_rows, "classes": class_rows, "records": record_rows,
            "points": columns, "problems": problems, "unclassified": unclassified}


def _gather(values: array, ids: array) -> bytes:
    """values[i] for each i of ids, as int32 bytes (itemgetter loops in C)."""
    if len(ids) > 1:
        return array("i", itemgetter(*ids)(values)).tobytes()
    return array("i", [values[i] for i in ids]).tobytes()


class _Once:
    """Equal values as one shared object (read-only in the plan's users: packed.pack, branches.BranchRecord)."""

    def __init__(self) -> None:
        self.seen: dict = {}

    def __call__(self, value):
        if value is None:
            return None
        key = (type(value), tuple(value.items()) if type(value) is dict else
               tuple(value) if type(value) is list else value)
        return self.seen.setdefault(key, value)


