"""The test tiers (tests/conftest.py): a test is in the `dotnet` tier exactly when it asks for the `dotnet` fixture
(directly or through a fixture that builds); every other test is in the fast tier, which fails a test that starts a
.NET build, directly or through a child process, instead of letting it build."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

PROJECT = '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework>' \
          '</PropertyGroup></Project>\n'


def test_a_fast_tier_test_that_starts_a_build_fails_saying_why(tmp_path):
    (tmp_path / "p.csproj").write_text(PROJECT)
    with pytest.raises(pytest.fail.Exception, match=r"starts `dotnet build` but is in the fast tier"):
        subprocess.run(["dotnet", "build", str(tmp_path)], capture_output=True)
    with pytest.raises(pytest.fail.Exception, match=r"starts `.*/dotnet test` but is in the fast tier"):
        subprocess.Popen(["/usr/bin/dotnet", "test"], cwd=tmp_path)
    assert not (tmp_path / "obj").exists() and not (tmp_path / "bin").exists()


def test_a_build_started_by_a_child_process_stops_in_msbuild(tmp_path):
    """`sh -c "dotnet build"` is not seen by the in-process check; MSBuild stops it (fast_tier_guard.targets) before
    restoring or compiling anything."""
    if not shutil.which("dotnet"):
        pytest.fail("the .NET SDK (dotnet) is required")
    (tmp_path / "p.csproj").write_text(PROJECT)
    r = subprocess.run(["sh", "-c", "dotnet build --nologo"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode != 0
    assert "is in the fast tier but builds p.csproj" in r.stdout, r.stdout + r.stderr
    assert "test_tiers.py::test_a_build_started_by_a_child_process_stops_in_msbuild" in r.stdout
    assert not (tmp_path / "obj").exists() and not (tmp_path / "bin").exists()


def test_the_tier_is_what_the_test_asks_for(tmp_path):
    """In a copy of tests/conftest.py's setting: asking for `dotnet` (directly or through a fixture) marks a test
    `dotnet`; `-m "not dotnet"` runs the rest, and one of them that builds fails."""
    shutil.copy(REPO / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_example.py").write_text('''
import subprocess
import pytest

@pytest.fixture
def built(dotnet):
    return dotnet

def test_asks_for_dotnet(dotnet):
    pass

def test_asks_through_a_fixture(built):
    pass

@pytest.mark.dotnet
def test_marked():
    pass

def test_fast():
    pass

def test_fast_but_builds():
    subprocess.run(["dotnet", "build", "nothing.csproj"])
''')
    def pytest_run(*args):
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300).stdout

    out = pytest_run("--collect-only", "-q", "-m", "dotnet")
    assert {line for line in out.splitlines() if "::" in line} == {
        "test_example.py::test_asks_for_dotnet", "test_example.py::test_asks_through_a_fixture",
        "test_example.py::test_marked"}, out
    out = pytest_run("-m", "not dotnet")
    assert {line.split(" - ")[0] for line in out.splitlines() if line.startswith(("PASSED", "FAILED"))} == {
        "PASSED test_example.py::test_fast", "FAILED test_example.py::test_fast_but_builds"}, out
    assert "test_example.py::test_fast_but_builds starts `dotnet build` but is in the fast tier" in out, out
