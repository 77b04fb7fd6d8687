"""Per-test contexts (`dotcov run --contexts test`): which test ran each line, exactly, on the Contexts sample,
whose test classes run in parallel and move between threads (awaits, Task.Run, ContinueWith).

Per-line sets are computed here with the reports' own line rule: for each test, a copy of the data whose only
hits are that test's sites goes through `results.build`, and the test ran a line when that copy covers it.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys

import pytest

from pathlib import Path

from .conftest import SAMPLES, _dotnet_env, coverage_by_file
from .marks import read_context_marks

pytestmark = pytest.mark.e2e

LIBRARY = SAMPLES / "Contexts"


def context_lines(data_dir) -> tuple[dict[str, dict[int, set[str]]], dict[str, set[int]]]:
    """(file -> line -> tests that ran it, file -> lines that ran at all), from the data directory."""
    from dotcov.data import datafiles as data
    from dotcov.analysis import results

    cov = data.load(data_dir)
    names = sorted({n for m in cov.modules.values() for n in m.contexts})
    per_line: dict[str, dict[int, set[str]]] = {}
    for name in names:
        only = data.CoverageData()
        for key, m in cov.modules.items():
            sites = m.contexts.get(name, set())
            only.modules[key] = dataclasses.replace(m, hits=[1 if i in sites else 0 for i in range(len(m.hits))],
                                                    contexts={})
        result, problems = results.build(only, SAMPLES)
        assert not problems, problems
        for fc in result.all_files():
            for line, hits in fc.lines.items():
                if hits:
                    per_line.setdefault(fc.path, {}).setdefault(line, set()).add(name)
    ran = {path: {n for n, h in fc.lines.items() if h} for path, fc in coverage_by_file(data_dir, SAMPLES).items()}
    return per_line, ran


def check_marks(per_line, ran) -> list[str]:
    problems = []
    for src in sorted(LIBRARY.glob("*.cs")):
        marks = read_context_marks(src)
        got = per_line.get(str(src), {})
        for line in sorted(set(marks) | set(got)):
            want, have = marks.get(line), got.get(line, set())
            if want is None:
                problems.append(f"{src.name}:{line}: ran under {sorted(have)} but carries no ctx mark")
            elif want != have:
                problems.append(f"{src.name}:{line}: tests {sorted(have)}, marked {sorted(want)}")
            elif not want and line not in ran.get(str(src), set()):
                problems.append(f"{src.name}:{line}: marked as run outside tests, but it did not run")
    return problems


# The default (ReJIT versions, the tests assembly not covered) and the JIT-time IL path with the tests covered too.
CONFIGURATIONS = {"default": ({}, []), "jit-time-include-tests": ({"DOTCOV_REJIT": "0"}, ["--include-tests"])}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
def test_each_line_lists_exactly_the_tests_that_ran_it(built_samples, dotcov_run, dotnet, config):
    env, args = CONFIGURATIONS[config]
    run = dotcov_run([dotnet, "test", "Contexts.Tests", "--no-build", "--nologo"], cwd=SAMPLES,
                     args=["--contexts", "test", *args], env_extra=env)
    # Every test passes, LineTests.StackTracesKeepTheirLines among them: a wrapped test keeps its line numbers.
    assert run.status == 0, run.stdout + run.stderr
    assert "Passed:     9" in run.stdout, run.stdout
    per_line, ran = context_lines(run.data_dir)
    problems = check_marks(per_line, ran)
    assert not problems, "\n".join(problems)
    # Never instrumented, never run: no test names it.
    assert "Never" not in str(per_line)


def test_contexts_merge_across_combined_shards(built_samples, dotcov_run, dotnet, tmp_path):
    """Two runs, each of some tests, combined in one directory, give the same per-line sets as one run."""
    shards = []
    for i, flt in enumerate(["FullyQualifiedName~AsyncTests|FullyQualifiedName~Outer",
                             "FullyQualifiedName!~AsyncTests&FullyQualifiedName!~Outer"]):
        run = dotcov_run([dotnet, "test", "Contexts.Tests", "--no-build", "--nologo", "--filter", flt], cwd=SAMPLES,
                         args=["--contexts", "test", "--no-report"])
        assert run.status == 0, run.stdout + run.stderr
        shard = tmp_path / f"shard{i}"
        shutil.copytree(run.data_dir, shard)
        shutil.rmtree(run.data_dir)
        shards.append(shard)
    merged = tmp_path / "merged"
    merged.mkdir()
    for shard in shards:
        for f in shard.glob("dotcov.combined.*.cov"):
            shutil.copy(f, merged / f.name)
    assert len(list(merged.glob("*.cov"))) == 2
    subprocess.run([sys.executable, "-m", "dotcov", "combine", "--data-dir", str(merged)], check=True,
                   capture_output=True)
    assert len(list(merged.glob("*.cov"))) == 1
    per_line, ran = context_lines(merged)
    problems = check_marks(per_line, ran)
    assert not problems, "\n".join(problems)


def test_off_by_default_records_no_context(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "Contexts.Tests", "--no-build", "--nologo"], cwd=SAMPLES)
    assert run.status == 0, run.stdout + run.stderr
    from dotcov.data import datafiles as data

    cov = data.load(run.data_dir)
    assert cov.modules and all(not m.contexts for m in cov.modules.values())


# NUnit, MSTest and xunit v3 (whose tests run in the test project's own executable): their packages are not in the offline feed, so these projects are restored with the machine's
# own (user-level) NuGet configuration, which reaches the public registry.
OTHER_FRAMEWORKS = {
    "Contexts.NUnit": "Contexts.NUnitTests.Plain",
    "Contexts.MSTest": "Contexts.MSTestTests.Plain",
    "Contexts.XunitV3": "Contexts.XunitV3Tests.Plain",
}


@pytest.mark.parametrize("project", sorted(OTHER_FRAMEWORKS))
def test_nunit_mstest_and_xunit_v3_tests_get_their_contexts(dotcov_run, dotnet, project):
    user_config = Path.home() / ".nuget" / "NuGet" / "NuGet.Config"
    if not user_config.is_file():  # a fresh machine: NuGet writes its default (public registry) config on first use
        subprocess.run([dotnet, "nuget", "list", "source"], cwd=Path.home(), env=_dotnet_env(), capture_output=True)
    restore = [dotnet, "restore", project]
    if user_config.is_file():
        restore += ["--configfile", str(user_config)]
    subprocess.run(restore, cwd=SAMPLES, env=_dotnet_env(), check=True, capture_output=True)
    subprocess.run([dotnet, "build", project, "--no-restore", "-nologo", "-v", "quiet", "-clp:ErrorsOnly"],
                   cwd=SAMPLES, env=_dotnet_env(), check=True)
    run = dotcov_run([dotnet, "test", project, "--no-build", "--nologo"], cwd=SAMPLES, args=["--contexts", "test"])
    assert run.status == 0, run.stdout + run.stderr
    per_line, _ran = context_lines(run.data_dir)
    cls = OTHER_FRAMEWORKS[project]
    # The lines the xunit sample's marks give to Work.Nested and Work.Parity alone are these tests' lines here
    # (an async test; a parameterised one, whose cases are one context); no other line has a context.
    rename = {frozenset({"Contexts.Tests.Outer+Inner.Nested"}): {f"{cls}.AwaitsThenRuns"},
              frozenset({"Contexts.Tests.TheoryTests.Parity"}): {f"{cls}.Cases"}}
    work = LIBRARY / "Work.cs"
    want = {line: rename[frozenset(names)] for line, names in read_context_marks(work).items()
            if frozenset(names) in rename}
    assert per_line.get(str(work), {}) == want


def test_reports_show_the_recorded_contexts(built_samples, dotcov_run, dotnet, tmp_path):
    """`dotcov json --show-contexts` gives each line exactly its marked tests, `dotcov html --show-contexts` names
    them on the page, and `dotcov report --contexts` limits the table to one test's lines: real recorded data."""
    import json

    run = dotcov_run([dotnet, "test", "Contexts.Tests", "--no-build", "--nologo"], cwd=SAMPLES,
                     args=["--contexts", "test", "--no-report"])
    assert run.status == 0, run.stdout + run.stderr

    def dotcov(*args):
        proc = subprocess.run([sys.executable, "-m", "dotcov", *args, "--data-dir", str(run.data_dir)], cwd=SAMPLES,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    out = tmp_path / "c.json"
    dotcov("json", "--show-contexts", "-o", str(out))
    doc = json.loads(out.read_text())
    (work,) = [f for f in doc["files"] if f["path"] == "Contexts/Work.cs"]
    want = {str(line): sorted(names) for line, names in read_context_marks(LIBRARY / "Work.cs").items() if names}
    assert work["contexts"] == want

    dotcov("html", "--show-contexts", "-d", str(tmp_path / "html"))
    pages = "".join(p.read_text() for p in (tmp_path / "html").glob("*.html"))
    for names in want.values():
        for name in names:
            assert name in pages, name

    nested = "Contexts.Tests.Outer+Inner.Nested"
    only = {int(line) for line, names in want.items() if nested in names}
    out = tmp_path / "nested.json"
    dotcov("json", "--contexts", "^" + re.escape(nested) + "$", "-o", str(out))
    (work,) = [f for asm in json.loads(out.read_text())["assemblies"] for f in asm["files"]
               if f["path"] == "Contexts/Work.cs"]
    assert {int(line) for line, hits in work["lines"].items() if hits} == only
