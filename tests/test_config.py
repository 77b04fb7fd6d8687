"""dotcov.toml discovery and validation; filters; path remapping; fail-under."""

from __future__ import annotations

from pathlib import Path

import pytest

from dotcov.cli.config import ConfigError, load_config
from dotcov.analysis.filters import FilterError, Filters, TypeFilter
from dotcov.analysis.model import AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage
from dotcov.analysis.paths import PathMapper
from dotcov.analysis.thresholds import check, percentages


def test_config_is_found_upward_and_read(tmp_path):
    (tmp_path / "dotcov.toml").write_text("""
[run]
data_dir = "cov"
include_test_assemblies = true
[report]
exclude = "[*]Legacy*"
exclude_by_attribute = ["Obsolete"]
fail_under = { line = 80, branch = 50 }
fail_under_scope = "assembly"
precision = 1
[paths]
source = [".", "/_/", "C:\\\\agent\\\\src"]
""")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    cfg = load_config(deep)
    assert cfg.path == tmp_path / "dotcov.toml"
    assert cfg.data_dir == str(tmp_path / "cov")
    assert cfg.include_test_assemblies
    assert cfg.exclude == ["[*]Legacy*"]
    assert cfg.fail_under == {"line": 80.0, "branch": 50.0}
    assert cfg.fail_under_scope == "assembly"
    assert cfg.paths["source"] == [str(tmp_path), "/_/", "C:\\agent\\src"]


def test_no_config_gives_defaults(tmp_path):
    cfg = load_config(tmp_path)
    assert cfg.path is None and cfg.fail_under == {} and cfg.data_dir is None


