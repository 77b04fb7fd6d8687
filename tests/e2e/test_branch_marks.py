"""`dotcov run -- dotnet test Calc.Tests`: per-line branch outcomes equal the `@branches covered/total`
marks of samples/Calc exactly, and unmarked lines carry no branch data (see samples/Calc/README.md)."""

from __future__ import annotations

import re

import pytest

from dotcov.data import datafiles as data
from dotcov.analysis import results

from .conftest import SAMPLES
from .marks import marked_sources

pytestmark = pytest.mark.e2e

BRANCHES = re.compile(r"@branches\s+(\d+)/(\d+)\s*$")

# Lines that may hold branch data without a mark, with the reason. None today: every branch the
# compiler generates on these samples (async/iterator dispatch, await checks, dispose null checks,
# delegate caches, switch-expression constant jumps) is recognised and left out.
UNMARKED_WITH_BRANCHES: dict[tuple[str, int], str] = {}


def read_branch_marks(path) -> dict[int, tuple[int, int]]:
    out = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = BRANCHES.search(line)
        if m:
            out[number] = (int(m.group(1)), int(m.group(2)))
    return out


def branches_by_file(data_dir, source_root):
    """{path: {line: (covered, total)}} over every assembly (CoverageResult.all_files merges lines only)."""
    result, problems = results.build(data.load(data_dir), source_root)
    assert not problems, problems
    out: dict[str, dict[int, tuple[int, int]]] = {}
    for asm in result.assemblies:
        for path, fc in asm.files.items():
            lines = out.setdefault(path, {})
            for line, b in fc.branches.items():
                c, t = lines.get(line, (0, 0))
                lines[line] = (c + b.covered, t + b.total)
    return out


def test_branch_outcomes_match_marks(measured_sample, tmp_path):
    run = measured_sample("Calc.Tests", tmp_path)
    assert run.status == 0, run.stdout + run.stderr
    got = branches_by_file(run.data_dir, SAMPLES)
    assert any(got.values()), "no branch data at all: does the agent record branch outcomes yet?"
    problems = []
    for src in marked_sources(SAMPLES / "Calc"):
        want = read_branch_marks(src)
        have = got.get(str(src), {})
        for line in sorted(set(want) | set(have)):
            if (src.name, line) in UNMARKED_WITH_BRANCHES and line not in want:
                continue
            if want.get(line) != have.get(line):
                problems.append(f"{src.name}:{line}: marked {want.get(line)}, measured {have.get(line)}")
    assert not problems, "\n".join(problems)
