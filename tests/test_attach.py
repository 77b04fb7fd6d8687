"""`dotcov attach`'s diagnostics IPC client, byte for byte, against a fake runtime on a Unix socket; and its
refusals that need no .NET process (tests/e2e/test_attach.py attaches to real ones)."""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from dotcov.measure import agent
from dotcov.measure import attach as attach_mod
from dotcov.measure import diagnostics_ipc as ipc

CLSID = "{066BACCC-BAC2-4894-ACF1-83D37AEAB145}"


def test_attach_profiler_message_bytes():
    got = ipc.attach_profiler_message(CLSID, "/a/é.so", b"k=v\n", 5000)
    path = "/a/é.so\0".encode("utf-16-le")
    payload = (
        (5000).to_bytes(4, "little")
        # The GUID as it lies in memory: Data1, Data2, Data3 little-endian, then Data4's 8 bytes.
        + bytes([0xCC, 0xAC, 0x6B, 0x06, 0xC2, 0xBA, 0x94, 0x48, 0xAC, 0xF1, 0x83, 0xD3, 0x7A, 0xEA, 0xB1, 0x45])
        + (8).to_bytes(4, "little") + path  # 7 characters and the NUL, in UTF-16 code units
        + (4).to_bytes(4, "little") + b"k=v\n"
    )
    size = 20 + len(payload)
    assert got == b"DOTNET_IPC_V1\0" + size.to_bytes(2, "little") + b"\x03\x01" + b"\0\0" + payload


def test_a_message_larger_than_the_protocol_allows_is_refused():
    with pytest.raises(ipc.IpcError, match="65535"):
        ipc.attach_profiler_message(CLSID, "/x", b"x" * 70000, 1000)


class FakeRuntime:
    """Listens on `path`, reads one message and answers with `reply` (bytes), keeping what it read."""

    def __init__(self, path: str, reply: bytes):
        self.received = b""
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.reply = reply
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.server.accept()
        with conn:
            header = conn.recv(20, socket.MSG_WAITALL)
            size = struct.unpack_from("<H", header, 14)[0]
            self.received = header + conn.recv(size - 20, socket.MSG_WAITALL)
            conn.sendall(self.reply)

    def close(self):
        self.thread.join(5)
        self.server.close()


def reply(command_id: int, hresult: int) -> bytes:
    return b"DOTNET_IPC_V1\0" + (24).to_bytes(2, "little") + bytes([0xFF, command_id]) + b"\0\0" + \
        hresult.to_bytes(4, "little")


@pytest.fixture
def short_dir():
    d = tempfile.mkdtemp(prefix="att", dir="/tmp")  # a Unix socket path has at most 107 bytes
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("answer, expected", [
    (reply(0x00, 0), (True, 0)),
    (reply(0xFF, 0x8013136A), (False, 0x8013136A)),
])
def test_attach_profiler_sends_the_message_and_reads_the_reply(short_dir, answer, expected):
    path = str(short_dir / "s")
    fake = FakeRuntime(path, answer)
    got = ipc.attach_profiler(path, CLSID, "/p/libx.so", b"data", timeout_ms=777)
    fake.close()
    assert got == expected
    assert fake.received == ipc.attach_profiler_message(CLSID, "/p/libx.so", b"data", 777)


@pytest.mark.parametrize("answer, message", [
    (b"", "closed the connection after 0 of 20"),
    (reply(0x00, 0)[:22], "closed the connection after 2 of 4"),
    (b"NOT_THE_MAGIC\0" + reply(0x00, 0)[14:], "not a diagnostics IPC message"),
    (reply(0x00, 0).replace(b"\xff\x00", b"\x03\x00", 1), "unexpected reply"),
])
def test_a_bad_reply_is_an_ipc_error(short_dir, answer, message):
    path = str(short_dir / "s")
    fake = FakeRuntime(path, answer)
    with pytest.raises(ipc.IpcError, match=message):
        ipc.attach_profiler(path, CLSID, "/p/libx.so", b"")
    fake.close()


def test_client_data_is_the_header_then_the_dotcov_pairs():
    data = attach_mod.client_data({"DOTCOV_SOURCE_ROOT": "/src", "DOTCOV_DATA_DIR": "/d", "CORECLR_PROFILER": "x"})
    assert data == b"dotcov-attach 1\nDOTCOV_DATA_DIR=/d\nDOTCOV_SOURCE_ROOT=/src\n"
    with pytest.raises(attach_mod.AttachError, match="newline"):
        attach_mod.client_data({"DOTCOV_DATA_DIR": "/a\nb"})


def test_client_data_carries_what_dotcov_run_gives_the_agent(tmp_path):
    settings = agent.profiler_environment(tmp_path / "d", tmp_path, include_tests=True, log=True)
    lines = attach_mod.client_data(settings).decode().splitlines()
    assert lines[0] == attach_mod.CLIENT_DATA_HEADER
    assert dict(line.split("=", 1) for line in lines[1:]) == {k: v for k, v in settings.items()
                                                            if k.startswith("DOTCOV_")}


def test_exact_counts_reach_the_agent_as_under_dotcov_run(tmp_path):
    from dotcov.measure import run

    exact = attach_mod.agent_settings(tmp_path, tmp_path, include_tests=False, log=False, exact_counts=True)
    plain = attach_mod.agent_settings(tmp_path, tmp_path, include_tests=False, log=False)
    prepared = run.with_exact_counts(run.Prepared(argv=[], executable="", env={}), True)
    assert {k: v for k, v in exact.items() if k not in plain} == prepared.env == {"DOTCOV_EXACT_COUNTS": "1"}


