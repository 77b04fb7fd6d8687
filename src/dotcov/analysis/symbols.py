"""A module build's symbols: its portable PDB and metadata as read by the native core, checked against the data.

`load_symbols` refuses an assembly or PDB rebuilt since the coverage run (MVID, PDB id); `SourceChecks` tells a
source file changed since it was compiled (the checksum its PDB records).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

from dotcov import _native
from dotcov.analysis.signatures import SignatureError, _node, _Reader, csharp_method, decode_type, method_signature

COMPILER_GENERATED = "System.Runtime.CompilerServices.CompilerGeneratedAttribute"
# The members C# generates for a record (positional records' Deconstruct too), all [CompilerGenerated]: the HTML
# methods page hides them unless asked (a user method of these names has no such attribute).
RECORD_MEMBERS = frozenset({"get_EqualityContract", "PrintMembers", "<Clone>$", "Deconstruct", "GetHashCode", "Equals",
                            "ToString", "op_Equality", "op_Inequality"})
# A method the compiler made of the user's method Name: `<Name>b__0_0` (lambda), `<Name>d__3` (state machine),
# `<Name>g__Local|0_0` (local function); group 1 is Name.
GENERATED_METHOD = re.compile(r"^<([^>]*)>")


@dataclass
class Symbols:
    raw: dict
    # (Texts decoded once per distinct signature blob / signature and parameters: most methods share one.)
    _signatures: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _display_tails: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def mvid(self) -> bytes:
        return self.raw["mvid"]

    @property
    def pdb_id(self) -> bytes:
        return self.raw["pdb_id"]

    def type_full_name(self, rid: int) -> str:
        ns, name, enclosing, _flags = self.raw["types"][rid - 1]
        if enclosing:
            return f"{self.type_full_name(enclosing)}/{name}"
        return f"{ns}.{name}" if ns else name

    def user_type(self, rid: int) -> int:
        """The outermost type that is not compiler-generated (`<>c`, `<M>d__1`, display classes)."""
        types = self.raw["types"]
        while True:
            _ns, name, enclosing, _flags = types[rid - 1]
            if name.startswith("<") and enclosing:
                rid = enclosing
            else:
                return rid

    def type_ref_name(self, tag: int, rid: int) -> str:
        try:
            if tag == 0:
                return self.type_full_name(rid)
            if tag == 1:
                ns, name = self.raw["typerefs"][rid - 1]
                return f"{ns}.{name}" if ns else name
            if tag == 2:
                return decode_type(self.raw["typespecs"][rid - 1], self.type_ref_name)
        except (IndexError, SignatureError):
            pass
        return "?"

    def signature(self, method_rid: int) -> str:
        _name, _type, _flags, sig = self.raw["methods"][method_rid - 1]
        known = self._signatures
        found = known.get(sig)
        if found is None:
            try:
                _ret, params = method_signature(sig, self.type_ref_name)
            except SignatureError:
                found = known[sig] = "(?)"
            else:
                found = known[sig] = "(" + ",".join(params) + ")"
        return found


    def type_node(self, tag: int, rid: int) -> tuple:
        """A TypeDef(0)/TypeRef(1)/TypeSpec(2) as signatures._node's tree."""
        if tag == 2:
            try:
                return _node(_Reader(self.raw["typespecs"][rid - 1]), self.type_node)
            except (IndexError, SignatureError, RecursionError):
                return ("other", "?")
        return ("named", self.type_ref_name(tag, rid), [])

    def record_member(self, method_rid: int) -> bool:
        """Whether the method is one C# generated for a record (RECORD_MEMBERS, [CompilerGenerated], in a type with a
        generated `PrintMembers`: record classes and record structs alike)."""
        methods, attributes = self.raw["methods"], self.raw.get("attributes", {})
        name, type_rid = methods[method_rid - 1][:2]
        if name not in RECORD_MEMBERS or COMPILER_GENERATED not in attributes.get(0x06000000 | method_rid, ()):
            return False
        return type_rid in self._record_types

    @cached_property
    def _record_types(self) -> set[int]:
        """The types with a generated `PrintMembers` (record classes and record structs)."""
        methods, attributes = self.raw["methods"], self.raw.get("attributes", {})
        return {m[1] for rid, m in enumerate(methods, start=1)
                if m[0] == "PrintMembers" and COMPILER_GENERATED in attributes.get(0x06000000 | rid, ())}

    def display_name(self, method_rid: int, name: str) -> str:
        """The method as people read it, in C# form (signatures.csharp_method): `Map<T>(IReadOnlyList<(string Sku,
        int Qty)>, out int)`; `name` and the metadata signature when the signature cannot be read."""
        return self.method_texts([method_rid], [name])[1][0]

    def method_texts(self, rids: list[int], names: list[str]) -> tuple[list[str], list[str], list[bool]]:
        """Of each method (by rid, with the name it shows): its signature, its display_name and whether it is a
        record_member (one pass for a module's methods: the per-type and per-table look-ups made once)."""
        raw = self.raw
        methods, generic = raw["methods"], raw.get("generic_params", {})
        params_of, contexts, types = raw.get("params", {}), raw.get("nullable_context", {}), raw["types"]
        signature, record_member, known = self.signature, self.record_member, self._display_tails
        type_context: dict[int, int] = {}  # type rid -> the NullableContextAttribute byte its methods inherit
        signatures, displays, records = [], [], []
        for rid, name in zip(rids, names):
            _name, type_rid, _flags, sig = methods[rid - 1]
            # The NullableContextAttribute byte in force: the method's own, else its type's or an enclosing type's
            # (0, oblivious, without any: code compiled without `#nullable enable`); a type's once per type.
            context = contexts.get(0x06000000 | rid)
            if context is None:
                context = type_context.get(type_rid)
                if context is None:
                    t = type_rid
                    while context is None and t:
                        context = contexts.get(0x02000000 | t)
                        t = types[t - 1][2]
                    context = type_context[type_rid] = context or 0
            type_params = generic.get(0x02000000 | type_rid, [])
            method_params = generic.get(0x06000000 | rid, [])
            params = params_of.get(rid, [])
            # (The text after the name, once per distinct signature and parameters: most methods share one.)
            key = (sig, tuple(type_params), tuple(method_params), tuple(params), context)
            tail = known.get(key)
            if tail is None:
                try:
                    tail = csharp_method("", sig, self.type_node, type_params, method_params, params, context)
                except (SignatureError, RecursionError):
                    tail = signature(rid)
                known[key] = tail
            signatures.append(signature(rid))
            displays.append(name + tail)
            records.append(record_member(rid))
        return signatures, displays, records


