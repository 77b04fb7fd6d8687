#!/usr/bin/env python3
"""Checks the expected-coverage marks of sample sources against the sequence points of their PDB.

    dotnet tests/tools/SeqPoints/bin/Debug/net10.0/SeqPoints.dll --lines samples/Calc/bin/Debug/net10.0/Calc.dll \
        | python3 tests/tools/check_marks.py - samples/Calc

LINES is the output of `SeqPoints --lines` (a file, or `-` for stdin): one line per document,
`<document path>\t<line> <line> ...`. Each SOURCE is a .cs file or a directory searched for .cs files
(bin/ and obj/ left out). Every line that carries a non-hidden sequence point must end with exactly one
mark, `// @hit` or `// @miss` (except blank, comment-only and bracket-only lines, which are statements only
where a point starts, something `--lines` does not tell); `// @generated` marks a line whose only points are a
compiler-generated member's (a record's copy constructor): no statement. No other line may carry a mark. Prints the mark counts; exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

MARK = re.compile(r"//\s*@(hit|miss|excluded|generated)\b")
# Blank, comment-only or bracket-only lines (docs/accuracy.md): may lie in a multi-line point unmarked.
NO_CODE = re.compile(r"^\s*(?:[{}()\[\];,]\s*)*(?://.*|/\*.*\*/\s*)?$")
MARK_AT_END = re.compile(r"//\s*@(hit|miss|excluded|generated)\b.*$")


def read_lines_output(text: str) -> dict[str, set[int]]:
    documents: dict[str, set[int]] = {}
    for number, row in enumerate(text.splitlines(), start=1):
        if not row.strip():
            continue
        path, sep, numbers = row.partition("\t")
        if not sep:
            raise SystemExit(f"check_marks: line {number} of the SeqPoints output has no tab: {row!r}")
        documents.setdefault(path, set()).update(int(n) for n in numbers.split())
    return documents


def source_files(args: list[str]) -> list[Path]:
    files: list[Path] = []
    for arg in args:
        path = Path(arg).resolve()
        if path.is_dir():
            files.extend(sorted(
                p for p in path.rglob("*.cs")
                if not {"bin", "obj"} & set(p.relative_to(path).parts)
            ))
        elif path.is_file():
            files.append(path)
        else:
            raise SystemExit(f"check_marks: no such file or directory: {arg}")
    return files


def lines_for(source: Path, documents: dict[str, set[int]]) -> set[int] | None:
    """The sequence-point lines of `source`: by full path, else by a file name unique among the documents."""
    for path, lines in documents.items():
        if Path(path).resolve() == source:
            return lines
    same_name = [lines for path, lines in documents.items() if Path(path).name == source.name]
    return same_name[0] if len(same_name) == 1 else None


def check(source: Path, sp_lines: set[int]) -> tuple[list[str], int, int]:
    problems: list[str] = []
    hits = misses = 0
    text = source.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(text, start=1):
        marks = MARK.findall(line)
        if number in sp_lines:
            if not marks and NO_CODE.match(line):
                continue  # inside a multi-line point, no code of its own: a statement only if a point starts here
            if len(marks) != 1:
                problems.append(f"{source}:{number}: has a sequence point but {len(marks)} marks: {line.strip()}")
            elif not MARK_AT_END.search(line):
                problems.append(f"{source}:{number}: the mark is not at the end of the line: {line.strip()}")
            elif marks[0] == "generated":
                pass
            elif marks[0] == "hit":
                hits += 1
            else:
                misses += 1
        elif marks:
            problems.append(f"{source}:{number}: marked @{marks[0]} but has no sequence point: {line.strip()}")
    beyond = sorted(n for n in sp_lines if n > len(text))
    if beyond:
        problems.append(f"{source}: sequence points beyond the end of the file (stale build?): {beyond}")
    return problems, hits, misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines", help="output of `SeqPoints --lines`, or - for stdin")
    parser.add_argument("sources", nargs="+", help=".cs files or directories")
    args = parser.parse_args(argv)

    text = sys.stdin.read() if args.lines == "-" else Path(args.lines).read_text(encoding="utf-8")
    documents = read_lines_output(text)
    problems: list[str] = []
    total_hits = total_misses = 0
    for source in source_files(args.sources):
        sp_lines = lines_for(source, documents)
        if sp_lines is None:
            sp_lines = set()  # not in the PDB: no line may carry a mark
        file_problems, hits, misses = check(source, sp_lines)
        problems.extend(file_problems)
        total_hits += hits
        total_misses += misses
        print(f"{source}: {hits} @hit, {misses} @miss")
    print(f"total: {total_hits} @hit, {total_misses} @miss")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
