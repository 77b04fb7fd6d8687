// ECMA-335 metadata reader (Partition II §22, §24) including the Portable PDB
// debug tables 0x30-0x37. Works over an untrusted metadata root ("BSJB") and
// never reads out of bounds. A MetadataReader does NOT own its bytes: the span
// given to Parse must outlive it and everything it returns as Bytes or
// std::string_view.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

using Guid = std::array<uint8_t, 16>;

// Formats a GUID stored in the Microsoft byte layout (Data1..3 little-endian)
// as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower case).
std::string GuidToString(const Guid& guid);
// Inverse of GuidToString (accepts upper or lower case, optional braces).
std::optional<Guid> ParseGuid(std::string_view text);

enum class TableId : uint8_t {
  kModule = 0x00,
  kTypeRef = 0x01,
  kTypeDef = 0x02,
  kFieldPtr = 0x03,
  kField = 0x04,
  kMethodPtr = 0x05,
  kMethodDef = 0x06,
  kParamPtr = 0x07,
  kParam = 0x08,
  kInterfaceImpl = 0x09,
  kMemberRef = 0x0A,
  kConstant = 0x0B,
  kCustomAttribute = 0x0C,
  kFieldMarshal = 0x0D,
  kDeclSecurity = 0x0E,
  kClassLayout = 0x0F,
  kFieldLayout = 0x10,
  kStandAloneSig = 0x11,
  kEventMap = 0x12,
  kEventPtr = 0x13,
  kEvent = 0x14,
  kPropertyMap = 0x15,
  kPropertyPtr = 0x16,
  kProperty = 0x17,
  kMethodSemantics = 0x18,
  kMethodImpl = 0x19,
  kModuleRef = 0x1A,
  kTypeSpec = 0x1B,
  kImplMap = 0x1C,
  kFieldRva = 0x1D,
  kEncLog = 0x1E,
  kEncMap = 0x1F,
  kAssembly = 0x20,
  kAssemblyProcessor = 0x21,
  kAssemblyOs = 0x22,
  kAssemblyRef = 0x23,
  kAssemblyRefProcessor = 0x24,
  kAssemblyRefOs = 0x25,
  kFile = 0x26,
  kExportedType = 0x27,
  kManifestResource = 0x28,
  kNestedClass = 0x29,
  kGenericParam = 0x2A,
  kMethodSpec = 0x2B,
  kGenericParamConstraint = 0x2C,
  // Portable PDB
  kDocument = 0x30,
  kMethodDebugInformation = 0x31,
  kLocalScope = 0x32,
  kLocalVariable = 0x33,
  kLocalConstant = 0x34,
  kImportScope = 0x35,
  kStateMachineMethod = 0x36,
  kCustomDebugInformation = 0x37,
};
inline constexpr int kMaxTables = 64;
inline constexpr int kMaxColumns = 9;

// Coded index kinds (ECMA-335 II.24.2.6 plus the Portable PDB one).
enum class CodedIndex : uint8_t {
  kTypeDefOrRef,
  kHasConstant,
  kHasCustomAttribute,
  kHasFieldMarshal,
  kHasDeclSecurity,
  kMemberRefParent,
  kHasSemantics,
  kMethodDefOrRef,
  kMemberForwarded,
  kImplementation,
  kCustomAttributeType,
  kResolutionScope,
  kTypeOrMethodDef,
  kHasCustomDebugInformation,
};

enum class ColumnKind : uint8_t {
  kU16,    // fixed 2 bytes (also Constant.Type: 1 byte + 1 padding byte)
  kU32,    // fixed 4 bytes
  kString, // #Strings index
  kGuid,   // #GUID index (1-based)
  kBlob,   // #Blob index
  kTable,  // simple index into table `arg`
  kCoded,  // coded index of kind `arg`
};

struct ColumnSchema {
  ColumnKind kind;
  uint8_t arg;  // TableId for kTable, CodedIndex for kCoded
  const char* name;
};

struct TableSchema {
  const char* name;
  std::span<const ColumnSchema> columns;
};

