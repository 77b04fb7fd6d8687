"""How a module plan (plan.make_plan's, unpacked) and the module's hit counts make the model, stated in Python: the
oracle of the product's packed apply (plans/packed.py, native/python/native_apply.cpp) that tests/test_plan_cache.py
compares it with."""

from __future__ import annotations

from array import array
from functools import partial

from dotcov.analysis import hit_exprs
from dotcov.analysis.branches.analyse import BranchRecord
from dotcov.analysis.contexts import site_contexts
from dotcov.analysis.model import (AssemblyCoverage, BranchCoverage, ClassCoverage, FileCoverage, MethodCoverage,
                                   PointCoverage)


def apply_plan(plan: dict, module, *, contexts: bool = False) -> AssemblyCoverage:
    """The model of one module build: `plan` (make_plan's) with the hits of `module` (a data.ModuleHits)."""
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
    deciding: dict[str, dict[int, list[int]]] = {}  # path -> its lines decided by several points: their ids
    for path, file_lines, first, multi, excluded_lines, not_measured, stale in plan["files"]:
        fc = files[path] = FileCoverage(path)
        firsts = array("i")
        firsts.frombytes(first)
        values = list(map(point_hits.__getitem__, firsts))
        for pos, ids in multi.items():
            values[pos] = max(map(point_hits.__getitem__, ids))
        fc.lines = dict(zip(file_lines, values))
        columns[path] = (file_lines, values)
        deciding[path] = {file_lines[pos]: ids for pos, ids in multi.items()}
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
        for mname, signature, token, method_lines, start, end, display, record_member in method_rows:
            mc = MethodCoverage(mname, signature, lines_of(method_lines), None, token, display=display,
                                record_member=record_member)
            for line in mc.lines.keys() & deciding[filename].keys():  # (lines.py: a method's own hits)
                own = [point_hits[i] for i in deciding[filename][line] if start <= i < end]
                if own:
                    mc.lines[line] = max(own)
            mc.defer_points(partial(_points, point_columns, start, end))
            cc.methods.append(mc)
        classes.append(cc)
    asm.classes = classes
    evaluate = hit_exprs.evaluate
    records = [BranchRecord(token, offset, path, line,
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
