"""`dotcov badge` (src/dotcov/reports/badge.py): the SVG coverage badge, its colour steps, its atomic write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import check_gold, one_file, covered_of, sample_result  # noqa: E402

from dotcov.analysis.numbers import Analysis  # noqa: E402
from dotcov.api import Coverage  # noqa: E402
from dotcov.reports.badge import badge_colour, badge_svg  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def parts(svg: bytes) -> tuple[list[str], str, list[int]]:
    """(texts, value box colour, rect widths) of a badge."""
    doc = etree.fromstring(svg)
    texts = [t.text for t in doc.iter(f"{SVG}text")]
    rects = list(doc.iter(f"{SVG}rect"))
    return texts, rects[2].get("fill"), [int(r.get("width")) for r in rects]


def test_gold():
    check_gold("badge.svg", badge_svg(sample_result()).decode("utf-8").removesuffix("\n"))


@pytest.mark.parametrize("covered,colour", [(100, "#4c1"), (90, "#4c1"), (89, "#97ca00"), (80, "#97ca00"),
                                            (75, "#a4a61d"), (60, "#dfb317"), (50, "#fe7d37"), (49, "#e05d44"),
                                            (0, "#e05d44")])
def test_colour_steps(covered, colour):
    texts, fill, _ = parts(badge_svg(one_file(covered_of(covered, 100))))
    assert fill == colour == badge_colour(float(covered))
    assert texts[2] == f"{covered}%"


def test_percent_follows_the_tables_rule_and_precision():
    # 199 of 200 is 99.5%: never shown as 100% (coverage.py's rule, as the table), and coloured by the real value.
    texts, fill, _ = parts(badge_svg(one_file(covered_of(199, 200))))
    assert texts == ["coverage", "coverage", "99%", "99%"]
    texts, _, _ = parts(badge_svg(one_file(covered_of(2, 3)), precision=1))
    assert texts[2] == "66.7%"


def test_boxes_fit_the_text_and_names_are_escaped():
    _, _, short = parts(badge_svg(one_file(covered_of(5, 100))))
    _, _, long = parts(badge_svg(one_file(covered_of(5, 100)), precision=2))
    assert long[0] > short[0] and long[2] > short[2] and long[1] == short[1]  # the badge and the value box grow
    doc = etree.fromstring(badge_svg(one_file({1: 1}), label="a<b & c"))
    assert doc.find(f"{SVG}title").text == "a<b & c: 100%"
    assert doc.get("aria-label") == "a<b & c: 100%"


def test_the_api_writes_it_atomically(tmp_path):
    out = tmp_path / "coverage.svg"
    out.write_bytes(b"old")
    cov = Coverage(tmp_path)
    cov._analysis = Analysis.of(sample_result())  # as load() + analysis() would leave it
    assert cov.badge(out) == pytest.approx(cov.analysis().totals.percent)
    assert out.read_bytes() == badge_svg(sample_result())
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind


def test_the_command_without_data_says_what_to_do(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dotcov", "badge", "--data-dir", str(tmp_path / "none")], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "dotcov run -- dotnet test" in r.stderr
    assert not (tmp_path / "coverage.svg").exists()
