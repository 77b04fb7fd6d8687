"""The plan cache's bounds (plans/cache.py), with hand-made plans (no .NET build): any number of module builds
stay cached while they fit in MAX_BYTES, and pruning removes the least recently used plans first (a hit counts as
a use)."""

from __future__ import annotations

import os

from dotcov.analysis.paths import PathMapper
from dotcov.analysis.plans import cache as plan_cache


def module(tmp_path, n: int) -> dict:
    """The files of one hand-made module build (an assembly, its PDB, one source) and its key."""
    folder = tmp_path / f"m{n}"
    folder.mkdir()
    for name in ("A.dll", "A.pdb", "A.cs"):
        (folder / name).write_text(f"module {n} {name}")
    return {"key": f"{n:040x}", "assembly": str(folder / "A.dll"), "pdb": str(folder / "A.pdb"),
            "documents": [str(folder / "A.cs")]}


def store(cache, m: dict, size: int = 100) -> None:
    mapper = PathMapper()
    read = plan_cache.inputs(m["assembly"], m["pdb"], m["documents"], mapper, m["assembly"])
    plan_cache.store(cache, m["key"], {"plan": m["key"], "pad": b"x" * size}, assembly=m["assembly"],
                     pdb=m["pdb"], documents=m["documents"], read=read)


def load(cache, m: dict):
    return plan_cache.load(cache, m["key"], PathMapper(), m["assembly"])


def test_more_module_builds_than_sixteen_are_all_reused(tmp_path):
    cache = tmp_path / "cache"
    modules = [module(tmp_path, n) for n in range(40)]
    for m in modules:
        store(cache, m)
    for _report in range(4):  # every report reads them in the same order
        assert [(load(cache, m) or {}).get("plan") for m in modules] == [m["key"] for m in modules]


def test_pruning_removes_the_least_recently_used_plan_first(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    a, b, c, d = (module(tmp_path, n) for n in range(4))
    for age, m in enumerate((a, b, c)):
        store(cache, m, size=1000)
        os.utime(plan_cache.FILES.path(cache, m["key"]), ns=(10**18 + age, 10**18 + age))  # a oldest, then b, c
    size = plan_cache.FILES.path(cache, a["key"]).stat().st_size
    monkeypatch.setattr(plan_cache, "MAX_BYTES", 3 * size + size // 2)  # room for three plans
    assert load(cache, a) is not None  # a is now the most recently used
    store(cache, d, size=1000)
    assert load(cache, b) is None  # the least recently used went
    for m in (a, c, d):
        assert load(cache, m) is not None


def test_a_plan_bigger_than_the_bound_is_still_kept_when_just_written(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setattr(plan_cache, "MAX_BYTES", 10)
    a, b = module(tmp_path, 0), module(tmp_path, 1)
    store(cache, a)
    os.utime(plan_cache.FILES.path(cache, a["key"]), ns=(10**18, 10**18))
    store(cache, b)
    assert load(cache, a) is None
    assert load(cache, b) is not None
