"""Deterministic CI builds (ContinuousIntegrationBuild=true: PDB paths under /_/) are covered and
reported against the real files, exactly as marked."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e


@pytest.fixture
def ci_dirs():
    # Inside the repository, as a CI build's output is (the agent covers deterministic builds of
    # assemblies under the source root); removed afterwards.
    out, obj = SAMPLES / "TextKit.Tests" / "bin" / "ci", SAMPLES / "TextKit.Tests" / "obj" / "ci"
    yield out, obj
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(obj, ignore_errors=True)


def test_ci_build_maps_back_to_the_repository(built_samples, dotcov_run, dotnet, ci_dirs):
    out, obj = ci_dirs
    subprocess.run([dotnet, "build", "TextKit.Tests", "--no-restore", "-nologo", "-v", "quiet", "-clp:ErrorsOnly",
                    "-o", str(out), f"-p:IntermediateOutputPath={obj}/", "-p:ContinuousIntegrationBuild=true",
                    "-p:Deterministic=true"], cwd=SAMPLES, env=_dotnet_env(), check=True)
    from dotcov import _native

    documents = _native.read_symbols(str(out / "TextKit.dll"))["documents"]
    assert documents[0] == "/_/samples/TextKit/Slug.cs", documents
    # (The test that starts Crash.dll finds it relative to the usual output folder: not run here.)
    run = dotcov_run([dotnet, "test", str(out / "TextKit.Tests.dll"), "--nologo", "--filter",
                      "FullyQualifiedName!~StartsAnotherDotnetProgram"], cwd=SAMPLES)
    assert run.status == 0, run.stdout + run.stderr
    files = coverage_by_file(run.data_dir, SAMPLES)
    assert str(SAMPLES / "TextKit" / "Slug.cs") in files, sorted(files)
    assert_matches_marks(files, SAMPLES / "TextKit")
