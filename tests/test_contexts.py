"""Per-test contexts in the reports (src/dotcov/analysis/contexts.py, analysis/results.py, reports/json_report.py,
html/report.py, cli/commands.py).

ModuleHits with contexts are built here from the Snippets assembly (its real PDB, its real line rule), as the
agent's `dotcov run --contexts test` will fill them (ModuleHits.contexts: test name -> site indexes)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lxml import html as lxml_html

from dotcov import _native
from dotcov.data import datafiles as data
from dotcov.analysis.numbers import Analysis, merge_files
from dotcov.api import Coverage, CoverageError
from dotcov.analysis.contexts import ContextError, limit_data, parse_patterns
from dotcov.data.datafiles import CoverageData, ModuleHits
from dotcov.reports.json_report import json_report
from dotcov.analysis.model import AssemblyCoverage, CoverageResult, FileCoverage
from dotcov.analysis.results import ReportOptions, build

REPO = Path(__file__).resolve().parents[1]
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"
TESTS = ["Snip.Tests.Alpha", "Snip.Tests.Beta", "Snip.Tests.Gamma(1)", "Other.Suite.Delta"]


@pytest.fixture(scope="module")
def snippets_dll(snippets) -> Path:
    return snippets["Debug"]


def module_with_contexts(dll: Path, seed: int = 7) -> ModuleHits:
    """Every sequence point and branch outcome of Snippets, each run by a random few of TESTS (or by none,
    or only outside any test): hits are consistent with the contexts (a site a test ran has hits)."""
    raw = _native.read_symbols(str(dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    rng = random.Random(seed)
    contexts: dict[str, set[int]] = {}
    hits = []
    for i in range(len(sites)):
        ran_by = [t for t in TESTS if rng.random() < 0.3]
        outside = rng.random() < 0.2  # also (or only) run by code outside any test
        for t in ran_by:
            contexts.setdefault(t, set()).add(i)
        hits.append(len(ran_by) * 3 + int(outside))
    return ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, hits, contexts=contexts)


def data_of(module: ModuleHits) -> CoverageData:
    cov = CoverageData()
    cov.add_module(module)
    return cov


def analysis(cov: CoverageData, *, contexts: bool = False) -> Analysis:
    result, problems = build(cov, SNIPPETS, ReportOptions(contexts=contexts))
    assert not problems
    return Analysis.of(result)


# --- the line rule: a line's tests are exactly those under whose filter it is covered -----------------------

def test_a_lines_tests_are_exactly_the_tests_whose_filter_covers_it(snippets_dll):
    module = module_with_contexts(snippets_dll)
    cov = data_of(module)
    full = analysis(cov, contexts=True)
    plain = analysis(cov)
    assert [f.lines for f in full.files] == [f.lines for f in plain.files]  # contexts change no verdict
    assert all(not f.contexts for f in plain.files)  # and cost nothing unless asked for
    with_tests = 0
    for test in TESTS:
        only = analysis(limit_data(cov, parse_patterns([f"^{test.replace('(', '[(]').replace(')', '[)]')}$"])))
        for f, g in zip(full.files, only.files):
            assert f.path == g.path and set(f.lines) == set(g.lines)
            run_by_test = {n for n, names in f.contexts.items() if test in names}
            covered_under_filter = {n for n, h in g.lines.items() if h > 0}
            assert run_by_test == covered_under_filter, (f.path, test)
            with_tests += len(run_by_test)
    assert with_tests > 50
    # A line with tests is a covered line; a covered line may have none (run only outside any test).
    for f in full.files:
        assert all(f.lines[n] > 0 for n in f.contexts)
    assert any(h > 0 and n not in f.contexts for f in full.files for n, h in f.lines.items())


def test_a_line_is_decided_by_its_own_points_not_an_enclosing_statement(snippets_dll):
    # Only the points starting on a line decide it: a test that ran a multi-line statement's first point
    # (say a lambda's enclosing call) is not a test of the lambda body's lines unless it ran their points.
    raw = _native.read_symbols(str(snippets_dll))
    module = module_with_contexts(snippets_dll)
    multi = [(rid, p) for rid, ps in raw["sequence_points"].items() for p in ps if p[3] > p[1]]
    assert multi, "Snippets has multi-line sequence points"
    index = {(s[0], s[1]): i for i, s in enumerate(module.sites)}
    rid, p = multi[0]
    outer = index[(0x06000000 | rid, p[0])]
    module.contexts = {"Only.The.Outer": {outer}}
    module.hits = [1 if i == outer else 0 for i in range(len(module.sites))]
    f = next(f for f in analysis(data_of(module), contexts=True).files
             if f.path == raw["documents"][p[5] - 1])
    ran = {n for n, h in f.lines.items() if h > 0}
    assert {n for n in f.contexts} == ran and p[1] in ran


def test_builds_of_one_file_union_their_tests():
    a = FileCoverage("/x.cs", {3: 1, 4: 0}, contexts={3: frozenset({"T.A"})})
    b = FileCoverage("/x.cs", {3: 2, 4: 1}, contexts={3: frozenset({"T.B"}), 4: frozenset({"T.B"})})
    m = merge_files([a, b])
    assert m.contexts == {3: {"T.A", "T.B"}, 4: {"T.B"}}
    assert a.contexts == {3: {"T.A"}}  # inputs untouched


# --- the filter -------------------------------------------------------------------------------------------

def test_patterns_are_comma_separated_regexes_searched_anywhere():
    pats = parse_patterns(["Alpha, ^Other\\.", "", "Gamma\\(1\\)"])
    assert [p.pattern for p in pats] == ["Alpha", "^Other\\.", "Gamma\\(1\\)"]
    with pytest.raises(ContextError, match=r"--contexts 'a\(' is not a regular expression"):
        parse_patterns(["ok,a("])


def test_the_filter_keeps_what_matching_tests_ran_once_and_nothing_run_outside_tests(snippets_dll):
    module = module_with_contexts(snippets_dll)
    limited = limit_data(data_of(module), parse_patterns(["Alpha|Beta"]))
    (m,) = limited.modules.values()
    want = module.contexts["Snip.Tests.Alpha"] | module.contexts["Snip.Tests.Beta"]
    assert {i for i, h in enumerate(m.hits) if h} == want and set(m.hits) == {0, 1}
    assert set(m.contexts) == {"Snip.Tests.Alpha", "Snip.Tests.Beta"}
    assert module.hits != m.hits and max(module.hits) > 1  # the input is left as it was
    nothing = limit_data(data_of(module), parse_patterns(["NoSuchTest"]))
    assert not any(next(iter(nothing.modules.values())).hits)


def test_a_filter_on_data_without_contexts_says_how_to_record_them(snippets_dll):
    module = module_with_contexts(snippets_dll)
    module.contexts = {}
    with pytest.raises(ContextError, match="dotcov run --contexts test"):
        limit_data(data_of(module), parse_patterns(["x"]))


# --- JSON --------------------------------------------------------------------------------------------------

def test_json_show_contexts_maps_each_line_to_its_sorted_tests(snippets_dll):
    cov = data_of(module_with_contexts(snippets_dll))
    a = analysis(cov, contexts=True)
    doc = json_report(a, version="0", show_contexts=True)
    f = next(f for f in a.files if f.contexts)
    (entry,) = [e for e in doc["files"] if e["absolute_path"] == f.path]
    assert entry["contexts"] == {str(n): sorted(f.contexts[n]) for n in sorted(f.contexts)}
    assert list(entry["contexts"]) == [str(n) for n in sorted(f.contexts)]
    (detail,) = [e for asm in doc["assemblies"] for e in asm["files"] if e["absolute_path"] == f.path]
    assert detail["contexts"] == entry["contexts"]
    assert list(detail)[list(detail).index("not_measured_lines") + 1] == "contexts"


def test_json_without_the_flag_is_unchanged(snippets_dll):
    cov = data_of(module_with_contexts(snippets_dll))
    plain = json.dumps(json_report(analysis(cov), version="0"))
    assert plain == json.dumps(json_report(analysis(cov, contexts=True), version="0"))
    assert '"contexts"' not in plain


# --- HTML --------------------------------------------------------------------------------------------------

def page_contexts(page: Path) -> dict[int, list[str]]:
    """line -> the tests a file page lists for it: each count's set, resolved in the page's one JSON copy."""
    doc = lxml_html.fromstring(page.read_bytes())
    (holder,) = doc.xpath('//script[@id="contexts"]')
    sets = json.loads(holder.text)
    out = {}
    for row in doc.xpath('//div[@id="lines"]/div'):
        for d in row.xpath('details[@class="ctx"]'):
            names = [sets["names"][i] for i in sets["sets"][int(d.get("data-ctx"))]]
            assert d.xpath("summary/text()") == [str(len(names))]
            assert "run" in row.get("class") or "par" in row.get("class")
            out[int(row.get("id")[1:])] = names
    return out


def _page(index: Path, path: str) -> Path:
    href = lxml_html.fromstring(index.read_bytes()).xpath(
        f'//tr[@class="file"]//a[contains(@href, "{Path(path).stem}")]/@href')[0]
    return index.parent / href


def test_html_show_contexts_lists_the_tests_of_each_covered_line(snippets_dll, tmp_path):
    from dotcov.html.report import write_html

    a = analysis(data_of(module_with_contexts(snippets_dll)), contexts=True)
    index = write_html(a, tmp_path / "html", show_contexts=True, relative_to=str(SNIPPETS))
    checked = 0
    for f in a.files:
        page = _page(index, f.path)
        listed = page_contexts(page)
        assert listed == {n: sorted(names) for n, names in f.contexts.items()}
        checked += len(listed)
        doc = lxml_html.fromstring(page.read_bytes())
        for row in doc.xpath('//div[@id="lines"]/div'):  # the column stays aligned: an empty cell elsewhere
            assert len(row.xpath('*[@class="ctx"]')) == 1
    assert checked > 50
    # Without the flag the pages have no contexts column.
    plain = write_html(a, tmp_path / "plain", relative_to=str(SNIPPETS))
    assert not any('class="ctx"' in p.read_text() or 'id="contexts"' in p.read_text()
                   for p in plain.parent.glob("*.html"))


def test_html_names_each_test_once_per_page_however_many_lines_it_ran(tmp_path):
    from dotcov.html.report import write_html

    src = tmp_path / "x.cs"
    src.write_text("".join(f"int a{n} = {n};\n" for n in range(1, 201)))
    tests = frozenset(f"Company.Product.Tests.Integration.OrderTests.Case{i:03d}" for i in range(300))
    fc = FileCoverage(str(src), {n: 1 for n in range(1, 201)}, contexts={n: tests for n in range(1, 201)})
    result = CoverageResult([AssemblyCoverage("A", [], {str(src): fc})], source_root=str(tmp_path))
    index = write_html(result, tmp_path / "html", show_contexts=True)
    page = _page(index, str(src))
    text = page.read_text()
    assert text.count("OrderTests.Case042") == 1  # 200 lines x 300 tests: the names once
    assert page.stat().st_size < 100_000
    assert page_contexts(page) == {n: sorted(tests) for n in range(1, 201)}


def test_html_contexts_are_escaped(tmp_path):
    from dotcov.html.report import write_html

    src = tmp_path / "x.cs"
    src.write_text("class X {}\n")
    name = 'N.C.M<T>("a&b")</script><b>'
    fc = FileCoverage(str(src), {1: 1}, contexts={1: frozenset({name})})
    result = CoverageResult([AssemblyCoverage("A", [], {str(src): fc})], source_root=str(tmp_path))
    index = write_html(result, tmp_path / "html", show_contexts=True)
    page = _page(index, str(src))
    assert "</script><b>" not in page.read_text()
    assert page_contexts(page) == {1: [name]}


def test_html_contexts_open_in_a_real_browser(tmp_path):
    """dotcov.js lists a count's tests when it is opened (Chromium: every count opened once the page loaded)."""
    from test_html import CHROMIUM, _chromium

    from dotcov.html.report import write_html

    src = tmp_path / "x.cs"
    src.write_text("int a = 1;\nint b = 2;\nint c = 3;\n")
    fc = FileCoverage(str(src), {1: 1, 2: 1, 3: 0},
                      contexts={1: frozenset({"T.B", "T.A"}), 2: frozenset({"T.C<&>"})})
    result = CoverageResult([AssemblyCoverage("A", [], {str(src): fc})], source_root=str(tmp_path))
    index = write_html(result, tmp_path / "html", show_contexts=True)
    page = _page(index, str(src))
    opener = ('<script>addEventListener("load", function () { document.querySelectorAll("details.ctx")'
              '.forEach(function (d) { d.open = true; }); });</script></body>')
    page.write_text(page.read_text().replace("</body>", opener))
    assert CHROMIUM.exists()
    proc = _chromium(tmp_path, page.as_uri(), "--virtual-time-budget=3000", "--dump-dom")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    dom = lxml_html.fromstring(proc.stdout)
    lists = {int(r.get("id")[1:]): r.xpath('details[@class="ctx"]/ul/li/text()')
             for r in dom.xpath('//div[@id="lines"]/div') if r.xpath('details[@class="ctx"]')}
    assert lists == {1: ["T.A", "T.B"], 2: ["T.C<&>"]}


