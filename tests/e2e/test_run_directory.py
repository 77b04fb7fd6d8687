"""Where `dotcov run` starts: a test project's folder still covers the library beside it in the same repository."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import _dotnet_env, coverage_by_file

pytestmark = pytest.mark.e2e


def test_run_in_the_test_projects_folder_covers_the_library_beside_it(calc_git_sample, dotnet, tmp_path):
    repo = calc_git_sample.repo
    data_dir = tmp_path / "data"
    proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--data-dir", str(data_dir), "--", dotnet, "test",
                           "--no-build", "--nologo"], cwd=repo / "Calc.Tests", env=_dotnet_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = coverage_by_file(data_dir, repo)
    calculator = files[str(repo / "Calc" / "Calculator.cs")]
    assert any(calculator.lines.values()), "no line of the library ran"
    # The table names the library's files (outside the folder the command ran in: by their full path).
    assert str(repo / "Calc" / "Calculator.cs") in proc.stdout, proc.stdout

