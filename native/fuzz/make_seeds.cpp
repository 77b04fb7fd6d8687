// Writes the seed corpus of the fuzz targets (native/fuzz/corpus) from the
// core's own test data (native/core/tests/data: assemblies built from this
// repository's sample) and from small hand-built inputs. No third-party
// binaries. Usage: make_seeds TEST_DATA_DIR CORPUS_DIR
// (scripts/fuzz.sh --regen-seeds rebuilds the committed corpus with it).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "dotcov/data_file.h"
#include "dotcov/il_method.h"
#include "dotcov/metadata.h"
#include "dotcov/module_info.h"
#include "dotcov/pe_image.h"
#include "dotcov/portable_pdb.h"

using namespace dotcov;
namespace fs = std::filesystem;

namespace {

fs::path g_out;
int g_written = 0;

void Write(const std::string& target, const std::string& name, Bytes bytes) {
  fs::path dir = g_out / target;
  fs::create_directories(dir);
  fs::path path = dir / name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
  ++g_written;
}
void Write(const std::string& target, const std::string& name, const std::vector<uint8_t>& bytes) {
  Write(target, name, Bytes(bytes));
}

std::vector<uint8_t> Load(const fs::path& path) {
  std::vector<uint8_t> out;
  std::string error;
  if (!ReadWholeFile(path.string(), &out, &error)) {
    std::fprintf(stderr, "make_seeds: %s\n", error.c_str());
    std::exit(1);
  }
  return out;
}

void Put16(std::vector<uint8_t>* v, uint32_t x) {
  v->push_back(uint8_t(x));
  v->push_back(uint8_t(x >> 8));
}
void Put32(std::vector<uint8_t>* v, uint32_t x) {
  Put16(v, x);
  Put16(v, x >> 16);
}

// Exact length of a decoded method body (header, code, sections).
size_t BodyLength(Bytes body, const il::MethodBody& m) {
  size_t pos = (m.fat_header() ? 12u : 1u) + m.code_size();
  if (m.fat_header() && (m.header_flags() & 0x8)) {
    bool more = true;
    while (more && pos + 4 <= body.size()) {
      pos = (pos + 3) & ~size_t{3};
      uint8_t kind = body[pos];
      size_t size = (kind & 0x40) ? (body[pos + 1] | body[pos + 2] << 8 | body[pos + 3] << 16) : body[pos + 1];
      pos += size;
      more = (kind & 0x80) != 0;
    }
  }
  return std::min(pos, body.size());
}

// Method bodies of an assembly: the distinct ones, smallest first, at most `max`.
void MethodSeeds(const std::string& tag, const PeImage& pe, size_t max) {
  std::string error;
  auto md = MetadataReader::Parse(pe.metadata(), &error);
  if (!md) return;
  std::vector<std::vector<uint8_t>> bodies;
  for (const MethodDefInfo& m : md->MethodDefs()) {
    if (m.rva == 0) continue;
    Bytes at = pe.MethodBodyAt(m.rva);
    il::MethodBody body;
    if (!il::MethodBody::Decode(at, &body, &error)) continue;
    Bytes exact = at.first(BodyLength(at, body));
    std::vector<uint8_t> v(exact.begin(), exact.end());
    if (std::find(bodies.begin(), bodies.end(), v) == bodies.end()) bodies.push_back(std::move(v));
  }
  // Keep variety: the ones with exception sections, then the largest, then the rest.
  std::stable_sort(bodies.begin(), bodies.end(), [](const auto& a, const auto& b) {
    bool ea = (a[0] & 3) == 3 && (a[0] & 0x8);
    bool eb = (b[0] & 3) == 3 && (b[0] & 0x8);
    if (ea != eb) return ea;
    return a.size() > b.size();
  });
  for (size_t i = 0; i < bodies.size() && i < max; ++i)
    Write("il_method", tag + "_method_" + std::to_string(i), bodies[i]);
}

void HandBuiltIl() {
  // Tiny: nop; ret.
  Write("il_method", "tiny_nop_ret", std::vector<uint8_t>{0x02 | (2 << 2), 0x00, 0x2A});
  // Tiny: ldarg.0; brtrue.s +1; nop; ldc.i4.1; ret — a short branch.
  Write("il_method", "tiny_branch", std::vector<uint8_t>{0x02 | (6 << 2), 0x02, 0x2D, 0x01, 0x00, 0x17, 0x2A});
  // Tiny: switch with two targets, then ret.
  {
    std::vector<uint8_t> code = {0x02, 0x45};
    Put32(&code, 2);
    Put32(&code, 0);
    Put32(&code, 1);
    code.push_back(0x00);
    code.push_back(0x2A);
    std::vector<uint8_t> b = {uint8_t(0x02 | (code.size() << 2))};
    b.insert(b.end(), code.begin(), code.end());
    Write("il_method", "tiny_switch", b);
  }
  // Tiny: tail. call <token>; ret — the ret after a tail call takes no probe.
  {
    std::vector<uint8_t> code = {0xFE, 0x14, 0x28};
    Put32(&code, 0x0A000001);
    code.push_back(0x2A);
    std::vector<uint8_t> b = {uint8_t(0x02 | (code.size() << 2))};
    b.insert(b.end(), code.begin(), code.end());
    Write("il_method", "tiny_tail_call", b);
  }
  // Fat with a small EH section: try { nop; leave.s end } finally { endfinally } end: ret.
  auto fat = [](const std::vector<uint8_t>& code, uint16_t max_stack, bool init_locals,
                const std::vector<uint8_t>& sections) {
    std::vector<uint8_t> b;
    uint16_t flags = 0x3 | (sections.empty() ? 0 : 0x8) | (init_locals ? 0x10 : 0);
    Put16(&b, flags | (3u << 12));
    Put16(&b, max_stack);
    Put32(&b, static_cast<uint32_t>(code.size()));
    Put32(&b, init_locals ? 0x11000001 : 0);
    b.insert(b.end(), code.begin(), code.end());
    if (!sections.empty()) {
      while (b.size() % 4) b.push_back(0);
      b.insert(b.end(), sections.begin(), sections.end());
    }
    return b;
  };
  std::vector<uint8_t> try_finally = {0x00, 0xDE, 0x01, 0xDC, 0x2A};
  {
    std::vector<uint8_t> sect = {0x01, 4 + 12, 0, 0};
    Put16(&sect, 2);  // finally
    Put16(&sect, 0);  // try offset
    sect.push_back(3);  // try length
    Put16(&sect, 3);  // handler offset
    sect.push_back(1);  // handler length
    Put32(&sect, 0);
    Write("il_method", "fat_try_finally_small", fat(try_finally, 1, true, sect));
  }
  {
    std::vector<uint8_t> sect = {0x41, 4 + 24, 0, 0};
    for (uint32_t v : {2u, 0u, 3u, 3u, 1u, 0u}) Put32(&sect, v);
    Write("il_method", "fat_try_finally_fat", fat(try_finally, 1, false, sect));
  }
  // Catch with a filter: try { leave.s end } filter { pop; ldc.i4.1; endfilter } handler { pop; leave.s end } end: ret
  {
    std::vector<uint8_t> code = {0xDE, 0x07, 0x26, 0x17, 0xFE, 0x11, 0x26, 0xDE, 0x00, 0x2A};
    std::vector<uint8_t> sect = {0x41, 4 + 24, 0, 0};
    for (uint32_t v : {1u, 0u, 2u, 6u, 3u, 2u}) Put32(&sect, v);
    Write("il_method", "fat_filter", fat(code, 1, false, sect));
  }
  // Fat, long branch and every operand kind: ldc.i8, ldc.r8, ldc.r4, ldarg, ldloc.s ...
  {
    std::vector<uint8_t> code;
    code.push_back(0x21);  // ldc.i8
    for (int i = 0; i < 8; ++i) code.push_back(uint8_t(i));
    code.push_back(0x26);  // pop
    code.push_back(0x23);  // ldc.r8
    for (int i = 0; i < 8; ++i) code.push_back(uint8_t(0x40 + i));
    code.push_back(0x26);
    code.push_back(0x22);  // ldc.r4
    Put32(&code, 0x3F800000);
    code.push_back(0x26);
    code.insert(code.end(), {0xFE, 0x09, 0x00, 0x00});  // ldarg 0
    code.push_back(0x26);
    code.insert(code.end(), {0x11, 0x00});  // ldloc.s 0
    code.push_back(0x26);
    code.push_back(0x38);  // br +0
    Put32(&code, 0);
    code.push_back(0x2A);
    Write("il_method", "fat_operands", fat(code, 2, true, {}));
  }
  // Short circuits (value and operand probes): `x < 0 || y < 0 || flag` as Roslyn compiles it with a bool local:
  // ldarg.0; ldc.i4.0; blt.s T; ldarg.1; ldc.i4.0; clt; br.s J; T: ldc.i4.1; J: ldloc.0; or; ret
  {
    std::vector<uint8_t> code = {0x02, 0x16, 0x32, 0x06, 0x03, 0x16, 0xFE, 0x04, 0x2B, 0x01, 0x17, 0x06, 0x60, 0x2A};
    Write("il_method", "fat_short_circuits", fat(code, 2, true, {}));
  }
}

void DataFiles() {
  DataFile f;
  f.format_version = kDataFormatVersion;
  f.pid = 4242;
  f.start_time_ns = 1700000000000000000ull;
  Write("data_file", "empty", SerializeDataFile(f));
  f.processes.push_back({"dotnet test Sample.Tests.dll", "/work/samples"});
  ModuleData m;
  for (int i = 0; i < 16; ++i) m.id.mvid[i] = uint8_t(i * 7);
  for (int i = 0; i < 20; ++i) m.id.pdb_id[i] = uint8_t(0xA0 + i);
  m.id.path = "/work/samples/bin/Sample.dll";
  for (uint32_t i = 0; i < 6; ++i) {
    m.sites.push_back({0x06000001 + i / 2, i * 4});
    m.hits.push_back(i == 3 ? 0 : uint64_t{i} * 1000 + 1);
  }
  f.modules.push_back(m);
  Write("data_file", "one_module", SerializeDataFile(f));
  m.id.path = "/tmp/other.dll";
  m.sites.resize(2);
  m.hits = {~uint64_t{0}, 5};
  f.modules.push_back(m);
  f.processes.push_back({"", ""});
  std::vector<uint8_t> two = SerializeDataFile(f);
  Write("data_file", "two_modules", two);
  // A record left in the "writing" state, and a file cut inside a record.
  std::vector<uint8_t> writing = two;
  writing[kFileHeaderSize + 4] = 0;
  Write("data_file", "uncommitted_record", writing);
  Write("data_file", "truncated", Bytes(two).first(two.size() - 12));
  // Per-test contexts: names and (context, site) pairs in both modules.
  f.contexts = {{1, "Sample.Tests.CalcTests.Adds"}, {2, "Sample.Tests.CalcTests.Divides"}};
  f.modules[0].context_hits = {{1, 0}, {1, 2}, {2, 5}};
  f.modules[1].context_hits = {{2, 1}};
  Write("data_file", "contexts", SerializeDataFile(f));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds TEST_DATA_DIR CORPUS_DIR\n");
    return 2;
  }
  fs::path data = argv[1];
  g_out = argv[2];
  std::string error;

