#!/usr/bin/env python3
"""Is lxml's streaming `etree.xmlfile` faster than dotcov's own XML writer? (issue 12, item 4)

    .venv/bin/python benchmarks/xml_writers.py [N]

Writes N (default 280,000) Cobertura `<line number hits branch />` elements four ways: dotcov.reports.xmlwriter's
XmlWriter, lxml's etree.xmlfile (one Element per line, indentation written as text), formatted strings (what
reports/cobertura.py did for lines without branches until 2026-11-25), and `_native.cobertura_class` (what it does
now: a class whose `<lines>` are the N lines); then N OpenCover `<SequencePoint>`s (eleven attributes) with lxml's
xmlfile and as reports/opencover.py formats them. Prints the best of three runs of each, wall and CPU (process
time).
"""

from __future__ import annotations

import io
import sys
import time
from typing import Callable

from lxml import etree

from dotcov._native import cobertura_class
from dotcov.reports.xmlwriter import XmlWriter


# Each way: made with N, it does its untimed setup and returns the work to time.

def writer(n: int) -> Callable[[], bytes]:
    def run() -> bytes:
        w = XmlWriter(declaration=True)
        w.start("lines")
        for i in range(n):
            w.empty("line", [("number", i), ("hits", i % 7), ("branch", "False")])
        w.end("lines")
        return w.getvalue()
    return run


def lxml_xmlfile(n: int) -> Callable[[], bytes]:
    def run() -> bytes:
        buf = io.BytesIO()
        with etree.xmlfile(buf, encoding="utf-8") as xf:
            xf.write_declaration()
            with xf.element("lines"):
                for i in range(n):
                    xf.write("\n  ")
                    xf.write(etree.Element("line", number=str(i), hits=str(i % 7), branch="False"))
        return buf.getvalue()
    return run


def formatted(n: int) -> Callable[[], bytes]:
    return lambda: "".join(f'  <line number="{i}" hits="{i % 7}" branch="False" />\n' for i in range(n)).encode()


def native(n: int) -> Callable[[], bytes]:
    lines = {i: i % 7 for i in range(n)}  # (the map is the analysis's: not timed as the writer's work)
    return lambda: cobertura_class('<class name="C">', ([],) * 7, lines, {}, "")  # (no methods)


# OpenCover's `<SequencePoint>` (eleven integer attributes), as reports/opencover.py writes it and as lxml would.

def _point_values(i: int) -> tuple[int, ...]:
    return (i % 7, i + 1, i % 9, i * 2, i, 9, i, 30, 0, 0, 1)


_POINT_NAMES = ("vc", "uspid", "ordinal", "offset", "sl", "sc", "el", "ec", "bec", "bev", "fileid")


def opencover_lxml(n: int) -> Callable[[], bytes]:
    def run() -> bytes:
        buf = io.BytesIO()
        with etree.xmlfile(buf, encoding="utf-8") as xf:
            xf.write_declaration()
            with xf.element("SequencePoints"):
                for i in range(n):
                    xf.write("\n  ")
                    xf.write(etree.Element("SequencePoint", dict(zip(_POINT_NAMES, map(str, _point_values(i))))))
        return buf.getvalue()
    return run


def opencover_formatted(n: int) -> Callable[[], bytes]:
    def run() -> bytes:
        out = []
        for i in range(n):
            vc, uspid, ordinal, offset, sl, sc, el, ec, bec, bev, fileid = _point_values(i)
            out.append(f'vc="{vc}" uspid="{uspid}" ordinal="{ordinal}" offset="{offset}" sl="{sl}" sc="{sc}" '
                       f'el="{el}" ec="{ec}" bec="{bec}" bev="{bev}" fileid="{fileid}"')
        return ("<SequencePoints>\n  <SequencePoint " + " />\n  <SequencePoint ".join(out) +
                " />\n</SequencePoints>\n").encode()
    return run


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 280_000
    print(f"| writer ({n:,} elements) | best of 3 wall (s) | best of 3 CPU (s) |\n|---|---:|---:|")
    for way in (writer, lxml_xmlfile, formatted, native, opencover_lxml, opencover_formatted):
        runs = [_time(way(n)) for _ in range(3)]
        print(f"| {way.__name__} | {min(r[0] for r in runs):.3f} | {min(r[1] for r in runs):.3f} |")


def _time(run: Callable[[], bytes]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


if __name__ == "__main__":
    main()
