"""lcov tracefile (`lcov.info`), as geninfo writes it and genhtml, Codecov and Coveralls read it.

One record per source file (a file compiled into several assemblies once, its hits added, as the
terminal table counts it), sorted by path:

    TN:
    SF:/src/proj/Calc/Calculator.cs
    FN:5,Calc.Calculator.Add(System.Int32;System.Int32)
    FNDA:4,Calc.Calculator.Add(System.Int32;System.Int32)
    FNF:1
    FNH:1
    BRDA:9,0,0,1          (only when the result holds branch data)
    BRF:2
    BRH:1
    DA:5,4
    LF:1
    LH:1
    end_of_record

Decisions:

* `SF:` is absolute by default. genhtml reads the sources from it whatever directory it runs in
  (it resolves a relative path against its own working directory); Codecov maps absolute CI paths
  onto the repository by itself and Coveralls' reporters strip the checkout directory; coverlet's
  lcov is absolute too, so setups made for it keep working. `relative_to` writes paths relative to
  a directory (files outside it stay absolute), for tools that want repository-relative paths.
* Function names are `Type.Method(signature)`, unique in a file (nested types `Outer/Inner`). The
  parameter separator is `;`, not `,`: lcov's readers take a name up to the first comma (genhtml 1.x
  matches `FN:(\\d+),([^,]+)`), so overloads would otherwise merge into one function.
* `FN` is the method's first line (coverlet writes the line before it), `FNDA` how often it was
  entered (numbers.MethodAnalysis.hits: not 0 exactly when its own code ran); every count (FNF/FNH,
  BRF/BRH, LF/LH) is the analysis's, as the table's.
* Branches: one BRDA per outcome: block = the line's branch instruction (in IL order), branch = the
  outcome (fall-through first, then each target), taken = its hit count, or `-` for every outcome of
  a line never run, as geninfo does for code that never executed. (A hand-built result with counts
  but no per-outcome hits gets `total` entries in block 0, the first `covered` taken `1`.) BRDA/BRF/BRH
  are written only when the result holds branch data at all: without it, "BRF:0" would claim a
  measurement.
* Control characters CR and LF in paths or names (which would end the line) are written as `?`;
  undecodable file names are written back as their original bytes by `write_lcov`.
"""

from __future__ import annotations

import os
import re

from dotcov.analysis.numbers import Analysis, MethodAnalysis
from dotcov.analysis.model import BranchCoverage, CoverageResult
from dotcov.analysis.paths import relative_path
from dotcov.reports.output import encode_text, write_atomic

_LINE_BREAKS = re.compile("[\r\n]")


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub("?", text)


def function_name(class_name: str, method: MethodAnalysis) -> str:
    """`Type.Method(signature)` with `;` between parameters (lcov names cannot hold commas)."""
    return _one_line(f"{class_name}.{method.name}{method.signature}".replace(",", ";"))


def _brda(line: int, hits: int, b: BranchCoverage) -> list[str]:
    if b.outcome_hits:
        # Real outcomes: block = the branch instruction on the line, branch = its outcome
        # (fall-through first), taken = its hits, or "-" when the line never ran.
        out = []
        for block, (_offset, outcome_hits) in enumerate(sorted(b.outcome_hits)):
            for i, n in enumerate(outcome_hits):
                out.append(f"BRDA:{line},{block},{i},{'-' if hits == 0 else n}")
        return out
    out = []
    for i in range(b.total):
        if hits == 0 and b.covered == 0:
            taken = "-"
        else:
            taken = "1" if i < min(b.covered, b.total) else "0"
        out.append(f"BRDA:{line},0,{i},{taken}")
    return out


def lcov_text(result: CoverageResult | Analysis, *, relative_to: str | None = None) -> str:
    """The tracefile as text (ends with a newline; empty when there are no files).

    `relative_to`: None (the default) writes absolute paths; a directory writes paths relative to it.
    """
    analysis = Analysis.of(result)
    measured = analysis.branches_measured
    out: list[str] = []
    for f in analysis.files:
        functions: dict[str, tuple[int, int]] = {}
        for cls in f.classes:
            for m in cls.methods:
                functions[function_name(cls.name, m)] = (m.first_line, m.hits)
        order = sorted(functions, key=lambda name: (functions[name][0], name))

        out.append("TN:")
        out.append("SF:" + _one_line(relative_path(f.path, relative_to)))
        out += [f"FN:{functions[name][0]},{name}" for name in order]
        out += [f"FNDA:{functions[name][1]},{name}" for name in order]
        out.append(f"FNF:{f.numbers.methods}")
        out.append(f"FNH:{f.numbers.methods_covered}")
        if measured:
            for line, b in f.branches.items():
                out += _brda(line, f.lines.get(line, 0), b)
            out.append(f"BRF:{f.numbers.branches}")
            out.append(f"BRH:{f.numbers.branches_covered}")
        out += [f"DA:{line},{f.lines[line]}" for line in sorted(f.lines)]
        out.append(f"LF:{f.numbers.statements}")
        out.append(f"LH:{f.numbers.covered}")
        out.append("end_of_record")
    return "".join(line + "\n" for line in out)


def lcov_bytes(result: CoverageResult | Analysis, *, relative_to: str | None = None) -> bytes:
    """`lcov_text` as UTF-8, undecodable file names written back as their original bytes."""
    return encode_text(lcov_text(result, relative_to=relative_to))


def write_lcov(result: CoverageResult | Analysis, path: str | os.PathLike, *, relative_to: str | None = None) -> None:
    """Writes `lcov_bytes` to `path`, replacing it whole."""
    write_atomic(path, lcov_bytes(result, relative_to=relative_to))
