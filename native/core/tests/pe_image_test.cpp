#include "dotcov/pe_image.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "dotcov/metadata.h"
#include "dotcov/module_info.h"
#include "dotcov/portable_pdb.h"

using namespace dotcov;
namespace fs = std::filesystem;

namespace {

// Test assemblies built from tests/data/Sample.Calc.cs.txt (classlib, net10.0,
// Debug, Deterministic, PathMap=/_/): portable/ has Sample.dll + Sample.pdb,
// embedded/ has DebugType=embedded with EmbedAllSources.
fs::path DataDir() { return fs::path(__FILE__).parent_path() / "data"; }

std::vector<uint8_t> ReadFile(const fs::path& p) {
  std::vector<uint8_t> v;
  std::string error;
  EXPECT_TRUE(ReadWholeFile(p.string(), &v, &error)) << error;
  return v;
}

std::vector<uint8_t> DeflateRaw(const std::vector<uint8_t>& in) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::vector<uint8_t> out(deflateBound(&zs, in.size()));
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Exercises every reader on an image; must never crash whatever the bytes.
void ExerciseEverything(Bytes file) {
  std::string error;
  std::optional<PeImage> pe = PeImage::Parse(file, &error);
  if (!pe) {
    EXPECT_FALSE(error.empty());
    return;
  }
  (void)pe->codeview();
  (void)pe->has_ready_to_run();
  std::vector<uint8_t> pdb_bytes;
  if (pe->ReadEmbeddedPdb(&pdb_bytes, &error)) {
    if (auto pdb = PortablePdb::Parse(std::move(pdb_bytes), &error)) {
      std::vector<SequencePoint> sps;
      for (uint32_t m = 0; m <= pdb->method_count() + 1; ++m) {
        pdb->ReadSequencePoints(m, &sps, &error);
        (void)pdb->StateMachineKickoff(m);
      }
      for (const PdbDocument& d : pdb->documents()) (void)pdb->EmbeddedSource(d.rid, &error);
      (void)pdb->SourceLinkJson();
    }
  }
  if (!pe->is_managed()) return;
  std::optional<MetadataReader> md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) return;
  (void)md->ModuleMvid();
  (void)md->Assembly();
  (void)md->AssemblyRefs();
  for (const TypeDefInfo& t : md->TypeDefs()) {
    (void)md->TypeDefFullName(t.rid);
    (void)md->CustomAttributes(MakeToken(TableId::kTypeDef, t.rid));
  }
  for (const MethodDefInfo& m : md->MethodDefs()) {
    (void)pe->MethodBodyAt(m.rva);
    (void)md->DeclaringType(m.rid);
    (void)md->CustomAttributes(MakeToken(TableId::kMethodDef, m.rid));
  }
}

std::optional<fs::path> SharedFrameworkDir() {
  std::error_code ec;
  fs::path base = "/usr/share/dotnet/shared/Microsoft.NETCore.App";
  if (!fs::is_directory(base, ec)) return std::nullopt;
  std::optional<fs::path> best;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    if (!entry.is_directory()) continue;
    if (!fs::exists(entry.path() / "System.Private.CoreLib.dll")) continue;
    if (!best || entry.path().filename().string() > best->filename().string()) best = entry.path();
  }
  return best;
}

}  // namespace

TEST(PeImage, RejectsNonPeInput) {
  std::string error;
  EXPECT_FALSE(PeImage::Parse({}, &error));
  EXPECT_NE(error.find("MZ"), std::string::npos);
  std::vector<uint8_t> junk(512, 0xAB);
  junk[0] = 'M';
  junk[1] = 'Z';
  EXPECT_FALSE(PeImage::Parse(junk, &error));
  // e_lfanew pointing far outside the file.
  junk[0x3C] = 0xFF;
  junk[0x3D] = 0xFF;
  junk[0x3E] = 0xFF;
  junk[0x3F] = 0x7F;
  EXPECT_FALSE(PeImage::Parse(junk, &error));
}

TEST(PeImage, InflateRawRoundTripAndErrors) {
  std::vector<uint8_t> data(10000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 % 13);
  std::vector<uint8_t> z = DeflateRaw(data), out;
  std::string error;
  ASSERT_TRUE(InflateRaw(z, data.size(), &out, &error)) << error;
  EXPECT_EQ(out, data);
  EXPECT_FALSE(InflateRaw(z, data.size() + 1, &out, &error));
  EXPECT_FALSE(InflateRaw(z, data.size() - 1, &out, &error));
  EXPECT_FALSE(InflateRaw(Bytes(z).first(z.size() / 2), data.size(), &out, &error));
  // A tiny input may not claim a huge output (no allocation from a header).
  EXPECT_FALSE(InflateRaw(Bytes(z).first(4), 200u << 20, &out, &error));
  std::vector<uint8_t> garbage(64, 0xFF);
  EXPECT_FALSE(InflateRaw(garbage, 1000, &out, &error));
}

