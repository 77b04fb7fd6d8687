"""Which lines of a source file are statements, and how often each ran: lines as the user reads them.

The PDB gives sequence points: a span of source (start line/column to end line/column) per
statement, expression-bodied member, lambda body, switch arm or query clause, each with its hits.
Spans nest: a field initializer `static readonly Func<string, int> P = s => { ... };` is one
point of the static constructor spanning every line of the lambda, whose own statements are points
of another method. Reading "a line is covered when a point spanning it ran" would call the
lambda's lines covered whenever the initializer ran, so the rule here is (docs/accuracy.md):

1. A line on which at least one point starts is decided by the points that start on it: its hits
   are the most hits of those points (code written on the line ran that often). Points that only
   pass through the line (an enclosing multi-line statement) do not count.
2. A line on which no point starts, inside the span of one or more points (the continuation of a
   multi-line statement), takes the hits of the innermost of them: the points starting on the
   latest line; of several, the most hits. (Columns do not decide between points of one method:
   Debug switch expressions have two points starting on the first line, and the inner one is
   jumped over on every call.) A function written inside a point (a lambda, whose points belong
   to another method and lie within that point's span) owns the lines from its first point's to
   its last point's: the enclosing point never decides them, so `return Register(args => f(` with
   the lambda's arguments on the next lines gives those lines the lambda's hits, and a line of a
   block lambda that holds code but no point of its own (`int count;`, `do`) is no statement. A
   Release build has no point on a lambda's `{`: the lambda's lines begin after its body's opening
   in the source text (CodeFreeLines.body_opening), so `int count;` first in the body is the
   lambda's while `["negate"] = x =>` before the `{` stays the enclosing statement's.
3. A line of rule 2 that holds no code of its own is not a statement: blank lines, lines of only
   comments or preprocessor directives, and lines of only brackets and separators (`{`, `};`,
   `},`, `)`): in a Release build the braces of a lambda inside a field initializer have no point,
   and would otherwise take the initializer's hits although the lambda never ran. (A point that
   starts on such a line, e.g. a Debug build's point on a method's `{`, still makes it a
   statement by rule 1.) This needs the source text; when it cannot be read, every line of rule
   2 counts.

A method's own hits (its line in every report, and whether it ran): a line joins the method of each point
deciding it, and for that method its hits are the most hits of *its own* deciding points (its lambdas', local
functions' and state machine's included: they fold into it), never another member's on the same line. So a
setter or `init` accessor sharing `{ get; set; }` or a positional record's line with a getter that ran, or a
constructor sharing a field initializer with another constructor that ran, did not run unless its own code did.
The file's and the class's line keep the hits of every point deciding it.

Everything here is pure: callers pass the points of one document and, when readable, its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from bisect import bisect_left, bisect_right
from itertools import compress
from operator import lt
from pathlib import Path
from typing import Callable, Iterable, Sequence

from dotcov.analysis.symbols import COMPILER_GENERATED


@dataclass(frozen=True)
class Span:
    """A non-hidden sequence point: where it lies in one document, and its hits."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    hits: int
    method_token: int = 0  # a lambda's points are another method's than the statement holding it


def deciding_points(spans: Sequence[Span], code_free: Iterable[int] = ()) -> dict[int, list[int]]:
    """{line: indices into `spans` of the points that decide it} for every statement line (rules 1-3).

    `spans`: anything with start_line, start_column, end_line, end_column and perhaps method_token
    (Span, model.PointCoverage: points without one are all one method's). `code_free` holds the lines known to carry
    no code of their own (see code_free_lines, CodeFreeLines); they are statements only when a point starts on
    them."""
    return deciding_lines([s.start_line for s in spans], [s.end_line for s in spans], code_free,
                          start_columns=[s.start_column for s in spans], end_columns=[s.end_column for s in spans],
                          methods=[getattr(s, "method_token", 0) for s in spans])


