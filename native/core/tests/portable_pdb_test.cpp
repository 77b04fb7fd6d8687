#include "dotcov/portable_pdb.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "dotcov/module_info.h"
#include "dotcov/pe_image.h"

using namespace dotcov;
namespace fs = std::filesystem;

namespace {

fs::path DataDir() { return fs::path(__FILE__).parent_path() / "data"; }

void PutCompressed(std::vector<uint8_t>* v, uint32_t x) {
  if (x < 0x80) {
    v->push_back(uint8_t(x));
  } else if (x < 0x4000) {
    v->push_back(uint8_t(0x80 | (x >> 8)));
    v->push_back(uint8_t(x));
  } else {
    v->push_back(uint8_t(0xC0 | (x >> 24)));
    v->push_back(uint8_t(x >> 16));
    v->push_back(uint8_t(x >> 8));
    v->push_back(uint8_t(x));
  }
}

void Put16(std::vector<uint8_t>* v, uint32_t x) {
  v->push_back(uint8_t(x));
  v->push_back(uint8_t(x >> 8));
}
void Put32(std::vector<uint8_t>* v, uint32_t x) {
  Put16(v, x);
  Put16(v, x >> 16);
}
void Put64(std::vector<uint8_t>* v, uint64_t x) {
  Put32(v, uint32_t(x));
  Put32(v, uint32_t(x >> 32));
}
void Pad4(std::vector<uint8_t>* v) {
  while (v->size() % 4) v->push_back(0);
}

std::vector<uint8_t> DeflateRaw(const std::string& in) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&zs, in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = uInt(in.size());
  zs.next_out = out.data();
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Writes a metadata root from scratch (independently of the reader), sizing
// columns with the ECMA-335 II.24.2.6 rules.
struct MetadataBuilder {
  std::map<int, std::vector<std::vector<uint32_t>>> tables;
  std::vector<uint8_t> strings{0}, blobs{0}, guids;
  std::vector<uint8_t> pdb;  // #Pdb stream; empty = none
  std::array<uint32_t, 64> external{};

