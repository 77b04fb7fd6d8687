"""The counts of a method's, class's or file's lines and branch lines (analysis/numbers.py's line_numbers and
cyclomatic_complexity, counted by _native.line_counts in native/python/native_numbers.cpp) stated in Python: the
oracle tests/test_line_counts.py compares the native one with."""

from __future__ import annotations

from dotcov.analysis.model import branch_outcomes


def line_counts_py(lines: dict, branches: dict) -> tuple[int, int, int, int, int, int]:
    """(statements, missed, outcomes, outcomes covered, partial lines, cyclomatic complexity)."""
    statements = len(lines)
    missed = sum(1 for hits in lines.values() if hits == 0)
    outcomes = covered = partial = 0
    complexity = 1
    for line, b in branches.items():
        taken = min(b.covered, b.total)
        outcomes += b.total
        covered += taken
        partial += taken < b.total and lines.get(line, 0) > 0  # ran, with an outcome missed
        # one decision per outcome beyond the first of each branch instruction
        for _offset, hits in b.outcome_hits or branch_outcomes(b):
            if hits:
                complexity += len(hits) - 1
    return statements, missed, outcomes, covered, partial, complexity
