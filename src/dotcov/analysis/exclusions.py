"""Which methods of a module reports leave out: type filters, exclusion attributes, auto-properties."""

from __future__ import annotations

from dataclasses import dataclass

from dotcov.analysis.filters import Filters
from dotcov.analysis.symbols import COMPILER_GENERATED, GENERATED_METHOD


@dataclass
class ExclusionOptions:
    filters: Filters
    skip_auto_properties: bool = False


def excluded_methods(sym, assembly: str, options: ExclusionOptions) -> dict[int, str]:
    """{method rid: reason} for every method whose coverage reports leave out."""
    raw = sym.raw
    attributes: dict[int, list[str]] = raw.get("attributes", {})
    filters = options.filters
    methods = raw["methods"]
    assembly_attr = filters.excluded_by_attribute(attributes.get(0x20000001, []))
    if assembly_attr:
        return {rid: f"assembly has {assembly_attr}" for rid in range(1, len(methods) + 1)}
    # The exclusion attribute of each token that carries one, each token's attributes read once: most methods
    # carry none, and then only their type's filter and attributes can leave them out.
    excluding: dict[int, str] = {}
    for token, names in attributes.items():
        found = filters.excluded_by_attribute(names)
        if found:
            excluding[token] = found
    accessor_of: dict[int, int] = raw.get("accessor_of", {})
    kickoff = raw["kickoff"]
    by_name: dict[tuple[int, str], list[int]] | None = None  # (type rid, name) -> method rids, when asked

    def method_attr(rid: int) -> str | None:
        """The method's exclusion attribute, else that of the property it is an accessor of."""
        return excluding.get(0x06000000 | rid) or excluding.get(accessor_of.get(rid, 0)) if excluding else None

    def type_attr(type_rid: int) -> str | None:
        """The exclusion attribute of the type or of a type enclosing it."""
        while type_rid and excluding:
            found = excluding.get(0x02000000 | type_rid)
            if found:
                return found
            type_rid = raw["types"][type_rid - 1][2]
        return None

    auto_properties = options.skip_auto_properties
    out: dict[int, str] = {}
    # Per type, once (most types have many methods): its user type, why it is filtered out (or None), and the
    # exclusion attribute of it or a type enclosing it (False: not yet known).
    of_type: dict[int, list] = {}
    for rid, (_name, type_rid, _flags, _sig) in enumerate(methods, start=1):
        known = of_type.get(type_rid)
        if known is None:
            user_type = sym.user_type(type_rid) if type_rid else 0
            type_name = sym.type_full_name(user_type) if user_type else "<Module>"
            known = of_type[type_rid] = [user_type, None if filters.type_included(assembly, type_name)
                                         else f"type {type_name} filtered out", False]
        user_type = known[0]
        if known[1] is not None:
            out[rid] = known[1]
            continue
        if excluding:
            # The user method a state machine or lambda belongs to carries the user's attributes.
            owner = kickoff.get(rid, rid)
            reason = method_attr(rid) or (method_attr(owner) if owner != rid else None)
            generated = GENERATED_METHOD.match(methods[owner - 1][0]) if not reason else None
            if generated and generated.group(1) and user_type:
                if by_name is None:
                    by_name = {}
                    for other, (name, other_type, _f, _s) in enumerate(methods, start=1):
                        by_name.setdefault((other_type, name), []).append(other)
                for candidate in by_name.get((user_type, generated.group(1)), []):
                    reason = method_attr(candidate)
                    if reason:
                        break
            if not reason:
                if known[2] is False:  # (found when first needed)
                    known[2] = type_attr(type_rid)
                reason = known[2]
            if reason:
                out[rid] = reason
                continue
        if auto_properties and rid in accessor_of and COMPILER_GENERATED in attributes.get(0x06000000 | rid, []):
            out[rid] = "auto-property accessor"
    return out
