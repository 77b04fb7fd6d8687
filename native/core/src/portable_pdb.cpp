#include "dotcov/portable_pdb.h"

#include <algorithm>
#include <cstring>

#include "dotcov/pe_image.h"  // InflateRaw

namespace dotcov {
namespace {

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

constexpr size_t kMaxDocumentNameSize = 64 * 1024;
constexpr uint32_t kMaxLine = 0x20000000;
constexpr uint32_t kMaxColumn = 0x10000;
constexpr uint32_t kMaxEmbeddedSourceSize = 256u << 20;

bool ReadBlobAt(Bytes heap, uint32_t index, Bytes* out) {
  *out = {};
  if (index == 0) return true;
  if (index >= heap.size()) return false;
  ByteReader r(heap);
  r.Seek(index);
  uint32_t len;
  if (!r.ReadCompressedU32(&len)) return false;
  *out = r.Take(len);
  return r.ok();
}

bool StartsWith(Bytes data, const char* prefix) {
  size_t n = std::strlen(prefix);
  return data.size() >= n && std::memcmp(data.data(), prefix, n) == 0;
}

}  // namespace

bool DecodeDocumentName(Bytes name_blob, Bytes blob_heap, std::string* out, std::string* error) {
  out->clear();
  ByteReader r(name_blob);
  if (r.remaining() == 0) return Fail(error, "document name blob is empty");
  uint8_t b0 = name_blob[0];
  size_t sep_len = 1;
  if (b0 >= 0x80) {
    if ((b0 & 0xE0) == 0xC0) sep_len = 2;
    else if ((b0 & 0xF0) == 0xE0) sep_len = 3;
    else if ((b0 & 0xF8) == 0xF0) sep_len = 4;
    else return Fail(error, "document name blob has an invalid separator");
  }
  Bytes sep_bytes = r.Take(sep_len);
  if (!r.ok()) return Fail(error, "document name blob is truncated (separator)");
  std::string_view sep = b0 == 0 ? std::string_view()
                                 : std::string_view(reinterpret_cast<const char*>(sep_bytes.data()), sep_len);
  bool first = true;
  while (r.remaining() > 0) {
    uint32_t part_index;
    if (!r.ReadCompressedU32(&part_index)) {
      out->clear();  // like every other failure: no partial name
      return Fail(error, "document name blob is truncated (part index)");
    }
    Bytes part;
    if (!ReadBlobAt(blob_heap, part_index, &part)) {
      out->clear();
      return Fail(error, "document name part refers to an invalid blob");
    }
    size_t added = part.size() + (first ? 0 : sep.size());
    if (out->size() + added > kMaxDocumentNameSize) {
      out->clear();
      return Fail(error, "document name is too long");
    }
    if (!first) out->append(sep);
    out->append(reinterpret_cast<const char*>(part.data()), part.size());
    first = false;
  }
  return true;
}

bool DecodeSequencePoints(Bytes blob, uint32_t document_column, std::vector<SequencePoint>* out,
                          std::string* error, uint32_t* local_signature) {
  out->clear();
  auto fail = [&](const char* message) {
    out->clear();
    return Fail(error, std::string("malformed sequence points: ") + message);
  };
  ByteReader r(blob);
  uint32_t local_sig;
  if (!r.ReadCompressedU32(&local_sig)) return fail("truncated header");
  if (local_signature) *local_signature = local_sig;
  uint32_t document = document_column;
  if (document == 0 && !r.ReadCompressedU32(&document)) return fail("truncated initial document");
  bool first = true;
  bool have_non_hidden = false;
  uint32_t il = 0;
  int64_t prev_line = 0, prev_column = 0;
  while (r.remaining() > 0) {
    uint32_t delta_il;
    if (!r.ReadCompressedU32(&delta_il)) return fail("truncated IL offset");
    if (!first && delta_il == 0) {
      if (!r.ReadCompressedU32(&document)) return fail("truncated document record");
      if (document == 0) return fail("document record with nil document");
      continue;
    }
    uint64_t next_il = first ? uint64_t(delta_il) : uint64_t(il) + delta_il;
    if (next_il >= kMaxLine) return fail("IL offset out of range");
    il = static_cast<uint32_t>(next_il);
    first = false;
    if (document == 0) return fail("sequence point without a document");

    uint32_t delta_lines;
    if (!r.ReadCompressedU32(&delta_lines)) return fail("truncated line delta");
    int64_t delta_columns;
    if (delta_lines == 0) {
      uint32_t v;
      if (!r.ReadCompressedU32(&v)) return fail("truncated column delta");
      delta_columns = v;
    } else {
      int32_t v;
      if (!r.ReadCompressedI32(&v)) return fail("truncated column delta");
      delta_columns = v;
    }
    SequencePoint sp;
    sp.il_offset = il;
    sp.document = document;
    if (delta_lines == 0 && delta_columns == 0) {
      sp.hidden = true;
      sp.start_line = sp.end_line = kHiddenSequencePointLine;
      sp.start_column = sp.end_column = 0;
      out->push_back(sp);
      continue;
    }
    int64_t start_line, start_column;
    if (!have_non_hidden) {
      uint32_t l, c;
      if (!r.ReadCompressedU32(&l) || !r.ReadCompressedU32(&c)) return fail("truncated start position");
      start_line = l;
      start_column = c;
    } else {
      int32_t dl, dc;
      if (!r.ReadCompressedI32(&dl) || !r.ReadCompressedI32(&dc)) return fail("truncated start position");
      start_line = prev_line + dl;
      start_column = prev_column + dc;
    }
    int64_t end_line = start_line + int64_t(delta_lines);
    int64_t end_column = start_column + delta_columns;
    if (start_line < 0 || start_line >= kMaxLine || start_line == kHiddenSequencePointLine || end_line >= kMaxLine ||
        end_line == kHiddenSequencePointLine)
      return fail("line out of range");
    if (start_column < 0 || start_column >= kMaxColumn || end_column < 0 || end_column >= kMaxColumn)
      return fail("column out of range");
    if (end_line == start_line && end_column <= start_column) return fail("span ends before it starts");
    have_non_hidden = true;
    prev_line = start_line;
    prev_column = start_column;
    sp.start_line = static_cast<uint32_t>(start_line);
    sp.start_column = static_cast<uint32_t>(start_column);
    sp.end_line = static_cast<uint32_t>(end_line);
    sp.end_column = static_cast<uint32_t>(end_column);
    out->push_back(sp);
  }
  return true;
}

std::optional<PortablePdb> PortablePdb::Parse(Bytes pdb, std::string* error) {
  try {
    return Parse(std::vector<uint8_t>(pdb.begin(), pdb.end()), error);
  } catch (...) {
    Fail(error, "out of memory while reading the PDB");
    return std::nullopt;
  }
}

std::optional<PortablePdb> PortablePdb::Parse(std::vector<uint8_t>&& pdb, std::string* error) {
  try {
    PortablePdb p;
    p.data_ = std::make_shared<const std::vector<uint8_t>>(std::move(pdb));
    if (!p.Init(error)) return std::nullopt;
    return p;
  } catch (...) {
    Fail(error, "out of memory while reading the PDB");
    return std::nullopt;
  }
}

bool PortablePdb::Init(std::string* error) {
  Bytes data(*data_);
  if (StartsWith(data, "Microsoft C/C++ MSF 7.00"))
    return Fail(error, "Windows PDB format is not supported; build with <DebugType>portable</DebugType>");
  if (!StartsWith(data, "BSJB")) return Fail(error, "not a Portable PDB (missing BSJB signature)");
  std::string why;
  md_ = MetadataReader::Parse(data, &why);
  if (!md_) return Fail(error, "invalid Portable PDB: " + why);
  if (!md_->pdb_stream()) return Fail(error, "invalid Portable PDB: no #Pdb stream");
  pdb_id_ = md_->pdb_stream()->pdb_id;
  entry_point_ = md_->pdb_stream()->entry_point;

  const TableId doc = TableId::kDocument;
  uint32_t n = md_->RowCount(doc);
  documents_.reserve(n);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    PdbDocument d;
    d.rid = rid;
    Bytes name_blob;
    if (!md_->TryGetBlob(md_->GetColumn(doc, rid, 0), &name_blob))
      return Fail(error, "invalid Portable PDB: document " + std::to_string(rid) + " has an invalid name");
    if (!DecodeDocumentName(name_blob, md_->blob_heap(), &d.name, &why))
      return Fail(error, "invalid Portable PDB: document " + std::to_string(rid) + ": " + why);
    if (auto g = md_->GetGuid(md_->GetColumn(doc, rid, 1))) d.hash_algorithm = *g;
    Bytes hash = md_->GetBlob(md_->GetColumn(doc, rid, 2));
    d.hash.assign(hash.begin(), hash.end());
    if (auto g = md_->GetGuid(md_->GetColumn(doc, rid, 3))) d.language = *g;
    documents_.push_back(std::move(d));
  }

