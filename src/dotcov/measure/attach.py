"""`dotcov attach PID`: load the agent into a running .NET process through its diagnostics socket.

Each refusal has its own exit status (docs/services.md, "Attach"), checked in this order: the process exists, is
ours to attach to, runs the .NET runtime, has its diagnostic socket, and the runtime accepts the agent.
"""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from dotcov.measure import agent
from dotcov.measure import diagnostics_ipc as ipc
from dotcov.measure.run import EXACT_COUNTS_VARIABLE

EXIT_NO_PROCESS = 3
EXIT_NOT_DOTNET = 4
EXIT_DIAGNOSTICS_DISABLED = 5
EXIT_OTHER_PROFILER = 6
EXIT_PERMISSION = 7
EXIT_ALREADY_ATTACHED = 8

# corerror.xml: a profiler is already loaded (or attaching) in the target process.
CORPROF_E_PROFILER_ALREADY_ACTIVE = 0x8013136A

# The client data the agent's InitializeForAttach reads (native/agent/agent_config.cpp): this first line, then the
# agent's settings as the KEY=VALUE pairs `dotcov run` puts in the environment, one a line.
CLIENT_DATA_HEADER = "dotcov-attach 1"

# The runtime's switches that take the diagnostic socket or profiler attach away (CLRConfig reads both prefixes).
_DISABLING = ("EnableDiagnostics", "EnableDiagnostics_IPC", "EnableDiagnostics_Profiler")


class AttachError(Exception):
    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


def agent_settings(data_dir: Path, source_root: Path, *, include_tests: bool, log: bool,
                   exact_counts: bool = False) -> dict[str, str]:
    """What the agent gets as `dotcov run` gives it: the DOTCOV_* variables of dotcov's environment (a process
    `dotcov run` starts inherits them), then those `dotcov run` sets (`exact_counts` as `dotcov run --exact-counts`)."""
    settings = {k: v for k, v in os.environ.items() if k.startswith("DOTCOV_")}
    settings.update(agent.profiler_environment(data_dir, source_root, include_tests=include_tests, log=log))
    if exact_counts:
        settings[EXACT_COUNTS_VARIABLE] = "1"
    return settings


