"""A file's line plan (plan.file_line_plan, native/python/native_plan.cpp) stated in Python: the oracle
tests/test_plan_lines.py compares the native one with (lines.deciding_lines, then each line's class and method)."""

from __future__ import annotations

from array import array
from itertools import compress, groupby
from operator import itemgetter

from dotcov.analysis import lines as line_rule

# The PDB's point tuples: (IL offset, start line, start column, end line, end column, document).
_START, _START_COLUMN, _END, _END_COLUMN = itemgetter(1), itemgetter(2), itemgetter(3), itemgetter(4)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def file_line_plan_py(points: list[tuple], runs: list[tuple[int, int, tuple[int, ...]]], free,
                      tokens: list[int]) -> tuple:
    """plan.file_line_plan (_native.line_plan) in Python."""
    ids = [i for first, count, _owners in runs for i in range(first, first + count)]
    owners = [o for _first, count, o in runs for _ in range(count)]
    of_file = list(map(points.__getitem__, ids))
    deciding = line_rule.deciding_lines(list(map(_START, of_file)), list(map(_END, of_file)), free,
                                        start_columns=list(map(_START_COLUMN, of_file)),
                                        end_columns=list(map(_END_COLUMN, of_file)),
                                        methods=list(map(tokens.__getitem__, ids)))
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
