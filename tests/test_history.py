"""`dotcov html --history DIR`: the run records (reports/history.py), the chart, the index's changes since the previous
run, unreadable records, and the command run three times over fabricated data."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree
from lxml import html as lxml_html

from dotcov.reports import history
from dotcov.analysis.numbers import Numbers
from dotcov.api import Coverage
from dotcov.cli.commands import cli
from dotcov.html.report import page_name, write_html
from dotcov.analysis.model import CoverageResult
from test_html import sample_result

GOLD = Path(__file__).resolve().parent / "gold"
T0 = dt.datetime(2026, 11, 20, 9, 30, 0, 250000, tzinfo=dt.timezone.utc)


def numbers(covered: int, statements: int, bcovered: int = 0, branches: int = 0) -> Numbers:
    return Numbers(files=1, statements=statements, missed=statements - covered, branches=branches,
                   branches_covered=bcovered)


# --- records ---------------------------------------------------------------------------------------------

def test_a_record_holds_the_totals_the_files_and_the_commit(tmp_path):
    rec = history.make_record(numbers(3, 4, 1, 2), {"a.cs": numbers(1, 2), "b.cs": numbers(2, 2)}, now=T0,
                              commit="ab" * 20)
    path = history.write_record(tmp_path, rec)
    assert path.name.startswith("20261120T093000.250000Z-") and path.suffix == ".json"
    assert json.loads(path.read_text()) == {
        "format": 1, "timestamp": "2026-11-20T09:30:00.250000Z", "commit": "ab" * 20,
        "lines": {"covered": 3, "total": 4, "percent": 75.0},
        "branches": {"covered": 1, "total": 2, "percent": 50.0},
        "files": {"a.cs": 50.0, "b.cs": 100.0},
    }
    [back], warnings = history.read_history(tmp_path)
    assert warnings == [] and back.to_json() == rec.to_json() and back.name == path.name


def test_records_are_never_overwritten_and_large_reports_keep_only_totals(tmp_path, monkeypatch):
    rec = history.make_record(numbers(1, 1), {}, now=T0)
    names = {history.write_record(tmp_path, rec).name for _ in range(5)}  # the same time, five records
    assert len(names) == 5 and len(list(tmp_path.iterdir())) == 5
    existing = sorted(tmp_path.iterdir())[0]
    monkeypatch.setattr(history.secrets, "token_hex", lambda n: existing.name.split("-")[1][:6])
    with pytest.raises(history.HistoryError, match="free name"):
        history.write_record(tmp_path, rec)  # every name taken: an error, no file replaced
    assert len(list(tmp_path.iterdir())) == 5
    monkeypatch.setattr(history, "MAX_FILES", 1)
    big = history.make_record(numbers(1, 2), {"a": numbers(1, 1), "b": numbers(0, 1)}, now=T0)
    assert big.files is None and "files" not in big.to_json()


@pytest.mark.parametrize("content, why", [
    ("{not json", "Expecting property name"),
    ('{"format": 2}', "not a dotcov history record"),
    ('{"format": 1, "timestamp": "yesterday", "lines": {}, "branches": {}}', "not ISO 8601"),
    ('{"format": 1, "timestamp": "2026-11-20T09:30:00Z", "lines": {"covered": 5, "total": 4},'
     ' "branches": {"covered": 0, "total": 0}}', "lines has no valid"),
    ('{"format": 1, "timestamp": "2026-11-20T09:30:00Z", "lines": {"covered": 1, "total": 4},'
     ' "branches": {"covered": 0, "total": 0}, "files": {"a": "x"}}', "files is not"),
])
def test_an_unreadable_record_is_a_warning_naming_it_and_the_rest_is_used(tmp_path, content, why):
    good = history.write_record(tmp_path, history.make_record(numbers(1, 2), {}, now=T0))
    bad = tmp_path / "20261121T000000Z-bad.json"
    bad.write_text(content)
    records, warnings = history.read_history(tmp_path)
    assert [r.name for r in records] == [good.name]
    assert len(warnings) == 1 and str(bad) in warnings[0] and why in warnings[0]


def test_records_are_read_oldest_first_and_deltas_compare_files_both_have(tmp_path):
    for i, (cov, files) in enumerate([(2, {"a": numbers(1, 2)}), (3, {"a": numbers(2, 2), "b": numbers(0, 1)})]):
        history.write_record(tmp_path, history.make_record(numbers(cov, 4), files, now=T0 + dt.timedelta(days=1 - i)))
    records, _ = history.read_history(tmp_path)
    assert [r.lines for r in records] == [(3, 4), (2, 4)]  # by time, not by writing order
    assert history.file_deltas(records[1], records[0]) == {"a": 50.0}
    assert history.file_deltas(None, records[0]) == {}


def test_git_commit(tmp_path):
    assert history.git_commit(tmp_path) is None  # not a repository
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert history.git_commit(tmp_path) is None  # no commit yet
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert history.git_commit(tmp_path) == head.strip()


# --- the chart -------------------------------------------------------------------------------------------

def chart_records() -> list[history.Record]:
    runs = [(60, 40, "1" * 40), (72, 40, None), (70, 55, "3" * 40), (85, 60, "4" * 40)]
    return [history.Record((T0 + dt.timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), (line, 100),
                           (branch, 100), commit) for i, (line, branch, commit) in enumerate(runs)]


def test_gold_chart():
    svg = history.chart_svg(chart_records())
    path = GOLD / "history_chart.svg"
    if os.environ.get("DOTCOV_UPDATE_GOLD") == "1":
        path.write_text(svg + "\n", encoding="utf-8")
    assert svg + "\n" == path.read_text(encoding="utf-8")


def test_the_chart_plots_each_run_line_and_branch():
    svg = etree.fromstring(history.chart_svg(chart_records()).encode())
    ns = {"s": "http://www.w3.org/2000/svg"}
    top, bottom = 12, 200 - 28  # 100% and 0% (history._Box)
    for kind, pcs in (("line", [60, 72, 70, 85]), ("branch", [40, 40, 55, 60])):
        [poly] = svg.xpath(f"s:polyline[@class='{kind}']", namespaces=ns)
        points = [tuple(map(float, p.split(","))) for p in poly.get("points").split()]
        assert [round(x) for x, _ in points] == [44, 264, 484, 704]  # evenly spaced, left to right
        assert [round(100 * (bottom - y) / (bottom - top), 6) for _, y in points] == pcs
        tips = svg.xpath(f"s:circle[@class='{kind}']/s:title/text()", namespaces=ns)
        assert tips[0] == f"2026-11-20 09:30 UTC \u00b7 111111111111\n{kind} coverage {pcs[0]}%"
        assert "\u00b7" not in tips[1]  # no commit recorded
    # no branches measured: no branch line; one run: a point in the middle
    one = history.Record("2026-11-20T09:30:00Z", (1, 2), (0, 0))
    svg = etree.fromstring(history.chart_svg([one]).encode())
    assert svg.xpath("s:polyline/@class", namespaces=ns) == ["line"]
    assert svg.xpath("s:circle/@cx", namespaces=ns) == ["374"]


# --- the index ---------------------------------------------------------------------------------------------

def _shrink(result: CoverageResult, path_end: str, line: int) -> CoverageResult:
    """result with `line` of the file ending in `path_end` not run."""
    for asm in result.assemblies:
        for p, f in asm.files.items():
            if p.endswith(path_end) and line in f.lines:
                f.lines[line] = 0
    return result


def test_the_index_shows_the_chart_and_each_files_change(tmp_path):
    hist = tmp_path / "history"
    out = tmp_path / "htmlcov"
    opts = dict(commit="c" * 40)
    write_html(_shrink(sample_result(), "Util.fs", 7), out, version="0", history=hist,
               history_options=dict(opts, now=T0))
    doc = lxml_html.fromstring((out / "index.html").read_bytes())
    assert doc.xpath("//section[@id='history']//svg/@class") == ["history-chart"]
    assert doc.xpath("//th[@data-key='delta']") == []  # nothing to compare with yet
    index = write_html(sample_result(), out, version="0", history=hist,
                       history_options=dict(opts, now=T0 + dt.timedelta(hours=1)))
    doc = lxml_html.fromstring(index.read_bytes())
    assert "2 runs" in doc.get_element_by_id("history").text_content()
    assert len(doc.xpath("//section[@id='history']//polyline")) == 2
    deltas = {tr.xpath("td[1]")[0].text_content(): (tr.xpath("td[last()]")[0].text_content(),
                                                     tr.xpath("td[last()]/@class")[0])
              for tr in doc.xpath("//table[@id='files']/tbody/tr[@class='file']")}
    assert deltas == {"Calc/Calculator.cs": ("\u00b10", "num delta same"), "Calc/Parser.cs": ("\u00b10", "num delta same"),
                      "Lib/Shared.cs": ("\u00b10", "num delta same"), "Lib/Util.fs": ("+20.0", "num delta up")}
    assert doc.xpath("//table[@id='files']/tfoot//td[last()]")[0].text_content() == "+5.9"  # 11/17 from 10/17
    assert doc.xpath("//th[@data-key='delta']/button")[0].text_content() == "\u0394"
    assert "2026-11-20 09:30 UTC, cccccccccccc" in doc.get_element_by_id("history").text_content()


# --- the command, three times ---------------------------------------------------------------------------

def test_dotcov_html_history_three_times(tmp_path, monkeypatch):
    """`dotcov html --history` over fabricated data that improves each run, and then [html] history in
    dotcov.toml; a broken record in the directory is a warning, and the other runs are still charted."""
    runs = [_shrink(_shrink(sample_result(), "Util.fs", 7), "Util.fs", 8), _shrink(sample_result(), "Util.fs", 7),
            sample_result()]
    state = {}
    monkeypatch.setattr(Coverage, "load", lambda self: self)
    monkeypatch.setattr(Coverage, "result", lambda self: state["result"])
    monkeypatch.chdir(tmp_path)
    hist = tmp_path / "hist"
    runner = CliRunner(mix_stderr=False)
    outputs = []
    for i, result in enumerate(runs):
        state["result"] = result
        args = ["html", "-d", "htmlcov"] + (["--history", str(hist)] if i < 2 else [])
        if i == 2:
            (tmp_path / "dotcov.toml").write_text('[html]\nhistory = "hist"\n')
            (hist / "20200101T000000Z-broken.json").write_text("{")
        r = runner.invoke(cli, args, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        outputs.append(r)
    assert "history record" in outputs[2].stderr and "20200101T000000Z-broken.json" in outputs[2].stderr
    records = [json.loads(p.read_text()) for p in sorted(hist.iterdir()) if "broken" not in p.name]
    assert [r["lines"]["covered"] for r in records] == [9, 10, 11]
    assert all(r["commit"] is None for r in records)  # tmp_path is not in a git work tree
    util = next(name for name in records[0]["files"] if name.endswith("Lib/Util.fs"))  # relative to the cwd
    assert [r["files"][util] for r in records] == [60.0, 80.0, 100.0]
    doc = lxml_html.fromstring((tmp_path / "htmlcov" / "index.html").read_bytes())
    section = doc.get_element_by_id("history")
    assert "3 runs" in section.text_content()
    assert "20200101T000000Z-broken.json" in " ".join(doc.xpath("//p[@class='notice']/text()"))
    by_name = {tr.xpath("td[1]")[0].text_content(): tr.xpath("td[last()]")[0].text_content()
               for tr in doc.xpath("//table[@id='files']/tbody/tr[@class='file']")}
    assert by_name[util] == "+20.0"
    assert (tmp_path / "htmlcov" / page_name(util)).exists()
    # A history directory that is a file: a clear error (click's usage error for the flag), nothing added.
    (tmp_path / "afile").write_text("")
    r = runner.invoke(cli, ["html", "-d", "htmlcov", "--history", str(tmp_path / "afile")])
    assert r.exit_code == 2 and "is a file" in r.stderr
    (tmp_path / "dotcov.toml").write_text('[html]\nhistory = "afile"\n')
    r = runner.invoke(cli, ["html", "-d", "htmlcov"])
    assert r.exit_code == 1 and "afile is not a directory" in r.stderr
    assert (tmp_path / "afile").read_text() == "" and len(list(hist.iterdir())) == 4
    assert (tmp_path / "htmlcov" / "index.html").exists()  # the previous report is still whole


def test_the_html_section_of_dotcov_toml(tmp_path):
    from dotcov.cli.config import ConfigError, load_config

    (tmp_path / "dotcov.toml").write_text('[html]\nhistory = "ci/history"\n')
    assert load_config(tmp_path).html_history == str(tmp_path / "ci" / "history")
    (tmp_path / "dotcov.toml").write_text('[html]\nhistroy = "x"\n')
    with pytest.raises(ConfigError, match="html.histroy: unknown setting"):
        load_config(tmp_path)
    (tmp_path / "dotcov.toml").write_text('[html]\nhistory = 3\n')
    with pytest.raises(ConfigError, match="html.history must be str"):
        load_config(tmp_path)
