"""A module plan (plan.make_plan's) in the form kept between commands and applied to hit counts in native code.

`pack` turns make_plan's plan into flat int32 columns (`bytes`, which `marshal` stores and loads without making an
object per line) plus the few strings the model shows: file paths, class and method names, and each branch
record's missed-outcome descriptions (`BranchRecord.missed_parts`, known before the hits). `apply` gives the model
that tests/oracles/apply_plan.py (the rule in Python) gives for the unpacked plan (tests/test_plan_cache.py compares
them): `_native.apply_plan` makes the line maps of files and classes and the files' branch outcomes, and Python
wraps them in the model's objects;
the methods' (`_native.apply_methods`) are made when a class's methods are first read, and until then each class
has their counts (`ClassCoverage.method_numbers`, what the analysis needs of them).

Packed layout (all int32, native byte order):
- files: (path, lines, first point of each line, multi-point lines as (position, count, point ids...), excluded
  lines, not measured, stale); a point id indexes the "points" columns (make_plan's, unchanged).
- classes: (name, file index, specs, positions, method names, method signatures, methods as (token, first point,
  end point), method display names, whether each is a member C# generated for a record); specs are triples, the
  class's then each method's lines: (0, a, b) the file's lines [a, b), or (1, a, b) the file's lines at
  positions[a:b].
- records: per branch record (file index or -1, line, IL offset, class index or -1, method index, is switch,
  outcome count, a code per outcome in kind order): a code >= 0 is a counter, -1 - i the i-th of "expressions"
  (hit_exprs codes); "missed": per record (a description per outcome or None, what is said when none ran or None).
- fixes: the Release switch lines without a point of their own: (file index, line, outcome codes, [(class, method)],
  method token, IL offset of the switch).
- problems: make_plan's warnings (what the plan could not read), as strings.
- unclassified: the methods whose branches the recognisers could not read, as (MethodDef token, name, why).
"""

from __future__ import annotations

from array import array
from functools import partial

from dotcov import _native
from dotcov.analysis import hit_exprs
from dotcov.analysis.branches.analyse import BranchRecord
from dotcov.analysis.contexts import site_contexts
from dotcov.analysis.model import (AssemblyCoverage, BranchCoverage, ClassCoverage, FileCoverage, MethodColumns,
                                  MethodCoverage, PointCoverage)

FORM = 3  # (cache.py's MAGIC names it too)


def _i32(values) -> bytes:
    return array("i", values).tobytes()


def _ints(blob: bytes) -> array:
    a = array("i")
    a.frombytes(blob)
    return a


def pack(plan: dict) -> dict:
    """make_plan's plan in the packed form (the module docstring)."""
    file_index = {row[0]: i for i, row in enumerate(plan["files"])}
    files, positions = [], []
    for path, file_lines, first, multi, excluded_lines, not_measured, stale in plan["files"]:
        flat = []
        for pos, ids in multi.items():
            flat += [pos, len(ids), *ids]
        files.append((path, _i32(file_lines), first, _i32(flat), excluded_lines, not_measured, stale))
        positions.append(None)  # (a line -> its position, made when a class needs it)
    classes = []
    for name, filename, class_lines, method_rows in plan["classes"]:
        f = file_index[filename]
        specs, pool = [], []
        for spec in [class_lines, *(row[3] for row in method_rows)]:
            if type(spec) is tuple:
                specs += [0, spec[0], spec[1]]
                continue
            if positions[f] is None:
                file_lines = plan["files"][f][1]
                positions[f] = dict(zip(file_lines, range(len(file_lines))))
            specs += [1, len(pool), len(pool) + len(spec)]
            pool += map(positions[f].__getitem__, spec)
        methods = [n for row in method_rows for n in (row[2], row[4], row[5])]
        classes.append((name, f, _i32(specs), _i32(pool), [row[0] for row in method_rows],
                        [row[1] for row in method_rows], _i32(methods), [row[6] for row in method_rows],
                        [row[7] for row in method_rows]))
    said_once: dict = {}  # (equal descriptions as one object: marshal stores them once)

    def describe(record: tuple, order: list[int]) -> tuple:
        """A record's missed-outcome descriptions in kind order, and what is said when none ran."""
        token, offset, path, line, kinds, _codes, _plain, generated, is_switch, text, arms, notes = record[:12]
        outcomes = {kinds[i]: 0 for i in order}
        said, none_ran = BranchRecord(token, offset, path, line, outcomes, generated, is_switch, text, arms,
                                      notes).missed_parts()
        parts = tuple(said.get(kinds[i]) for i in order)
        return said_once.setdefault(parts, parts), none_ran

    # (In native code: the per-record loop; describe once per distinct record shape.)
    records, missed, expressions, fixes = _native.pack_records(plan["records"], file_index, describe)
    return {"form": FORM, "name": plan["name"], "files": files, "classes": classes, "records": records,
            "missed": missed, "expressions": expressions, "fixes": fixes, "points": plan["points"],
            "problems": plan["problems"], "unclassified": plan["unclassified"]}


