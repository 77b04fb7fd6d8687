"""`dotcov diff`: changed lines from a temporary git repository, joined with synthetic coverage results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov.reports import diff_coverage
from dotcov.data import gitdiff
from dotcov.analysis.model import AssemblyCoverage, CoverageResult, FileCoverage
from dotcov.reports.text import escape_markdown


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "config", "core.autocrlf", "false")
    return repo


def write(path: Path, lines: list[str], newline: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(newline.join(lines).encode() + newline.encode())


def commit(repo: Path, message: str = "c") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def result(files: dict[Path, dict[int, int]]) -> CoverageResult:
    asm = AssemblyCoverage("A", files={str(p): FileCoverage(str(p), dict(lines)) for p, lines in files.items()})
    return CoverageResult([asm])


LINES = [f"line {n}" for n in range(1, 11)]


def changed(repo: Path, base: str) -> dict[str, set[int]]:
    return gitdiff.changed_lines(gitdiff.repository_root(repo), base)


def test_uncommitted_and_committed_changes_since_the_base(repo):
    write(repo / "src" / "A.cs", LINES)
    base = commit(repo)
    edited = list(LINES)
    edited[1] = "line 2 changed"  # committed change
    write(repo / "src" / "A.cs", edited)
    commit(repo)
    edited[5:5] = ["inserted 6", "inserted 7"]  # uncommitted: lines 6-7 are new
    write(repo / "src" / "A.cs", edited)
    assert changed(repo, base) == {"src/A.cs": {2, 6, 7}}


def test_renames_deletions_binary_and_odd_names(repo):
    write(repo / "Old.cs", LINES)
    write(repo / "Gone.cs", LINES)
    write(repo / "sp ace.cs", LINES)
    write(repo / "t\tab ü.cs", LINES)
    base = commit(repo)
    git(repo, "mv", "Old.cs", "New.cs")
    write(repo / "New.cs", LINES[:3] + ["line 4 changed"] + LINES[4:])  # renamed with one change
    (repo / "Gone.cs").unlink()
    write(repo / "sp ace.cs", LINES + ["+++ b/not a file header", "@@ -1 +1 @@ not a hunk"])
    write(repo / "t\tab ü.cs", ["new first"] + LINES[1:])
    (repo / "blob.cs").write_bytes(b"\x00\x01\x02")
    git(repo, "add", "blob.cs", "New.cs")
    assert changed(repo, base) == {"New.cs": {4}, "sp ace.cs": {11, 12}, "t\tab ü.cs": {1}}


def test_user_git_settings_do_not_change_the_reading(repo):
    write(repo / "sub" / "A.cs", LINES)
    base = commit(repo)
    write(repo / "sub" / "A.cs", ["changed"] + LINES[1:])
    for key, value in (("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"), ("diff.relative", "true"),
                       ("color.diff", "always"), ("color.ui", "always"), ("diff.external", "false"),
                       ("core.quotePath", "true")):
        git(repo, "config", key, value)
    root = gitdiff.repository_root(repo / "sub")
    assert root == repo
    assert gitdiff.changed_lines(root, base) == {"sub/A.cs": {1}}


def test_crlf_files_count_lines_as_git_does(repo):
    write(repo / "Win.cs", LINES, newline="\r\n")
    base = commit(repo)
    edited = list(LINES)
    edited[2] = "line 3 changed"
    write(repo / "Win.cs", edited, newline="\r\n")
    lines = changed(repo, base)
    assert lines == {"Win.cs": {3}}
    d = diff_coverage.compute(diff_coverage.statement_lines(result({repo / "Win.cs": {3: 0, 4: 1}})),
                              repo, lines, gitdiff.resolve_base(repo, base))
    assert d.files[0].source == {3: "line 3 changed"}  # no stray \r


def test_untracked_files_are_not_in_the_diff_until_added_with_intent(repo):
    write(repo / "A.cs", LINES)
    base = commit(repo)
    write(repo / "New.cs", LINES[:2])
    assert changed(repo, base) == {}
    git(repo, "add", "-N", "New.cs")
    assert changed(repo, base) == {"New.cs": {1, 2}}


def test_default_base_is_the_merge_base_with_origin_main_else_main(repo):
    write(repo / "A.cs", LINES)
    first = commit(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo / "A.cs", LINES + ["feature line"])
    commit(repo)
    git(repo, "checkout", "-q", "main")
    write(repo / "B.cs", LINES)
    main_tip = commit(repo)
    git(repo, "checkout", "-q", "feature")
    base = gitdiff.resolve_base(repo, None)
    assert (base.commit, base.label) == (first, first)
    assert base.described.startswith("main (merge base ")
    git(repo, "update-ref", "refs/remotes/origin/main", main_tip)
    git(repo, "checkout", "-q", "main")
    git(repo, "reset", "-q", "--hard", first)
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", main_tip)  # feature now contains origin/main's tip
    assert gitdiff.resolve_base(repo, None).commit == main_tip  # origin/main wins over the older local main
    assert gitdiff.resolve_base(repo, "HEAD~1").label == "HEAD~1"


def test_missing_base_and_no_repository_are_clear_errors(repo, tmp_path):
    write(repo / "A.cs", LINES)
    git(repo, "checkout", "-q", "-b", "trunk")
    commit(repo)
    with pytest.raises(gitdiff.GitError, match="neither origin/main nor main exists"):
        gitdiff.resolve_base(repo, None)
    with pytest.raises(gitdiff.GitError, match="--base v9.9: no such commit"):
        gitdiff.resolve_base(repo, "v9.9")
    with pytest.raises(gitdiff.GitError, match="--base --output=x: no such commit"):
        gitdiff.resolve_base(repo, "--output=x")  # not taken as an option
    outside = tmp_path / "plain"
    outside.mkdir()
    with pytest.raises(gitdiff.GitError, match="is not inside a git work tree"):
        gitdiff.repository_root(outside)


def dotcov(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "GIT_CEILING_DIRECTORIES": str(Path(cwd).parent)})


def test_cli_errors_exit_1_before_reading_data(repo, tmp_path):
    outside = tmp_path / "plain"
    outside.mkdir()
    r = dotcov("diff", cwd=outside)
    assert r.returncode == 1 and "is not inside a git work tree" in r.stderr
    write(repo / "A.cs", LINES)
    git(repo, "checkout", "-q", "-b", "trunk")
    commit(repo)
    r = dotcov("diff", cwd=repo)
    assert r.returncode == 1 and "neither origin/main nor main exists" in r.stderr
    r = dotcov("diff", "--base", "nope", cwd=repo)
    assert r.returncode == 1 and "--base nope: no such commit" in r.stderr
    r = dotcov("diff", "--base", "HEAD", "--fail-under-type", "branch", cwd=repo)
    assert r.returncode == 1 and "do not apply" in r.stderr
    r = dotcov("diff", "--base", "HEAD", "--data-dir", str(tmp_path / "none"), cwd=repo)
    assert r.returncode == 1 and "no coverage data" in r.stderr


@pytest.fixture
def scenario(repo):
    """Two known files and one the data does not know; a change of statements, non-statements and both."""
    write(repo / "src" / "A.cs", LINES)
    write(repo / "src" / "B.cs", LINES)
    write(repo / "src" / "Unknown.cs", LINES)
    write(repo / "README.md", ["x"])
    base = commit(repo)
    a = list(LINES)
    a[1], a[2], a[3], a[6] = "A2 `x` | y", "A3", "A4", "A7"  # statements 2, 3, 4, 7 changed; 4 covered
    write(repo / "src" / "A.cs", a)
    b = list(LINES)
    b[8] = "comment"  # not a statement
    write(repo / "src" / "B.cs", b)
    write(repo / "src" / "Unknown.cs", ["new"] + LINES)
    write(repo / "README.md", ["y"])
    cov = result({repo / "src" / "A.cs": {2: 0, 3: 0, 4: 5, 5: 0, 7: 0, 8: 1},
                  repo / "src" / "B.cs": {1: 0, 2: 1},
                  repo.parent / "elsewhere" / "C.cs": {1: 0}})
    return diff_coverage.compute(diff_coverage.statement_lines(cov), repo, changed(repo, base),
                                 gitdiff.resolve_base(repo, base))


def test_changed_statement_lines_and_the_missed_ones(scenario):
    d = scenario
    assert [(f.path, f.changed, f.missed) for f in d.files] == [("src/A.cs", [2, 3, 4, 7], [2, 3, 7])]
    assert d.files[0].source == {2: "A2 `x` | y", 3: "A3", 7: "A7"}
    assert d.unknown == ["src/Unknown.cs"]  # README.md is not a kind of file the data holds
    assert d.percent == 25.0
    assert json.loads(diff_coverage.render_json(d)) == {
        "base": d.base.label, "percent": 25.0,
        "files": [{"path": "src/A.cs", "changed": [2, 3, 4, 7], "missed": [2, 3, 7]}], "untracked_files": []}


def test_text_markdown_and_github_formats(scenario):
    text = diff_coverage.render_text(scenario)
    assert "\nsrc/A.cs           4      3   25.0%   2-3, 7\n" in text
    assert "\nDIFF TOTAL         4      3   25.0%\n" in text  # not ^TOTAL, which GitLab reads as the project's
    assert "src/A.cs:2: A2 `x` | y\nsrc/A.cs:3: A3\nsrc/A.cs:7: A7" in text
    assert "does not know (not counted): src/Unknown.cs" in text
    md = diff_coverage.render_markdown(scenario)
    assert md.startswith("### Diff coverage: 25.0%\n")
    assert "| src/A.cs | 4 | 3 | 25.0% | 2-3, 7 |" in md
    assert "| **TOTAL** | **4** | **3** | **25.0%** | |" in md
    assert "```\n2: A2 `x` | y\n3: A3\n7: A7\n```" in md
    gh = diff_coverage.render_github(scenario).splitlines()
    assert gh[:2] == [
        "::warning file=src/A.cs,line=2,endLine=3,title=Not covered::Changed lines 2-3 not run by the tests",
        "::warning file=src/A.cs,line=7,title=Not covered::Changed line 7 not run by the tests"]
    assert gh[2].startswith("::notice title=Diff coverage::25.0%25 of 4 changed statement lines covered (3 missed)")


def test_no_changed_statement_is_100_percent(repo):
    write(repo / "A.cs", LINES)
    base = commit(repo)
    write(repo / "A.cs", LINES[:9] + ["comment"])
    d = diff_coverage.compute({str(repo / "A.cs"): {1: 0}}, repo, changed(repo, base), gitdiff.resolve_base(repo, base))
    assert d.files == [] and d.percent == 100.0
    assert json.loads(diff_coverage.render_json(d))["percent"] == 100.0
    assert "No statement line was added or changed: 100%" in diff_coverage.render_text(d)


def test_paths_through_a_symlink_and_stale_files(repo, tmp_path):
    write(repo / "A.cs", LINES)
    base = commit(repo)
    write(repo / "A.cs", ["changed"] + LINES[1:])
    link = tmp_path / "link"
    link.symlink_to(repo)
    lines = changed(repo, base)
    d = diff_coverage.compute({str(link / "A.cs"): {1: 1}}, link, lines, gitdiff.resolve_base(repo, base),
                              data_time=(repo / "A.cs").stat().st_mtime - 10)
    assert [(f.path, f.changed, f.missed) for f in d.files] == [("A.cs", [1], [])]
    assert d.stale == ["A.cs"]


def test_markdown_fence_outgrows_backticks_in_the_source(repo):
    write(repo / "A.cs", LINES)
    base = commit(repo)
    write(repo / "A.cs", ["var s = ```` ;"] + LINES[1:])
    d = diff_coverage.compute({str(repo / "A.cs"): {1: 0}}, repo, changed(repo, base), gitdiff.resolve_base(repo, base))
    assert "`````\n1: var s = ```` ;\n`````" in diff_coverage.render_markdown(d)


def test_github_commands_escape_what_would_end_a_property():
    d = diff_coverage.DiffCoverage(gitdiff.Base("b", "b" * 40, "100%,x"),
                                   [diff_coverage.FileDiff("a,b:c%.cs", [3], [3], {3: ""})], [], [])
    assert diff_coverage.render_github(d).splitlines() == [
        "::warning file=a%2Cb%3Ac%25.cs,line=3,title=Not covered::Changed line 3 not run by the tests",
        "::notice title=Diff coverage::0.0%25 of 1 changed statement lines covered (1 missed) since 100%25,x"]


@pytest.fixture
def untracked(repo):
    """Issue 25 item 12: 2 of 3 changed statement lines covered in a tracked file (66.7%), and a new file git does
    not track yet with 4 statements no test ran; an ignored file and an untracked one the data does not know too."""
    write(repo / "src" / "A.cs", LINES)
    write(repo / ".gitignore", ["Ignored.cs"])
    base = commit(repo)
    write(repo / "src" / "A.cs", ["A1", "A2", "A3"] + LINES[3:])  # statements 1-3 changed, 1-2 covered
    write(repo / "src" / "new" / "New.cs", LINES[:6])  # untracked, in an untracked directory
    write(repo / "Ignored.cs", LINES[:2])  # ignored: never counts
    write(repo / "Scratch.cs", LINES[:2])  # untracked, the data does not know it: left out, not named
    cov = result({repo / "src" / "A.cs": {1: 1, 2: 3, 3: 0, 9: 0},
                  repo / "src" / "new" / "New.cs": {2: 0, 3: 0, 4: 0, 6: 0},
                  repo / "Ignored.cs": {1: 0, 2: 0}})
    return repo, diff_coverage.statement_lines(cov), base


def test_untracked_files_the_data_knows_count_as_wholly_changed(untracked):
    repo, statements, base = untracked
    root = gitdiff.repository_root(repo)
    assert gitdiff.untracked_files(root) == ["Scratch.cs", "src/new/New.cs"]  # not Ignored.cs
    d = diff_coverage.compute(statements, repo, changed(repo, base), gitdiff.resolve_base(repo, base),
                              untracked=gitdiff.untracked_files(root))
    assert [(f.path, f.changed, f.missed) for f in d.files] == [("src/A.cs", [1, 2, 3], [3]),
                                                                ("src/new/New.cs", [2, 3, 4, 6], [2, 3, 4, 6])]
    assert (d.changed, d.missed, round(d.percent, 1)) == (7, 5, 28.6)
    assert d.untracked == ["src/new/New.cs"] and d.unknown == []
    note = ("Includes 1 file git does not track yet, every statement line counted as changed "
            "(--exclude-untracked leaves it out): src/new/New.cs")
    text = diff_coverage.render_text(d)
    assert text.splitlines()[1] == note
    assert "\nDIFF TOTAL             7      5   28.6%\n" in text
    md = diff_coverage.render_markdown(d)
    assert md.startswith("### Diff coverage: 28.6%\n\n" + escape_markdown(note) + "\n")
    doc = json.loads(diff_coverage.render_json(d))
    assert doc["untracked_files"] == ["src/new/New.cs"] and doc["percent"] == 200 / 7
    assert set(doc) == {"base", "percent", "files", "untracked_files"}
    gh = diff_coverage.render_github(d).splitlines()
    assert gh[-2] == "::notice title=Untracked files::" + note
    assert gh[-1].startswith("::notice title=Diff coverage::28.6%25 of 7 changed statement lines covered (5 missed)")
    # Left out (--exclude-untracked), the old figure and no note.
    old = diff_coverage.compute(statements, repo, changed(repo, base), gitdiff.resolve_base(repo, base))
    assert (old.changed, old.missed, round(old.percent, 1), old.untracked) == (3, 1, 66.7, [])
    assert "git does not track" not in diff_coverage.render_text(old) + diff_coverage.render_markdown(old)
    assert json.loads(diff_coverage.render_json(old))["untracked_files"] == []


def test_a_file_added_with_intent_is_tracked_not_untracked(untracked):
    repo, statements, base = untracked
    git(repo, "add", "-N", "src/new/New.cs")
    root = gitdiff.repository_root(repo)
    assert gitdiff.untracked_files(root) == ["Scratch.cs"]
    d = diff_coverage.compute(statements, repo, changed(repo, base), gitdiff.resolve_base(repo, base),
                              untracked=gitdiff.untracked_files(root))
    assert (d.changed, d.missed, d.untracked) == (7, 5, [])  # the same lines, counted as git diff's


class _Data:
    """What `dotcov diff` and `dotcov impacted` read of the coverage data (cli.commands._coverage), built by hand."""

    def __init__(self, statements: dict[str, dict[int, int]], tests: dict[str, dict[int, frozenset[str]]]):
        from types import SimpleNamespace

        self._result = SimpleNamespace(all_files=lambda: [FileCoverage(p, dict(ls)) for p, ls in statements.items()],
                                       timestamp=0)
        self._analysis = SimpleNamespace(timestamp=0, files=[SimpleNamespace(path=p, lines=dict(ls),
                                                                             contexts=tests.get(p, {}))
                                                             for p, ls in statements.items()])

    def result(self):
        return self._result

    def analysis(self):
        return self._analysis

    def has_contexts(self):
        return True

    def write_output(self, output, data: bytes):
        sys.stdout.write(data.decode())


def test_commands_count_untracked_files_unless_told_not_to(untracked, monkeypatch):
    from click.testing import CliRunner

    from dotcov.cli import commands

    repo, statements, base = untracked
    a, new = str(repo / "src" / "A.cs"), str(repo / "src" / "new" / "New.cs")
    tests = {a: {1: frozenset({"T.A"})}, new: {}}
    monkeypatch.setattr(commands, "_coverage", lambda settings: _Data(statements, tests))
    monkeypatch.chdir(repo / "src")  # paths are the repository's wherever dotcov runs

    def run(*args):
        r = CliRunner(mix_stderr=False).invoke(commands.cli, [*args, "--base", base], catch_exceptions=False)
        assert r.exit_code == 0, r.output + r.stderr
        return r

    doc = json.loads(run("diff", "--format", "json").stdout)
    assert round(doc["percent"], 1) == 28.6  # 2 of 7: without the untracked file, 66.7 (2 of 3)
    assert doc["untracked_files"] == ["src/new/New.cs"]
    doc = json.loads(run("diff", "--format", "json", "--exclude-untracked").stdout)
    assert (round(doc["percent"], 1), doc["untracked_files"]) == (66.7, [])
    assert "DIFF TOTAL             7      5   28.6%" in run("diff").stdout
    doc = json.loads(run("impacted", "--format", "json").stdout)
    assert (doc["tests"], doc["changed_statements"], doc["untracked_files"]) == (["T.A"], 7, ["src/new/New.cs"])
    assert {"path": "src/new/New.cs", "lines": [2, 3, 4, 6]} in doc["untested_changes"]
    doc = json.loads(run("impacted", "--format", "json", "--exclude-untracked").stdout)
    assert (doc["changed_statements"], doc["untracked_files"]) == (3, [])
    assert [u["path"] for u in doc["untested_changes"]] == ["src/A.cs"]
    r = run("impacted", "--format", "filter")
    assert "git does not track yet" in r.stderr and "src/new/New.cs" in r.stderr
    assert "git does not track yet" in run("impacted").stdout
