"""docs/ci.md's jobs: their shell steps, run as scripts against samples/Calc in a git repository.

The CI system's variables point into tmp_path; steps that are not shell (`uses:`, `task:`) are not run, and
the one `pip install` step of each job is left out (the checkout's dotcov is on PATH instead).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from . import diff_edits
from .conftest import REPO, _dotnet_env, _git, coverage_by_file

pytestmark = pytest.mark.e2e

CI_MD = REPO / "docs" / "ci.md"
MARKED = re.compile(r"<!-- ci-test: (\S+) -->\n```yaml\n(.*?)\n```", re.S)


def snippets() -> dict[str, dict]:
    found = {name: yaml.safe_load(body) for name, body in MARKED.findall(CI_MD.read_text())}
    assert set(found) == {"github", "gitlab", "azure", "github-shards"}, sorted(found)
    return found


def without_install(steps: list[str]) -> list[str]:
    installs = [s for s in steps if "pip install" in s]
    assert len(installs) == 1, steps  # exactly the one step the test replaces by the checkout's dotcov
    return [s for s in steps if s not in installs]


def github_steps(job: dict) -> list[str]:
    return without_install([step["run"] for step in job["steps"] if "run" in step])


def run_script(steps: list[str], repo: Path, env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    """Runs the steps as one bash script that stops at the first failure, as CI runners do."""
    env = _dotnet_env()
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # dotcov of this checkout
    env.update(env_extra)
    script = "set -eo pipefail\n" + "\n".join(steps)
    return subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture
def sample(calc_git_sample):
    # What a CI checkout has: the target branch as a remote-tracking branch.
    _git(calc_git_sample.repo, "update-ref", "refs/remotes/origin/main", calc_git_sample.base)
    yield calc_git_sample
    # The repository is shared with test_diff_command.py, whose default base must stay `main`.
    _git(calc_git_sample.repo, "update-ref", "-d", "refs/remotes/origin/main")


def expected_missed_lines() -> set[tuple[str, int]]:
    return {(path, n) for path, (_c, missed) in diff_edits.EXPECTED.items() for n in missed}


def test_dotcov_on_path_is_this_checkout():
    assert shutil.which("dotcov", path=str(Path(sys.executable).parent)), "the venv has no dotcov script"


def test_github_actions(sample, tmp_path):
    summary = tmp_path / "summary.md"
    r = run_script(github_steps(snippets()["github"]["jobs"]["test"]), sample.repo,
                   {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_BASE_REF": "main", "GITHUB_ACTIONS": "true"})
    assert r.returncode == 2, r.stdout + r.stderr  # 28.6% of the changed lines is below --fail-under 80
    assert "dotcov: diff coverage 28.57% is below --fail-under=80" in r.stderr
    warnings = re.findall(r"^::warning file=([^,]+),line=(\d+)(?:,endLine=(\d+))?,title=[^:]*::", r.stdout, re.M)
    annotated = {(path, n) for path, start, end in warnings for n in range(int(start), int(end or start) + 1)}
    assert annotated == expected_missed_lines()
    assert re.search(r"^::notice title=Diff coverage::28\.6%25 of 7 changed statement lines", r.stdout, re.M)
    text = summary.read_text()
    assert re.search(r"^\| \*\*TOTAL\*\* +\| +\*\*\d+\*\* +\|", text, re.M)  # dotcov report's table
    assert "### Diff coverage: 28.6%" in text
    assert "| Calc/Extra.cs | 3 | 3 | 0.0% | 7-9 |" in text
    assert (sample.repo / "coverage.cobertura.xml").is_file()


def gitlab_coverage(log: str, regex: str) -> str | None:
    """GitLab's rule: the last log line the regex matches; in it, the first number of the last capture group."""
    pattern = re.compile(regex)
    for line in reversed(log.splitlines()):
        matches = pattern.findall(line)
        if matches:
            last = matches[-1]
            group = last[-1] if isinstance(last, tuple) else last
            number = re.search(r"\d+(\.\d+)?", group)
            if number:
                return number.group(0)
    return None


