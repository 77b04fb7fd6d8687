"""`dotcov diff` on a real run: samples/Calc in a git repository, edited (committed and not), rebuilt, tested."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from . import diff_edits
from .conftest import _dotnet_env
from .marks import read_marks

pytestmark = pytest.mark.e2e


def dotcov(sample, *args):
    return subprocess.run([sys.executable, "-m", "dotcov", "diff", *args], cwd=sample.repo, env=_dotnet_env(),
                          capture_output=True, text=True)


def test_expected_sets_agree_with_the_marks(calc_git_sample):
    for rel, (changed, missed) in diff_edits.EXPECTED.items():
        hit, miss = read_marks(calc_git_sample.repo / rel)
        assert set(changed) <= hit | miss and set(missed) == set(changed) & miss, rel


def test_json_names_exactly_the_changed_and_missed_statement_lines(calc_git_sample):
    r = dotcov(calc_git_sample, "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["base"] == calc_git_sample.base  # default: the merge base with main
    assert {f["path"]: (f["changed"], f["missed"]) for f in report["files"]} == diff_edits.EXPECTED
    assert [f["path"] for f in report["files"]] == sorted(diff_edits.EXPECTED)
    changed = sum(len(c) for c, _ in diff_edits.EXPECTED.values())
    missed = sum(len(m) for _, m in diff_edits.EXPECTED.values())
    assert report["percent"] == pytest.approx(100.0 * (changed - missed) / changed)
    assert set(report) == {"base", "percent", "files", "untracked_files"}
    assert report["untracked_files"] == []  # Extra.cs was added with `git add -N`: tracked
    assert all(set(f) == {"path", "changed", "missed"} for f in report["files"])


def test_text_lists_each_missed_line_with_its_source(calc_git_sample):
    r = dotcov(calc_git_sample, "--base", "main")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith(f"Diff coverage since main ({calc_git_sample.base[:12]})\n")
    for (rel, line), text in diff_edits.EXPECTED_SOURCE.items():
        assert f"\n{rel}:{line}: {text}\n" in out
    assert re.search(r"^DIFF TOTAL +7 +5 +28\.6%$", out, re.M)
    assert re.search(r"^Calc/Calculator\.cs +2 +1 +50\.0% +45$", out, re.M)
    assert re.search(r"^Calc/Extra\.cs +3 +3 +0\.0% +7-9$", out, re.M)
    assert "does not know (not counted): " + ", ".join(diff_edits.EXPECTED_UNKNOWN) in out
    assert "warning" not in r.stderr  # nothing edited after the run


def test_markdown_and_github_formats_and_output_file(calc_git_sample, tmp_path):
    out = tmp_path / "diff.md"
    r = dotcov(calc_git_sample, "--format", "markdown", "-o", str(out))
    assert r.returncode == 0 and r.stdout == f"Wrote diff coverage to {out}\n", r.stderr
    md = out.read_text()
    assert md.startswith("### Diff coverage: 28.6%\n")
    assert "| Calc/Extra.cs | 3 | 3 | 0.0% | 7-9 |" in md
    assert "| **TOTAL** | **7** | **5** | **28.6%** | |" in md
    assert '27:         return $"contents of {url}"; // @miss' in md
    gh = dotcov(calc_git_sample, "--format", "github")
    assert gh.returncode == 0, gh.stderr
    assert gh.stdout.splitlines() == [
        "::warning file=Calc/Calculator.cs,line=45,title=Not covered::Changed line 45 not run by the tests",
        "::warning file=Calc/Extra.cs,line=7,endLine=9,title=Not covered::Changed lines 7-9 not run by the tests",
        "::warning file=Calc/Sequences.cs,line=27,title=Not covered::Changed line 27 not run by the tests",
        f"::notice title=Diff coverage::28.6%25 of 7 changed statement lines covered (5 missed) since main "
        f"(merge base {calc_git_sample.base[:12]})",
    ]


def test_fail_under_applies_to_the_changed_lines(calc_git_sample):
    below = dotcov(calc_git_sample, "--fail-under", "30")
    assert below.returncode == 2
    assert "diff coverage 28.57% is below --fail-under=30" in below.stderr
    assert dotcov(calc_git_sample, "--fail-under", "28").returncode == 0
    # Filters apply as in every report: without Extra the changed lines are 4, 2 covered.
    filtered = dotcov(calc_git_sample, "--format", "json", "--exclude", "[Calc]Calc.Extra")
    assert json.loads(filtered.stdout)["percent"] == 50.0


def test_since_head_only_the_uncommitted_edits_count(calc_git_sample):
    r = dotcov(calc_git_sample, "--format", "json", "--base", "HEAD")
    assert r.returncode == 0, r.stderr
    files = {f["path"]: (f["changed"], f["missed"]) for f in json.loads(r.stdout)["files"]}
    assert files == {"Calc/Extra.cs": ([7, 8, 9], [7, 8, 9]), "Calc/Sequences.cs": ([15, 27], [27])}


def test_a_new_file_git_does_not_track_yet_counts_whole_unless_excluded(calc_git_sample):
    """Issue 25 item 12: Extra.cs, new and never run, not even `git add -N`ed."""
    rel = diff_edits.NEW_FILE[0]
    subprocess.run(["git", "reset", "-q", "--", rel], cwd=calc_git_sample.repo, check=True)  # untracked now
    try:
        report = json.loads(dotcov(calc_git_sample, "--format", "json", "--base", "main").stdout)
        assert {f["path"]: (f["changed"], f["missed"]) for f in report["files"]} == diff_edits.EXPECTED
        assert report["percent"] == pytest.approx(200 / 7) and report["untracked_files"] == [rel]
        text = dotcov(calc_git_sample, "--base", "main").stdout
        assert text.splitlines()[1] == ("Includes 1 file git does not track yet, every statement line counted as "
                                        f"changed (--exclude-untracked leaves it out): {rel}")
        assert re.search(r"^DIFF TOTAL +7 +5 +28\.6%$", text, re.M)
        left_out = json.loads(dotcov(calc_git_sample, "--format", "json", "--base", "main",
                                     "--exclude-untracked").stdout)
        assert rel not in [f["path"] for f in left_out["files"]]
        assert (left_out["percent"], left_out["untracked_files"]) == (50.0, [])
    finally:
        subprocess.run(["git", "add", "--intent-to-add", rel], cwd=calc_git_sample.repo, check=True)
