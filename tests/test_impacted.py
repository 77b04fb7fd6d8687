"""`dotcov impacted` (src/dotcov/reports/impacted.py, cli/commands.py): the tests whose lines a change touches.

The pure join is tested on hand-made lines; the command in a temporary git repository holding a copy of the
Snippets source with an uncommitted edit, its data from the Snippets build with contexts (test_contexts.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dotcov.data import datafiles as data
from dotcov.cli.commands import cli
from dotcov.data.gitdiff import Base
from dotcov.reports.impacted import compute_impact, filter_value, render_filter, render_json, render_text
from dotcov.analysis.results import ReportOptions, build
from dotcov.analysis.numbers import Analysis

from test_contexts import SNIPPETS, data_of, module_with_contexts, snippets_dll  # noqa: F401 (a fixture)

BASE = Base("main", "0" * 40, "main (000000000000)")


def _impact(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("A.cs", "B.cs", "Gone.cs"):
        (src / name).write_text("x\n")
    line_tests = {str(src / "A.cs"): {3: frozenset({"T.One"}), 4: frozenset({"T.One", "T.Two"}), 9: frozenset({"T.Nine"})},
                  str(src / "B.cs"): {1: frozenset({"T.Three"})}}
    statements = {str(src / "A.cs"): {3, 4, 5, 9}, str(src / "B.cs"): {1, 2}}
    changed = {"src/A.cs": {2, 4, 5}, "src/B.cs": {2}, "src/New.cs": {1}, "README.md": {1}}
    return compute_impact(line_tests, statements, tmp_path, changed, BASE)


def test_the_tests_of_the_changed_statement_lines_and_what_no_test_ran(tmp_path):
    d = _impact(tmp_path)
    assert d.tests == ["T.One", "T.Two"]  # line 2 is no statement; 9 and B's 1 did not change
    assert d.changed == 3
    assert [(f.path, f.missed) for f in d.untested] == [("src/A.cs", [5]), ("src/B.cs", [2])]
    assert d.unknown == ["src/New.cs"]  # a .cs file the data does not know (README.md is no source)
    doc = json.loads(render_json(d))
    assert doc == {"base": "main", "tests": ["T.One", "T.Two"], "changed_statements": 3,
                   "untested_changes": [{"path": "src/A.cs", "lines": [5]}, {"path": "src/B.cs", "lines": [2]}],
                   "unknown_files": ["src/New.cs"], "untracked_files": []}
    text = render_text(d)
    assert "since main (000000000000): 2" in text and "\n  T.One\n  T.Two\n" in text
    assert "Changed statement lines no recorded test ran (2)" in text and "  src/A.cs: 5\n" in text
    assert "does not know: src/New.cs" in text


def test_filter_expression_and_its_escaping():
    assert filter_value("N.C.M") == "N.C.M"
    assert filter_value("N.C<A,B>.M(x)=!~&|\\") == "N.C<A%2CB>.M\\(x\\)\\=\\!\\~\\&\\|\\\\"
    d = _impact_with(["A.B.M", "A.B.N"])
    assert render_filter(d) == ("FullyQualifiedName=A.B.M|FullyQualifiedName~A.B.M\\(|"
                                "FullyQualifiedName=A.B.N|FullyQualifiedName~A.B.N\\(\n")
    assert render_filter(_impact_with([])) == ""


def _impact_with(tests):
    from dotcov.reports.impacted import Impact

    return Impact(BASE, tests, 1, [], [], [])


# --- the command, in a git repository with an uncommitted change ----------------------------------------------

def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def snippets_repo(snippets_dll, tmp_path, monkeypatch):  # noqa: F811
    """A git repository with Cases.cs committed on main, then two lines edited in the working tree: one some
    tests ran, one only code outside any test ran. Returns (run the CLI in it, the lines' tests)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(SNIPPETS / "Cases.cs", repo / "Cases.cs")
    (repo / "dotcov.toml").write_text(f'[paths]\nsnip = ["{repo / "Cases.cs"}", "{SNIPPETS / "Cases.cs"}"]\n')
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")

    module = module_with_contexts(snippets_dll)
    result, _ = build(data_of(module), repo, ReportOptions(contexts=True, paths={"snip": [
        str(repo / "Cases.cs"), str(SNIPPETS / "Cases.cs")]}))
    f = Analysis.of(result).file(str(repo / "Cases.cs"))
    tested = min(n for n in f.contexts if len(f.contexts[n]) >= 2)
    untested = min(n for n, h in f.lines.items() if h > 0 and n not in f.contexts)  # run outside any test
    lines = (repo / "Cases.cs").read_text().split("\n")
    for n in (tested, untested):
        lines[n - 1] += " "  # a changed line (whitespace counts: git diff without -w)
    (repo / "Cases.cs").write_text("\n".join(lines))

    d = tmp_path / "data"
    d.mkdir()
    data.write(data_of(module), d / "dotcov.1.00000001.cov")
    real_read = data.read_file

    def read_file(path, into, *args, **kwargs):  # the file format's contexts are the agent's: given back here
        real_read(path, into, *args, **kwargs)
        for m in into.modules.values():
            m.contexts = {k: set(v) for k, v in module.contexts.items()}

    monkeypatch.setattr(data, "read_file", read_file)
    monkeypatch.chdir(repo)

    def run(*args, command="impacted"):
        return CliRunner(mix_stderr=False).invoke(cli, [command, "--data-dir", str(d), *args], catch_exceptions=False)

    run.module = module
    return run, sorted(f.contexts[tested]), tested, untested


def test_impacted_lists_the_tests_of_the_uncommitted_change(snippets_repo):
    run, tests, tested, untested = snippets_repo
    r = run("--format", "json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["tests"] == tests
    assert doc["untested_changes"] == [{"path": "Cases.cs", "lines": [untested]}]
    assert doc["base"] == _git(Path.cwd(), "rev-parse", "HEAD").strip()  # default base: the merge base with main
    r = run("--format", "filter", "--base", "HEAD")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == "|".join(f"FullyQualifiedName={filter_value(t)}|FullyQualifiedName~"
                                                f"{filter_value(t)}\\(" for t in tests)
    assert "1 changed statement line(s) were run by no recorded test" in r.stderr
    r = run()
    assert f"Cases.cs: {untested}" in r.output and all(f"\n  {t}\n" in r.output for t in tests)


def test_impacted_filters_gates_and_errors(snippets_repo, tmp_path):
    run, tests, tested, untested = snippets_repo
    r = run("--fail-untested", "--format", "json", "-o", str(tmp_path / "i.json"))
    assert r.exit_code == 2 and "run by no recorded test" in r.stderr
    assert json.loads((tmp_path / "i.json").read_text())["tests"] == tests
    # --contexts limits the tests considered
    r = run("--format", "json", "--contexts", tests[0].replace("(", "\\(").replace(")", "\\)") + "$")
    assert json.loads(r.stdout)["tests"] == [tests[0]]
    assert run("--fail-under", "50").exit_code == 1
    assert run("--base", "no-such-rev").exit_code == 1
    run.module.contexts.clear()
    r = run()
    assert r.exit_code == 1 and "record them with 'dotcov run --contexts test" in r.stderr


def test_diff_takes_the_contexts_filter_too(snippets_repo):
    run, tests, tested, untested = snippets_repo
    full = json.loads(run("--format", "json", command="diff").stdout)
    assert full["files"] == [{"path": "Cases.cs", "changed": sorted([tested, untested]), "missed": []}]
    # The untested line ran only outside any test: under any filter it is missed, the tested line is not.
    only = json.loads(run("--format", "json", "--contexts", ",".join(t.replace("(", "\\(").replace(")", "\\)")
                                                                       for t in tests), command="diff").stdout)
    assert only["files"][0]["missed"] == [untested]
    none = json.loads(run("--format", "json", "--contexts", "NoSuchTest", command="diff").stdout)
    assert none["percent"] == 0.0


def test_report_contexts_in_the_config_must_be_strings(tmp_path, monkeypatch):
    (tmp_path / "dotcov.toml").write_text("[report]\ncontexts = 3\n")
    monkeypatch.chdir(tmp_path)
    r = CliRunner(mix_stderr=False).invoke(cli, ["report"])
    assert r.exit_code == 1 and "report.contexts must be a string or a list of strings" in r.stderr
    (tmp_path / "dotcov.toml").write_text('[report]\ncontexts = "ok,bad("\n')
    r = CliRunner(mix_stderr=False).invoke(cli, ["report"])
    assert r.exit_code == 1 and "--contexts 'bad(' is not a regular expression" in r.stderr