  for (const char* flavour : {"portable", "embedded"}) {
    std::vector<uint8_t> dll = Load(data / flavour / "Sample.dll");
    Write("pe_image", std::string(flavour) + "_Sample.dll", dll);
    auto pe = PeImage::Parse(Bytes(dll), &error);
    if (!pe || !pe->is_managed()) {
      std::fprintf(stderr, "make_seeds: %s/Sample.dll: %s\n", flavour, error.c_str());
      return 1;
    }
    Write("metadata", std::string(flavour) + "_Sample.dll.metadata", pe->metadata());
    if (std::string(flavour) == "portable") MethodSeeds(flavour, *pe, 12);  // the embedded build has the same bodies
    std::vector<uint8_t> embedded;
    if (pe->ReadEmbeddedPdb(&embedded, &error)) {
      Write("portable_pdb", std::string(flavour) + "_Sample.pdb", embedded);
      Write("metadata", std::string(flavour) + "_Sample.pdb", embedded);
    }
  }
  std::vector<uint8_t> pdb = Load(data / "portable" / "Sample.pdb");
  Write("portable_pdb", "portable_Sample.pdb", pdb);
  Write("metadata", "portable_Sample.pdb", pdb);

  // A few inputs for the early checks of each reader.
  Write("pe_image", "mz_only", std::vector<uint8_t>{'M', 'Z'});
  Write("portable_pdb", "windows_pdb_magic",
        Bytes(reinterpret_cast<const uint8_t*>("Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0"), 32));
  Write("metadata", "bsjb_only", std::vector<uint8_t>{'B', 'S', 'J', 'B'});

  HandBuiltIl();
  DataFiles();
  std::printf("make_seeds: wrote %d files under %s\n", g_written, g_out.c_str());
  return 0;
}