def test_disabling_switches_are_recognised():
    assert attach_mod._disabled_by({"DOTNET_EnableDiagnostics": "0"}) == "DOTNET_EnableDiagnostics=0"
    assert attach_mod._disabled_by({"COMPlus_enablediagnostics_profiler": "0"})
    assert attach_mod._disabled_by({"DOTNET_EnableDiagnostics": "1"}) is None
    assert attach_mod._disabled_by({"DOTNET_EnableDiagnosticsX": "0"}) is None


def test_no_such_process():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    with pytest.raises(attach_mod.AttachError) as e:
        attach_mod.attach(child.pid, {})
    assert e.value.status == attach_mod.EXIT_NO_PROCESS and f"no process {child.pid}" in str(e.value)


def test_not_a_dotnet_process():
    with pytest.raises(attach_mod.AttachError) as e:
        attach_mod.attach(os.getpid(), {})  # this Python process: no libcoreclr.so mapped
    assert e.value.status == attach_mod.EXIT_NOT_DOTNET and "not a .NET process" in str(e.value)


@pytest.fixture
def fake_dotnet(monkeypatch, short_dir):
    """This process, looking like a .NET process whose TMPDIR is `short_dir`, with `maps` as given."""
    state = {"maps": b"7f00-7f01 r-xp 0 0:0 0 /usr/share/dotnet/shared/libcoreclr.so\n",
             "environ": f"TMPDIR={short_dir}\0".encode()}

    def read_proc(pid, name):
        return state[name]

    monkeypatch.setattr(attach_mod, "_read_proc", read_proc)
    return state


def test_no_socket_with_diagnostics_disabled(fake_dotnet, short_dir):
    fake_dotnet["environ"] += b"DOTNET_EnableDiagnostics=0\0"
    with pytest.raises(attach_mod.AttachError) as e:
        attach_mod.attach(os.getpid(), {})
    assert e.value.status == attach_mod.EXIT_DIAGNOSTICS_DISABLED and "DOTNET_EnableDiagnostics=0" in str(e.value)


@pytest.mark.parametrize("answer, maps, status, message", [
    (reply(0xFF, 0x8013136A), b"", attach_mod.EXIT_OTHER_PROFILER, "another profiler is loaded"),
    (reply(0xFF, 0x8013136A), b"1-2 rw-s 0 0:0 0 /d/dotcov.77.0a1b2c3d.cov\n", attach_mod.EXIT_ALREADY_ATTACHED,
     "dotcov's agent is already loaded in process {pid} (started under `dotcov run`, or attached before); its data "
     "goes to /d"),
    # The agent is in but has covered no module yet, so it has no data file: still dotcov's.
    (reply(0xFF, 0x8013136A), b"1-2 r-xp 0 0:0 0 /opt/dotcov/libdotcov_agent.so\n", attach_mod.EXIT_ALREADY_ATTACHED,
     "dotcov's agent is already loaded in process {pid} (started under `dotcov run`, or attached before)"),
    # Mapped by an earlier attempt the runtime refused, while the environment's profiler holds the slot.
    (reply(0xFF, 0x8013136A), b"1-2 r-xp 0 0:0 0 /opt/dotcov/libdotcov_agent.so\n", attach_mod.EXIT_OTHER_PROFILER,
     "another profiler is loaded in process {pid}: CORECLR_PROFILER={{1}}"),
    (reply(0xFF, 0x80004005), b"", 1, "refused the agent: HRESULT 0x80004005"),
])
def test_refusals_by_the_runtime(fake_dotnet, short_dir, answer, maps, status, message):
    fake = FakeRuntime(str(short_dir / f"dotnet-diagnostic-{os.getpid()}-12345-socket"), answer)
    fake_dotnet["maps"] += maps
    if status == attach_mod.EXIT_OTHER_PROFILER and maps:
        fake_dotnet["environ"] += b"CORECLR_ENABLE_PROFILING=1\0CORECLR_PROFILER={1}\0"
    with pytest.raises(attach_mod.AttachError) as e:
        attach_mod.attach(os.getpid(), {"DOTCOV_DATA_DIR": "/d"})
    fake.close()
    assert e.value.status == status and message.format(pid=os.getpid()) in str(e.value), str(e.value)


def test_attach_sends_the_agent_and_its_settings(fake_dotnet, short_dir):
    path = short_dir / f"dotnet-diagnostic-{os.getpid()}-12345-socket"
    fake = FakeRuntime(str(path), reply(0x00, 0))
    settings = {"DOTCOV_DATA_DIR": "/d", "DOTCOV_SOURCE_ROOT": "/s"}
    assert attach_mod.attach(os.getpid(), settings, timeout_ms=1234) == str(path)
    fake.close()
    assert fake.received == ipc.attach_profiler_message(agent.CLSID, str(agent.agent_path()),
                                                        attach_mod.client_data(settings), 1234)
    assert uuid.UUID(agent.CLSID).bytes_le == fake.received[24:40]


def test_another_users_process(monkeypatch):
    owner = os.stat("/proc/1").st_uid
    monkeypatch.setattr(attach_mod.os, "geteuid", lambda: owner + 1000)
    with pytest.raises(attach_mod.AttachError) as e:
        attach_mod.attach(1, {})
    assert e.value.status == attach_mod.EXIT_PERMISSION and f"belongs to another user (uid {owner})" in str(e.value)
