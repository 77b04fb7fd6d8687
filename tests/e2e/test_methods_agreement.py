"""samples/Members: every report gives every method the same figures, and a method ran when its own code ran.

`dotnet test Members.Tests` runs under dotcov; the sample's line marks must hold exactly, then the terminal table,
Cobertura, OpenCover, lcov, JSON and the HTML methods page are written and parsed. Each gives each method (or file)
whichever of these figures it has: ran, statements, statements covered, branch outcomes, outcomes taken. Every
figure must be the same in every output that has it, the methods that ran must be exactly those the tests call
(an accessor, constructor or member sharing a line with one that ran did not run: lines.py, "a method's own
hits"), and each Cobertura method line must carry the method's own hits (the most of its own points starting on
the line).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest
from lxml import etree

from .conftest import SAMPLES, _dotnet_env, assert_matches_marks, coverage_by_file

pytestmark = pytest.mark.e2e

PROJECT = SAMPLES / "Members"
SOURCE = "Members/Shapes.cs"

# (class, method and signature) of every method the tests run; every other method of the sample never runs.
RAN = {
    ("Members.Point", ".ctor(System.Int32,System.Int32)"), ("Members.Point", "get_X()"),
    ("Members.Settings", "get_Count()"), ("Members.Settings", "get_Name()"), ("Members.Settings", "set_Limit(System.Int32)"),
    ("Members.Settings", ".ctor()"), ("Members.Settings", "get_Start()"), ("Members.Settings", "Doubled(System.Int32)"),
    ("Members.Settings", "One()"),
    ("Members.Folded", "ApplyTwice(System.Int32)"), ("Members.Folded", "WithLocal(System.Int32)"),
    ("Members.Folded", "LaterAsync(System.Int32)"),
    ("Members.Orders", "Count(System.Collections.Generic.IReadOnlyList`1<System.ValueTuple`2<System.String,System.Int32>>,"
                       "!!0,System.Nullable`1<System.Int32>&)"),
}
NEVER = {
    ("Members.Point", "get_Y()"), ("Members.Point", "set_X(System.Int32)"), ("Members.Point", "set_Y(System.Int32)"),
    ("Members.Settings", "set_Count(System.Int32)"), ("Members.Settings", "set_Name(System.String)"),
    ("Members.Settings", "get_Limit()"), ("Members.Settings", ".ctor(System.Int32)"),
    ("Members.Settings", "Tripled(System.Int32)"), ("Members.Settings", "Two()"),
    ("Members.Folded", "Countdown(System.Int32)"), ("Members.Folded", "Never(System.Int32)"),
    ("Members.Annotations", "Annotated(System.String,System.Collections.Generic.List`1<System.String>,System.Object[],"
                            "System.Collections.Generic.Dictionary`2<System.String,System.Object>)"),
    ("Members.Annotations", "Dynamic(System.Object,System.Collections.Generic.List`1<System.Object>,"
                            "System.ValueTuple`2<System.String,System.Int32>,System.Nullable`1<System.Int32>)"),
    ("Members.Annotations", "First(!!0,System.Collections.Generic.List`1<!!0>,System.String)"),
    ("Members.Annotations", "Oblivious(System.String,System.Collections.Generic.List`1<System.String>)"),
}
FIELDS = ("ran", "statements", "covered", "branches", "branches_covered")


@pytest.fixture(scope="module")
def outputs(built_samples, dotnet, tmp_path_factory):
    """The run's data dir and each report of it."""
    out = tmp_path_factory.mktemp("members")
    data_dir = out / "data"
    env = _dotnet_env()

    def dotcov(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=SAMPLES, env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    dotcov("run", "--data-dir", str(data_dir), "--no-report", "--", dotnet, "test", "Members.Tests", "--no-build",
           "--nologo")
    table = dotcov("report", "--data-dir", str(data_dir))
    for command, name in (("xml", "cobertura.xml"), ("opencover", "opencover.xml"), ("lcov", "lcov.info"),
                          ("json", "report.json")):
        dotcov(command, "--data-dir", str(data_dir), "-o", str(out / name))
    dotcov("html", "--data-dir", str(data_dir), "-d", str(out / "html"))
    return out, table


def test_members_sample_matches_marks(outputs):
    out, _table = outputs
    assert_matches_marks(coverage_by_file(out / "data", SAMPLES), PROJECT)


def _figures(**known) -> dict:
    return {k: v for k, v in known.items() if k in FIELDS}


def cobertura_methods(out) -> tuple[dict, dict]:
    """Per method its figures, and its <lines> (line -> hits)."""
    doc = etree.parse(str(out / "cobertura.xml"))
    figures, lines = {}, {}
    for cls in doc.iter("class"):
        for m in cls.iter("method"):
            key = (cls.get("name"), m.get("name") + m.get("signature"))
            hits = {int(x.get("number")): int(x.get("hits")) for x in m.iter("line")}
            taken = total = 0
            for x in m.iter("line"):
                if x.get("condition-coverage"):
                    c, t = re.search(r"\((\d+)/(\d+)\)", x.get("condition-coverage")).groups()
                    taken, total = taken + int(c), total + int(t)
            covered = sum(1 for h in hits.values() if h)
            figures[key] = _figures(ran=covered > 0, statements=len(hits), covered=covered, branches=total,
                                    branches_covered=taken)
            lines[key] = hits
    return figures, lines


def opencover_methods(out) -> dict:
    doc = etree.parse(str(out / "opencover.xml"))
    figures = {}
    for m in doc.iter("Method"):
        cls, name = m.findtext("Name").split("::")
        s = m.find("Summary")
        figures[(cls, name)] = _figures(ran=m.get("visited") == "true", statements=int(s.get("numSequencePoints")),
                                        covered=int(s.get("visitedSequencePoints")),
                                        branches=int(s.get("numBranchPoints")),
                                        branches_covered=int(s.get("visitedBranchPoints")))
    return figures


def lcov_methods(out) -> dict:
    figures = {}
    for hits, name in re.findall(r"^FNDA:(\d+),(.*)$", (out / "lcov.info").read_text(), re.M):
        prefix, args = name.split("(", 1)
        cls, method = re.match(r"^(.*?)\.(\.c?ctor|[^.]+)$", prefix).groups()
        figures[(cls, f"{method}({args.replace(';', ',')}")] = _figures(ran=int(hits) > 0)
    return figures


def json_methods(out) -> tuple[dict, dict]:
    """Per method its figures, and its points' hits by start line (the most of its points starting there)."""
    doc = json.loads((out / "report.json").read_text())
    figures, own = {}, {}
    for a in doc["assemblies"]:
        for f in a["files"]:
            for c in f["classes"]:
                for m in c["methods"]:
                    key = (c["name"], m["name"] + m["signature"])
                    s = m["summary"]
                    assert (m["hits"] > 0) == (s["covered"] > 0), key
                    figures[key] = _figures(ran=m["hits"] > 0, statements=s["statements"], covered=s["covered"])
                    starts = {}
                    for p in m["points"]:
                        starts[p["start_line"]] = max(starts.get(p["start_line"], 0), p["hits"])
                    own[key] = starts
    return figures, own


# The HTML shows methods in C# form (issue 25 item 13): this sample's parameter lists, and their metadata form.
CSHARP = {"()": "()", "(int)": "(System.Int32)", "(int, int)": "(System.Int32,System.Int32)",
          "(string)": "(System.String)",
          "(IReadOnlyList<(string Sku, int Qty)>, T, out int?)":
              "(System.Collections.Generic.IReadOnlyList`1<System.ValueTuple`2<System.String,System.Int32>>,!!0,"
              "System.Nullable`1<System.Int32>&)",
          "(string?, List<string?>, object?[], Dictionary<string, object?>)":
              "(System.String,System.Collections.Generic.List`1<System.String>,System.Object[],"
              "System.Collections.Generic.Dictionary`2<System.String,System.Object>)",
          "(dynamic, List<dynamic>, (string? Name, int Qty), int?)":
              "(System.Object,System.Collections.Generic.List`1<System.Object>,"
              "System.ValueTuple`2<System.String,System.Int32>,System.Nullable`1<System.Int32>)",
          "(T?, List<T>, string)": "(!!0,System.Collections.Generic.List`1<!!0>,System.String)",
          "(string, List<string>)": "(System.String,System.Collections.Generic.List`1<System.String>)"}


def html_methods(out) -> dict:
    """{(class, metadata name and signature): figures} of the methods page, whose names are in C# form."""
    page = (out / "html" / "methods.html").read_text()
    figures = {}
    for row in re.findall(r'<tr class="method[^"]*"[^>]*>(.*?)</tr>', page, re.S):
        cls, shown = (html.unescape(v) for v in re.findall(r'<td class="name" data-sort="([^"]*)"', row))
        name, _paren, params = shown.partition("(")
        name = re.sub(r"<[^()]*>$", "", name) + CSHARP[f"({params}"]  # (`Count<T>`: the metadata name is `Count`)
        numbers = re.findall(r'<td class="num[^"]*" data-sort="([^"]*)"', row)
        statements, branch_pc, pc = int(numbers[0]), float(numbers[1]), float(numbers[2])
        covered = round(pc * statements / 100)
        figures[(cls, name)] = {**_figures(ran=covered > 0, statements=statements, covered=covered),
                                "branch_percent": branch_pc}  # (-1: no branches)
    return figures


def test_every_output_gives_every_method_the_same_figures(outputs):
    out, _table = outputs
    cobertura, _lines = cobertura_methods(out)
    by_writer = {"cobertura": cobertura, "opencover": opencover_methods(out), "lcov": lcov_methods(out),
                 "json": json_methods(out)[0], "html": html_methods(out)}
    for writer, figures in by_writer.items():
        assert set(figures) == RAN | NEVER, writer
        assert {key for key, f in figures.items() if f["ran"]} == RAN, writer
    for key in RAN | NEVER:
        for field in FIELDS:
            said = {writer: figures[key][field] for writer, figures in by_writer.items() if field in figures[key]}
            assert len(set(said.values())) == 1, (key, field, said)
        want = cobertura[key]
        shown = -1.0 if want["branches"] == 0 else 100.0 * want["branches_covered"] / want["branches"]
        assert by_writer["html"][key]["branch_percent"] == pytest.approx(shown), key


def test_cobertura_method_lines_carry_the_methods_own_hits(outputs):
    out, _table = outputs
    _figures_of, lines = cobertura_methods(out)
    _json, own = json_methods(out)
    for key, hits in lines.items():
        assert {n: h for n, h in hits.items() if n in own[key]} == {n: own[key][n] for n in hits if n in own[key]}, key
    # The shared lines: the setter, `init` accessor and constructor that never ran show 0 where the other ran.
    assert lines[("Members.Settings", "set_Count(System.Int32)")] == {8: 0}
    assert lines[("Members.Settings", "get_Count()")] == {8: 1}
    assert lines[("Members.Point", "set_X(System.Int32)")] == {4: 0}
    assert lines[("Members.Settings", ".ctor(System.Int32)")][9] == 0


def test_every_output_gives_every_file_the_same_figures(outputs):
    out, table = outputs
    row = re.search(rf"^{re.escape(SOURCE)}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%", table, re.M)
    statements, missed, branches, _partial = map(int, row.groups())
    by_writer = {"table": (statements, statements - missed, branches)}
    lcov = (out / "lcov.info").read_text()
    counts = {k: int(v) for k, v in re.findall(r"^(LF|LH|BRF|BRH|FNF|FNH):(\d+)$", lcov, re.M)}
    by_writer["lcov"] = (counts["LF"], counts["LH"], counts["BRF"])
    doc = json.loads((out / "report.json").read_text())
    (f,) = doc["files"]
    by_writer["json"] = (f["summary"]["statements"], f["summary"]["covered"], f["summary"]["branches"])
    lines: dict[int, int] = {}
    outcomes: dict[int, int] = {}
    for cls in etree.parse(str(out / "cobertura.xml")).iter("class"):
        assert cls.get("filename") == SOURCE
        for x in cls.find("lines"):
            n = int(x.get("number"))
            lines[n] = max(lines.get(n, 0), int(x.get("hits")))
            if x.get("condition-coverage"):
                outcomes[n] = int(re.search(r"/(\d+)\)", x.get("condition-coverage")).group(1))
    by_writer["cobertura"] = (len(lines), sum(1 for h in lines.values() if h), sum(outcomes.values()))
    assert len(set(by_writer.values())) == 1, by_writer
    assert (counts["FNF"], counts["FNH"]) == (len(RAN | NEVER), len(RAN))


def test_the_methods_page_names_methods_in_csharp_form(outputs):
    """Keywords for primitive types, no record member C# generated (none of the positional record `Point`'s has a
    statement: Equals, GetHashCode, PrintMembers, Deconstruct, ... are not methods of the report)."""
    out, _table = outputs
    page = (out / "html" / "methods.html").read_text()
    shown = {html.unescape(v) for row in re.findall(r'<tr class="method[^"]*"[^>]*>(.*?)</tr>', page, re.S)
             for v in re.findall(r'<td class="name" data-sort="([^"]*\([^"]*)"', row)}
    assert {".ctor(int, int)", "set_X(int)", "set_Name(string)", "get_Y()",
            "Count<T>(IReadOnlyList<(string Sku, int Qty)>, T, out int?)"} <= shown, sorted(shown)
    assert not any("System." in n for n in shown)
    # Nullable reference types and `dynamic` (NullableAttribute, NullableContextAttribute, DynamicAttribute); no `?`
    # where the code is oblivious (`#nullable disable`), `int?` as before.
    annotated = {html.unescape(name) for row in re.findall(r'<tr class="method[^"]*"[^>]*>(.*?)</tr>', page, re.S)
                 for cls, name in [re.findall(r'<td class="name" data-sort="([^"]*)"', row)]
                 if html.unescape(cls) == "Members.Annotations"}
    assert annotated == {"Annotated(string?, List<string?>, object?[], Dictionary<string, object?>)",
                         "Dynamic(dynamic, List<dynamic>, (string? Name, int Qty), int?)",
                         "First<T>(T?, List<T>, string)", "Oblivious(string, List<string>)"}, sorted(annotated)
    assert "record-member" not in page and "show-record-members" not in page
