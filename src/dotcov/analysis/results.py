"""Turns merged counters plus each module's portable PDB into line coverage.

A line's statements are the module's non-hidden sequence points, read as the
user reads lines (lines.py: the points that start on a line decide it, an
enclosing multi-line statement only its continuation lines, never blank or
comment lines). Compiler-generated types (closures, state machines) are
reported under the user type that contains them, and state-machine MoveNext
methods under the method the user wrote.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from dotcov import __version__
from dotcov.analysis.plans import cache as plan_cache
from dotcov.analysis.model import add_branches, add_contexts, add_lines
from dotcov.data.datafiles import CoverageData, ModuleHits
from dotcov.analysis.filters import Filters
from dotcov.analysis.paths import PathMapper
from dotcov.analysis.model import AssemblyCoverage, CoverageResult, FileCoverage
from dotcov.analysis.plans.packed import apply as apply_plan, pack
from dotcov.analysis.plans.plan import make_plan
from dotcov.analysis.symbols import SourceChecks, Symbols, SymbolsError, load_symbols  # noqa: F401 (api's, tests')


@dataclass
class ReportOptions:
    """What the reports include, and where paths point (dotcov.toml [report] and [paths])."""

    filters: Filters | None = None
    skip_auto_properties: bool = False
    all_branches: bool = False
    paths: dict[str, list[str]] | None = None
    contexts: bool = False  # also each line's per-test contexts (FileCoverage.contexts; contexts.py)


def module_coverage(module: ModuleHits, sym: Symbols, options: ReportOptions | None = None,
                    mapper: PathMapper | None = None, checks: SourceChecks | None = None) -> AssemblyCoverage:
    """The model of one module build: its plan (plans/plan.py: what does not depend on hits) with its hits."""
    options = options or ReportOptions()
    the_plan = pack(make_plan(module, sym, options, mapper or PathMapper(), checks or SourceChecks()))
    return apply_plan(the_plan, module, contexts=options.contexts)


def build(data: CoverageData, source_root: Path, options: ReportOptions | None = None, *,
          all_branches: bool | None = None,
          not_loaded: list[ModuleHits] = (), cache_dir: Path | None = None) -> tuple[CoverageResult, list[str]]:
    """Returns the result and the problems found (modules that could not be reported, and what their plans could
    not read: make_plan's "problems").

    cache_dir: where module plans are kept between commands (plans/cache.py; default none: always built).

    all_branches (default: options.all_branches, False) also reports the branches the
    compiler generated; see branches/analyse.py."""
    options = options or ReportOptions()
    if all_branches is not None:
        options = dataclasses.replace(options, all_branches=all_branches)
    mapper = PathMapper(options.paths, source_root)
    result = CoverageResult(source_root=str(source_root), timestamp=int(data.newest_mtime))
    problems: list[str] = []
    by_name: dict[str, AssemblyCoverage] = {}
    checks = SourceChecks()
    unloaded = {id(m) for m in not_loaded}
    for module in [*data.modules.values(), *not_loaded]:
        assembly = mapper.map(module.path)
        key = plan_cache.cache_key(module, options, mapper, __version__) if cache_dir is not None else None
        the_plan = plan_cache.load(cache_dir, key, mapper, module.path) if key is not None else None
        asm = None
        if the_plan is not None:
            try:
                asm = apply_plan(the_plan, module, contexts=options.contexts)
            except (ValueError, IndexError, KeyError, TypeError):
                the_plan = None  # a kept plan that does not add up (plans/packed.apply checks it): made again
        if the_plan is None:
            try:
                sym = load_symbols(module, assembly)
            except SymbolsError as e:
                problems.append(str(e))
                continue
            pdb, documents = sym.raw.get("pdb_path") or "", sym.raw["documents"]
            read = plan_cache.inputs(assembly, pdb, documents, mapper, module.path) if key is not None else None
            the_plan = pack(make_plan(module, sym, options, mapper, checks))
            if key is not None:
                plan_cache.store(cache_dir, key, the_plan, assembly=assembly, pdb=pdb, documents=documents, read=read)
            asm = apply_plan(the_plan, module, contexts=options.contexts)
        problems += the_plan["problems"]  # (what the plan could not read: said by a cached plan too)
        result.unclassified += [(module.path, *m) for m in the_plan["unclassified"]]
        asm.not_loaded = id(module) in unloaded
        if not asm.files:
            continue  # everything filtered out
        have = by_name.get(asm.name)
        if have is None:
            by_name[asm.name] = asm
            continue
        # Another build of the same assembly (e.g. another target framework): merge.
        # The one merge rule (model.py): hits add, branch outcomes matched by their place in the source.
        for path, fc in asm.files.items():
            into = have.files.setdefault(path, FileCoverage(path))
            into.lines = dict(into.lines)  # (not the map a class of `have` may share: plans/packed.apply)
            add_lines(into.lines, fc.lines)
            add_branches(into.branches, fc.branches)
            add_contexts(into.contexts, fc.contexts)
            into.stale = into.stale or fc.stale
            into.excluded = (into.excluded | fc.excluded) - into.lines.keys()
            for line, why in fc.not_measured.items():
                if line not in into.lines:
                    into.not_measured.setdefault(line, why)
        have.classes.extend(asm.classes)
    if result.unclassified:  # (said once per report; `dotcov debug data` names each method and why)
        problems.append(unclassified_warning(result.unclassified))
    result.assemblies = [by_name[n] for n in sorted(by_name)]
    result.not_loaded = sorted(a.name for a in result.assemblies if a.not_loaded)
    return result, problems


def relative_name(path: str, root: str) -> str:
    p = Path(path)
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()


def unclassified_warning(unclassified: list) -> str:
    """The one warning of a report whose data holds methods the branch recognisers could not read."""
    modules = len({m[0] for m in unclassified})
    return (f"the branches of {len(unclassified)} method(s) in {modules} module(s) are all counted as the user's, "
            "compiler-generated ones too, for the recognisers could not read them ('dotcov debug data' lists them "
            "with the reason)")
