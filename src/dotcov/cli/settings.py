"""A command's settings from its flags and dotcov.toml, without click: flags win over dotcov.toml over defaults.

commands.py's commands, run_command.py and the benchmarks all read them here, so a report made by any of them has the
same options, hence the same cached plans (analysis/plans/cache.py keys plans by them). Nothing heavy is imported
before it is needed.
"""

from __future__ import annotations

from pathlib import Path

EXIT_ERROR = 1  # an error dotcov reports (bad input, no data): commands.py's module docstring lists the exit codes
DEFAULT_DATA_DIR = ".dotcov"


def data_dir(flag: str | Path | None, cfg) -> Path:
    """The data directory, absolute: --data-dir (or DOTCOV_DATA_DIR, read by the caller as click reads it), else
    dotcov.toml's run.data_dir, else .dotcov."""
    return Path(flag or cfg.data_dir or DEFAULT_DATA_DIR).resolve()


def report_options(cfg, *, include=(), exclude=(), exclude_by_attribute=(), exclude_by_file=(),
                   skip_auto_properties: bool | None = None, all_branches: bool | None = None):
    """The results.ReportOptions of a report: --include / --exclude replace dotcov.toml's lists, the
    --exclude-by-* flags add to them, a switch left unset (None) takes dotcov.toml's. Raises
    filters.FilterError for a bad filter."""
    from dotcov.analysis.filters import Filters
    from dotcov.analysis.results import ReportOptions

    filters = Filters.build(include or cfg.include, exclude or cfg.exclude,
                            [*cfg.exclude_by_attribute, *exclude_by_attribute],
                            [*cfg.exclude_by_file, *exclude_by_file])
    return ReportOptions(
        filters=filters,
        skip_auto_properties=cfg.skip_auto_properties if skip_auto_properties is None else skip_auto_properties,
        all_branches=cfg.all_branches if all_branches is None else all_branches,
        paths=cfg.paths,
    )
