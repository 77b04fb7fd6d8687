"""ReportGenerator (restored from the NuGet registry by tests/reportgenerator) reads dotcov's
Cobertura XML and finds the same totals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, SAMPLES, _dotnet_env

pytestmark = pytest.mark.e2e

HOST = REPO / "tests" / "reportgenerator"


@pytest.fixture(scope="module")
def reportgenerator(dotnet) -> Path:
    subprocess.run([dotnet, "restore", str(HOST), "--nologo", "-v", "quiet"], env=_dotnet_env(), check=True)
    version = re.search(r'Include="ReportGenerator" Version="([^"]+)"', (HOST / "ReportGeneratorHost.csproj").read_text())
    packages = Path(subprocess.run([dotnet, "nuget", "locals", "global-packages", "--list"], env=_dotnet_env(),
                                   capture_output=True, text=True, check=True).stdout.split(":", 1)[1].strip())
    dll = packages / "reportgenerator" / version.group(1) / "tools" / "net10.0" / "ReportGenerator.dll"
    assert dll.is_file(), dll
    return dll


def test_reportgenerator_reads_our_cobertura(measured_sample, dotnet, reportgenerator, tmp_path):
    run = measured_sample("Calc.Tests", tmp_path)
    assert run.status == 0, run.stderr
    xml = tmp_path / "coverage.cobertura.xml"
    subprocess.run([sys.executable, "-m", "dotcov", "xml", "--data-dir", str(run.data_dir), "-o", str(xml)],
                   cwd=SAMPLES, env=_dotnet_env(), check=True, capture_output=True)
    out = tmp_path / "report"
    rg = subprocess.run([dotnet, str(reportgenerator), f"-reports:{xml}", f"-targetdir:{out}",
                         "-reporttypes:TextSummary;Html"], env=_dotnet_env(), capture_output=True, text=True)
    assert rg.returncode == 0, rg.stdout + rg.stderr
    summary = (out / "Summary.txt").read_text()
    ours = subprocess.run([sys.executable, "-m", "dotcov", "report", "--data-dir", str(run.data_dir)], cwd=SAMPLES,
                          env=_dotnet_env(), capture_output=True, text=True, check=True).stdout
    total = re.search(r"^TOTAL\s+(\d+)\s+(\d+)", ours, re.M)
    statements, missed = int(total.group(1)), int(total.group(2))
    assert re.search(rf"Covered lines:\s+{statements - missed}\b", summary), summary
    assert re.search(rf"Coverable lines:\s+{statements}\b", summary), summary
    # Branch numbers come through too.
    assert re.search(r"Branch coverage:\s+\d+(\.\d+)?% \(\d+ of \d+\)", summary), summary
    assert (out / "index.html").is_file()


def test_reportgenerator_shows_our_complexity_and_crap(measured_sample, dotnet, reportgenerator, tmp_path):
    """Issue 15's bar: ReportGenerator, reading our Cobertura, shows each method's complexity and CRAP as dotcov
    computes them (its per-class XML report lists both for every method)."""
    import json

    from lxml import etree

    from dotcov.analysis.numbers import crap_shown

    run = measured_sample("Calc.Tests", tmp_path)
    assert run.status == 0, run.stderr
    xml, js = tmp_path / "coverage.cobertura.xml", tmp_path / "coverage.json"
    for fmt, path in (("xml", xml), ("json", js)):
        subprocess.run([sys.executable, "-m", "dotcov", fmt, "--data-dir", str(run.data_dir), "-o", str(path)],
                       cwd=SAMPLES, env=_dotnet_env(), check=True, capture_output=True)
    out = tmp_path / "report"
    rg = subprocess.run([dotnet, str(reportgenerator), f"-reports:{xml}", f"-targetdir:{out}", "-reporttypes:Xml"],
                        env=_dotnet_env(), capture_output=True, text=True)
    assert rg.returncode == 0, rg.stdout + rg.stderr
    theirs = []
    for page in sorted(out.glob("*.xml")):
        if page.name == "Summary.xml":
            continue
        for element in etree.parse(str(page)).iterfind(".//Metrics/Element"):
            values = {child.tag.lower(): child.text for child in element}
            cc = next(v for k, v in values.items() if k.startswith("cyclomatic"))
            crap = next(v for k, v in values.items() if k.startswith("crap"))
            theirs.append((int(float(cc)), int(float(crap))))
    doc = json.loads(js.read_text())
    ours = [(m["summary"]["complexity"], crap_shown(m["crap"]))
            for asm in doc["assemblies"] for f in asm["files"] for c in f["classes"] for m in c["methods"]]
    assert theirs and sorted(theirs) == sorted(ours)
    assert any(cc > 1 for cc, _ in ours), "the sample should have methods with branches"
    assert any(crap > cc for cc, crap in ours), "and a method whose CRAP exceeds its complexity (not fully covered)"
