"""Indented XML as .NET tools write it (`<x a="1" />`), shared by the Cobertura and OpenCover writers.

Not lxml's `etree.xmlfile`: on 280,000 `<line>` elements it was slower than this writer, and several times
slower than formatting integer attributes directly (benchmarks/xml_writers.py; docs/benchmarks.md). Text goes
through `clean` (characters XML cannot carry) and the escapes; integers need neither.
"""

from __future__ import annotations

import re

INDENT = "  "

# Characters XML 1.0 cannot carry at all (C0 controls but tab/LF/CR, lone surrogates from
# undecodable file names, U+FFFE/U+FFFF): written as U+FFFD so the document stays well-formed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                       "\t": "&#x9;", "\n": "&#xA;", "\r": "&#xD;"})


def clean(value) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def text(value) -> str:
    return clean(value).translate(_TEXT)


_PLAIN = re.compile(r"[^&<>\"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]*\Z")


def attr(value) -> str:
    if type(value) is int:  # most attributes: nothing to escape
        return str(value)
    value = str(value)
    if _PLAIN.match(value):
        return value
    return clean(value).translate(_ATTR)


class XmlWriter:
    """Indented XML; a fragment when `declaration` is false."""

    def __init__(self, *, depth: int = 0, declaration: bool = False) -> None:
        self.parts: list[str] = ['<?xml version="1.0" encoding="utf-8"?>\n'] if declaration else []
        self.depth = depth

    def _open_tag(self, name: str, attrs) -> str:
        return "<" + name + "".join(f' {k}="{attr(v)}"' for k, v in attrs)

    def empty(self, name: str, attrs=()) -> None:
        self.parts.append(INDENT * self.depth + self._open_tag(name, attrs) + " />\n")

    def start(self, name: str, attrs=()) -> None:
        self.parts.append(INDENT * self.depth + self._open_tag(name, attrs) + ">\n")
        self.depth += 1

    def end(self, name: str) -> None:
        self.depth -= 1
        self.parts.append(INDENT * self.depth + f"</{name}>\n")

    def text_element(self, name: str, value: str) -> None:
        self.parts.append(INDENT * self.depth + f"<{name}>{text(value)}</{name}>\n")

    def comment(self, value: str) -> None:
        self.parts.append(INDENT * self.depth + "<!-- " + clean(value).replace("--", "- -") + " -->\n")

    def extend(self, other: XmlWriter) -> None:
        self.parts.extend(other.parts)

    def getvalue(self) -> bytes:
        return "".join(self.parts).encode("utf-8")  # no BOM
