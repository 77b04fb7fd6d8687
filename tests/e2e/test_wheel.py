"""README's Install section: the wheel builds, installs into a fresh venv and runs the tests under coverage."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dotcov import __version__

from .conftest import REPO, SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e


def test_wheel_installs_and_measures(built_samples, dotnet, tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-build-isolation", "--no-deps", "-q",
                    "-w", str(dist)], check=True, cwd=tmp_path)
    [wheel] = dist.glob("dotcov-*.whl")
    assert wheel.name == f"dotcov-{__version__}-cp311-cp311-linux_x86_64.whl"
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    # --no-index: every dependency must already be there from the Debian packages setup.sh installs.
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", str(wheel)], check=True, cwd=tmp_path)
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import dotcov; print(dotcov.__file__)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert where.startswith(str(venv)), where  # the installed copy, not this checkout's src/
    version = subprocess.run([str(venv / "bin" / "dotcov"), "--version"], capture_output=True, text=True)
    assert version.stdout == f"dotcov, version {__version__}\n"
    data_dir = tmp_path / "data"
    run = subprocess.run([str(venv / "bin" / "dotcov"), "run", "--data-dir", str(data_dir), "--", dotnet, "test",
                          "Calc.Tests", "--no-build", "--nologo"], cwd=SAMPLES, env=_dotnet_env(),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "TOTAL" in run.stdout
    assert_matches_marks(coverage_by_file(data_dir, SAMPLES), SAMPLES / "Calc")
    html = subprocess.run([str(venv / "bin" / "dotcov"), "html", "--data-dir", str(data_dir), "-d",
                           str(tmp_path / "html")], cwd=SAMPLES, capture_output=True, text=True)
    assert html.returncode == 0, html.stderr  # the templates are in the wheel
    assert "Calc/<wbr>Calculator.cs" in (tmp_path / "html" / "index.html").read_text()
    assert (tmp_path / "html" / "methods.html").is_file()  # methods.html's template is in the wheel too
