"""`dotcov run -- dotnet test` on the C# and F# samples reports exactly the marked lines."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e

# Each runtime configuration must give the same exact answer.
CONFIGURATIONS = {
    "default": {},
    "no-tiering": {"DOTNET_TieredCompilation": "0"},
    # Quick JIT for loops with on-stack replacement forced at the first loop iterations.
    "osr": {"DOTNET_TC_QuickJitForLoops": "1", "DOTNET_TC_OnStackReplacement_InitialCounter": "1",
            "DOTNET_OSR_HitLimit": "1"},
    # Tier-1 recompiles (with inlining) after 1 call, soon after start.
    "aggressive-tiering": {"DOTNET_TC_CallCountThreshold": "1", "DOTNET_TC_CallCountingDelayMs": "0"},
    # The other probe design: a call to the helper injected into CoreLib (the default writes the increment inline).
    "helper-call-probes": {"DOTNET_TC_CallCountThreshold": "1", "DOTCOV_PROBE": "call"},
    # The JIT-time IL path (SetILFunctionBody) instead of ReJIT versions (docs/architecture.md).
    "jit-time-rewrite": {"DOTNET_TC_CallCountThreshold": "1", "DOTCOV_REJIT": "0"},
    # One counter per probe site, the design before counter sharing (docs/architecture.md, "Shared counters").
    "unshared-counters": {"DOTCOV_SHARE": "0"},
    # Atomic increments (`dotcov run --exact-counts`): each probe calls Interlocked.Increment, inlined at Tier1.
    "exact-counts": {"DOTNET_TC_CallCountThreshold": "1", "DOTCOV_EXACT_COUNTS": "1"},
}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
@pytest.mark.parametrize("library", ["Calc", "FsCalc"])
def test_dotnet_test_matches_marks(built_samples, dotcov_run, measured_sample, dotnet, tmp_path, config, library):
    if CONFIGURATIONS[config]:
        run = dotcov_run([dotnet, "test", f"{library}.Tests", "--no-build", "--nologo"], cwd=SAMPLES,
                         env_extra=CONFIGURATIONS[config])
    else:  # the plain run, which other test files read as well
        run = measured_sample(f"{library}.Tests", tmp_path)
    assert run.status == 0, run.stdout + run.stderr
    assert "TOTAL" in run.stdout
    files = coverage_by_file(run.data_dir, SAMPLES)
    assert_matches_marks(files, SAMPLES / library)
    # Only the library is covered: test assemblies are left out by default.
    assert all(f"{library}.Tests" not in p for p in files), sorted(files)
