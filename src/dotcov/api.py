"""dotcov's Python API: load the data, analyse it once, write any report (as coverage.py's `Coverage`).

    from dotcov.api import Coverage

    cov = Coverage(data_dir=".dotcov")        # settings: dotcov.toml's, unless given
    cov.load()                                # raises CoverageError for no data or data that was cut short
    pc = cov.report()                         # the table on standard output; returns the total percent
    cov.xml_report("coverage.cobertura.xml")
    cov.html_report("htmlcov")
    cov.lcov_report("lcov.info"); cov.json_report("coverage.json"); cov.opencover_report("o.xml")
    failures = cov.check_fail_under({"line": 80})

Every report formats the same `Analysis` (`cov.analysis()`), computed once. `dotcov`'s command line
(cli/commands.py) is a thin layer over this class.
"""

from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Callable

from dotcov.analysis.numbers import Analysis
from dotcov.reports.output import write_atomic

__all__ = ["Coverage", "CoverageError", "DataLostError"]


@contextmanager
def _no_gc():
    """Building the model allocates millions of small objects and frees almost none: the cyclic
    collector's passes over them cost a cold `dotcov report` of one 700,000-statement assembly 19-36% of
    its wall time, 15-26% of its CPU (docs/benchmarks.md, "Speed mechanisms"). What was
    built is then frozen (moved out of the collector's generations, `gc.freeze`): the model lives as
    long as the report, and re-enabling the collector would otherwise walk all of it again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


class CoverageError(Exception):
    """Something the user must fix: no data, nothing reportable, an output that cannot be written."""


class DataLostError(CoverageError):
    """The data was cut short or corrupt: a report would understate what ran (see `ignore_errors`)."""

    def __init__(self, lost: list[str]):
        self.lost = lost
        super().__init__("coverage data was lost, so the report would be incomplete:\n  "
                         + "\n  ".join(lost)
                         + "\nrun the tests again, or pass --ignore-errors to report what was kept")


class Coverage:
    """Loads coverage data, analyses it once and writes reports.

    `data_dir`: the data files' directory. `source_root`: the directory paths are reported against
    (default: the current directory). `options`: a `results.ReportOptions` (filters, [paths],
    all_branches); default none. `ignore_errors`: report data that was cut short instead of raising
    `DataLostError`. `warn`: called with each warning (default: printed to standard error).
    `source_dirs`: directories searched for assemblies no test process loaded (besides the loaded
    assemblies' own directories); those the agent would have covered are reported at 0%, "not loaded".
    `include_tests`: test assemblies count as the agent's `--include-tests` makes them.
    `contexts`: patterns (comma-separated regular expressions, as `--contexts`) limiting the data to the
    tests whose name matches (analysis/contexts.py); a pattern that is not a regular expression, or data without
    per-test contexts, is a CoverageError when the data is first used.
    """

    def __init__(self, data_dir: str | Path = ".dotcov", *, source_root: str | Path | None = None,
                 options=None, ignore_errors: bool = False, warn: Callable[[str], None] | None = None,
                 version: str | None = None, source_dirs: list[str | Path] = (),
                 include_tests: bool = False, contexts: list[str] = ()) -> None:
        from dotcov import __version__

        self.data_dir = Path(data_dir).resolve()
        self.source_root = Path(source_root or Path.cwd())
        self.options = options
        self.ignore_errors = ignore_errors
        self.source_dirs = [Path(d) for d in source_dirs]  # where else to look for assemblies never loaded
        self.include_tests = include_tests
        self.contexts = list(contexts)
        self.version = version or __version__
        self._warn = warn or (lambda message: print(f"dotcov: warning: {message}", file=sys.stderr))
        self._data = None
        self._result = None
        self._analysis: Analysis | None = None
        self.problems: list[str] = []  # modules that could not be reported, and why
        self.lost: list[str] = []  # what was lost from damaged data

    # --- data ----------------------------------------------------------------------------

    def load(self) -> Coverage:
        """Reads the data files; raises CoverageError when there are none, DataLostError when some were
        cut short or corrupt (unless ignore_errors)."""
        from dotcov.data import datafiles as data

        if not data.data_files(self.data_dir):
            raise CoverageError(f"no coverage data in {self.data_dir}; run your tests with "
                                "'dotcov run -- dotnet test' first")
        files = data.data_files(self.data_dir)
        cov = data.load(self.data_dir)
        for w in cov.warnings:
            self._warn(w)
        # (A file a combined file already holds is skipped, not lost: data.py.)
        self.lost = [f"{p}: could not be read" for p in files if p not in cov.files and p not in cov.already_merged]
        self.lost += lost_data(cov, self.data_dir)
        if self.lost and not self.ignore_errors:
            raise DataLostError(self.lost)
        self._data = cov
        self._result = self._analysis = None
        return self

    def use_data(self, cov) -> Coverage:
        """Reports `cov` (a data.CoverageData already read, as `dotcov run` has it)."""
        self._data = cov
        self._result = self._analysis = None
        return self

    def result(self):
        """The line and branch model (`model.CoverageResult`) of the data."""
        if self._result is None:
            from dotcov.analysis import results
            from dotcov.data.datafiles import CACHE_DIR

            if self._data is None:
                self.load()
            from dotcov.analysis.unloaded import never_loaded

            with _no_gc():
                unloaded = never_loaded(self._data, self.source_root, self.source_dirs,
                                        include_tests=self.include_tests)
                result, problems = results.build(self._limited_data(), self.source_root, self.options,
                                                 not_loaded=unloaded, cache_dir=self.data_dir / CACHE_DIR)
            for p in problems:
                self._warn(p)
            self.problems = problems
            if not result.assemblies:
                raise CoverageError("the data holds no module that can be reported (see the warnings above)")
            self._result = result
        return self._result

    def _limited_data(self):
        """The data, limited to the tests `contexts` matches when it is given."""
        if not self.contexts:
            return self._data
        from dotcov.analysis.contexts import ContextError, limit_data, parse_patterns

        try:
            limited = limit_data(self._data, parse_patterns(self.contexts))
        except ContextError as e:
            raise CoverageError(str(e)) from e
        if not any(m.contexts for m in limited.modules.values()):  # a typo would otherwise read as untested code
            recorded = len({n for m in self._data.modules.values() for n in m.contexts})
            self._warn(f"--contexts {','.join(self.contexts)}: no recorded test matches (of {recorded}); "
                       "every line counts as not run")
        return limited

    def _with_contexts(self) -> None:
        """Makes the analysis carry each line's tests (computed again if it was made without)."""
        import dataclasses

        from dotcov.analysis.results import ReportOptions

        options = self.options or ReportOptions()
        if not options.contexts:
            self.options = dataclasses.replace(options, contexts=True)
            self._result = self._analysis = None
        from dotcov.analysis.contexts import NO_CONTEXTS

        if not self.has_contexts():
            self._warn(f"--show-contexts: {NO_CONTEXTS}")

    def has_contexts(self) -> bool:
        """Whether the data holds per-test contexts (`dotcov run --contexts test`)."""
        from dotcov.analysis.contexts import has_contexts

        if self._data is None:
            self.load()
        return has_contexts(self._data)

    def analysis(self) -> Analysis:
        """The analysis every report formats, computed once."""
        if self._analysis is None:
            result = self.result()
            with _no_gc():
                self._analysis = Analysis.of(result)
            from dotcov.data.datafiles import attach_notes

            self._analysis.warnings.extend(f"data lost: {x}" for x in self.lost)
            if self._data is not None:  # (a result given without data: no processes to speak of)
                self._analysis.warnings.extend(attach_notes(self._data))
            for w in self._analysis.warnings:
                self._warn(w)
        return self._analysis

    def total_percent(self) -> float:
        return self.analysis().totals.percent

    # --- reports -------------------------------------------------------------------------

    def report(self, file: IO[str] | None = None, *, fmt: str = "text", show_missing: bool = False,
               skip_covered: bool = False, skip_empty: bool = False, precision: int = 0,
               sort: str | None = None, color: bool | None = None) -> float:
        """Writes the summary table (fmt "text" or "markdown") to `file` (default standard output);
        returns the total line coverage in percent."""
        from dotcov.reports.text import print_table, render_markdown

        kwargs = dict(show_missing=show_missing, skip_covered=skip_covered, skip_empty=skip_empty,
                      precision=precision, sort=sort, relative_to=str(self.source_root))
        out = file or sys.stdout
        if fmt == "markdown":
            out.write(render_markdown(self.analysis(), **kwargs) + "\n")
        else:
            print_table(self.analysis(), out, color=color, **kwargs)
        return self.total_percent()

    def write_output(self, outfile: str | Path, payload: bytes) -> None:
        """Writes a report's bytes atomically to `outfile` ('-' is standard output)."""
        if str(outfile) == "-":
            sys.stdout.flush()
            sys.stdout.buffer.write(payload)
            sys.stdout.buffer.flush()
            return
        try:
            write_atomic(outfile, payload)
        except OSError as e:
            raise CoverageError(f"cannot write {outfile}: {e.strerror or e}") from e

    def _write_report(self, write, outfile: str | Path, **kwargs) -> float:
        """Runs a writer module's own `write_*` (the function its tests use) on the analysis."""
        analysis = self.analysis()
        try:
            with _no_gc():
                write(analysis, outfile, **kwargs)
        except OSError as e:
            raise CoverageError(f"cannot write {outfile}: {e.strerror or e}") from e
        return self.total_percent()

    def xml_report(self, outfile: str | Path = "coverage.cobertura.xml") -> float:
        """Cobertura XML to `outfile` ('-': standard output); returns the total line coverage in percent."""
        from dotcov.reports.cobertura import write_cobertura

        return self._write_report(write_cobertura, outfile, version=self.version)

    def lcov_report(self, outfile: str | Path = "lcov.info") -> float:
        from dotcov.reports.lcov import write_lcov

        return self._write_report(write_lcov, outfile)

    def json_report(self, outfile: str | Path = "coverage.json", *, show_contexts: bool = False) -> float:
        """`show_contexts`: each file object gains `contexts` (line -> the tests that ran it)."""
        from dotcov.reports.json_report import write_json

        if show_contexts:
            self._with_contexts()
        return self._write_report(write_json, outfile, version=self.version, relative_to=str(self.source_root),
                                  show_contexts=show_contexts)

    def opencover_report(self, outfile: str | Path = "coverage.opencover.xml") -> float:
        from dotcov.reports.opencover import write_opencover

        return self._write_report(write_opencover, outfile, version=self.version)

    def badge(self, outfile: str | Path = "coverage.svg", *, precision: int = 0) -> float:
        """Writes the SVG coverage badge (the total line coverage, coloured by threshold)."""
        from dotcov.reports.badge import badge_svg

        self.write_output(outfile, badge_svg(self.analysis(), precision=precision))
        return self.total_percent()

    def html_report(self, directory: str | Path = "htmlcov", *, title: str = "Coverage report",
                    precision: int = 0, show_contexts: bool = False, history: str | Path | None = None,
                    warn=None) -> Path:
        """Writes the HTML report; returns the path of its index.html. `show_contexts`: each line run by
        tests lists them. `history`: a directory keeping a record of each run (reports/history.py); `warn(message)`
        hears of history records that cannot be read."""
        from dotcov.html.report import write_html
        from dotcov.html.directory import ReportDirectoryError

        history_error = ()  # (catches nothing) without a history, whose module then is never imported
        if history is not None:
            from dotcov.reports.history import HistoryError as history_error
        if show_contexts:
            self._with_contexts()
        analysis = self.analysis()
        try:
            with _no_gc():
                return write_html(analysis, directory, title=title, version=self.version,
                                  timestamp=analysis.timestamp, relative_to=str(self.source_root),
                                  precision=precision, show_contexts=show_contexts, history=history,
                                  warn=warn)
        except history_error as e:
            raise CoverageError(str(e)) from e
        except OSError as e:
            raise CoverageError(f"cannot write the HTML report to {directory}: {e.strerror or e}") from e
        except ReportDirectoryError as e:
            raise CoverageError(str(e)) from e

    def check_fail_under(self, minimums: dict[str, float], scope: str = "total") -> list[str]:
        """Messages for every --fail-under minimum not met (empty when all are)."""
        from dotcov.analysis.thresholds import check

        return check(self.analysis(), minimums, scope)


def lost_data(cov, data_dir: Path) -> list[str]:
    """What was lost: files read only in part now, damaged files kept by an earlier combine, and
    records the agent could not write (a data file that could not grow)."""
    from dotcov.data.datafiles import damaged_files

    lost = [f"{p}: read only in part" for p in cov.damaged]
    lost += [f"{p}: kept by combine because it was damaged; what it held past the damage is missing from the "
             "report (the part before it was merged)" for p in damaged_files(Path(data_dir))]
    if cov.lost_records:  # the agent could not grow a data file (full disk, quota): see data/datafiles.py
        from dotcov.data.datafiles import lost_records_message

        lost.append(lost_records_message(cov.lost_records, cov.lost_errno))
    return lost
