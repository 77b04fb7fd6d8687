#!/usr/bin/env python3
"""Is lxml's streaming `etree.xmlfile` faster than dotcov's own XML writer? (issue 12, item 4)

    .venv/bin/python benchmarks/xml_writers.py [N]

Writes N (default 280,000) Cobertura `<line number hits branch />` elements three ways: dotcov.xmlwriter's
XmlWriter, lxml's etree.xmlfile (one Element per line, indentation written as text), and formatted strings
(what cobertura.py does for lines without branches). Prints the best of three runs of each.
"""

from __future__ import annotations

import io
import sys
import time

from lxml import etree

from dotcov.xmlwriter import XmlWriter


def writer(n: int) -> bytes:
    w = XmlWriter(declaration=True)
    w.start("lines")
    for i in range(n):
        w.empty("line", [("number", i), ("hits", i % 7), ("branch", "False")])
    w.end("lines")
    return w.getvalue()


def lxml_xmlfile(n: int) -> bytes:
    buf = io.BytesIO()
    with etree.xmlfile(buf, encoding="utf-8") as xf:
        xf.write_declaration()
        with xf.element("lines"):
            for i in range(n):
                xf.write("\n  ")
                xf.write(etree.Element("line", number=str(i), hits=str(i % 7), branch="False"))
    return buf.getvalue()


def formatted(n: int) -> bytes:
    return "".join(f'  <line number="{i}" hits="{i % 7}" branch="False" />\n' for i in range(n)).encode()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 280_000
    print(f"| writer ({n:,} elements) | best of 3 (s) |\n|---|---:|")
    for f in (writer, lxml_xmlfile, formatted):
        best = min(_time(f, n) for _ in range(3))
        print(f"| {f.__name__} | {best:.2f} |")


def _time(f, n: int) -> float:
    t = time.perf_counter()
    f(n)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
