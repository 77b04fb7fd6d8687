"""`dotcov run -- dotnet test` on the Calc sample reports exactly the marked lines."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES, coverage_by_file
from .marks import marked_sources, read_marks

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
}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
def test_dotnet_test_matches_marks(built_samples, dotcov_run, dotnet, config):
    run = dotcov_run([dotnet, "test", "Calc.Tests", "--no-build", "--nologo"], cwd=SAMPLES,
                     env_extra=CONFIGURATIONS[config])
    assert run.status == 0, run.stdout + run.stderr
    assert "TOTAL" in run.stdout
    files = coverage_by_file(run.data_dir, SAMPLES)
    sources = marked_sources(SAMPLES / "Calc")
    assert sources
    problems = []
    for src in sources:
        hit, miss = read_marks(src)
        fc = files.get(str(src))
        if fc is None:
            if hit or miss:
                problems.append(f"{src.name}: not in the report")
            continue
        covered = {n for n, h in fc.lines.items() if h > 0}
        missed = {n for n, h in fc.lines.items() if h == 0}
        if covered != hit:
            problems.append(f"{src.name}: covered but marked @miss/unmarked {sorted(covered - hit)}, "
                            f"marked @hit but not covered {sorted(hit - covered)}")
        if missed != miss:
            problems.append(f"{src.name}: missed but not marked @miss {sorted(missed - miss)}, "
                            f"marked @miss but not missed {sorted(miss - missed)}")
    assert not problems, "\n".join(problems)
    # Only the library is covered: test assemblies are left out by default.
    assert all("Calc.Tests" not in p for p in files), sorted(files)
