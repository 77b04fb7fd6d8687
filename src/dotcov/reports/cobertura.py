"""Cobertura XML, shaped like coverlet's so ReportGenerator and GitLab read it as they read coverlet's.

    <?xml version="1.0" encoding="utf-8"?>
    <coverage line-rate branch-rate version timestamp lines-covered lines-valid
              branches-covered branches-valid complexity>
      <sources><source>/abs/source/root/</source></sources>
      <packages>
        <package name="Assembly" line-rate branch-rate complexity>
          <classes>
            <class name="Ns.Outer/Inner" filename="dir/File.cs" line-rate branch-rate complexity>
              <methods>
                <method name="Add" signature="(System.Int32,System.Int32)" line-rate branch-rate complexity>
                  <lines><line number="7" hits="3" branch="False" /></lines>
                </method>
              </methods>
              <lines><line number="7" hits="3" branch="False" /></lines>
            </class>

Where it departs from coverlet, and why:

* The output validates against Cobertura's coverage-04.dtd but for one attribute: <method> carries
  `complexity`, as coverlet writes it, because ReportGenerator computes CRAP only from a method's
  complexity (and line-rate). The root carries the DTD's required `complexity` (coverlet leaves it out).
* No DOCTYPE (coverlet writes none either): a SYSTEM id makes DTD-loading parsers fetch a
  long-dead sourceforge URL, and hardened parsers refuse documents that have one.
* Rates are computed with integers: the covered share truncated (not rounded) to 4 decimals,
  as coverlet does, but written without binary floating-point noise ("0.8333", never
  "0.8332999999999999"); "1" and "0" at the ends. No lines at all is a rate of "1".
* Without branch data (dotcov measures none yet) branch rates and counts are "0" and every
  line is branch="False". `line_branches` is the hook that branch support fills in; once
  any line has branch data, an element without branches gets coverlet's branch-rate "1".
* complexity is the cyclomatic complexity from the user branches (analysis.cyclomatic_complexity,
  docs/reports.md): a method's own; a class's and a package's the sum of their methods', as coverlet
  sums them; the root's the sum over every method once (files merged as for the line counts).
* The root's line and branch counts are those of the text report's TOTAL (each source file once,
  merged by analysis/model.py's rule); a package counts its own files (its builds merged), a class and a
  method their own lines and the branch outcomes on them.
* Lines the agent could not measure are not <line>s; each file's are listed in an XML comment
  before <packages> ("not measured"), with the reason.
* `<source>` is the source root with a trailing "/", as coverlet writes its base paths:
  tools that join paths (ReportGenerator's Path.Combine, GitLab's File.join after cutting
  the project path) accept either form, and tools that merely concatenate source and
  filename only work with the slash. Files outside the root keep their absolute path, which
  ReportGenerator's Path.Combine and GitLab's worktree matching both handle.
* Everything is sorted (packages by name; classes by name, filename; methods by first line,
  name, signature; lines by number) and the timestamp is the data's, so output is stable.

How it is written (for speed at a million lines): this module makes every attribute's text (escaped names, rates;
names, rates and branch-line texts memoised per document) and each class's start tag, reading a class's methods as
the analysis' columns (`ClassAnalysis.method_table`), and `_native.cobertura_class` (native/python/native_xml.cpp)
writes each `<class>` from them as UTF-8 bytes: the methods' start tags, the class's and its methods' `<line>`s,
two million of them at a million statements. The document goes out a class at a time (`write_cobertura`
never holds all of it). Not lxml: slower than formatting, see xmlwriter.py. tests/test_cobertura_fast.py checks
this against an element-by-element rendering; docs/benchmarks.md has the figures.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from dotcov._native import cobertura_class
from dotcov.analysis.numbers import Analysis, ClassAnalysis, MethodAnalysis, Numbers
from dotcov.analysis.model import BranchCoverage, CoverageResult
from dotcov.analysis.paths import relative_path
from dotcov.reports.output import truncated_percent, write_atomic
from dotcov.reports.xmlwriter import INDENT, XmlWriter, attr

__all__ = ["Condition", "LineBranches", "line_branches", "rate", "cobertura_xml", "write_cobertura"]


# --- branches of a line ----------------------------------------------------------

@dataclass(frozen=True)
class Condition:
    number: int  # IL offset of the branching instruction
    type: str  # "jump" (two ways) or "switch"
    covered: int
    total: int


@dataclass(frozen=True)
class LineBranches:
    covered: int
    total: int
    conditions: tuple[Condition, ...] = ()


def line_branches(method: MethodAnalysis, line: int) -> LineBranches | None:
    """The branch outcomes of `line` in `method`; None when there are none to report.

    Lines with outcomes get branch="True", condition-coverage and <conditions>.
    """
    b = method.branches.get(line)
    if b is None or b.total == 0:
        return None
    covered, total = min(b.covered, b.total), b.total
    return LineBranches(covered, total, tuple(Condition(*c) for c in sorted(b.conditions)))


# --- numbers -------------------------------------------------------------------

def rate(covered: int, total: int) -> str:
    """covered/total truncated to 4 decimals, as coverlet; "1" when there is nothing to cover."""
    if total <= 0:
        return "1"
    n = covered * 10000 // total
    if n >= 10000:
        return "1"
    if n <= 0:
        return "0"
    return "0." + f"{n:04d}".rstrip("0")


def _line_rate(n: Numbers) -> str:
    return rate(n.covered, n.statements)


def _branch_rate(covered: int, total: int, measured: bool) -> str:
    """"0" while the result holds no branch data at all; else as `rate` ("1" for no branches)."""
    return rate(covered, total) if measured else "0"


# --- XML writing -------------------------------------------------------------------

def _outcomes(b: BranchCoverage) -> tuple[str, tuple[str, ...], int, int]:
    """What `line_branches` says of a line, as the writer writes it: the condition-coverage attribute, each
    `<condition>` without its indentation, covered and total outcomes (`_native.cobertura_class` writes the
    `<line>`). Made once per method line, shared with its class's line."""
    covered, total = min(b.covered, b.total), b.total
    conditions = tuple(f'<condition number="{attr(offset)}" type="{attr(kind)}" '
                       f'coverage="{truncated_percent(c, t)}%" />' for offset, kind, c, t in sorted(b.conditions))
    return f"{truncated_percent(covered, total)}% ({covered}/{total})", conditions, covered, total


