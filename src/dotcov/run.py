"""`dotcov run`: start a command with the agent in every .NET process it starts."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from dotcov import agent

# Signals sent to dotcov alone are passed on to the command. SIGINT from a
# terminal reaches the whole process group already, so it is only ignored here.
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


class RunError(Exception):
    pass


def check_data_dir(data_dir: Path) -> None:
    """The data directory must exist and be writable before the command starts."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"cannot create the data directory {data_dir}: {e.strerror}") from e
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise RunError(f"the data directory {data_dir} is not writable")


def run_command(cmd: list[str], data_dir: Path, *, source_root: Path, include_tests: bool = False,
                log: bool = False) -> int:
    """Runs `cmd` and returns its status as a shell reports it (128+N for signal N)."""
    env = dict(os.environ)
    other = agent.other_profiler(env)
    if other:
        raise RunError(
            f"another CLR profiler is configured: {other}. The runtime loads one profiler per process; "
            "unset CORECLR_ENABLE_PROFILING/CORECLR_PROFILER to measure coverage with dotcov."
        )
    env.update(agent.profiler_environment(data_dir, source_root, include_tests=include_tests, log=log))
    try:
        child = subprocess.Popen(cmd, env=env)
    except FileNotFoundError as e:
        raise RunError(f"command not found: {cmd[0]}") from e
    except PermissionError as e:
        raise RunError(f"cannot execute {cmd[0]}: permission denied") from e

    previous = {}

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in FORWARDED:
        previous[sig] = signal.signal(sig, forward)
    try:
        status = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - status if status < 0 else status
