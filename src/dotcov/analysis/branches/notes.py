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

from dotcov.analysis.branches.il import (ARITHMETIC, BRANCH_IF_FALSE, BRANCH_IF_TRUE, LDC_I4, NOP, local_loaded,
                                        local_stored, shorten)

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
    ternary = _ternary(body)
    if ternary is not None:  # `c ? a : b`: the condition's conditions, then any the arms test themselves
        test, *arms = ternary
        out = list(_conditions(f"return {test};"))
        for arm in arms:
            inner = _unwrap(arm)
            if _ternary(inner) is not None or len(_split(inner, separators)) > 1:
                out.extend(_conditions(f"return {inner};"))
        return tuple(out)
    out = []
    for part in _split(body, separators):
        inner = _unwrap(part)
        nested = _split(inner, separators) if inner != part else [inner]
        # `(a || b) && flag`, `(c ? x : y) && z`: the parenthesised conditions are conditions of the statement too.
        out.extend(_conditions(f"return {inner};") if len(nested) > 1 or _ternary(inner) is not None else [inner])
    return tuple(out)


def _ternary(body: str) -> tuple[str, str, str] | None:
    """(condition, first arm, second arm) of a top-level `c ? a : b`, else None. A `?` of `?.`, `?[`, `??` or a
    nullable type (`int?`) is no conditional operator; `:` of a nested `?:` or a named argument is inside its own
    parentheses or pairs with its own `?`."""
    depth, question, pending, i = 0, -1, 0, 0
    while i < len(body):
        c = body[i]
        if c in "\"'":  # a string or char literal: skipped whole
            end = i + 1
            while end < len(body) and body[end] != c:
                end += 2 if body[end] == "\\" else 1
            i = end + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == "?":
            after = body[i + 1:i + 2]
            if after in ("?", ".", "[") or body[i - 1:i] == "?":
                i += 2 if after == "?" else 1
                continue
            if re.match(r"\s*[\w(!\"'@$-]", body[i + 1:]) and not re.match(r"\s+\w+\s*[=;,)]", body[i + 1:]):
                if question < 0:
                    question = i
                pending += 1
        elif depth == 0 and c == ":" and pending:
            pending -= 1
            if pending == 0 and question >= 0:
                test, yes, no = body[:question].strip(), body[question + 1:i].strip(), body[i + 1:].strip()
                return (test, yes, no) if test and yes and no else None
        i += 1
    return None


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


NULL_TEST = re.compile(r"^(?:null\s*(?P<op1>==|!=)\s*[^=!<>]+|[^=!<>]+?\s*(?P<op2>==|!=)\s*null"
                       r"|.+?\s+(?P<is>is(?:\s+not)?|Is|IsNot)\s+(?:null|Nothing))$")


def null_test(condition: str) -> bool | None:
    """Whether `condition` holds when its operand is null (`x == null`, `x is null`, VB `x Is Nothing`: True), when
    it is not (`x != null`, `x is not null`, `x IsNot Nothing`: False), or is no null test (None)."""
    m = NULL_TEST.match(condition)
    if m is None:
        return None
    op = m.group("op1") or m.group("op2") or m.group("is")
    return op in ("==", "is", "Is")


def jumps_on_reference(il, offset: int) -> bool:
    """Whether the `brtrue`/`brfalse` at `offset` of `il` (a branches.il.MethodIL) tests a reference itself (C#'s
    `x == null` as a jump: `ldarg x; brtrue`, jumping when `x` is not null) rather than a computed comparison (Debug's
    `ldarg x; ldnull; ceq; stloc; ldloc; brfalse`, or the constant a short circuit's join leaves)."""
    ins, i = il.instructions, il.index.get(offset)
    if i is None:
        return False

    def back(k: int) -> int:
        while k >= 0 and ins[k][1] == NOP:
            k -= 1
        return k

    k = back(i - 1)
    if k >= 1 and local_loaded(ins[k]) is not None:
        before = back(k - 1)
        if before >= 0 and local_stored(ins[before]) == local_loaded(ins[k]):
            k = back(before - 1)  # (Debug keeps the condition in a local first)
    return k >= 0 and ins[k][1] not in ARITHMETIC and ins[k][1] not in LDC_I4


def jump_means(opcode: int, condition: str, tests_written_value: bool = False,
               tests_ref: bool = False) -> bool | None:
    """Whether the branch jumps when `condition` is true (True), when it is false (False), or unknown.

    A `brtrue`/`brfalse` on `!x` tests `x` itself in Release (`ldloc x; brtrue`), so `!` turns the sense round;
    with `tests_written_value` it tests the condition's own value (Debug's `ldloc x; ldc.i4.0; ceq; ...; brfalse`,
    a value or operand probe's outcomes), so it does not. With `tests_ref` (jumps_on_reference) a null test's
    `brtrue` jumps when the reference is not null."""
    negated = condition.startswith("!") and not condition.startswith("!=") and not tests_written_value
    if tests_ref and not tests_written_value and (opcode in BRANCH_IF_TRUE or opcode in BRANCH_IF_FALSE):
        holds_for_null = null_test(condition)
        if holds_for_null is not None:
            return (opcode in BRANCH_IF_TRUE) != holds_for_null
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
    """For the (opcode, {outcome kind: hits}[, tests_written_value[, jumps_on_reference]]) branches of one statement
    (IL order), a description of each outcome as "never ..." (kind 1 = fall-through, 2 = jump), and under kind 0
    what is said when neither happened ("`b` never evaluated"); the flags as for jump_means (default False)."""
    conds = _conditions(text) if text else ()
    statement = f"`{shorten(text.strip())}`" if text else "this line"
    out = []
    for k, (opcode, _outcomes, *rest) in enumerate(branches):
        written, ref = bool(rest and rest[0]), bool(rest[1:] and rest[1])
        desc: dict[int, str] = {}
        c = conds[k] if len(conds) == len(branches) else None
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
        elif c is not None:
            sense = jump_means(opcode, c, written, ref)
            if sense is not None:
                desc = {2: f"`{c}` never {'true' if sense else 'false'}",
                        1: f"`{c}` never {'false' if sense else 'true'}"}
        if not desc:
            # The sense cannot be told: the condition (or the statement, and which of its conditions) is named.
            where = f"`{c}`" if c is not None else statement
            which = f" (condition {k + 1} of {len(branches)})" if len(branches) > 1 and c is None else ""
            desc = {1: f"{where}{which}: one outcome never happened (same value every time)",
                    2: f"{where}{which}: one outcome never happened (same value every time)"}
        if c is not None and len(branches) > 1:  # (one condition: the statement's "never evaluated" says it)
            desc[0] = f"`{c}` never evaluated"
        out.append(desc)
    return out