class _Memo:
    """What the classes of one document share, each made once: the `_outcomes` of a line by what they are made of
    (many lines have the same), escaped names and signatures, rates by (covered, total)."""

    def __init__(self) -> None:
        self.outcomes: dict[tuple, tuple] = {}
        self.escaped = _Made(attr)
        self.rates = _Made(lambda key: rate(*key))


class _Made(dict):
    """key -> make(key), made when first asked for (a look-up at C speed after that)."""

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


def _line_branches(lines: dict[int, int], branches: dict[int, BranchCoverage], memo: _Memo) -> dict[int, tuple]:
    """`_outcomes` of each line (of a method or a class) that has outcomes (what `line_branches` gives)."""
    out = {}
    for line, b in branches.items():
        if b.total and line in lines:
            key = (b.covered, b.total, *b.conditions)
            try:
                have = memo.outcomes.get(key)
            except TypeError:  # (conditions that are not tuples: not kept)
                have = key = None
            if have is None:
                have = _outcomes(b)
                if key is not None:
                    memo.outcomes[key] = have
            out[line] = have
    return out


def _class_xml(cls: ClassAnalysis, root: str, measured: bool, indent: str, memo: _Memo) -> bytes:
    """One `<class>` at `indent`, with its methods and lines, in UTF-8: every start tag's texts made here, the rest by
    `_native.cobertura_class`. Its figures are the analysis's (a method's lines are its own hits), its methods read as
    the analysis' columns (`ClassAnalysis.method_table`: no step per method here but its branch lines')."""
    escaped, rates = memo.escaped, memo.rates
    table = cls.method_table
    statements, covered, outcomes, taken, complexity = table.numbers()
    methods = (list(map(escaped.__getitem__, table.names)), list(map(escaped.__getitem__, table.signatures)),
               list(map(rates.__getitem__, zip(covered, statements))),
               list(map(rates.__getitem__, zip(taken, outcomes))) if measured else ["0"] * len(statements),
               complexity, table.lines,
               [_line_branches(lines, branches, memo) if branches else _NONE
                for lines, branches in zip(table.lines, table.branches)])
    n = cls.numbers
    start = (f'<class name="{attr(cls.name)}" filename="{attr(relative_path(cls.filename, root))}" '
             f'line-rate="{rates[n.covered, n.statements]}" '
             f'branch-rate="{rates[n.branches_covered, n.branches] if measured else "0"}" '
             f'complexity="{n.complexity}">')
    return cobertura_class(start, methods, cls.lines, _line_branches(cls.lines, cls.branches, memo), indent)