class SymbolsError(Exception):
    pass


# Portable PDB document hash algorithms (the Document table's HashAlgorithm GUID).
_HASHES = {
    "ff1816ec-aa5e-4d10-87f7-6f4963833460": "sha1",
    "8829d00f-11b8-4213-878b-770e8597ac16": "sha256",
}


class SourceChecks:
    """Checks each source file once against the checksum its PDB records (stale sources)."""

    def __init__(self) -> None:
        self._digests: dict[tuple[str, str], str | None] = {}

    def stale(self, path: str, algorithm: bytes, expected: bytes) -> str | None:
        """Why `path` is not the file that was compiled, or None (it is, or it cannot be told)."""
        import uuid  # here (and platform with it): only plans made anew check sources

        name = _HASHES.get(str(uuid.UUID(bytes_le=algorithm))) if len(algorithm) == 16 else None
        if name is None or not expected:
            return None
        key = (path, name)
        if key not in self._digests:
            try:
                with open(path, "rb") as f:
                    self._digests[key] = hashlib.file_digest(f, name).hexdigest()
            except OSError:
                self._digests[key] = None  # missing: the reports say so where they show source
        digest = self._digests[key]
        if digest is None or digest == expected.hex():
            return None
        return f"changed since it was compiled (its {name.upper()} differs from the one in the PDB); " \
               "line numbers may not match: rebuild and run the tests again"


def load_symbols(module, path: str | None = None) -> Symbols:
    """Reads the module's symbols from `path` (its recorded path, or where [paths] maps it)."""
    path = path or module.path
    try:
        raw = _native.read_symbols(path)
    except (OSError, ValueError) as e:
        raise SymbolsError(f"{path}: {e}") from e
    if raw["mvid"] != module.mvid:
        raise SymbolsError(
            f"{module.path} was rebuilt after the coverage run (its MVID changed); "
            "run the tests again to report it"
        )
    if raw["pdb_id"] != module.pdb_id:
        raise SymbolsError(f"{module.path}: its PDB changed after the coverage run (PDB id differs); run again")
    return Symbols(raw)