# --- the API and the command line ----------------------------------------------------------------------------

def _write_data(tmp_path: Path, module: ModuleHits) -> Path:
    """A data directory of `module` (its contexts are not in the file: writing them is the agent's data format,
    so the fixture below gives them back on every load, and the CLI runs in-process)."""
    d = tmp_path / "data"
    d.mkdir()
    cov = data_of(module)
    data.write(cov, d / "dotcov.1.00000001.cov")
    return d


@pytest.fixture
def cli_with_contexts(snippets_dll, tmp_path, monkeypatch):
    """Runs `dotcov ARGS` in-process on Snippets data whose contexts are given back to every load."""
    from click.testing import CliRunner

    from dotcov.cli.commands import cli

    module = module_with_contexts(snippets_dll)
    d = _write_data(tmp_path, module)
    real_read = data.read_file

    def read_file(path, into, *args, **kwargs):
        real_read(path, into, *args, **kwargs)
        for m in into.modules.values():
            m.contexts = {k: set(v) for k, v in module.contexts.items()}

    monkeypatch.setattr(data, "read_file", read_file)
    monkeypatch.chdir(tmp_path)

    def run(*args):
        return CliRunner().invoke(cli, [args[0], "--data-dir", str(d), *args[1:]], catch_exceptions=False)

    run.module = module
    run.data_dir = d
    return run