def client_data(settings: dict[str, str]) -> bytes:
    """The agent's settings (the DOTCOV_* variables of agent.profiler_environment) as InitializeForAttach reads them."""
    lines = [CLIENT_DATA_HEADER]
    for key, value in sorted(settings.items()):
        if key.startswith("DOTCOV_"):
            if "\n" in value or "\0" in value:
                raise AttachError(f"{key} holds a newline or NUL: {value!r}")
            lines.append(f"{key}={value}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _read_proc(pid: int, name: str) -> bytes | None:
    """/proc/PID/NAME, or None when it cannot be read (another user's process); AttachError if the process is gone."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except FileNotFoundError as e:
        raise AttachError(f"no process {pid}", EXIT_NO_PROCESS) from e
    except PermissionError:
        return None


def _environ(raw: bytes | None) -> dict[str, str]:
    env = {}
    for item in (raw or b"").split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            env[key.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return env


def _disabled_by(env: dict[str, str]) -> str | None:
    for key, value in env.items():
        for prefix in ("DOTNET_", "COMPlus_"):
            if key.startswith(prefix) and key[len(prefix):].lower() in {d.lower() for d in _DISABLING} \
                    and value.strip() == "0":
                return f"{key}=0"
    return None


def _mapped(maps: bytes, name: str) -> str | None:
    for line in maps.decode("utf-8", "replace").splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and os.path.basename(fields[5]) == name:
            return fields[5]
    return None


def _data_file(maps: bytes) -> str | None:
    """The dotcov data file the process has mapped (its agent writes there), if any."""
    for line in maps.decode("utf-8", "replace").splitlines():
        fields = line.split(None, 5)
        if len(fields) == 6 and re.fullmatch(r"dotcov\.\d+\.[0-9a-f]+\.cov", os.path.basename(fields[5])):
            return fields[5]
    return None


def _agent_mapped(maps: bytes) -> bool:
    """Whether the process maps dotcov's agent library (this installation's, or one under its usual name)."""
    return any(_mapped(maps, name) for name in {agent.agent_path().name, "libdotcov_agent.so",
                                                 "libdotcov_agent.arm64.so"})


def _check_owner(pid: int) -> None:
    try:
        owner = os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError as e:
        raise AttachError(f"no process {pid}", EXIT_NO_PROCESS) from e
    if os.geteuid() not in (0, owner):
        raise AttachError(f"process {pid} belongs to another user (uid {owner}); run dotcov attach as that user",
                          EXIT_PERMISSION)


def socket_path(pid: int, env: dict[str, str]) -> str | None:
    """The process's diagnostic socket: `dotnet-diagnostic-{pid}-{disambiguation key}-socket` in its TMPDIR (or
    /tmp), the newest if several (a pid reused)."""
    dirs = []
    for d in (env.get("TMPDIR"), "/tmp"):
        if d and d not in dirs:
            dirs.append(d)
    found = [p for d in dirs for p in glob.glob(os.path.join(glob.escape(d), f"dotnet-diagnostic-{pid}-*-socket"))]
    return max(found, key=lambda p: os.stat(p).st_mtime) if found else None


def attach(pid: int, settings: dict[str, str], *, timeout_ms: int = 10000) -> str:
    """Loads the agent into process `pid` with `settings` (the DOTCOV_* pairs); returns the socket used. Raises
    AttachError with the status to exit with."""
    if pid <= 0:
        raise AttachError(f"no process {pid}", EXIT_NO_PROCESS)
    if not os.path.isdir(f"/proc/{pid}"):
        raise AttachError(f"no process {pid}", EXIT_NO_PROCESS)
    _check_owner(pid)
    maps = _read_proc(pid, "maps")
    env = _environ(_read_proc(pid, "environ"))
    if maps is not None and maps and not _mapped(maps, "libcoreclr.so"):
        raise AttachError(f"process {pid} is not a .NET process (it has not loaded the .NET runtime, libcoreclr.so)",
                          EXIT_NOT_DOTNET)
    path = socket_path(pid, env)
    if path is None:
        disabled = _disabled_by(env)
        if disabled:
            raise AttachError(f"process {pid} runs with {disabled}: the runtime's diagnostics are off, so nothing "
                              "can attach to it", EXIT_DIAGNOSTICS_DISABLED)
        if maps is None:
            raise AttachError(f"process {pid} has no diagnostic socket: not a .NET process, or its diagnostics are "
                              "off (DOTNET_EnableDiagnostics=0)", EXIT_NOT_DOTNET)
        raise AttachError(f"process {pid} runs .NET but has no diagnostic socket in {env.get('TMPDIR') or '/tmp'}: "
                          "its diagnostics are off (DOTNET_EnableDiagnostics=0), or it runs in another container",
                          EXIT_DIAGNOSTICS_DISABLED)
    disabled = _disabled_by(env)
    if disabled:  # the IPC is on but profiler attach is off (DOTNET_EnableDiagnostics_Profiler=0)
        raise AttachError(f"process {pid} runs with {disabled}: profilers cannot attach to it",
                          EXIT_DIAGNOSTICS_DISABLED)
    data = client_data(settings)
    try:
        ok, hr = ipc.attach_profiler(path, agent.CLSID, str(agent.agent_path()), data, timeout_ms=timeout_ms)
    except PermissionError as e:
        raise AttachError(f"cannot connect to process {pid}'s diagnostic socket {path}: {e.strerror} "
                          "(it belongs to another user)", EXIT_PERMISSION) from e
    except ConnectionRefusedError as e:
        raise AttachError(f"process {pid} is not listening on {path} (it may have ended)", EXIT_NO_PROCESS) from e
    except OSError as e:
        raise AttachError(f"cannot connect to {path}: {e.strerror or e}") from e
    except ipc.IpcError as e:
        raise AttachError(f"attaching to process {pid} failed: {e}") from e
    if ok and hr == 0:
        return path
    if hr == CORPROF_E_PROFILER_ALREADY_ACTIVE:
        # dotcov's is the profiler there when the process maps dotcov's agent library (whether or not the agent has
        # made its data file yet: it does so for the first covered module) and its environment names no other. The
        # maps were read before this attempt: the runtime may load the library it was sent before finding the slot taken.
        data_file = _data_file(maps or b"")
        if not agent.other_profiler(env) and (data_file or _agent_mapped(maps or b"")):
            where = os.path.dirname(data_file) if data_file else env.get("DOTCOV_DATA_DIR")
            raise AttachError(f"dotcov's agent is already loaded in process {pid} (started under `dotcov run`, or "
                              f"attached before){f'; its data goes to {where}' if where else ''}",
                              EXIT_ALREADY_ATTACHED)
        other = agent.other_profiler(env) or "one attached earlier"
        raise AttachError(f"another profiler is loaded in process {pid}: {other}. The runtime loads one profiler "
                          "per process", EXIT_OTHER_PROFILER)
    raise AttachError(f"the runtime of process {pid} refused the agent: HRESULT 0x{hr:08x}")
