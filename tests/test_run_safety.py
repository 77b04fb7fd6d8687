"""`dotcov run` checks everything before it touches earlier data (issue 13, item 5)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def dotcov(*args, cwd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, env=e, capture_output=True, text=True)


@pytest.fixture
def earlier_data(tmp_path):
    """A data directory holding the data of an earlier run (contents are not read by these tests)."""
    d = tmp_path / "d"
    d.mkdir()
    f = d / "dotcov.combined.cov"
    f.write_bytes(b"earlier run")
    return d, f


def test_mistyped_option_is_a_usage_error_and_erases_nothing(tmp_path, earlier_data):
    d, f = earlier_data
    marker = tmp_path / "ran"
    r = dotcov("run", "--data-dir", str(d), "--apend", "--", "touch", str(marker), cwd=tmp_path)
    assert r.returncode == 1
    assert "No such option: --apend" in r.stderr
    assert "--append" in r.stderr  # click's "Did you mean"
    assert f.read_bytes() == b"earlier run"
    assert not marker.exists()


def test_command_not_found_exits_127_and_erases_nothing(tmp_path, earlier_data):
    d, f = earlier_data
    r = dotcov("run", "--data-dir", str(d), "--", "notacommand-xyz", cwd=tmp_path)
    assert r.returncode == 127
    assert "command not found: notacommand-xyz" in r.stderr
    assert f.read_bytes() == b"earlier run"


def test_missing_path_exits_127(tmp_path, earlier_data):
    d, f = earlier_data
    r = dotcov("run", "--data-dir", str(d), "--", "./no-such-script.sh", cwd=tmp_path)
    assert r.returncode == 127
    assert "no such file" in r.stderr
    assert f.read_bytes() == b"earlier run"


def test_not_executable_exits_126_and_erases_nothing(tmp_path, earlier_data):
    d, f = earlier_data
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    r = dotcov("run", "--data-dir", str(d), "--", "./script.sh", cwd=tmp_path)
    assert r.returncode == 126
    assert "cannot execute ./script.sh: permission denied" in r.stderr
    assert f.read_bytes() == b"earlier run"


def test_directory_exits_126(tmp_path, earlier_data):
    d, f = earlier_data
    (tmp_path / "adir").mkdir()
    r = dotcov("run", "--data-dir", str(d), "--", "./adir", cwd=tmp_path)
    assert r.returncode == 126
    assert "is a directory" in r.stderr


def test_non_executable_on_path_exits_126_as_bash_does(tmp_path, earlier_data):
    d, f = earlier_data
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mytool").write_text("#!/bin/sh\n")
    r = dotcov("run", "--data-dir", str(d), "--", "mytool", cwd=tmp_path,
               env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert r.returncode == 126
    assert f"{bin_dir}/mytool is not executable" in r.stderr
    shell = subprocess.run(["bash", "-c", "mytool"], env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
                           capture_output=True)
    assert shell.returncode == 126  # what dotcov mimics


def test_command_found_along_path_keeps_its_argv0(tmp_path, earlier_data):
    d, _ = earlier_data
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "mytool"
    tool.write_text('#!/bin/sh\necho "$0"\n')
    tool.chmod(0o755)
    r = dotcov("run", "--data-dir", str(d), "--", "mytool", cwd=tmp_path,
               env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == str(tool)  # the kernel passes the script's path to sh


def test_another_profiler_erases_nothing(tmp_path, earlier_data):
    d, f = earlier_data
    r = dotcov("run", "--data-dir", str(d), "--", "true", cwd=tmp_path,
               env={"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": "{11111111-2222-3333-4444-555555555555}"})
    assert r.returncode == 1
    assert f.read_bytes() == b"earlier run"


def test_successful_run_erases_earlier_data(tmp_path, earlier_data):
    d, f = earlier_data
    r = dotcov("run", "--data-dir", str(d), "--", "true", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not f.exists()


def test_options_after_the_command_belong_to_the_command(tmp_path):
    r = dotcov("run", "--data-dir", str(tmp_path / "d"), "sh", "-c", "echo $0", "--apend", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "--apend"


def test_sources_root_is_the_enclosing_git_work_tree(tmp_path):
    from dotcov.measure.run import sources_root

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "App.Tests" / "sub").mkdir(parents=True)
    assert sources_root(repo / "App.Tests" / "sub") == repo.resolve()
    assert sources_root(repo) == repo.resolve()
    # A worktree or submodule: `.git` is a file.
    inner = repo / "vendor" / "lib"
    inner.mkdir(parents=True)
    (repo / "vendor" / ".git").write_text("gitdir: ../.git/modules/vendor\n")
    assert sources_root(inner) == (repo / "vendor").resolve()


def test_sources_root_without_a_repository_is_the_folder_itself(tmp_path):
    from dotcov.measure.run import sources_root

    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    if any((d / ".git").exists() for d in (folder, *folder.parents)):
        pytest.fail(f"{tmp_path} lies inside a git work tree: this test needs a temporary directory outside one")
    assert sources_root(folder) == folder.resolve()


def test_a_bad_filter_in_dotcov_toml_is_refused_before_the_command_runs(tmp_path, earlier_data):
    d, f = earlier_data
    (tmp_path / "dotcov.toml").write_text('[report]\nexclude = ["Calc.Legacy*"]\n')
    marker = tmp_path / "ran"
    r = dotcov("run", "--data-dir", str(d), "--", "touch", str(marker), cwd=tmp_path)
    assert r.returncode == 1
    assert "bad filter 'Calc.Legacy*': expected [Assembly]Namespace.Type" in r.stderr
    assert not marker.exists()
    assert f.read_bytes() == b"earlier run"


def test_a_command_that_fails_before_writing_data_keeps_the_previous_data_and_says_so_first(tmp_path, earlier_data):
    d, f = earlier_data
    (d / "dotcov.combined.cov.damaged").write_bytes(b"kept too")
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", "exit 3", cwd=tmp_path)  # as a build error
    assert r.returncode == 3
    assert r.stderr.splitlines()[0] == (
        f"dotcov: error: the command exited with status 3 before any .NET process recorded coverage; the previous "
        f"run's data in {d} was kept")
    assert "portable PDB" not in r.stderr
    assert sorted(p.name for p in d.iterdir() if ".cov" in p.name) == ["dotcov.combined.cov",
                                                                       "dotcov.combined.cov.damaged"]
    assert f.read_bytes() == b"earlier run"
    assert not (d / ".previous-run").exists()


# A command that signals dotcov waits for the signal dotcov passes on (up to 20 s), not a fixed time a loaded
# machine may not keep.
_AWAIT_SIGNAL = "i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done"


def test_ctrl_c_during_the_run_is_said_and_keeps_the_previous_data(tmp_path, earlier_data):
    d, f = earlier_data
    # The command gets Ctrl-C as dotcov does (its process group): here it sends SIGINT to dotcov and exits 130.
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", "kill -INT $PPID; sleep 0.2; exit 130", cwd=tmp_path)
    assert r.returncode == 130
    assert r.stderr.splitlines()[0].startswith(
        "dotcov: error: the command was interrupted (Ctrl-C) and exited with status 130 before any .NET process")
    assert f.read_bytes() == b"earlier run"


def test_a_failed_or_interrupted_command_is_said_above_the_report(tmp_path):
    from dotcov import _native

    d = tmp_path / "d"
    source = tmp_path / "written.cov"  # what a test host killed mid-run leaves
    _native.write_data_file(str(source), {"processes": [], "modules": [
        {"mvid": b"m" * 16, "pdb_id": b"p" * 20, "path": "/nowhere/A.dll", "tokens": [0x06000001], "offsets": [0],
         "hits": [1]}]})
    copy = f'cp {source} "$DOTCOV_DATA_DIR/dotcov.1.00000000.cov"'
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", f"{copy}; exit 1", cwd=tmp_path)
    assert r.returncode == 1
    assert "dotcov: the command exited with status 1\n" in r.stderr
    # dotcov passes the SIGINT on; the command's trap makes it fail (status 1) rather than stop.
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", f"trap 'exit 1' INT; {copy}; kill -INT $PPID; "
               f"{_AWAIT_SIGNAL}; exit 0", cwd=tmp_path)
    assert r.returncode == 1
    assert ("dotcov: warning: the command was interrupted (Ctrl-C) and exited with status 1: the coverage below "
            "is only what ran before that\n") in r.stderr


@pytest.mark.parametrize("trap, status", [("", 143), ("trap 'exit 0' TERM; ", 0)], ids=["killed", "graceful"])
def test_a_command_stopped_by_the_signal_dotcov_got_is_not_a_failure(tmp_path, trap, status):
    """A service ends on SIGTERM: killed by it (128+15) or after a graceful shutdown (0); its data is complete."""
    from dotcov import _native

    d = tmp_path / "d"
    source = tmp_path / "written.cov"
    _native.write_data_file(str(source), {"processes": [], "modules": [
        {"mvid": b"m" * 16, "pdb_id": b"p" * 20, "path": "/nowhere/A.dll", "tokens": [0x06000001], "offsets": [0],
         "hits": [1]}]})
    copy = f'cp {source} "$DOTCOV_DATA_DIR/dotcov.1.00000000.cov"'
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", f"{trap}{copy}; kill -TERM $PPID; {_AWAIT_SIGNAL}; exit 3",
               cwd=tmp_path)
    assert r.returncode == status
    assert r.stderr.splitlines()[0] == (f"dotcov: the command stopped on SIGTERM (exit status {status}); the data is "
                                        "complete: the coverage below is all that ran until then")


def test_a_process_left_running_after_the_signal_is_said_not_called_complete(tmp_path):
    """A script's shell ends on SIGTERM while the service it started (not with `exec`) runs on, writing its data."""
    from dotcov import _native

    d = tmp_path / "d"
    source = tmp_path / "written.cov"
    _native.write_data_file(str(source), {"processes": [], "modules": [
        {"mvid": b"m" * 16, "pdb_id": b"p" * 20, "path": "/nowhere/A.dll", "tokens": [0x06000001], "offsets": [0],
         "hits": [1]}]})
    live = '"$DOTCOV_DATA_DIR/dotcov.1.00000000.cov"'
    # The service: a process holding its data file's lock, as the agent does, for 3 s after the shell ends.
    r = dotcov("run", "--data-dir", str(d), "--", "sh", "-c", f"cp {source} {live}; "
               f"flock {live} sleep 3 >/dev/null 2>&1 & until ! flock -n {live} true; do sleep 0.05; done; "
               f"kill -TERM $PPID; {_AWAIT_SIGNAL}", cwd=tmp_path)
    assert r.returncode == 143
    assert ("dotcov: warning: the command stopped on SIGTERM (exit status 143) but 1 .NET process(es) it started "
            "still run: the coverage below is what they ran until now") in r.stderr
    assert "the data is complete" not in r.stderr
