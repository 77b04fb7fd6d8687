"""An SVG coverage badge (`dotcov badge`): "coverage | 87%", coloured by the total line coverage.

The shape is the usual flat two-part badge (as shields.io draws them), written here from scratch with
no font or network access: text widths come from a table of Verdana 11 px advance widths of the
characters a badge can hold, so the boxes fit the text; any other character counts as a wide one.
The colour steps follow shields.io's coverage convention (docs/reports.md, "Badge"). The output is
deterministic: the same numbers always give the same bytes.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from dotcov.analysis.numbers import Analysis
from dotcov.analysis.model import CoverageResult
from dotcov.reports.output import display_percent

__all__ = ["COLOURS", "badge_colour", "badge_svg"]

# (minimum percent, colour): the first whose minimum the coverage reaches.
COLOURS = [
    (90.0, "#4c1"),  # bright green
    (80.0, "#97ca00"),  # green
    (70.0, "#a4a61d"),  # yellow-green
    (60.0, "#dfb317"),  # yellow
    (50.0, "#fe7d37"),  # orange
    (0.0, "#e05d44"),  # red
]

# Verdana 11 px advance widths (rounded to tenths of a pixel) of the characters badges use.
_WIDTHS = {
    **{d: 7.0 for d in "0123456789"},
    "%": 11.9, ".": 3.5, " ": 3.5, "-": 4.6, ":": 4.6,
    "a": 6.7, "b": 6.8, "c": 5.8, "d": 6.8, "e": 6.6, "f": 3.8, "g": 6.8, "h": 6.9, "i": 3.0, "j": 3.8,
    "k": 6.5, "l": 3.0, "m": 10.7, "n": 6.9, "o": 6.6, "p": 6.8, "q": 6.8, "r": 4.7, "s": 5.7, "t": 4.3,
    "u": 6.9, "v": 6.5, "w": 8.9, "x": 6.5, "y": 6.5, "z": 5.8,
}
_WIDE = 9.0
_PAD = 6  # pixels each side of a text


def _text_width(text: str) -> int:
    return round(sum(_WIDTHS.get(ch, _WIDE) for ch in text))


def badge_colour(pc: float) -> str:
    for minimum, colour in COLOURS:
        if pc >= minimum:
            return colour
    return COLOURS[-1][1]


def badge_svg(result: CoverageResult | Analysis, *, label: str = "coverage", precision: int = 0) -> bytes:
    """The badge of `result`'s total line coverage as UTF-8 SVG bytes."""
    pc = Analysis.of(result).totals.percent
    value = display_percent(pc, precision) + "%"
    colour = badge_colour(pc)
    lw = _text_width(label) + 2 * _PAD
    vw = _text_width(value) + 2 * _PAD
    w = lw + vw
    title = f"{label}: {value}"
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label={quoteattr(title)}>
  <title>{escape(title)}</title>
  <linearGradient id="s" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>
  <clipPath id="r"><rect width="{w}" height="20" rx="3" fill="#fff"/></clipPath>
  <g clip-path="url(#r)">
    <rect width="{lw}" height="20" fill="#555"/>
    <rect x="{lw}" width="{vw}" height="20" fill="{colour}"/>
    <rect width="{w}" height="20" fill="url(#s)"/>
  </g>
  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
    <text x="{lw / 2:g}" y="15" fill="#010101" fill-opacity=".3">{escape(label)}</text>
    <text x="{lw / 2:g}" y="14">{escape(label)}</text>
    <text x="{lw + vw / 2:g}" y="15" fill="#010101" fill-opacity=".3">{escape(value)}</text>
    <text x="{lw + vw / 2:g}" y="14">{escape(value)}</text>
  </g>
</svg>
"""
    return svg.encode("utf-8")
