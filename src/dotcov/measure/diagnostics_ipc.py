"""A client of the .NET runtime's diagnostics IPC, for its one command dotcov uses: AttachProfiler.

The protocol, as dotnet/runtime implements it (src/native/eventpipe/ds-protocol.c, ds-profiler-protocol.c,
ds-types.h; documentation/design-docs/ipc-protocol.md): every message is a 20-byte header, `magic` (14 bytes
"DOTNET_IPC_V1\\0"), `size` (uint16, header included), `command set` (uint8), `command id` (uint8), `reserved`
(uint16, 0), then its payload; integers little-endian. AttachProfiler is command set 0x03 (profiler), id 0x01; its
payload: attach timeout (uint32, ms), the profiler's CLSID (16 bytes, GUID memory layout), its path (uint32 length
in UTF-16 code units counting the terminating NUL, then UTF-16LE with the NUL), client data (uint32 length, bytes),
which the runtime hands to ICorProfilerCallback3::InitializeForAttach. The reply is a header of command set 0xFF
(server) and id 0x00 (OK) or 0xFF (error), then a uint32 HRESULT. One command per connection.
"""

from __future__ import annotations

import socket
import struct
import uuid

MAGIC = b"DOTNET_IPC_V1\0"
HEADER = struct.Struct("<14sHBBH")
COMMAND_SET_PROFILER = 0x03
ATTACH_PROFILER = 0x01
COMMAND_SET_SERVER = 0xFF
RESPONSE_OK = 0x00
RESPONSE_ERROR = 0xFF
MAX_MESSAGE = 0xFFFF  # `size` is a uint16


class IpcError(Exception):
    """The conversation with the runtime failed (no reply, a malformed reply, a message too large)."""


def frame(command_set: int, command_id: int, payload: bytes) -> bytes:
    size = HEADER.size + len(payload)
    if size > MAX_MESSAGE:
        raise IpcError(f"the message is {size} bytes; the protocol allows {MAX_MESSAGE}")
    return HEADER.pack(MAGIC, size, command_set, command_id, 0) + payload


def utf16_string(text: str) -> bytes:
    data = (text + "\0").encode("utf-16-le")
    return struct.pack("<I", len(data) // 2) + data


def attach_profiler_message(clsid: str, profiler_path: str, client_data: bytes, timeout_ms: int) -> bytes:
    payload = (struct.pack("<I", timeout_ms) + uuid.UUID(clsid).bytes_le + utf16_string(profiler_path)
               + struct.pack("<I", len(client_data)) + client_data)
    return frame(COMMAND_SET_PROFILER, ATTACH_PROFILER, payload)


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise IpcError(f"the runtime closed the connection after {len(out)} of {n} bytes of its reply")
        out += chunk
    return bytes(out)


def read_reply(sock: socket.socket) -> tuple[bool, int]:
    """(ok, HRESULT) of the runtime's reply."""
    magic, size, command_set, command_id, _ = HEADER.unpack(_read_exactly(sock, HEADER.size))
    if magic != MAGIC or size < HEADER.size:
        raise IpcError("the reply is not a diagnostics IPC message")
    payload = _read_exactly(sock, size - HEADER.size)
    if command_set != COMMAND_SET_SERVER or command_id not in (RESPONSE_OK, RESPONSE_ERROR):
        raise IpcError(f"unexpected reply (command set 0x{command_set:02x}, id 0x{command_id:02x})")
    if len(payload) < 4:
        raise IpcError("the reply carries no HRESULT")
    (hresult,) = struct.unpack_from("<I", payload)
    return command_id == RESPONSE_OK, hresult


def attach_profiler(socket_path: str, clsid: str, profiler_path: str, client_data: bytes, *,
                    timeout_ms: int = 10000, reply_timeout: float = 120.0) -> tuple[bool, int]:
    """Sends AttachProfiler over the Unix socket `socket_path`; (ok, HRESULT) of the reply. OSError when the socket
    cannot be reached (its errno says why), IpcError when the conversation fails."""
    message = attach_profiler_message(clsid, profiler_path, client_data, timeout_ms)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(reply_timeout)  # the reply comes once the agent's attach work is done
        sock.connect(socket_path)
        sock.sendall(message)
        try:
            return read_reply(sock)
        except socket.timeout as e:
            raise IpcError(f"no reply from the runtime within {reply_timeout:.0f} s") from e
