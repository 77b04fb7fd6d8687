// Fuzz target: ECMA-335 metadata reader. The input is a metadata root
// ("BSJB"). Parses it on its own and with external row counts (as for a
// standalone PDB), then reads every table, row and column, the heaps through
// the column values, and the conveniences (TypeDefs, MethodDefs, AssemblyRefs,
// CustomAttributes, full type names) over all rows.
#include <string>
#include <vector>

#include "dotcov/metadata.h"
#include "fuzz_common.h"

using namespace dotcov;
using dotcov::fuzz::Rng;
using dotcov::fuzz::Sink;
using dotcov::fuzz::Touch;
using dotcov::fuzz::Within;

namespace {

// Rows visited per table: all of them up to this many (keeps executions fast
// on inputs claiming many small rows; the readers' per-call costs are what
// matter, not the count).
constexpr uint32_t kMaxRowsPerTable = 512;

void Exercise(const MetadataReader& md, Bytes root) {
  FUZZ_CHECK(Within(md.tables_stream(), root));
  FUZZ_CHECK(Within(md.strings_heap(), root));
  FUZZ_CHECK(Within(md.user_strings_heap(), root));
  FUZZ_CHECK(Within(md.guid_heap(), root));
  FUZZ_CHECK(Within(md.blob_heap(), root));
  FUZZ_CHECK(Within(md.version_string(), root));
  Sink(Touch(md.version_string()) + md.heap_sizes() + md.valid_mask() + md.sorted_mask() + md.is_unoptimized());
  if (const auto& pdb = md.pdb_stream()) Sink(pdb->entry_point + pdb->referenced_type_system_tables);

  for (int t = 0; t < kMaxTables + 2; ++t) {
    const TableSchema* schema = GetTableSchema(static_cast<uint8_t>(t));
    uint32_t rows = md.RowCount(static_cast<uint8_t>(t));
    if (!schema) {
      FUZZ_CHECK(rows == 0 || t >= kMaxTables);
      continue;
    }
    const TableId id = static_cast<TableId>(t);
    const int columns = static_cast<int>(schema->columns.size());
    uint32_t row_size = md.RowSize(id);
    uint32_t sum = 0;
    for (int c = 0; c < columns; ++c) sum += md.ColumnSize(id, c);
    FUZZ_CHECK(sum == row_size);
    FUZZ_CHECK(md.ColumnSize(id, columns) == 0 && md.ColumnSize(id, -1) == 0);
    FUZZ_CHECK(md.Row(id, 0).empty() && md.Row(id, rows + 1).empty());
    for (uint32_t rid = 1; rid <= rows; ++rid) {
      if (rid > kMaxRowsPerTable && rid != rows) continue;  // the last row too
      Bytes row = md.Row(id, rid);
      FUZZ_CHECK(row.size() == row_size);
      FUZZ_CHECK(Within(row, md.tables_stream()));
      Sink(Touch(row));
      for (int c = -1; c <= columns; ++c) {
        uint32_t v = md.GetColumn(id, rid, c);
        uint32_t token = md.GetColumnToken(id, rid, c);
        Sink(v + token);
        if (c < 0 || c >= columns) continue;
        switch (schema->columns[c].kind) {
          case ColumnKind::kString: {
            std::string_view s = md.GetString(v);
            FUZZ_CHECK(Within(s, md.strings_heap()));
            Sink(Touch(s));
            break;
          }
          case ColumnKind::kGuid:
            if (auto g = md.GetGuid(v)) Sink(GuidToString(*g).size());
            break;
          case ColumnKind::kBlob: {
            Bytes b;
            bool ok = md.TryGetBlob(v, &b);
            FUZZ_CHECK(ok || b.empty());
            FUZZ_CHECK(Within(b, md.blob_heap()));
            Sink(Touch(b) + md.GetBlob(v).size());
            break;
          }
          case ColumnKind::kCoded:
          case ColumnKind::kTable:
            Sink(md.TypeFullName(token).size());
            break;
          default:
            break;
        }
      }
    }
  }

  // Heaps at arbitrary indexes.
  Rng rng(root);
  for (int i = 0; i < 16; ++i) {
    uint32_t index = i < 8 ? rng.Below(static_cast<uint32_t>(root.size()) + 8) : static_cast<uint32_t>(rng.Next());
    Sink(Touch(md.GetString(index)) + Touch(md.GetBlob(index)));
    if (auto us = md.GetUserString(index)) Sink(us->size());
    if (auto g = md.GetGuid(index)) Sink((*g)[0]);
  }

  if (auto mvid = md.ModuleMvid()) Sink(GuidToString(*mvid).size());
  Sink(Touch(md.ModuleName()) + md.AssemblyName().size());
  if (auto a = md.Assembly()) Sink(a->name.size() + a->version.ToString().size() + a->public_key.size());
  for (const AssemblyRefInfo& r : md.AssemblyRefs()) Sink(r.name.size() + r.public_key_or_token.size());

  const uint32_t type_rows = md.RowCount(TableId::kTypeDef);
  const uint32_t method_rows = md.RowCount(TableId::kMethodDef);
  std::vector<TypeDefInfo> types = md.TypeDefs();
  FUZZ_CHECK(types.size() == type_rows);
  uint32_t prev_end = 1;
  for (const TypeDefInfo& t : types) {
    FUZZ_CHECK(t.first_method >= prev_end && t.end_method >= t.first_method);
    prev_end = t.end_method;
  }
  std::vector<MethodDefInfo> methods = md.MethodDefs();
  FUZZ_CHECK(methods.size() == method_rows);
  for (const MethodDefInfo& m : methods) {
    FUZZ_CHECK(m.declaring_type <= type_rows);
    FUZZ_CHECK(Within(m.signature, md.blob_heap()));
    Sink(Touch(m.signature));
  }
  auto nested = md.NestedClassMap();
  Sink(nested.size());
  for (uint32_t rid = 0; rid <= type_rows + 1 && rid <= kMaxRowsPerTable; ++rid) {
    Sink(md.EnclosingType(rid) + md.TypeDefFullName(rid).size());
    Sink(md.TypeFullName(MakeToken(TableId::kTypeDef, rid)).size());
  }
  for (uint32_t rid = 0; rid <= method_rows + 1 && rid <= kMaxRowsPerTable; ++rid) {
    uint32_t owner = md.DeclaringType(rid);
    FUZZ_CHECK(owner <= type_rows);
    Sink(owner);
  }
  for (TableId id : {TableId::kTypeRef, TableId::kTypeSpec}) {
    const uint8_t table = static_cast<uint8_t>(id);
    uint32_t rows = md.RowCount(table);
    for (uint32_t rid = 0; rid <= rows + 1 && rid <= kMaxRowsPerTable; ++rid) {
      Sink(md.TypeFullName(MakeToken(static_cast<TableId>(table), rid)).size());
      if (table == uint8_t(TableId::kTypeRef)) Sink(md.TypeRefFullName(rid).size());
    }
  }

  // Custom attributes of every row of every table that can carry them (total
  // rows bounded; each call may scan the CustomAttribute table).
  uint32_t budget = 4096;
  for (uint8_t table : CodedIndexTables(CodedIndex::kHasCustomAttribute)) {
    if (table == 0xFF) continue;
    uint32_t rows = md.RowCount(table);
    for (uint32_t rid = 1; rid <= rows && budget > 0; ++rid, --budget) {
      uint32_t token = MakeToken(static_cast<TableId>(table), rid);
      for (const CustomAttributeInfo& a : md.CustomAttributes(token)) {
        FUZZ_CHECK(Within(a.value, md.blob_heap()));
        Sink(Touch(a.value) + a.type_name.size() + a.type);
      }
      Sink(md.HasCustomAttribute(token, "System.Diagnostics.CodeAnalysis.ExcludeFromCodeCoverageAttribute"));
    }
  }
}

}  // namespace

