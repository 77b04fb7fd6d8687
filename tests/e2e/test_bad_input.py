"""Bad input gets a clear message: no PDB, a Windows PDB, an assembly or PDB replaced after the run."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

BIN = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0"
OTHER_BIN = SAMPLES / "TextKit" / "bin" / "Debug" / "net10.0"


def private_build(dotnet, tmp_path, *properties: str):
    """Builds Crash into tmp_path (output and intermediate files, so the PDB path the compiler records
    points there too): a build that is safe to tamper with."""
    out, obj = tmp_path / "bin", tmp_path / "obj"
    subprocess.run([dotnet, "build", "Crash", "--no-restore", "-nologo", "-v", "quiet", "-clp:ErrorsOnly",
                    "-o", str(out), f"-p:IntermediateOutputPath={obj}/", *properties],
                   cwd=SAMPLES, env=_dotnet_env(), check=True)
    return out, obj


@pytest.fixture
def crash_copy(built_samples, tmp_path, dotnet):
    out, obj = private_build(dotnet, tmp_path)
    return out


def replace_pdb(out, data: bytes) -> None:
    """Replaces the PDB beside the assembly and the one at the path the compiler recorded."""
    for pdb in (out / "Crash.pdb", out.parent / "obj" / "Crash.pdb"):
        if pdb.exists():
            pdb.write_bytes(data)


def report(data_dir, cwd):
    return subprocess.run([sys.executable, "-m", "dotcov", "report", "--data-dir", str(data_dir)], cwd=cwd,
                          env=_dotnet_env(), capture_output=True, text=True)


def agent_log(run) -> str:
    return "\n".join(p.read_text() for p in (run.data_dir / "logs").glob("agent.*.log"))


def test_no_pdb_is_explained(built_samples, tmp_path, dotcov_run, dotnet):
    crash_copy, _ = private_build(dotnet, tmp_path, "-p:DebugType=none")
    assert not (crash_copy / "Crash.pdb").exists()
    run = dotcov_run([dotnet, str(crash_copy / "Crash.dll"), "ok"], cwd=SAMPLES, args=["--log"])
    assert run.status == 0
    assert "no coverage was collected" in run.stderr
    reason = f"skip {crash_copy / 'Crash.dll'}: Crash.dll has no debug information entry (CodeView); build with"
    assert reason in agent_log(run)
    assert reason in run.stderr  # dotcov run shows the agent's reason


def test_windows_pdb_is_explained(crash_copy, dotcov_run, dotnet):
    replace_pdb(crash_copy, b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\x00\x00\x00" + bytes(1024))
    run = dotcov_run([dotnet, str(crash_copy / "Crash.dll"), "ok"], cwd=SAMPLES, args=["--log"])
    assert run.status == 0
    assert "Windows PDB format is not supported; build with <DebugType>portable</DebugType>" in agent_log(run)


def test_assembly_rebuilt_after_the_run_is_not_misreported(crash_copy, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(crash_copy / "Crash.dll"), "ok"], cwd=SAMPLES)
    assert run.status == 0 and "TOTAL" in run.stdout
    # Replace the assembly and PDB by another build (another MVID and PDB id) under the same name.
    shutil.copyfile(OTHER_BIN / "TextKit.dll", crash_copy / "Crash.dll")
    shutil.copyfile(OTHER_BIN / "TextKit.pdb", crash_copy / "Crash.pdb")
    r = report(run.data_dir, SAMPLES)
    assert r.returncode == 1
    assert "was rebuilt after the coverage run" in r.stderr


def test_pdb_replaced_after_the_run_is_not_misreported(crash_copy, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(crash_copy / "Crash.dll"), "ok"], cwd=SAMPLES)
    assert run.status == 0
    replace_pdb(crash_copy, (OTHER_BIN / "TextKit.pdb").read_bytes())
    r = report(run.data_dir, SAMPLES)
    assert r.returncode == 1
    assert "PDB does not match assembly" in r.stderr


def test_assembly_deleted_after_the_run(crash_copy, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(crash_copy / "Crash.dll"), "ok"], cwd=SAMPLES)
    shutil.rmtree(crash_copy)
    r = report(run.data_dir, SAMPLES)
    assert r.returncode == 1
    assert "Crash.dll" in r.stderr
