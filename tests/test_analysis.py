"""The one analysis (src/dotcov/analysis/numbers.py, model.py): the merge rule, coverage.py's partial lines,
not-measured methods, and the API and CLI on top of it (lost data, writers the CLI shares with the tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.analysis.model import merge_branch, merge_files
from dotcov.analysis.numbers import Analysis, Numbers
from dotcov.api import Coverage, CoverageError, DataLostError
from dotcov.reports.cobertura import cobertura_xml
from dotcov.data.datafiles import ModuleHits
from dotcov.html.report import write_html
from dotcov.reports.json_report import json_report
from dotcov.reports.lcov import lcov_text
from dotcov.analysis.model import AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage
from dotcov.reports.text import print_table, render_markdown, render_table, summarize
from dotcov.reports.opencover import opencover_xml
from dotcov.analysis.paths import PathMapper
from dotcov.analysis.results import Symbols, module_coverage

REPO = Path(__file__).resolve().parents[1]
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"
ROOT = "/src/proj"


# --- the merge rule -----------------------------------------------------------------------------

def test_outcomes_of_two_builds_match_by_place_not_add_up():
    # The same `if` compiled into two assemblies: other offsets, one build took each outcome.
    a = BranchCoverage(1, 2, ["branch at IL_0004: jump never taken"], [(4, "jump", 1, 2)], [(4, [3, 0])])
    b = BranchCoverage(1, 2, ["branch at IL_0010: fall-through never taken"], [(16, "jump", 1, 2)], [(16, [0, 2])])
    m = merge_branch(a, b)
    assert (m.covered, m.total) == (2, 2)
    assert m.outcome_hits == [(4, [3, 2])]
    assert m.missed_outcomes == []
    assert m.conditions == [(4, "jump", 2, 2)]


def test_an_outcome_missed_by_every_build_keeps_its_note():
    a = BranchCoverage(1, 2, ["jump never taken"], [], [(4, [3, 0])])
    b = BranchCoverage(1, 2, ["jump never taken (b)"], [], [(16, [1, 0])])
    m = merge_branch(a, b)
    assert (m.covered, m.total, m.missed_outcomes) == (1, 2, ["jump never taken"])


def test_builds_with_different_branches_on_a_line_keep_every_outcome_once():
    a = BranchCoverage(2, 2, [], [], [(4, [1, 1])])
    b = BranchCoverage(1, 5, [], [], [(4, [0, 1]), (9, [0, 0, 0])])  # one build has a second branch there
    m = merge_branch(a, b)
    assert (m.covered, m.total) == (2, 5)


def test_merge_files_adds_hits_and_does_not_touch_its_inputs():
    f1 = FileCoverage("/x.cs", {3: 1, 4: 0}, {3: BranchCoverage(1, 2, [], [], [(0, [1, 0])])}, {9})
    f2 = FileCoverage("/x.cs", {3: 0, 4: 2, 9: 1}, {3: BranchCoverage(1, 2, [], [], [(0, [0, 1])])})
    m = merge_files([f1, f2])
    assert m.lines == {3: 1, 4: 2, 9: 1}
    assert (m.branches[3].covered, m.branches[3].total) == (2, 2)
    assert m.excluded == set()  # a statement in one build is a statement
    assert f1.branches[3].outcome_hits == [(0, [1, 0])] and f1.excluded == {9}


def two_assemblies() -> CoverageResult:
    """One file linked into two assemblies: 2 outcomes on line 5, each build took one."""
    path = f"{ROOT}/Shared/Grader.cs"

    def asm(name, hits_true, hits_false, token):
        b = BranchCoverage(int(hits_true > 0) + int(hits_false > 0), 2, [], [(8, "jump", 1, 2)],
                           [(8, [hits_false, hits_true])])
        m = MethodCoverage("Grade", "(System.Int32)", {5: 1, 6: hits_true, 8: hits_false}, token=token,
                           branches={5: b})
        cls = ClassCoverage("Linked.Grader", path, [m], dict(m.lines))
        fc = FileCoverage(path, dict(m.lines), {5: BranchCoverage(b.covered, 2, [], [], list(b.outcome_hits))})
        return AssemblyCoverage(name, [cls], {path: fc})

    return CoverageResult([asm("Alpha", 1, 0, 0x06000001), asm("Beta", 0, 1, 0x06000007)], source_root=ROOT)


def test_a_file_in_two_assemblies_counts_once_in_every_output():
    result = two_assemblies()
    a = Analysis.of(result)
    assert (a.totals.statements, a.totals.missed, a.totals.branches, a.totals.branches_covered) == (3, 0, 2, 2)
    assert [x.numbers.branches for x in a.assemblies] == [2, 2]  # each assembly's own view
    doc = json_report(result, version="0")
    assert doc["totals"]["branches"] == 2 and doc["totals"]["branches_covered"] == 2
    assert b'branches-covered="2" branches-valid="2"' in cobertura_xml(result, version="0")
    assert "BRF:2\nBRH:2\n" in lcov_text(result)
    assert summarize(result).total.branches == 2


# --- partial lines: coverage.py's meaning -----------------------------------------------------------

def branchy() -> CoverageResult:
    path = f"{ROOT}/B.cs"
    fc = FileCoverage(path, {1: 3, 2: 0, 3: 1},
                      {1: BranchCoverage(1, 2, ["jump never taken"]),  # ran, one outcome missed: partial
                       2: BranchCoverage(0, 2),  # never ran: missed, not partial
                       3: BranchCoverage(2, 2)})
    full = FileCoverage(f"{ROOT}/Full.cs", {1: 1})
    return CoverageResult([AssemblyCoverage("A", [], {path: fc, full.path: full})], source_root=ROOT)


def test_brpart_counts_only_lines_that_ran():
    assert Analysis.of(branchy()).totals.partial == 1
    table = render_table(branchy())
    assert table.splitlines()[-1].split() == ["TOTAL", "4", "1", "6", "1", "75%"]


def test_markdown_keeps_the_branch_columns():
    md = render_markdown(branchy())
    assert [c.strip() for c in md.splitlines()[0].split("|")[1:-1]] == ["Name", "Stmts", "Miss", "Branch", "BrPart",
                                                                         "Cover"]
    assert md.splitlines()[-1] == "| **TOTAL** | **4** | **1** |  **6** |  **1** | **75%** |"


def test_skip_covered_keeps_a_file_with_a_partial_line():
    path = f"{ROOT}/P.cs"
    fc = FileCoverage(path, {1: 3}, {1: BranchCoverage(1, 2)})  # every statement ran, one outcome missed
    result = CoverageResult([AssemblyCoverage("A", [], {path: fc})], source_root=ROOT)
    assert [r.name for r in summarize(result, skip_covered=True).rows] == ["P.cs"]


def test_colour_on_a_terminal_same_characters(monkeypatch):
    import io
    import re

    monkeypatch.delenv("NO_COLOR", raising=False)
    plain, coloured = io.StringIO(), io.StringIO()
    print_table(branchy(), plain)  # not a terminal: no colour
    print_table(branchy(), coloured, color=True)
    assert "\x1b[" not in plain.getvalue()
    assert "\x1b[" in coloured.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.getvalue()) == plain.getvalue() == render_table(branchy()) + "\n"


def test_numbers_add_up():
    n = Numbers(files=1, statements=4, missed=1, branches=2, branches_covered=1, partial=1)
    assert sum([n, n], Numbers()) == Numbers(files=2, statements=8, missed=2, branches=4, branches_covered=2,
                                             partial=2)
    assert n.percent == 75.0 and n.branch_percent == 50.0 and not n.complete


# --- not measured ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def snippets_dll(snippets) -> Path:
    return snippets["Debug"]


def test_methods_the_agent_could_not_instrument_are_not_measured(snippets_dll, tmp_path):
    raw = _native.read_symbols(str(snippets_dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    rid = min(raw["sequence_points"])
    token = 0x06000000 | rid
    module = ModuleHits(raw["mvid"], raw["pdb_id"], str(snippets_dll), sites, [0] * len(sites),
                        unmeasured={token: "the method's IL could not be rewritten"})
    asm = module_coverage(module, Symbols(raw))
    lines = {(raw["documents"][p[5] - 1], n) for p in raw["sequence_points"][rid] for n in range(p[1], p[3] + 1)}
    path = next(iter(lines))[0]
    fc = asm.files[path]
    for _, n in lines:
        assert n not in fc.lines or any(  # another method on the same line keeps it a statement
            n in m.lines for c in asm.classes for m in c.methods if m.token != token)
    nm = {n for _, n in lines if n not in fc.lines}
    assert nm and set(fc.not_measured) == nm
    assert set(fc.not_measured.values()) == {"the method's IL could not be rewritten"}
    assert all(m.token != token for c in asm.classes for m in c.methods)

    result = CoverageResult([asm], source_root=str(Path(path).parent))
    analysis = Analysis.of(result)
    f = analysis.file(path)
    assert f.numbers.not_measured == len(nm) and f.numbers.statements == len(fc.lines)
    assert "not measured (the method's IL could not be rewritten)" in render_table(result)
    detail = json_report(result, version="0")["assemblies"][0]["files"]
    (entry,) = [e for e in detail if e["absolute_path"] == path]
    assert {int(k) for k in entry["not_measured_lines"]} == nm
    assert not any(f"DA:{n}," in lcov_text(result) for n in nm)
    assert b"not measured" in cobertura_xml(result, version="0")
    index = write_html(result, tmp_path / "html")
    pages = [p for p in index.parent.glob("*.html") if p.name != "index.html"]
    text = "".join(p.read_text() for p in pages)
    assert text.count('class="l nm"') == len(nm) and "not measured: the method" in text


# --- API and CLI: lost data, the writers the CLI uses ----------------------------------------------------

def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, capture_output=True, text=True)


def test_no_data_is_an_error(tmp_path):
    with pytest.raises(CoverageError, match="no coverage data"):
        Coverage(tmp_path / "none").load()


def test_damaged_data_is_never_a_pass(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "dotcov.1.00000000.cov").write_bytes(b"DOTCOVD\x1a" + b"\x02\x00\x00\x00" + b"\x40\x00\x00\x00")
    (data / "dotcov.2.00000000.cov.damaged").write_bytes(b"")
    with pytest.raises(DataLostError) as e:
        Coverage(data).load()
    assert any("damaged" in x for x in e.value.lost)
    r = _run("report", "--data-dir", str(data), "--fail-under", "0", cwd=tmp_path)
    assert r.returncode == 1 and "data was lost" in r.stderr and ".cov.damaged" in r.stderr
    r = _run("xml", "--data-dir", str(data), "-o", str(tmp_path / "c.xml"), cwd=tmp_path)
    assert r.returncode == 1 and not (tmp_path / "c.xml").exists()
    # --ignore-errors: reported anyway (here nothing is reportable, which is its own error).
    r = _run("report", "--data-dir", str(data), "--ignore-errors", cwd=tmp_path)
    assert "data was lost" not in r.stderr


def test_the_cli_writes_an_undecodable_file_name_as_write_lcov_does(tmp_path, monkeypatch):
    name = os.fsdecode(b"/src/proj/caf\xe9.cs")  # Latin-1 bytes: a lone surrogate in Python
    fc = FileCoverage(name, {1: 1})
    result = CoverageResult([AssemblyCoverage("A", [], {name: fc})], source_root=ROOT)
    cov = Coverage(tmp_path)
    cov._analysis = Analysis.of(result)  # as load() + analysis() would leave it
    cov.lcov_report(tmp_path / "l.info")
    assert b"SF:/src/proj/caf\xe9.cs\n" in (tmp_path / "l.info").read_bytes()
    cov.json_report(tmp_path / "j.json")
    assert json.loads((tmp_path / "j.json").read_text())["files"][0]["absolute_path"] == "/src/proj/caf\ufffd.cs"


# --- stale sources ------------------------------------------------------------------------------------

def test_a_source_changed_after_the_build_is_a_warning_in_every_report(snippets_dll, tmp_path):
    raw = _native.read_symbols(str(snippets_dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    module = ModuleHits(raw["mvid"], raw["pdb_id"], str(snippets_dll), sites, [1] * len(sites))
    src = Path(next(d for d in raw["documents"] if d.endswith(".cs") and "/obj/" not in d))
    copy = tmp_path / "src"
    copy.mkdir()
    for f in src.parent.glob("*.cs"):
        (copy / f.name).write_bytes(f.read_bytes())
    mapper = PathMapper({"src": [str(copy), str(src.parent)]})

    fresh = module_coverage(module, Symbols(raw), mapper=mapper)
    assert not any(fc.stale for fc in fresh.files.values())  # the same bytes: the PDB's checksum matches

    (copy / src.name).write_text((copy / src.name).read_text() + "\n// edited after the build\n")
    asm = module_coverage(module, Symbols(raw), mapper=mapper)
    stale = [fc for fc in asm.files.values() if fc.stale]
    assert [fc.path for fc in stale] == [str(copy / src.name)]
    assert "SHA256 differs" in stale[0].stale

    result = CoverageResult([asm], source_root=str(copy))
    name = str(copy / src.name)
    assert f"warning: {name}: changed since it was compiled" in render_table(result)
    doc = json_report(result, version="0")
    assert any(w.startswith(name) for w in doc["meta"]["warnings"])
    assert [f["path"] for f in doc["files"] if "stale" in f] == [src.name]
    assert b"changed since it was compiled" in cobertura_xml(result, version="0")
    assert b"changed since it was compiled" in opencover_xml(result, version="0")
    index = write_html(result, tmp_path / "html")
    assert "changed since it was compiled" in index.read_text()
    page = next(p for p in index.parent.glob("*.html") if p.name.startswith(src.stem))
    assert 'class="notice stale"' in page.read_text()


def test_ignore_errors_reports_damaged_data_and_says_what_was_lost(snippets_dll, tmp_path):
    from dotcov.data import datafiles as data

    raw = _native.read_symbols(str(snippets_dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    cov = data.CoverageData()
    other = bytes(16)  # a second record (another build), so cutting the file short keeps the first
    for mvid in (raw["mvid"], other):
        cov.modules[(mvid, raw["pdb_id"])] = ModuleHits(mvid, raw["pdb_id"], str(snippets_dll), sites,
                                                        [1] * len(sites))
    d = tmp_path / "data"
    d.mkdir()
    path = d / "dotcov.1.00000001.cov"
    data.write(cov, path)
    path.write_bytes(path.read_bytes()[:-64])  # the second record cut short
    r = _run("json", "--data-dir", str(d), "-o", str(tmp_path / "j.json"), cwd=tmp_path)
    assert r.returncode == 1 and "data was lost" in r.stderr and not (tmp_path / "j.json").exists()
    r = _run("json", "--data-dir", str(d), "-o", str(tmp_path / "j.json"), "--ignore-errors", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "j.json").read_text())
    assert any(w.startswith("data lost: ") and "read only in part" in w for w in doc["meta"]["warnings"])
    assert doc["totals"]["statements"] > 0
