"""Command-line behaviour that needs no .NET: errors before the command starts, exit codes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def dotcov(*args, cwd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, env=e, capture_output=True, text=True)


def test_run_passes_the_exit_status_through(tmp_path):
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--", "sh", "-c", "exit 7", cwd=tmp_path)
    assert r.returncode == 7
    assert r.stderr.splitlines() == [
        "dotcov: error: the command exited with status 7 before any .NET process recorded coverage; no coverage "
        "was collected"]


def test_run_reports_a_signal_as_the_shell_does(tmp_path):
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--", "sh", "-c", "kill -TERM $$", cwd=tmp_path)
    assert r.returncode == 128 + 15


def test_run_sets_the_profiler_variables(tmp_path):
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--", "sh", "-c",
               'echo "$CORECLR_ENABLE_PROFILING $CORECLR_PROFILER $DOTCOV_SOURCE_ROOT"; test -f "$CORECLR_PROFILER_PATH"',
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:3] == ["1", "{066BACCC-BAC2-4894-ACF1-83D37AEAB145}", str(tmp_path)]


def test_unwritable_data_dir_fails_before_the_command(tmp_path):
    # /proc refuses new directories even to root, so this holds in CI too.
    marker = tmp_path / "ran"
    r = dotcov("run", "--data-dir", "/proc/dotcov-data", "--", "touch", str(marker), cwd=tmp_path)
    assert r.returncode == 1
    assert "cannot create the data directory /proc/dotcov-data" in r.stderr
    assert not marker.exists()


def test_data_dir_that_is_a_file_fails_before_the_command(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    marker = tmp_path / "ran"
    r = dotcov("run", "--data-dir", str(f), "--", "touch", str(marker), cwd=tmp_path)
    assert r.returncode == 1
    assert "is a file" in r.stderr
    assert not marker.exists()


def test_command_not_found(tmp_path):
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--", "no-such-command-xyz", cwd=tmp_path)
    assert r.returncode == 127  # as a shell reports it
    assert "command not found: no-such-command-xyz" in r.stderr


def test_another_profiler_is_refused(tmp_path):
    marker = tmp_path / "ran"
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--", "touch", str(marker), cwd=tmp_path,
               env={"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": "{11111111-2222-3333-4444-555555555555}"})
    assert r.returncode == 1
    assert "another CLR profiler is configured" in r.stderr
    assert not marker.exists()


def test_report_without_data_says_what_to_do(tmp_path):
    r = dotcov("report", "--data-dir", str(tmp_path / "none"), cwd=tmp_path)
    assert r.returncode == 1
    assert "dotcov run -- dotnet test" in r.stderr


def test_run_turns_contexts_on_only_when_asked(tmp_path):
    show = ["--", "sh", "-c", 'echo "contexts=$DOTCOV_CONTEXTS"']
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), *show, cwd=tmp_path, env={"DOTCOV_CONTEXTS": "test"})
    assert r.stdout.split()[0] == "contexts="  # off by default, whatever the environment says
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "--contexts", "test", *show, cwd=tmp_path)
    assert r.stdout.split()[0] == "contexts=test"
    (tmp_path / "dotcov.toml").write_text('[run]\ncontexts = "test"\n')
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), *show, cwd=tmp_path)
    assert r.stdout.split()[0] == "contexts=test"


@pytest.mark.parametrize("how", ["flag", "config"])
def test_an_unknown_context_kind_is_refused_before_data_is_touched(tmp_path, how):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    keep = data_dir / "dotcov.1.00000000.cov"
    keep.write_bytes(b"earlier data")
    args = ["--data-dir", str(data_dir)]
    if how == "flag":
        args += ["--contexts", "tests"]
    else:
        (tmp_path / "dotcov.toml").write_text('[run]\ncontexts = "method"\n')
    proc = dotcov("run", *args, "--", "true", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "unknown context kind" in proc.stderr and '"test"' in proc.stderr
    assert keep.read_bytes() == b"earlier data"
