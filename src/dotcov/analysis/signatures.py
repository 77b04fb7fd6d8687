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


# --- C# names: what people read (HTML method names) ----------------------------------------------------------

# C#'s keywords for the primitive types.
CSHARP_KEYWORDS = {
    "System.Void": "void", "System.Boolean": "bool", "System.Char": "char", "System.SByte": "sbyte",
    "System.Byte": "byte", "System.Int16": "short", "System.UInt16": "ushort", "System.Int32": "int",
    "System.UInt32": "uint", "System.Int64": "long", "System.UInt64": "ulong", "System.Single": "float",
    "System.Double": "double", "System.Decimal": "decimal", "System.String": "string", "System.Object": "object",
    "System.IntPtr": "nint", "System.UIntPtr": "nuint",
}
PARAM_IN, PARAM_OUT = 0x1, 0x2  # ParamAttributes (ECMA-335 II.23.1.13)


def _node(r: _Reader, named: Callable[[int, int], tuple]) -> tuple:
    """A signature type as a tree: ("named", metadata name, [type arguments], whether a value type), ("var", index,
    of a method), ("array", element, rank), ("byref", element), ("ptr", element) or ("other", text). `named` may
    give a named node without its fourth item: taken from the element type (CLASS or VALUETYPE)."""
    et = r.byte()
    if et in PRIMITIVES:
        return ("named", PRIMITIVES[et], [], et not in (0x0E, 0x1C))
    if et in (0x11, 0x12):
        coded = r.compressed()
        node = named(coded & 3, coded >> 2)
        return ("named", node[1], node[2], et == 0x11) if node[0] == "named" else node
    if et in (0x0F, 0x10, 0x1D):
        return ({0x0F: "ptr", 0x10: "byref", 0x1D: "array"}[et], _node(r, named), 1)
    if et in (0x13, 0x1E):
        return ("var", r.compressed(), et == 0x1E)
    if et == 0x15:
        generic = _node(r, named)
        args = [_node(r, named) for _ in range(r.compressed())]
        return ("named", generic[1], args, generic[3]) if generic[0] == "named" else generic
    if et == 0x14:
        elem = _node(r, named)
        rank = r.compressed()
        for _ in range(r.compressed()):
            r.compressed()
        for _ in range(r.compressed()):
            r.compressed()
        return ("array", elem, rank)
    if et in (0x1F, 0x20):
        r.compressed()
        return _node(r, named)
    if et == 0x45:
        return _node(r, named)
    if et == 0x1B:
        _method(r, lambda tag, rid: "?")
        return ("other", "delegate*")
    raise SignatureError(f"unsupported element type 0x{et:02x}")


def tuple_element_names(blob: bytes | None) -> list[str | None]:
    """The names a TupleElementNamesAttribute value holds (ECMA-335 II.23.3: prolog, a string[] argument)."""
    if not blob or len(blob) < 6 or blob[:2] != b"\x01\x00":
        return []
    count = int.from_bytes(blob[2:6], "little")
    if count == 0xFFFFFFFF:
        return []
    r, out = _Reader(blob), []
    r.pos = 6
    try:
        for _ in range(count):
            if r.blob[r.pos:r.pos + 1] == b"\xff":
                r.pos += 1
                out.append(None)
                continue
            n = r.compressed()
            out.append(r.blob[r.pos:r.pos + n].decode("utf-8", "replace"))
            r.pos += n
    except SignatureError:
        return []
    return out


def _attribute_array(blob: bytes | None) -> list[int] | None:
    """The elements of an attribute value whose one argument is a byte[] or bool[] (one byte each; ECMA-335
    II.23.3), or None."""
    if not blob or len(blob) < 6 or blob[:2] != b"\x01\x00":
        return None
    count = int.from_bytes(blob[2:6], "little")
    if count == 0xFFFFFFFF or len(blob) < 6 + count:
        return None
    return list(blob[6:6 + count])


