#include "dotcov/metadata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "dotcov/module_info.h"
#include "dotcov/pe_image.h"

using namespace dotcov;
namespace fs = std::filesystem;

namespace {

fs::path DataDir() { return fs::path(__FILE__).parent_path() / "data"; }

uint32_t DecodeU(std::vector<uint8_t> bytes, bool* ok, size_t* consumed = nullptr) {
  ByteReader r(bytes);
  uint32_t v = 0;
  *ok = r.ReadCompressedU32(&v);
  if (consumed) *consumed = r.pos();
  return v;
}

int32_t DecodeI(std::vector<uint8_t> bytes, bool* ok) {
  ByteReader r(bytes);
  int32_t v = 0;
  *ok = r.ReadCompressedI32(&v) && r.remaining() == 0;
  return v;
}

struct Sample {
  std::vector<uint8_t> file;
  std::optional<PeImage> pe;
  std::optional<MetadataReader> md;
};

Sample LoadSample() {
  Sample s;
  std::string error;
  EXPECT_TRUE(ReadWholeFile((DataDir() / "portable" / "Sample.dll").string(), &s.file, &error)) << error;
  s.pe = PeImage::Parse(s.file, &error);
  EXPECT_TRUE(s.pe) << error;
  if (s.pe) s.md = MetadataReader::Parse(s.pe->metadata(), &error);
  EXPECT_TRUE(s.md) << error;
  return s;
}

}  // namespace

TEST(CompressedInteger, UnsignedExamplesFromEcma335) {
  bool ok;
  size_t n;
  EXPECT_EQ(DecodeU({0x03}, &ok, &n), 0x03u);
  EXPECT_TRUE(ok);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(DecodeU({0x7F}, &ok), 0x7Fu);
  EXPECT_EQ(DecodeU({0x80, 0x80}, &ok, &n), 0x80u);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(DecodeU({0xAE, 0x57}, &ok), 0x2E57u);
  EXPECT_EQ(DecodeU({0xBF, 0xFF}, &ok), 0x3FFFu);
  EXPECT_EQ(DecodeU({0xC0, 0x00, 0x40, 0x00}, &ok, &n), 0x4000u);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(DecodeU({0xDF, 0xFF, 0xFF, 0xFF}, &ok), 0x1FFFFFFFu);
  EXPECT_TRUE(ok);
  // Truncated and invalid encodings.
  DecodeU({}, &ok);
  EXPECT_FALSE(ok);
  DecodeU({0x80}, &ok);
  EXPECT_FALSE(ok);
  DecodeU({0xC0, 0x00, 0x40}, &ok);
  EXPECT_FALSE(ok);
  DecodeU({0xE0, 0, 0, 0, 0}, &ok);
  EXPECT_FALSE(ok);
  DecodeU({0xFF, 0, 0, 0}, &ok);
  EXPECT_FALSE(ok);
}

TEST(CompressedInteger, SignedExamplesFromEcma335) {
  bool ok;
  EXPECT_EQ(DecodeI({0x06}, &ok), 3);
  EXPECT_TRUE(ok);
  EXPECT_EQ(DecodeI({0x7B}, &ok), -3);
  EXPECT_EQ(DecodeI({0x80, 0x80}, &ok), 64);
  EXPECT_EQ(DecodeI({0x01}, &ok), -64);
  EXPECT_EQ(DecodeI({0xC0, 0x00, 0x40, 0x00}, &ok), 8192);
  EXPECT_EQ(DecodeI({0x80, 0x01}, &ok), -8192);
  EXPECT_EQ(DecodeI({0xDF, 0xFF, 0xFF, 0xFE}, &ok), 268435455);
  EXPECT_EQ(DecodeI({0xC0, 0x00, 0x00, 0x01}, &ok), -268435456);
  EXPECT_TRUE(ok);
  DecodeI({0xC0, 0x00}, &ok);
  EXPECT_FALSE(ok);
}

TEST(Guid, FormatAndParse) {
  Guid g = {0x56, 0x05, 0x11, 0xCC, 0x91, 0xA0, 0x38, 0x4D, 0x9F, 0xEC, 0x25, 0xAB, 0x9A, 0x35, 0x1A, 0x6A};
  EXPECT_EQ(GuidToString(g), "cc110556-a091-4d38-9fec-25ab9a351a6a");
  EXPECT_EQ(ParseGuid("CC110556-A091-4D38-9FEC-25AB9A351A6A"), g);
  EXPECT_EQ(ParseGuid("{cc110556-a091-4d38-9fec-25ab9a351a6a}"), g);
  EXPECT_FALSE(ParseGuid("cc110556-a091-4d38-9fec-25ab9a351a6"));
  EXPECT_FALSE(ParseGuid("cc110556xa091-4d38-9fec-25ab9a351a6a"));
  EXPECT_FALSE(ParseGuid("gc110556-a091-4d38-9fec-25ab9a351a6a"));
}

