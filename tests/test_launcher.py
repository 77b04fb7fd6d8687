"""launcher.py reads `dotcov run`'s arguments without click: wherever it does, the result is click's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dotcov.cli import launcher
from dotcov.cli.commands import cli

# Each argument list either parses without click exactly as click parses it, or is handed to click.
CASES = [
    ["--", "dotnet", "test"],
    ["dotnet", "test", "--no-build"],
    ["--no-report", "--data-dir", "D", "--", "dotnet", "test"],
    ["--data-dir=D", "--append", "--log", "--include-tests", "--contexts", "test", "--", "x"],
    ["--exact-counts", "--no-report", "--", "dotnet", "test"], ["--exact-counts=1", "x"],
    ["--contexts=test", "x", "--", "y"],
    ["--", "--", "x"],
    ["--no-report", "sh", "-c", "echo $0", "--apend"],
    ["--append", "--append", "x"],
    ["-", "x"],
    # handed to click: help, mistakes, odd values, no command
    ["--help"], ["-h", "x"], ["--apend", "x"], ["--append=1", "x"], ["--data-dir"], ["--data-dir", "--log", "x"],
    ["--data-dir=", "x"], ["--contexts", "line", "x"], ["--no-report"], ["--"], [], ["--no-report", "--", ],
    ["--data", "D", "x"], ["-x", "y"],
]


def click_parse(args):
    """`run`'s parameters as click reads them, or None when click refuses (or prints help)."""
    try:
        ctx = cli.commands["run"].make_context("run", list(args))
    except BaseException:  # click's usage errors, and --help's exit
        return None
    return ctx.params


@pytest.mark.parametrize("args", CASES)
def test_launcher_reads_run_arguments_as_click_does_or_leaves_them_to_click(args, monkeypatch):
    monkeypatch.delenv("DOTCOV_DATA_DIR", raising=False)
    ours = launcher.parse_run(list(args))
    theirs = click_parse(args)
    if ours is None:
        return  # click decides; the tests below check some of these end as before
    assert theirs is not None, args
    options, command = ours
    assert list(theirs["command"]) == command
    assert (str(theirs["data_dir"]) if theirs["data_dir"] else None) == options["data_dir"]
    assert theirs["append"] == options["append"] and theirs["agent_log"] == options["log"]
    assert theirs["include_tests"] == options["include_tests"] and theirs["no_report"] == options["no_report"]
    assert theirs["contexts"] == options["contexts"]
    assert theirs["exact_counts"] == options["exact_counts"]


def test_the_data_dir_variable_is_read_as_click_reads_it(monkeypatch, tmp_path):
    monkeypatch.setenv("DOTCOV_DATA_DIR", str(tmp_path / "d"))
    assert launcher.parse_run(["x"])[0]["data_dir"] == str(tmp_path / "d")
    assert launcher.parse_run(["--data-dir", "E", "x"])[0]["data_dir"] == "E"
    monkeypatch.setenv("DOTCOV_DATA_DIR", "")
    assert launcher.parse_run(["x"])[0]["data_dir"] is None
    f = tmp_path / "file"
    f.write_text("")
    monkeypatch.setenv("DOTCOV_DATA_DIR", str(f))
    assert launcher.parse_run(["x"]) is None  # click says "is a file"


def test_run_does_not_import_click(tmp_path):
    code = ("import sys; sys.argv = ['dotcov', 'run', '--no-report', '--data-dir', sys.argv[1], '--', 'true']\n"
            "from dotcov.cli import launcher\n"
            "try:\n    launcher.main()\nexcept SystemExit as e:\n    status = e.code\n"
            "print(status, 'click' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "d")], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "DOTCOV_DATA_DIR": ""})
    assert r.stdout.split() == ["0", "False"], r.stderr


def test_help_and_mistakes_still_go_through_click(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dotcov", "run", "--help"], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0 and "Run COMMAND with the agent" in r.stdout
    r = subprocess.run([sys.executable, "-m", "dotcov", "run", "--contexts", "line", "--", "true"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "unknown context kind 'line'" in r.stderr