// Schema of a table, or nullptr for tables that are not defined (0x2D-0x2F,
// 0x38-0x3F).
const TableSchema* GetTableSchema(uint8_t table);
// The tables a coded index may refer to, in tag order (0xFF = unused tag),
// and its tag width in bits.
std::span<const uint8_t> CodedIndexTables(CodedIndex kind);
int CodedIndexTagBits(CodedIndex kind);
// Decodes a raw coded index value into a metadata token (table << 24 | rid).
// Returns 0 for an invalid tag; a nil reference decodes to a token with rid 0.
uint32_t DecodeCodedIndex(CodedIndex kind, uint32_t raw);
// Encodes a token as a coded index of `kind`; std::nullopt if the token's
// table is not part of that coded index.
std::optional<uint32_t> EncodeCodedIndex(CodedIndex kind, uint32_t token);

constexpr uint32_t MakeToken(TableId table, uint32_t rid) { return (uint32_t(table) << 24) | (rid & 0x00FFFFFF); }
constexpr uint8_t TokenTable(uint32_t token) { return static_cast<uint8_t>(token >> 24); }
constexpr uint32_t TokenRid(uint32_t token) { return token & 0x00FFFFFF; }

// Contents of the #Pdb stream of a standalone Portable PDB.
struct PdbStreamHeader {
  std::array<uint8_t, 20> pdb_id{};
  uint32_t entry_point = 0;  // MethodDef token or 0
  uint64_t referenced_type_system_tables = 0;
  std::array<uint32_t, kMaxTables> type_system_row_counts{};
};

struct AssemblyVersion {
  uint16_t major = 0, minor = 0, build = 0, revision = 0;
  std::string ToString() const;  // "1.2.3.4"
};

struct AssemblyInfo {
  std::string name;
  AssemblyVersion version;
  std::string culture;
  std::vector<uint8_t> public_key;
  uint32_t flags = 0;
  uint32_t hash_algorithm = 0;
};

struct AssemblyRefInfo {
  uint32_t rid = 0;
  std::string name;
  AssemblyVersion version;
  std::string culture;
  // A full public key if (flags & 1), otherwise an 8-byte token (or empty).
  std::vector<uint8_t> public_key_or_token;
  uint32_t flags = 0;
};

struct TypeDefInfo {
  uint32_t rid = 0;
  std::string name;
  std::string name_space;
  uint32_t flags = 0;
  uint32_t extends = 0;  // TypeDef/TypeRef/TypeSpec token, or 0
  // The type's methods are MethodDef rids [first_method, end_method) (after
  // resolving the MethodPtr indirection of unoptimised metadata, the range is
  // of MethodPtr rows; use MethodDefs().declaring_type instead in that case).
  uint32_t first_method = 0;
  uint32_t end_method = 0;
  uint32_t enclosing_type = 0;  // TypeDef rid of the enclosing type, 0 if not nested
};

struct MethodDefInfo {
  uint32_t rid = 0;
  std::string name;
  uint16_t flags = 0;
  uint16_t impl_flags = 0;
  uint32_t rva = 0;
  Bytes signature;
  uint32_t declaring_type = 0;  // TypeDef rid, 0 if unknown
};

struct CustomAttributeInfo {
  uint32_t rid = 0;
  uint32_t parent = 0;       // token
  uint32_t constructor = 0;  // MethodDef or MemberRef token
  uint32_t type = 0;         // TypeDef/TypeRef/TypeSpec token of the attribute type, or 0
  std::string type_name;     // e.g. "System.Diagnostics.CodeAnalysis.ExcludeFromCodeCoverageAttribute"
  Bytes value;
};

class MetadataReader {
 public:
  using RowCounts = std::array<uint32_t, kMaxTables>;

  // Parses a metadata root. `external_row_counts`, if given, supplies row
  // counts of tables not present in this metadata that its columns reference
  // (the type-system tables referenced by a standalone PDB). If it is null and
  // the metadata has a #Pdb stream, the #Pdb stream's counts are used.
  static std::optional<MetadataReader> Parse(Bytes root, std::string* error,
                                             const RowCounts* external_row_counts = nullptr);

  Bytes root() const { return root_; }
  std::string_view version_string() const { return version_; }
  uint8_t heap_sizes() const { return heap_sizes_; }
  uint64_t valid_mask() const { return valid_; }
  uint64_t sorted_mask() const { return sorted_; }
  bool is_unoptimized() const { return uncompressed_; }  // "#-" tables stream
  Bytes tables_stream() const { return tables_; }
  Bytes strings_heap() const { return strings_; }
  Bytes user_strings_heap() const { return us_; }
  Bytes guid_heap() const { return guids_; }
  Bytes blob_heap() const { return blobs_; }
  const std::optional<PdbStreamHeader>& pdb_stream() const { return pdb_; }