def test_gitlab(sample, tmp_path):
    job = snippets()["gitlab"]["test"]
    r = run_script(without_install(job["script"]), sample.repo,
                   {"CI_MERGE_REQUEST_DIFF_BASE_SHA": sample.base, "GITLAB_CI": "true"})
    assert r.returncode == 0, r.stdout + r.stderr
    total = json.loads(subprocess.run([sys.executable, "-m", "dotcov", "json", "-o", "-"], cwd=sample.repo,
                                      capture_output=True, text=True, check=True).stdout)["totals"]
    covered = total["statements"] - total["missed"]
    regex = job["coverage"].strip("/")
    read = gitlab_coverage(r.stdout, regex)
    assert read is not None and "." in read  # a decimal percent, read whole
    assert abs(float(read) - 100.0 * covered / total["statements"]) <= 0.05
    assert gitlab_coverage(r.stdout, r"^TOTAL.+?(\d+\%)$") != read  # the regex docs/reports.md used to give
    assert re.search(r"^DIFF TOTAL +7 +5 +28\.6%$", r.stdout, re.M)  # printed after, yet not read as the total
    assert "### Diff coverage: 28.6%" in (sample.repo / "diff-coverage.md").read_text()
    report = job["artifacts"]["reports"]["coverage_report"]
    assert report["coverage_format"] == "cobertura" and (sample.repo / report["path"]).is_file()


def test_azure_devops(sample, tmp_path):
    steps = without_install([s["script"] for s in snippets()["azure"]["steps"] if "script" in s])
    publish = next(s for s in snippets()["azure"]["steps"] if s.get("task") == "PublishCodeCoverageResults@2")
    assert publish["inputs"]["summaryFileLocation"].endswith("/coverage.cobertura.xml")
    r = run_script(steps, sample.repo, {"AGENT_TEMPDIRECTORY": str(tmp_path),
                                        "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main", "TF_BUILD": "True"})
    assert r.returncode == 2, r.stdout + r.stderr  # below --fail-under 80
    assert f"##vso[task.uploadsummary]{tmp_path}/diff-coverage.md" in r.stdout.splitlines()
    assert "### Diff coverage: 28.6%" in (tmp_path / "diff-coverage.md").read_text()
    assert (sample.repo / "coverage.cobertura.xml").is_file()


def covered_lines(repo: Path) -> dict[str, set[int]]:
    files = coverage_by_file(repo / ".dotcov", repo)
    return {path: {n for n, h in fc.lines.items() if h} for path, fc in files.items()}


def test_merging_shards(sample):
    jobs = snippets()["github-shards"]["jobs"]
    whole = covered_lines(sample.repo)  # the fixture's unsharded run
    filters = {1: "FullyQualifiedName~CalculatorTests", 2: "FullyQualifiedName!~CalculatorTests"}
    assert all(f in jobs["test"]["env"]["SHARD_FILTER"] for f in filters.values())
    shards = sample.repo / "shards"
    shutil.rmtree(shards, ignore_errors=True)
    parts = []
    for shard, flt in filters.items():
        r = run_script(github_steps(jobs["test"]), sample.repo, {"SHARD_FILTER": flt})
        assert r.returncode == 0, r.stdout + r.stderr
        parts.append(covered_lines(sample.repo))
        # upload-artifact `.dotcov/*.cov`, then download-artifact into shards/coverage-N/
        into = shards / f"coverage-{shard}"
        into.mkdir(parents=True)
        for f in (sample.repo / ".dotcov").glob("*.cov"):
            shutil.copy(f, into / f.name)
    assert parts[0] != whole and parts[1] != whole  # each shard alone covers less
    names = [p.name for p in shards.glob("*/*.cov")]
    assert len(names) == 2 and len(set(names)) == 2  # one combined file per shard, names of their own
    shutil.rmtree(sample.repo / ".dotcov")  # the merging job starts from a fresh checkout
    r = run_script(github_steps(jobs["coverage"]), sample.repo, {})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Combined 2 data file(s)" in r.stdout and re.search(r"^TOTAL ", r.stdout, re.M)
    assert covered_lines(sample.repo) == whole
    shutil.rmtree(shards)
