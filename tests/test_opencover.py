"""OpenCover XML: gold files, well-formedness, the structure SonarQube and ReportGenerator read, totals.

No XSD for OpenCover's output is at hand, so the tests check with XPath what the consumers' parsers
read: SonarQube's OpenCoverReportParser (CoverageSession root; File uid/fullPath unique by uid across the
session; SequencePoint sl/vc/fileid) and ReportGenerator's OpenCoverParser (ModuleName, Class FullName,
Method Name `…::Name(Args)`, SequencePoint sl/el/vc, integer/decimal method metrics, visited).
Set DOTCOV_UPDATE_GOLD=1 to rewrite tests/gold/ from the current output, then review the diff.
"""

from __future__ import annotations

import copy
import random
import re
import sys
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_json_report import DIV, LAMBDA, awkward_result, rich_result  # noqa: E402
from test_report import ROOT, check_gold, sample_result  # noqa: E402

from dotcov.analysis.model import AssemblyCoverage, ClassCoverage, CoverageResult, FileCoverage, MethodCoverage  # noqa: E402
from dotcov.reports.opencover import XSI, opencover_xml, write_opencover  # noqa: E402
from dotcov.reports.text import summarize  # noqa: E402

DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'
SUMMARY_ATTRS = ["numSequencePoints", "visitedSequencePoints", "numBranchPoints", "visitedBranchPoints",
                 "sequenceCoverage", "branchCoverage", "maxCyclomaticComplexity", "minCyclomaticComplexity",
                 "visitedClasses", "numClasses", "visitedMethods", "numMethods"]
METHOD_ATTRS = ["visited", "cyclomaticComplexity", "nPathComplexity", "sequenceCoverage", "branchCoverage",
                "isConstructor", "isGetter", "isSetter", "isStatic", "crapScore"]
POINT_ATTRS = ["vc", "uspid", "ordinal", "offset", "sl", "sc", "el", "ec", "bec", "bev", "fileid"]
NUMBER = re.compile(r"\d+(\.\d{1,2})?")


def xml_of(result: CoverageResult, **kwargs) -> bytes:
    return opencover_xml(result, version="0.1.0", **kwargs)


def doc_of(result: CoverageResult) -> etree._Element:
    return etree.fromstring(xml_of(result))


def line_coverage(doc: etree._Element) -> dict[str, dict[int, int]]:
    """Line hits per file as ReportGenerator rebuilds them: each point covers sl..el, hits add up."""
    paths = {f.get("uid"): f.get("fullPath") for f in doc.iter("File")}
    files: dict[str, dict[int, int]] = {p: {} for p in paths.values()}
    for sp in doc.iter("SequencePoint"):
        lines = files[paths[sp.get("fileid")]]
        for n in range(int(sp.get("sl")), int(sp.get("el")) + 1):
            lines[n] = lines.get(n, 0) + int(sp.get("vc"))
    return files


# --- the document -------------------------------------------------------------------------------

def test_gold_sample():
    check_gold("opencover.xml", xml_of(sample_result()).decode("utf-8").removesuffix("\n"))


def test_gold_rich():
    check_gold("opencover_rich.xml", xml_of(rich_result()).decode("utf-8").removesuffix("\n"))


def test_gold_awkward():
    """The document is written a class at a time: the gold file was written element by element (the writer
    before it streamed), on a model with the cases that differ (see awkward_result)."""
    check_gold("opencover_awkward.xml", xml_of(awkward_result()).decode("utf-8").removesuffix("\n"))


def test_write_opencover_writes_opencover_xml(tmp_path):
    for result in (awkward_result(), rich_result(), sample_result(), CoverageResult(source_root=ROOT)):
        write_opencover(result, tmp_path / "o.xml", version="0")
        assert (tmp_path / "o.xml").read_bytes() == xml_of(result)
        etree.fromstring(xml_of(result))


def test_well_formed_utf8_without_bom():
    for result in (sample_result(), rich_result(), CoverageResult()):
        xml = xml_of(result)
        assert xml.startswith(DECLARATION) and not xml.startswith(b"\xef\xbb\xbf")
        assert b"\r" not in xml
        etree.fromstring(xml)  # raises if not well-formed (namespaces included)


