"""Method signature blobs (ECMA-335 II.23.2) as the type names reports show."""

from __future__ import annotations

from typing import Callable

PRIMITIVES = {
    0x01: "System.Void", 0x02: "System.Boolean", 0x03: "System.Char", 0x04: "System.SByte",
    0x05: "System.Byte", 0x06: "System.Int16", 0x07: "System.UInt16", 0x08: "System.Int32",
    0x09: "System.UInt32", 0x0A: "System.Int64", 0x0B: "System.UInt64", 0x0C: "System.Single",
    0x0D: "System.Double", 0x0E: "System.String", 0x16: "System.TypedReference",
    0x18: "System.IntPtr", 0x19: "System.UIntPtr", 0x1C: "System.Object",
}


class SignatureError(ValueError):
    pass


class _Reader:
    def __init__(self, blob: bytes):
        self.blob = blob
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.blob):
            raise SignatureError("signature ends early")
        b = self.blob[self.pos]
        self.pos += 1
        return b

    def compressed(self) -> int:
        b0 = self.byte()
        if b0 & 0x80 == 0:
            return b0
        if b0 & 0xC0 == 0x80:
            return ((b0 & 0x3F) << 8) | self.byte()
        if b0 & 0xE0 == 0xC0:
            return ((b0 & 0x1F) << 24) | (self.byte() << 16) | (self.byte() << 8) | self.byte()
        raise SignatureError("bad compressed integer")


def _type(r: _Reader, type_name: Callable[[int, int], str]) -> str:
    et = r.byte()
    if et in PRIMITIVES:
        return PRIMITIVES[et]
    if et in (0x11, 0x12):  # valuetype / class TypeDefOrRef
        coded = r.compressed()
        return type_name(coded & 3, coded >> 2)
    if et == 0x0F:
        return _type(r, type_name) + "*"
    if et == 0x10:
        return _type(r, type_name) + "&"
    if et == 0x1D:
        return _type(r, type_name) + "[]"
    if et == 0x13:
        return f"!{r.compressed()}"
    if et == 0x1E:
        return f"!!{r.compressed()}"
    if et == 0x15:  # GENERICINST
        generic = _type(r, type_name)
        n = r.compressed()
        args = [_type(r, type_name) for _ in range(n)]
        return f"{generic}<{','.join(args)}>"
    if et == 0x14:  # ARRAY: type rank nsizes sizes... nlobounds lobounds...
        elem = _type(r, type_name)
        rank = r.compressed()
        for _ in range(r.compressed()):
            r.compressed()
        for _ in range(r.compressed()):
            r.compressed()
        return f"{elem}[{',' * (rank - 1)}]"
    if et in (0x1F, 0x20):  # custom modifiers: skip
        r.compressed()
        return _type(r, type_name)
    if et == 0x45:  # pinned
        return _type(r, type_name)
    if et == 0x1B:  # FNPTR
        _method(r, type_name)
        return "method"
    raise SignatureError(f"unsupported element type 0x{et:02x}")


def _method(r: _Reader, type_name) -> tuple[str, list[str]]:
    conv = r.byte()
    if conv & 0x10:  # GENERIC
        r.compressed()
    count = r.compressed()
    ret = _type(r, type_name)
    params = []
    for _ in range(count):
        if r.pos < len(r.blob) and r.blob[r.pos] == 0x41:  # SENTINEL
            r.pos += 1
        params.append(_type(r, type_name))
    return ret, params


def method_signature(blob: bytes, type_name: Callable[[int, int], str]) -> tuple[str, list[str]]:
    """Returns (return type, parameter types); `type_name(tag, rid)` names TypeDef(0)/TypeRef(1)/TypeSpec(2)."""
    return _method(_Reader(blob), type_name)


def decode_type(blob: bytes, type_name: Callable[[int, int], str]) -> str:
    return _type(_Reader(blob), type_name)
