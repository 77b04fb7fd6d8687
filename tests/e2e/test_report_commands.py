"""Every report command on one real run: files written, numbers agreeing, filters and thresholds."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from lxml import etree

from .conftest import SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def run_dir(measured_sample, tmp_path_factory):
    run = measured_sample("Calc.Tests", tmp_path_factory.mktemp("reports"), cache=False)
    assert run.status == 0, run.stdout + run.stderr
    return run.data_dir


def dotcov(*args, cwd=SAMPLES):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, env=_dotnet_env(),
                          capture_output=True, text=True)


def test_every_output_agrees_with_the_table(run_dir, tmp_path):
    table = dotcov("report", "--data-dir", str(run_dir))
    assert table.returncode == 0, table.stderr
    total = re.search(r"^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%$", table.stdout, re.M)
    statements, missed, branches = int(total.group(1)), int(total.group(2)), int(total.group(3))
    assert branches > 0

    for command, name in (("xml", "c.xml"), ("lcov", "l.info"), ("json", "j.json"), ("opencover", "o.xml")):
        r = dotcov(command, "--data-dir", str(run_dir), "-o", str(tmp_path / name))
        assert r.returncode == 0, (command, r.stderr)
    cob = etree.parse(str(tmp_path / "c.xml")).getroot()
    assert (int(cob.get("lines-valid")), int(cob.get("lines-covered"))) == (statements, statements - missed)
    assert int(cob.get("branches-valid")) == branches
    lcov = (tmp_path / "l.info").read_text()
    assert sum(int(n) for n in re.findall(r"^LF:(\d+)$", lcov, re.M)) == statements
    assert sum(int(n) for n in re.findall(r"^BRF:(\d+)$", lcov, re.M)) == branches
    report = json.loads((tmp_path / "j.json").read_text())
    assert report["totals"]["statements"] == statements and report["totals"]["missed"] == missed
    oc = etree.parse(str(tmp_path / "o.xml")).getroot()
    assert int(oc.find("Summary").get("numBranchPoints")) == branches

    html = dotcov("html", "--data-dir", str(run_dir), "-d", str(tmp_path / "html"))
    assert html.returncode == 0, html.stderr
    index = (tmp_path / "html" / "index.html").read_text()
    assert "Calc/<wbr>Calculator.cs" in index  # a line-break opportunity after each "/" of a path
    assert (tmp_path / "html" / "methods.html").is_file() and (tmp_path / "html" / "hotspots.html").is_file()
    search = (tmp_path / "html" / "search.js").read_text()  # the search index names the real methods
    assert '"Calc/Calculator.cs"' in search and '"Divide(int, int)"' in search


def test_fail_under_and_filters(run_dir):
    below = dotcov("report", "--data-dir", str(run_dir), "--fail-under", "99")
    assert below.returncode == 2 and "below --fail-under=99" in below.stderr
    assert dotcov("xml", "--data-dir", str(run_dir), "-o", "-", "--fail-under", "10").returncode == 0
    per_kind = dotcov("report", "--data-dir", str(run_dir), "--fail-under", "90", "--fail-under-type", "branch")
    assert per_kind.returncode == 2 and "branch coverage" in per_kind.stderr
    filtered = dotcov("report", "--data-dir", str(run_dir), "--exclude", "[Calc]Calc.LegacyFormatter")
    assert "LegacyFormatter" not in filtered.stdout
    bad = dotcov("report", "--data-dir", str(run_dir), "--exclude", "Calc.*")
    assert bad.returncode == 1 and "[Assembly]Namespace.Type" in bad.stderr
    everything = dotcov("report", "--data-dir", str(run_dir), "--all-branches")
    user = dotcov("report", "--data-dir", str(run_dir))
    branch_total = lambda out: int(re.search(r"^TOTAL\s+\d+\s+\d+\s+(\d+)", out, re.M).group(1))  # noqa: E731
    assert branch_total(everything.stdout) > branch_total(user.stdout)  # compiler-generated ones appear


def test_config_file_is_used_and_flags_win(run_dir, tmp_path):
    # In a directory of its own: a dotcov.toml in samples/ would reach the runs of other tests (xdist workers).
    (tmp_path / "dotcov.toml").write_text('[report]\nexclude = ["[Calc]Calc.LegacyFormatter"]\nfail_under = 99\n')
    r = dotcov("report", "--data-dir", str(run_dir), cwd=tmp_path)
    assert "LegacyFormatter" not in r.stdout and r.returncode == 2
    r = dotcov("report", "--data-dir", str(run_dir), "--fail-under", "1", "--exclude", "[x]y", cwd=tmp_path)
    assert "LegacyFormatter" in r.stdout and r.returncode == 0
