"""Another coverage tool in the same run ends with a message naming it and a non-zero exit (issue 13, item 6)."""

from __future__ import annotations

import shlex

import pytest

from .conftest import SAMPLES, coverlet_command

pytestmark = pytest.mark.e2e


def test_coverlet_collector_on_the_command_line_is_refused(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo", "--collect", "XPlat Code Coverage"],
                     cwd=SAMPLES)
    assert run.status == 1
    assert "coverlet's collector" in run.stderr


def test_coverlet_collector_hidden_in_a_script_is_found_by_the_agent(built_samples, dotcov_run, dotnet, tmp_path):
    # The collector turned on where dotcov cannot see it (a CI script): coverlet rewrites Calc.dll in place,
    # the agent finds coverlet's tracker type in it when the test host loads it.
    script = shlex.join(coverlet_command(dotnet, "Calc.Tests", tmp_path, tmp_path / "results"))
    run = dotcov_run(["sh", "-c", script], cwd=SAMPLES)
    assert run.status != 0, run.stderr
    assert "another coverage tool was at work in this run" in run.stderr, run.stderr
    assert "Calc.dll was instrumented by coverlet" in run.stderr
    assert "PDB changed" not in run.stderr  # no longer the misleading message


def test_microsoft_collector_on_the_command_line_is_refused(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo", "--collect", "Code Coverage"],
                     cwd=SAMPLES)
    assert run.status == 1
    assert "Microsoft's code coverage collector" in run.stderr


def test_microsoft_collector_hidden_in_a_script_is_found_by_the_agent(built_samples, dotcov_run, dotnet, tmp_path):
    # Its profiler replaces dotcov's in the test host: before, dotcov said only "no coverage was collected".
    results = tmp_path / "results"
    script = (f'"{dotnet}" test Calc.Tests --no-build --nologo --collect "Code Coverage;Format=cobertura" '
              f'--results-directory "{results}"')
    run = dotcov_run(["sh", "-c", script], cwd=SAMPLES)
    assert run.status != 0, run.stderr
    assert "another coverage tool was at work in this run" in run.stderr, run.stderr
    assert "the test platform turned on Microsoft's code coverage collector (--collect:Code Coverage" in run.stderr
    assert "no coverage was collected" not in run.stderr