def functions_inside(starts: Sequence[int], ends: Sequence[int], start_columns: Sequence[int],
                     end_columns: Sequence[int], methods: Sequence[int],
                     opening: Callable[[int, int, int, int], tuple[int, int] | None] | None = None
                     ) -> dict[int, list[tuple[int, int]]]:
    """{multi-line point: the (first, last) lines of each function written inside it}: a method other than the
    point's whose points all lie within the point's span (by line and column) and do not merely repeat it (a field
    initializer is a point of every constructor).

    A function's lines begin at its first point's, or, when `opening` (CodeFreeLines.body_opening) finds where its
    block body opens between the point's start and that first point with no point starting in between, on the line
    after the opening: a Release build has no point on a lambda's `{`, and `int count;` first in its body is the
    lambda's, while `["negate"] = x =>` before the `{` is the enclosing statement's."""
    extent: dict[int, list[tuple[int, int]]] = {}  # method -> [its first (line, column), its last]
    for i, m in enumerate(methods):
        a, b = (starts[i], start_columns[i]), (ends[i], end_columns[i])
        e = extent.get(m)
        if e is None:
            extent[m] = [a, b]
        else:
            e[0], e[1] = min(e[0], a), max(e[1], b)
    if len(extent) < 2:
        return {}
    ordered = sorted((a, b, m) for m, (a, b) in extent.items())
    firsts = [a for a, _b, _m in ordered]
    positions: list[tuple[int, int]] | None = None  # every point's start, in order (made when first needed)
    out: dict[int, list[tuple[int, int]]] = {}
    for i in compress(range(len(starts)), map(lt, starts, ends)):
        a, b = (starts[i], start_columns[i]), (ends[i], end_columns[i])
        for first, last, m in ordered[bisect_left(firsts, a):bisect_right(firsts, b)]:
            if m != methods[i] and last <= b and (first, last) != (a, b):
                line = first[0]
                if opening is not None and line > a[0] + 1:
                    o = opening(a[0], a[1], first[0], first[1])
                    if o is not None:
                        if positions is None:
                            positions = sorted(zip(starts, start_columns))
                        k = bisect_right(positions, o)
                        if k == len(positions) or positions[k] >= first:  # no point between: the body's opening
                            line = min(line, o[0] + 1)
                out.setdefault(i, []).append((line, last[0]))
    return out


def deciding_lines(starts: Sequence[int], ends: Sequence[int], code_free: Iterable[int] = (), *,
                   start_columns: Sequence[int] | None = None, end_columns: Sequence[int] | None = None,
                   methods: Sequence[int] | None = None) -> dict[int, list[int]]:
    """deciding_points of the spans given as columns: each point's start line and end line, and (all three or
    none) its start and end columns and its method; without them the points are all one method's."""
    # Each start line's points, in order (at C speed when no two points start on one line, the usual case).
    starting: dict[int, list[int]] = dict(zip(starts, map(list, zip(range(len(starts))))))
    if len(starting) != len(starts):
        starting = {}
        for i, line in enumerate(starts):
            ix = starting.get(line)
            if ix is None:
                starting[line] = [i]
            else:
                ix.append(i)
    skip = code_free if isinstance(code_free, (set, frozenset, CodeFreeLines)) else set(code_free)
    out = dict(starting)  # (the lists are starting's: neither is changed below)
    inner: dict[int, tuple[int, list[int]]] = {}  # continuation line -> (start line of the innermost, its points)
    body_opening = getattr(code_free, "body_opening", None)

    def opening(start_line: int, start_column: int, line: int, column: int) -> tuple[int, int] | None:
        # Asked (the source lexed) only when a line after the last point start before the function holds code.
        for between in range(line - 1, start_line, -1):
            if between in starting:
                return None
            if between not in skip:
                return body_opening(start_line, start_column, line, column)
        return None

    inside = (functions_inside(starts, ends, start_columns, end_columns, methods,
                               opening if body_opening is not None else None)
              if methods is not None and start_columns is not None and end_columns is not None else {})
    for i in compress(range(len(starts)), map(lt, starts, ends)):  # (multi-line points only)
        key = starts[i]
        owned = inside.get(i)
        for line in range(key + 1, ends[i] + 1):
            if line in starting or line in skip:
                continue
            if owned and any(first <= line <= last for first, last in owned):
                continue  # a function written inside the point decides it, or nothing does
            have = inner.get(line)
            if have is None or key > have[0]:
                inner[line] = (key, [i])
            elif key == have[0]:
                have[1].append(i)
    for line, (_key, ix) in inner.items():
        out[line] = ix
    return out


