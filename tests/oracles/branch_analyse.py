"""branches.analyse's loop over a module's methods (_native.branch_rows, native/python/native_branches.cpp) stated
in Python: the oracle tests/test_branch_rows.py compares the native one with. Its own grouping of the counters,
containing points, text slices (the `_Sources` and `_uncommented` below), classification, Debug short-circuit
constants and statements' notes grouping; the rare rules (switch arms, operand probes, notes' texts) are the
product's."""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import compress
from operator import itemgetter
from typing import Callable, Iterable

from dotcov import _native
from dotcov.analysis import hit_exprs
from dotcov.analysis.branches import notes as branch_notes
from dotcov.analysis.branches import short_circuit, switch_arms
from dotcov.analysis.branches.analyse import (RECOGNISER_NAMES, BranchRecord, code_lines, compiler_generated_method,
                                              site_columns)
from dotcov.analysis.branches.il import (BRTRUE_S, SWITCH, UNARY_BRANCHES, VALUE_FALSE, VALUE_OPERATORS, VALUE_TRUE,
                                         MethodIL)
from dotcov.analysis.hit_exprs import floor0
from dotcov.analysis.lines import read_source
from dotcov.analysis.branches.short_circuit import OPERAND_FALSE, OPERAND_SKIPPED, OPERAND_TRUE

_SITE, _HITS = itemgetter(0), itemgetter(1)  # of a (site, hits) pair


def symbolic(kinds) -> list:
    """Stand-ins for the hits of the sites of these kinds: a Site for each branch-like site (kind >= 1), None for
    the sequence points (which the analysis never reads)."""
    out = [None] * len(kinds)
    for i in compress(range(len(kinds)), kinds):
        out[i] = hit_exprs.Site(i)
    return out


def containing_point(points: list[tuple], offset: int) -> tuple | None:
    """The last (non-hidden) sequence point of the method at or before `offset`."""
    best = None
    for p in points:
        if p[0] <= offset and (best is None or p[0] >= best[0]):
            best = p
    return best


def operand_hits(sites: Iterable[tuple[int, int, int]], hits: Iterable[int]) -> dict[tuple[int, int], dict[int, int]]:
    """{(method token, IL offset of the right operand's load): {OPERAND_*: hits}}."""
    out: dict[tuple[int, int], dict[int, int]] = {}
    for (token, offset, kind), h in zip(sites, hits):
        if kind in (OPERAND_SKIPPED, OPERAND_FALSE, OPERAND_TRUE):
            counts = out.setdefault((token, offset), {OPERAND_SKIPPED: 0, OPERAND_FALSE: 0, OPERAND_TRUE: 0})
            counts[kind] += h
    return out


class _Sources:
    """Source text slices of sequence points, for the missed-outcome descriptions."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}
        self._texts: dict[str, str | None] = {}
        self._switches: dict[tuple[str, bool, bool], bool] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._files:
            text = read_source(path)
            self._files[path] = text.splitlines() if text is not None else None
            self._texts[path] = text
        return self._files[path]

    def may_hold_switches(self, path: str, fsharp: bool, vb: bool) -> bool:
        """switch_arms.may_hold_switches of the file's text, once per file."""
        key = (path, fsharp, vb)
        if key not in self._switches:
            from dotcov.analysis.branches import switch_arms  # (it builds on this module)

            self.lines(path)
            text = self._texts[path]
            self._switches[key] = text is not None and switch_arms.may_hold_switches(text, fsharp, vb)
        return self._switches[key]

    def span(self, path: str, p: tuple) -> str:
        """The whole source text of a sequence point, over several lines too ("" when unreadable)."""
        _off, sl, sc, el, ec, _doc = p
        lines = self.lines(path)
        if not lines or not 0 < sl <= el <= len(lines) or sc <= 0 or ec <= 0:
            return ""
        text = "\n".join(lines[sl - 1:el])
        return text[sc - 1:len(text) - len(lines[el - 1]) + ec - 1]

    def code_lines(self, path: str, p: tuple) -> str:
        return code_lines(self.lines(path), path, p)

    def slice(self, path: str, p: tuple) -> str:
        """The source text of a sequence point, whole; over several lines joined into one (each line stripped, its
        trailing comment and VB's `_` continuation dropped), so a condition split over lines is read as written."""
        _off, sl, sc, el, ec, _doc = p
        if sl == el and ec <= sc:
            return ""
        text = self.span(path, p)
        if sl == el or not text:
            return text.strip()
        mark = "'" if path.endswith(".vb") else "//"
        return " ".join(part for part in (re.sub(r"\s_$", "", _uncommented(line, mark).strip()).strip()
                                          for line in text.splitlines()) if part)