def nullable_flags(blob: bytes | None, context: int) -> list[int] | int:
    """A NullableAttribute value (ctor(byte): one byte for every type; ctor(byte[])), as a list or one byte for all;
    `context` (NullableContextAttribute's byte, 0 oblivious) when there is none."""
    if blob and len(blob) == 5 and blob[:2] == b"\x01\x00":
        return blob[2]
    flags = _attribute_array(blob)
    return context if flags is None else flags


def dynamic_flags(blob: bytes | None) -> list[bool] | None:
    """A DynamicAttribute value: no argument (the type is `dynamic`) or a bool[]; None without the attribute."""
    if blob is None:
        return None
    flags = _attribute_array(blob)
    return [True] if flags is None else [bool(f) for f in flags]


class _Annotations:
    """Marks a parameter's signature tree with what the C# compiler's attributes say the signature cannot: a
    ("nullable", node) for a reference type annotated `?` (NullableAttribute: a byte per type in pre-order, but a value
    type has none unless generic, when 0 precedes its arguments; Nullable<T> gives T's only; Roslyn's
    docs/features/nullable-metadata.md) and ("other", "dynamic") for an object DynamicAttribute flags (a flag per type
    in pre-order, value types too, after one for a byref)."""

    def __init__(self, nullable: list[int] | int, dynamic: list[bool] | None) -> None:
        self.nullable, self.dynamic, self.at_n, self.at_d = nullable, dynamic, 0, 0

    def _byte(self) -> int:
        if isinstance(self.nullable, int):
            return self.nullable
        self.at_n += 1
        return self.nullable[self.at_n - 1] if self.at_n <= len(self.nullable) else 0

    def _flag(self) -> bool:
        self.at_d += 1
        return self.dynamic is not None and self.at_d <= len(self.dynamic) and self.dynamic[self.at_d - 1]

    def top(self, node: tuple) -> tuple:
        if node[0] == "byref":
            self._flag()
            return ("byref", self.mark(node[1]), 1)
        return self.mark(node)

    def mark(self, node: tuple) -> tuple:
        kind = node[0]
        dynamic = self._flag()
        if kind == "named":
            name, args, value = node[1], node[2], node[3]
            if value and not (name == "System.Nullable`1" and len(args) == 1) and args:
                self._byte()
            annotated = not value and self._byte() == 2
            node = ("named", name, [self.mark(a) for a in args], value)
            if dynamic and name == "System.Object":
                node = ("other", "dynamic")
        elif kind == "array":
            annotated = self._byte() == 2
            node = ("array", self.mark(node[1]), node[2])
        elif kind == "var":
            annotated = self._byte() == 2
        elif kind in ("ptr", "byref"):
            return (kind, self.mark(node[1]), 1)
        else:
            return node
        return ("nullable", node) if annotated else node