def line_hits(spans: Sequence[Span], code_free: Iterable[int] = ()) -> dict[int, int]:
    """{line: hits} of every statement line of one document: the most hits of its deciding points."""
    return {line: max(spans[i].hits for i in ix) for line, ix in deciding_points(spans, code_free).items()}


# --- lines without code, from the source text ------------------------------------------------------------------

# Pygments' lexer per language, by class name: Pygments is imported only when a file needs lexing (most files are
# judged line by line), which keeps it out of every command's start-up.
_LEXERS: dict[str, str] = {".cs": "CSharpLexer", ".fs": "FSharpLexer", ".fsi": "FSharpLexer", ".fsx": "FSharpLexer",
                           ".vb": "VbNetLexer"}


_SEPARATORS = set("{}()[];,")
# What can open a token spanning lines, per language; a file without any is classified line by line.
_MULTI_LINE_OPENERS = {".cs": ("/*", '@"', '"""'), ".fs": ("(*", '"""', '@"'), ".fsi": ("(*", '"""', '@"'),
                       ".fsx": ("(*", '"""', '@"')}
# Whitespace, brackets and separators, then perhaps a `//` comment or a `#` directive line.
_LINE_WITHOUT_CODE = re.compile(r"^[\s{}()\[\];,]*(?://.*)?$|^\s*#.*$")


def _no_code(token, value: str) -> bool:
    from pygments.token import Comment, Operator, Punctuation, String, Text, Whitespace

    if token in Comment or token in String.Doc or token in Whitespace or (token in Text and not value.strip()):
        return True  # (Pygments' F# lexer calls `///` doc comments String.Doc)
    # Pygments' F# lexer calls brackets operators
    return (token in Punctuation or token in Operator) and set(value.strip()) <= _SEPARATORS


def _tokens(text: str, suffix: str):
    """Pygments' (token type, text) pairs of `text` in the language of `suffix` (one of _LEXERS), every character
    kept (no stripping, a final newline ensured), so line numbers count as in the file."""
    import pygments.lexers

    lexer = getattr(pygments.lexers, _LEXERS[suffix.lower()])(stripnl=False, stripall=False, ensurenl=True)
    return lexer.get_tokens(text)


def code_free_lines(text: str, suffix: str, *, lex: bool = False) -> set[int]:
    """Lines (1-based) of `text` that hold nothing but whitespace, comments, preprocessor
    directives, brackets and separators (`{}()[];,`).

    Tokens come from Pygments' lexer for the language (by file suffix), so `//` inside a string
    is not a comment and a `/* ... */` block covers its inner lines. For an unknown suffix only
    blank lines are code-free. `lex` forces Pygments even where the line-by-line shortcut applies."""
    lines = text.splitlines()
    alone = _line_by_line(text, suffix, lex)
    if alone is not None:
        return {n for n, line in enumerate(lines, start=1) if alone(line)}
    from pygments.token import Error, Name

    has_code: set[int] = set()
    line, directive, line_blank = 1, 0, True
    for token, value in _tokens(text, suffix):
        if token in Error and value == "#" and line_blank:
            directive = line  # a directive Pygments does not know (`#nullable`): the rest of its line is no code
        if directive == line:
            pass
        elif token in Name.Attribute and "\n" in value:
            # Pygments' C# lexer takes a collection expression opened on its own line (`[` ... `]`) for one
            # multi-line attribute token: judge its lines one by one.
            for k, piece in enumerate(value.split("\n")):
                if piece.strip() and not set(piece.strip()) <= _SEPARATORS:
                    has_code.add(line + k)
        elif not _no_code(token, value):
            has_code.add(line)  # a multi-line token is code on its first line; its other lines follow
            for k in range(1, value.count("\n") + (0 if value.endswith("\n") else 1)):
                has_code.add(line + k)
        line += value.count("\n")
        line_blank = not value.rpartition("\n")[2].strip() if "\n" in value else line_blank and not value.strip()
    return {n for n in range(1, len(lines) + 1) if n not in has_code}


def _blank(line: str) -> bool:
    return not line.strip()


def _no_code_alone(line: str) -> bool:
    return _LINE_WITHOUT_CODE.match(line) is not None


