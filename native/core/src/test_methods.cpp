#include "dotcov/test_methods.h"

#include <algorithm>

#include "dotcov/il_method.h"
#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"
#include "dotcov/signature_types.h"

namespace dotcov {
namespace {

constexpr const char* kTestAttributes[] = {
    "Xunit.FactAttribute",
    "Xunit.TheoryAttribute",
    "NUnit.Framework.TestAttribute",
    "NUnit.Framework.TestCaseAttribute",
    "NUnit.Framework.TestCaseSourceAttribute",
    "NUnit.Framework.TheoryAttribute",
    "Microsoft.VisualStudio.TestTools.UnitTesting.TestMethodAttribute",
    "Microsoft.VisualStudio.TestTools.UnitTesting.DataTestMethodAttribute",
};

// ECMA-335 II.23.1.16 element types used below.
enum : uint8_t { kVoid = 0x01, kTypedByRef = 0x16, kCModReqd = 0x1F, kCModOpt = 0x20, kI4 = 0x08 };

void PutCompressed(std::vector<uint8_t>* out, uint32_t v) {
  if (v < 0x80) {
    out->push_back(uint8_t(v));
  } else if (v < 0x4000) {
    out->push_back(uint8_t(0x80 | (v >> 8)));
    out->push_back(uint8_t(v));
  } else {
    out->push_back(uint8_t(0xC0 | (v >> 24)));
    out->push_back(uint8_t(v >> 16));
    out->push_back(uint8_t(v >> 8));
    out->push_back(uint8_t(v));
  }
}

bool IsTestAttributeType(const MetadataReader& md, const CustomAttributeInfo& a) {
  if (IsTestAttribute(a.type_name)) return true;
  // An attribute type of this module deriving from one ([SkippableFact]-style).
  uint32_t type = a.type;
  for (int depth = 0; depth < 8 && TokenTable(type) == uint8_t(TableId::kTypeDef); ++depth) {
    uint32_t base = md.GetColumnToken(TableId::kTypeDef, TokenRid(type), 3);  // Extends
    if (!base) return false;
    if (IsTestAttribute(md.TypeFullName(base))) return true;
    type = base;
  }
  return false;
}

}  // namespace

bool IsTestAttribute(const std::string& full_name) {
  return std::find(std::begin(kTestAttributes), std::end(kTestAttributes), full_name) != std::end(kTestAttributes);
}

bool ReturnTypeOf(Bytes sig, Bytes* return_type, std::string* error) {
  ByteReader r(sig);
  uint8_t conv = r.U8();
  uint32_t n = 0;
  if (!r.ok()) return *error = "empty method signature", false;
  if ((conv & 0x10) && !r.ReadCompressedU32(&n)) return *error = "bad generic parameter count", false;
  if (!r.ReadCompressedU32(&n)) return *error = "bad parameter count", false;
  size_t start = r.pos();
  // Void (after any modifiers) holds nothing to keep.
  ByteReader peek = r;
  uint32_t v = 0;
  uint8_t t = peek.U8();
  while (peek.ok() && (t == kCModReqd || t == kCModOpt) && peek.ReadCompressedU32(&v)) t = peek.U8();
  if (!peek.ok()) return *error = "truncated return type", false;
  if (t == kVoid) {
    *return_type = {};
    return true;
  }
  if (t == kTypedByRef) return *error = "returns a TypedReference", false;
  if (!SkipSignatureType(r)) return *error = "return type does not decode", false;
  *return_type = sig.subspan(start, r.pos() - start);
  return true;
}

bool ExtendLocals(Bytes locals, Bytes return_type, std::vector<uint8_t>* out, uint32_t* old_count,
                  std::string* error) {
  uint32_t count = 0;
  Bytes types;
  if (!locals.empty()) {
    ByteReader r(locals);
    if (r.U8() != 0x07 || !r.ReadCompressedU32(&count)) return *error = "not a locals signature", false;
    types = locals.subspan(r.pos());
    for (uint32_t i = 0; i < count; ++i)
      if (!SkipSignatureType(r)) return *error = "locals signature does not decode", false;
    if (r.remaining() != 0) return *error = "locals signature has trailing bytes", false;
  }
  uint32_t added = return_type.empty() ? 1 : 2;
  if (count + added > 0xFFFE) return *error = "too many locals", false;
  out->clear();
  out->push_back(0x07);
  PutCompressed(out, count + added);
  out->insert(out->end(), types.begin(), types.end());
  out->push_back(kI4);
  out->insert(out->end(), return_type.begin(), return_type.end());
  *old_count = count;
  return true;
}

bool FindTestMethods(Bytes image, std::vector<TestMethod>* out, std::string* error) {
  out->clear();
  auto pe = PeImage::Parse(image, error);
  if (!pe) return false;
  if (!pe->is_managed()) return *error = "not a managed assembly", false;
  auto md = MetadataReader::Parse(pe->metadata(), error);
  if (!md) return false;
  for (const auto& m : md->MethodDefs()) {
    uint32_t token = MakeToken(TableId::kMethodDef, m.rid);
    bool is_test = false;
    for (const auto& a : md->CustomAttributes(token))
      if (IsTestAttributeType(*md, a)) is_test = true;
    if (!is_test || !m.declaring_type) continue;
    TestMethod t;
    t.token = token;
    std::string type = md->TypeDefFullName(m.declaring_type);
    std::replace(type.begin(), type.end(), '/', '+');
    t.name = type + "." + m.name;
    Bytes ret;
    il::MethodBody body;
    std::string why;
    if (m.rva == 0) {
      t.unsupported = "no IL body";
    } else if (!ReturnTypeOf(m.signature, &ret, &why)) {
      t.unsupported = why;
    } else if (!il::MethodBody::Decode(pe->MethodBodyAt(m.rva), &body, &why)) {
      t.unsupported = "IL does not decode: " + why;
    } else {
      t.returns_value = !ret.empty();
      t.original_locals_token = body.local_var_sig_token();
      Bytes locals;
      uint32_t count = 0;
      if (t.original_locals_token) {
        if (TokenTable(t.original_locals_token) != uint8_t(TableId::kStandAloneSig) ||
            !md->TryGetBlob(md->GetColumn(TableId::kStandAloneSig, TokenRid(t.original_locals_token), 0), &locals))
          t.unsupported = "locals signature not found";
      }
      if (t.unsupported.empty() && !ExtendLocals(locals, ret, &t.locals_signature, &count, &why))
        t.unsupported = why;
      t.previous_local = count;
      t.return_local = count + 1;
    }
    out->push_back(std::move(t));
  }
  return true;
}

}  // namespace dotcov
