"""cli/settings.py: the data directory and a report's options, read once for commands.py, run_command.py and the
benchmarks, without click."""

from __future__ import annotations

from pathlib import Path

from dotcov.cli import commands as cli
from dotcov.cli import run_command
from dotcov.cli import settings
from dotcov.cli.config import Config
from dotcov.analysis.filters import Filters
from dotcov.analysis.results import ReportOptions

TOML = Config(include=["[Calc]*"], exclude=["[*]Calc.Legacy*"], exclude_by_attribute=["Obsolete"],
              exclude_by_file=["**/Generated/*.cs"], skip_auto_properties=True, all_branches=True,
              paths={"source": [".", "/_/"]}, data_dir="from-toml")


def test_flags_win_over_dotcov_toml():
    assert settings.report_options(TOML) == ReportOptions(
        filters=Filters.build(["[Calc]*"], ["[*]Calc.Legacy*"], ["Obsolete"], ["**/Generated/*.cs"]),
        skip_auto_properties=True, all_branches=True, paths={"source": [".", "/_/"]})
    flagged = settings.report_options(TOML, include=["[Lib]*"], exclude=["[*]X"], exclude_by_attribute=["Mine"],
                                      exclude_by_file=["*.g.cs"], skip_auto_properties=False, all_branches=False)
    assert flagged == ReportOptions(
        filters=Filters.build(["[Lib]*"], ["[*]X"], ["Obsolete", "Mine"], ["**/Generated/*.cs", "*.g.cs"]),
        skip_auto_properties=False, all_branches=False, paths={"source": [".", "/_/"]})


def test_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert settings.data_dir(None, Config()) == tmp_path / ".dotcov"
    assert settings.data_dir(None, TOML) == tmp_path / "from-toml"
    assert settings.data_dir("flag", TOML) == tmp_path / "flag"
    assert settings.data_dir(Path("/abs"), TOML) == Path("/abs")


def test_the_cli_builds_the_same_options():
    flags = dict(include=["[Lib]*"], exclude=(), exclude_by_attribute=["Mine"], exclude_by_file=["*.g.cs"],
                 skip_auto_properties=None, all_branches=False)
    made = cli.Settings(TOML, None, *flags.values(), None, (), None)
    assert made.options == settings.report_options(TOML, **flags)
    assert made.data_dir == settings.data_dir(None, TOML)


def test_dotcov_runs_summary_has_a_report_commands_options(tmp_path, monkeypatch):
    # The same options, so the plans `dotcov run` keeps are the ones `dotcov report` looks up (analysis/plans/cache.py).
    import dotcov.api

    seen = {}

    class Stop(Exception):
        pass

    def coverage(data_dir, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(dotcov.api, "Coverage", coverage)
    try:
        run_command._report(None, TOML, tmp_path, False, run_command._report_options(TOML))
    except Stop:
        pass
    assert seen["options"] == cli.Settings(TOML, None, (), (), (), (), None, None, None, (), None).options
    assert seen["options"].filters.files == ["**/Generated/*.cs"]
