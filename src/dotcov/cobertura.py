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
                <method name="Add" signature="(System.Int32,System.Int32)" line-rate branch-rate>
                  <lines><line number="7" hits="3" branch="False" /></lines>
                </method>
              </methods>
              <lines><line number="7" hits="3" branch="False" /></lines>
            </class>

Where it departs from coverlet, and why:

* The output must validate against Cobertura's coverage-04.dtd, so the root carries the
  required `complexity` (coverlet leaves it out) and <method> carries no `complexity` (the
  DTD has no such attribute; ReportGenerator would only show it as a method metric).
* No DOCTYPE (coverlet writes none either): a SYSTEM id makes DTD-loading parsers fetch a
  long-dead sourceforge URL, and hardened parsers refuse documents that have one.
* Rates are computed with integers: the covered share truncated (not rounded) to 4 decimals,
  as coverlet does, but written without binary floating-point noise ("0.8333", never
  "0.8332999999999999"); "1" and "0" at the ends. No lines at all is a rate of "1".
* Without branch data (dotcov measures none yet) branch rates and counts are "0" and every
  line is branch="False". `line_branches` is the hook that branch support fills in; once
  any line has branch data, an element without branches gets coverlet's branch-rate "1".
* complexity is "0" (not measured) instead of coverlet's count of methods: dotcov does not
  analyse the IL's control flow, and "1 per method" would claim methods have no branches.
* The root's line counts are those of the text report's TOTAL (each source file once, a
  file compiled into several assemblies adding its hits); a package counts its own files.
* `<source>` is the source root with a trailing "/", as coverlet writes its base paths:
  tools that join paths (ReportGenerator's Path.Combine, GitLab's File.join after cutting
  the project path) accept either form, and tools that merely concatenate source and
  filename only work with the slash. Files outside the root keep their absolute path, which
  ReportGenerator's Path.Combine and GitLab's worktree matching both handle.
* Everything is sorted (packages by name; classes by name, filename; methods by first line,
  name, signature; lines by number) and the timestamp is the data's, so output is stable.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from dotcov.model import AssemblyCoverage, ClassCoverage, CoverageResult, MethodCoverage
from dotcov.report import relative_path

INDENT = "  "

# Characters XML 1.0 cannot carry at all (C0 controls but tab/LF/CR, lone surrogates from
# undecodable file names, U+FFFE/U+FFFF): written as U+FFFD so the document stays well-formed.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# --- branch hook ---------------------------------------------------------------

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


def line_branches(method: MethodCoverage, line: int) -> LineBranches | None:
    """The branch outcomes of `line` in `method`; None when there are none to report.

    Lines with outcomes get branch="True", condition-coverage and <conditions>, and branch
    rates and counts add up from them.
    """
    b = method.branches.get(line)
    if b is None or b.total == 0:
        return None
    conditions = tuple(Condition(offset, kind, covered, total)
                       for offset, kind, covered, total in sorted(b.conditions))
    return LineBranches(b.covered, b.total, conditions)


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


