"""packed.pack's per-record loop (native/python/native_methods.cpp, `_native.pack_records`) stated in Python: the
oracle tests/test_plan_methods.py compares the native one with."""

from __future__ import annotations

from array import array


def pack_records_py(records: list[tuple], file_index: dict, describe) -> tuple:
    """_native.pack_records in Python: (records as int32 bytes, missed, expressions, fixes)."""
    out, missed, expressions, fixes = [], [], [], []
    described: dict = {}
    orders: dict = {}  # id(kinds) -> the outcomes in kind order (the plan holds its kinds alive)
    for record in records:
        token, offset, path, line, kinds, codes, _plain, generated, is_switch, text, arms, notes, fix, at = record
        order = orders.get(id(kinds))
        if order is None:
            order = orders[id(kinds)] = sorted(range(len(kinds)), key=kinds.__getitem__)
        flat = []
        for i in order:
            code = codes[i]
            if type(code) is not int:
                expressions.append(code)
                code = -len(expressions)
            flat.append(code)
        f = file_index.get(path, -1)
        out += [f, line, offset, *(at if at is not None else (-1, -1)), int(bool(is_switch)), len(flat), *flat]
        shape = (id(kinds), generated, is_switch, id(text), id(arms), id(notes))
        known = described.get(shape)
        if known is None:
            known = described[shape] = describe(record, order)
        missed.append((known[0], None if known[1] is None else list(known[1])))
        if fix is not None:
            fixes.append((f, line, [codes[i] for i in order], [tuple(m) for m in fix], token, offset))
    return array("i", out).tobytes(), missed, expressions, fixes