def test_structure_sonarqube_reads():
    for result in (sample_result(), rich_result()):
        doc = doc_of(result)
        assert doc.tag == "CoverageSession"
        files = doc.xpath("/CoverageSession/Modules/Module/Files/File")
        uids = {}
        for f in files:  # a uid names one path in the whole session
            assert uids.setdefault(f.get("uid"), f.get("fullPath")) == f.get("fullPath")
            assert f.get("fullPath").startswith("/")
        points = doc.xpath("/CoverageSession/Modules/Module/Classes/Class/Methods/Method/SequencePoints/SequencePoint")
        assert points and len(points) == len(list(doc.iter("SequencePoint")))
        for sp in points:
            assert sp.get("fileid") in uids
            assert sp.get("sl").isdigit() and sp.get("vc").isdigit()
            module_files = sp.xpath("ancestor::Module/Files/File/@uid")
            assert sp.get("fileid") in module_files
            assert sp.get("fileid") == sp.xpath("../../FileRef/@uid")[0]


def test_structure_reportgenerator_reads():
    doc = doc_of(rich_result())
    (module,) = doc.xpath("/CoverageSession/Modules/Module")
    assert list(module.attrib) == ["hash"]
    assert [e.tag for e in module] == ["Summary", "ModulePath", "ModuleTime", "ModuleName", "Files", "Classes"]
    assert module.findtext("ModuleName") == "Calc"
    (cls,) = module.xpath("Classes/Class")
    assert [e.tag for e in cls] == ["Summary", "FullName", "Methods"]
    assert cls.findtext("FullName") == "Calc.Calculator"
    names = cls.xpath("Methods/Method/Name/text()")
    assert names == ["Calc.Calculator::.ctor()", "Calc.Calculator::Add(System.Int32,System.Int32)",
                     "Calc.Calculator::Div(System.Int32,System.Int32)", "Calc.Calculator::get_Name()"]
    assert all(re.fullmatch(r"^.*::(?P<name>.+)\((?P<args>.*)\)$", n) for n in names)
    for method in cls.iter("Method"):
        assert list(method.attrib) == METHOD_ATTRS
        assert [e.tag for e in method] == ["Summary", "MetadataToken", "Name", "FileRef", "SequencePoints",
                                           "BranchPoints", "MethodPoint"]
        int(method.get("cyclomaticComplexity")), int(method.get("nPathComplexity"))
        assert NUMBER.fullmatch(method.get("sequenceCoverage")) and NUMBER.fullmatch(method.get("branchCoverage"))
        assert {method.get(a) for a in METHOD_ATTRS if a.startswith(("is", "visited"))} <= {"true", "false"}
        for sp in method.iter("SequencePoint"):
            assert list(sp.attrib) == POINT_ATTRS
    for summary in doc.iter("Summary"):
        assert list(summary.attrib) == SUMMARY_ATTRS


def test_method_attributes():
    doc = doc_of(rich_result())
    methods = {m.findtext("Name").split("::")[1]: m for m in doc.iter("Method")}
    ctor, getter = methods[".ctor()"], methods["get_Name()"]
    assert (ctor.get("isConstructor"), ctor.get("isGetter"), ctor.get("isStatic")) == ("true", "false", "false")
    assert (getter.get("isGetter"), getter.get("isSetter"), getter.get("visited")) == ("true", "false", "false")
    div = methods["Div(System.Int32,System.Int32)"]
    assert div.get("visited") == "true" and div.get("sequenceCoverage") == "60"  # 3 of 5 statement lines
    assert div.findtext("MetadataToken") == str(DIV)
    static = doc_of(CoverageResult([AssemblyCoverage("A", [ClassCoverage("T", "/x/T.cs", [
        MethodCoverage(".cctor", "()", {1: 1})])])]))
    assert static.find(".//Method").get("isStatic") == "true"
    assert static.find(".//MetadataToken").text is None  # token unknown: empty, as coverlet