// Table ids outside the 64 table slots (e.g. the 0x70 of a user-string token)
// are answered as empty, never looked up.
void OutOfRangeTables(const MetadataReader& md) {
  for (int t : {0x2D, 0x3F, 0x40, 0x70, 0xFF}) {
    const TableId id = static_cast<TableId>(t);
    FUZZ_CHECK(t < kMaxTables || (md.RowCount(id) == 0 && md.RowSize(id) == 0 && md.ColumnSize(id, 0) == 0));
    FUZZ_CHECK(md.Row(id, 1).empty() && md.GetColumn(id, 1, 0) == 0 && md.GetColumnToken(id, 1, 0) == 0);
    FUZZ_CHECK(md.TypeFullName(MakeToken(id, 1)).empty() && md.CustomAttributes(MakeToken(id, 1)).empty());
  }
}

// Coded indexes: whatever encodes decodes back to the same token.
void CodedIndexRoundTrip(Rng& rng) {
  for (int kind = 0; kind <= static_cast<int>(CodedIndex::kHasCustomDebugInformation); ++kind) {
    const CodedIndex k = static_cast<CodedIndex>(kind);
    for (int i = 0; i < 4; ++i) {
      uint32_t token = static_cast<uint32_t>(rng.Next());
      if (i == 0) token = (token & 0x00FFFFFF) | 0xFF000000u;
      if (auto raw = EncodeCodedIndex(k, token)) FUZZ_CHECK(DecodeCodedIndex(k, *raw) == token);
      uint32_t decoded = DecodeCodedIndex(k, static_cast<uint32_t>(rng.Next() >> 32));
      if (decoded != 0) {
        auto again = EncodeCodedIndex(k, decoded);
        FUZZ_CHECK(again.has_value() && DecodeCodedIndex(k, *again) == decoded);
      }
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes root(data, size);
  std::string error;
  if (auto md = MetadataReader::Parse(root, &error)) {
    FUZZ_CHECK(md->root().data() == data);
    Exercise(*md, root);
    OutOfRangeTables(*md);
  } else {
    FUZZ_CHECK(!error.empty());
  }
  // As the type-system side of a standalone PDB: external row counts that may
  // widen the index columns.
  Rng rng(root);
  MetadataReader::RowCounts ext{};
  for (auto& n : ext) {
    uint64_t r = rng.Next();
    n = (r & 3) == 0 ? 0x10000u + static_cast<uint32_t>(r >> 40) : static_cast<uint32_t>(r >> 60);
  }
  if (auto md = MetadataReader::Parse(root, &error, &ext)) Exercise(*md, root);
  CodedIndexRoundTrip(rng);
  return 0;
}
