"""The `dotcov` command line, on coverage.py's conventions.

Exit codes: 0 success; 1 an error dotcov reports (bad input, no data); 2 the
total is below --fail-under (for `dotcov impacted --fail-untested`: a changed line
no test ran). `dotcov run` exits with the command's own status (128+N when a
signal N ended it). `dotcov attach` has its own refusal codes (3 to 8, docs/services.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dotcov import __version__
from dotcov.cli.settings import EXIT_ERROR, data_dir as _resolve_data_dir

EXIT_FAIL_UNDER = 2


def _data_dir_option(f):
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        envvar="DOTCOV_DATA_DIR",
        default=None,
        help="Directory of the coverage data files (also DOTCOV_DATA_DIR, or run.data_dir in dotcov.toml; "
        "default .dotcov).",
    )(f)


def _output_option(default: str, what: str):
    return click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=default,
                        show_default=True, help=f"Where to write {what} ('-' for standard output).")


def _config():
    from dotcov.cli.config import ConfigError, UsageError, load_config

    try:
        return load_config()
    except UsageError as e:
        click.echo(f"dotcov: error: {e}", err=True)
        sys.exit(2)
    except ConfigError as e:
        _fail(str(e))


def _report_options(f):
    """Filters and report switches shared by every report command; flags win over dotcov.toml."""
    options = [
        click.option("--include", multiple=True, help="Only types matching [Assembly]Namespace.Type (repeatable)."),
        click.option("--exclude", multiple=True, help="Leave out types matching [Assembly]Namespace.Type (repeatable)."),
        click.option("--exclude-by-attribute", multiple=True,
                     help="Leave out code marked with this attribute (besides ExcludeFromCodeCoverage, GeneratedCode)."),
        click.option("--exclude-by-file", multiple=True, help="Leave out source files matching this glob."),
        click.option("--skip-auto-properties/--no-skip-auto-properties", default=None,
                     help="Leave out auto-property accessors (and record properties)."),
        click.option("--all-branches/--user-branches", default=None,
                     help="Also report branches the compiler generated."),
        click.option("--fail-under", type=float, default=None,
                     help="Exit with status 2 if coverage is below this percentage."),
        click.option("--fail-under-type", type=click.Choice(["line", "branch", "method"]), multiple=True,
                     help="What --fail-under applies to (repeatable; default line)."),
        click.option("--fail-under-scope", type=click.Choice(["total", "assembly"]), default=None,
                     help="Apply --fail-under to the total (default) or to each assembly."),
        click.option("--source", "source_dirs", multiple=True, type=click.Path(file_okay=False, path_type=Path),
                     help="Also look here for assemblies no test loaded, reported at 0% (repeatable; "
                     "also [run] source in dotcov.toml)."),
        click.option("--ignore-errors", is_flag=True, default=False,
                     help="Report even when coverage data was cut short or corrupt (the report says what was lost)."),
        click.option("--contexts", "contexts", multiple=True, metavar="PATTERN",
                     help="Only what the tests matching these comma-separated regular expressions ran (needs "
                     "'dotcov run --contexts test'; counts are then 1 for run; also [report] contexts)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


class Settings:
    """The effective settings of a report command: flags over dotcov.toml over defaults."""

    def __init__(self, cfg, data_dir, include, exclude, exclude_by_attribute, exclude_by_file,
                 skip_auto_properties, all_branches, fail_under, fail_under_type, fail_under_scope,
                 ignore_errors=False, source_dirs=(), contexts=(), show_contexts=False):
        from dotcov.analysis.filters import FilterError
        from dotcov.cli.settings import report_options

        self.cfg = cfg
        self.data_dir = _resolve_data_dir(data_dir, cfg)
        try:
            self.options = report_options(cfg, include=include, exclude=exclude,
                                          exclude_by_attribute=exclude_by_attribute, exclude_by_file=exclude_by_file,
                                          skip_auto_properties=skip_auto_properties, all_branches=all_branches)
        except FilterError as e:
            _fail(str(e))
        if fail_under is not None:
            self.fail_under = {kind: fail_under for kind in (fail_under_type or ("line",))}
        else:
            self.fail_under = dict(cfg.fail_under)
        self.fail_under_scope = fail_under_scope or cfg.fail_under_scope
        self.ignore_errors = ignore_errors
        self.source_dirs = [*cfg.source, *source_dirs]
        self.contexts = list(contexts or cfg.contexts)  # checked by _settings (dotcov run does not use them)
        if show_contexts:
            self.options.contexts = True


def _settings(data_dir, include, exclude, exclude_by_attribute, exclude_by_file, skip_auto_properties,
              all_branches, fail_under, fail_under_type, fail_under_scope, ignore_errors=False,
              source_dirs=(), contexts=(), show_contexts=False) -> Settings:
    from dotcov.analysis.contexts import ContextError, parse_patterns

    settings = Settings(_config(), data_dir, include, exclude, exclude_by_attribute, exclude_by_file,
                        skip_auto_properties, all_branches, fail_under, fail_under_type, fail_under_scope,
                        ignore_errors, source_dirs, contexts, show_contexts)
    try:
        parse_patterns(settings.contexts)  # a bad pattern is an error before any data is read
    except ContextError as e:
        _fail(str(e))
    return settings


def _fail(message: str) -> None:
    click.echo(f"dotcov: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _warn(message: str) -> None:
    click.echo(f"dotcov: warning: {message}", err=True)


def _coverage(settings: Settings):
    """The API object of a report command, its data loaded and analysed (errors end the command)."""
    from dotcov.api import Coverage, CoverageError

    cov = Coverage(settings.data_dir, source_root=Path.cwd(), options=settings.options,
                   ignore_errors=settings.ignore_errors, warn=_warn, version=__version__,
                   source_dirs=settings.source_dirs, include_tests=settings.cfg.include_test_assemblies,
                   contexts=settings.contexts)
    try:
        cov.load().analysis()
    except CoverageError as e:
        _fail(str(e))
    return cov


def _check_fail_under(cov, settings: Settings) -> None:
    failures = cov.check_fail_under(settings.fail_under, settings.fail_under_scope)
    for message in failures:
        click.echo(f"dotcov: {message}", err=True)
    if failures:
        sys.exit(EXIT_FAIL_UNDER)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dotcov")
def cli():
    """Code coverage for .NET: run tests under dotcov, then report."""


def _file_report(data_dir, output: Path, filters: dict, write, what: str, show_contexts: bool = False) -> None:
    """The body of every file-writing report command: load, analyse, write with the API's writer
    (`write(cov, output)`, e.g. `Coverage.xml_report`: atomic, '-' for standard output), check --fail-under."""
    from dotcov.api import CoverageError

    settings = _settings(data_dir, show_contexts=show_contexts, **filters)
    cov = _coverage(settings)
    try:
        write(cov, output)
    except CoverageError as e:
        _fail(str(e))
    if str(output) != "-":
        click.echo(f"Wrote {what} to {output}")
    _check_fail_under(cov, settings)


_EXACT_COUNTS_HELP = "Count every hit exactly when threads run the same line at once (atomic increments; slower)."


# No ignore_unknown_options: a mistyped option (`--apend`) must be a usage error, not the command to run.
@cli.command(context_settings={"allow_interspersed_args": False})
@_data_dir_option
@click.option("--append", is_flag=True, help="Keep the data of earlier runs instead of erasing it.")
@click.option("--include-tests", is_flag=True, help="Also cover test assemblies (those referencing xunit, NUnit, MSTest).")
@click.option("--log", "agent_log", is_flag=True, help="Write the agent's log to DATA_DIR/logs/.")
@click.option("--contexts", "contexts", metavar="KIND", default=None,
              help='Record which test ran each line: "test" (also [run] contexts in dotcov.toml).')
@click.option("--no-report", is_flag=True, help="Do not print the summary table afterwards.")
@click.option("--exact-counts", is_flag=True, help=_EXACT_COUNTS_HELP)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def run(data_dir: Path, append: bool, include_tests: bool, agent_log: bool, contexts: str | None, no_report: bool,
        exact_counts: bool, command):
    """Run COMMAND with the agent loaded into every .NET process it starts.

    Example: dotcov run -- dotnet test
    """
    cfg = _config()
    if contexts is not None:
        from dotcov.cli.config import ConfigError, check_contexts

        try:
            check_contexts(contexts)
        except ConfigError as e:
            click.echo(f"dotcov: error: {e}", err=True)
            sys.exit(2)
    from dotcov.cli.run_command import run_command

    sys.exit(run_command(list(command), cfg, data_dir=data_dir, append=append, include_tests=include_tests,
                         log=agent_log, contexts=contexts, report=not no_report, exact_counts=exact_counts))


@cli.command()
@_data_dir_option
@click.option("--include-tests", is_flag=True, help="Also cover test assemblies (those referencing xunit, NUnit, MSTest).")
@click.option("--log", "agent_log", is_flag=True, help="Write the agent's log to DATA_DIR/logs/.")
@click.option("--exact-counts", is_flag=True, help=_EXACT_COUNTS_HELP)
@click.argument("pid", type=int)
def attach(data_dir: Path, include_tests: bool, agent_log: bool, exact_counts: bool, pid: int):
    """Load the agent into the running .NET process PID; its coverage from then on goes to the data directory.

    Exit codes (docs/services.md): 3 no such process, 4 not a .NET process, 5 its diagnostics are off,
    6 another profiler is loaded, 7 another user's process, 8 dotcov is already loaded in it.
    """
    from dotcov.measure.agent import AgentError
    from dotcov.measure.attach import AttachError, agent_settings, attach as attach_to
    from dotcov.measure.run import RunError, check_data_dir, sources_root

    cfg = _config()
    directory = _resolve_data_dir(data_dir, cfg)
    try:
        check_data_dir(directory)
        settings = agent_settings(directory, sources_root(Path.cwd()),
                                  include_tests=include_tests or cfg.include_test_assemblies, log=agent_log,
                                  exact_counts=exact_counts)
        attach_to(pid, settings)
    except (AttachError, RunError) as e:
        click.echo(f"dotcov: error: {e}", err=True)
        sys.exit(e.status)
    except AgentError as e:
        _fail(str(e))
    click.echo(f"dotcov: attached to process {pid}; its coverage goes to {directory}")
    if not list(directory.glob(f"dotcov.{pid}.*.cov")):  # the agent makes its file for the first covered module
        _warn(f"no module process {pid} has loaded so far has its sources under {settings['DOTCOV_SOURCE_ROOT']}: "
              "only modules it loads later and whose sources are there will be measured (dotcov attach --log, "
              "then dotcov debug logs, says why each was skipped)")


@cli.command()
@_data_dir_option
@click.option("-m", "--show-missing", is_flag=True, default=None, help="Show the line numbers that were not run.")
@click.option("--skip-covered", is_flag=True, default=None, help="Leave out fully covered files.")
@click.option("--precision", type=click.IntRange(0, 10), default=None, help="Decimal places of percentages.")
@click.option("--sort", type=click.Choice(["name", "stmts", "miss", "cover", "-name", "-stmts", "-miss", "-cover"]))
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True)
@_report_options
def report(data_dir, show_missing, skip_covered, precision, sort, fmt, **filters):
    """Print a coverage summary table."""
    settings = _settings(data_dir, **filters)
    cfg = settings.cfg
    cov = _coverage(settings)
    try:
        cov.report(fmt=fmt, show_missing=cfg.show_missing if show_missing is None else show_missing,
                   skip_covered=cfg.skip_covered if skip_covered is None else skip_covered,
                   precision=cfg.precision if precision is None else precision, sort=sort or cfg.sort)
    except ValueError as e:
        _fail(str(e))
    _check_fail_under(cov, settings)


@cli.command()
@_data_dir_option
@_output_option("coverage.cobertura.xml", "the Cobertura XML")
@_report_options
def xml(data_dir, output: Path, **filters):
    """Write a Cobertura XML report."""
    _file_report(data_dir, output, filters, lambda cov, out: cov.xml_report(out), "Cobertura XML")


@cli.command()
@_data_dir_option
@click.option("-d", "--directory", type=click.Path(file_okay=False, path_type=Path), default="htmlcov",
              show_default=True, help="Where to write the HTML report.")
@click.option("--title", default="Coverage report", show_default=True, help="The report's title.")
@click.option("--precision", type=click.IntRange(0, 10), default=None, help="Decimal places of percentages.")
@click.option("--show-contexts", is_flag=True, help="Show which tests ran each line (dotcov run --contexts test).")
@click.option("--history", "history_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep a record of each run in this directory and chart coverage over time on the index "
              "(also [html] history in dotcov.toml).")
@_report_options
def html(data_dir, directory: Path, title: str, precision, show_contexts: bool, history_dir, **filters):
    """Write the HTML report: an index and a page per source file."""
    from dotcov.api import CoverageError

    settings = _settings(data_dir, show_contexts=show_contexts, **filters)
    cov = _coverage(settings)
    try:
        index = cov.html_report(directory, title=title, show_contexts=show_contexts,
                                precision=settings.cfg.precision if precision is None else precision,
                                history=history_dir or settings.cfg.html_history,
                                warn=lambda w: click.echo(f"dotcov: warning: {w}", err=True))
    except CoverageError as e:
        _fail(str(e))
    click.echo(f"Wrote HTML report to {index}")
    _check_fail_under(cov, settings)


@cli.command()
@_data_dir_option
@_output_option("lcov.info", "the lcov tracefile")
@_report_options
def lcov(data_dir, output: Path, **filters):
    """Write an lcov tracefile (genhtml, Codecov, Coveralls)."""
    _file_report(data_dir, output, filters, lambda cov, out: cov.lcov_report(out), "lcov")


@cli.command(name="json")
@_data_dir_option
@_output_option("coverage.json", "the JSON report")
@click.option("--show-contexts", is_flag=True,
              help="Add to each file the tests that ran each line (dotcov run --contexts test).")
@_report_options
def json_command(data_dir, output: Path, show_contexts: bool, **filters):
    """Write the JSON report (schema: docs/json-format.md)."""
    _file_report(data_dir, output, filters, lambda cov, out: cov.json_report(out, show_contexts=show_contexts),
                 "JSON", show_contexts)


@cli.command()
@_data_dir_option
@_output_option("coverage.opencover.xml", "OpenCover XML")
@_report_options
def opencover(data_dir, output: Path, **filters):
    """Write OpenCover XML (SonarQube, ReportGenerator)."""
    _file_report(data_dir, output, filters, lambda cov, out: cov.opencover_report(out), "OpenCover XML")


@cli.command()
@_data_dir_option
@_output_option("coverage.svg", "the SVG badge")
@click.option("--precision", type=click.IntRange(0, 10), default=None, help="Decimal places of the percentage.")
@_report_options
def badge(data_dir, output: Path, precision, **filters):
    """Write an SVG badge of the total line coverage, coloured by threshold (docs/reports.md)."""
    digits = _config().precision if precision is None else precision
    _file_report(data_dir, output, filters, lambda cov, out: cov.badge(out, precision=digits), "coverage badge")


def _git_changes(base: str | None, exclude_untracked: bool):
    """(repository root, resolved base, changed lines, untracked files: none with `exclude_untracked`) for
    `dotcov diff` and `dotcov impacted`; exits on git errors."""
    from dotcov.data.gitdiff import GitError, changed_lines, repository_root, resolve_base, untracked_files

    try:
        root = repository_root(Path.cwd())
        rev = resolve_base(root, base)
        return root, rev, changed_lines(root, rev.commit), [] if exclude_untracked else untracked_files(root)
    except GitError as e:
        _fail(str(e))


_exclude_untracked_option = click.option(
    "--exclude-untracked", is_flag=True,
    help="Leave out the files git does not track yet (by default each one the data knows counts as wholly changed).")


def _write_changes_report(cov, output: Path, text: str, stale) -> None:
    """Warns of changed files newer than the data, then writes a diff/impacted report to `output` ('-': stdout)."""
    from dotcov.api import CoverageError

    for path in stale:
        _warn(f"{path} changed after the coverage data was written; its line numbers may not match")
    try:
        cov.write_output(output, text.encode("utf-8"))
    except CoverageError as e:
        _fail(str(e))


@cli.command()
@_data_dir_option
@click.option("--base", metavar="REV", default=None,
              help="Git revision to compare with (default: the merge base of HEAD with origin/main, else main).")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json", "github"]), default="text",
              show_default=True, help="github: workflow-command annotations of the missed changed lines.")
@click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), default="-",
              help="Where to write the report (default standard output).")
@_exclude_untracked_option
@_report_options
def diff(data_dir, base, fmt, output: Path, exclude_untracked: bool, fail_under, fail_under_type, fail_under_scope,
         **filters):
    """Coverage of the statement lines added or changed since a git revision (working tree and files git does not
    track yet included).

    --fail-under applies to the changed lines. Schema and definitions: docs/reports.md."""
    from dotcov.reports.diff_coverage import RENDERERS, compute, statement_lines

    if fail_under_type or fail_under_scope:
        _fail("--fail-under-type and --fail-under-scope do not apply to 'dotcov diff'; "
              "its --fail-under is the coverage of the changed lines")
    root, rev, changed, untracked = _git_changes(base, exclude_untracked)
    settings = _settings(data_dir, fail_under=None, fail_under_type=(), fail_under_scope=None, **filters)
    cov = _coverage(settings)
    result = cov.result()
    report = compute(statement_lines(result), root, changed, rev, data_time=result.timestamp, untracked=untracked)
    _write_changes_report(cov, output, RENDERERS[fmt](report), report.stale)
    if str(output) != "-":
        click.echo(f"Wrote diff coverage to {output}")
    if fail_under is not None and report.percent < fail_under:
        click.echo(f"dotcov: diff coverage {report.percent:.2f}% is below --fail-under={fail_under:g}", err=True)
        sys.exit(EXIT_FAIL_UNDER)


@cli.command()
@_data_dir_option
@click.option("--base", metavar="REV", default=None,
              help="Git revision to compare with (default: the merge base of HEAD with origin/main, else main).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "filter"]), default="text", show_default=True,
              help="filter: a 'dotnet test --filter' expression selecting the impacted tests (empty when none).")
@click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), default="-",
              help="Where to write the list (default standard output).")
@click.option("--fail-untested", is_flag=True,
              help="Exit with status 2 when a changed statement line was run by no recorded test.")
@_exclude_untracked_option
@_report_options
def impacted(data_dir, base, fmt, output: Path, fail_untested: bool, exclude_untracked: bool, fail_under,
             fail_under_type, fail_under_scope, **filters):
    """The tests that ran any statement line changed since a git revision (working tree and files git does not
    track yet included).

    Needs per-test contexts (dotcov run --contexts test). Definitions and formats: docs/reports.md."""
    from dotcov.analysis.contexts import NO_CONTEXTS
    from dotcov.reports.diff_coverage import untracked_note
    from dotcov.reports.impacted import RENDERERS, compute_impact

    if fail_under is not None or fail_under_type or fail_under_scope:
        _fail("--fail-under does not apply to 'dotcov impacted' (see --fail-untested)")
    root, rev, changed, untracked = _git_changes(base, exclude_untracked)
    settings = _settings(data_dir, fail_under=None, fail_under_type=(), fail_under_scope=None, show_contexts=True,
                         **filters)
    cov = _coverage(settings)
    if not cov.has_contexts():
        _fail(NO_CONTEXTS)
    analysis = cov.analysis()
    impact = compute_impact({f.path: f.contexts for f in analysis.files},
                            {f.path: set(f.lines) for f in analysis.files}, root, changed, rev,
                            data_time=analysis.timestamp, untracked=untracked)
    _write_changes_report(cov, output, RENDERERS[fmt](impact), impact.stale)
    if str(output) != "-":
        click.echo(f"Wrote {len(impact.tests)} impacted test(s) to {output}")
    if impact.untracked and fmt == "filter":
        _warn(untracked_note(impact.untracked))
    if impact.untested and fmt == "filter":
        _warn(f"{impact.untested_lines} changed statement line(s) were run by no recorded test "
              "(dotcov impacted without --format filter lists them)")
    if fail_untested and impact.untested:
        click.echo(f"dotcov: {impact.untested_lines} changed statement line(s) were run by no recorded test",
                   err=True)
        sys.exit(EXIT_FAIL_UNDER)


@cli.command()
@_data_dir_option
def combine(data_dir: Path):
    """Merge the data files of many processes into one, keeping hit counts."""
    from dotcov.data import datafiles as data

    data_dir = _resolve_data_dir(data_dir, _config())
    files = data.data_files(data_dir)
    if not files:
        _fail(f"no coverage data in {data_dir}")
    cov = data.combine(data_dir)
    for w in cov.warnings:
        click.echo(f"dotcov: warning: {w}", err=True)
    target = next((f for f in cov.files if f.name.startswith(data.COMBINED_PREFIX)), None)
    left = f"; left {len(cov.live)} still being written" if cov.live else ""
    if target is None:
        click.echo(f"Combined nothing{left}")
    else:
        click.echo(f"Combined {len(files) - len(cov.live)} data file(s) into {target}{left}")


@cli.command()
@_data_dir_option
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The snapshot's directory, new or empty (default DATA_DIR/snapshots/<UTC time>).")
@click.option("--ignore-errors", is_flag=True, default=False,
              help="Write what could be read when a data file was cut short or corrupt.")
def snapshot(data_dir: Path, output: Path | None, ignore_errors: bool):
    """Copy the coverage of running processes, without stopping them, into a data directory of its own.

    Every data file of DATA_DIR (those still being written too) is read as it is now and merged into one file in
    OUTPUT, which every report command then reads: dotcov report --data-dir OUTPUT. The processes keep counting;
    a later snapshot includes what they ran since.
    """
    from dotcov.data import datafiles as data

    data_dir = _resolve_data_dir(data_dir, _config())
    output = output if output is not None else data.snapshot_dir(data_dir)
    try:
        cov, target = data.snapshot(data_dir, output, ignore_errors=ignore_errors)
    except data.DataError as e:
        _fail(str(e))
    for w in cov.warnings:
        _warn(w)
    running = f" ({len(cov.live)} of running processes)" if cov.live else ""
    click.echo(f"Snapshot of {len(cov.files)} data file(s){running} written to {target}")
    click.echo(f"Report it with: dotcov report --data-dir {output}")


@cli.command()
@_data_dir_option
def erase(data_dir: Path):
    """Delete the collected coverage data."""
    from dotcov.data import datafiles as data

    n = data.erase(_resolve_data_dir(data_dir, _config()))
    click.echo(f"Erased {n} data file(s)")


from dotcov.cli.debug import debug  # noqa: E402

cli.add_command(debug)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(EXIT_ERROR)
    except click.ClickException as e:
        e.show()
        sys.exit(EXIT_ERROR)
    except SystemExit:
        raise
    sys.exit(0)