def test_points_are_the_statement_lines():
    doc = doc_of(rich_result())
    div = [m for m in doc.iter("Method") if "::Div" in m.findtext("Name")][0]
    points = div.findall("SequencePoints/SequencePoint")
    assert [(p.get("offset"), p.get("sl"), p.get("sc"), p.get("el"), p.get("ec"), p.get("vc")) for p in points] == [
        ("0", "9", "5", "9", "6", "2"), ("1", "10", "9", "10", "24", "2"), ("8", "11", "13", "11", "14", "0"),
        ("8", "12", "1", "12", "2", "0"),  # a continuation line: the spanning point's offset
        ("0", "14", "20", "14", "31", "2")]  # the last one is the folded lambda's (token LAMBDA)
    assert LAMBDA != DIV
    assert [p.get("ordinal") for p in points] == ["0", "1", "2", "3", "4"]
    mp = div.find("MethodPoint")
    assert mp.get(f"{{{XSI}}}type") == "SequencePoint"
    assert {k: v for k, v in mp.attrib.items() if not k.startswith("{")} == dict(points[0].attrib)


def test_uspids_unique_in_the_session():
    for result in (sample_result(), rich_result()):
        doc = doc_of(result)
        uspids = [int(sp.get("uspid")) for sp in doc.iter("SequencePoint")]
        assert uspids == list(range(1, len(uspids) + 1))


def test_line_coverage_agrees_with_the_terminal_table():
    for result in (sample_result(), rich_result()):
        doc = doc_of(result)
        summary = summarize(result)
        files = line_coverage(doc)
        statements = sum(len(lines) for lines in files.values())
        missed = sum(1 for lines in files.values() for h in lines.values() if h == 0)
        assert (statements, missed) == (summary.total.statements, summary.total.missed)
        rows = {r.name: r for r in summarize(result, relative_to="/").rows}
        for path, lines in files.items():
            row = rows[path.lstrip("/")]
            assert (len(lines), sum(1 for h in lines.values() if h == 0)) == (row.statements, row.missed)


def test_summaries_add_up():
    # rich_result: one module, so the session's Summary is the module's and the sum of its parts.
    doc = doc_of(rich_result())
    top = doc.find("Summary")
    points = list(doc.iter("SequencePoint"))
    assert int(top.get("numSequencePoints")) == len(points)
    assert int(top.get("visitedSequencePoints")) == sum(1 for p in points if p.get("vc") != "0")
    assert int(top.get("numMethods")) == len(list(doc.iter("Method")))
    assert int(top.get("visitedMethods")) == len(doc.xpath("//Method[@visited='true']"))
    assert int(top.get("numClasses")) == len(list(doc.iter("Class")))
    modules = doc.xpath("/CoverageSession/Modules/Module/Summary")
    for attr in SUMMARY_ATTRS[:4] + SUMMARY_ATTRS[-4:]:
        assert int(top.get(attr)) == sum(int(m.get(attr)) for m in modules)


def test_session_summary_counts_a_shared_file_once():
    """Guard.cs is compiled into both modules of sample_result: each module counts it, the session once
    (as the table's TOTAL and Cobertura's root do)."""
    doc = doc_of(sample_result())
    top = doc.find("Summary")
    modules = doc.xpath("/CoverageSession/Modules/Module/Summary")
    guard_points = len(doc.xpath("//Method[contains(Name, 'Guard')]/SequencePoints/SequencePoint"))
    assert guard_points == 4  # 2 in each module
    assert int(top.get("numSequencePoints")) == sum(int(m.get("numSequencePoints")) for m in modules) - 2
    assert top.get("sequenceCoverage") == "17.4"  # 212 of 1218 points
    assert int(top.get("numMethods")) == sum(int(m.get("numMethods")) for m in modules) - 1
    assert top.get("branchCoverage") == "0" and top.get("numBranchPoints") == "0"


def test_branch_counts_go_to_the_first_point_of_their_line():
    doc = doc_of(rich_result())
    with_branches = [(p.get("sl"), p.get("bec"), p.get("bev"))
                     for p in doc.iter("SequencePoint") if p.get("bec") != "0"]
    assert with_branches == [("10", "2", "1"), ("11", "2", "0")]
    top = doc.find("Summary")
    assert (top.get("numBranchPoints"), top.get("visitedBranchPoints"), top.get("branchCoverage")) == ("4", "1", "25")
    assert not list(doc.iter("BranchPoint"))
    add = [m for m in doc.iter("Method") if "::Add" in m.findtext("Name")][0]
    assert add.get("branchCoverage") == "100"  # branches measured, none here
    assert doc_of(rich_result(branches=False)).find("Summary").get("branchCoverage") == "0"


