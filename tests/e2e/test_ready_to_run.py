"""ReadyToRun: precompiled code of a covered method is never run, so an R2R build is measured exactly as the same
build without precompiled code (issue 13, item 7). samples/StackTraces is published with
`-p:PublishReadyToRun=true` (crossgen2 from the runtime pack in the NuGet cache, offline), and its coverage under
dotcov — ReJIT versions (the default) and the JIT-time path — must equal that of its IL-only Release build."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from .conftest import SAMPLES, _dotnet_env, coverage_by_file
from .test_stack_traces import PROGRAM, PROJECT, sample_builds  # noqa: F401 (fixture)

pytestmark = pytest.mark.e2e


def ready_to_run_header(dll: Path) -> int:
    """Size of the CLI header's ManagedNativeHeader directory: non-zero only in a ReadyToRun image."""
    b = dll.read_bytes()
    pe = struct.unpack_from("<I", b, 0x3C)[0]
    sections, optional_size = struct.unpack_from("<H", b, pe + 6)[0], struct.unpack_from("<H", b, pe + 20)[0]
    optional = pe + 24
    directories = optional + (112 if struct.unpack_from("<H", b, optional)[0] == 0x20B else 96)
    cli_rva = struct.unpack_from("<I", b, directories + 14 * 8)[0]
    for i in range(sections):
        virtual_size, rva, raw_size, raw = struct.unpack_from("<IIII", b, optional + optional_size + 40 * i + 8)
        if rva <= cli_rva < rva + max(virtual_size, raw_size):
            return struct.unpack_from("<I", b, cli_rva - rva + raw + 64 + 4)[0]
    raise AssertionError(f"{dll}: no CLI header")


@pytest.fixture(scope="module")
def ready_to_run_build(dotnet, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stacktraces-r2r")
    subprocess.run([dotnet, "publish", str(PROJECT), "-c", "Release", "-r", "linux-x64", "--self-contained", "false",
                    "-p:PublishReadyToRun=true", "-o", str(out), "-nologo", "-v", "quiet", "-clp:ErrorsOnly"],
                   env=_dotnet_env(), check=True)
    dll = out / "StackTraces.dll"
    assert ready_to_run_header(dll) > 0, "the published assembly has no ReadyToRun code"
    return dll


def covered_lines(run) -> dict[int, bool]:
    return {n: h > 0 for n, h in coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines.items()}


@pytest.mark.parametrize("config", [{}, {"DOTCOV_REJIT": "0"}], ids=["rejit", "jit-time-rewrite"])
def test_ready_to_run_code_is_not_used_for_covered_methods(ready_to_run_build, sample_builds, dotcov_run,  # noqa: F811
                                                          dotnet, tmp_path, config):
    il_only = sample_builds["Release"]
    assert ready_to_run_header(il_only) == 0
    r2r = dotcov_run([dotnet, str(ready_to_run_build)], cwd=SAMPLES, env_extra=config, args=["--no-report"])
    assert r2r.status == 0, r2r.stderr
    r2r_lines = covered_lines(r2r)
    (tmp_path / "data").rename(tmp_path / "r2r-data")
    il = dotcov_run([dotnet, str(il_only)], cwd=SAMPLES, env_extra=config, args=["--no-report"])
    assert il.status == 0, il.stderr
    # Every line the IL-only build covers is covered in the R2R build too (precompiled code, which has no probes,
    # would leave them at zero), and nothing else.
    assert r2r_lines == covered_lines(il)
    assert sum(r2r_lines.values()) > 20