def apply(packed: dict, module, *, contexts: bool = False) -> AssemblyCoverage:
    """The model of one module build: `packed` (pack's) with the hits of `module` (a data.ModuleHits)."""
    hits = module.hits if type(module.hits) is list else list(module.hits)
    evaluate = hit_exprs.evaluate
    expr_values = [evaluate(c, hits) for c in packed["expressions"]]
    files, classes = packed["files"], packed["classes"]
    # The methods are made when first read, all of the module's at once (the table reads none), unless a switch
    # line is fixed below (it writes into its method's lines).
    args = ([(row[1], row[2], row[3]) for row in files], [(row[1], row[2], row[3], row[6]) for row in classes],
            packed["records"], packed["missed"], hits, expr_values, packed["points"][6], BranchCoverage)
    eager = bool(packed["fixes"])
    file_lines, file_branches, class_lines, method_lines, method_branches, counted = _native.apply_plan(
        *args, methods=eager)
    asm = AssemblyCoverage(packed["name"])
    methods = _Methods(packed, hits, args)
    by_file = []
    for (path, _l, _f, _m, excluded_lines, not_measured, stale), lines, branches in zip(files, file_lines,
                                                                                        file_branches):
        fc = asm.files[path] = FileCoverage(path, lines, branches, set(excluded_lines), dict(not_measured), stale)
        by_file.append(fc)
    for ci, ((name, f, _s, _p, names, signatures, _m, _d, _r), lines, numbers) in enumerate(zip(classes, class_lines,
                                                                                        counted)):
        cc = ClassCoverage(name, files[f][0], [], lines)
        if eager:
            cc.methods = methods.made(ci, method_lines[ci], method_branches[ci])
        else:
            cc.defer_methods(partial(methods.of, ci), partial(methods.columns, ci))
            if len(set(names)) == len(names) or len(set(zip(names, signatures))) == len(names):
                cc.method_numbers = numbers  # (analysis._unmerged_methods' figures, counted in native code)
        asm.classes.append(cc)
    point_ctx, branch_ctx = site_contexts(module) if contexts and module.contexts else ({}, {})
    if point_ctx:  # the tests that ran the very points whose hits decide the line
        tokens, offsets = _ints(packed["points"][0]), _ints(packed["points"][1])
        for fc, (_p, lines, first, multi, *_rest) in zip(by_file, files):
            firsts, flat = _ints(first), _ints(multi)
            ids_at = {}
            i = 0
            while i < len(flat):
                ids_at[flat[i]] = flat[i + 2:i + 2 + flat[i + 1]]
                i += 2 + flat[i + 1]
            for pos, line in enumerate(_ints(lines)):
                ids = ids_at.get(pos) or [firsts[pos]]
                ctx = frozenset().union(*(point_ctx.get((tokens[i], offsets[i]), ()) for i in ids))
                if ctx:
                    fc.contexts[line] = ctx
    own: set[int] = set()  # the line maps copied below
    for f, line, codes, owners, token, offset in packed["fixes"]:
        # A Release `switch (k)` line has no sequence point; its dispatch ran once per arm taken.
        fc = by_file[f]
        total = sum(evaluate(c, hits) for c in codes)
        for ci, mi in owners:
            c = asm.classes[ci]
            for holder in (fc, c):
                # A class with all its file's lines shares the file's map: the fix is the file's and its
                # owner's, not every sharer's.
                if id(holder.lines) not in own:
                    holder.lines = dict(holder.lines)
                    own.add(id(holder.lines))
                holder.lines[line] = total
            c.methods[mi].lines[line] = total
        ctx = branch_ctx.get((token, offset))
        if ctx and line in fc.lines:  # the tests whose dispatch ran the switch's first branch instruction
            fc.contexts[line] = ctx
    return asm


class _Methods:
    """The MethodCoverage objects of a module's classes, made from the packed plan when first asked for."""

    def __init__(self, packed: dict, hits: list[int], args: tuple) -> None:
        self.classes, self.args = packed["classes"], args
        self.points = _PointColumns(packed["points"], hits).method  # (bound once: the lookup would cost each call)
        self.pending: tuple[list, list] | None = None

    def of(self, ci: int) -> list[MethodCoverage]:
        """Class `ci`'s methods (its lines and branches made in one native call for every class)."""
        method_lines, method_branches = self._maps()
        return self.made(ci, method_lines[ci], method_branches[ci])

    def columns(self, ci: int) -> MethodColumns:
        """What class `ci`'s methods are made of that the analysis reads (the maps `of` gives them), as columns."""
        method_lines, method_branches = self._maps()
        _name, _f, _s, _p, names, signatures, _rows, displays, record_members = self.classes[ci]
        return MethodColumns(names, signatures, method_lines[ci], method_branches[ci], displays, record_members)

    def _maps(self) -> tuple[list, list]:
        if self.pending is None:
            self.pending = _native.apply_methods(*self.args)
        return self.pending

    def made(self, ci: int, of_lines: list, of_branches: list) -> list[MethodCoverage]:
        _name, _f, _s, _p, names, signatures, rows, displays, record_members = self.classes[ci]
        rows = _ints(rows)
        load, out = self.points, []
        for mname, signature, mlines, mbranches, token, start, end, display, record_member in zip(
                names, signatures, of_lines, of_branches, rows[0::3], rows[1::3], rows[2::3], displays,
                record_members):
            mc = MethodCoverage(mname, signature, mlines, None, token, mbranches, display, record_member)
            mc.defer_points(partial(load, start, end))
            out.append(mc)
        return out


class _PointColumns:
    """The plan's per-point columns with each point's hits, made when a method's points are first read."""

    def __init__(self, blobs: list[bytes], hits: list[int]) -> None:
        self.blobs, self.hits, self.columns = blobs, hits, None

    def method(self, start: int, end: int) -> list[PointCoverage]:
        if self.columns is None:
            *cols, sites = map(_ints, self.blobs)
            with_none = [*self.hits, 0]  # site -1: a point the agent did not count
            self.columns = (*cols, list(map(with_none.__getitem__, sites)))
        return list(map(PointCoverage, *(c[start:end] for c in self.columns)))
