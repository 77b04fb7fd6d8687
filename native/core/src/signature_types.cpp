#include "dotcov/signature_types.h"

namespace dotcov {
namespace {

// ECMA-335 II.23.1.16 element types used below.
enum : uint8_t {
  kVoid = 0x01, kBoolean = 0x02, kPtr = 0x0F, kByRef = 0x10, kValueType = 0x11, kClass = 0x12, kVar = 0x13, kArray = 0x14,
  kGenericInst = 0x15, kTypedByRef = 0x16, kI = 0x18, kU = 0x19, kObject = 0x1C, kSzArray = 0x1D, kMVar = 0x1E,
  kCModReqd = 0x1F, kCModOpt = 0x20, kPinned = 0x45,
};
// II.23.2.1-3 calling-convention bits and the field signature's leading byte.
constexpr uint8_t kHasThis = 0x20, kExplicitThis = 0x40, kGeneric = 0x10, kFieldSig = 0x06, kLocalSig = 0x07;

// The first element type after any custom modifiers, without consuming it.
uint8_t PeekElement(ByteReader r) {
  uint32_t v = 0;
  uint8_t t = r.U8();
  while (r.ok() && (t == kCModReqd || t == kCModOpt) && r.ReadCompressedU32(&v)) t = r.U8();
  return r.ok() ? t : 0;
}

}  // namespace

bool SkipSignatureType(ByteReader& r, int depth) {
  if (depth > 64) return false;
  uint32_t v = 0;
  for (;;) {
    uint8_t t = r.U8();
    if (!r.ok()) return false;
    if (t == kCModReqd || t == kCModOpt) {
      if (!r.ReadCompressedU32(&v)) return false;
      continue;
    }
    if ((t >= 0x02 && t <= 0x0E) || t == kI || t == kU || t == kObject || t == kTypedByRef) return true;
    switch (t) {
      case kPtr:
      case kByRef:
      case kSzArray:
      case kPinned:
        return SkipSignatureType(r, depth + 1);
      case kValueType:
      case kClass:
      case kVar:
      case kMVar:
        return r.ReadCompressedU32(&v);
      case kGenericInst: {
        uint8_t kind = r.U8();
        uint32_t n = 0;
        if (!r.ok() || (kind != kClass && kind != kValueType) || !r.ReadCompressedU32(&v) ||
            !r.ReadCompressedU32(&n) || n > 1024)
          return false;
        for (uint32_t i = 0; i < n; ++i)
          if (!SkipSignatureType(r, depth + 1)) return false;
        return true;
      }
      case kArray: {
        uint32_t rank = 0, sizes = 0, bounds = 0;
        if (!SkipSignatureType(r, depth + 1) || !r.ReadCompressedU32(&rank) || !r.ReadCompressedU32(&sizes) ||
            sizes > 64)
          return false;
        for (uint32_t i = 0; i < sizes; ++i)
          if (!r.ReadCompressedU32(&v)) return false;
        if (!r.ReadCompressedU32(&bounds) || bounds > 64) return false;
        for (uint32_t i = 0; i < bounds; ++i)
          if (!r.ReadCompressedU32(&v)) return false;
        return true;
      }
      default:
        return false;
    }
  }
}

bool ReadSignatureType(ByteReader& r, bool* is_bool) {
  *is_bool = PeekElement(r) == kBoolean;
  return SkipSignatureType(r);
}

namespace {

// Whether the Type at r is `ref bool` (also `in` / `out`: BYREF with modifiers around it; in a local, PINNED too,
// II.23.2.6), without moving r.
bool IsByrefBool(ByteReader r, bool local) {
  uint32_t v = 0;
  uint8_t t = r.U8();
  while (r.ok() && (t == kCModReqd || t == kCModOpt || (local && t == kPinned)) &&
         (t == kPinned || r.ReadCompressedU32(&v)))
    t = r.U8();
  return r.ok() && t == kByRef && PeekElement(r) == kBoolean;
}

bool ArgumentFlags(Bytes method_sig, std::vector<bool>* out, bool byref);

// Per local of a LocalVarSig: bool, or (byref) `ref bool`.
bool LocalFlags(Bytes locals_sig, std::vector<bool>* out, bool byref) {
  out->clear();
  ByteReader r(locals_sig);
  uint32_t count = 0;
  if (r.U8() != kLocalSig || !r.ReadCompressedU32(&count) || count > 0xFFFE) return false;
  std::vector<bool> types;
  for (uint32_t i = 0; i < count; ++i) {
    bool b = false;
    const bool ref_bool = IsByrefBool(r, true);
    if (!ReadSignatureType(r, &b)) return false;
    types.push_back(byref ? ref_bool : b);
  }
  *out = std::move(types);
  return true;
}

}  // namespace

bool BoolLocals(Bytes locals_sig, std::vector<bool>* out) { return LocalFlags(locals_sig, out, false); }

bool ByrefBoolLocals(Bytes locals_sig, std::vector<bool>* out) { return LocalFlags(locals_sig, out, true); }

bool BoolArguments(Bytes method_sig, std::vector<bool>* out) { return ArgumentFlags(method_sig, out, false); }

bool ByrefBoolArguments(Bytes method_sig, std::vector<bool>* out) { return ArgumentFlags(method_sig, out, true); }

namespace {

bool ArgumentFlags(Bytes method_sig, std::vector<bool>* out, bool byref) {
  out->clear();
  ByteReader r(method_sig);
  uint8_t conv = r.U8();
  uint32_t n = 0, count = 0;
  if (!r.ok() || conv == kFieldSig || conv == kLocalSig) return false;
  if ((conv & kGeneric) && !r.ReadCompressedU32(&n)) return false;
  if (!r.ReadCompressedU32(&count) || count > 0xFFFE) return false;
  if (PeekElement(r) == kVoid) {  // RetType (II.23.2.11): void, which no Type is, after any modifiers
    while (r.ok() && r.U8() != kVoid) r.ReadCompressedU32(&n);
  } else if (!SkipSignatureType(r)) {
    return false;
  }
  std::vector<bool> types;
  if ((conv & kHasThis) && !(conv & kExplicitThis)) types.push_back(false);
  for (uint32_t i = 0; i < count; ++i) {
    bool b = false;
    const bool ref_bool = IsByrefBool(r, false);
    if (!ReadSignatureType(r, &b)) return false;  // a vararg sentinel (0x41) does not decode: no answer
    types.push_back(byref ? ref_bool : b);
  }
  *out = std::move(types);
  return true;
}

}  // namespace

bool SignatureIsBool(Bytes sig) {
  ByteReader r(sig);
  uint8_t conv = r.U8();
  uint32_t n = 0;
  if (!r.ok() || conv == kLocalSig) return false;
  if (conv != kFieldSig) {
    if ((conv & kGeneric) && !r.ReadCompressedU32(&n)) return false;  // generic parameter count
    if (!r.ReadCompressedU32(&n)) return false;                        // parameter count
  }
  return PeekElement(r) == kBoolean;
}

}  // namespace dotcov
