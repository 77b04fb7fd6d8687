"""Every hit made before a process ends abruptly is reported, and `dotcov run` exits with the
status a shell would report. Lines are found by their text in samples/Crash/Program.cs."""

from __future__ import annotations

import pytest

from dotcov.data import datafiles as data

from .conftest import SAMPLES, coverage_by_file

pytestmark = pytest.mark.e2e

PROGRAM = SAMPLES / "Crash" / "Program.cs"
CRASH_DLL = SAMPLES / "Crash" / "bin" / "Debug" / "net10.0" / "Crash.dll"


def line_of(text: str) -> int:
    (n,) = [i for i, line in enumerate(PROGRAM.read_text().splitlines(), 1) if text in line]
    return n


# mode: (exit status, lines that must be hit, lines that must be missed)
CASES = {
    "failfast": (134, ['Environment.FailFast("crash: failfast")'], []),
    "exit": (3, ["Environment.Exit(3);"], []),
    "throw": (134, ['throw new InvalidOperationException("crash: throw")'], []),
    "sigterm": (143, ["SysKill(Environment.ProcessId, 15);"], []),
    "overflow": (134, ["return Overflow(depth + 1) + 1;"], []),
    "sigkill": (137, ["Process.GetCurrentProcess().Kill();"], ['Console.WriteLine("crash: still alive")']),
}


@pytest.mark.parametrize("mode", sorted(CASES))
def test_hits_before_the_end_survive(built_samples, dotcov_run, dotnet, mode):
    status, must_hit, must_miss = CASES[mode]
    run = dotcov_run([dotnet, str(CRASH_DLL), mode], cwd=SAMPLES)
    assert run.status == status, run.stderr
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    assert lines[line_of("string mode = args.Length")] > 0
    assert lines[line_of(f'case "{mode}"')] > 0
    for text in must_hit:
        assert lines[line_of(text)] > 0, text
    for text in must_miss:
        assert lines[line_of(text)] == 0, text


def test_exit_after_environment_exit_keeps_the_rest_missed(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(CRASH_DLL), "exit"], cwd=SAMPLES)
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    exit_line = line_of("Environment.Exit(3);")
    assert lines[exit_line] > 0 and lines[exit_line + 1] == 0  # `return 1;` never runs


def test_child_processes_are_covered_and_merged(built_samples, dotcov_run, dotnet):
    run = dotcov_run([dotnet, str(CRASH_DLL), "spawn"], cwd=SAMPLES)
    assert run.status == 0, run.stderr
    cov = data.load(run.data_dir)
    assert len(cov.processes) == 2  # parent and child each wrote data, combined into one file
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    assert lines[line_of("child.WaitForExit();")] > 0  # parent
    assert lines[line_of('Console.WriteLine("crash: ok");')] > 0  # child
    assert lines[line_of("string mode = args.Length")] == 2  # both ran Main


def test_many_threads_on_one_probe(built_samples, dotcov_run, dotnet):
    """8 threads x 100000 hits of one probe: nothing crashes, the line is covered, and the count is a
    plausible lower bound (increments are not atomic: see docs/architecture.md)."""
    run = dotcov_run([dotnet, str(CRASH_DLL), "threads"], cwd=SAMPLES)
    assert run.status == 0, run.stderr
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    ticks = lines[line_of("s_ticks++;")]
    assert 100_000 <= ticks <= 800_000, ticks


def test_many_threads_on_one_probe_exact_counts(built_samples, dotcov_run, dotnet):
    """The same with `--exact-counts` (atomic increments): the count is exactly 8 x 100000."""
    run = dotcov_run([dotnet, str(CRASH_DLL), "threads"], cwd=SAMPLES, args=["--exact-counts"])
    assert run.status == 0, run.stderr
    lines = coverage_by_file(run.data_dir, SAMPLES)[str(PROGRAM)].lines
    assert lines[line_of("s_ticks++;")] == 800_000