  const TableId sm = TableId::kStateMachineMethod;
  uint32_t sm_rows = md_->RowCount(sm);
  for (uint32_t rid = 2; rid <= sm_rows && state_machine_sorted_; ++rid)
    state_machine_sorted_ = md_->GetColumn(sm, rid - 1, 0) < md_->GetColumn(sm, rid, 0);
  return true;
}

const PdbDocument* PortablePdb::document(uint32_t rid) const {
  if (rid == 0 || rid > documents_.size()) return nullptr;
  return &documents_[rid - 1];
}

uint32_t PortablePdb::method_count() const { return md_->RowCount(TableId::kMethodDebugInformation); }

bool PortablePdb::ReadSequencePoints(uint32_t method_rid, std::vector<SequencePoint>* out,
                                     std::string* error) const {
  out->clear();
  const TableId mdi = TableId::kMethodDebugInformation;
  if (method_rid == 0 || method_rid > md_->RowCount(mdi))
    return Fail(error, "method " + std::to_string(method_rid) + " has no debug information row");
  uint32_t document = md_->GetColumn(mdi, method_rid, 0);
  uint32_t blob_index = md_->GetColumn(mdi, method_rid, 1);
  if (blob_index == 0) return true;
  Bytes blob;
  if (!md_->TryGetBlob(blob_index, &blob))
    return Fail(error, "method " + std::to_string(method_rid) + ": sequence points blob index is invalid");
  std::string why;
  try {
    if (!DecodeSequencePoints(blob, document, out, &why))
      return Fail(error, "method " + std::to_string(method_rid) + ": " + why);
  } catch (...) {
    out->clear();
    return Fail(error, "out of memory while decoding sequence points");
  }
  for (const SequencePoint& sp : *out) {
    if (sp.document == 0 || sp.document > documents_.size()) {
      out->clear();
      return Fail(error, "method " + std::to_string(method_rid) + ": sequence point refers to a missing document");
    }
  }
  return true;
}

