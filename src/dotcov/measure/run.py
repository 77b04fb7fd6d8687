"""`dotcov run`: start a command with the agent in every .NET process it starts.

Everything that can be checked is checked by `prepare` before the caller
erases earlier data: a typo must never cost the user their coverage data.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from dotcov.measure import agent
from dotcov.measure import coexistence

# Signals sent to dotcov are passed on to the command. SIGINT from a terminal reaches the whole process group
# already, so only a SIGINT some process sent is (_SigintWatch).
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)

# What a POSIX shell exits with when it cannot run a command.
EXIT_NOT_FOUND = 127
EXIT_NOT_EXECUTABLE = 126


class RunError(Exception):
    """dotcov cannot start the command; `status` is the exit status to end with."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass
class Prepared:
    argv: list[str]
    executable: str  # the file that will be executed, found as a shell finds it
    env: dict[str, str]


def check_data_dir(data_dir: Path) -> None:
    """The data directory must exist and be writable before the command starts."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"cannot create the data directory {data_dir}: {e.strerror}") from e
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise RunError(f"the data directory {data_dir} is not writable")


def _executable(path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and os.access(path, os.X_OK)


def resolve_command(name: str, path_variable: str | None) -> str:
    """The file a shell would execute for `name`, or RunError with the shell's status (127, 126).

    As bash does: a name with a slash is used as is; otherwise the first executable regular file
    along PATH (an empty entry is the current directory); when only non-executable candidates exist,
    the first of them, which then fails with "permission denied".
    """
    if not name:
        raise RunError("command not found: '' (empty command)", EXIT_NOT_FOUND)
    if "/" in name:
        if not os.path.lexists(name):
            raise RunError(f"command not found: {name}: no such file", EXIT_NOT_FOUND)
        if os.path.isdir(name):
            raise RunError(f"cannot execute {name}: it is a directory", EXIT_NOT_EXECUTABLE)
        if not _executable(name):
            raise RunError(f"cannot execute {name}: permission denied (not an executable file)",
                           EXIT_NOT_EXECUTABLE)
        return name
    first_other = None
    for entry in (path_variable if path_variable is not None else os.defpath).split(os.pathsep):
        candidate = os.path.join(entry or ".", name)
        if _executable(candidate):
            return candidate
        if first_other is None and os.path.isfile(candidate):
            first_other = candidate
    if first_other:
        raise RunError(f"cannot execute {name}: {first_other} is not executable (permission denied)",
                       EXIT_NOT_EXECUTABLE)
    raise RunError(f"command not found: {name} (searched PATH)", EXIT_NOT_FOUND)


def sources_root(start: Path) -> Path:
    """The directory whose sources `dotcov run` covers: the enclosing git work tree's root (so a run started in a
    test project's folder still covers the library beside it, as coverlet does), else `start` itself."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():  # a directory, or a file in worktrees and submodules
            return d
    return start


def prepare(cmd: list[str], data_dir: Path, *, source_root: Path, include_tests: bool = False,
            log: bool = False) -> Prepared:
    """Checks everything needed to start `cmd` under the agent; touches no data."""
    env = dict(os.environ)
    other = agent.other_profiler(env)
    if other:
        raise RunError(
            f"another CLR profiler is configured: {other}. The runtime loads one profiler per process; "
            "unset CORECLR_ENABLE_PROFILING/CORECLR_PROFILER to measure coverage with dotcov."
        )
    other_tool = coexistence.in_command_line(list(cmd), Path.cwd())
    if other_tool:
        raise RunError(f"another coverage tool is turned on: {other_tool}. {coexistence.ADVICE}")
    check_data_dir(data_dir)
    env.pop(CONTEXTS_VARIABLE, None)  # off unless with_contexts asks: contexts cost time
    env.update(agent.profiler_environment(data_dir, source_root, include_tests=include_tests, log=log))
    executable = resolve_command(cmd[0], env.get("PATH"))
    return Prepared(list(cmd), executable, env)


# The agent records per-test contexts when this is "test" (docs/architecture.md, "Per-test contexts").
CONTEXTS_VARIABLE = "DOTCOV_CONTEXTS"


def with_contexts(p: Prepared, contexts: str | None) -> Prepared:
    """`p`, its agent recording per-test contexts of kind `contexts` (checked by config.check_contexts) if given."""
    if contexts:
        p.env[CONTEXTS_VARIABLE] = contexts
    return p


