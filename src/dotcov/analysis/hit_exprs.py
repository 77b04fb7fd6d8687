"""Hit counts as expressions of the data file's counters, so the work that does not depend on hits is done once.

The branch analysis (`branches.analyse`) combines counters into outcome hits: a sum of sites (the same outcome counted
twice), a difference clamped at zero (a Debug `a || b`'s last condition, branch_facts' short_circuit_constants), the sum
of the outcomes leading to one switch arm (switch_arms). Its outcomes are codes, plain data: a counter's index (the
common case), ("c", n) a constant, (op, a, b) an operation. Its native loop builds them directly; the Python rules that
combine outcomes (switch_arms, short_circuit) read `decode`d ones, Exprs, and give back `encode`d ones; `evaluate`
gives a code's value for a list of hit counts (plan.py).
"""

from __future__ import annotations


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
