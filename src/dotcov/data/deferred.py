"""A dataclass field made when first read: a large report makes some per-method lists only if a writer
reads them (model.MethodCoverage.points, numbers.MethodAnalysis.points, datafiles.ModuleHits.sites)."""

from __future__ import annotations

from typing import Any, Callable


def deferred_field(cls: type, name: str, make: Callable[[Any], Any], doc: str) -> None:
    """Makes dataclass field `name` of `cls` a property. Constructing and assigning set it as before;
    `defer(obj, name, pending)` leaves it to `make(pending)` when first read."""
    value, waiting = "_" + name, "_" + name + "_pending"
    setattr(cls, waiting, None)  # nothing pending unless defer() said so

    def get(obj):
        pending = getattr(obj, waiting)
        if pending is not None:
            setattr(obj, value, make(pending))
            setattr(obj, waiting, None)
        return getattr(obj, value)

    def set_(obj, v) -> None:
        setattr(obj, value, v)
        setattr(obj, waiting, None)

    setattr(cls, name, property(get, set_, doc=doc))


def defer(obj: Any, name: str, pending: Any) -> None:
    """Field `name` of `obj` (a deferred_field) made from `pending` when first read."""
    setattr(obj, "_" + name + "_pending", pending)


def pending(obj: Any, name: str) -> bool:
    """Whether field `name` of `obj` (a deferred_field) is still to be made."""
    return getattr(obj, "_" + name + "_pending") is not None
