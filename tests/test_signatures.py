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
