"""Each point's counter found natively (plan.point_columns, _native.point_columns) gives what the Python reference
below gives, and values the native code does not take fall back to Python."""

from __future__ import annotations

import random
from array import array
from itertools import repeat
from operator import itemgetter
from types import SimpleNamespace

import pytest

from dotcov import _native
from dotcov.data import datafiles as data
from dotcov.analysis.plans import plan


def python_point_columns(points, point_tokens, order, sites) -> list[bytes]:
    """main's per-point columns (before plan.point_columns)."""
    site_of = dict(zip(sites, range(len(sites))))
    tokens = list(map(point_tokens.__getitem__, order))
    offsets, *spans, _docs = zip(*map(points.__getitem__, order)) if order else ((),) * 6
    columns = [tokens, offsets, *spans, list(map(site_of.get, zip(tokens, offsets, repeat(0)), repeat(-1)))]
    return [array("i", c).tobytes() for c in columns]


def test_native_point_columns_are_the_python_ones():
    rng = random.Random(12)
    sites = [(0x06000000 | rng.randrange(1, 40), rng.randrange(0, 60), rng.choice([0, 0, 1, 2, 0x80000000]))
             for _ in range(5000)]
    points = [(rng.randrange(0, 70), rng.randrange(1, 900), rng.randrange(1, 80), rng.randrange(1, 900),
               rng.randrange(1, 80), rng.randrange(1, 4)) for _ in range(3000)]
    point_tokens = [0x06000000 | rng.randrange(1, 45) for _ in points]
    order = rng.sample(range(len(points)), 2500)
    got = plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))
    assert got == python_point_columns(points, point_tokens, order, sites)
    counters = array("i", got[-1])
    assert -1 in counters and len({*counters}) > 100  # (found and missing counters both)
    # From a data file's site blob (data.ModuleHits.site_blob: no site tuple made) and from site tuples alike.
    read = data.ModuleHits(b"m" * 16, b"p" * 20, "m.dll", None, [0] * len(sites))
    read.defer_site_blob(b"".join(array("I", map(itemgetter(i), sites)).tobytes() for i in range(3)))
    assert plan.point_columns(points, point_tokens, order, read) == got
    assert read._sites_pending is not None  # (the tuples were not made)
    given = data.ModuleHits(b"m" * 16, b"p" * 20, "m.dll", list(sites), [0] * len(sites))
    assert plan.point_columns(points, point_tokens, order, given) == got
    assert plan.point_columns([], [], [], SimpleNamespace(sites=sites)) == python_point_columns([], [], [], sites)
    # The order as int32 values in an array (make_plan's: no int object per point), and arrays it does not take.
    blob = read.site_blob()
    assert _native.point_columns(points, point_tokens, array("i", order), blob) == got
    assert _native.point_columns(points, point_tokens, array("i"), blob) == python_point_columns([], [], [], sites)
    for other in (array("q", order), array("h", order[:5]), memoryview(array("i", order))[::2]):
        with pytest.raises(TypeError):
            _native.point_columns(points, point_tokens, other, blob)
    with pytest.raises(TypeError):  # (make_plan's order is int32)
        plan.point_columns(points, point_tokens, array("q", order), read)
    with pytest.raises(ValueError):
        _native.point_columns(points, point_tokens, array("i", [*order[:3], len(points)]), blob)


@pytest.mark.parametrize("case", ["site beyond 32 bits", "negative site", "point beyond int32"])
def test_point_columns_outside_the_native_range_are_refused(case):
    sites = [(7, 2, 0), (9, 1, 0)]
    points = [(2, 10, 1, 10, 5, 1), (1, 11, 1, 11, 5, 1)]
    point_tokens = [7, 9]
    if case == "site beyond 32 bits":
        sites.append((2**40, 1, 0))
    elif case == "negative site":
        sites.append((-1, 3, 0))
    else:
        points.append((0, 2**31, 1, 2**31, 5, 1))
        point_tokens.append(7)
    order = list(range(len(points)))[::-1]
    with pytest.raises((ValueError, OverflowError)):
        plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))


@pytest.mark.parametrize("blob", [b"", b"\0" * 11, b"\0" * 13, b"\1" * 25, bytearray(12), "abc", None])
def test_native_point_columns_check_the_site_blob(blob):
    points, point_tokens, order = [(2, 10, 1, 10, 5, 1)], [7], [0]
    if type(blob) is bytes and len(blob) % 12 == 0:  # (well formed: no site, or a (0, 0, 0) site)
        assert _native.point_columns(points, point_tokens, order, blob)[-1] == array("i", [-1]).tobytes()
        return
    with pytest.raises(ValueError if type(blob) is bytes else TypeError):
        _native.point_columns(points, point_tokens, order, blob)


def test_point_columns_of_values_that_are_not_ints_are_refused():
    class Index:  # an int only through __index__ (which native code must not call: it could change the lists)
        def __index__(self):
            return 0

    sites = [(7, 2, 0), (9, 1, Index())]
    points, point_tokens, order = [(2, 10, 1, 10, 5, 1)], [7], [0]
    with pytest.raises(TypeError):
        plan.point_columns(points, point_tokens, order, SimpleNamespace(sites=sites))
