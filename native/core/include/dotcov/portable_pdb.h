// Portable PDB reader (dotnet/runtime docs/design/specs/PortablePdb-Metadata.md).
// Input is untrusted: malformed data yields errors, never crashes. A
// PortablePdb owns (shares) a copy of its bytes, so it may be copied freely.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/metadata.h"

namespace dotcov {

inline constexpr uint32_t kHiddenSequencePointLine = 0xFEEFEE;

struct PdbDocument {
  uint32_t rid = 0;  // 1-based row of the Document table
  std::string name;  // UTF-8, as decoded from the document-name blob
  Guid hash_algorithm{};  // zero if nil (SHA-1 ff1816ec-..., SHA-256 8829d00f-...)
  std::vector<uint8_t> hash;
  Guid language{};  // zero if nil (C# 3f5162f8-07c6-11d3-9053-00c04fa302a1)
};

struct SequencePoint {
  uint32_t il_offset = 0;
  uint32_t start_line = 0;
  uint32_t start_column = 0;
  uint32_t end_line = 0;
  uint32_t end_column = 0;
  uint32_t document = 0;  // Document rid
  bool hidden = false;    // lines are 0xFEEFEE, columns 0
};

// Well-known CustomDebugInformation kinds.
inline constexpr Guid kSourceLinkKind = {0x56, 0x05, 0x11, 0xCC, 0x91, 0xA0, 0x38, 0x4D,
                                         0x9F, 0xEC, 0x25, 0xAB, 0x9A, 0x35, 0x1A, 0x6A};
inline constexpr Guid kEmbeddedSourceKind = {0x1B, 0x57, 0x8A, 0x0E, 0x26, 0x69, 0x6E, 0x46,
                                             0xB4, 0xAD, 0x8A, 0xB0, 0x46, 0x11, 0xF5, 0xFE};

// Decodes a document-name blob ("separator part+"); parts are #Blob indexes
// into `blob_heap`. Fails on truncation, bad indexes or names over 64 KiB.
bool DecodeDocumentName(Bytes name_blob, Bytes blob_heap, std::string* out, std::string* error);

// Decodes a sequence-points blob. `document_column` is the Document column of
// the MethodDebugInformation row (0 means the blob carries InitialDocument).
// Validates the spec's constraints (IL offsets strictly increasing and
// < 0x20000000, lines < 0x20000000 and != 0xFEEFEE, columns < 0x10000, end
// after start). On failure `out` is cleared.
bool DecodeSequencePoints(Bytes blob, uint32_t document_column, std::vector<SequencePoint>* out,
                          std::string* error, uint32_t* local_signature = nullptr);

class PortablePdb {
 public:
  // Parses standalone Portable PDB bytes (starting with "BSJB"). A Windows
  // PDB ("Microsoft C/C++ MSF 7.00") is rejected with an explanatory error.
  static std::optional<PortablePdb> Parse(Bytes pdb, std::string* error);
  static std::optional<PortablePdb> Parse(std::vector<uint8_t>&& pdb, std::string* error);

  const std::array<uint8_t, 20>& pdb_id() const { return pdb_id_; }
  uint32_t entry_point() const { return entry_point_; }  // MethodDef token or 0
  // Documents in row order: documents()[i].rid == i + 1.
  const std::vector<PdbDocument>& documents() const { return documents_; }
  const PdbDocument* document(uint32_t rid) const;
  // Rows of MethodDebugInformation (== MethodDef rows of the assembly, or 0).
  uint32_t method_count() const;

  // Sequence points of MethodDef `method_rid`. An empty result with `true`
  // means the method has none; a malformed blob returns false with *error.
  bool ReadSequencePoints(uint32_t method_rid, std::vector<SequencePoint>* out, std::string* error) const;
  // Convenience: empty on error.
  std::vector<SequencePoint> SequencePoints(uint32_t method_rid) const;

  // Kickoff MethodDef rid of a state machine's MoveNext (StateMachineMethod
  // table), or 0.
  uint32_t StateMachineKickoff(uint32_t movenext_rid) const;
  // The Source Link JSON attached to the module, if any.
  std::optional<std::string> SourceLinkJson() const;
  // Embedded source text of a document, if any (decompressed). Malformed data
  // gives std::nullopt with *error.
  std::optional<std::string> EmbeddedSource(uint32_t document_rid, std::string* error = nullptr) const;

  const MetadataReader& metadata() const { return *md_; }
  Bytes bytes() const { return Bytes(*data_); }

 private:
  bool Init(std::string* error);

  std::shared_ptr<const std::vector<uint8_t>> data_;
  std::optional<MetadataReader> md_;
  std::array<uint8_t, 20> pdb_id_{};
  uint32_t entry_point_ = 0;
  std::vector<PdbDocument> documents_;
  bool state_machine_sorted_ = true;
};

}  // namespace dotcov