_NONE: dict = {}  # (no branch lines: read, never written)


def _source_of(root: str) -> str:
    root = Path(root).as_posix()
    return root if root.endswith("/") else root + "/"


def _document(analysis: Analysis, version: str, timestamp: int | None) -> Iterator[bytes]:
    """The document in UTF-8 pieces (one per `<class>`, the rest in a few), so a writer can write as it goes
    instead of holding the whole document."""
    root = analysis.source_root
    measured = analysis.branches_measured
    memo = _Memo()
    total = analysis.totals
    w = XmlWriter(declaration=True)
    w.start("coverage", [
        ("line-rate", _line_rate(total)),
        ("branch-rate", _branch_rate(total.branches_covered, total.branches, measured)),
        ("version", version),
        ("timestamp", int(analysis.timestamp if timestamp is None else timestamp)),
        ("lines-covered", total.covered),
        ("lines-valid", total.statements),
        ("branches-covered", total.branches_covered),
        ("branches-valid", total.branches),
        ("complexity", total.complexity),
    ])
    for note in analysis.notes(root):
        w.comment(note)
    if root:
        w.start("sources")
        w.text_element("source", _source_of(root))
        w.end("sources")
    else:
        w.empty("sources")
    if not analysis.assemblies:
        w.empty("packages")
    else:
        w.start("packages")
        for asm in analysis.assemblies:
            w.start("package", [("name", asm.name), ("line-rate", _line_rate(asm.numbers)),
                                ("branch-rate", _branch_rate(asm.numbers.branches_covered, asm.numbers.branches,
                                                             measured)),
                                ("complexity", asm.numbers.complexity)])
            if not asm.classes:
                w.empty("classes")
                w.end("package")
                continue
            w.start("classes")
            yield w.getvalue()
            w.parts.clear()
            indent = INDENT * w.depth
            for cls in asm.classes:
                yield _class_xml(cls, root, measured, indent, memo)
            w.end("classes")
            w.end("package")
        w.end("packages")
    w.end("coverage")
    yield w.getvalue()


def cobertura_xml(result: CoverageResult | Analysis, *, version: str, timestamp: int | None = None) -> bytes:
    """The report as UTF-8 bytes (no BOM). `timestamp` (seconds) defaults to the result's."""
    return b"".join(_document(Analysis.of(result), version, timestamp))


def write_cobertura(result: CoverageResult | Analysis, out_path: str | os.PathLike, *, version: str,
                    timestamp: int | None = None) -> None:
    """Writes `cobertura_xml` to `out_path`, replacing it whole (a reader never sees half a file)."""
    write_atomic(out_path, _document(Analysis.of(result), version, timestamp))
