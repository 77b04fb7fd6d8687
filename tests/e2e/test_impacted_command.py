"""`dotcov impacted` on a real run: samples/Calc in a git repository with committed and uncommitted edits
(the `dotcov diff` fixture, tests/e2e/diff_edits.py), run under `dotcov run --contexts test`.

The expected tests are read from the sample: Calculator.cs line 39 (`Add`) is run only by
CalculatorTests.AddCountsOperations, Sequences.cs line 15 (`SumAsync`) only by
ShapesAndSequencesTests.SumAsyncAwaits (an async test: its hits come from continuations on other threads); the
other changed statement lines no test runs (their `// @miss` marks).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from . import diff_edits
from .conftest import _dotnet_env

pytestmark = pytest.mark.e2e

ADD = "Calc.Tests.CalculatorTests.AddCountsOperations"
SUM_ASYNC = "Calc.Tests.ShapesAndSequencesTests.SumAsyncAwaits"


@pytest.fixture(scope="module")
def contexts_data(calc_git_sample, dotnet, tmp_path_factory):
    """The sample's tests run under `dotcov run --contexts test` into a data directory of this module's own (other
    tests run `dotcov run` in the same repository and replace its .dotcov)."""
    data_dir = tmp_path_factory.mktemp("impacted") / "data"
    proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--contexts", "test", "--no-report", "--data-dir",
                           str(data_dir), "--", dotnet, "test", "Calc.sln", "--no-build", "--nologo"],
                          cwd=calc_git_sample.repo, env=_dotnet_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return data_dir


@pytest.fixture
def impacted(calc_git_sample, contexts_data):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "dotcov", "impacted", "--data-dir", str(contexts_data), *args],
                              cwd=calc_git_sample.repo, capture_output=True, text=True, timeout=300)

    return run


def test_the_tests_that_ran_changed_lines_and_the_changes_no_test_ran(impacted, calc_git_sample):
    r = impacted("--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["base"] == calc_git_sample.base  # default: the merge base with main, as dotcov diff
    assert doc["tests"] == [ADD, SUM_ASYNC]
    assert doc["changed_statements"] == sum(len(c) for c, _ in diff_edits.EXPECTED.values())
    assert {f["path"]: f["lines"] for f in doc["untested_changes"]} == {
        path: missed for path, (_c, missed) in diff_edits.EXPECTED.items() if missed}
    assert doc["unknown_files"] == diff_edits.EXPECTED_UNKNOWN


def test_since_head_only_the_uncommitted_edits(impacted):
    r = impacted("--format", "json", "--base", "HEAD")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {f["path"]: f["lines"] for f in doc["untested_changes"]} == {
        "Calc/Extra.cs": [7, 8, 9], "Calc/Sequences.cs": [27]}
    assert doc["tests"] == [SUM_ASYNC]  # Sequences.cs line 15
    r = impacted("--format", "filter", "--base", "HEAD", "--fail-untested")
    assert r.returncode == 2
    assert r.stdout == f"FullyQualifiedName={SUM_ASYNC}|FullyQualifiedName~{SUM_ASYNC}\\(\n"


def test_the_filter_runs_exactly_the_impacted_tests(impacted, calc_git_sample, dotnet):
    """The printed expression, given to `dotnet test --filter`, runs the two impacted tests and no other."""
    r = impacted("--format", "filter")
    assert r.returncode == 0, r.stderr
    expression = r.stdout.strip()
    proc = subprocess.run([dotnet, "test", "Calc.sln", "--no-build", "--nologo", "--filter", expression,
                           "--logger", "console;verbosity=normal"], cwd=calc_git_sample.repo, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = set(re.findall(r"^\s+Passed (\S+) \[", proc.stdout, re.M))
    assert ran == {ADD, SUM_ASYNC}, proc.stdout
