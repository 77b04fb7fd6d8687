"""Cobertura XML: gold file, DTD validity, encoding, rates, paths and determinism.

Set DOTCOV_UPDATE_GOLD=1 to rewrite tests/gold/ from the current output, then review the diff.
The DTD is read from $DOTCOV_SHARED_DIR/data/coverage-04.dtd, else <repo>/../shared/data/.
"""

from __future__ import annotations

import copy
import functools
import io
import os
import random
import sys
from pathlib import Path

import pytest
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report import ROOT, check_gold, sample_result  # noqa: E402

from dotcov.reports import cobertura  # noqa: E402
from dotcov.reports.cobertura import cobertura_xml, rate, write_cobertura  # noqa: E402
from dotcov.analysis.model import AssemblyCoverage, BranchCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage  # noqa: E402
from dotcov.reports.text import render_table  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'


def dtd_path() -> Path:
    shared = os.environ.get("DOTCOV_SHARED_DIR")
    path = (Path(shared) if shared else REPO.parent / "shared") / "data" / "coverage-04.dtd"
    if not path.is_file():
        pytest.fail(f"Cobertura DTD not found at {path} (set DOTCOV_SHARED_DIR to the directory holding data/)")
    return path


@functools.cache
def load_dtd() -> etree.DTD:
    return etree.DTD(str(dtd_path()))


# The one attribute dotcov writes beyond coverage-04.dtd (as coverlet does): ReportGenerator computes CRAP
# from a method's complexity only.
METHOD_COMPLEXITY = "<!ATTLIST method complexity CDATA #IMPLIED>\n"


@functools.cache
def load_dtd_with_method_complexity() -> etree.DTD:
    return etree.DTD(io.StringIO(dtd_path().read_text(encoding="utf-8") + METHOD_COMPLEXITY))


def assert_valid(xml: bytes) -> etree._Element:
    """Parses `xml` and checks it against the DTD plus <method complexity> (a missing DTD fails the test,
    never skips it)."""
    dtd = load_dtd_with_method_complexity()
    doc = etree.fromstring(xml)
    assert dtd.validate(doc), dtd.error_log.filter_from_errors()
    return doc


def xml_of(result: CoverageResult, **kwargs) -> bytes:
    return cobertura_xml(result, version="0.1.0", **kwargs)


# --- the document ------------------------------------------------------------------------

def test_gold():
    check_gold("cobertura.xml", xml_of(sample_result()).decode("utf-8").removesuffix("\n"))


def test_valid_against_dtd():
    assert_valid(xml_of(sample_result()))
    assert_valid(xml_of(CoverageResult()))
    assert_valid(xml_of(CoverageResult(source_root=ROOT, assemblies=[AssemblyCoverage("Nothing")])))


def test_utf8_without_bom_and_declaration():
    xml = xml_of(sample_result())
    assert not xml.startswith(b"\xef\xbb\xbf")
    assert xml.startswith(DECLARATION)
    assert b"<!DOCTYPE" not in xml
    assert b"\r" not in xml
    xml.decode("utf-8")


def test_root_attributes_in_coverlet_order():
    doc = etree.fromstring(xml_of(sample_result(), timestamp=1234))
    assert list(doc.attrib) == ["line-rate", "branch-rate", "version", "timestamp", "lines-covered", "lines-valid",
                                "branches-covered", "branches-valid", "complexity"]
    assert doc.get("version") == "0.1.0"
    assert doc.get("timestamp") == "1234"
    assert etree.fromstring(xml_of(sample_result())).get("timestamp") == "1700000000"
    assert [s.text for s in doc.find("sources")] == [ROOT + "/"]


def test_totals_agree_with_text_report():
    doc = etree.fromstring(xml_of(sample_result()))
    total = render_table(sample_result()).splitlines()[-1].split()
    statements, missed = int(total[1]), int(total[2])
    assert int(doc.get("lines-valid")) == statements
    assert int(doc.get("lines-covered")) == statements - missed
    assert doc.get("line-rate") == rate(statements - missed, statements)


def test_no_branch_data():
    doc = etree.fromstring(xml_of(sample_result()))
    assert doc.get("branch-rate") == "0"
    assert doc.get("branches-valid") == "0" and doc.get("branches-covered") == "0"
    assert {e.get("branch-rate") for e in doc.iter("package", "class", "method")} == {"0"}
    assert {line.get("branch") for line in doc.iter("line")} == {"False"}
    assert not list(doc.iter("conditions"))


