"""Hit counts as expressions of the data file's counters, so the work that does not depend on hits is done once.

`branches.analyse` combines counters into outcome hits: a sum of sites (the same outcome counted twice), a
difference clamped at zero (a Debug `a || b`'s last condition, branch_facts' short_circuit_constants), the sum of the
outcomes leading to one switch arm (switch_arms). Run with `symbolic(kinds)` (the sites' kinds) instead of the hit counts, it
returns records whose outcomes are these expressions; `encode` turns one into plain data (an int for one
counter, the common case) and `evaluate` gives its value for a list of hit counts (plan.py).
"""

from __future__ import annotations

from itertools import compress


class Expr:
    """A hit count not yet known: supports the arithmetic branches.analyse does (+, -, floor0)."""

    __slots__ = ()

    def __add__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        return _Op("+", self, other)

    def __radd__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        return _Op("+", other, self)

    def __sub__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        return _Op("-", self, other)

    def __rsub__(self, other):
        return _Op("-", other, self)

    def floor0(self) -> Expr:
        return _Op("max0", self, 0)


class Site(Expr):
    """The hits of one counter: `hits[index]`."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Op(Expr):
    __slots__ = ("op", "a", "b")

    def __init__(self, op: str, a, b) -> None:
        self.op, self.a, self.b = op, a, b


def floor0(value):
    """max(0, value), for a number or an expression."""
    return value.floor0() if isinstance(value, Expr) else max(0, value)


def symbolic(kinds) -> list:
    """Stand-ins for the hits of the sites of these kinds: a Site for each branch-like site (kind >= 1), None for
    the sequence points (which branches.analyse never reads)."""
    out = [None] * len(kinds)
    for i in compress(range(len(kinds)), kinds):  # (only the branch sites in Python: most are sequence points)
        out[i] = Site(i)
    return out


def encode(value):
    """Plain data for marshal: a counter's index (int >= 0); ("c", n) a constant; (op, a, b) an operation."""
    if isinstance(value, Site):
        return value.index
    if isinstance(value, _Op):
        return (value.op, encode(value.a), encode(value.b))
    return ("c", value)


def decode(code):
    """The value `encode` gave `code` for: a Site, a number or an operation of them."""
    if type(code) is int:
        return Site(code)
    if code[0] == "c":
        return code[1]
    return _Op(code[0], decode(code[1]), decode(code[2]))


def evaluate(code, hits: list[int]) -> int:
    if type(code) is int:
        return hits[code]
    op = code[0]
    if op == "c":
        return code[1]
    a, b = evaluate(code[1], hits), evaluate(code[2], hits)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    return max(a, b)  # "max0": max(a, 0)
