"""The HTML report driven in a real browser: tests/browser/report.spec.js (Playwright over Debian's chromium)
sorts every column, filters, searches across files, follows links, uses the keys, opens the method and hotspot
pages, checks the layout at 1300 px and the dark theme, and fails on any console error.

scripts/setup.sh installs Playwright (`npm ci` in tests/browser); no browser is downloaded.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest

from dotcov.html import search as html_search
from dotcov.html.report import write_html
from dotcov.analysis.model import MethodCoverage
from test_html import CHROMIUM, SRC, methods_result

BROWSER = Path(__file__).resolve().parent / "browser"


def browser_result(root: Path = SRC):
    """methods_result with a method whose class and signature are long (the methods page must wrap them)."""
    result = methods_result(root)
    lib = result.assemblies[1]
    util = lib.classes[0]
    util.name = "Lib.Util.Collections.Generic.ExtraordinarilyLongNamespaceSegment.UtilityFunctionsForSequences"
    util.methods = [MethodCoverage(
        "mapAndFilterAndFold",
        "(Microsoft.FSharp.Core.FSharpFunc`2<System.Collections.Generic.IEnumerable`1<System.Int32>,"
        "System.Collections.Generic.Dictionary`2<System.String,System.Collections.Generic.List`1<System.Int32>>>)",
        {3: 5, 5: 2, 6: 2}, token=0x06000004)]
    return result


def write_browser_report(out: Path, history: Path | None = None, **kwargs) -> Path:
    """The report of browser_result(); with `history`, the third of three runs (coverage rising)."""
    kwargs.setdefault("version", "9.9.9")
    kwargs.setdefault("timestamp", 1700000000)
    if history is not None:
        start = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.timezone.utc)
        for i, missed in enumerate([(3, 5, 8), (7,), ()]):
            result = browser_result()
            util = next(f for f in result.assemblies[1].files.values() if f.path.endswith("Util.fs"))
            for n in missed:
                util.lines[n] = 0
            index = write_html(result, out, history=history, history_options=dict(
                now=start + dt.timedelta(days=3 * i), commit=f"{i + 1:x}" * 40), **kwargs)
        return index
    return write_html(browser_result(), out, **kwargs)


def run_spec(report: Path) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the browser test needs Node.js 20 or later (scripts/setup.sh says how)")
    if not (BROWSER / "node_modules" / "playwright-core").is_dir():
        pytest.fail("Playwright is not installed: run scripts/setup.sh (npm ci in tests/browser)")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (scripts/setup.sh does)")
    return subprocess.run([node, str(BROWSER / "report.spec.js"), str(report)], cwd=BROWSER,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_report_in_a_real_browser(tmp_path, monkeypatch):
    # one source chunk per file: the spec checks that the first chunk's hits show before the others are read
    monkeypatch.setattr(html_search, "FIRST_CHUNK_CHARS", 1)
    monkeypatch.setattr(html_search, "CHUNK_CHARS", 1)
    index = write_browser_report(tmp_path / "htmlcov", history=tmp_path / "history")
    proc = run_spec(index.parent)
    assert proc.returncode == 0, f"report.spec.js failed:\n{proc.stdout}\n{proc.stderr}"
    assert "not ok" not in proc.stdout and proc.stdout.count("ok - ") >= 10, proc.stdout