def _percent(covered: int, total: int) -> str:
    """covered/total as a percentage truncated to 2 decimals ("50", "33.33", "100")."""
    if total <= 0:
        return "100"
    whole, frac = divmod(covered * 10000 // total, 100)
    return str(whole) if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")


@dataclass
class _Counts:
    lines_covered: int = 0
    lines_valid: int = 0
    branches_covered: int = 0
    branches_valid: int = 0

    def add_lines(self, lines: dict[int, int]) -> None:
        self.lines_valid += len(lines)
        self.lines_covered += sum(1 for h in lines.values() if h > 0)

    def add_branches(self, other: _Counts) -> None:
        self.branches_covered += other.branches_covered
        self.branches_valid += other.branches_valid

    def add_line_branches(self, b: LineBranches | None) -> None:
        if b is not None:
            self.branches_covered += b.covered
            self.branches_valid += b.total

    @property
    def line_rate(self) -> str:
        return rate(self.lines_covered, self.lines_valid)

    def branch_rate(self, measured: bool) -> str:
        """"0" while the result holds no branch data at all; else as `rate` ("1" for no branches)."""
        return rate(self.branches_covered, self.branches_valid) if measured else "0"


# --- merged view of the model ----------------------------------------------------

@dataclass
class _Method:
    name: str
    signature: str
    lines: dict[int, int]
    source: list[MethodCoverage]  # the model's methods merged into this one (for the branch hook)


@dataclass
class _Class:
    name: str
    filename: str
    lines: dict[int, int]
    methods: list[_Method]


def _add_hits(into: dict[int, int], lines: dict[int, int]) -> None:
    for line, hits in lines.items():
        into[line] = into.get(line, 0) + hits


def _merged_classes(classes: list[ClassCoverage]) -> list[_Class]:
    """One entry per (type, file): builds of one assembly for several frameworks add their hits."""
    by_key: dict[tuple[str, str], _Class] = {}
    methods: dict[tuple[str, str, str, str], _Method] = {}
    for cc in classes:
        into = by_key.get((cc.name, cc.filename))
        if into is None:
            into = by_key[(cc.name, cc.filename)] = _Class(cc.name, cc.filename, {}, [])
        own = dict(cc.lines)
        for mc in cc.methods:
            for line, hits in mc.lines.items():
                # A class's lines are its methods' lines; fill in any the class left out.
                if line not in cc.lines:
                    own[line] = max(own.get(line, 0), hits)
            m = methods.get((cc.name, cc.filename, mc.name, mc.signature))
            if m is None:
                m = methods[(cc.name, cc.filename, mc.name, mc.signature)] = _Method(mc.name, mc.signature, {}, [])
                into.methods.append(m)
            _add_hits(m.lines, mc.lines)
            m.source.append(mc)
        _add_hits(into.lines, own)
    for c in by_key.values():
        c.methods = [m for m in c.methods if m.lines]  # as coverlet: a method without lines is left out
        c.methods.sort(key=lambda m: (min(m.lines), m.name, m.signature))
    return [by_key[k] for k in sorted(by_key)]


def _assembly_files(asm: AssemblyCoverage) -> dict[str, dict[int, int]]:
    """The assembly's source files' lines; taken from its classes when it lists no files."""
    if asm.files:
        return {path: fc.lines for path, fc in asm.files.items()}
    files: dict[str, dict[int, int]] = {}
    for cc in asm.classes:
        into = files.setdefault(cc.filename, {})
        for lines in [cc.lines] + [m.lines for m in cc.methods]:
            for line, hits in lines.items():
                into[line] = max(into.get(line, 0), hits)
    return files


def _method_line_branches(m: _Method, line: int) -> LineBranches | None:
    found = [b for b in (line_branches(mc, line) for mc in m.source if line in mc.lines) if b is not None]
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    # Several builds of one method: the same conditions, each covered if covered in any build.
    conds = {}
    for b in found:
        for c in b.conditions:
            have = conds.get(c.number)
            conds[c.number] = c if have is None or c.covered > have.covered else have
    covered = max(b.covered for b in found)
    return LineBranches(covered, found[0].total, tuple(conds[k] for k in sorted(conds)))


# --- XML writing -------------------------------------------------------------------

def _clean(value) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def _text(value) -> str:
    return _clean(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(value) -> str:
    return (_text(value).replace('"', "&quot;")
            .replace("\t", "&#x9;").replace("\n", "&#xA;").replace("\r", "&#xD;"))


class _Writer:
    """Indented XML, .NET style (`<x a="1" />`); a fragment when `declaration` is false."""

    def __init__(self, *, depth: int = 0, declaration: bool = False) -> None:
        self.parts: list[str] = ['<?xml version="1.0" encoding="utf-8"?>\n'] if declaration else []
        self.depth = depth

    def _open_tag(self, name: str, attrs) -> str:
        return "<" + name + "".join(f' {k}="{_attr(v)}"' for k, v in attrs)

    def empty(self, name: str, attrs=()) -> None:
        self.parts.append(INDENT * self.depth + self._open_tag(name, attrs) + " />\n")

    def start(self, name: str, attrs=()) -> None:
        self.parts.append(INDENT * self.depth + self._open_tag(name, attrs) + ">\n")
        self.depth += 1

    def end(self, name: str) -> None:
        self.depth -= 1
        self.parts.append(INDENT * self.depth + f"</{name}>\n")

    def text_element(self, name: str, text: str) -> None:
        self.parts.append(INDENT * self.depth + f"<{name}>{_text(text)}</{name}>\n")

    def getvalue(self) -> bytes:
        return "".join(self.parts).encode("utf-8")  # no BOM


def _write_lines(w: _Writer, lines: dict[int, int], branches: dict[int, LineBranches | None]) -> None:
    if not lines:
        w.empty("lines")
        return
    w.start("lines")
    for number in sorted(lines):
        attrs = [("number", number), ("hits", lines[number])]
        b = branches.get(number)
        if b is None:
            w.empty("line", attrs + [("branch", "False")])
            continue
        attrs += [("branch", "True"),
                  ("condition-coverage", f"{_percent(b.covered, b.total)}% ({b.covered}/{b.total})")]
        if not b.conditions:
            w.empty("line", attrs)
            continue
        w.start("line", attrs)
        w.start("conditions")
        for c in b.conditions:
            w.empty("condition", [("number", c.number), ("type", c.type),
                                  ("coverage", f"{_percent(c.covered, c.total)}%")])
        w.end("conditions")
        w.end("line")
    w.end("lines")


def _source_of(root: str) -> str:
    root = Path(root).as_posix()
    return root if root.endswith("/") else root + "/"


def cobertura_xml(result: CoverageResult, *, version: str, timestamp: int | None = None) -> bytes:
    """The report as UTF-8 bytes (no BOM). `timestamp` (seconds) defaults to `result.timestamp`."""
    root = result.source_root

    # Package and class bodies are written first: the root's attributes need their totals.
    measured = any(line_branches(mc, line) is not None
                   for asm in result.assemblies for cc in asm.classes for mc in cc.methods for line in mc.lines)
    body = _Writer(depth=2)
    total = _Counts()
    all_files: dict[str, dict[int, int]] = {}
    for asm in sorted(result.assemblies, key=lambda a: a.name):
        files = _assembly_files(asm)
        for path, lines in files.items():
            _add_hits(all_files.setdefault(path, {}), lines)
        package = _Counts()
        for lines in files.values():
            package.add_lines(lines)
        classes_xml = _Writer(depth=body.depth + 2)
        for cls in _merged_classes(asm.classes):
            counts = _Counts()
            counts.add_lines(cls.lines)
            class_branches: dict[int, LineBranches | None] = {}
            methods_xml = _Writer(depth=classes_xml.depth + 2)
            for m in cls.methods:
                mcounts = _Counts()
                mcounts.add_lines(m.lines)
                mbranches = {line: _method_line_branches(m, line) for line in m.lines}
                for line, b in mbranches.items():
                    mcounts.add_line_branches(b)
                    if class_branches.get(line) is None:
                        class_branches[line] = b
                methods_xml.start("method", [("name", m.name), ("signature", m.signature),
                                             ("line-rate", mcounts.line_rate), ("branch-rate", mcounts.branch_rate(measured))])
                _write_lines(methods_xml, m.lines, mbranches)
                methods_xml.end("method")
            for b in class_branches.values():
                counts.add_line_branches(b)
            package.add_branches(counts)

            w = classes_xml
            w.start("class", [("name", cls.name), ("filename", relative_path(cls.filename, root)),
                              ("line-rate", counts.line_rate), ("branch-rate", counts.branch_rate(measured)),
                              ("complexity", 0)])
            if cls.methods:
                w.start("methods")
                w.parts.extend(methods_xml.parts)
                w.end("methods")
            else:
                w.empty("methods")
            _write_lines(w, cls.lines, class_branches)
            w.end("class")
        total.add_branches(package)

        body.start("package", [("name", asm.name), ("line-rate", package.line_rate),
                               ("branch-rate", package.branch_rate(measured)), ("complexity", 0)])
        if classes_xml.parts:
            body.start("classes")
            body.parts.extend(classes_xml.parts)
            body.end("classes")
        else:
            body.empty("classes")
        body.end("package")
    for lines in all_files.values():
        total.add_lines(lines)

    w = _Writer(declaration=True)
    w.start("coverage", [
        ("line-rate", total.line_rate),
        ("branch-rate", total.branch_rate(measured)),
        ("version", version),
        ("timestamp", int(result.timestamp if timestamp is None else timestamp)),
        ("lines-covered", total.lines_covered),
        ("lines-valid", total.lines_valid),
        ("branches-covered", total.branches_covered),
        ("branches-valid", total.branches_valid),
        ("complexity", 0),
    ])
    if root:
        w.start("sources")
        w.text_element("source", _source_of(root))
        w.end("sources")
    else:
        w.empty("sources")
    if body.parts:
        w.start("packages")
        w.parts.extend(body.parts)
        w.end("packages")
    else:
        w.empty("packages")
    w.end("coverage")
    return w.getvalue()


def write_cobertura(result: CoverageResult, out_path: str | os.PathLike, *, version: str,
                    timestamp: int | None = None) -> None:
    """Writes `cobertura_xml` to `out_path`, replacing it whole (a reader never sees half a file)."""
    payload = cobertura_xml(result, version=version, timestamp=timestamp)
    out = Path(out_path)
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_bytes(payload)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