std::vector<SequencePoint> PortablePdb::SequencePoints(uint32_t method_rid) const {
  std::vector<SequencePoint> out;
  ReadSequencePoints(method_rid, &out, nullptr);
  return out;
}

uint32_t PortablePdb::StateMachineKickoff(uint32_t movenext_rid) const {
  const TableId sm = TableId::kStateMachineMethod;
  uint32_t n = md_->RowCount(sm);
  if (movenext_rid == 0 || n == 0) return 0;
  if (state_machine_sorted_) {
    uint32_t lo = 1, hi = n + 1;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (md_->GetColumn(sm, mid, 0) < movenext_rid) lo = mid + 1;
      else hi = mid;
    }
    if (lo <= n && md_->GetColumn(sm, lo, 0) == movenext_rid) return md_->GetColumn(sm, lo, 1);
    return 0;
  }
  for (uint32_t rid = 1; rid <= n; ++rid)
    if (md_->GetColumn(sm, rid, 0) == movenext_rid) return md_->GetColumn(sm, rid, 1);
  return 0;
}

std::optional<std::string> PortablePdb::SourceLinkJson() const {
  const TableId cdi = TableId::kCustomDebugInformation;
  uint32_t module_parent = *EncodeCodedIndex(CodedIndex::kHasCustomDebugInformation, MakeToken(TableId::kModule, 1));
  uint32_t n = md_->RowCount(cdi);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    if (md_->GetColumn(cdi, rid, 0) != module_parent) continue;
    auto kind = md_->GetGuid(md_->GetColumn(cdi, rid, 1));
    if (!kind || *kind != kSourceLinkKind) continue;
    Bytes value;
    if (!md_->TryGetBlob(md_->GetColumn(cdi, rid, 2), &value)) return std::nullopt;
    try {
      return std::string(reinterpret_cast<const char*>(value.data()), value.size());
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::string> PortablePdb::EmbeddedSource(uint32_t document_rid, std::string* error) const {
  const TableId cdi = TableId::kCustomDebugInformation;
  if (document_rid == 0 || document_rid > documents_.size()) {
    Fail(error, "no such document");
    return std::nullopt;
  }
  uint32_t parent = *EncodeCodedIndex(CodedIndex::kHasCustomDebugInformation, MakeToken(TableId::kDocument, document_rid));
  uint32_t n = md_->RowCount(cdi);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    if (md_->GetColumn(cdi, rid, 0) != parent) continue;
    auto kind = md_->GetGuid(md_->GetColumn(cdi, rid, 1));
    if (!kind || *kind != kEmbeddedSourceKind) continue;
    Bytes value;
    if (!md_->TryGetBlob(md_->GetColumn(cdi, rid, 2), &value)) {
      Fail(error, "embedded source blob index is invalid");
      return std::nullopt;
    }
    ByteReader r(value);
    uint32_t format_raw = r.U32();
    if (!r.ok()) {
      Fail(error, "embedded source blob is truncated");
      return std::nullopt;
    }
    int32_t format = static_cast<int32_t>(format_raw);
    Bytes content = r.Take(r.remaining());
    try {
      if (format == 0) return std::string(reinterpret_cast<const char*>(content.data()), content.size());
      if (format < 0 || uint32_t(format) > kMaxEmbeddedSourceSize) {
        Fail(error, "embedded source has an invalid size");
        return std::nullopt;
      }
      std::vector<uint8_t> inflated;
      std::string why;
      if (!InflateRaw(content, uint32_t(format), &inflated, &why)) {
        Fail(error, "embedded source cannot be decompressed: " + why);
        return std::nullopt;
      }
      return std::string(inflated.begin(), inflated.end());
    } catch (...) {
      Fail(error, "out of memory while reading embedded source");
      return std::nullopt;
    }
  }
  Fail(error, "document has no embedded source");
  return std::nullopt;
}

}  // namespace dotcov