@pytest.mark.parametrize("text,message", [
    ("[report]\nfail_under = 'x'", "must be a number"),
    ("[report]\nnope = 1", "unknown setting"),
    ("[surprise]\n", "unknown section"),
    ("[report]\nfail_under = { lines = 3 }", "the kinds are line, branch and method"),
    ("[paths]\nsource = ['.']", "needs the canonical path"),
    ("[report\n", "dotcov.toml"),
])
def test_bad_config_is_reported_with_its_path(tmp_path, text, message):
    (tmp_path / "dotcov.toml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


def test_type_filters_follow_coverlet_syntax():
    f = Filters.build(include=["[Calc*]*"], exclude=["[*]Calc.Legacy*", "[Calc]Calc.Shapes/Inner"])
    assert f.type_included("Calc", "Calc.Calculator")
    assert f.type_included("Calc.Core", "Calc.X")
    assert not f.type_included("Other", "Calc.Calculator")
    assert not f.type_included("Calc", "Calc.LegacyFormatter")
    assert not f.type_included("Calc", "Calc.Shapes/Inner")
    assert f.type_included("Calc", "Calc.Shapes")
    with pytest.raises(FilterError, match=r"expected \[Assembly\]Namespace.Type"):
        TypeFilter.parse("Calc.*")


def test_attribute_names_match_with_or_without_suffix_and_namespace():
    f = Filters.build(exclude_by_attribute=["Obsolete"])
    assert f.excluded_by_attribute(["System.ObsoleteAttribute"]) == "System.ObsoleteAttribute"
    assert f.excluded_by_attribute(["System.Diagnostics.CodeAnalysis.ExcludeFromCodeCoverageAttribute"])
    assert f.excluded_by_attribute(["System.CodeDom.Compiler.GeneratedCodeAttribute"])
    assert f.excluded_by_attribute(["System.Runtime.CompilerServices.CompilerGeneratedAttribute"]) is None


def test_file_globs():
    f = Filters.build(exclude_by_file=["**/Generated/*.cs", "*.g.cs"])
    assert f.file_excluded("/src/app/Generated/Api.cs")
    assert f.file_excluded("/src/app/Foo.g.cs")
    assert not f.file_excluded("/src/app/Foo.cs")


def test_paths_remap_aliases_longest_first(tmp_path):
    m = PathMapper({"src": ["/work/repo", "/builds/ci/", "/builds/ci/sub/", "C:\\agent\\"]})
    assert m.map("/builds/ci/a/b.cs") == "/work/repo/a/b.cs"
    assert m.map("/builds/ci/sub/x.cs") == "/work/repo/x.cs"
    assert m.map("C:\\agent\\dir\\y.cs") == "/work/repo/dir/y.cs"
    assert m.map("/builds/cix/z.cs") == "/builds/cix/z.cs"  # whole components only


def test_windows_aliases_match_as_windows_compares_paths():
    """PDBs built on Windows record `C:\\...` sources (a PathMap's prefix may be followed by '/'): an alias
    matches with either separator and in any case; Linux paths stay case-sensitive."""
    m = PathMapper({"src": ["/work/repo", "C:\\src\\Sample", "/builds/ci"]})
    assert m.map("C:\\src\\Sample\\Program.cs") == "/work/repo/Program.cs"
    assert m.map("c:/SRC/sample/Sub/A.cs") == "/work/repo/Sub/A.cs"
    assert m.map("C:\\src\\Sample/Program.cs") == "/work/repo/Program.cs"
    assert m.map("C:\\src\\Sample2\\Program.cs") == "C:\\src\\Sample2\\Program.cs"  # whole components only
    assert m.map("D:\\src\\Sample\\Program.cs") == "D:\\src\\Sample\\Program.cs"
    assert m.map("/Builds/ci/a.cs") == "/Builds/ci/a.cs"


def test_deterministic_paths_find_the_repository(tmp_path):
    (tmp_path / "src" / "Calc").mkdir(parents=True)
    (tmp_path / "src" / "Calc" / "A.cs").write_text("//")
    m = PathMapper(None, tmp_path / "src" / "Calc")  # started below the repository root
    assert m.map("/_/src/Calc/A.cs") == str(tmp_path / "src" / "Calc" / "A.cs")
    # Once /_/ is known to be the repository root, every /_/ path maps there.
    assert m.map("/_/nowhere/B.cs") == str(tmp_path / "nowhere" / "B.cs")
    # With no file to anchor it, the path is left as it is.
    assert PathMapper(None, tmp_path).map("/_/nowhere/B.cs") == "/_/nowhere/B.cs"


def _result():
    def asm(name, covered, missed, methods_hit, methods_missed, branches=None):
        fc = FileCoverage(f"/s/{name}.cs", {**{i: 1 for i in range(covered)},
                                           **{100 + i: 0 for i in range(missed)}}, branches or {})
        methods = [MethodCoverage(f"m{i}", "()", {1: 1}) for i in range(methods_hit)]
        methods += [MethodCoverage(f"n{i}", "()", {1: 0}) for i in range(methods_missed)]
        return AssemblyCoverage(name, [ClassCoverage(name, fc.path, methods, fc.lines)], {fc.path: fc})
    return CoverageResult([asm("A", 9, 1, 1, 1, {1: BranchCoverage(1, 4)}), asm("B", 5, 5, 2, 0)])


def test_fail_under_kinds_and_scopes():
    r = _result()
    assert percentages(r.assemblies) == {"line": 70.0, "branch": 25.0, "method": 75.0}
    assert check(r, {"line": 70}) == []
    assert check(r, {"line": 71}) == ["total line coverage 70.00% is below --fail-under=71"]
    assert check(r, {"branch": 30, "method": 80}) == [
        "total branch coverage 25.00% is below --fail-under=30",
        "total method coverage 75.00% is below --fail-under=80",
    ]
    # Per assembly: B has 50% lines; A has no failing line coverage at 60.
    assert check(r, {"line": 60}, "assembly") == ["assembly B line coverage 50.00% is below --fail-under=60"]
    # No branches at all in B: the branch minimum does not apply to it.
    assert check(r, {"branch": 20}, "assembly") == []


def test_run_contexts_setting(tmp_path):
    from dotcov.cli.config import UsageError

    cfg_file = tmp_path / "dotcov.toml"
    assert load_config(tmp_path).run_contexts is None  # no file: off
    cfg_file.write_text('[run]\ncontexts = "test"\n')
    assert load_config(tmp_path).run_contexts == "test"
    cfg_file.write_text('[run]\ncontexts = "lines"\n')
    with pytest.raises(UsageError, match="unknown context kind 'lines'"):
        load_config(tmp_path)
    cfg_file.write_text("[run]\ncontexts = true\n")
    with pytest.raises(ConfigError, match="run.contexts must be str"):
        load_config(tmp_path)
