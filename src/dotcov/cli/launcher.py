"""The `dotcov` command's entry point: `dotcov run` with plain arguments starts without click; everything else
goes to cli.py.

Importing click (and what it imports: inspect, typing, gettext) cost more CPU than everything else `dotcov run`
does around a short test run (docs/benchmarks.md, "The small suite's fixed cost"). So `dotcov run`'s arguments are
read here when they are plain options followed by the command, with the same result click's parser gives
(tests/test_launcher.py compares the two); anything else — help, a mistake, an unusual form — goes to click, which
then reports it exactly as before. The run itself is run_command.py's, shared with cli.py.
"""

from __future__ import annotations

import os
import stat
import sys

_FLAGS = {"--append": "append", "--include-tests": "include_tests", "--log": "log", "--no-report": "no_report",
          "--exact-counts": "exact_counts"}
_VALUES = {"--data-dir": "data_dir", "--contexts": "contexts"}


def parse_run(args: list[str]) -> tuple[dict, list[str]] | None:
    """(options, command) of `dotcov run ARGS` as cli.py's `run` reads them (its environment variable included),
    or None when click must read them: anything but known options before the command, a value click would
    refuse or that looks like an option, no command."""
    options = {"append": False, "include_tests": False, "log": False, "no_report": False, "data_dir": None,
               "contexts": None, "exact_counts": False}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        name, eq, value = arg.partition("=")
        if name in _FLAGS and not eq:
            options[_FLAGS[name]] = True
        elif name in _VALUES:
            if not eq:
                if i + 1 == len(args):
                    return None
                i += 1
                value = args[i]
            if not value or value.startswith("-"):
                return None
            options[_VALUES[name]] = value
        else:
            return None
        i += 1
    command = args[i:]
    if not command:
        return None
    if options["data_dir"] is None:
        options["data_dir"] = os.environ.get("DOTCOV_DATA_DIR") or None  # click ignores an empty variable
    if options["data_dir"] is not None and not _plain_directory_path(options["data_dir"]):
        return None
    if options["contexts"] is not None:
        from dotcov.cli.config import CONTEXT_KINDS

        if options["contexts"] not in CONTEXT_KINDS:
            return None  # click's path says which kinds there are
    return options, command


def _plain_directory_path(path: str) -> bool:
    """True when click.Path(file_okay=False) takes `path` without a word: it does not exist, or it is a readable
    directory."""
    try:
        st = os.stat(path)
    except OSError:
        return True
    return not stat.S_ISREG(st.st_mode) and os.access(path, os.R_OK)


def _fast_run(args: list[str]) -> int | None:
    """`dotcov run`'s exit status, or None when cli.py must handle these arguments."""
    parsed = parse_run(args)
    if parsed is None:
        return None
    options, command = parsed
    from pathlib import Path

    from dotcov.cli.config import ConfigError, load_config

    try:
        cfg = load_config()
    except ConfigError:
        return None  # cli.py reports it
    from dotcov.cli.run_command import run_command

    return run_command(command, cfg, data_dir=Path(options["data_dir"]) if options["data_dir"] else None,
                       append=options["append"], include_tests=options["include_tests"], log=options["log"],
                       contexts=options["contexts"], report=not options["no_report"],
                       exact_counts=options["exact_counts"])


def main() -> None:
    if sys.argv[1:2] == ["run"]:
        try:
            status = _fast_run(sys.argv[2:])
        except KeyboardInterrupt:  # as click's main reports it
            print("\nAborted.", file=sys.stderr)
            sys.exit(1)
        if status is not None:
            sys.exit(status)
    from dotcov.cli.commands import main as cli_main

    cli_main()