def test_structure_and_paths():
    doc = etree.fromstring(xml_of(sample_result()))
    packages = doc.findall("packages/package")
    assert [p.get("name") for p in packages] == ["Calc", "Util"]
    classes = {(p.get("name"), c.get("name")): c for p in packages for c in p.iterfind("classes/class")}
    assert classes["Calc", "Calc.Calculator/Parser"].get("filename") == "Calc/Calculator.cs"
    assert classes["Util", "Util.Vendor`1"].get("filename") == "/opt/ext/Vendor.cs"
    empty = classes["Calc", "Calc.Empty"]
    assert empty.get("line-rate") == "1" and len(empty.find("methods")) == 0 and len(empty.find("lines")) == 0
    calc = classes["Calc", "Calc.Calculator"]
    assert [m.get("name") for m in calc.iterfind("methods/method")] == ["Add", "Div"]
    (div,) = calc.iterfind("methods/method[@name='Div']")
    assert div.get("signature") == "(System.Int32,System.Int32)"
    assert div.get("line-rate") == "0.4"
    assert [(e.get("number"), e.get("hits")) for e in div.iterfind("lines/line")] == \
        [("9", "2"), ("10", "0"), ("11", "0"), ("12", "0"), ("14", "2")]
    assert [e.get("number") for e in calc.iterfind("lines/line")] == ["5", "6", "9", "10", "11", "12", "14"]
    assert calc.get("line-rate") == "0.5714"  # 4/7 truncated, as coverlet
    vendor = classes["Util", "Util.Vendor`1"].find("methods/method")
    assert vendor.get("signature") == "(System.Collections.Generic.List`1<System.String>)"  # escaped and back
    assert packages[0].get("line-rate") == rate(10, 15)  # its own files: Guard.cs is 1 of 2 here


def test_source_root_with_trailing_slash_and_none():
    result = sample_result()
    result.source_root = ROOT + "/"
    assert xml_of(result) == xml_of(sample_result())
    result.source_root = ""
    doc = etree.fromstring(xml_of(result))
    assert len(doc.find("sources")) == 0
    assert {c.get("filename") for c in doc.iter("class")} >= {f"{ROOT}/Calc/Calculator.cs", "/opt/ext/Vendor.cs"}


def test_deterministic_whatever_the_input_order():
    expected = xml_of(sample_result())
    rng = random.Random(7)
    for _ in range(5):
        result = sample_result()
        rng.shuffle(result.assemblies)
        for asm in result.assemblies:
            rng.shuffle(asm.classes)
            asm.files = dict(rng.sample(list(asm.files.items()), len(asm.files)))
            for cls in asm.classes:
                rng.shuffle(cls.methods)
                cls.lines = dict(rng.sample(list(cls.lines.items()), len(cls.lines)))
                for m in cls.methods:
                    m.lines = dict(rng.sample(list(m.lines.items()), len(m.lines)))
        assert xml_of(result) == expected


def test_builds_of_one_assembly_merge():
    """results.build appends the classes of another build (target framework) of the same assembly."""
    one = ClassCoverage("N.T", f"{ROOT}/T.cs", [MethodCoverage("M", "()", {3: 1, 4: 0})], {3: 1, 4: 0})
    two = ClassCoverage("N.T", f"{ROOT}/T.cs", [MethodCoverage("M", "()", {3: 2, 4: 5})], {3: 2, 4: 5})
    asm = AssemblyCoverage("A", [one, two], {f"{ROOT}/T.cs": FileCoverage(f"{ROOT}/T.cs", {3: 3, 4: 5})})
    doc = etree.fromstring(xml_of(CoverageResult([asm], source_root=ROOT)))
    (cls,) = doc.iter("class")
    (method,) = cls.iter("method")
    assert [(e.get("number"), e.get("hits")) for e in method.iter("line")] == [("3", "3"), ("4", "5")]
    assert cls.get("line-rate") == "1" and method.get("line-rate") == "1"


