// Fuzz target: Portable PDB reader. Parses the input as a standalone PDB and
// reads its documents, the sequence points of every method (plus the
// out-of-range rids on either side), state-machine kickoffs, the Source Link
// JSON and every document's embedded source. The raw input is also fed to the
// blob decoders (sequence points, document names) directly.
#include <string>
#include <vector>

#include "dotcov/portable_pdb.h"
#include "fuzz_common.h"

using namespace dotcov;
using dotcov::fuzz::Sink;
using dotcov::fuzz::Touch;

namespace {

constexpr uint32_t kMaxMethods = 4096;

void CheckPoints(const std::vector<SequencePoint>& points, size_t documents) {
  for (size_t i = 0; i < points.size(); ++i) {
    const SequencePoint& sp = points[i];
    if (documents) FUZZ_CHECK(sp.document >= 1 && sp.document <= documents);
    if (i > 0) FUZZ_CHECK(sp.il_offset > points[i - 1].il_offset);
    FUZZ_CHECK(sp.il_offset < 0x20000000);
    if (sp.hidden) {
      FUZZ_CHECK(sp.start_line == kHiddenSequencePointLine && sp.end_line == kHiddenSequencePointLine);
    } else {
      FUZZ_CHECK(sp.start_line < 0x20000000 && sp.end_line < 0x20000000);
      FUZZ_CHECK(sp.start_column < 0x10000 && sp.end_column < 0x10000);
      FUZZ_CHECK(sp.end_line > sp.start_line || (sp.end_line == sp.start_line && sp.end_column > sp.start_column));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes input(data, size);
  std::string error;

  // The blob decoders on raw bytes (the input doubles as a "blob heap").
  std::vector<SequencePoint> points;
  uint32_t local_sig = 0;
  for (uint32_t document_column : {0u, 1u}) {
    if (DecodeSequencePoints(input, document_column, &points, &error, &local_sig))
      CheckPoints(points, 0);
    else
      FUZZ_CHECK(points.empty());
  }
  std::string name;
  if (DecodeDocumentName(input, input, &name, &error)) FUZZ_CHECK(name.size() <= 64 * 1024);
  else FUZZ_CHECK(name.empty());

  std::optional<PortablePdb> pdb = PortablePdb::Parse(input, &error);
  if (!pdb) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  FUZZ_CHECK(pdb->bytes().size() == size);
  Sink(pdb->pdb_id()[0] + pdb->entry_point());
  const auto& docs = pdb->documents();
  for (size_t i = 0; i < docs.size(); ++i) {
    FUZZ_CHECK(docs[i].rid == i + 1);
    FUZZ_CHECK(pdb->document(static_cast<uint32_t>(i + 1)) == &docs[i]);
    Sink(Touch(docs[i].name) + docs[i].hash.size() + docs[i].language[0] + docs[i].hash_algorithm[0]);
  }
  FUZZ_CHECK(pdb->document(0) == nullptr);
  FUZZ_CHECK(pdb->document(static_cast<uint32_t>(docs.size() + 1)) == nullptr);

  const uint32_t methods = pdb->method_count();
  for (uint32_t rid = 0; rid <= methods + 1 && rid <= kMaxMethods; ++rid) {
    bool ok = pdb->ReadSequencePoints(rid, &points, &error);
    if (ok) CheckPoints(points, docs.size());
    else FUZZ_CHECK(points.empty());
    if (rid == 0 || rid > methods) FUZZ_CHECK(!ok);
    Sink(pdb->SequencePoints(rid).size() + pdb->StateMachineKickoff(rid));
  }
  if (auto json = pdb->SourceLinkJson()) Sink(Touch(*json));
  for (uint32_t rid = 0; rid <= docs.size() + 1 && rid <= kMaxMethods; ++rid) {
    if (auto text = pdb->EmbeddedSource(rid, &error)) Sink(Touch(*text));
  }

  // Copies share the bytes and answer the same.
  PortablePdb copy = *pdb;
  FUZZ_CHECK(copy.documents().size() == docs.size() && copy.method_count() == methods);
  std::optional<PortablePdb> moved = PortablePdb::Parse(std::vector<uint8_t>(data, data + size), &error);
  FUZZ_CHECK(moved.has_value() && moved->documents().size() == docs.size());
  return 0;
}
