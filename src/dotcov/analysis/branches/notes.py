"""What a missed branch outcome means in the user's words: "`h < 0` never true", "`??` right side never used".

A branch record knows its IL instruction (`brtrue`, `blt`, ...) and the source text of its
statement. The conditions of a statement are its text split at the top-level `||` and `&&`; when
the statement has as many conditions as branches, the k-th branch (in IL order, which is source
order for Roslyn) tests the k-th condition. Whether a jump means "true" or "false" follows from
the instruction: `brtrue` jumps on true, `brfalse` on false, a comparison jumps when its relation
holds, which is the source operator (`blt` for `<`) or its negation (`bge` for `<`, as Release
builds branch around the `then` part). When that cannot be told, the note says only that one
outcome never happened, never an IL offset.
"""

from __future__ import annotations

import re
from functools import lru_cache

from dotcov.analysis.branches.il import BRANCH_IF_FALSE, BRANCH_IF_TRUE

# comparison branches (short and long forms) -> the relation under which they jump
RELATION = {0x2E: "==", 0x3B: "==", 0x2F: ">=", 0x3C: ">=", 0x30: ">", 0x3D: ">", 0x31: "<=", 0x3E: "<=",
            0x32: "<", 0x3F: "<", 0x33: "!=", 0x40: "!=", 0x34: ">=", 0x41: ">=", 0x35: ">", 0x42: ">",
            0x36: "<=", 0x43: "<=", 0x37: "<", 0x44: "<"}
NEGATION = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
SOURCE_RELATION = re.compile(r"(<=|>=|==|!=|(?<![<=>])<(?![<=])|(?<![=>-])>(?![>=]))")


def conditions(text: str) -> list[str]:
    """The conditions of a statement: `if (w < 0 || h < 0)` -> ["w < 0", "h < 0"]."""
    return list(_conditions(text))


@lru_cache(maxsize=4096)
def _conditions(text: str) -> tuple[str, ...]:
    """conditions(), once per distinct statement text (many branches share theirs: `if (x == null)`)."""
    m = (re.match(r"^\s*(?:\}\s*)?(?:else\s+)?(?:if|while|when)\s*\((.*)\)\s*\{?\s*$", text)
         or re.match(r"^\s*(?:ElseIf|If|While|Do While)\s+(.*?)(?:\s+Then)?\s*$", text))  # VB
    body = m.group(1) if m else re.sub(r"^\s*[Rr]eturn\s+|;\s*$", "", text)
    if not m:  # `bool b = x < 0 && y < 0;`, `var ok = ...`: the value assigned
        body = re.sub(r"^\s*(?:[\w<>\[\]?,.]+\s+)?[\w.]+\s*=(?![=>])\s*", "", body)
    # pattern combinators: `x is > 0 and < 10` -> "x is > 0", "< 10"
    separators = ("||", "&&", " and ", " or ") if re.search(r"\bis\b", body) else ("||", "&&")
    separators += (" AndAlso ", " OrElse ")  # VB
    out = []
    for part in _split(body, separators):
        inner = _unwrap(part)
        nested = _split(inner, separators) if inner != part else [inner]
        # `(a || b) && flag`: the parenthesised conditions are conditions of the statement too.
        out.extend(_conditions(f"return {inner};") if len(nested) > 1 else [inner])
    return tuple(out)


def _split(body: str, separators: tuple[str, ...]) -> list[str]:
    """`body` split at its top-level separators (empty parts dropped)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (sep := next((x for x in separators if body.startswith(x, i)), None)):
            parts.append(body[start:i].strip())
            start = i + len(sep)
            i += len(sep) - 1
        i += 1
    parts.append(body[start:].strip())
    return [p for p in parts if p]


def _unwrap(text: str) -> str:
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += c in "([{"
        depth -= c in ")]}"
        if depth < 0:
            return False
    return depth == 0


def jump_means(opcode: int, condition: str, tests_written_value: bool = False) -> bool | None:
    """Whether the branch jumps when `condition` is true (True), when it is false (False), or unknown.

    A `brtrue`/`brfalse` on `!x` tests `x` itself in Release (`ldloc x; brtrue`), so `!` turns the sense round;
    with `tests_written_value` it tests the condition's own value (Debug's `ldloc x; ldc.i4.0; ceq; ...; brfalse`,
    a value or operand probe's outcomes), so it does not."""
    negated = condition.startswith("!") and not condition.startswith("!=") and not tests_written_value
    if opcode in BRANCH_IF_TRUE or opcode in BRANCH_IF_FALSE:
        if SOURCE_RELATION.search(condition) is None and not re.fullmatch(r"!?[\w.()\[\]'\", ]+", condition):
            return None  # e.g. `a ?? b`: the tested value is not plainly the condition's
        return (opcode in BRANCH_IF_TRUE) != negated
    rel = RELATION.get(opcode)
    found = SOURCE_RELATION.findall(condition)
    if rel is None or len(found) != 1 or negated:
        return None
    if found[0] == rel:
        return True
    if found[0] == NEGATION[rel]:
        return False
    return None


def notes(text: str, branches: list[tuple]) -> list[dict[int, str]]:
    """For the (opcode, {outcome kind: hits}[, tests_written_value]) branches of one statement (IL order), a
    description of each outcome as "never ..." (kind 1 = fall-through, 2 = jump); `tests_written_value` as for
    jump_means (default False)."""
    conds = _conditions(text) if text else ()
    out = []
    for k, (opcode, _outcomes, *rest) in enumerate(branches):
        written = bool(rest and rest[0])
        desc: dict[int, str] = {}
        if text.strip() == "in":  # the loop test of `foreach`, on the `in` keyword's point
            sense = True if opcode in BRANCH_IF_TRUE or RELATION.get(opcode) in ("<", "!=") else None
            if sense is not None:
                desc = {2: "`foreach` never iterated (always empty)", 1: "`foreach` never reached the end"}
        elif "??" in text and "?." not in text and len(branches) == 1 and opcode in BRANCH_IF_TRUE:
            desc = {2: "`??` left side never used (always null)", 1: "`??` right side never used"}
        elif "?." in text and len(branches) == 1 and opcode in BRANCH_IF_TRUE:
            # `s?.Length ?? 0` is one null test of `s`: the `??` right side is used exactly when `s` is null
            tail = " (`??` right side never used)" if "??" in text else ""
            desc = {2: "`?.` receiver never non-null", 1: f"`?.` receiver never null{tail}"}
        elif len(conds) == len(branches):
            sense = jump_means(opcode, conds[k], written)
            if sense is not None:
                c = conds[k]
                desc = {2: f"`{c}` never {'true' if sense else 'false'}",
                        1: f"`{c}` never {'false' if sense else 'true'}"}
        if not desc:
            where = f"`{text}`" if text else "this line"
            which = f" (condition {k + 1} of {len(branches)})" if len(branches) > 1 else ""
            desc = {1: f"{where}{which}: one outcome never happened (same value every time)",
                    2: f"{where}{which}: one outcome never happened (same value every time)"}
        out.append(desc)
    return out