TEST(Schema, TablesAndCodedIndexes) {
  for (int t = 0; t < kMaxTables; ++t) {
    bool expected = t <= 0x2C || (t >= 0x30 && t <= 0x37);
    EXPECT_EQ(GetTableSchema(uint8_t(t)) != nullptr, expected) << t;
  }
  EXPECT_EQ(GetTableSchema(uint8_t(TableId::kTypeDef))->columns.size(), 6u);
  EXPECT_EQ(GetTableSchema(uint8_t(TableId::kAssemblyRef))->columns.size(), 9u);
  EXPECT_EQ(GetTableSchema(uint8_t(TableId::kLocalScope))->columns.size(), 6u);
  EXPECT_EQ(CodedIndexTagBits(CodedIndex::kHasCustomAttribute), 5);
  EXPECT_EQ(CodedIndexTables(CodedIndex::kHasCustomAttribute).size(), 22u);
  EXPECT_EQ(CodedIndexTables(CodedIndex::kHasCustomDebugInformation).size(), 27u);
  // HasCustomAttribute: TypeDef is tag 3.
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kHasCustomAttribute, (5 << 5) | 3), 0x02000005u);
  EXPECT_EQ(EncodeCodedIndex(CodedIndex::kHasCustomAttribute, 0x02000005u), uint32_t((5 << 5) | 3));
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kHasCustomAttribute, (5 << 5) | 22), 0u);  // bad tag
  // CustomAttributeType: tags 0, 1 and 4 are unused.
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kCustomAttributeType, (7 << 3) | 3), 0x0A000007u);
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kCustomAttributeType, (7 << 3) | 2), 0x06000007u);
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kCustomAttributeType, (7 << 3) | 0), 0u);
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kCustomAttributeType, (7 << 3) | 4), 0u);
  EXPECT_EQ(DecodeCodedIndex(CodedIndex::kHasCustomDebugInformation, (2 << 5) | 22), 0x30000002u);
  EXPECT_FALSE(EncodeCodedIndex(CodedIndex::kTypeDefOrRef, 0x06000001u));
  // A token whose table byte is 0xFF used to match the unused tags (0xFF in the
  // tag tables) and encode as tag 0 (the fuzz target checks the round trip).
  EXPECT_FALSE(EncodeCodedIndex(CodedIndex::kCustomAttributeType, 0xFF000007u));
}

