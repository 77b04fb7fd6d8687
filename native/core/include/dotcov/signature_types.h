// Reading types out of metadata signature blobs (ECMA-335 II.23.2): skipping one
// type, and telling whether it is bool. Shared by the test-method wrapper (which
// copies locals and return types) and the value-condition finder (which asks
// whether a local, argument, field or call result is bool).
#pragma once

#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

// Skips one Type (II.23.2.12) with its custom modifiers; false when it does not
// decode (FNPTR and unknown element types included).
bool SkipSignatureType(ByteReader& r, int depth = 0);

// Reads one Type like SkipSignatureType; *is_bool tells whether it is
// ELEMENT_TYPE_BOOLEAN after any custom modifiers (so `ref bool` and pinned
// bool are not).
bool ReadSignatureType(ByteReader& r, bool* is_bool);

// Per local of a LOCAL_SIG blob (0x07, count, types): whether it is bool. False
// (and *out empty) when the blob does not decode.
bool BoolLocals(Bytes locals_sig, std::vector<bool>* out);

// The same for `ref bool` locals (also pinned, or with custom modifiers).
bool ByrefBoolLocals(Bytes locals_sig, std::vector<bool>* out);

// Per IL argument of a MethodDefSig blob: whether it is bool. Index 0 is `this`
// (never bool) when the signature has HASTHIS without EXPLICITTHIS. False (and
// *out empty) when the blob does not decode.
bool BoolArguments(Bytes method_sig, std::vector<bool>* out);

// The same for `ref bool` / `in bool` / `out bool` arguments (`this` never).
bool ByrefBoolArguments(Bytes method_sig, std::vector<bool>* out);

// Whether a MethodDefSig / MethodRefSig returns bool, or a FieldSig (0x06) is of
// type bool. False when it does not decode.
bool SignatureIsBool(Bytes sig);

}  // namespace dotcov