# The agent makes every increment atomic when this is "1" (docs/architecture.md, "The increment is not atomic").
EXACT_COUNTS_VARIABLE = "DOTCOV_EXACT_COUNTS"


def with_exact_counts(p: Prepared, exact: bool) -> Prepared:
    """`p`, its agent counting with atomic increments if `exact` (else as the environment says)."""
    if exact:
        p.env[EXACT_COUNTS_VARIABLE] = "1"
    return p


def start(p: Prepared, while_running=None, signals: list[int] | None = None) -> int:
    """Runs the prepared command and returns its status as a shell reports it (128+N for signal N).
    `while_running()`, if given, is called once the command has started, before waiting for it: dotcov's own
    work that needs nothing from the command overlaps its start instead of adding to the run's time.
    `signals`, if given, receives each signal dotcov got while the command ran (Ctrl-C: SIGINT).
    Signals sent to dotcov alone reach the command (FORWARDED, and SIGINT not from a terminal, _SigintWatch);
    dotcov waits for the command however it ends."""
    previous = {}
    noted = signals if signals is not None else []
    child: subprocess.Popen | None = None
    early: list[int] = []  # signals that came before the command started: passed on once it has

    def forward(signum, _frame):
        noted.append(signum)
        if child is None:
            early.append(signum)
            return
        _send(child, signum)

    # Every handler is in place before the command starts, so no signal in between ends dotcov and leaves the
    # command running. Ctrl-C from a terminal reaches the command as it reaches dotcov: dotcov only notes it.
    # (A handler, unlike SIG_IGN, is not inherited.)
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda signum, _frame: noted.append(signum))
    for sig in FORWARDED:
        previous[sig] = signal.signal(sig, forward)
    watch = None
    try:
        try:
            child = subprocess.Popen(p.argv, executable=p.executable, env=p.env)
        except FileNotFoundError as e:  # removed since prepare(), or a missing #! interpreter
            raise RunError(f"command not found: {p.argv[0]}: {e.strerror}", EXIT_NOT_FOUND) from e
        except OSError as e:
            raise RunError(f"cannot execute {p.argv[0]}: {e.strerror}", EXIT_NOT_EXECUTABLE) from e
        for signum in early:
            _send(child, signum)
        watch = _SigintWatch.start(child, noted)
        if while_running is not None:
            while_running()
        status = child.wait()
    finally:
        if watch is not None:
            watch.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - status if status < 0 else status


def _send(child: subprocess.Popen, signum: int) -> None:
    try:
        child.send_signal(signum)
    except OSError:  # it has just ended
        pass


# si_code of a signal the kernel sends: a terminal's Ctrl-C (to the whole foreground process group, the command
# included); kill(2) and sigqueue(3) give SI_USER and SI_QUEUE.
SI_KERNEL = 0x80


class _SigintWatch:
    """Passes on SIGINT sent to dotcov by a process (`kill -INT`, `docker kill -s INT`): the command, in dotcov's
    process group, gets a terminal's Ctrl-C by itself, and only the signal's sender tells the two apart. SIGINT is
    blocked in this thread (the command has started, and kept the mask it had) and taken by a thread of its own,
    which sees the sender (sigwaitinfo); where that cannot be set up, SIGINT is only noted, as before."""

    def __init__(self, child: subprocess.Popen, noted: list[int]):
        self.child, self.noted, self.done = child, noted, False
        self.thread = threading.Thread(target=self._run, name="dotcov-sigint", daemon=True)

    @classmethod
    def start(cls, child: subprocess.Popen, noted: list[int]) -> "_SigintWatch | None":
        watch = cls(child, noted)
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        except (AttributeError, OSError, ValueError):
            return None
        try:
            watch.thread.start()  # inherits the blocked SIGINT
        except RuntimeError:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            return None
        return watch

    def _run(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # theirs is the main thread's handler, never here
        while True:  # ends on stop()'s wake-up only, so that stop() signals a live thread
            info = signal.sigwaitinfo({signal.SIGINT})
            if self.done:
                return
            self.noted.append(signal.SIGINT)
            if info.si_code != SI_KERNEL:
                _send(self.child, signal.SIGINT)

    def stop(self) -> None:
        self.done = True
        signal.pthread_kill(self.thread.ident, signal.SIGINT)  # to this thread alone: wakes sigwaitinfo
        self.thread.join()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a SIGINT still pending goes to the handler
