"""Under dotcov reflection returns a method's original body: `MethodBody.GetILAsByteArray()`, `MaxStackSize`,
local variables, `InitLocals` and exception clauses of every method of samples/StackTraces, each printed after
every method has run (and so been compiled with its probes), equal those of a plain run, Debug and Release.
The agent gives the instrumented IL to a ReJIT version of each method (docs/architecture.md), which
reflection does not read."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES, coverage_by_file
from .test_stack_traces import PROGRAM, line_of, plain_run, sample_builds  # noqa: F401 (fixture)

pytestmark = pytest.mark.e2e

CONFIGURATIONS = {
    "default": {},
    "helper-call-probes": {"DOTCOV_PROBE": "call"},
    "no-tiering": {"DOTNET_TieredCompilation": "0"},
}


@pytest.mark.parametrize("config", sorted(CONFIGURATIONS))
@pytest.mark.parametrize("configuration", ["Debug", "Release"])
def test_reflection_sees_the_original_bodies(sample_builds, dotcov_run, dotnet, configuration, config):  # noqa: F811
    dll = sample_builds[configuration]
    plain = plain_run(dotnet, dll, CONFIGURATIONS[config], args=["reflection"])
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.count(" il=") > 50, plain.stdout
    run = dotcov_run([dotnet, str(dll), "reflection"], cwd=SAMPLES, env_extra=CONFIGURATIONS[config],
                     args=["--no-report"])
    assert run.status == 0, run.stderr
    assert run.stdout == plain.stdout
    # The methods whose bodies were printed ran with their probes.
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    assert lines[line_of("int q = a / b;")] > 0
    assert lines[line_of("byte[] il = body.GetILAsByteArray() ?? [];")] > 0


@pytest.mark.parametrize("config", ["default", "helper-call-probes"])
def test_corelib_gets_the_helper_type_only_for_call_probes(sample_builds, dotcov_run, dotnet, config):  # noqa: F811
    """Inline probes (the default) write their counters themselves: nothing is injected into CoreLib, whose
    types reflection lists exactly as in a plain run. Call probes need DotCov.Probes.Hit: one type more."""
    dll = sample_builds["Debug"]
    plain = plain_run(dotnet, dll, {}, args=["corelib"])
    assert plain.returncode == 0, plain.stderr
    assert "DotCov.Probes=False" in plain.stdout
    run = dotcov_run([dotnet, str(dll), "corelib"], cwd=SAMPLES, env_extra=CONFIGURATIONS[config],
                     args=["--no-report"])
    assert run.status == 0, run.stderr
    if config == "default":
        assert run.stdout == plain.stdout
    else:
        count = int(plain.stdout.split("types=")[1].split()[0])
        assert run.stdout == f"corelib types={count + 1} DotCov.Probes=True\n"
