"""What reports leave out: coverlet-style `[Assembly]Namespace.Type` filters, attributes, files."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

DEFAULT_EXCLUDED_ATTRIBUTES = ("ExcludeFromCodeCoverage", "GeneratedCode")

_FILTER = re.compile(r"^\[(?P<assembly>[^\]]+)\](?P<type>.+)$")


class FilterError(ValueError):
    pass


def _glob(pattern: str) -> re.Pattern:
    # coverlet: * is any run of characters, ? one character; names are case-sensitive.
    return re.compile("^" + re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".") + "$")


@dataclass
class TypeFilter:
    text: str
    assembly: re.Pattern
    type: re.Pattern

    @classmethod
    def parse(cls, text: str) -> "TypeFilter":
        m = _FILTER.match(text.strip())
        if not m:
            raise FilterError(f"bad filter {text!r}: expected [Assembly]Namespace.Type, e.g. [Calc]Calc.Legacy* or [*]*")
        return cls(text, _glob(m.group("assembly")), _glob(m.group("type")))

    def matches(self, assembly: str, type_name: str) -> bool:
        return bool(self.assembly.match(assembly) and self.type.match(type_name))


def _attribute_matches(full_name: str, wanted: str) -> bool:
    """`Obsolete`, `ObsoleteAttribute` and `System.ObsoleteAttribute` all name System.ObsoleteAttribute."""
    short = full_name.rsplit(".", 1)[-1]
    for name in (wanted, wanted + "Attribute"):
        if full_name == name or short == name:
            return True
    return False


@dataclass
class Filters:
    include: list[TypeFilter] = field(default_factory=list)
    exclude: list[TypeFilter] = field(default_factory=list)
    attributes: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDED_ATTRIBUTES))
    files: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, include=(), exclude=(), exclude_by_attribute=(), exclude_by_file=()) -> "Filters":
        return cls(
            include=[TypeFilter.parse(t) for t in include],
            exclude=[TypeFilter.parse(t) for t in exclude],
            attributes=[*DEFAULT_EXCLUDED_ATTRIBUTES, *exclude_by_attribute],
            files=list(exclude_by_file),
        )

    def type_included(self, assembly: str, type_name: str) -> bool:
        """Includes narrow (when given), excludes win; nested types match by their full name Outer/Inner."""
        if self.include and not any(f.matches(assembly, type_name) for f in self.include):
            return False
        return not any(f.matches(assembly, type_name) for f in self.exclude)

    def excluded_by_attribute(self, attribute_names) -> str | None:
        for full in attribute_names:
            for wanted in self.attributes:
                if _attribute_matches(full, wanted):
                    return full
        return None

    def file_excluded(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern.lstrip("*/"))
                   for pattern in self.files)
