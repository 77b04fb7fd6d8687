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
    out: dict[int, str] = {}
    assembly_attr = filters.excluded_by_attribute(attributes.get(0x20000001, []))
    methods = raw["methods"]
    by_name: dict[tuple[int, str], list[int]] = {}
    for rid, (name, type_rid, _f, _s) in enumerate(methods, start=1):
        by_name.setdefault((type_rid, name), []).append(rid)

    def type_chain(type_rid: int):
        while type_rid:
            yield type_rid
            type_rid = raw["types"][type_rid - 1][2]

    def method_attr(rid: int) -> str | None:
        names = list(attributes.get(0x06000000 | rid, []))
        prop = raw.get("accessor_of", {}).get(rid)
        if prop:
            names += attributes.get(prop, [])
        return filters.excluded_by_attribute(names)

    # Per type, once (most types have many methods): its user type, why it is filtered out (or None), and the
    # exclusion attribute of it or a type enclosing it (False: not yet known).
    of_type: dict[int, list] = {}
    for rid, (name, type_rid, _flags, _sig) in enumerate(methods, start=1):
        if assembly_attr:
            out[rid] = f"assembly has {assembly_attr}"
            continue
        # The user method a state machine or lambda belongs to carries the user's attributes.
        owner = raw["kickoff"].get(rid, rid)
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
        reason = method_attr(rid) or (method_attr(owner) if owner != rid else None)
        generated = GENERATED_METHOD.match(methods[owner - 1][0])
        if not reason and generated and generated.group(1) and user_type:
            for candidate in by_name.get((user_type, generated.group(1)), []):
                reason = method_attr(candidate)
                if reason:
                    break
        if not reason:
            if known[2] is False:
                known[2] = None
                for t in type_chain(type_rid):
                    found = filters.excluded_by_attribute(attributes.get(0x02000000 | t, []))
                    if found:
                        known[2] = found
                        break
            reason = known[2]
        if reason:
            out[rid] = f"{reason}"
            continue
        if options.skip_auto_properties and rid in raw.get("accessor_of", {}) and \
                COMPILER_GENERATED in attributes.get(0x06000000 | rid, []):
            out[rid] = "auto-property accessor"
    return out