TEST(Metadata, RejectsGarbage) {
  std::string error;
  EXPECT_FALSE(MetadataReader::Parse({}, &error));
  EXPECT_NE(error.find("BSJB"), std::string::npos);
  std::vector<uint8_t> root = {'B', 'S', 'J', 'B', 1, 0, 1, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_FALSE(MetadataReader::Parse(root, &error));
}

TEST(Metadata, SampleAssembly) {
  Sample s = LoadSample();
  ASSERT_TRUE(s.md);
  const MetadataReader& md = *s.md;
  EXPECT_EQ(md.AssemblyName(), "Sample");
  // Table ids past the 64 slots (e.g. 0x70 from a user-string token) are empty.
  EXPECT_EQ(md.RowSize(TableId(0x70)), 0u);
  EXPECT_EQ(md.ColumnSize(TableId(0x40), 0), 0u);
  EXPECT_GT(md.RowSize(TableId::kTypeDef), 0u);
  std::optional<AssemblyInfo> asm_info = md.Assembly();
  ASSERT_TRUE(asm_info);
  EXPECT_EQ(asm_info->version.ToString(), "1.0.0.0");
  EXPECT_EQ(md.ModuleName(), "Sample.dll");
  ASSERT_TRUE(md.ModuleMvid());
  EXPECT_EQ(GuidToString(*md.ModuleMvid()), "e54bafec-0ae8-4161-9694-7808ee987970");
  std::vector<AssemblyRefInfo> refs = md.AssemblyRefs();
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].name, "System.Runtime");
  EXPECT_EQ(refs[0].version.ToString(), "10.0.0.0");
  EXPECT_EQ(refs[0].public_key_or_token.size(), 8u);  // b03f5f7f11d50a3a
  EXPECT_EQ(refs[0].public_key_or_token[0], 0xB0);

  // Cross-checked with System.Reflection.Metadata.
  std::vector<TypeDefInfo> types = md.TypeDefs();
  ASSERT_EQ(types.size(), 8u);
  EXPECT_EQ(md.TypeDefFullName(2), "Sample.Calc");
  EXPECT_EQ(md.TypeDefFullName(4), "Sample.Calc/Inner");
  EXPECT_EQ(md.TypeDefFullName(6), "Sample.Calc/<AddAsync>d__2");
  EXPECT_EQ(md.TypeDefFullName(8), "<PrivateImplementationDetails>/__StaticArrayInitTypeSize=12");
  EXPECT_EQ(types[1].first_method, 1u);
  EXPECT_EQ(types[1].end_method, 9u);
  EXPECT_EQ(types[3].enclosing_type, 2u);
  EXPECT_EQ(md.EnclosingType(4), 2u);
  EXPECT_EQ(md.EnclosingType(2), 0u);

  std::vector<MethodDefInfo> methods = md.MethodDefs();
  ASSERT_EQ(methods.size(), 23u);
  EXPECT_EQ(methods[0].name, "Add");
  EXPECT_EQ(methods[0].declaring_type, 2u);
  EXPECT_NE(methods[0].rva, 0u);
  EXPECT_EQ(methods[8].name, "Hello");
  EXPECT_EQ(methods[8].declaring_type, 4u);
  const uint32_t expected_owner[23] = {2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 5, 5, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7};
  for (const MethodDefInfo& m : methods) {
    EXPECT_EQ(m.declaring_type, expected_owner[m.rid - 1]) << m.name;
    EXPECT_EQ(md.DeclaringType(m.rid), m.declaring_type) << m.name;
  }

  const std::string kExclude = "System.Diagnostics.CodeAnalysis.ExcludeFromCodeCoverageAttribute";
  EXPECT_TRUE(md.HasCustomAttribute(MakeToken(TableId::kTypeDef, 4), kExclude));
  EXPECT_TRUE(md.HasCustomAttribute(MakeToken(TableId::kMethodDef, 5), kExclude));
  EXPECT_EQ(methods[4].name, "Excluded");
  EXPECT_FALSE(md.HasCustomAttribute(MakeToken(TableId::kMethodDef, 1), kExclude));
  EXPECT_FALSE(md.HasCustomAttribute(MakeToken(TableId::kTypeDef, 2), kExclude));
  std::vector<CustomAttributeInfo> on_async = md.CustomAttributes(MakeToken(TableId::kMethodDef, 3));
  ASSERT_EQ(on_async.size(), 2u);
  EXPECT_EQ(on_async[0].type_name, "System.Runtime.CompilerServices.AsyncStateMachineAttribute");
  EXPECT_EQ(TokenTable(on_async[0].constructor), uint8_t(TableId::kMemberRef));
  EXPECT_EQ(on_async[1].type_name, "System.Diagnostics.DebuggerStepThroughAttribute");
  std::vector<CustomAttributeInfo> on_assembly = md.CustomAttributes(MakeToken(TableId::kAssembly, 1));
  EXPECT_EQ(on_assembly.size(), 10u);
  EXPECT_EQ(on_assembly[2].type_name, "System.Diagnostics.DebuggableAttribute");
  EXPECT_TRUE(md.CustomAttributes(0).empty());
  EXPECT_TRUE(md.CustomAttributes(MakeToken(TableId::kDocument, 1)).empty());

  // Heap accessors on bad indexes.
  EXPECT_EQ(md.GetString(0xFFFFFFF0u), "");
  EXPECT_FALSE(md.GetGuid(0));
  EXPECT_FALSE(md.GetGuid(1000));
  EXPECT_TRUE(md.GetBlob(0xFFFFFF).empty());
  EXPECT_EQ(md.GetColumn(TableId::kTypeDef, 0, 1), 0u);
  EXPECT_EQ(md.GetColumn(TableId::kTypeDef, 9, 1), 0u);
  EXPECT_EQ(md.GetColumn(TableId::kTypeDef, 1, 6), 0u);
  EXPECT_TRUE(md.Row(TableId::kTypeDef, 100).empty());
  EXPECT_EQ(md.Row(TableId::kTypeDef, 1).size(), md.RowSize(TableId::kTypeDef));
}

TEST(Metadata, EveryTruncationOfMetadataRootIsSafe) {
  Sample s = LoadSample();
  ASSERT_TRUE(s.pe);
  Bytes root = s.pe->metadata();
  for (size_t len = 0; len <= root.size(); ++len) {
    std::string error;
    std::optional<MetadataReader> md = MetadataReader::Parse(root.first(len), &error);
    if (!md) {
      EXPECT_FALSE(error.empty()) << len;
      continue;
    }
    (void)md->ModuleMvid();
    (void)md->AssemblyName();
    (void)md->AssemblyRefs();
    for (const TypeDefInfo& t : md->TypeDefs()) (void)md->TypeDefFullName(t.rid);
    for (const MethodDefInfo& m : md->MethodDefs()) (void)md->CustomAttributes(MakeToken(TableId::kMethodDef, m.rid));
  }
}

TEST(Metadata, ExternalRowCountsWidenReferences) {
  Sample s = LoadSample();
  ASSERT_TRUE(s.md);
  MetadataReader::RowCounts counts{};
  counts[uint8_t(TableId::kMethodDef)] = 0x20000;  // forces 4-byte MethodDef indexes
  std::string error;
  // The tables no longer fit in the stream: an error, not a misread.
  std::optional<MetadataReader> wide = MetadataReader::Parse(s.pe->metadata(), &error, &counts);
  if (wide) {
    EXPECT_EQ(wide->ColumnSize(TableId::kTypeDef, 5), 4u);
  } else {
    EXPECT_NE(error.find("extends past"), std::string::npos) << error;
  }
  EXPECT_EQ(s.md->ColumnSize(TableId::kTypeDef, 5), 2u);
}