def _uncommented(line: str, mark: str) -> str:
    """`line` without a trailing comment: a `mark` outside a string literal and what follows it."""
    quoted, escaped = None, False
    for i, c in enumerate(line):
        if escaped:
            escaped = False
        elif quoted:
            escaped = c == "\\"
            quoted = None if c == quoted else quoted
        elif c == '"' or (c == "'" and mark != "'"):
            quoted = c
        elif line.startswith(mark, i):
            return line[:i]
    return line


def branch_hits(sites: Iterable[tuple[int, int, int]], hits: Iterable[int]) -> dict[tuple[int, int], dict[int, int]]:
    """{(method token, IL offset): {kind: hits}} of the branch-outcome sites (kind >= 1)."""
    out: dict[tuple[int, int], dict[int, int]] = {}
    for (token, offset, kind), h in zip(sites, hits):
        if 1 <= kind < VALUE_FALSE:
            outcomes = out.setdefault((token, offset), {})
            outcomes[kind] = outcomes.get(kind, 0) + h
    return out


def value_hits(sites: Iterable[tuple[int, int, int]], hits: Iterable[int]) -> dict[tuple[int, int], dict[int, int]]:
    """{(method token, IL offset): {1: false hits, 2: true hits}} of the value-condition sites, the outcomes in the
    order of a `brtrue`'s (fall-through = false, taken = true) so the notes read them alike."""
    out: dict[tuple[int, int], dict[int, int]] = {}
    for (token, offset, kind), h in zip(sites, hits):
        if kind in (VALUE_FALSE, VALUE_TRUE):
            outcomes = out.setdefault((token, offset), {1: 0, 2: 0})
            outcomes[1 if kind == VALUE_FALSE else 2] += h
    return out


