"""Under dotcov a program sees the stack traces of a plain run: exception traces and `new StackTrace(true)`
frames (method, file, line, column, IL offset) of samples/StackTraces are the same with and without dotcov,
Debug and Release, in every runtime configuration, with both probe designs and on both IL paths (ReJIT
versions, the default, and the JIT-time path). The agent gives the runtime the IL offset map of each rewritten
method (SetILInstrumentedCodeMap); without it lines and IL offsets shift."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from .conftest import BUILDS, SAMPLES, _dotnet_env, coverage_by_file

pytestmark = pytest.mark.e2e

PROJECT = SAMPLES / "StackTraces"
PROGRAM = PROJECT / "Program.cs"

CONFIGURATIONS = {
    "default": {},
    "no-tiering": {"DOTNET_TieredCompilation": "0"},
    "osr": {"DOTNET_TC_QuickJitForLoops": "1", "DOTNET_TC_OnStackReplacement_InitialCounter": "1",
            "DOTNET_OSR_HitLimit": "1"},
    "aggressive-tiering": {"DOTNET_TC_CallCountThreshold": "1", "DOTNET_TC_CallCountingDelayMs": "0"},
    "helper-call-probes": {"DOTCOV_PROBE": "call"},
    # The JIT-time path (SetILFunctionBody + ICorProfilerInfo::SetILInstrumentedCodeMap) instead of ReJIT versions.
    "jit-time-rewrite": {"DOTCOV_REJIT": "0"},
    # Atomic increments: a call to Interlocked.Increment in every probe (dotcov run --exact-counts).
    "exact-counts": {"DOTCOV_EXACT_COUNTS": "1"},
}


@pytest.fixture(scope="module")
def sample_builds(dotnet_build) -> dict[str, Path]:
    """samples/StackTraces built in Debug and in Release, each into its own directory, once per run (this module
    and test_ready_to_run.py share them)."""
    out = {}
    for configuration in ("Debug", "Release"):
        target = BUILDS / f"StackTraces-{configuration}"
        dotnet_build(PROJECT, configuration, "-o", str(target))
        out[configuration] = target / "StackTraces.dll"
    return out


def line_of(text: str) -> int:
    (n,) = [i for i, line in enumerate(PROGRAM.read_text().splitlines(), 1) if text in line]
    return n


def plain_run(dotnet: str, dll: Path, env_extra: dict[str, str], args: list[str] = ()) -> subprocess.CompletedProcess:
    env = _dotnet_env()
    env.update(env_extra)
    return subprocess.run([dotnet, str(dll), *args], cwd=SAMPLES, env=env, capture_output=True, text=True,
                          timeout=300)


# Where the frames are compiled without optimisation: Debug builds in every configuration, and Release code
# at tier 0 (a test run executes almost only tier-0 code). The loop shape reaches on-stack replacement and the
# hot shape tier 1 in some of these; their frames are printed from that optimised code and must match too.
EXACT = [("Debug", config) for config in sorted(CONFIGURATIONS)] + [
    ("Release", "default"), ("Release", "aggressive-tiering"), ("Release", "helper-call-probes"),
    ("Release", "jit-time-rewrite")]
# Everything optimised from the first compile (no tiering), or methods with loops moved to optimised OSR code
# early: the JIT optimises the instrumented IL differently (a probe between two statements keeps it from
# merging them; a method with probes may no longer be inlined), so a frame may be attributed to the adjacent
# statement and a frame the plain run inlined away may appear. See docs/guarantees.md.
OPTIMISED = [("Release", "no-tiering"), ("Release", "osr")]

FRAME = re.compile(r"^  (?P<method>\S+) (?P<where>\S+:\d+:\d+) il=(?P<il>-?\d+)$")


def dotcov_and_plain(sample_builds, dotcov_run, dotnet, configuration, config):
    dll = sample_builds[configuration]
    plain = plain_run(dotnet, dll, CONFIGURATIONS[config])
    assert plain.returncode == 0, plain.stderr
    run = dotcov_run([dotnet, str(dll)], cwd=SAMPLES, env_extra=CONFIGURATIONS[config], args=["--no-report"])
    assert run.status == 0, run.stderr
    # The run was measured: the methods printing the frames were rewritten and counted.
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    assert lines[line_of("int q = a / b;")] > 0
    assert lines[line_of('Report.Here("loop");')] > 0
    return plain.stdout, run.stdout


@pytest.mark.parametrize(("configuration", "config"), EXACT)
def test_stack_traces_equal_a_plain_run(sample_builds, dotcov_run, dotnet, configuration, config):
    plain, measured = dotcov_and_plain(sample_builds, dotcov_run, dotnet, configuration, config)
    assert measured == plain


@pytest.mark.parametrize(("configuration", "config"), OPTIMISED)
def test_optimised_frames_name_the_same_methods(sample_builds, dotcov_run, dotnet, configuration, config):
    plain, measured = dotcov_and_plain(sample_builds, dotcov_run, dotnet, configuration, config)
    inlinable = {"Account..ctor"}  # the one method of the sample without NoInlining whose frame can show

    def shape(text: str) -> list[str]:
        out = []
        for line in text.splitlines():
            m = FRAME.match(line)
            if not m:
                out.append(line)
            elif m["method"] not in inlinable:
                out.append(m["method"])
        return out

    assert shape(measured) == shape(plain)


def test_the_sample_reports_the_throwing_lines(sample_builds, dotnet):
    """The comparison above is only worth something if the plain output names the real lines."""
    out = plain_run(dotnet, sample_builds["Debug"], {}).stdout
    assert f"Shapes.Divide Program.cs:{line_of('int q = a / b;')}:" in out
    assert f"Shapes.First Program.cs:{line_of('private static int First(int[] a) => a[5];')}:" in out
    assert f"Program.cs:{line_of('return 100 / d;')}:" in out  # the async state machine's MoveNext
    assert f"Program.cs:{line_of('return x / zero;')}:" in out  # the lambda
    loop = line_of('Report.Here("loop");')
    assert f"Shapes.Loop Program.cs:{loop}:" in out
