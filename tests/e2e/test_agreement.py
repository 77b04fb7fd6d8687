"""Every output says the same thing: totals and per-line verdicts agree number for number.

Run on the Linked sample (samples/Linked.Shared/Grader.cs is compiled into two assemblies, Linked.Alpha and
Linked.Beta, whose tests take different outcomes of the same branch; Linked.Gamma is referenced but never
loaded, so it is reported at 0%, "not loaded") and on the Calc sample. Each output is
read back as its consumers read it; a line's verdict is run or missed, and partial when it ran with a branch
outcome never taken (coverage.py's meaning).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree
from lxml import html as lxml_html

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e

TOTAL = re.compile(r"^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%$", re.M)


def dotcov(*args, check=True):
    r = subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=SAMPLES, env=_dotnet_env(),
                       capture_output=True, text=True)
    if check:
        assert r.returncode == 0, (args, r.stderr)
    return r


@pytest.fixture(scope="module", params=["Linked.Tests", "Calc.Tests"])
def outputs(request, measured_sample, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    run = measured_sample(request.param, out, cache=False)  # every report below made cold
    assert run.status == 0, run.stdout + run.stderr
    data = run.data_dir
    d = str(data)
    table = dotcov("report", "--data-dir", d, "-m").stdout
    dotcov("report", "--data-dir", d, "--format", "markdown")
    for command, name in (("xml", "c.xml"), ("lcov", "l.info"), ("json", "j.json"), ("opencover", "o.xml")):
        dotcov(command, "--data-dir", d, "-o", str(out / name))
    dotcov("html", "--data-dir", d, "-d", str(out / "html"))
    return request.param, data, out, table


# --- each output read back: {path: (run lines, missed lines, partial lines)} and totals ----------------

def _verdicts(lines: dict[int, int], partial=()) -> tuple[frozenset, frozenset, frozenset]:
    return (frozenset(n for n, h in lines.items() if h > 0), frozenset(n for n, h in lines.items() if h == 0),
            frozenset(partial))


def from_lcov(text: str):
    files, totals = {}, [0, 0, 0, 0, 0]
    for record in text.split("end_of_record\n")[:-1]:
        path = re.search(r"^SF:(.*)$", record, re.M).group(1)
        lines = {int(n): int(h) for n, h in re.findall(r"^DA:(\d+),(\d+)$", record, re.M)}
        outcomes: dict[int, list[str]] = {}
        for n, taken in re.findall(r"^BRDA:(\d+),\d+,\d+,(\S+)$", record, re.M):
            outcomes.setdefault(int(n), []).append(taken)
        partial = {n for n, t in outcomes.items() if lines.get(n, 0) > 0 and any(x in ("0", "-") for x in t)}
        files[path] = _verdicts(lines, partial)
        brf = sum(int(x) for x in re.findall(r"^BRF:(\d+)$", record, re.M))
        brh = sum(int(x) for x in re.findall(r"^BRH:(\d+)$", record, re.M))
        totals = [a + b for a, b in zip(totals, [len(lines), sum(1 for h in lines.values() if h == 0), brf, brh,
                                                 len(partial)])]
    return files, tuple(totals)


def from_cobertura(path: Path, root: str):
    doc = etree.parse(str(path)).getroot()
    lines: dict[str, dict[int, int]] = {}
    for cls in doc.iter("class"):
        into = lines.setdefault(str(Path(root) / cls.get("filename")), {})
        for line in cls.findall("lines/line"):
            n = int(line.get("number"))
            into[n] = into.get(n, 0) + int(line.get("hits"))  # packages' views of one file add up
    totals = (int(doc.get("lines-valid")), int(doc.get("lines-valid")) - int(doc.get("lines-covered")),
              int(doc.get("branches-valid")), int(doc.get("branches-covered")))
    return {p: _verdicts(v)[:2] for p, v in lines.items()}, totals


def from_opencover(path: Path):
    doc = etree.parse(str(path)).getroot()
    files = {f.get("uid"): f.get("fullPath") for f in doc.iter("File")}
    lines: dict[str, dict[int, int]] = {}
    for p in doc.iter("SequencePoint"):
        into = lines.setdefault(files[p.get("fileid")], {})
        for n in range(int(p.get("sl")), int(p.get("el")) + 1):
            into[n] = into.get(n, 0) + int(p.get("vc"))
    s = doc.find("Summary")
    return {p: _verdicts(v)[:2] for p, v in lines.items()}, (int(s.get("numBranchPoints")),
                                                            int(s.get("visitedBranchPoints")))


def from_json(path: Path):
    doc = json.loads(path.read_text())
    lines: dict[str, dict[int, int]] = {}
    for asm in doc["assemblies"]:
        for f in asm["files"]:
            into = lines.setdefault(f["absolute_path"], {})
            for n, h in f["lines"].items():
                into[int(n)] = into.get(int(n), 0) + h
    t = doc["totals"]
    files = {f["absolute_path"]: f["summary"] for f in doc["files"]}
    return ({p: _verdicts(v)[:2] for p, v in lines.items()}, files,
            (t["statements"], t["missed"], t["branches"], t["branches_covered"], t["partial"]))


def from_html(directory: Path):
    index = lxml_html.parse(str(directory / "index.html")).getroot()
    stats = {dt.text_content(): dd.text_content() for dt, dd in
             zip(index.xpath('//dl[@class="stats"]//dt'), index.xpath('//dl[@class="stats"]//dd'))}
    covered, branches = stats["Branches"].split()[0].split("/") if "Branches" in stats else ("0", "0")
    totals = (int(stats["Statements"]), int(stats["Missed"]), int(branches), int(covered),
              int(stats.get("Partial lines", "0")))
    pages = {}
    for a in index.xpath("//table//a[@href]"):
        page = lxml_html.parse(str(directory / a.get("href"))).getroot()
        run = {int(d.get("id")[1:]) for d in page.xpath('//div[contains(@class, " run") or contains(@class, " par")]')}
        mis = {int(d.get("id")[1:]) for d in page.xpath('//div[contains(@class, " mis")]')}
        par = {int(d.get("id")[1:]) for d in page.xpath('//div[contains(@class, " par")]')}
        pages[a.text_content()] = (frozenset(run), frozenset(mis), frozenset(par))
    return pages, totals


# --- the test -----------------------------------------------------------------------------------------

def test_every_output_agrees(outputs):
    sample, data, out, table = outputs
    statements, missed, branches, partial = map(int, TOTAL.search(table).groups())
    lcov_files, lcov_totals = from_lcov((out / "l.info").read_text())
    cob_files, cob_totals = from_cobertura(out / "c.xml", str(SAMPLES))
    oc_files, oc_totals = from_opencover(out / "o.xml")
    json_files, json_summaries, json_totals = from_json(out / "j.json")
    html_pages, html_totals = from_html(out / "html")
    branches_covered = json_totals[3]

    # Totals, number for number.
    assert lcov_totals == (statements, missed, branches, branches_covered, partial)
    assert cob_totals == (statements, missed, branches, branches_covered)  # Cobertura's root
    assert oc_totals == (branches, branches_covered)  # OpenCover's session Summary
    assert json_totals == (statements, missed, branches, branches_covered, partial)
    assert html_totals == (statements, missed, branches, branches_covered, partial)

    # Per-line verdicts of every file.
    assert set(lcov_files) == set(cob_files) == set(oc_files) == set(json_files) == set(json_summaries)
    for path, (run, mis, par) in lcov_files.items():
        assert cob_files[path] == (run, mis), path
        assert json_files[path] == (run, mis), path
        assert oc_files[path] == (run, mis), path
        summary = json_summaries[path]
        assert (summary["statements"], summary["missed"], summary["partial"]) == (len(run) + len(mis), len(mis),
                                                                                  len(par)), path
        name = Path(path).relative_to(SAMPLES).as_posix()
        assert html_pages[name] == (run, mis, par), path
        row = re.search(rf"^{re.escape(name)}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", table, re.M)
        assert (int(row.group(1)), int(row.group(2)), int(row.group(4))) == (len(run) + len(mis), len(mis),
                                                                            len(par)), name

    if sample == "Linked.Tests":
        grader = str(SAMPLES / "Linked.Shared" / "Grader.cs")
        run, mis, par = lcov_files[grader]
        assert par == {19}  # Clamp's `if`: neither assembly's test takes it; Grade's `if` is taken both ways
        assert json_summaries[grader]["branches"] == 6 and json_summaries[grader]["branches_covered"] == 3
        # The same marks as any sample: the file once, hits of both assemblies added.
        assert_matches_marks(coverage_by_file(data, SAMPLES), SAMPLES / "Linked.Shared")
        # Each assembly's own view still lists the file (Cobertura packages, JSON assemblies).
        doc = json.loads((out / "j.json").read_text())
        owners = sorted(a["name"] for a in doc["assemblies"] for f in a["files"] if f["absolute_path"] == grader)
        assert owners == ["Linked.Alpha", "Linked.Beta"]


def test_an_assembly_no_test_loaded_is_reported_at_zero(outputs):
    sample, data, out, table = outputs
    if sample != "Linked.Tests":  # Calc.Tests loads every assembly it references: none is "not loaded"
        assert "not loaded" not in table
        assert not any(a.get("not_loaded") for a in json.loads((out / "j.json").read_text())["assemblies"])
        return
    assert "warning: Linked.Gamma: not loaded by any test process" in table
    row = re.search(r"^Linked.Gamma/Unused.cs\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+0%\s", table, re.M)
    assert row and row.group(1) == row.group(2) == "3" and row.group(3) == "2"  # statements and outcomes, all missed
    doc = json.loads((out / "j.json").read_text())
    assert [a["name"] for a in doc["assemblies"] if a.get("not_loaded")] == ["Linked.Gamma"]
    assert "Linked.Gamma (not loaded)" in (out / "html" / "index.html").read_text()
    # --source DIR: an assembly built elsewhere under the run directory (Calc, which no Linked test uses).
    r = dotcov("report", "--data-dir", str(data), "--source", str(SAMPLES / "Calc"))
    assert re.search(r"^Calc/Calculator.cs\s+(\d+)\s+\1\s", r.stdout, re.M), r.stdout
    assert "warning: Calc: not loaded" in r.stdout
    # A test assembly or a package is never such a candidate.
    assert "Linked.Tests" not in r.stdout and "xunit" not in r.stdout
