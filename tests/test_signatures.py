from dotcov.analysis.signatures import SignatureError, method_signature

import pytest


def names(tag, rid):
    return {(0, 1): "Calc.Point", (1, 2): "System.Collections.Generic.List`1"}.get((tag, rid), "?")


def test_primitives_and_arrays():
    # static int32 M(int32, string[], int64&)
    blob = bytes([0x00, 0x03, 0x08, 0x08, 0x1D, 0x0E, 0x10, 0x0A])
    assert method_signature(blob, names) == ("System.Int32", ["System.Int32", "System.String[]", "System.Int64&"])


def test_classes_generics_and_type_parameters():
    # instance void M<T>(Calc.Point, List`1<!!0>, !0)
    blob = bytes([0x30, 0x01, 0x03, 0x01, 0x11, (1 << 2) | 0, 0x15, 0x12, (2 << 2) | 1, 0x01, 0x1E, 0x00, 0x13, 0x00])
    assert method_signature(blob, names) == (
        "System.Void", ["Calc.Point", "System.Collections.Generic.List`1<!!0>", "!0"])


def test_truncated_blob_raises():
    with pytest.raises(SignatureError):
        method_signature(bytes([0x00, 0x02, 0x01, 0x08]), names)


# --- C# names (issue 25 item 13) --------------------------------------------------------------------------

from dotcov.analysis.signatures import csharp_method, tuple_element_names  # noqa: E402

TYPES = {(1, 1): "System.Collections.Generic.IReadOnlyList`1", (1, 2): "System.ValueTuple`2",
         (1, 3): "System.Nullable`1", (0, 4): "Calc.Point", (0, 5): "Calc.Outer`1/Inner",
         (1, 6): "System.Collections.Generic.Dictionary`2", (1, 7): "System.Collections.Generic.List`1"}


def named(tag, rid):
    return ("named", TYPES[(tag, rid)], [])


def names_blob(*names) -> bytes:
    out = b"\x01\x00" + len(names).to_bytes(4, "little")
    for n in names:
        out += b"\xff" if n is None else bytes([len(n)]) + n.encode()
    return out + b"\x00\x00"


def test_tuple_element_names_read_from_the_attribute_value():
    assert tuple_element_names(names_blob("Sku", "Qty")) == ["Sku", "Qty"]
    assert tuple_element_names(names_blob(None, "b")) == [None, "b"]
    assert tuple_element_names(None) == [] and tuple_element_names(b"\x01\x00\xff\xff\xff\xff") == []


def test_a_method_reads_as_csharp():
    tuple_list = [0x15, 0x12, 0x05, 0x01, 0x15, 0x11, 0x09, 0x02, 0x0E, 0x08]  # IReadOnlyList<ValueTuple<string, int>>
    blob = bytes([0x30, 0x01, 0x08, 0x01, *tuple_list,
                  0x10, 0x08,  # out int
                  0x10, 0x11, 0x10,  # in Point
                  0x15, 0x11, 0x0D, 0x01, 0x08,  # Nullable<int>
                  0x1D, 0x0E,  # string[]
                  0x14, 0x08, 0x02, 0x00, 0x00,  # int[,]
                  0x10, 0x0A,  # ref long
                  0x1E, 0x00])  # !!0
    params = [(1, 0, names_blob("Sku", "Qty"), False), (2, 0x2, None, False), (3, 0x1, None, True)]
    assert csharp_method("Map", blob, named, [], ["T"], params) == \
        "Map<T>(IReadOnlyList<(string Sku, int Qty)>, out int, in Point, int?, string[], int[,], ref long, T)"
    # Without the attribute (or the Param rows) the tuple has no names and a byref is `ref`.
    assert csharp_method("Map", blob, named, [], ["T"]) == \
        "Map<T>(IReadOnlyList<(string, int)>, ref int, ref Point, int?, string[], int[,], ref long, T)"


def test_nested_generic_types_and_nested_tuples():
    # void M(Outer<!0>.Inner, Dictionary<string, ValueTuple<int, ValueTuple<int, int>>>) in a type with `TKey`
    inner = [0x15, 0x11, 0x09, 0x02, 0x08, 0x08]
    blob = bytes([0x20, 0x02, 0x01,
                  0x15, 0x12, 0x14, 0x01, 0x13, 0x00,
                  0x15, 0x12, 0x19, 0x02, 0x0E, 0x15, 0x11, 0x09, 0x02, 0x08, *inner])
    params = [(2, 0, names_blob("a", "d", "b", "c"), False)]  # a tuple's own names first, then its elements'
    assert csharp_method("M", blob, named, ["TKey"], [], params) == \
        "M(Outer<TKey>.Inner, Dictionary<string, (int a, (int b, int c) d)>)"