  // Rows present in this metadata.
  uint32_t RowCount(TableId table) const { return RowCount(static_cast<uint8_t>(table)); }
  uint32_t RowCount(uint8_t table) const { return table < kMaxTables ? tables_info_[table].rows : 0; }
  const RowCounts& row_counts() const { return rows_; }
  uint32_t RowSize(TableId table) const {
    return uint8_t(table) < kMaxTables ? tables_info_[uint8_t(table)].row_size : 0;
  }
  uint32_t ColumnSize(TableId table, int column) const;

  // Raw bytes of row `rid` (1-based); empty if out of range.
  Bytes Row(TableId table, uint32_t rid) const;
  // Raw value of a column (heap index, table rid, coded index, or constant);
  // 0 if the table, rid or column is out of range.
  uint32_t GetColumn(TableId table, uint32_t rid, int column) const;
  // A coded-index or simple-index column decoded into a token.
  uint32_t GetColumnToken(TableId table, uint32_t rid, int column) const;

  // Heap accessors. Invalid indexes give "" / std::nullopt / empty.
  std::string_view GetString(uint32_t index) const;
  std::optional<Guid> GetGuid(uint32_t index) const;  // 1-based; 0 = nil -> nullopt
  Bytes GetBlob(uint32_t index) const;
  bool TryGetBlob(uint32_t index, Bytes* out) const;
  std::optional<std::u16string> GetUserString(uint32_t index) const;

  // ---- Conveniences for the type-system tables ----
  std::optional<Guid> ModuleMvid() const;
  std::string_view ModuleName() const;
  std::optional<AssemblyInfo> Assembly() const;
  std::string AssemblyName() const;  // "" when the module has no Assembly row
  std::vector<AssemblyRefInfo> AssemblyRefs() const;
  std::vector<TypeDefInfo> TypeDefs() const;
  std::vector<MethodDefInfo> MethodDefs() const;
  // nested TypeDef rid -> enclosing TypeDef rid.
  std::unordered_map<uint32_t, uint32_t> NestedClassMap() const;
  uint32_t EnclosingType(uint32_t typedef_rid) const;  // 0 if not nested
  // TypeDef rid owning a MethodDef rid (0 if unknown).
  uint32_t DeclaringType(uint32_t methoddef_rid) const;
  // "Namespace.Name", nested types as "Namespace.Outer/Inner".
  std::string TypeDefFullName(uint32_t typedef_rid) const;
  std::string TypeRefFullName(uint32_t typeref_rid) const;
  // Full name of a TypeDef/TypeRef/TypeSpec (generic instantiation -> its
  // generic type definition's name) token; "" if unknown.
  std::string TypeFullName(uint32_t token) const;
  // Custom attributes attached to `token` (any HasCustomAttribute table).
  std::vector<CustomAttributeInfo> CustomAttributes(uint32_t token) const;
  bool HasCustomAttribute(uint32_t token, std::string_view attribute_full_name) const;

 private:
  struct TableInfo {
    uint32_t rows = 0;
    uint32_t row_size = 0;
    size_t offset = 0;  // within tables_
    uint8_t column_offset[kMaxColumns] = {};
    uint8_t column_size[kMaxColumns] = {};
    uint8_t columns = 0;
  };
  CustomAttributeInfo ReadCustomAttribute(uint32_t rid) const;
  std::string TypeRefFullNameDepth(uint32_t rid, int depth) const;
  std::string TypeDefFullNameDepth(uint32_t rid, int depth) const;
  // Range [lo, hi) of rows of a table sorted on `column` whose value equals `value`.
  std::pair<uint32_t, uint32_t> EqualRange(TableId table, int column, uint32_t value) const;

  Bytes root_;
  std::string_view version_;
  Bytes tables_, strings_, us_, guids_, blobs_;
  std::optional<PdbStreamHeader> pdb_;
  bool uncompressed_ = false;
  uint8_t heap_sizes_ = 0;
  uint64_t valid_ = 0, sorted_ = 0;
  RowCounts rows_{};
  std::array<TableInfo, kMaxTables> tables_info_{};

};

}  // namespace dotcov
