"""`dotcov run` passes signals on to the command and waits for it (issue 28: services stop by SIGTERM or Ctrl-C): a
signal sent to dotcov alone is forwarded, once; a terminal's Ctrl-C reaches the command by itself, and dotcov notes
it and waits."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import termios
import time

import pytest

# The command: takes the signals it gets as they come (blocked, each taken at once by sigwaitinfo, so that a second
# copy is not merged with the first while pending), and 0.5 s after the first writes them down and exits 0.
CHILD = r"""
import pathlib, signal, sys
out = pathlib.Path(sys.argv[1])
wanted = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
signal.pthread_sigmask(signal.SIG_BLOCK, wanted)
(out.parent / "ready").write_text("")
got = [signal.sigtimedwait(wanted, 60)]
while info := signal.sigtimedwait(wanted, 0.5):  # a second copy would come meanwhile; dotcov waits for this
    got.append(info)
out.write_text(" ".join(signal.Signals(i.si_signo).name for i in got if i))
"""


def _start(tmp_path, **kw) -> subprocess.Popen:
    (tmp_path / "child.py").write_text(CHILD)
    argv = [sys.executable, "-m", "dotcov", "run", "--data-dir", str(tmp_path / "d"), "--", sys.executable,
            str(tmp_path / "child.py"), str(tmp_path / "got")]
    return subprocess.Popen(argv, cwd=tmp_path, start_new_session=True, **kw)


def _wait_ready(tmp_path, proc) -> None:
    deadline = time.monotonic() + 60
    while not (tmp_path / "ready").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the command did not start"
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_sent_to_dotcov_alone_reaches_the_command_once_and_dotcov_waits(tmp_path, sig):
    proc = _start(tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_ready(tmp_path, proc)
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # dotcov ended after the command wrote its answer, i.e. after the command's shutdown.
    assert (tmp_path / "got").read_text() == sig.name


def test_ctrl_c_from_a_terminal_stops_the_command_and_dotcov_waits_and_says_so(tmp_path):
    """The terminal sends SIGINT to its foreground process group, dotcov and the command alike: dotcov survives it,
    waits for the command's shutdown and says it was interrupted. (dotcov sends no second copy, _SigintWatch's
    rule; a second copy would mostly merge with the first while pending, so the command cannot be relied on to
    see it.)"""
    master, slave = os.openpty()

    def take_terminal():  # the new session's controlling terminal, its process group in the foreground
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        proc = _start(tmp_path, stdin=slave, stdout=slave, stderr=slave, preexec_fn=take_terminal)
    finally:
        os.close(slave)
    output = bytearray()
    try:
        _wait_ready(tmp_path, proc)
        os.write(master, termios.tcgetattr(master)[6][termios.VINTR])  # the terminal's Ctrl-C character
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                output += os.read(master, 4096)  # keep the terminal's buffer from filling
            except OSError:  # EIO: no process has the terminal open any more
                time.sleep(0.02)
        proc.wait(timeout=5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        os.close(master)
    text = output.decode(errors="replace")
    assert (tmp_path / "got").read_text() == "SIGINT", text
    assert "the command was interrupted (Ctrl-C) and exited with status 0" in text
