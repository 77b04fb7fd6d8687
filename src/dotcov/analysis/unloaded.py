"""Assemblies no test process loaded: reported at 0% ("not loaded") instead of left out.

An assembly built from the project's sources that no test touched would otherwise vanish from the
report and inflate the total (coverlet and Microsoft's collector list it at 0%). Candidates are the
assemblies beside the loaded ones (a test project's output directory holds the projects it references)
and those under each `--source DIR` / `[run] source` directory. A candidate is reported when the agent
would have covered it (its own filter: a portable PDB with sources under the source root, not a test
assembly) and no build of an assembly of that name was loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from dotcov import _native
from dotcov.data.datafiles import CoverageData, ModuleHits


def _sites(dll: Path) -> list[tuple[int, int, int]]:
    """The probe sites the agent would have placed (_native.read_probe_sites: the agent's own code), or none."""
    try:
        return _native.read_probe_sites(str(dll))
    except (OSError, ValueError):
        return []


def _candidates(data: CoverageData, source_dirs: Iterable[Path]) -> list[Path]:
    found: set[Path] = set()
    # (each directory once: a test project's output directory holds every module a solution loads)
    for directory in sorted({Path(module.path).parent for module in data.modules.values()}):
        if directory.is_dir():
            found.update(p for p in directory.glob("*.dll") if p.is_file())
    for directory in source_dirs:
        if Path(directory).is_dir():
            found.update(p for p in Path(directory).rglob("*.dll") if p.is_file())
    return sorted(found)


def never_loaded(data: CoverageData, source_root: Path, source_dirs: Iterable[Path] = (), *,
                 include_tests: bool = False) -> list[ModuleHits]:
    """Module data (every sequence point at 0 hits) for each assembly the agent would have covered
    but no process loaded; one per assembly name (the first path in sorted order)."""
    loaded_paths = {str(Path(m.path).resolve()) for m in data.modules.values()}
    loaded_mvids = {m.mvid for m in data.modules.values()}
    loaded_names = {Path(m.path).stem.lower() for m in data.modules.values()}
    out: list[ModuleHits] = []
    for dll in _candidates(data, source_dirs):
        if str(dll.resolve()) in loaded_paths or dll.stem.lower() in loaded_names:
            continue
        cover, _why = _native.decide_module(str(dll), str(source_root), include_tests)
        if not cover:
            continue
        try:
            raw = _native.read_symbols(str(dll))
        except (OSError, ValueError):
            continue
        if raw["mvid"] in loaded_mvids or raw["assembly_name"].lower() in loaded_names:
            continue
        sites = _sites(dll)
        if not sites:
            continue
        out.append(ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, [0] * len(sites), processes=0))
        loaded_names.add(raw["assembly_name"].lower())
    return out
