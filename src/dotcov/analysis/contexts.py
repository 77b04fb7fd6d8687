"""Per-test contexts in the reports: which tests ran each line, and the data limited to some tests.

The agent records, per module, context name (a test's `Namespace.Class.Method`) -> the indexes of the
sites (sequence points and branch outcomes) whose probe ran while that test ran (`ModuleHits.contexts`,
`dotcov run --contexts test`). Hit counts are not recorded per context, so:

* `--contexts PATTERN` (coverage.py's `--contexts`: comma-separated regular expressions, `re.search`)
  keeps the sites some matching test ran, each with 1 hit, and every other site at 0: under a filter a
  count says "ran" (1, or the sum of such 1s where several points or builds add up), never how often.
  Code run outside any test (fixtures, class constructors the framework runs) is left out.
* A line's contexts are the union of the contexts of the points that decide it (lines.py), so a line
  is "run by T" exactly when `--contexts` limited to T calls it covered (results.py computes both from
  the same points; tests/test_contexts.py checks the agreement on every line).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from dotcov.data.datafiles import CoverageData, ModuleHits

NO_CONTEXTS = ("the coverage data holds no per-test contexts; record them with "
               "'dotcov run --contexts test -- dotnet test'")


class ContextError(Exception):
    """A pattern that is not a regular expression, or contexts asked of data that has none."""


def parse_patterns(patterns: Iterable[str]) -> list[re.Pattern]:
    """Each argument is a comma-separated list of regular expressions (empty items are ignored)."""
    out = []
    for arg in patterns:
        for item in arg.split(","):
            item = item.strip()
            if not item:
                continue
            try:
                out.append(re.compile(item))
            except re.error as e:
                raise ContextError(f"--contexts {item!r} is not a regular expression: {e}") from None
    return out


def has_contexts(data: CoverageData) -> bool:
    return any(m.contexts for m in data.modules.values())


def matches(name: str, patterns: list[re.Pattern]) -> bool:
    return any(p.search(name) for p in patterns)


def _limit(module: ModuleHits, patterns: list[re.Pattern]) -> ModuleHits:
    kept = {name: indexes for name, indexes in module.contexts.items() if matches(name, patterns)}
    ran: set[int] = set().union(*kept.values()) if kept else set()
    hits = [1 if i in ran else 0 for i in range(len(module.sites))]
    # Everything else (method states, not-measured notes) is the module's own: a method no test ran is
    # still measured, and reads as not run.
    return dataclasses.replace(module, hits=hits, contexts=kept, not_measured=list(module.not_measured),
                               unmeasured=dict(module.unmeasured), unmeasured_sites=dict(module.unmeasured_sites))


def limit_data(data: CoverageData, patterns: list[re.Pattern]) -> CoverageData:
    """A copy of `data` with each site hit (once) iff a context matching `patterns` ran it.

    Raises ContextError when the data holds no contexts at all (nothing could match, and an empty report
    would look like untested code)."""
    if not has_contexts(data):
        raise ContextError(NO_CONTEXTS)
    return dataclasses.replace(data, modules={k: _limit(m, patterns) for k, m in data.modules.items()})


def site_contexts(module: ModuleHits) -> tuple[dict[tuple[int, int], frozenset[str]],
                                               dict[tuple[int, int], frozenset[str]]]:
    """The module's contexts by place: ({(token, IL offset): contexts} of its sequence points,
    {(token, IL offset): contexts} of its branches, every outcome's together). Empty without contexts."""
    by_site: dict[int, set[str]] = {}
    for name, indexes in module.contexts.items():
        for i in indexes:
            by_site.setdefault(i, set()).add(name)
    points: dict[tuple[int, int], frozenset[str]] = {}
    branches: dict[tuple[int, int], set[str]] = {}
    for i, names in by_site.items():
        if not 0 <= i < len(module.sites):
            continue  # an index the site list does not have: nothing to place it on
        token, offset, kind = module.sites[i]
        if kind == 0:
            points[(token, offset)] = frozenset(names)
        else:
            branches.setdefault((token, offset), set()).update(names)
    return points, {k: frozenset(v) for k, v in branches.items()}