def test_cli_json_show_contexts(cli_with_contexts, tmp_path):
    out = tmp_path / "c.json"
    r = cli_with_contexts("json", "-o", str(out), "--show-contexts")
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert all("contexts" in f for f in doc["files"])
    names = {n for f in doc["files"] for ts in f["contexts"].values() for n in ts}
    assert names == set(TESTS)
    plain = tmp_path / "p.json"
    assert cli_with_contexts("json", "-o", str(plain)).exit_code == 0
    assert '"contexts"' not in plain.read_text()


def test_cli_contexts_filter_on_every_report(cli_with_contexts, tmp_path):
    r = cli_with_contexts("json", "-o", str(tmp_path / "a.json"), "--contexts", "Alpha", "--show-contexts")
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "a.json").read_text())
    assert {n for f in doc["files"] for ts in f["contexts"].values() for n in ts} == {"Snip.Tests.Alpha"}
    full = json.loads(cli_with_contexts("json", "-o", "-").output)
    assert doc["totals"]["covered"] < full["totals"]["covered"]
    hits = {h for asm in doc["assemblies"] for f in asm["files"] for h in f["lines"].values()}
    assert hits <= {0, 1, 2}  # 1 per point a matching test ran (2 where two builds or points add up)
    for cmd, opt in (("xml", "-o"), ("lcov", "-o"), ("opencover", "-o"), ("html", "-d")):
        r = cli_with_contexts(cmd, opt, str(tmp_path / cmd), "--contexts", "Alpha")
        assert r.exit_code == 0, (cmd, r.output)
    r = cli_with_contexts("report", "--contexts", "Alpha,Delta")
    assert r.exit_code == 0 and "TOTAL" in r.output and "no recorded test matches" not in r.output
    r = cli_with_contexts("report", "--contexts", "Alhpa")
    assert r.exit_code == 0 and "warning: --contexts Alhpa: no recorded test matches (of 4)" in r.output


