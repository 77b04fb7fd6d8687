"""A `switch` as the user wrote it: one outcome per `case` section or arm, whatever IL the compiler chose.

The compiler lowers `switch (k) { case 1: ... case 2: ... default: ... }` to a chain of
comparisons (`ldloc; ldc.i4.1; beq CASE1; ldloc; ldc.i4.2; beq CASE2; br DEFAULT`), an IL
`switch`, a binary search or a string-hash tree, and a switch expression to a decision tree of
type tests and comparisons. Counting each IL branch's two outcomes gives numbers that follow the
lowering (two comparisons = 4 outcomes for 3 sections). Here the user branches of one dispatch are
grouped and each outcome is followed to where it leads:

* an arm: the first visible sequence point reached through straight-line code and `br` (a case
  section's first statement, an arm's expression, or the statement after the switch when no
  `case` matched: the implicit default);
* another branch of the same dispatch (an inner edge of the decision tree: not an outcome);
* anything else (e.g. the `throw` of a switch expression without a discard arm): the implicit
  "no arm matched" outcome.

Hits of an arm are the sum of the hits of the outcomes leading straight to it. A group is a switch
when the source says so: the statement containing its first branch contains the `switch` keyword,
or (Release builds put the dispatch under a hidden point, with no point on the `switch` line) the
nearest line above the arms does. Without the source text nothing is grouped (each branch keeps its
own two outcomes). Labels come from the source: `case 2:`, `default:`, the arm's pattern (`>= 50`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dotcov.analysis.branches import il as b

SWITCH_KEYWORD = re.compile(r"\bswitch\b")
# F#: `match x with` (and `function`), whose guarded arms `| s when s >= 90 -> ...` evaluate each guard under a
# visible point of its own on the arm's line.
FS_MATCH_KEYWORD = re.compile(r"\bmatch\b|\bfunction\b")
FS_GUARD_ARM = re.compile(r"^\s*\|.*\bwhen\b")
# VB: `Select Case x`, whose arms' points are the `Case ...` lines themselves.
VB_SELECT_KEYWORD = re.compile(r"\bSelect\s+Case\b", re.IGNORECASE)
VB_CASE_LINE = re.compile(r"^\s*(Case\b.*?)\s*(?:'.*)?$", re.IGNORECASE)
CASE_LABELS = re.compile(r"\b(?:case\b[^:]*?|default)\s*:(?!:)")
BRACKETS_ONLY = re.compile(r"^[\s{}]*$")
ENDS = {0x2A, 0x7A, 0xFE1A, b.LEAVE, b.LEAVE_S, b.ENDFINALLY}  # ret, throw, rethrow, leave, endfinally


@dataclass
class Switch:
    """One switch dispatch: the branch offsets it is made of, its line, and its arms' hits."""

    offsets: list[int]
    line: int
    outcomes: dict[int, int]  # arm number (1..n, in IL order of the arms) -> hits
    arms: dict[int, str]  # arm number -> label, e.g. "`case 2:`", "arm `>= 50`"


def _follow(il: b.MethodIL, start: int, visible: set[int], group: set[int], limit: int = 64,
            through: frozenset[int] = frozenset()) -> tuple[str, int]:
    """Where control goes from `start`: ("arm", point offset), ("branch", offset) or ("end", offset). Points in
    `through` (F# guard evaluations) are passed, not arms."""
    off = start
    for _ in range(limit):
        if off in visible and off not in through:
            return "arm", off
        i = il.index.get(off)
        if i is None:
            return "end", off
        _o, op, arg = il.instructions[i]
        if off in group:
            return "branch", off
        if op in (b.BR, b.BR_S):
            off = arg
            continue
        if op == b.SWITCH or op in b.CONDITIONAL or op in ENDS or i + 1 >= len(il.instructions):
            return "end", off
        off = il.instructions[i + 1][0]
    return "end", off


def _targets(br: b.Branch) -> dict[int, int]:
    """Outcome kind -> the offset it leads to (kind 1 fall-through, 2 + i target i)."""
    out = {1: br.fall_through}
    for i, t in enumerate(br.targets):
        out[2 + i] = t
    return out


def _keyword(fsharp: bool, vb: bool) -> re.Pattern:
    return FS_MATCH_KEYWORD if fsharp else VB_SELECT_KEYWORD if vb else SWITCH_KEYWORD


def may_hold_switches(text: str, fsharp: bool = False, vb: bool = False) -> bool:
    """False when `find` cannot find a switch anywhere in this source text: no line has the keyword (a switch's
    line is always one that does). Checked once per file, so a file without switches skips `find`."""
    # (A plain substring test first, much faster than the regex: no keyword without its letters. VB's is any case.)
    if not vb and not any(word in text for word in (("match", "function") if fsharp else ("switch",))):
        return False
    return _keyword(fsharp, vb).search(text) is not None


def _switch_line(lines: list[str], anchor: tuple | None, first_arm_line: int, fsharp: bool = False,
                 vb: bool = False, method_line: int = 1, floor: int = 0) -> int | None:
    """The line of the `switch` keyword (F#: `match`, VB: `Select Case`) the dispatch belongs to, from the source;
    never at or above `floor`, the last line of the methods written above this one (their `switch` is not this
    one's), and for F# never above `method_line`, the method's first point."""
    keyword = _keyword(fsharp, vb)
    if anchor is not None:
        _o, sl, sc, _el, _ec, _d = anchor
        if 0 < sl <= len(lines) and keyword.search(_code(lines[sl - 1][max(sc - 1, 0):])):
            return sl
    # F# guards sit under points on the arms' lines, below the `match` line.
    low = anchor[3] + 1 if anchor is not None and not fsharp else max(1, first_arm_line - 30)
    if fsharp:  # a Release C# `switch` line may lie above the method's first visible point; an F# `match` not
        low = max(low, method_line)
    low = max(low, floor + 1)
    top = min(first_arm_line, len(lines) + 1) - 1
    if fsharp and anchor is not None:
        top = min(anchor[1] - 1, top)
    for n in range(top, low - 1, -1):
        if keyword.search(_code(lines[n - 1])):
            return n
    return None