class _CSharp:
    """Formats signature trees in C#: keywords, `<...>` generics, `(string Sku, int Qty)` tuples with the names
    TupleElementNamesAttribute gives (taken in its order: a tuple's own names, then its elements' depth first),
    `int?`, `string?` and `dynamic` (marked by _Annotations), arrays, `Outer.Inner`, generic parameters by name."""

    def __init__(self, type_params: list[str], method_params: list[str]) -> None:
        self.type_params, self.method_params = type_params, method_params

    def format(self, node: tuple, names: list[str | None]) -> str:
        self.names, self.at = names, 0
        return self._format(node)

    def _take(self, n: int) -> list[str | None]:
        got = self.names[self.at:self.at + n]
        self.at += n
        return got + [None] * (n - len(got))

    def _format(self, node: tuple) -> str:
        kind = node[0]
        if kind == "array":
            return f"{self._format(node[1])}[{',' * (node[2] - 1)}]"
        if kind == "byref":
            return f"ref {self._format(node[1])}"
        if kind == "ptr":
            return f"{self._format(node[1])}*"
        if kind == "var":
            params = self.method_params if node[2] else self.type_params
            return params[node[1]] if node[1] < len(params) else f"{'!!' if node[2] else '!'}{node[1]}"
        if kind == "other":
            return node[1]
        if kind == "nullable":
            return f"{self._format(node[1])}?"
        name, args = node[1], node[2]
        if name == "System.Nullable`1" and len(args) == 1:
            return f"{self._format(args[0])}?"
        elements = _tuple_elements(node)
        if elements is not None:
            labels = self._take(len(elements))
            return "(" + ", ".join(f"{self._format(e)} {n}" if n else self._format(e)
                                   for e, n in zip(elements, labels)) + ")"
        if not args and name in CSHARP_KEYWORDS:
            return CSHARP_KEYWORDS[name]
        formatted = [self._format(a) for a in args]
        parts = []
        segments = name.replace("+", "/").split("/")  # (nested types: `Ns.Outer`1/Inner`)
        segments[0] = segments[0].rpartition(".")[2]  # (no namespace)
        for part in segments:
            base, _tick, arity = part.partition("`")
            k = int(arity) if arity.isdigit() else 0
            mine, formatted = formatted[:k], formatted[k:]
            parts.append(f"{base}<{', '.join(mine)}>" if mine else base)
        return ".".join(parts)


def _tuple_elements(node: tuple) -> list[tuple] | None:
    """The element types of a ValueTuple of 2 to 8 (a long tuple's rest flattened), else None."""
    name, args = node[1], node[2]
    if not name.startswith("System.ValueTuple`") or len(args) < 2:
        return None
    if len(args) == 8:
        rest = _tuple_elements(args[7]) if args[7][0] == "named" else None
        return args[:7] + rest if rest is not None else None
    return list(args)


def csharp_method(name: str, blob: bytes, named: Callable[[int, int], tuple], type_params: list[str],
                  method_params: list[str], params: list[tuple] = (), nullable_context: int = 0) -> str:
    """A method as C# shows it: `Map<T>(IReadOnlyList<(string Sku, int Qty)>, out int)`. `named(tag, rid)` gives the
    tree of a TypeDef(0)/TypeRef(1)/TypeSpec(2) (`_node`'s); `params` the Param rows as (sequence, flags, tuple
    names blob or None, IsReadOnly[, NullableAttribute blob or None, DynamicAttribute blob or None]) for `out`, `in`,
    tuple element names, `?` and `dynamic`; `nullable_context` the NullableContextAttribute byte in force (the
    method's, else its type's), for parameters without NullableAttribute. SignatureError when unreadable."""
    r = _Reader(blob)
    conv = r.byte()
    generic = r.compressed() if conv & 0x10 else 0
    count = r.compressed()
    _node(r, named)  # (the return type: not shown)
    by_sequence = {p[0]: p for p in params}
    fmt = _CSharp(type_params, method_params)
    shown = []
    for i in range(1, count + 1):
        if r.pos < len(blob) and blob[r.pos] == 0x41:  # SENTINEL (vararg)
            r.pos += 1
        node = _node(r, named)
        flags, names, read_only, nullable, dynamic = (tuple(by_sequence[i][1:6]) + (None,) * 5)[:5] \
            if i in by_sequence else (0, None, False, None, None)
        node = _Annotations(nullable_flags(nullable, nullable_context), dynamic_flags(dynamic)).top(node)
        text = fmt.format(node[1] if node[0] == "byref" else node, tuple_element_names(names))
        if node[0] == "byref":
            text = ("out " if flags & (PARAM_IN | PARAM_OUT) == PARAM_OUT else "in " if read_only else "ref ") + text
        shown.append(text)
    if generic:
        names = method_params[:generic] + [f"T{k}" for k in range(len(method_params), generic)]
        name = f"{name}<{', '.join(names)}>"
    return f"{name}({', '.join(shown)})"