def test_cli_bad_pattern_and_data_without_contexts(cli_with_contexts):
    r = cli_with_contexts("report", "--contexts", "Alpha(")
    assert r.exit_code == 1
    assert "--contexts 'Alpha(' is not a regular expression" in r.output
    cli_with_contexts.module.contexts.clear()  # the data as a run without --contexts test leaves it
    r = cli_with_contexts("report", "--contexts", "Alpha")
    assert r.exit_code == 1
    assert "holds no per-test contexts; record them with 'dotcov run --contexts test" in r.output
    r = cli_with_contexts("json", "-o", "-", "--show-contexts")
    assert r.exit_code == 0 and "warning: --show-contexts: the coverage data holds no per-test contexts" in r.output


def test_config_report_contexts(cli_with_contexts, tmp_path):
    (tmp_path / "dotcov.toml").write_text('[report]\ncontexts = ["Delta"]\n')
    r = cli_with_contexts("json", "-o", str(tmp_path / "c.json"), "--show-contexts")
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "c.json").read_text())
    assert {n for f in doc["files"] for ts in f["contexts"].values() for n in ts} == {"Other.Suite.Delta"}


def test_api_show_contexts_without_contexts_warns(snippets_dll, tmp_path):
    module = module_with_contexts(snippets_dll)
    module.contexts = {}
    warnings = []
    cov = Coverage(tmp_path, source_root=SNIPPETS, warn=warnings.append).use_data(data_of(module))
    cov.json_report(tmp_path / "c.json", show_contexts=True)
    assert any("dotcov run --contexts test" in w for w in warnings)
    doc = json.loads((tmp_path / "c.json").read_text())
    assert all(f["contexts"] == {} for f in doc["files"])
    with pytest.raises(CoverageError, match="no per-test contexts"):
        Coverage(tmp_path, source_root=SNIPPETS, contexts=["x"], warn=warnings.append).use_data(
            data_of(module)).analysis()