  uint32_t Blob(const std::vector<uint8_t>& b) {
    uint32_t idx = uint32_t(blobs.size());
    PutCompressed(&blobs, uint32_t(b.size()));
    blobs.insert(blobs.end(), b.begin(), b.end());
    return idx;
  }
  uint32_t Blob(const std::string& s) { return Blob(std::vector<uint8_t>(s.begin(), s.end())); }
  uint32_t GuidIdx(const Guid& g) {
    guids.insert(guids.end(), g.begin(), g.end());
    return uint32_t(guids.size() / 16);
  }
  uint32_t Rows(int t) const {
    auto it = tables.find(t);
    return std::max<uint32_t>(it == tables.end() ? 0 : uint32_t(it->second.size()), external[t]);
  }
  int ColumnSize(const ColumnSchema& c) const {
    switch (c.kind) {
      case ColumnKind::kU16: return 2;
      case ColumnKind::kU32: return 4;
      case ColumnKind::kString:
      case ColumnKind::kGuid:
      case ColumnKind::kBlob: return 2;
      case ColumnKind::kTable: return Rows(c.arg) < 0x10000 ? 2 : 4;
      case ColumnKind::kCoded: {
        uint32_t max_rows = 0;
        for (uint8_t t : CodedIndexTables(CodedIndex(c.arg)))
          if (t != 0xFF) max_rows = std::max(max_rows, Rows(t));
        return max_rows < (1u << (16 - CodedIndexTagBits(CodedIndex(c.arg)))) ? 2 : 4;
      }
    }
    return 0;
  }
  std::vector<uint8_t> Build() const {
    std::vector<uint8_t> ts;
    Put32(&ts, 0);
    ts.push_back(2);
    ts.push_back(0);
    ts.push_back(0);  // heap sizes: all small
    ts.push_back(1);
    uint64_t valid = 0;
    for (auto& [t, rows] : tables) valid |= uint64_t(1) << t;
    Put64(&ts, valid);
    Put64(&ts, valid);  // all sorted
    for (auto& [t, rows] : tables) Put32(&ts, uint32_t(rows.size()));
    for (auto& [t, rows] : tables) {
      const TableSchema* schema = GetTableSchema(uint8_t(t));
      for (const auto& row : rows) {
        for (size_t c = 0; c < schema->columns.size(); ++c) {
          if (ColumnSize(schema->columns[c]) == 2) Put16(&ts, row[c]);
          else Put32(&ts, row[c]);
        }
      }
    }
    std::vector<std::pair<std::string, std::vector<uint8_t>>> streams;
    if (!pdb.empty()) streams.push_back({"#Pdb", pdb});
    streams.push_back({"#~", ts});
    streams.push_back({"#Strings", strings});
    streams.push_back({"#Blob", blobs});
    streams.push_back({"#GUID", guids});
    for (auto& s : streams) Pad4(&s.second);

    std::vector<uint8_t> root = {'B', 'S', 'J', 'B'};
    Put16(&root, 1);
    Put16(&root, 1);
    Put32(&root, 0);
    std::string version = "PDB v1.0";
    Put32(&root, 12);
    root.insert(root.end(), version.begin(), version.end());
    root.resize(root.size() + 4, 0);
    Put16(&root, 0);
    Put16(&root, uint16_t(streams.size()));
    size_t headers = 0;
    for (auto& s : streams) headers += 8 + ((s.first.size() + 4) & ~size_t(3));
    size_t offset = root.size() + headers;
    for (auto& s : streams) {
      Put32(&root, uint32_t(offset));
      Put32(&root, uint32_t(s.second.size()));
      root.insert(root.end(), s.first.begin(), s.first.end());
      root.push_back(0);
      Pad4(&root);
      offset += s.second.size();
    }
    for (auto& s : streams) root.insert(root.end(), s.second.begin(), s.second.end());
    return root;
  }
};

const Guid kSha256 = *ParseGuid("8829d00f-11b8-4213-878b-770e8597ac16");
const Guid kCSharp = *ParseGuid("3f5162f8-07c6-11d3-9053-00c04fa302a1");

// The sequence-point blob of the spec walk-through below (Document column 0).
const std::vector<uint8_t> kSequencePointBlob = {
    0x00, 0x01,                    // LocalSignature 0, InitialDocument 1
    0x00, 0x00, 0x05, 0x0A, 0x09,  // IL 0: (10,9)-(10,14), absolute start
    0x03, 0x00, 0x00,              // IL 3: hidden
    0x00, 0x02,                    // document record: document 2
    0x04, 0x02, 0x7B, 0x0A, 0x79,  // IL 7: ΔLines 2, ΔColumns -3, δLine +5, δColumn -4: (15,5)-(17,2)
    0x80, 0x90, 0x00, 0x01, 0x77, 0x00,  // IL 151: ΔColumns 1, δLine -5, δColumn 0: (10,5)-(10,6)
    0x01, 0x00, 0x03, 0x87, 0xD0, 0x00,  // IL 152: δLine +1000 (2-byte signed): (1010,5)-(1010,8)
};

std::vector<SequencePoint> ExpectedPoints() {
  auto sp = [](uint32_t il, uint32_t sl, uint32_t sc, uint32_t el, uint32_t ec, uint32_t doc, bool hidden) {
    SequencePoint p;
    p.il_offset = il;
    p.start_line = sl;
    p.start_column = sc;
    p.end_line = el;
    p.end_column = ec;
    p.document = doc;
    p.hidden = hidden;
    return p;
  };
  return {sp(0, 10, 9, 10, 14, 1, false), sp(3, 0xFEEFEE, 0, 0xFEEFEE, 0, 1, true), sp(7, 15, 5, 17, 2, 2, false),
          sp(151, 10, 5, 10, 6, 2, false), sp(152, 1010, 5, 1010, 8, 2, false)};
}

bool SamePoint(const SequencePoint& a, const SequencePoint& b) {
  return a.il_offset == b.il_offset && a.start_line == b.start_line && a.start_column == b.start_column &&
         a.end_line == b.end_line && a.end_column == b.end_column && a.document == b.document && a.hidden == b.hidden;
}

// A small standalone PDB: 2 documents, 3 methods, a state machine, Source
// Link and embedded sources (one raw, one deflated).
struct BuiltPdb {
  std::vector<uint8_t> bytes;
  std::string source_link = R"({"documents":{"/_/*":"https://example.org/repo/*"}})";
  std::string source1 = "class A {}\n";
  std::string source2;
};

BuiltPdb BuildPdb(uint32_t methoddef_rows = 3) {
  BuiltPdb out;
  out.source2 = std::string(3000, 'x') + "// generated\n";
  MetadataBuilder b;
  std::vector<uint8_t> name1 = {'/'};
  PutCompressed(&name1, 0);  // leading empty part -> "/src/a.cs"
  PutCompressed(&name1, b.Blob("src"));
  PutCompressed(&name1, b.Blob("a.cs"));
  std::vector<uint8_t> name2 = {0};
  PutCompressed(&name2, b.Blob("gen.txt"));
  uint32_t sha = b.GuidIdx(kSha256), cs = b.GuidIdx(kCSharp);
  uint32_t sl_kind = b.GuidIdx(kSourceLinkKind), es_kind = b.GuidIdx(kEmbeddedSourceKind);
  b.tables[0x30] = {{b.Blob(name1), sha, b.Blob(std::vector<uint8_t>(32, 0xAA)), cs},
                    {b.Blob(name2), 0, 0, cs}};
  std::vector<uint8_t> m1 = {0x00, 0x00, 0x00, 0x05, 0x0A, 0x09};  // single-document method
  b.tables[0x31] = {{1, b.Blob(m1)}, {0, b.Blob(kSequencePointBlob)}, {0, 0}};
  b.tables[0x36] = {{3, 1}};
  std::vector<uint8_t> raw = {0, 0, 0, 0};
  raw.insert(raw.end(), out.source1.begin(), out.source1.end());
  std::vector<uint8_t> deflated;
  Put32(&deflated, uint32_t(out.source2.size()));
  std::vector<uint8_t> z = DeflateRaw(out.source2);
  deflated.insert(deflated.end(), z.begin(), z.end());
  b.tables[0x37] = {{(1 << 5) | 7, sl_kind, b.Blob(out.source_link)},
                    {(1 << 5) | 22, es_kind, b.Blob(raw)},
                    {(2 << 5) | 22, es_kind, b.Blob(deflated)}};
  for (int i = 0; i < 20; ++i) b.pdb.push_back(uint8_t(i + 1));
  Put32(&b.pdb, 0x06000002);
  Put64(&b.pdb, uint64_t(1) << 6);  // MethodDef
  Put32(&b.pdb, methoddef_rows);
  b.external[6] = methoddef_rows;
  out.bytes = b.Build();
  return out;
}

std::string TempDir() {
  fs::path dir = fs::temp_directory_path() / ("dotcov-pdb-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

void WriteFile(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> ReadFile(const fs::path& p) {
  std::vector<uint8_t> v;
  std::string error;
  EXPECT_TRUE(ReadWholeFile(p.string(), &v, &error)) << error;
  return v;
}

}  // namespace

TEST(DocumentName, DecodesSeparatorAndParts) {
  std::vector<uint8_t> heap = {0};
  auto add = [&](const std::string& s) {
    uint32_t idx = uint32_t(heap.size());
    PutCompressed(&heap, uint32_t(s.size()));
    heap.insert(heap.end(), s.begin(), s.end());
    return idx;
  };
  uint32_t home = add("home"), user = add("user"), file = add("a.cs"), cdrive = add("C:");
  std::string name, error;
  std::vector<uint8_t> blob = {'/', 0, uint8_t(home), uint8_t(user), uint8_t(file)};
  ASSERT_TRUE(DecodeDocumentName(blob, heap, &name, &error)) << error;
  EXPECT_EQ(name, "/home/user/a.cs");
  blob = {'\\', uint8_t(cdrive), uint8_t(file)};
  ASSERT_TRUE(DecodeDocumentName(blob, heap, &name, &error));
  EXPECT_EQ(name, "C:\\a.cs");
  blob = {0, uint8_t(home), uint8_t(file)};  // no separator
  ASSERT_TRUE(DecodeDocumentName(blob, heap, &name, &error));
  EXPECT_EQ(name, "homea.cs");
  blob = {0xC2, 0xA7, uint8_t(home), uint8_t(file)};  // multi-byte separator U+00A7
  ASSERT_TRUE(DecodeDocumentName(blob, heap, &name, &error));
  EXPECT_EQ(name, "home\xC2\xA7" "a.cs");
  blob = {'/', 0x7F};  // part index beyond the heap
  EXPECT_FALSE(DecodeDocumentName(blob, heap, &name, &error));
  EXPECT_FALSE(error.empty());
  blob = {'/', 0x80};  // truncated compressed index
  EXPECT_FALSE(DecodeDocumentName(blob, heap, &name, &error));
  blob = {'/', uint8_t(home), 0x80};  // truncated after a good part: no partial name (found by fuzzing)
  EXPECT_FALSE(DecodeDocumentName(blob, heap, &name, &error));
  EXPECT_EQ(name, "");
  EXPECT_FALSE(DecodeDocumentName({}, heap, &name, &error));
  blob = {0xC2};  // truncated separator
  EXPECT_FALSE(DecodeDocumentName(blob, heap, &name, &error));
  blob = {0xFF, 1};
  EXPECT_FALSE(DecodeDocumentName(blob, heap, &name, &error));
  // Many references to one large part must not build a huge string.
  std::vector<uint8_t> big_heap = {0};
  PutCompressed(&big_heap, 20000);
  big_heap.resize(big_heap.size() + 20000, 'a');
  blob = {'/'};
  for (int i = 0; i < 100; ++i) blob.push_back(1);
  EXPECT_FALSE(DecodeDocumentName(blob, big_heap, &name, &error));
  EXPECT_NE(error.find("too long"), std::string::npos);
}

TEST(SequencePoints, DecodesHandAssembledBlob) {
  std::vector<SequencePoint> points;
  std::string error;
  uint32_t local_sig = 99;
  ASSERT_TRUE(DecodeSequencePoints(kSequencePointBlob, 0, &points, &error, &local_sig)) << error;
  EXPECT_EQ(local_sig, 0u);
  std::vector<SequencePoint> expected = ExpectedPoints();
  ASSERT_EQ(points.size(), expected.size());
  for (size_t i = 0; i < points.size(); ++i) EXPECT_TRUE(SamePoint(points[i], expected[i])) << i;
}

TEST(SequencePoints, DocumentColumnSuppliesTheDocument) {
  std::vector<uint8_t> blob = {0x05, 0x00, 0x00, 0x05, 0x0A, 0x09};  // no InitialDocument
  std::vector<SequencePoint> points;
  std::string error;
  uint32_t local_sig = 0;
  ASSERT_TRUE(DecodeSequencePoints(blob, 7, &points, &error, &local_sig)) << error;
  EXPECT_EQ(local_sig, 5u);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].document, 7u);
  EXPECT_EQ(points[0].start_line, 10u);
}

TEST(SequencePoints, EveryTruncationFailsOrYieldsAPrefix) {
  std::vector<SequencePoint> full = ExpectedPoints();
  for (size_t len = 0; len < kSequencePointBlob.size(); ++len) {
    std::vector<SequencePoint> points;
    std::string error;
    bool ok = DecodeSequencePoints(Bytes(kSequencePointBlob).first(len), 0, &points, &error);
    if (!ok) {
      EXPECT_TRUE(points.empty());
      EXPECT_FALSE(error.empty());
      continue;
    }
    ASSERT_LE(points.size(), full.size());
    for (size_t i = 0; i < points.size(); ++i) EXPECT_TRUE(SamePoint(points[i], full[i]));
  }
  std::vector<SequencePoint> points;
  std::string error;
  EXPECT_FALSE(DecodeSequencePoints(Bytes(kSequencePointBlob).first(4), 0, &points, &error));  // mid-record
}

TEST(SequencePoints, RejectsOutOfRangeValues) {
  auto fails = [](std::vector<uint8_t> blob, uint32_t doc = 0) {
    std::vector<SequencePoint> points;
    std::string error;
    bool ok = DecodeSequencePoints(blob, doc, &points, &error);
    return !ok && points.empty() && error.find("malformed sequence points") != std::string::npos;
  };
  // Column end >= 0x10000.
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x00, 0x05, 0x0A, 0xC0, 0x00, 0xFF, 0xFF}));
  // Start line 0xFEEFEE.
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x00, 0x05, 0xC0, 0xFE, 0xEF, 0xEE, 0x01}));
  // End line 0x1FFFFFFF + 1.
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x01, 0x02, 0xDF, 0xFF, 0xFF, 0xFF, 0x01}));
  // Negative start line through a signed delta (10 - 64).
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x00, 0x05, 0x0A, 0x09, 0x01, 0x00, 0x01, 0x01, 0x00}));
  // Negative end column on a multi-line span (9 - 64).
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x01, 0x01, 0x0A, 0x09}));
  // IL offset reaching 0x20000000.
  EXPECT_TRUE(fails({0x00, 0x01, 0xDF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x00}));
  // No document at all (Document column 0 and InitialDocument 0).
  EXPECT_TRUE(fails({0x00, 0x00, 0x00, 0x00, 0x05, 0x0A, 0x09}));
  // A document record naming document 0.
  EXPECT_TRUE(fails({0x00, 0x01, 0x00, 0x00, 0x05, 0x0A, 0x09, 0x00, 0x00}));
  // Invalid compressed integer.
  EXPECT_TRUE(fails({0x00, 0x01, 0xFF}));
  // The empty blob lacks even the header.
  EXPECT_TRUE(fails({}));
}

TEST(PortablePdb, HandBuiltPdb) {
  BuiltPdb built = BuildPdb();
  std::string error;
  std::optional<PortablePdb> pdb = PortablePdb::Parse(built.bytes, &error);
  ASSERT_TRUE(pdb) << error;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(pdb->pdb_id()[i], i + 1);
  EXPECT_EQ(pdb->entry_point(), 0x06000002u);
  ASSERT_EQ(pdb->documents().size(), 2u);
  EXPECT_EQ(pdb->documents()[0].name, "/src/a.cs");
  EXPECT_EQ(pdb->documents()[0].hash_algorithm, kSha256);
  EXPECT_EQ(pdb->documents()[0].hash.size(), 32u);
  EXPECT_EQ(pdb->documents()[0].language, kCSharp);
  EXPECT_EQ(pdb->documents()[1].name, "gen.txt");
  EXPECT_EQ(pdb->documents()[1].hash_algorithm, Guid{});
  EXPECT_EQ(pdb->document(2)->rid, 2u);
  EXPECT_EQ(pdb->document(3), nullptr);
  EXPECT_EQ(pdb->method_count(), 3u);

  std::vector<SequencePoint> points;
  ASSERT_TRUE(pdb->ReadSequencePoints(1, &points, &error)) << error;
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].document, 1u);
  ASSERT_TRUE(pdb->ReadSequencePoints(2, &points, &error)) << error;
  std::vector<SequencePoint> expected = ExpectedPoints();
  ASSERT_EQ(points.size(), expected.size());
  for (size_t i = 0; i < points.size(); ++i) EXPECT_TRUE(SamePoint(points[i], expected[i]));
  ASSERT_TRUE(pdb->ReadSequencePoints(3, &points, &error));
  EXPECT_TRUE(points.empty());
  EXPECT_FALSE(pdb->ReadSequencePoints(4, &points, &error));
  EXPECT_FALSE(pdb->ReadSequencePoints(0, &points, &error));

  EXPECT_EQ(pdb->StateMachineKickoff(3), 1u);
  EXPECT_EQ(pdb->StateMachineKickoff(1), 0u);
  EXPECT_EQ(pdb->SourceLinkJson(), built.source_link);
  EXPECT_EQ(pdb->EmbeddedSource(1, &error), built.source1);
  EXPECT_EQ(pdb->EmbeddedSource(2, &error), built.source2);
  EXPECT_FALSE(pdb->EmbeddedSource(3, &error));

  // Copies share the bytes safely.
  PortablePdb copy = *pdb;
  pdb.reset();
  EXPECT_EQ(copy.SequencePoints(2).size(), expected.size());
}

TEST(PortablePdb, LargeTypeSystemRowCountsWidenMethodColumns) {
  // With 0x10000 MethodDefs, StateMachineMethod columns are 4 bytes wide.
  BuiltPdb built = BuildPdb(0x10000);
  std::string error;
  std::optional<PortablePdb> pdb = PortablePdb::Parse(built.bytes, &error);
  ASSERT_TRUE(pdb) << error;
  EXPECT_EQ(pdb->metadata().ColumnSize(TableId::kStateMachineMethod, 0), 4u);
  EXPECT_EQ(pdb->metadata().ColumnSize(TableId::kMethodDebugInformation, 0), 2u);
  EXPECT_EQ(pdb->StateMachineKickoff(3), 1u);
  EXPECT_EQ(pdb->SourceLinkJson(), built.source_link);
}

TEST(PortablePdb, EveryTruncationAndCorruptionIsSafe) {
  BuiltPdb built = BuildPdb();
  auto exercise = [](const std::vector<uint8_t>& bytes) {
    std::string error;
    std::optional<PortablePdb> pdb = PortablePdb::Parse(bytes, &error);
    if (!pdb) {
      EXPECT_FALSE(error.empty());
      return;
    }
    std::vector<SequencePoint> points;
    for (uint32_t m = 0; m <= pdb->method_count() + 1; ++m) {
      pdb->ReadSequencePoints(m, &points, &error);
      (void)pdb->StateMachineKickoff(m);
    }
    for (uint32_t d = 0; d <= pdb->documents().size() + 1; ++d) (void)pdb->EmbeddedSource(d, &error);
    (void)pdb->SourceLinkJson();
  };
  for (size_t len = 0; len <= built.bytes.size(); ++len)
    exercise(std::vector<uint8_t>(built.bytes.begin(), built.bytes.begin() + len));
  std::vector<uint8_t> real = ReadFile(DataDir() / "portable" / "Sample.pdb");
  for (size_t len = 0; len <= real.size(); ++len) exercise(std::vector<uint8_t>(real.begin(), real.begin() + len));
  for (size_t pos = 0; pos < built.bytes.size(); ++pos) {
    for (uint8_t value : {uint8_t(0x00), uint8_t(0xFF), uint8_t(0x80)}) {
      std::vector<uint8_t> bytes = built.bytes;
      bytes[pos] = value;
      exercise(bytes);
    }
  }
}

TEST(PortablePdb, RejectsWindowsPdb) {
  std::string header = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0";
  std::vector<uint8_t> bytes(header.begin(), header.end());
  bytes.resize(4096, 0);
  std::string error;
  EXPECT_FALSE(PortablePdb::Parse(bytes, &error));
  EXPECT_EQ(error, "Windows PDB format is not supported; build with <DebugType>portable</DebugType>");
  EXPECT_FALSE(PortablePdb::Parse(std::vector<uint8_t>{1, 2, 3}, &error));
  EXPECT_NE(error.find("not a Portable PDB"), std::string::npos);
}

// Real PDB (built by Roslyn from tests/data/Sample.Calc.cs.txt); expected
// values come from System.Reflection.Metadata.
TEST(PortablePdb, SampleMatchesSystemReflectionMetadata) {
  std::vector<uint8_t> bytes = ReadFile(DataDir() / "portable" / "Sample.pdb");
  std::string error;
  std::optional<PortablePdb> pdb = PortablePdb::Parse(bytes, &error);
  ASSERT_TRUE(pdb) << error;
  ASSERT_EQ(pdb->documents().size(), 4u);
  EXPECT_EQ(pdb->documents()[0].name, "/_/Calc.cs");
  EXPECT_EQ(GuidToString(pdb->documents()[0].hash_algorithm), "8829d00f-11b8-4213-878b-770e8597ac16");
  EXPECT_EQ(GuidToString(pdb->documents()[0].language), "3f5162f8-07c6-11d3-9053-00c04fa302a1");
  EXPECT_EQ(pdb->documents()[2].name, "/_/obj/Debug/net10.0/Sample.AssemblyInfo.cs");
  EXPECT_EQ(pdb->documents()[3].name, "/_/Generated.txt");
  EXPECT_EQ(pdb->method_count(), 23u);
  EXPECT_EQ(pdb->entry_point(), 0u);

  // Classify (method 2): if/else, foreach with hidden points, 2-line return.
  std::vector<SequencePoint> points;
  ASSERT_TRUE(pdb->ReadSequencePoints(2, &points, &error)) << error;
  const uint32_t expected[][7] = {
      {0, 16, 9, 16, 10, 1, 0},   {1, 17, 13, 17, 23, 1, 0}, {6, 0xFEEFEE, 0, 0xFEEFEE, 0, 1, 1},
      {9, 18, 13, 18, 14, 1, 0},  {10, 19, 17, 19, 27, 1, 0}, {14, 21, 18, 21, 29, 1, 0},
      {19, 0xFEEFEE, 0, 0xFEEFEE, 0, 1, 1}, {22, 22, 17, 22, 26, 1, 0}, {26, 23, 13, 23, 27, 1, 0},
      {28, 24, 13, 24, 20, 1, 0}, {29, 24, 31, 24, 48, 1, 0}, {51, 0xFEEFEE, 0, 0xFEEFEE, 0, 1, 1},
      {53, 24, 22, 24, 27, 1, 0}, {60, 25, 13, 25, 14, 1, 0}, {61, 26, 17, 26, 28, 1, 0},
      {66, 27, 13, 27, 14, 1, 0}, {67, 0xFEEFEE, 0, 0xFEEFEE, 0, 1, 1}, {73, 24, 28, 24, 30, 1, 0},
      {81, 28, 13, 29, 19, 1, 0}, {87, 30, 9, 30, 10, 1, 0}};
  ASSERT_EQ(points.size(), std::size(expected));
  for (size_t i = 0; i < points.size(); ++i) {
    const SequencePoint& p = points[i];
    EXPECT_EQ(p.il_offset, expected[i][0]) << i;
    EXPECT_EQ(p.start_line, expected[i][1]) << i;
    EXPECT_EQ(p.start_column, expected[i][2]) << i;
    EXPECT_EQ(p.end_line, expected[i][3]) << i;
    EXPECT_EQ(p.end_column, expected[i][4]) << i;
    EXPECT_EQ(p.document, expected[i][5]) << i;
    EXPECT_EQ(p.hidden, expected[i][6] == 1) << i;
  }
  // TwoDocs (method 6): a #line switch to another document mid-method.
  ASSERT_TRUE(pdb->ReadSequencePoints(6, &points, &error));
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[2].document, 4u);
  EXPECT_EQ(points[2].start_line, 100u);
  EXPECT_EQ(points[3].document, 1u);
  EXPECT_EQ(points[3].start_line, 53u);
  // State machines: AddAsync's MoveNext (14) and Range's MoveNext (18).
  EXPECT_EQ(pdb->StateMachineKickoff(14), 3u);
  EXPECT_EQ(pdb->StateMachineKickoff(18), 4u);
  EXPECT_EQ(pdb->StateMachineKickoff(2), 0u);
  EXPECT_FALSE(pdb->SourceLinkJson());
  for (uint32_t m = 1; m <= pdb->method_count(); ++m) EXPECT_TRUE(pdb->ReadSequencePoints(m, &points, &error)) << m;
}

TEST(ModuleSymbols, EmbeddedPdb) {
  ModuleSymbols sym;
  std::string error;
  ASSERT_TRUE(LoadModuleSymbols((DataDir() / "embedded" / "Sample.dll").string(), &sym, &error)) << error;
  EXPECT_TRUE(sym.embedded);
  EXPECT_EQ(sym.pdb_path, "");
  EXPECT_EQ(sym.assembly_name, "Sample");
  EXPECT_EQ(GuidToString(sym.mvid), "60526c42-ea4e-4439-ae83-5f0bc70df23e");
  ASSERT_EQ(sym.referenced_assemblies.size(), 1u);
  EXPECT_EQ(sym.referenced_assemblies[0], "System.Runtime");
  ASSERT_EQ(sym.documents.size(), 4u);
  EXPECT_EQ(sym.documents[0].name, "/_/Calc.cs");
  ASSERT_TRUE(sym.pdb);
  EXPECT_EQ(sym.pdb->pdb_id(), sym.pdb_id);
  EXPECT_TRUE(sym.deterministic);
  // EmbedAllSources: the embedded (deflated) source is the original file.
  std::vector<uint8_t> source = ReadFile(DataDir() / "Sample.Calc.cs.txt");
  std::optional<std::string> embedded = sym.pdb->EmbeddedSource(1, &error);
  ASSERT_TRUE(embedded) << error;
  EXPECT_EQ(*embedded, std::string(source.begin(), source.end()));
  EXPECT_EQ(sym.pdb->EmbeddedSource(4, &error), "// generated\n");
}

TEST(ModuleSymbols, PortablePdbBesideAssembly) {
  ModuleSymbols sym;
  std::string error;
  std::string dll = (DataDir() / "portable" / "Sample.dll").string();
  ASSERT_TRUE(LoadModuleSymbols(dll, &sym, &error)) << error;
  EXPECT_FALSE(sym.embedded);
  EXPECT_EQ(fs::path(sym.pdb_path).filename(), "Sample.pdb");
  EXPECT_EQ(sym.codeview_path, "/_/obj/Debug/net10.0/Sample.pdb");
  EXPECT_EQ(GuidToString(sym.mvid), "e54bafec-0ae8-4161-9694-7808ee987970");
  ASSERT_TRUE(sym.pdb);
  EXPECT_EQ(sym.pdb->SequencePoints(1).size(), 3u);
}

TEST(ModuleSymbols, ErrorsAreClear) {
  std::string dir = TempDir();
  std::vector<uint8_t> dll = ReadFile(DataDir() / "portable" / "Sample.dll");
  WriteFile(fs::path(dir) / "App.dll", dll);
  ModuleSymbols sym;
  std::string error;
  // No PDB at all.
  EXPECT_FALSE(LoadModuleSymbols(dir + "/App.dll", &sym, &error));
  EXPECT_NE(error.find("no PDB found for App.dll"), std::string::npos) << error;
  EXPECT_TRUE(sym.identity_loaded);
  EXPECT_EQ(sym.assembly_name, "Sample");
  // A Windows PDB.
  std::string msf = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS";
  WriteFile(fs::path(dir) / "App.pdb", std::vector<uint8_t>(msf.begin(), msf.end()));
  EXPECT_FALSE(LoadModuleSymbols(dir + "/App.dll", &sym, &error));
  EXPECT_NE(error.find("Windows PDB format is not supported; build with <DebugType>portable</DebugType>"),
            std::string::npos)
      << error;
  // A PDB from another build.
  WriteFile(fs::path(dir) / "App.pdb", BuildPdb().bytes);
  EXPECT_FALSE(LoadModuleSymbols(dir + "/App.dll", &sym, &error));
  EXPECT_NE(error.find("PDB does not match assembly"), std::string::npos) << error;
  // The matching PDB found under the CodeView file name beside the assembly.
  WriteFile(fs::path(dir) / "Sample.pdb", ReadFile(DataDir() / "portable" / "Sample.pdb"));
  EXPECT_TRUE(LoadModuleSymbols(dir + "/App.dll", &sym, &error)) << error;
  EXPECT_EQ(fs::path(sym.pdb_path).filename(), "Sample.pdb");
  // Not an assembly / missing file.
  EXPECT_FALSE(LoadModuleSymbols(dir + "/App.pdb", &sym, &error));
  EXPECT_NE(error.find("not a valid PE file"), std::string::npos) << error;
  EXPECT_FALSE(LoadModuleSymbols(dir + "/Missing.dll", &sym, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  std::error_code ec;
  fs::remove_all(dir, ec);
}