def _code(line: str) -> str:
    """The line without a trailing `//` comment (good enough for keyword and label searches)."""
    cut = line.find("//")
    return line if cut < 0 else line[:cut]


def _label(lines: list[str], point: tuple, switch_line: int, vb: bool = False) -> str:
    _o, sl, sc, _el, _ec, _d = point
    if vb:
        m = VB_CASE_LINE.match(lines[sl - 1])
        return f"`{b.shorten(m.group(1), 40)}`" if m else "no `Case` matched"
    text = _code(lines[sl - 1])
    before = text[: max(sc - 1, 0)]
    if "->" in before and before.lstrip().startswith("|"):  # an F# match arm: its pattern (and guard)
        pattern = before[: before.rindex("->")].strip()[1:].strip()
        return f"arm `{b.shorten(pattern, 40)}`"
    pattern = _arm_pattern(lines, sl, sc, switch_line)
    if pattern is not None:  # a switch-expression arm: its pattern, whole
        return f"arm `{pattern}`"
    labels = CASE_LABELS.findall(before)
    n = sl - 1
    while not labels and n > switch_line:
        line = _code(lines[n - 1])
        if CASE_LABELS.search(line):
            labels = CASE_LABELS.findall(line)
            break
        if not BRACKETS_ONLY.match(line) or "}" in line:
            break  # other code, or the end of a block (the switch's own `}` above the statement after it)
        n -= 1
    if labels:
        return "`" + " ".join(x.strip() for x in labels) + "`"
    return "implicit `default` (no `case` matched)"


def _arm_pattern(lines: list[str], sl: int, sc: int, switch_line: int) -> str | None:
    """The pattern (with its `when` guard) of the switch-expression arm whose expression starts at line `sl`,
    column `sc`: the text before its `=>` back to the `,` or `{` that ends the arm before, at the pattern's own
    bracket depth (so `PaymentException { Code: 402 }` is whole); a pattern over several lines joined into one."""
    code = [_code(line).strip() for line in lines[switch_line - 1:sl - 1]]
    code.append(_code(lines[sl - 1])[:max(sc - 1, 0)].strip())
    text = " ".join(part for part in code if part)
    if not text.endswith("=>"):
        return None
    depth, i = 0, len(text) - 3
    while i >= 0:
        c = text[i]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        i -= 1
    pattern = text[i + 1:-2].strip()
    return pattern or None


def find(il: b.MethodIL, points: list[tuple], user: dict[int, dict[int, int]],
         lines: list[str] | None, fsharp: bool = False, vb: bool = False, floor: int = 0) -> list[Switch]:
    """The switches among a method's user branches. `points` are its visible sequence points,
    `user` maps each user branch's offset to its outcomes' hits, `lines` is the source file;
    `fsharp`: the source is F# (`match`, guards under points of their own); `vb`: VB (`Select Case`); `floor`:
    the last line of the methods above this one in the file (0: none), which a switch line is never at or above."""
    if not lines or not user:
        return []
    by_offset = {br.offset: br for br in il.branches() if br.offset in user}
    visible = {p[0] for p in points}
    # F#: a guard's point (on an arm line `| s when ...`, before the arm's `->`) leads on to the guard's test.
    through = frozenset(p[0] for p in points if fsharp and 0 < p[1] <= len(lines) and p[1] == p[3]
                        and FS_GUARD_ARM.match(_code(lines[p[1] - 1]))
                        and "->" in _code(lines[p[1] - 1])[max(p[4] - 1, 0):])
    group = set(by_offset)
    parent = {o: o for o in group}

    def root(o: int) -> int:
        while parent[o] != o:
            parent[o] = parent[parent[o]]
            o = parent[o]
        return o

    edges: dict[int, dict[int, tuple[str, int]]] = {}
    for off, br in by_offset.items():
        edges[off] = {k: _follow(il, t, visible, group, through=through) for k, t in _targets(br).items()}
        for where, to in edges[off].values():
            if where == "branch":
                parent[root(to)] = root(off)
    components: dict[int, list[int]] = {}
    for off in group:
        components.setdefault(root(off), []).append(off)
    point_at = {p[0]: p for p in points}
    found = []
    for offsets in components.values():
        offsets.sort()
        hits: dict[tuple[str, int], int] = {}
        for off in offsets:
            for k, dest in edges[off].items():
                if dest[0] != "branch" and k in user[off]:
                    hits[dest] = hits.get(dest, 0) + user[off][k]
        arm_points = [point_at[d[1]] for d in hits if d[0] == "arm"]
        if len(hits) < 2 or not arm_points:
            continue
        anchor = b.containing_point(points, offsets[0])
        line = _switch_line(lines, anchor, min(p[1] for p in arm_points), fsharp, vb, min(p[1] for p in points),
                            floor)
        if line is None:
            continue
        dests = sorted(hits, key=lambda d: d[1])
        arms = {}
        for k, d in enumerate(dests, start=1):
            arms[k] = (_label(lines, point_at[d[1]], line, vb) if d[0] == "arm"
                       else "implicit default (no arm matched)")
        found.append(Switch(offsets, line, {k: hits[d] for k, d in enumerate(dests, start=1)}, arms))
    return found