def test_release_switch_lines_without_a_sequence_point_take_their_dispatchs_tests(snippets, tmp_path):
    """Release: a `switch (k)` line has no sequence point; its hits are its arms' (analysis/results.py), its tests those
    that ran its dispatch. Each method here is run by its own random tests, on every site (points and every
    branch outcome), so the tests of every line, switch lines too, are known; checked against the filter."""
    dll = snippets["Release"]
    from dotcov.analysis.branches import analyse as branches
    from dotcov.analysis.branches.il import MethodIL
    from dotcov.analysis.results import Symbols

    raw = _native.read_symbols(str(dll))
    sites = [(0x06000000 | rid, p[0], 0) for rid, points in sorted(raw["sequence_points"].items()) for p in points]
    for rid, body in sorted(_native.read_method_bodies(str(dll)).items()):
        for b in MethodIL.decode(rid, body).branches():
            sites += [(0x06000000 | rid, b.offset, kind) for kind in range(1, b.outcome_count() + 1)]
    rng = random.Random(3)
    by_method = {token: [t for t in TESTS if rng.random() < 0.5] for token in {s[0] for s in sites}}
    contexts: dict[str, set[int]] = {}
    for i, (token, _off, _kind) in enumerate(sites):
        for t in by_method[token]:
            contexts.setdefault(t, set()).add(i)
    module = ModuleHits(raw["mvid"], raw["pdb_id"], str(dll), sites, [len(by_method[s[0]]) for s in sites],
                        contexts=contexts)
    cov = data_of(module)
    full = analysis(cov, contexts=True)
    spanned = {(raw["documents"][p[5] - 1], n) for ps in raw["sequence_points"].values() for p in ps
               for n in range(p[1], p[3] + 1)}
    pointless = {(r.path, r.line) for r in branches.analyse(module, Symbols(raw))
                 if r.arms is not None and (r.path, r.line) not in spanned}
    assert pointless, "Release Snippets has switch lines without a sequence point"
    ran = [(f, n) for f in full.files for p, n in pointless if p == f.path and f.lines.get(n)]
    assert ran and all(n in f.contexts for f, n in ran)
    for test in TESTS:
        only = analysis(limit_data(cov, parse_patterns([f"^{test.replace('(', '[(]').replace(')', '[)]')}$"])))
        for f, g in zip(full.files, only.files):
            assert {n for n, names in f.contexts.items() if test in names} == {n for n, h in g.lines.items() if h}