def _line_by_line(text: str, suffix: str, lex: bool = False) -> Callable[[str], bool] | None:
    """The test of one line of code_free_lines when each line can be judged alone, else None (lex the text)."""
    lexer_type = _LEXERS.get(suffix.lower())
    if lexer_type is None:
        return _blank  # an unknown language: blank lines only
    openers = _MULTI_LINE_OPENERS.get(suffix.lower())
    if not lex and openers is not None and not any(o in text for o in openers):
        # No token can span lines (block comment, verbatim or raw string): each line on its own, much faster than
        # lexing (benchmarks/line_rule.py measures it); the same answer (tests/test_lines.py compares both).
        return _no_code_alone
    return None


def lambda_body_openings(text: str, suffix: str) -> list[tuple[int, int]]:
    """Where the block body of a lambda opens, as sorted (line, column) positions (1-based): a C# `{` right after
    `=>`, the `)` ending a VB `Function(...)` / `Sub(...)` header that ends its line (perhaps with `As T`). Tokens
    come from Pygments, so comments and strings never open one; other languages have none here."""
    kind = {".cs": "cs", ".vb": "vb"}.get(suffix.lower())
    if kind is None:
        return []
    from pygments.token import Comment, Text, Whitespace

    code: list[tuple[str, int, int]] = []  # (value, line, column) of each token of code
    line, column = 1, 1
    for token, value in _tokens(text, suffix):
        if not (token in Comment or token in Whitespace or (token in Text and not value.strip())):
            code.append((value, line, column))
        breaks = value.count("\n")
        if breaks:
            line, column = line + breaks, len(value) - value.rfind("\n")
        else:
            column += len(value)
    out: list[tuple[int, int]] = []
    if kind == "cs":
        for k in range(1, len(code)):
            if code[k][0] == "{" and code[k - 1][0] == "=>":
                out.append(code[k][1:])
        return out
    for k, (value, at, _column) in enumerate(code):
        if (value.lower() not in ("function", "sub") or k + 1 == len(code) or code[k + 1][0] != "("
                or (k > 0 and code[k - 1][0].lower() in ("end", "exit", "declare"))):
            continue
        depth, j = 0, k + 1
        while j < len(code):
            depth += (code[j][0] == "(") - (code[j][0] == ")")
            if depth == 0:
                break
            j += 1
        if j < len(code) and (j + 1 == len(code) or code[j + 1][1] != code[j][1] or code[j + 1][0].lower() == "as"):
            out.append(code[j][1:])  # (a header with `As T`: its lambda's body starts on the next line all the same)
    return out


class CodeFreeLines:
    """`n in CodeFreeLines(text, suffix)` is `n in code_free_lines(text, suffix)`, judging only the lines asked
    about when each line can be judged alone (deciding_points asks only about continuation lines: few)."""

    def __init__(self, text: str, suffix: str) -> None:
        self._text, self._suffix = text, suffix
        self._alone = _line_by_line(text, suffix)
        self._lines: list[str] | None = None
        self._set: set[int] | None = None
        self._openings: list[tuple[int, int]] | None = None

    def body_opening(self, start_line: int, start_column: int, line: int, column: int) -> tuple[int, int] | None:
        """The last lambda body opening (lambda_body_openings) after (start_line, start_column) and before (line,
        column), or None."""
        if self._openings is None:
            self._openings = lambda_body_openings(self._text, self._suffix)
        k = bisect_left(self._openings, (line, column))
        if k and self._openings[k - 1] > (start_line, start_column):
            return self._openings[k - 1]
        return None

    def __contains__(self, n: object) -> bool:
        if self._alone is None:
            if self._set is None:
                self._set = code_free_lines(self._text, self._suffix)
            return n in self._set
        if self._lines is None:
            self._lines = self._text.splitlines()
        return type(n) is int and 1 <= n <= len(self._lines) and self._alone(self._lines[n - 1])


def read_source(path: str) -> str | None:
    """The file's text, or None when it cannot be read (then no line is known to be code-free, and no branch has a source description)."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def generated_member(name: str, attributes: Iterable[str]) -> bool:
    """A member the compiler wrote whole that still carries visible sequence points: a record's
    copy constructor (`[CompilerGenerated] .ctor`, pointing at the `record` line). Its points are
    not the user's statements. Lambdas, local functions and auto-property accessors carry the
    attribute too but are the user's code (accessors: see --skip-auto-properties)."""
    return COMPILER_GENERATED in attributes and name == ".ctor"