def test_one_class_per_type_and_file_uids():
    doc = doc_of(sample_result())
    calc = doc.xpath("//Module[ModuleName='Calc']")[0]
    assert calc.xpath("Classes/Class/FullName/text()") == ["Calc.Calculator", "Calc.Calculator/Parser", "Calc.Empty",
                                                           "Calc.Full", "Shared.Guard"]
    guard_uids = set(doc.xpath("//File[@fullPath='/src/proj/Shared/Guard.cs']/@uid"))
    assert len(guard_uids) == 1  # one uid per path, listed by both modules
    assert len(doc.xpath("//File[@fullPath='/src/proj/Shared/Guard.cs']")) == 2
    empty = calc.xpath("Classes/Class[FullName='Calc.Empty']")[0]
    assert len(empty.find("Methods")) == 0 and empty.find("Summary").get("visitedClasses") == "0"


def test_partial_class_is_one_class_with_methods_in_two_files():
    a = ClassCoverage("N.P", "/x/A.cs", [MethodCoverage("M", "()", {3: 1})], {3: 1})
    b = ClassCoverage("N.P", "/x/B.cs", [MethodCoverage("K", "()", {7: 0})], {7: 0})
    doc = doc_of(CoverageResult([AssemblyCoverage("A", [a, b])]))
    (cls,) = doc.iter("Class")
    assert cls.find("Summary").get("numMethods") == "2" and cls.find("Summary").get("visitedMethods") == "1"
    assert [m.find("FileRef").get("uid") for m in cls.iter("Method")] == ["1", "2"]


def test_awkward_names_stay_well_formed():
    odd = f"{ROOT}/we\u00efrd & <odd> \"name\"\udcff\x01.cs"
    cls = ClassCoverage("N.Op<T>&", odd, [MethodCoverage("op_<", "(T&)", {1: 1})], {1: 1})
    doc = doc_of(CoverageResult([AssemblyCoverage("A&B", [cls], {odd: FileCoverage(odd, {1: 1})})]))
    assert doc.find(".//FullName").text == "N.Op<T>&"
    assert doc.find(".//Name").text == "N.Op<T>&::op_<(T&)"
    assert doc.find(".//File").get("fullPath") == f"{ROOT}/we\u00efrd & <odd> \"name\"\ufffd\ufffd.cs"


def test_deterministic_whatever_the_input_order():
    for make in (sample_result, rich_result):
        expected = xml_of(make())
        rng = random.Random(11)
        for _ in range(4):
            result = make()
            rng.shuffle(result.assemblies)
            for asm in result.assemblies:
                rng.shuffle(asm.classes)
                asm.files = dict(rng.sample(list(asm.files.items()), len(asm.files)))
                for cls in asm.classes:
                    rng.shuffle(cls.methods)
                    for m in cls.methods:
                        m.lines = dict(rng.sample(list(m.lines.items()), len(m.lines)))
                        rng.shuffle(m.points)
            assert xml_of(result) == expected


def test_module_fields_are_stable():
    doc = doc_of(sample_result())
    module = doc.find(".//Module")
    assert re.fullmatch(r"([0-9A-F]{2}-){19}[0-9A-F]{2}", module.get("hash"))
    assert module.findtext("ModuleTime") == "2023-11-14T22:13:20Z"
    assert etree.fromstring(xml_of(sample_result(), timestamp=0)).findtext(".//ModuleTime") == "1970-01-01T00:00:00Z"


def test_empty_result():
    doc = doc_of(CoverageResult())
    assert len(doc.find("Modules")) == 0
    assert doc.find("Summary").get("numSequencePoints") == "0"
    assert doc.find("Summary").get("sequenceCoverage") == "100"


def test_input_is_not_modified():
    result = rich_result()
    before = copy.deepcopy(result)
    xml_of(result)
    assert result == before


def test_write_opencover(tmp_path):
    out = tmp_path / "coverage.opencover.xml"
    out.write_bytes(b"old")
    write_opencover(sample_result(), out, version="0.1.0", timestamp=42)
    assert out.read_bytes() == xml_of(sample_result(), timestamp=42)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
