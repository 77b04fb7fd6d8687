"""The edits the `dotcov diff` end-to-end tests make to a copy of samples/Calc, and what they must report.

Each edit keeps the line count of the file it changes, so the sample's `// @hit` / `// @miss` marks still say
which lines the tests run; the expected sets below are checked against those marks too.
"""

from __future__ import annotations

from pathlib import Path

# (file, old text, new text): committed on the feature branch.
COMMITTED = [
    ("Calc/Calculator.cs", "        return a + b; // @hit", "        return b + a; // @hit"),  # line 39
    ("Calc/Calculator.cs", "        return a - b; // @miss", "        return a - b + 0; // @miss"),  # line 45
    ("Calc/Calculator.cs", "            return min; // @hit\n        }",
     "            return min; // @hit\n        } // not a statement"),  # line 53
]
# Left uncommitted in the working tree.
UNCOMMITTED = [
    ("Calc/Sequences.cs", "        int total = 0; // @hit", "        int total = 0 * 1; // @hit"),  # line 15
    ("Calc/Sequences.cs", '        return $"content of {url}"; // @miss',
     '        return $"contents of {url}"; // @miss'),  # line 27
]
NEW_FILE = ("Calc/Extra.cs", """namespace Calc;

// Added on the branch and never called by the tests.
public static class Extra
{
    public static int Twice(int x)
    { // @miss
        return 2 * x; // @miss
    } // @miss
}
""")
TEST_FILE = "Calc.Tests/CalculatorTests.cs"  # a test source (not covered): changed, not counted

EXPECTED = {
    "Calc/Calculator.cs": ([39, 45], [45]),
    "Calc/Extra.cs": ([7, 8, 9], [7, 8, 9]),
    "Calc/Sequences.cs": ([15, 27], [27]),
}
EXPECTED_SOURCE = {
    ("Calc/Calculator.cs", 45): "        return a - b + 0; // @miss",
    ("Calc/Extra.cs", 7): "    { // @miss",
    ("Calc/Extra.cs", 8): "        return 2 * x; // @miss",
    ("Calc/Extra.cs", 9): "    } // @miss",
    ("Calc/Sequences.cs", 27): '        return $"contents of {url}"; // @miss',
}
EXPECTED_UNKNOWN = [TEST_FILE]


def _replace(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (rel, old)
    assert old.count("\n") == new.count("\n")
    path.write_text(text.replace(old, new), encoding="utf-8")


def apply_edits(repo: Path, *, committed: bool) -> None:
    import subprocess

    if committed:
        for rel, old, new in COMMITTED:
            _replace(repo, rel, old, new)
        return
    for rel, old, new in UNCOMMITTED:
        _replace(repo, rel, old, new)
    rel, text = NEW_FILE
    (repo / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "--intent-to-add", rel], cwd=repo, check=True)  # a new file git diff shows
    with open(repo / TEST_FILE, "a", encoding="utf-8") as f:
        f.write("// a comment added to a test file\n")