def flags_blob(*flags) -> bytes:
    """A NullableAttribute(byte[]) or DynamicAttribute(bool[]) value."""
    return b"\x01\x00" + len(flags).to_bytes(4, "little") + bytes(flags) + b"\x00\x00"


def test_nullable_reference_types_and_dynamic():
    """NullableAttribute: a byte per type in pre-order (2 annotated), none for a value type unless generic (then 0
    before its arguments), Nullable<T> only T's; DynamicAttribute: a flag per type in pre-order (no argument: the
    type is dynamic), a byref's first; NullableContextAttribute's byte where a parameter has no NullableAttribute."""
    tuple_ = [0x15, 0x11, 0x09, 0x02, 0x0E, 0x08]  # ValueTuple<string, int>
    blob = bytes([0x30, 0x01, 0x0D, 0x01,
                  0x0E,  # string
                  0x15, 0x12, 0x1D, 0x01, 0x0E,  # List<string>
                  0x1D, 0x1C,  # object[]
                  0x15, 0x12, 0x19, 0x02, 0x0E, 0x1C,  # Dictionary<string, object>
                  0x1C,  # object
                  0x15, 0x12, 0x1D, 0x01, 0x1C,  # List<object>
                  *tuple_,
                  0x15, 0x11, 0x0D, 0x01, 0x08,  # Nullable<int>
                  0x1E, 0x00,  # !!0
                  0x10, 0x0E,  # ref string
                  0x0E,  # string
                  0x15, 0x11, 0x0D, 0x01, *tuple_,  # Nullable<ValueTuple<string, int>>
                  0x10, 0x15, 0x12, 0x1D, 0x01, 0x1C])  # ref List<object>
    one = b"\x01\x00\x02\x00\x00"  # NullableAttribute(2)
    params = [(1, 0, None, False, one, None), (2, 0, None, False, flags_blob(1, 2), None),
              (3, 0, None, False, flags_blob(1, 2), None), (4, 0, None, False, flags_blob(1, 1, 2), None),
              (5, 0, None, False, None, b"\x01\x00\x00\x00"), (6, 0, None, False, None, flags_blob(0, 1)),
              (7, 0, names_blob("Name", "Qty"), False, flags_blob(0, 2), None), (8, 0, None, False, None, None),
              (9, 0, None, False, one, None), (10, 0, None, False, one, None), (11, 0, None, False, None, None),
              (12, 0, None, False, flags_blob(0, 2), None), (13, 0, None, False, None, flags_blob(0, 0, 1))]
    assert csharp_method("M", blob, named, [], ["T"], params, nullable_context=1) == \
        "M<T>(string?, List<string?>, object?[], Dictionary<string, object?>, dynamic, List<dynamic>, " \
        "(string? Name, int Qty), int?, T?, ref string?, string, (string?, int)?, ref List<dynamic>)"
    # Oblivious code (no attributes, context 0) and a context of 2 (annotated) where a parameter has no attribute.
    assert csharp_method("M", blob, named, [], ["T"]) == \
        "M<T>(string, List<string>, object[], Dictionary<string, object>, object, List<object>, (string, int), " \
        "int?, T, ref string, string, (string, int)?, ref List<object>)"
    assert csharp_method("M", blob, named, [], ["T"], nullable_context=2) == \
        "M<T>(string?, List<string?>?, object?[]?, Dictionary<string?, object?>?, object?, List<object?>?, " \
        "(string?, int), int?, T?, ref string?, string?, (string?, int)?, ref List<object?>?)"


def test_value_type_tokens_take_no_nullable_byte_and_dynamic_may_be_annotated():
    """A VALUETYPE token (not only a primitive) has no nullable byte: ValueTuple<Point, string> is [0, 2]; one byte
    stands for every type of its parameter; `dynamic` carries `?` like any reference type, in an array or by ref."""
    blob = bytes([0x00, 0x04, 0x01,
                  0x15, 0x11, 0x09, 0x02, 0x11, 0x10, 0x0E,  # ValueTuple<Point, string>
                  0x15, 0x12, 0x19, 0x02, 0x0E, 0x1C,  # Dictionary<string, object>
                  0x1D, 0x1C,  # object[]
                  0x10, 0x1C])  # ref object
    params = [(1, 0, None, False, flags_blob(0, 2), None), (2, 0, None, False, b"\x01\x00\x02\x00\x00", None),
              (3, 0, None, False, flags_blob(1, 2), flags_blob(0, 1)),
              (4, 0, None, False, b"\x01\x00\x02\x00\x00", flags_blob(0, 1))]
    assert csharp_method("M", blob, named, [], [], params, nullable_context=1) == \
        "M((Point, string?), Dictionary<string?, object?>?, dynamic?[], ref dynamic?)"