def analyse_py(module, sym, *, bodies: dict[int, bytes] | None = None, assembly_path: str | None = None,
               path_of: Callable[[str], str] | None = None, read_sources: bool = True,
               hits: list | None = None) -> list[BranchRecord]:
    """Every branch the agent counted in `module` (a data.ModuleHits) that maps to a line,
    classified. `sym` is results.Symbols; `bodies` defaults to the method bodies of
    `assembly_path` (default module.path); `path_of` maps PDB document paths (as [paths] does).
    `hits` (default module.hits) may be symbolic(its sites' kinds): the outcomes are then expressions."""
    hits = module.hits if hits is None else hits
    # (the sequence points' counters, kind 0, are most of a module's and none of these: left out at C speed)
    tokens, offsets, kinds = site_columns(module)
    counters = list(compress(zip(zip(tokens, offsets, kinds), hits), kinds))
    counted = branch_hits(map(_SITE, counters), map(_HITS, counters))
    values = value_hits(map(_SITE, counters), map(_HITS, counters))
    operands = operand_hits(map(_SITE, counters), map(_HITS, counters))
    if not counted and not values and not operands:
        return []  # the agent measured no branches in this module
    raw = sym.raw
    if bodies is None:
        try:
            bodies = _native.read_method_bodies(assembly_path or module.path)
        except (OSError, ValueError):
            bodies = {}
    hidden_all = raw.get("hidden_points")
    documents = raw["documents"]
    sources = _Sources()
    by_method: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), outcomes in counted.items():
        by_method.setdefault(token & 0x00FFFFFF, []).append((offset, outcomes))
    values_of: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), outcomes in values.items():
        values_of.setdefault(token & 0x00FFFFFF, []).append((offset, outcomes))
        by_method.setdefault(token & 0x00FFFFFF, [])
    operands_of: dict[int, list[tuple[int, dict[int, int]]]] = {}
    for (token, offset), counts in operands.items():
        operands_of.setdefault(token & 0x00FFFFFF, []).append((offset, counts))
        by_method.setdefault(token & 0x00FFFFFF, [])
    records: list[BranchRecord] = []
    said: dict[tuple, list[dict[int, str]]] = {}  # branch_notes.notes of each statement shape

    mapped: dict[int, str | None] = {}

    def path_of_doc(doc: int) -> str | None:
        if doc not in mapped:  # (once per document)
            mapped[doc] = None if not 0 < doc <= len(documents) else \
                path_of(documents[doc - 1]) if path_of is not None else documents[doc - 1]
        return mapped[doc]

    ends: dict[int, list[int]] | None = None  # document -> the last line of each method's points in it, sorted

    def method_floor(doc: int, first_line: int) -> int:
        """The last line of the methods that end above `first_line` in `doc` (0: none): a switch search never
        goes up into another method's lines."""
        nonlocal ends
        if ends is None:  # (once per module, when a method needs it)
            last: dict[tuple[int, int], int] = {}
            for method, pts in raw["sequence_points"].items():
                for q in pts:
                    last[method, q[5]] = max(last.get((method, q[5]), 0), q[3])
            ends = {}
            for (_method, d), line in last.items():
                ends.setdefault(d, []).append(line)
            for lines_ in ends.values():
                lines_.sort()
        below = ends.get(doc, [])
        k = bisect_left(below, first_line)
        return below[k - 1] if k else 0

    # (Bound once: the loop below runs once per method.)
    sequence_points, raw_methods, kickoff = raw["sequence_points"], raw["methods"], raw["kickoff"]
    attributes = raw.get("attributes", {})
    languages: dict[str, tuple[bool, bool]] = {}  # path -> (F#, VB)
    for rid, found in sorted(by_method.items()):
        points = sorted(sequence_points.get(rid, []))
        if not points:
            continue  # only hidden points (or none): nothing the user wrote to report against
        name = raw_methods[rid - 1][0] if rid <= len(raw_methods) else ""
        attrs = attributes.get(0x06000000 | rid, [])
        move_next = rid in kickoff
        # Each branch's recogniser, Debug short-circuit constants and zero comparison (branch_facts.h):
        # [(offset, opcode, RECOGNISER_NAMES index or -1, short_circuit_constants, tests_zero_comparison)].
        # Without them none of the method's branches is recognised as the compiler's: each counts as the user's,
        # and its record says why (`unclassified`: make_plan warns).
        facts, unclassified = None, "its IL could not be read from the assembly"
        if rid in bodies:
            try:
                facts = _native.il_branch_facts(
                    bodies[rid], move_next,
                    list(hidden_all.get(rid, [])) if hidden_all is not None and move_next else None,
                    [p[0] for p in points] if move_next else [])
                unclassified = None
            except ValueError as e:
                unclassified = f"its IL does not decode ({e})"
        il = _LazyIL(rid, bodies[rid]) if facts is not None else None
        il_branches = {f[0]: f for f in facts} if facts is not None else {}
        whole_method = compiler_generated_method(name, attrs, move_next)
        # Short circuits compiled to `or`/`and` (short_circuit.py): confirmed by the source's operator.
        combined = []  # (offset, counts, Shape, point)
        for offset, counts in sorted(operands_of.get(rid, [])) if il is not None and read_sources else ():
            sc = short_circuit.shape(il.get(), offset)
            at = containing_point(points, offset) or points[0]
            where = path_of_doc(at[5])
            if sc and where and short_circuit.confirmed(sources.span(where, at), sc.is_or):
                combined.append((offset, counts, sc, at))
        whole = {c[2].whole for c in combined}
        rows = []
        for offset, outcomes in sorted(found):
            p = containing_point(points, offset)
            b = il_branches.get(offset)
            generated = None
            if b is not None:
                generated = ("compiler-generated method" if whole_method else RECOGNISER_NAMES[b[2]] if b[2] >= 0
                             else None)
            if il and not b:
                generated = "not a branch in the method's IL"
            if generated is None and offset in whole:
                generated = "whole condition, counted per operand"
            if p is None:
                # Before the first point: in MoveNext the state-machine prologue; elsewhere e.g. a
                # Release `switch` statement's dispatch (under a hidden point). Either is reported
                # on the method's first line.
                p = points[0]
                if il is not None and move_next:
                    generated = generated or "before the first sequence point"
            rows.append((offset, outcomes, p, b, generated))
        # Debug `a || b` / `a && b`: the last condition's own outcomes (short_circuit_constants).
        counts = dict(found)
        for n, (offset, outcomes, p, b, generated) in enumerate(rows):
            sub = b[3] if b is not None and generated is None else None  # (short_circuit_constants)
            if sub:
                own = {k: floor0(h - sum(counts.get(o, {}).get(kind, 0) for o, kind in sub.get(k, [])))
                       for k, h in outcomes.items()}
                rows[n] = (offset, own, p, b, generated)
        # A switch's dispatch becomes one record with an outcome per arm (switch_arms.py), in the document of the
        # method's first point.
        grouped: set[int] = set()
        doc = points[0][5]
        path = path_of_doc(doc)
        language = languages.get(path)
        if language is None:
            language = languages[path] = (path is not None and path.endswith((".fs", ".fsx", ".fsi")),
                                          path is not None and path.endswith(".vb"))
        fsharp, vb = language
        if il is not None and read_sources and path is not None and sources.may_hold_switches(path, fsharp, vb):
            # Under a hidden point in MoveNext (Release async code loads the switch value from a hoisted field after
            # `GetResult()`), a dispatch the source confirms as a switch is the user's too.
            user = {offset: outcomes for offset, outcomes, _p, _b, g in rows
                    if g in (None, "hidden sequence point") and _b is not None}
            for sw in switch_arms.find(il.get(), [q for q in points if q[5] == doc], user, sources.lines(path),
                                       fsharp=fsharp, vb=vb, floor=method_floor(doc, points[0][1])):
                grouped.update(sw.offsets)
                records.append(BranchRecord(0x06000000 | rid, sw.offsets[0], path, sw.line, sw.outcomes, None,
                                            True, arms=sw.arms))
        # (opcode, record, tests written value, tests a reference)
        by_statement: dict[int, list[tuple[int, BranchRecord, bool, bool]]] = {}
        for offset, outcomes, p, b, generated in rows:
            where = path_of_doc(p[5])
            if offset in grouped or where is None:
                continue
            is_switch = b is not None and b[1] == SWITCH
            r = BranchRecord(0x06000000 | rid, offset, where, p[1], outcomes, generated, is_switch,
                             sources.slice(where, p) if read_sources else "", unclassified=unclassified)
            records.append(r)
            if b is not None and generated is None and not is_switch:
                # (b[4]: tests_zero_comparison; a null test's jump may test the reference itself: notes.py)
                ref = (not b[4] and b[1] in UNARY_BRANCHES and ("null" in r.text or "Nothing" in r.text)
                       and branch_notes.jumps_on_reference(il.get(), offset))
                by_statement.setdefault(p[0], []).append((b[1], r, b[4], ref))
        # Conditions computed into a value (the agent's value probes): two outcomes each, read like a `brtrue`.
        for offset, outcomes in sorted(values_of.get(rid, [])):
            p = containing_point(points, offset) or points[0]
            where = path_of_doc(p[5])
            if where is None:
                continue
            text = sources.code_lines(where, p) if read_sources else ""
            if text and not VALUE_OPERATORS.search(text):
                continue  # `if (x < 0) return true; return flag;` compiles like `x < 0 || flag`: no condition
            generated = "compiler-generated method" if whole_method else None
            r = BranchRecord(0x06000000 | rid, offset, where, p[1], outcomes, generated, False,
                             sources.slice(where, p) if read_sources else "")
            records.append(r)
            if generated is None:
                by_statement.setdefault(p[0], []).append((BRTRUE_S, r, True, False))  # counts the written value
                by_statement[p[0]].sort(key=lambda row: row[1].offset)
        # Both operands of a short circuit compiled to `or`/`and`: two outcomes each, read like a `brtrue`.
        for offset, counts, sc, at in combined:
            left, right = short_circuit.outcomes(counts, sc)
            where = path_of_doc(at[5])
            generated = "compiler-generated method" if whole_method else None
            for at, o in ([(sc.left, left)] if sc.left is not None else []) + [(offset, right)]:
                q = containing_point(points, at) or points[0]
                r = BranchRecord(0x06000000 | rid, at, where, q[1], o, generated, False, sources.slice(where, q))
                records.append(r)
                if generated is None:
                    by_statement.setdefault(q[0], []).append((BRTRUE_S, r, True, False))
                    by_statement[q[0]].sort(key=lambda row: row[1].offset)
        # Missed outcomes in source terms (notes.py), per statement.
        for rows_of in by_statement.values():
            # (notes depend on the text, opcodes and written flags only: once per distinct statement; read-only)
            key = (rows_of[0][1].text, *[(op, w, ref) for op, _r, w, ref in rows_of])
            descriptions = said.get(key)
            if descriptions is None:
                descriptions = said[key] = branch_notes.notes(rows_of[0][1].text,
                                                              [(op, r.outcomes, w, ref) for op, r, w, ref in rows_of])
            for (_op, r, _w, _ref), d in zip(rows_of, descriptions):
                r.notes = d
    return records


class _LazyIL:
    """A method's MethodIL, decoded when first asked for (analyse needs it only for operand probes and switches)."""

    __slots__ = ("args", "il")

    def __init__(self, *args) -> None:
        self.args, self.il = args, None

    def get(self) -> MethodIL:
        if self.il is None:
            self.il = MethodIL.decode(*self.args)
        return self.il


def branch_rows_py(module, sym, *, bodies=None, assembly_path=None, path_of=None, read_sources=True) -> list[tuple]:
    """branch_rows' tuples, from analyse_py run on symbolic counters."""
    encode = hit_exprs.encode
    return [(r.method_token, r.offset, r.path, r.line, list(r.outcomes), [encode(h) for h in r.outcomes.values()],
             r.generated, r.is_switch, r.text, r.arms, r.notes, r.unclassified)
            for r in analyse_py(module, sym, bodies=bodies, assembly_path=assembly_path, path_of=path_of,
                                read_sources=read_sources, hits=symbolic(site_columns(module)[2]))]
