"""_native.line_counts (analysis/numbers.py's counts of lines and branch lines) against its Python oracle
(tests/oracles/line_counts.py), on random lines and branches and on the odd values a hand-built model may hold."""

from __future__ import annotations

import random

import pytest

from dotcov import _native
from dotcov.analysis.model import BranchCoverage
from dotcov.analysis.numbers import cyclomatic_complexity, line_numbers
from oracles.line_counts import line_counts_py


def _random_case(rng: random.Random) -> tuple[dict, dict]:
    lines = {n: rng.choice([0, 0, 1, 3, 2**40, 2**70]) for n in rng.sample(range(1, 200), rng.randint(0, 30))}
    branches = {}
    for n in rng.sample(range(1, 200), rng.randint(0, 12)):
        total = rng.randint(0, 6)
        covered = rng.randint(0, total + 2)  # (more than its outcomes too: counted as all of them)
        outcome_hits = [(rng.randint(0, 99), [rng.randint(0, 2) for _ in range(rng.randint(0, 5))])
                        for _ in range(rng.randint(0, 3))]
        branches[n] = BranchCoverage(covered, total, outcome_hits=outcome_hits)
    return lines, branches


def test_native_counts_equal_the_oracle_on_random_input():
    rng = random.Random(24)
    cases = [_random_case(rng) for _ in range(3000)]
    assert _native.line_counts(cases) == [line_counts_py(lines, branches) for lines, branches in cases]


def test_numbers_read_the_counts():
    lines = {1: 4, 2: 0, 3: 2, 5: 0}
    branches = {3: BranchCoverage(1, 2, outcome_hits=[(7, [3, 0])]), 5: BranchCoverage(0, 3)}
    n = line_numbers(lines, branches, excluded=2, not_measured=1)
    assert (n.statements, n.missed, n.branches, n.branches_covered, n.partial, n.excluded, n.not_measured) == \
        (4, 2, 5, 1, 1, 2, 1)  # line 5 never ran: missed, not partial
    assert cyclomatic_complexity(branches) == 1 + 1 + 2  # a two-way jump, and a hand-built line of three outcomes


def test_a_non_int_hit_count_compares_as_python_does():
    assert _native.line_counts([({1: 0.0, 2: 2.5, 3: -1}, {2: BranchCoverage(0, 2), 3: BranchCoverage(0, 2)})]) \
        == [(3, 1, 4, 0, 1, 3)]


@pytest.mark.parametrize("bad", [[({1: 1},)], [([1], {})], [({}, [])], [None], [({}, {1: object()})]])
def test_other_shapes_raise(bad):
    with pytest.raises((TypeError, AttributeError)):
        _native.line_counts(bad)
