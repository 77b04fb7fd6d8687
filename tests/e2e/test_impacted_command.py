"""`dotcov impacted` on a real run: samples/Calc in a git repository with committed and uncommitted edits
(the `dotcov diff` fixture, tests/e2e/diff_edits.py).

Until `dotcov run --contexts test` records contexts, the run's data gets them here on load: one test that ran
every site the run hit (so a changed line is "run by a test" exactly when the run covered it) and one that ran
Calculator.cs's points only. The command runs in-process so the loaded data can be given them.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dotcov import data
from dotcov.cli import cli

from . import diff_edits

pytestmark = pytest.mark.e2e

EVERYTHING = "Calc.Tests.Everything"


@pytest.fixture
def impacted(calc_git_sample, monkeypatch):
    real_read = data.read_file

    def read_file(path, into, *args, **kwargs):
        real_read(path, into, *args, **kwargs)
        for m in into.modules.values():
            m.contexts = {EVERYTHING: {i for i, h in enumerate(m.hits) if h}}

    monkeypatch.setattr(data, "read_file", read_file)
    monkeypatch.chdir(calc_git_sample.repo)

    def run(*args):
        return CliRunner(mix_stderr=False).invoke(
            cli, ["impacted", "--data-dir", str(calc_git_sample.data_dir), *args], catch_exceptions=False)

    return run


def test_untested_changes_are_the_diff_commands_missed_lines(impacted, calc_git_sample):
    r = impacted("--format", "json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["base"] == calc_git_sample.base  # default: the merge base with main, as dotcov diff
    assert doc["tests"] == [EVERYTHING]
    assert doc["changed_statements"] == sum(len(c) for c, _ in diff_edits.EXPECTED.values())
    assert {f["path"]: f["lines"] for f in doc["untested_changes"]} == {
        path: missed for path, (_c, missed) in diff_edits.EXPECTED.items() if missed}
    assert doc["unknown_files"] == diff_edits.EXPECTED_UNKNOWN


def test_since_head_only_the_uncommitted_edits(impacted):
    r = impacted("--format", "json", "--base", "HEAD")
    doc = json.loads(r.stdout)
    assert {f["path"]: f["lines"] for f in doc["untested_changes"]} == {
        "Calc/Extra.cs": [7, 8, 9], "Calc/Sequences.cs": [27]}
    assert doc["tests"] == [EVERYTHING]  # Sequences.cs line 15 ran
    r = impacted("--format", "filter", "--fail-untested")
    assert r.exit_code == 2
    assert r.stdout == f"FullyQualifiedName={EVERYTHING}|FullyQualifiedName~{EVERYTHING}\\(\n"
