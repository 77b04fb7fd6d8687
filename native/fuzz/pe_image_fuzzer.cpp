// Fuzz target: PE/COFF image reader. Parses the input in both layouts and
// calls every accessor: RVA mapping on section edges and pseudo-random RVAs,
// the CLI header and metadata, debug entries, CodeView, the embedded Portable
// PDB (inflated and parsed), and method bodies of every MethodDef. Finally the
// whole IL rewriter self-check runs over the image as a file.
#include <string>
#include <vector>

#include "dotcov/il_method.h"
#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"
#include "dotcov/portable_pdb.h"
#include "dotcov/rewrite_check.h"
#include "fuzz_common.h"

using namespace dotcov;
using dotcov::fuzz::Rng;
using dotcov::fuzz::Sink;
using dotcov::fuzz::Touch;
using dotcov::fuzz::Within;

namespace {

void CheckRva(const PeImage& pe, uint32_t rva) {
  Bytes image = pe.bytes();
  std::optional<size_t> off = pe.RvaToOffset(rva);
  if (off) FUZZ_CHECK(*off < image.size());
  Bytes body = pe.MethodBodyAt(rva);
  FUZZ_CHECK(Within(body, image));
  Sink(Touch(body));
  if (!body.empty() && pe.layout() == PeLayout::kFile) {
    FUZZ_CHECK(off.has_value());
    FUZZ_CHECK(body.data() == image.data() + *off);
  }
  for (uint32_t size : {0u, 1u, 4u, 12u, 72u, 4096u}) {
    Bytes b = pe.BytesAtRva(rva, size);
    FUZZ_CHECK(b.empty() || b.size() == size);
    FUZZ_CHECK(Within(b, image));
    Sink(Touch(b));
  }
  if (!body.empty()) {
    il::MethodBody m;
    std::string error;
    if (il::MethodBody::Decode(body, &m, &error)) Sink(m.instructions().size());
  }
}

void Exercise(Bytes data, PeLayout layout) {
  std::string error;
  std::optional<PeImage> pe = PeImage::Parse(data, &error, layout);
  if (!pe) {
    FUZZ_CHECK(!error.empty());
    return;
  }
  FUZZ_CHECK(pe->bytes().data() == data.data() && pe->bytes().size() == data.size());
  Sink(pe->machine() + pe->coff_stamp() + pe->characteristics() + pe->is_pe32_plus());
  Sink(pe->is_managed() + pe->is_il_only() + pe->has_ready_to_run() + pe->cli_flags());

  Rng rng(data);
  const auto& sections = pe->sections();
  for (size_t i = 0; i < sections.size() && i < 64; ++i) {
    const PeSection& s = sections[i];
    Sink(Touch(s.name));
    for (uint64_t rva : {uint64_t{s.virtual_address}, uint64_t{s.virtual_address} + s.virtual_size - 1,
                         uint64_t{s.virtual_address} + s.virtual_size, uint64_t{s.virtual_address} + s.raw_size - 1,
                         uint64_t{s.virtual_address} + s.raw_size,
                         uint64_t{s.virtual_address} + rng.Below(s.virtual_size + s.raw_size + 16)})
      CheckRva(*pe, static_cast<uint32_t>(rva));
  }
  for (int i = 0; i < 32; ++i) CheckRva(*pe, static_cast<uint32_t>(rng.Next()));
  for (int i = 0; i < 32; ++i) CheckRva(*pe, rng.Below(static_cast<uint32_t>(data.size()) + 64));
  CheckRva(*pe, 0);
  CheckRva(*pe, 0xFFFFFFFFu);

  if (pe->is_managed()) {
    FUZZ_CHECK(pe->cli_header().has_value());
    FUZZ_CHECK(Within(pe->metadata(), data));
    FUZZ_CHECK(pe->metadata().size() >= 4);
    Sink(Touch(pe->metadata()));
    const CliHeader& h = *pe->cli_header();
    for (uint32_t rva : {h.metadata_rva, h.resources_rva, h.strong_name_rva, h.managed_native_header_rva,
                         h.entry_point_token})
      CheckRva(*pe, rva);
  } else {
    FUZZ_CHECK(pe->metadata().empty());
  }

  for (const DebugDirectoryEntry& e : pe->debug_entries()) {
    FUZZ_CHECK(Within(e.data, data));
    FUZZ_CHECK(e.data.empty() || e.data.size() == e.data_size);
    Sink(Touch(e.data));
    CheckRva(*pe, e.data_rva);
  }
  if (auto cv = pe->codeview()) {
    Sink(Touch(cv->path) + cv->age + cv->portable);
    Sink(cv->pdb_id()[19]);
  }
  Sink(pe->has_embedded_pdb() + pe->is_deterministic());

  std::vector<uint8_t> pdb_bytes;
  if (pe->ReadEmbeddedPdb(&pdb_bytes, &error)) {
    FUZZ_CHECK(pe->has_embedded_pdb());
    Sink(Touch(Bytes(pdb_bytes)));
    if (auto pdb = PortablePdb::Parse(Bytes(pdb_bytes), &error)) {
      Sink(pdb->documents().size() + pdb->method_count());
      uint32_t n = std::min<uint32_t>(pdb->method_count(), 256);
      std::vector<SequencePoint> points;
      for (uint32_t rid = 1; rid <= n; ++rid)
        if (pdb->ReadSequencePoints(rid, &points, &error)) Sink(points.size());
    }
  } else {
    FUZZ_CHECK(pdb_bytes.empty());
  }

  if (pe->is_managed()) {
    if (auto md = MetadataReader::Parse(pe->metadata(), &error)) {
      std::vector<MethodDefInfo> methods = md->MethodDefs();
      for (size_t i = 0; i < methods.size() && i < 512; ++i) CheckRva(*pe, methods[i].rva);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes input(data, size);
  Exercise(input, PeLayout::kFile);
  Exercise(input, PeLayout::kMapped);
  RewriteCheckResult r = RewriteCheck(input, "fuzz-input");
  Sink(r.methods_checked + r.failures.size() + r.error.size());
  return 0;
}
