"""samples/Lowering, samples/FsLowering and samples/VbLowering: lines as the user reads them and branches as the user wrote them
(docs/accuracy.md, docs/branches.md), in every runtime configuration of test_calc_sample; each of the three samples built
Debug and Release.

Each marked line must get exactly its verdict (`@hit`/`@miss`) and its hit count (`@count N`, else 1);
each line's branch outcomes must equal `@branches C/T`, and no other line may carry branch data. A Release
build has no statements on bracket-only lines or on lines marked `@debug-only`; lines marked `@release-miss` are
statements that do not run there (F# -O inlines a small module-level lambda into the test assembly, so the library's
copy never runs), `@release-count N` gives the Release count where the compiler put the line's point on one path
only (VB's `End Function` after `Return a OrElse b`); every other mark is the same.
"""

from __future__ import annotations


import pytest

from dotcov.data import datafiles as data
from dotcov.analysis import results

from .conftest import SAMPLES
from .marks import (debug_only_lines, marked_sources, read_branch_marks, read_counts, read_marks, release_counts,
                    release_misses)
from .test_calc_sample import CONFIGURATIONS

pytestmark = pytest.mark.e2e

PROJECT = SAMPLES / "Lowering"
BUILDS = [(project, build) for project in ("Lowering", "FsLowering", "VbLowering") for build in ("Debug", "Release")]


@pytest.fixture(scope="module")
def release_build(samples_release):
    return samples_release  # Lowering, FsLowering and VbLowering (and their tests) are in All.sln


def measured(data_dir):
    result, problems = results.build(data.load(data_dir), SAMPLES)
    assert not problems, problems
    return {fc.path: fc for fc in result.all_files()}


def expected(src, release: bool):
    hit, miss = read_marks(src)
    counts = read_counts(src)
    branches = read_branch_marks(src)
    if release:
        drop = debug_only_lines(src)
        moved = release_misses(src)
        hit, miss = hit - drop - moved, (miss | moved) - drop
        counts = {n: c for n, c in counts.items() if n not in drop and n not in moved} | release_counts(src)
    return hit, miss, counts, branches


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
@pytest.mark.parametrize(("project", "build"), BUILDS, ids=[f"{p}-{b}" for p, b in BUILDS])
def test_lowering_sample_matches_marks(built_samples, release_build, dotcov_run, dotnet, project, build, config):
    run = dotcov_run([dotnet, "test", f"{project}.Tests", "--no-build", "--nologo", "-c", build], cwd=SAMPLES,
                     env_extra=CONFIGURATIONS[config])
    assert run.status == 0, run.stdout + run.stderr
    files = measured(run.data_dir)
    problems = []
    sources = marked_sources(SAMPLES / project)
    assert sources
    for src in sources:
        hit, miss, counts, branches = expected(src, release=build == "Release")
        fc = files.get(str(src))
        lines = fc.lines if fc else {}
        covered = {n for n, h in lines.items() if h > 0}
        missed = {n for n, h in lines.items() if h == 0}
        if covered != hit or missed != miss:
            problems.append(f"{src.name}: covered-not-@hit {sorted(covered - hit)} @hit-not-covered "
                            f"{sorted(hit - covered)} missed-not-@miss {sorted(missed - miss)} "
                            f"@miss-not-missed {sorted(miss - missed)}")
        wrong = {n: (c, lines.get(n)) for n, c in counts.items() if lines.get(n) != c}
        if wrong:
            problems.append(f"{src.name}: counts (marked, measured) {wrong}")
        have = {n: (b.covered, b.total) for n, b in (fc.branches.items() if fc else ())}
        if have != branches:
            problems.append(f"{src.name}: branches marked {branches}, measured {have}")
        for n, b in (fc.branches.items() if fc else ()):
            problems += [f"{src.name}:{n}: IL offset in a note: {m}" for m in b.missed_outcomes if "IL_" in m]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("build", ["Debug", "Release"])
def test_lowering_notes_speak_source(built_samples, release_build, dotcov_run, dotnet, build):
    """Missed outcomes name the arm, the case or the condition, whole, and the value never seen."""
    run = dotcov_run([dotnet, "test", "Lowering.Tests", "--no-build", "--nologo", "-c", build], cwd=SAMPLES)
    assert run.status == 0, run.stdout + run.stderr
    files = measured(run.data_dir)
    expressions = files[str(PROJECT / "Expressions.cs")].branches
    statements = files[str(PROJECT / "Statements.cs")].branches
    notes = {m for b in (*expressions.values(), *statements.values()) for m in b.missed_outcomes}
    assert {"arm `_` never taken", "`h < 0` never true", "`case 2:` never taken",
            "`?.` receiver never null (`??` right side never used)"} <= notes, sorted(notes)
    # samples/Lowering/Notes.cs (issue 25 item 4), line by line:
    source = (PROJECT / "Notes.cs").read_text().splitlines()
    line = {text: n for n, text in enumerate(source, start=1)}
    at = {next(n for t, n in line.items() if marker in t): want for marker, want in {
        "e switch": ["arm `PaymentException { Code: 500 }` never taken"],  # the whole pattern, not `Code: 500 }`
        "x < 0 ?": ["`x < 0` never true"],  # a `?:`: its condition and the value never seen
        "total > 100 &&": ["`isNew` never false"],  # a condition over two lines
        "a == null ||": ["`a == null` never false", "`n > 3` never evaluated"],  # `n > 3` alone, not the statement
    }.items()}
    got = {n: files[str(PROJECT / "Notes.cs")].branches[n].missed_outcomes for n in at}
    assert got == at
