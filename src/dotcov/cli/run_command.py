"""The body of `dotcov run` once its arguments are known: check, erase, start, wait, combine, report.

commands.py's click command calls it. It imports nothing heavy before the command starts, and prints with plain
writes to standard error, so `dotcov run`'s own cost stays small next to a short test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dotcov.cli.settings import EXIT_ERROR


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _warn(message: str) -> None:
    _say(f"dotcov: warning: {message}")


def run_command(command: list[str], cfg, *, data_dir: Path | None, append: bool, include_tests: bool, log: bool,
                contexts: str | None, report: bool, exact_counts: bool = False) -> int:
    """Runs `command` under the agent and returns the exit status `dotcov run` ends with. `cfg` is the loaded
    dotcov.toml (config.Config); `contexts`, when given, was checked (config.check_contexts). `exact_counts`: every
    increment atomic (the agent's DOTCOV_EXACT_COUNTS=1), so hit counts stay exact under contention."""
    from dotcov.data import datafiles as data
    from dotcov.measure.agent import AgentError
    from dotcov.measure.run import RunError, prepare, sources_root, start, with_contexts, with_exact_counts
    from dotcov.cli.settings import data_dir as resolve_data_dir

    data_dir = resolve_data_dir(data_dir, cfg)
    include_tests = include_tests or cfg.include_test_assemblies
    contexts = contexts or cfg.run_contexts
    options = _report_options(cfg)  # dotcov.toml's report settings, checked before anything runs or is erased
    if options is None:
        return EXIT_ERROR
    aside = None
    signals: list[int] = []
    try:
        # Every check first: earlier data is touched only once the command is known to be startable.
        prepared = prepare(command, data_dir, source_root=sources_root(Path.cwd()), include_tests=include_tests,
                           log=log)
        if not append:
            # The last run's data waits aside until this run writes data of its own. The plans and colours
            # stay: keyed by build and checked against their files, so an unchanged build's report is a warm one.
            aside = data.set_aside(data_dir)
            data.erase(data_dir, keep_cache=True, keep_aside=True)
        prepared = with_exact_counts(with_contexts(prepared, contexts), exact_counts)
        status = start(prepared, while_running=_import_report if report else None, signals=signals)
    except RunError as e:
        _say(f"dotcov: {e}")
        if aside is not None:
            data.restore_aside(aside)
        return e.status
    except AgentError as e:
        _say(f"dotcov: {e}")
        if aside is not None:
            data.restore_aside(aside)
        return EXIT_ERROR
    if aside is not None and (status or signals) and not data.data_files(data_dir):
        # The command failed before any covered code loaded (a build error, Ctrl-C): the last run's data stays,
        # and that is said first, not PDB advice.
        had = any(aside.iterdir())
        data.restore_aside(aside)
        _say(f"dotcov: error: the command {_how_it_ended(status, signals)} before any .NET process recorded "
             "coverage; " + (f"the previous run's data in {data_dir} was kept" if had else "no coverage was collected"))
        _say_skip_reasons(data_dir)  # (failed tests of assemblies without a PDB also end here)
        return status or EXIT_ERROR
    if aside is not None:
        data.drop_aside(aside)
    cov = data.combine(data_dir)
    for w in cov.warnings:
        _warn(w)
    if cov.conflicts:
        from dotcov.measure.coexistence import ADVICE

        _say("dotcov: error: another coverage tool was at work in this run, so its coverage cannot be measured:")
        for c in cov.conflicts:
            _say(f"  {c}")
        _say(f"dotcov: {ADVICE}")
        return status or EXIT_ERROR
    if signals and _stopped_by(status, signals):  # a service's normal end: not a failure
        _say(f"dotcov: the command stopped on {_signal_names(signals)} (exit status {status}); the data is "
             "complete: the coverage below is all that ran until then")
    elif signals:  # above the table, which shows only what ran before that
        _say(f"dotcov: warning: the command {_how_it_ended(status, signals)}: the coverage below is only what ran "
             "before that")
    elif status:
        _say(f"dotcov: the command {_how_it_ended(status, signals)}")
    if not cov.modules:
        _no_coverage(data_dir, log)
    elif report:
        _report(cov, cfg, data_dir, include_tests, options)
    return status


def _no_coverage(data_dir: Path, log: bool) -> None:
    _say("dotcov: warning: no coverage was collected. No .NET process started by the command loaded an "
         "assembly with a portable PDB whose sources lie under " + str(Path.cwd()) + ".")
    if not _say_skip_reasons(data_dir) and not log:
        _say("dotcov: run again with --log to see what each .NET process saw.")


def _say_skip_reasons(data_dir: Path) -> bool:
    reasons = _skip_reasons(data_dir / "logs")
    if reasons:
        _say("dotcov: the agent skipped:")
        for reason in reasons:
            _say(f"  {reason}")
    return bool(reasons)


def _how_it_ended(status: int, signals: list[int]) -> str:
    if signals:
        return f"was interrupted ({_signal_names(signals)}) and exited with status {status}"
    return f"exited with status {status}"


def _signal_names(signals: list[int]) -> str:
    import signal

    names = ", ".join(dict.fromkeys(signal.Signals(s).name for s in signals))
    return "Ctrl-C" if names == "SIGINT" else names


def _stopped_by(status: int, signals: list[int]) -> bool:
    """The command stopped because of a signal dotcov got (and it got too): it exited 0 after a graceful shutdown,
    as a .NET host does on SIGTERM or Ctrl-C, or that signal ended it (status 128+N). Any other status after a
    signal is a failure of its own."""
    return status == 0 or status - 128 in signals


def _report_options(cfg):
    """The report's options from dotcov.toml, as cli.Settings makes them when no flag is given; None (said why)
    for a bad setting."""
    from dotcov.analysis.filters import FilterError
    from dotcov.cli.settings import report_options

    try:
        return report_options(cfg)
    except FilterError as e:
        _say(f"dotcov: {e}")
        return None


def _import_report() -> None:
    """Imports what the summary table needs while the command runs (Python's own work that would otherwise
    follow the command). A failure here is left for the report itself to meet."""
    try:
        import dotcov.analysis.numbers  # noqa: F401
        import dotcov.api  # noqa: F401
        import dotcov.analysis.filters  # noqa: F401
        import dotcov.analysis.plans.plan  # noqa: F401
        import dotcov.reports.text  # noqa: F401
        import dotcov.analysis.results  # noqa: F401
        import dotcov.analysis.unloaded  # noqa: F401
    except Exception:
        pass


def _report(cov, cfg, data_dir: Path, include_tests: bool, options) -> None:
    """The summary table `dotcov run` prints after the command, from the data just combined."""
    from dotcov import __version__
    from dotcov.api import Coverage, CoverageError, lost_data
    api = Coverage(data_dir, source_root=Path.cwd(), warn=_warn, version=__version__,
                   source_dirs=cfg.source, include_tests=include_tests, options=options)
    api.lost = lost_data(cov, data_dir)
    try:
        api.use_data(cov).report()
    except CoverageError:
        pass  # nothing reportable: the warnings above say why


def _skip_reasons(log_dir: Path, most: int = 20) -> list[str]:
    """The agent's reasons for skipping modules, from its logs (when --log was given)."""
    reasons: list[str] = []
    for log in sorted(log_dir.glob("agent.*.log")) if log_dir.is_dir() else []:
        for line in log.read_text(errors="replace").splitlines():
            _, _, message = line.partition("] ")
            if message.startswith("skip ") and message not in reasons:
                reasons.append(message)
    return reasons[:most]