TEST(PeImage, EmbeddedPdbSample) {
  std::vector<uint8_t> file = ReadFile(DataDir() / "embedded" / "Sample.dll");
  std::string error;
  std::optional<PeImage> pe = PeImage::Parse(file, &error);
  ASSERT_TRUE(pe) << error;
  EXPECT_TRUE(pe->is_managed());
  EXPECT_TRUE(pe->is_il_only());
  EXPECT_FALSE(pe->has_ready_to_run());
  EXPECT_TRUE(pe->is_deterministic());
  EXPECT_TRUE(pe->has_embedded_pdb());
  ASSERT_GE(pe->metadata().size(), 4u);
  EXPECT_EQ(pe->metadata()[0], 'B');
  std::optional<CodeViewInfo> cv = pe->codeview();
  ASSERT_TRUE(cv);
  EXPECT_TRUE(cv->portable);
  EXPECT_EQ(cv->age, 1u);
  EXPECT_EQ(cv->path, "Sample.pdb");  // embedded builds record only the file name
  std::vector<uint8_t> pdb_bytes;
  ASSERT_TRUE(pe->ReadEmbeddedPdb(&pdb_bytes, &error)) << error;
  ASSERT_GE(pdb_bytes.size(), 4u);
  EXPECT_EQ(std::string(pdb_bytes.begin(), pdb_bytes.begin() + 4), "BSJB");
  std::optional<PortablePdb> pdb = PortablePdb::Parse(std::move(pdb_bytes), &error);
  ASSERT_TRUE(pdb) << error;
  EXPECT_EQ(pdb->pdb_id(), cv->pdb_id());
}

TEST(PeImage, PortableSampleHasNoEmbeddedPdb) {
  std::vector<uint8_t> file = ReadFile(DataDir() / "portable" / "Sample.dll");
  std::string error;
  std::optional<PeImage> pe = PeImage::Parse(file, &error);
  ASSERT_TRUE(pe) << error;
  EXPECT_FALSE(pe->has_embedded_pdb());
  std::vector<uint8_t> out;
  EXPECT_FALSE(pe->ReadEmbeddedPdb(&out, &error));
  EXPECT_NE(error.find("no embedded PDB"), std::string::npos);
  ASSERT_TRUE(pe->codeview());
  // Method bodies: every method with an RVA has a tiny or fat header.
  std::optional<MetadataReader> md = MetadataReader::Parse(pe->metadata(), &error);
  ASSERT_TRUE(md) << error;
  int bodies = 0;
  for (const MethodDefInfo& m : md->MethodDefs()) {
    if (m.rva == 0) continue;
    Bytes body = pe->MethodBodyAt(m.rva);
    ASSERT_FALSE(body.empty()) << m.name;
    EXPECT_TRUE((body[0] & 3) == 2 || (body[0] & 3) == 3) << m.name;
    ++bodies;
  }
  EXPECT_GT(bodies, 10);
  EXPECT_TRUE(pe->MethodBodyAt(0xFFFFFFF0u).empty());
  EXPECT_FALSE(pe->RvaToOffset(0xFFFFFFF0u));
}

TEST(PeImage, EveryTruncationOfSampleIsSafe) {
  for (const char* which : {"embedded", "portable"}) {
    std::vector<uint8_t> file = ReadFile(DataDir() / which / "Sample.dll");
    for (size_t len = 0; len <= file.size(); ++len) ExerciseEverything(Bytes(file).first(len));
  }
}

TEST(PeImage, RandomByteCorruptionIsSafe) {
  std::vector<uint8_t> original = ReadFile(DataDir() / "embedded" / "Sample.dll");
  ASSERT_FALSE(original.empty());
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> file = original;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      size_t pos = rng() % file.size();
      file[pos] = static_cast<uint8_t>(rng());
    }
    ExerciseEverything(file);
  }
}

TEST(PeImage, SharedFrameworkAssemblies) {
  std::optional<fs::path> dir = SharedFrameworkDir();
  if (!dir) GTEST_SKIP() << "no shared framework under /usr/share/dotnet";
  int managed = 0;
  bool saw_corelib = false;
  bool truncation_checked = false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(*dir, ec)) {
    if (entry.path().extension() != ".dll") continue;
    std::vector<uint8_t> file = ReadFile(entry.path());
    std::string error;
    std::optional<PeImage> pe = PeImage::Parse(file, &error);
    ASSERT_TRUE(pe) << entry.path() << ": " << error;
    if (!pe->is_managed()) continue;
    ++managed;
    std::optional<MetadataReader> md = MetadataReader::Parse(pe->metadata(), &error);
    ASSERT_TRUE(md) << entry.path() << ": " << error;
    EXPECT_TRUE(md->ModuleMvid()) << entry.path();
    if (entry.path().filename() == "System.Runtime.dll" && !truncation_checked) {
      truncation_checked = true;
      size_t n = std::min<size_t>(file.size(), 8192);
      for (size_t len = 0; len <= n; ++len) ExerciseEverything(Bytes(file).first(len));
    }
    if (entry.path().filename() == "System.Private.CoreLib.dll") {
      saw_corelib = true;
      EXPECT_EQ(md->AssemblyName(), "System.Private.CoreLib");
      EXPECT_GT(md->RowCount(TableId::kTypeDef), 1000u);
      EXPECT_GT(md->TypeDefs().size(), 1000u);
      EXPECT_TRUE(pe->has_ready_to_run());
      // Declaring types agree between the bulk and the per-method lookup.
      std::vector<MethodDefInfo> methods = md->MethodDefs();
      ASSERT_GT(methods.size(), 10000u);
      for (const MethodDefInfo& m : methods) {
        ASSERT_EQ(md->DeclaringType(m.rid), m.declaring_type) << m.name;
        if (m.rva != 0) {
          Bytes body = pe->MethodBodyAt(m.rva);
          ASSERT_FALSE(body.empty()) << m.name;
          ASSERT_TRUE((body[0] & 3) == 2 || (body[0] & 3) == 3) << m.name;
        }
      }
      std::unordered_map<uint32_t, uint32_t> nested = md->NestedClassMap();
      EXPECT_GT(nested.size(), 100u);
      for (auto [inner, outer] : nested) EXPECT_EQ(md->EnclosingType(inner), outer);
    }
  }
  EXPECT_GT(managed, 100);
  EXPECT_TRUE(saw_corelib);
}