def test_class_lines_fall_back_to_method_lines_and_methods_without_lines_are_left_out():
    cls = ClassCoverage("N.T", f"{ROOT}/T.cs", [MethodCoverage("M", "()", {7: 0, 8: 1}), MethodCoverage("Gone", "()")])
    xml = xml_of(CoverageResult([AssemblyCoverage("A", [cls])], source_root=ROOT))
    doc = assert_valid(xml)
    assert [m.get("name") for m in doc.iter("method")] == ["M"]
    assert [e.get("number") for e in doc.find(".//class/lines")] == ["7", "8"]
    assert doc.get("lines-valid") == "2" and doc.get("lines-covered") == "1"  # no files listed: from classes


def test_awkward_names_stay_well_formed():
    odd = f"{ROOT}/we\u00efrd & <odd> \"name\"\tx\udcff\x01.cs"
    cls = ClassCoverage("N.Op<T>&\"q\"", odd, [MethodCoverage("op_<", "(T&)", {1: 1})], {1: 1})
    xml = xml_of(CoverageResult([AssemblyCoverage("A&B", [cls], {odd: FileCoverage(odd, {1: 1})})], source_root=ROOT))
    doc = assert_valid(xml)
    c = doc.find(".//class")
    assert c.get("name") == "N.Op<T>&\"q\""
    assert c.get("filename") == "we\u00efrd & <odd> \"name\"\tx\ufffd\ufffd.cs"


# --- rates ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "covered,total,expected",
    [(5, 6, "0.8333"), (2, 3, "0.6666"), (1, 3, "0.3333"), (1, 2, "0.5"), (199, 200, "0.995"), (9999, 10000, "0.9999"),
     (99999, 100000, "0.9999"), (1, 100000, "0"), (0, 4, "0"), (4, 4, "1"), (0, 0, "1"), (3, 7, "0.4285")],
)
def test_rate(covered, total, expected):
    assert rate(covered, total) == expected


# --- the branch hook ------------------------------------------------------------------------

def test_branches_write_valid_conditions_and_add_up():
    result = sample_result()
    calc = result.assemblies[0]
    cls = calc.classes[0]
    path = cls.filename
    div = next(m for m in cls.methods if m.name == "Div")
    add = next(m for m in cls.methods if m.name == "Add")
    div.branches[9] = BranchCoverage(1, 2, ["jump never taken"], [(12, "jump", 1, 2)], [(12, [3, 0])])
    add.branches[5] = BranchCoverage(3, 3, [], [(4, "switch", 3, 3)], [(4, [1, 1, 1])])
    calc.files[path].branches = {9: copy.deepcopy(div.branches[9]), 5: copy.deepcopy(add.branches[5])}
    doc = assert_valid(xml_of(result))
    assert doc.get("branches-valid") == "5" and doc.get("branches-covered") == "4"
    assert doc.get("branch-rate") == "0.8"
    line9 = doc.find(".//class[@name='Calc.Calculator']/lines/line[@number='9']")
    assert line9.get("branch") == "True"
    assert line9.get("condition-coverage") == "50% (1/2)"
    (cond,) = line9.iter("condition")
    assert dict(cond.attrib) == {"number": "12", "type": "jump", "coverage": "50%"}
    calc_pkg, util_pkg = doc.findall("packages/package")
    assert calc_pkg.get("branch-rate") == "0.8"
    assert util_pkg.get("branch-rate") == "1"  # branches measured, but none in this package
    assert doc.find(".//method[@name='Get']").get("branch-rate") == "1"
    # The same numbers as the table's TOTAL row.
    total = render_table(result).splitlines()[-1].split()
    assert (int(total[3]), int(total[4])) == (5, 1)  # Branch, BrPart


# --- writing -------------------------------------------------------------------------------

def test_write_cobertura(tmp_path):
    out = tmp_path / "coverage.cobertura.xml"
    out.write_bytes(b"old")
    write_cobertura(sample_result(), str(out), version="0.1.0", timestamp=42)
    assert out.read_bytes() == xml_of(sample_result(), timestamp=42)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_input_is_not_modified():
    result = sample_result()
    before = copy.deepcopy(result)
    xml_of(result)
    assert result == before


def test_method_complexity_is_the_only_departure_from_the_dtd():
    """<method complexity> (which ReportGenerator needs for CRAP) is all the plain DTD rejects."""
    doc = etree.fromstring(xml_of(sample_result()))
    assert not load_dtd().validate(doc)
    for m in doc.iter("method"):
        del m.attrib["complexity"]
    assert load_dtd().validate(doc), load_dtd().error_log.filter_from_errors()
