#include "dotcov/metadata.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace dotcov {
namespace {

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

std::string Hex2(uint8_t v) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02X", v);
  return buf;
}

// ---- Schema (ECMA-335 II.22, Portable PDB spec) ----

#define C_U16(n) {ColumnKind::kU16, 0, n}
#define C_U32(n) {ColumnKind::kU32, 0, n}
#define C_STR(n) {ColumnKind::kString, 0, n}
#define C_GUID(n) {ColumnKind::kGuid, 0, n}
#define C_BLOB(n) {ColumnKind::kBlob, 0, n}
#define C_TBL(t, n) {ColumnKind::kTable, uint8_t(TableId::t), n}
#define C_CODED(c, n) {ColumnKind::kCoded, uint8_t(CodedIndex::c), n}

constexpr ColumnSchema kModule[] = {C_U16("Generation"), C_STR("Name"), C_GUID("Mvid"), C_GUID("EncId"),
                                    C_GUID("EncBaseId")};
constexpr ColumnSchema kTypeRef[] = {C_CODED(kResolutionScope, "ResolutionScope"), C_STR("TypeName"),
                                     C_STR("TypeNamespace")};
constexpr ColumnSchema kTypeDef[] = {C_U32("Flags"),
                                     C_STR("TypeName"),
                                     C_STR("TypeNamespace"),
                                     C_CODED(kTypeDefOrRef, "Extends"),
                                     C_TBL(kField, "FieldList"),
                                     C_TBL(kMethodDef, "MethodList")};
constexpr ColumnSchema kFieldPtr[] = {C_TBL(kField, "Field")};
constexpr ColumnSchema kField[] = {C_U16("Flags"), C_STR("Name"), C_BLOB("Signature")};
constexpr ColumnSchema kMethodPtr[] = {C_TBL(kMethodDef, "Method")};
constexpr ColumnSchema kMethodDef[] = {C_U32("RVA"),  C_U16("ImplFlags"),      C_U16("Flags"),
                                       C_STR("Name"), C_BLOB("Signature"), C_TBL(kParam, "ParamList")};
constexpr ColumnSchema kParamPtr[] = {C_TBL(kParam, "Param")};
constexpr ColumnSchema kParam[] = {C_U16("Flags"), C_U16("Sequence"), C_STR("Name")};
constexpr ColumnSchema kInterfaceImpl[] = {C_TBL(kTypeDef, "Class"), C_CODED(kTypeDefOrRef, "Interface")};
constexpr ColumnSchema kMemberRef[] = {C_CODED(kMemberRefParent, "Class"), C_STR("Name"), C_BLOB("Signature")};
constexpr ColumnSchema kConstant[] = {C_U16("Type"), C_CODED(kHasConstant, "Parent"), C_BLOB("Value")};
constexpr ColumnSchema kCustomAttribute[] = {C_CODED(kHasCustomAttribute, "Parent"),
                                             C_CODED(kCustomAttributeType, "Type"), C_BLOB("Value")};
constexpr ColumnSchema kFieldMarshal[] = {C_CODED(kHasFieldMarshal, "Parent"), C_BLOB("NativeType")};
constexpr ColumnSchema kDeclSecurity[] = {C_U16("Action"), C_CODED(kHasDeclSecurity, "Parent"),
                                          C_BLOB("PermissionSet")};
constexpr ColumnSchema kClassLayout[] = {C_U16("PackingSize"), C_U32("ClassSize"), C_TBL(kTypeDef, "Parent")};
constexpr ColumnSchema kFieldLayout[] = {C_U32("Offset"), C_TBL(kField, "Field")};
constexpr ColumnSchema kStandAloneSig[] = {C_BLOB("Signature")};
constexpr ColumnSchema kEventMap[] = {C_TBL(kTypeDef, "Parent"), C_TBL(kEvent, "EventList")};
constexpr ColumnSchema kEventPtr[] = {C_TBL(kEvent, "Event")};
constexpr ColumnSchema kEvent[] = {C_U16("EventFlags"), C_STR("Name"), C_CODED(kTypeDefOrRef, "EventType")};
constexpr ColumnSchema kPropertyMap[] = {C_TBL(kTypeDef, "Parent"), C_TBL(kProperty, "PropertyList")};
constexpr ColumnSchema kPropertyPtr[] = {C_TBL(kProperty, "Property")};
constexpr ColumnSchema kProperty[] = {C_U16("Flags"), C_STR("Name"), C_BLOB("Type")};
constexpr ColumnSchema kMethodSemantics[] = {C_U16("Semantics"), C_TBL(kMethodDef, "Method"),
                                             C_CODED(kHasSemantics, "Association")};
constexpr ColumnSchema kMethodImpl[] = {C_TBL(kTypeDef, "Class"), C_CODED(kMethodDefOrRef, "MethodBody"),
                                        C_CODED(kMethodDefOrRef, "MethodDeclaration")};
constexpr ColumnSchema kModuleRef[] = {C_STR("Name")};
constexpr ColumnSchema kTypeSpec[] = {C_BLOB("Signature")};
constexpr ColumnSchema kImplMap[] = {C_U16("MappingFlags"), C_CODED(kMemberForwarded, "MemberForwarded"),
                                     C_STR("ImportName"), C_TBL(kModuleRef, "ImportScope")};
constexpr ColumnSchema kFieldRva[] = {C_U32("RVA"), C_TBL(kField, "Field")};
constexpr ColumnSchema kEncLog[] = {C_U32("Token"), C_U32("FuncCode")};
constexpr ColumnSchema kEncMap[] = {C_U32("Token")};
constexpr ColumnSchema kAssembly[] = {C_U32("HashAlgId"),   C_U16("MajorVersion"), C_U16("MinorVersion"),
                                      C_U16("BuildNumber"), C_U16("RevisionNumber"), C_U32("Flags"),
                                      C_BLOB("PublicKey"),  C_STR("Name"),         C_STR("Culture")};
constexpr ColumnSchema kAssemblyProcessor[] = {C_U32("Processor")};
constexpr ColumnSchema kAssemblyOs[] = {C_U32("OSPlatformID"), C_U32("OSMajorVersion"), C_U32("OSMinorVersion")};
constexpr ColumnSchema kAssemblyRef[] = {C_U16("MajorVersion"),      C_U16("MinorVersion"), C_U16("BuildNumber"),
                                         C_U16("RevisionNumber"),    C_U32("Flags"),        C_BLOB("PublicKeyOrToken"),
                                         C_STR("Name"),              C_STR("Culture"),      C_BLOB("HashValue")};
constexpr ColumnSchema kAssemblyRefProcessor[] = {C_U32("Processor"), C_TBL(kAssemblyRef, "AssemblyRef")};
constexpr ColumnSchema kAssemblyRefOs[] = {C_U32("OSPlatformId"), C_U32("OSMajorVersion"), C_U32("OSMinorVersion"),
                                           C_TBL(kAssemblyRef, "AssemblyRef")};
constexpr ColumnSchema kFile[] = {C_U32("Flags"), C_STR("Name"), C_BLOB("HashValue")};
constexpr ColumnSchema kExportedType[] = {C_U32("Flags"), C_U32("TypeDefId"), C_STR("TypeName"),
                                          C_STR("TypeNamespace"), C_CODED(kImplementation, "Implementation")};
constexpr ColumnSchema kManifestResource[] = {C_U32("Offset"), C_U32("Flags"), C_STR("Name"),
                                              C_CODED(kImplementation, "Implementation")};
constexpr ColumnSchema kNestedClass[] = {C_TBL(kTypeDef, "NestedClass"), C_TBL(kTypeDef, "EnclosingClass")};
constexpr ColumnSchema kGenericParam[] = {C_U16("Number"), C_U16("Flags"), C_CODED(kTypeOrMethodDef, "Owner"),
                                          C_STR("Name")};
constexpr ColumnSchema kMethodSpec[] = {C_CODED(kMethodDefOrRef, "Method"), C_BLOB("Instantiation")};
constexpr ColumnSchema kGenericParamConstraint[] = {C_TBL(kGenericParam, "Owner"),
                                                    C_CODED(kTypeDefOrRef, "Constraint")};
constexpr ColumnSchema kDocument[] = {C_BLOB("Name"), C_GUID("HashAlgorithm"), C_BLOB("Hash"), C_GUID("Language")};
constexpr ColumnSchema kMethodDebugInformation[] = {C_TBL(kDocument, "Document"), C_BLOB("SequencePoints")};
constexpr ColumnSchema kLocalScope[] = {C_TBL(kMethodDef, "Method"),        C_TBL(kImportScope, "ImportScope"),
                                        C_TBL(kLocalVariable, "VariableList"), C_TBL(kLocalConstant, "ConstantList"),
                                        C_U32("StartOffset"),               C_U32("Length")};
constexpr ColumnSchema kLocalVariable[] = {C_U16("Attributes"), C_U16("Index"), C_STR("Name")};
constexpr ColumnSchema kLocalConstant[] = {C_STR("Name"), C_BLOB("Signature")};
constexpr ColumnSchema kImportScope[] = {C_TBL(kImportScope, "Parent"), C_BLOB("Imports")};
constexpr ColumnSchema kStateMachineMethod[] = {C_TBL(kMethodDef, "MoveNextMethod"), C_TBL(kMethodDef, "KickoffMethod")};
constexpr ColumnSchema kCustomDebugInformation[] = {C_CODED(kHasCustomDebugInformation, "Parent"), C_GUID("Kind"),
                                                    C_BLOB("Value")};

struct SchemaTable {
  std::array<TableSchema, kMaxTables> t{};
  std::array<bool, kMaxTables> defined{};
  SchemaTable() {
    auto set = [&](TableId id, const char* name, std::span<const ColumnSchema> cols) {
      t[uint8_t(id)] = TableSchema{name, cols};
      defined[uint8_t(id)] = true;
    };
    set(TableId::kModule, "Module", kModule);
    set(TableId::kTypeRef, "TypeRef", kTypeRef);
    set(TableId::kTypeDef, "TypeDef", kTypeDef);
    set(TableId::kFieldPtr, "FieldPtr", kFieldPtr);
    set(TableId::kField, "Field", kField);
    set(TableId::kMethodPtr, "MethodPtr", kMethodPtr);
    set(TableId::kMethodDef, "MethodDef", kMethodDef);
    set(TableId::kParamPtr, "ParamPtr", kParamPtr);
    set(TableId::kParam, "Param", kParam);
    set(TableId::kInterfaceImpl, "InterfaceImpl", kInterfaceImpl);
    set(TableId::kMemberRef, "MemberRef", kMemberRef);
    set(TableId::kConstant, "Constant", kConstant);
    set(TableId::kCustomAttribute, "CustomAttribute", kCustomAttribute);
    set(TableId::kFieldMarshal, "FieldMarshal", kFieldMarshal);
    set(TableId::kDeclSecurity, "DeclSecurity", kDeclSecurity);
    set(TableId::kClassLayout, "ClassLayout", kClassLayout);
    set(TableId::kFieldLayout, "FieldLayout", kFieldLayout);
    set(TableId::kStandAloneSig, "StandAloneSig", kStandAloneSig);
    set(TableId::kEventMap, "EventMap", kEventMap);
    set(TableId::kEventPtr, "EventPtr", kEventPtr);
    set(TableId::kEvent, "Event", kEvent);
    set(TableId::kPropertyMap, "PropertyMap", kPropertyMap);
    set(TableId::kPropertyPtr, "PropertyPtr", kPropertyPtr);
    set(TableId::kProperty, "Property", kProperty);
    set(TableId::kMethodSemantics, "MethodSemantics", kMethodSemantics);
    set(TableId::kMethodImpl, "MethodImpl", kMethodImpl);
    set(TableId::kModuleRef, "ModuleRef", kModuleRef);
    set(TableId::kTypeSpec, "TypeSpec", kTypeSpec);
    set(TableId::kImplMap, "ImplMap", kImplMap);
    set(TableId::kFieldRva, "FieldRVA", kFieldRva);
    set(TableId::kEncLog, "EncLog", kEncLog);
    set(TableId::kEncMap, "EncMap", kEncMap);
    set(TableId::kAssembly, "Assembly", kAssembly);
    set(TableId::kAssemblyProcessor, "AssemblyProcessor", kAssemblyProcessor);
    set(TableId::kAssemblyOs, "AssemblyOS", kAssemblyOs);
    set(TableId::kAssemblyRef, "AssemblyRef", kAssemblyRef);
    set(TableId::kAssemblyRefProcessor, "AssemblyRefProcessor", kAssemblyRefProcessor);
    set(TableId::kAssemblyRefOs, "AssemblyRefOS", kAssemblyRefOs);
    set(TableId::kFile, "File", kFile);
    set(TableId::kExportedType, "ExportedType", kExportedType);
    set(TableId::kManifestResource, "ManifestResource", kManifestResource);
    set(TableId::kNestedClass, "NestedClass", kNestedClass);
    set(TableId::kGenericParam, "GenericParam", kGenericParam);
    set(TableId::kMethodSpec, "MethodSpec", kMethodSpec);
    set(TableId::kGenericParamConstraint, "GenericParamConstraint", kGenericParamConstraint);
    set(TableId::kDocument, "Document", kDocument);
    set(TableId::kMethodDebugInformation, "MethodDebugInformation", kMethodDebugInformation);
    set(TableId::kLocalScope, "LocalScope", kLocalScope);
    set(TableId::kLocalVariable, "LocalVariable", kLocalVariable);
    set(TableId::kLocalConstant, "LocalConstant", kLocalConstant);
    set(TableId::kImportScope, "ImportScope", kImportScope);
    set(TableId::kStateMachineMethod, "StateMachineMethod", kStateMachineMethod);
    set(TableId::kCustomDebugInformation, "CustomDebugInformation", kCustomDebugInformation);
  }
};

const SchemaTable& Schemas() {
  static const SchemaTable schemas;
  return schemas;
}

constexpr uint8_t kUnused = 0xFF;
#define T(x) uint8_t(TableId::x)
constexpr uint8_t kTypeDefOrRefTables[] = {T(kTypeDef), T(kTypeRef), T(kTypeSpec)};
constexpr uint8_t kHasConstantTables[] = {T(kField), T(kParam), T(kProperty)};
constexpr uint8_t kHasCustomAttributeTables[] = {
    T(kMethodDef),    T(kField),        T(kTypeRef),          T(kTypeDef),
    T(kParam),        T(kInterfaceImpl), T(kMemberRef),       T(kModule),
    T(kDeclSecurity), T(kProperty),     T(kEvent),            T(kStandAloneSig),
    T(kModuleRef),    T(kTypeSpec),     T(kAssembly),         T(kAssemblyRef),
    T(kFile),         T(kExportedType), T(kManifestResource), T(kGenericParam),
    T(kGenericParamConstraint), T(kMethodSpec)};
constexpr uint8_t kHasFieldMarshalTables[] = {T(kField), T(kParam)};
constexpr uint8_t kHasDeclSecurityTables[] = {T(kTypeDef), T(kMethodDef), T(kAssembly)};
constexpr uint8_t kMemberRefParentTables[] = {T(kTypeDef), T(kTypeRef), T(kModuleRef), T(kMethodDef), T(kTypeSpec)};
constexpr uint8_t kHasSemanticsTables[] = {T(kEvent), T(kProperty)};
constexpr uint8_t kMethodDefOrRefTables[] = {T(kMethodDef), T(kMemberRef)};
constexpr uint8_t kMemberForwardedTables[] = {T(kField), T(kMethodDef)};
constexpr uint8_t kImplementationTables[] = {T(kFile), T(kAssemblyRef), T(kExportedType)};
constexpr uint8_t kCustomAttributeTypeTables[] = {kUnused, kUnused, T(kMethodDef), T(kMemberRef), kUnused};
constexpr uint8_t kResolutionScopeTables[] = {T(kModule), T(kModuleRef), T(kAssemblyRef), T(kTypeRef)};
constexpr uint8_t kTypeOrMethodDefTables[] = {T(kTypeDef), T(kMethodDef)};
constexpr uint8_t kHasCustomDebugInformationTables[] = {
    T(kMethodDef),    T(kField),        T(kTypeRef),          T(kTypeDef),
    T(kParam),        T(kInterfaceImpl), T(kMemberRef),       T(kModule),
    T(kDeclSecurity), T(kProperty),     T(kEvent),            T(kStandAloneSig),
    T(kModuleRef),    T(kTypeSpec),     T(kAssembly),         T(kAssemblyRef),
    T(kFile),         T(kExportedType), T(kManifestResource), T(kGenericParam),
    T(kGenericParamConstraint), T(kMethodSpec), T(kDocument), T(kLocalScope),
    T(kLocalVariable), T(kLocalConstant), T(kImportScope)};
#undef T

struct CodedInfo {
  std::span<const uint8_t> tables;
  int bits;
};

CodedInfo GetCodedInfo(CodedIndex kind) {
  switch (kind) {
    case CodedIndex::kTypeDefOrRef: return {kTypeDefOrRefTables, 2};
    case CodedIndex::kHasConstant: return {kHasConstantTables, 2};
    case CodedIndex::kHasCustomAttribute: return {kHasCustomAttributeTables, 5};
    case CodedIndex::kHasFieldMarshal: return {kHasFieldMarshalTables, 1};
    case CodedIndex::kHasDeclSecurity: return {kHasDeclSecurityTables, 2};
    case CodedIndex::kMemberRefParent: return {kMemberRefParentTables, 3};
    case CodedIndex::kHasSemantics: return {kHasSemanticsTables, 1};
    case CodedIndex::kMethodDefOrRef: return {kMethodDefOrRefTables, 1};
    case CodedIndex::kMemberForwarded: return {kMemberForwardedTables, 1};
    case CodedIndex::kImplementation: return {kImplementationTables, 2};
    case CodedIndex::kCustomAttributeType: return {kCustomAttributeTypeTables, 3};
    case CodedIndex::kResolutionScope: return {kResolutionScopeTables, 2};
    case CodedIndex::kTypeOrMethodDef: return {kTypeOrMethodDefTables, 1};
    case CodedIndex::kHasCustomDebugInformation: return {kHasCustomDebugInformationTables, 5};
  }
  return {{}, 0};
}

// The "Ptr" indirection table of a list target in unoptimised (#-) metadata.
int PtrTableOf(uint8_t table) {
  switch (TableId(table)) {
    case TableId::kField: return int(TableId::kFieldPtr);
    case TableId::kMethodDef: return int(TableId::kMethodPtr);
    case TableId::kParam: return int(TableId::kParamPtr);
    case TableId::kEvent: return int(TableId::kEventPtr);
    case TableId::kProperty: return int(TableId::kPropertyPtr);
    default: return -1;
  }
}

}  // namespace

// ---- Free functions ----

std::string GuidToString(const Guid& g) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3], g[2],
                g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
  return buf;
}

std::optional<Guid> ParseGuid(std::string_view text) {
  if (text.size() == 38 && text.front() == '{' && text.back() == '}') text = text.substr(1, 36);
  if (text.size() != 36) return std::nullopt;
  uint8_t raw[16];
  int n = 0;
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 1 >= text.size()) return std::nullopt;
    int hi = hex(text[i]), lo = hex(text[i + 1]);
    if (hi < 0 || lo < 0 || n >= 16) return std::nullopt;
    raw[n++] = static_cast<uint8_t>(hi * 16 + lo);
    i += 2;
  }
  if (n != 16) return std::nullopt;
  Guid g;
  const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  for (int i = 0; i < 16; ++i) g[i] = raw[order[i]];
  return g;
}

const TableSchema* GetTableSchema(uint8_t table) {
  if (table >= kMaxTables || !Schemas().defined[table]) return nullptr;
  return &Schemas().t[table];
}

std::span<const uint8_t> CodedIndexTables(CodedIndex kind) { return GetCodedInfo(kind).tables; }
int CodedIndexTagBits(CodedIndex kind) { return GetCodedInfo(kind).bits; }

uint32_t DecodeCodedIndex(CodedIndex kind, uint32_t raw) {
  CodedInfo info = GetCodedInfo(kind);
  if (info.bits == 0) return 0;
  uint32_t tag = raw & ((1u << info.bits) - 1);
  if (tag >= info.tables.size() || info.tables[tag] == kUnused) return 0;
  uint32_t rid = raw >> info.bits;
  if (rid > 0x00FFFFFF) return 0;
  return (uint32_t(info.tables[tag]) << 24) | rid;
}

std::optional<uint32_t> EncodeCodedIndex(CodedIndex kind, uint32_t token) {
  CodedInfo info = GetCodedInfo(kind);
  for (size_t tag = 0; tag < info.tables.size(); ++tag) {
    // Unused tags are 0xFF, which is also the table byte of some tokens.
    if (info.tables[tag] != kUnused && info.tables[tag] == TokenTable(token))
      return (TokenRid(token) << info.bits) | uint32_t(tag);
  }
  return std::nullopt;
}

std::string AssemblyVersion::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build) + "." +
         std::to_string(revision);
}

// ---- MetadataReader ----

std::optional<MetadataReader> MetadataReader::Parse(Bytes root, std::string* error,
                                                    const RowCounts* external_row_counts) {
  try {
    MetadataReader md;
    md.root_ = root;
    ByteReader r(root);
    if (r.U32() != 0x424A5342u) {  // "BSJB"
      Fail(error, "metadata root signature (BSJB) not found");
      return std::nullopt;
    }
    r.U16();  // major
    r.U16();  // minor
    r.U32();  // reserved
    uint32_t version_length = r.U32();
    if (!r.ok() || version_length > 255 || version_length > r.remaining()) {
      Fail(error, "metadata root is truncated (version string)");
      return std::nullopt;
    }
    Bytes version = r.Take(version_length);
    size_t vlen = 0;
    while (vlen < version.size() && version[vlen] != 0) ++vlen;
    md.version_ = std::string_view(reinterpret_cast<const char*>(version.data()), vlen);
    r.U16();  // flags
    uint16_t num_streams = r.U16();
    if (!r.ok()) {
      Fail(error, "metadata root is truncated (stream count)");
      return std::nullopt;
    }
    Bytes pdb_stream;
    bool have_tables = false, jtd = false, have_pdb = false;
    int seen = 0;
    for (uint16_t i = 0; i < num_streams; ++i) {
      uint32_t offset = r.U32();
      uint32_t size = r.U32();
      if (!r.ok()) {
        Fail(error, "metadata stream headers are truncated");
        return std::nullopt;
      }
      std::string name;
      bool terminated = false;
      for (int k = 0; k < 32 && r.remaining() > 0; ++k) {
        char c = static_cast<char>(r.U8());
        if (c == 0) {
          terminated = true;
          break;
        }
        name.push_back(c);
      }
      if (!terminated) {
        Fail(error, "metadata stream name is not terminated");
        return std::nullopt;
      }
      size_t aligned = (r.pos() + 3) & ~size_t(3);
      if (!r.Seek(std::min(aligned, r.size())) ) {
        Fail(error, "metadata stream headers are truncated");
        return std::nullopt;
      }
      if (offset > root.size() || size > root.size() - offset) {
        Fail(error, "metadata stream '" + name + "' lies outside the metadata");
        return std::nullopt;
      }
      Bytes data = root.subspan(offset, size);
      // The first stream of each name wins.
      auto assign = [&](Bytes* slot, int bit) {
        if (!(seen & (1 << bit))) *slot = data;
        seen |= 1 << bit;
      };
      if (name == "#~" || name == "#-") {
        if (!have_tables) {
          md.tables_ = data;
          md.uncompressed_ = name == "#-";
        }
        have_tables = true;
      } else if (name == "#Strings") {
        assign(&md.strings_, 0);
      } else if (name == "#US") {
        assign(&md.us_, 1);
      } else if (name == "#GUID") {
        assign(&md.guids_, 2);
      } else if (name == "#Blob") {
        assign(&md.blobs_, 3);
      } else if (name == "#Pdb") {
        assign(&pdb_stream, 4);
        have_pdb = true;
      } else if (name == "#JTD") {
        jtd = true;
      }
    }
    if (!have_tables) {
      Fail(error, "metadata has no tables stream (#~)");
      return std::nullopt;
    }

    if (have_pdb) {
      ByteReader p(pdb_stream);
      PdbStreamHeader h;
      Bytes id = p.Take(20);
      h.entry_point = p.U32();
      h.referenced_type_system_tables = p.U64();
      if (!p.ok()) {
        Fail(error, "#Pdb stream is truncated");
        return std::nullopt;
      }
      std::memcpy(h.pdb_id.data(), id.data(), 20);
      for (int t = 0; t < kMaxTables; ++t) {
        if (!(h.referenced_type_system_tables >> t & 1)) continue;
        if (t >= 0x30 || !Schemas().defined[t]) {
          Fail(error, "#Pdb stream references an unknown type-system table " + Hex2(uint8_t(t)));
          return std::nullopt;
        }
        uint32_t n = p.U32();
        if (!p.ok()) {
          Fail(error, "#Pdb stream is truncated (row counts)");
          return std::nullopt;
        }
        if (n > 0x00FFFFFF) {
          Fail(error, "#Pdb stream has an invalid row count");
          return std::nullopt;
        }
        h.type_system_row_counts[t] = n;
      }
      md.pdb_ = h;
    }

    // Tables stream header (II.24.2.6).
    ByteReader t(md.tables_);
    t.U32();  // reserved
    t.U8();   // major
    t.U8();   // minor
    md.heap_sizes_ = t.U8();
    t.U8();  // reserved
    md.valid_ = t.U64();
    md.sorted_ = t.U64();
    if (!t.ok()) {
      Fail(error, "metadata tables stream is truncated");
      return std::nullopt;
    }
    for (int i = 0; i < kMaxTables; ++i) {
      if (!(md.valid_ >> i & 1)) continue;
      uint32_t n = t.U32();
      if (!t.ok()) {
        Fail(error, "metadata tables stream is truncated (row counts)");
        return std::nullopt;
      }
      if (n > 0x00FFFFFF) {
        Fail(error, "metadata table " + Hex2(uint8_t(i)) + " has an invalid row count");
        return std::nullopt;
      }
      if (n != 0 && !Schemas().defined[i]) {
        Fail(error, "metadata contains unknown table " + Hex2(uint8_t(i)));
        return std::nullopt;
      }
      md.rows_[i] = n;
    }
    if (md.heap_sizes_ & 0x40) t.U32();  // extra data (EnC)
    if (!t.ok()) {
      Fail(error, "metadata tables stream is truncated");
      return std::nullopt;
    }

    // Row counts that determine reference sizes.
    RowCounts ref = md.rows_;
    const RowCounts* ext = external_row_counts;
    if (!ext && md.pdb_) ext = &md.pdb_->type_system_row_counts;
    if (ext) {
      for (int i = 0; i < kMaxTables; ++i) ref[i] = std::max(ref[i], std::min((*ext)[i], 0x00FFFFFFu));
    }
    const int string_size = (jtd || (md.heap_sizes_ & 0x01)) ? 4 : 2;
    const int guid_size = (jtd || (md.heap_sizes_ & 0x02)) ? 4 : 2;
    const int blob_size = (jtd || (md.heap_sizes_ & 0x04)) ? 4 : 2;
    auto table_index_size = [&](uint8_t table) {
      if (jtd) return 4;
      uint32_t n = ref[table];
      int ptr = PtrTableOf(table);
      if (ptr >= 0) n = std::max(n, ref[ptr]);
      return n < 0x10000 ? 2 : 4;
    };
    auto coded_size = [&](CodedIndex kind) {
      if (jtd) return 4;
      CodedInfo info = GetCodedInfo(kind);
      uint32_t max_rows = 0;
      for (uint8_t tb : info.tables)
        if (tb != kUnused) max_rows = std::max(max_rows, ref[tb]);
      return max_rows < (1u << (16 - info.bits)) ? 2 : 4;
    };

    uint64_t pos = t.pos();
    for (int i = 0; i < kMaxTables; ++i) {
      TableInfo& info = md.tables_info_[i];
      info.rows = md.rows_[i];
      if (!Schemas().defined[i]) continue;
      const TableSchema& schema = Schemas().t[i];
      uint32_t off = 0;
      info.columns = static_cast<uint8_t>(schema.columns.size());
      for (size_t c = 0; c < schema.columns.size(); ++c) {
        const ColumnSchema& col = schema.columns[c];
        int size = 0;
        switch (col.kind) {
          case ColumnKind::kU16: size = 2; break;
          case ColumnKind::kU32: size = 4; break;
          case ColumnKind::kString: size = string_size; break;
          case ColumnKind::kGuid: size = guid_size; break;
          case ColumnKind::kBlob: size = blob_size; break;
          case ColumnKind::kTable: size = table_index_size(col.arg); break;
          case ColumnKind::kCoded: size = coded_size(CodedIndex(col.arg)); break;
        }
        info.column_offset[c] = static_cast<uint8_t>(off);
        info.column_size[c] = static_cast<uint8_t>(size);
        off += size;
      }
      info.row_size = off;
      info.offset = static_cast<size_t>(pos);
      pos += uint64_t(info.rows) * info.row_size;
      if (pos > md.tables_.size()) {
        Fail(error, std::string("metadata table ") + schema.name + " extends past the end of the tables stream");
        return std::nullopt;
      }
    }
    return md;
  } catch (...) {
    Fail(error, "out of memory while parsing metadata");
    return std::nullopt;
  }
}

uint32_t MetadataReader::ColumnSize(TableId table, int column) const {
  if (uint8_t(table) >= kMaxTables) return 0;
  const TableInfo& info = tables_info_[uint8_t(table)];
  if (column < 0 || column >= info.columns) return 0;
  return info.column_size[column];
}

Bytes MetadataReader::Row(TableId table, uint32_t rid) const {
  uint8_t ti = uint8_t(table);
  if (ti >= kMaxTables) return {};
  const TableInfo& info = tables_info_[ti];
  if (rid == 0 || rid > info.rows) return {};
  return tables_.subspan(info.offset + size_t(rid - 1) * info.row_size, info.row_size);
}

uint32_t MetadataReader::GetColumn(TableId table, uint32_t rid, int column) const {
  uint8_t ti = uint8_t(table);
  if (ti >= kMaxTables) return 0;
  const TableInfo& info = tables_info_[ti];
  if (rid == 0 || rid > info.rows || column < 0 || column >= info.columns) return 0;
  const uint8_t* p = tables_.data() + info.offset + size_t(rid - 1) * info.row_size + info.column_offset[column];
  if (info.column_size[column] == 2) return uint32_t(p[0]) | (uint32_t(p[1]) << 8);
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

uint32_t MetadataReader::GetColumnToken(TableId table, uint32_t rid, int column) const {
  const TableSchema* schema = GetTableSchema(uint8_t(table));
  if (!schema || column < 0 || size_t(column) >= schema->columns.size()) return 0;
  const ColumnSchema& col = schema->columns[column];
  uint32_t raw = GetColumn(table, rid, column);
  if (col.kind == ColumnKind::kTable) return (uint32_t(col.arg) << 24) | (raw & 0x00FFFFFF);
  if (col.kind == ColumnKind::kCoded) return DecodeCodedIndex(CodedIndex(col.arg), raw);
  return 0;
}

std::string_view MetadataReader::GetString(uint32_t index) const {
  if (index >= strings_.size()) return {};
  const uint8_t* begin = strings_.data() + index;
  const void* nul = std::memchr(begin, 0, strings_.size() - index);
  if (!nul) return {};
  return std::string_view(reinterpret_cast<const char*>(begin), static_cast<const uint8_t*>(nul) - begin);
}

std::optional<Guid> MetadataReader::GetGuid(uint32_t index) const {
  if (index == 0 || index > guids_.size() / 16) return std::nullopt;
  Guid g;
  std::memcpy(g.data(), guids_.data() + size_t(index - 1) * 16, 16);
  return g;
}

bool MetadataReader::TryGetBlob(uint32_t index, Bytes* out) const {
  *out = {};
  if (index >= blobs_.size()) return index == 0;  // index 0 is the empty blob even without a heap
  ByteReader r(blobs_);
  r.Seek(index);
  uint32_t len;
  if (!r.ReadCompressedU32(&len)) return false;
  Bytes b = r.Take(len);
  if (!r.ok()) return false;
  *out = b;
  return true;
}

Bytes MetadataReader::GetBlob(uint32_t index) const {
  Bytes b;
  TryGetBlob(index, &b);
  return b;
}

std::optional<std::u16string> MetadataReader::GetUserString(uint32_t index) const {
  if (index >= us_.size()) return std::nullopt;
  ByteReader r(us_);
  r.Seek(index);
  uint32_t len;
  if (!r.ReadCompressedU32(&len)) return std::nullopt;
  Bytes b = r.Take(len);
  if (!r.ok()) return std::nullopt;
  std::u16string s;
  s.reserve(len / 2);
  for (size_t i = 0; i + 1 < b.size(); i += 2) s.push_back(char16_t(b[i] | (b[i + 1] << 8)));
  return s;
}

// ---- Conveniences ----

std::optional<Guid> MetadataReader::ModuleMvid() const {
  if (RowCount(TableId::kModule) == 0) return std::nullopt;
  return GetGuid(GetColumn(TableId::kModule, 1, 2));
}

std::string_view MetadataReader::ModuleName() const { return GetString(GetColumn(TableId::kModule, 1, 1)); }

std::optional<AssemblyInfo> MetadataReader::Assembly() const {
  if (RowCount(TableId::kAssembly) == 0) return std::nullopt;
  const TableId a = TableId::kAssembly;
  AssemblyInfo info;
  info.hash_algorithm = GetColumn(a, 1, 0);
  info.version.major = static_cast<uint16_t>(GetColumn(a, 1, 1));
  info.version.minor = static_cast<uint16_t>(GetColumn(a, 1, 2));
  info.version.build = static_cast<uint16_t>(GetColumn(a, 1, 3));
  info.version.revision = static_cast<uint16_t>(GetColumn(a, 1, 4));
  info.flags = GetColumn(a, 1, 5);
  Bytes key = GetBlob(GetColumn(a, 1, 6));
  info.public_key.assign(key.begin(), key.end());
  info.name = std::string(GetString(GetColumn(a, 1, 7)));
  info.culture = std::string(GetString(GetColumn(a, 1, 8)));
  return info;
}

std::string MetadataReader::AssemblyName() const {
  if (RowCount(TableId::kAssembly) == 0) return {};
  return std::string(GetString(GetColumn(TableId::kAssembly, 1, 7)));
}

std::vector<AssemblyRefInfo> MetadataReader::AssemblyRefs() const {
  std::vector<AssemblyRefInfo> out;
  const TableId a = TableId::kAssemblyRef;
  uint32_t n = RowCount(a);
  out.reserve(n);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    AssemblyRefInfo info;
    info.rid = rid;
    info.version.major = static_cast<uint16_t>(GetColumn(a, rid, 0));
    info.version.minor = static_cast<uint16_t>(GetColumn(a, rid, 1));
    info.version.build = static_cast<uint16_t>(GetColumn(a, rid, 2));
    info.version.revision = static_cast<uint16_t>(GetColumn(a, rid, 3));
    info.flags = GetColumn(a, rid, 4);
    Bytes key = GetBlob(GetColumn(a, rid, 5));
    info.public_key_or_token.assign(key.begin(), key.end());
    info.name = std::string(GetString(GetColumn(a, rid, 6)));
    info.culture = std::string(GetString(GetColumn(a, rid, 7)));
    out.push_back(std::move(info));
  }
  return out;
}

std::pair<uint32_t, uint32_t> MetadataReader::EqualRange(TableId table, int column, uint32_t value) const {
  uint32_t n = RowCount(table);
  bool sorted = (sorted_ >> uint8_t(table)) & 1;
  if (!sorted) return {0, 0};
  // lower bound: first rid with column >= value
  uint32_t lo = 1, hi = n + 1;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (GetColumn(table, mid, column) < value) lo = mid + 1;
    else hi = mid;
  }
  uint32_t first = lo;
  hi = n + 1;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (GetColumn(table, mid, column) <= value) lo = mid + 1;
    else hi = mid;
  }
  return {first, lo};
}

std::unordered_map<uint32_t, uint32_t> MetadataReader::NestedClassMap() const {
  std::unordered_map<uint32_t, uint32_t> map;
  uint32_t n = RowCount(TableId::kNestedClass);
  map.reserve(n);
  for (uint32_t rid = 1; rid <= n; ++rid)
    map.emplace(GetColumn(TableId::kNestedClass, rid, 0), GetColumn(TableId::kNestedClass, rid, 1));
  return map;
}

uint32_t MetadataReader::EnclosingType(uint32_t typedef_rid) const {
  if (typedef_rid == 0) return 0;
  const TableId nc = TableId::kNestedClass;
  if ((sorted_ >> uint8_t(nc)) & 1) {
    auto [lo, hi] = EqualRange(nc, 0, typedef_rid);
    if (lo < hi) return GetColumn(nc, lo, 1);
    return 0;
  }
  uint32_t n = RowCount(nc);
  for (uint32_t rid = 1; rid <= n; ++rid)
    if (GetColumn(nc, rid, 0) == typedef_rid) return GetColumn(nc, rid, 1);
  return 0;
}

std::vector<TypeDefInfo> MetadataReader::TypeDefs() const {
  std::vector<TypeDefInfo> out;
  const TableId td = TableId::kTypeDef;
  uint32_t n = RowCount(td);
  bool has_ptr = RowCount(TableId::kMethodPtr) > 0;
  uint32_t list_end = (has_ptr ? RowCount(TableId::kMethodPtr) : RowCount(TableId::kMethodDef)) + 1;
  std::unordered_map<uint32_t, uint32_t> nested = NestedClassMap();
  out.reserve(n);
  uint32_t prev_end = 1;
  for (uint32_t rid = 1; rid <= n; ++rid) {
    TypeDefInfo info;
    info.rid = rid;
    info.flags = GetColumn(td, rid, 0);
    info.name = std::string(GetString(GetColumn(td, rid, 1)));
    info.name_space = std::string(GetString(GetColumn(td, rid, 2)));
    info.extends = GetColumnToken(td, rid, 3);
    if (TokenRid(info.extends) == 0) info.extends = 0;
    // Clamp the method list into a monotonic partition of [1, list_end).
    uint32_t first = std::clamp(GetColumn(td, rid, 5), prev_end, list_end);
    uint32_t next = rid < n ? GetColumn(td, rid + 1, 5) : list_end;
    uint32_t end = std::clamp(next, first, list_end);
    info.first_method = first;
    info.end_method = end;
    prev_end = end;
    auto it = nested.find(rid);
    if (it != nested.end()) info.enclosing_type = it->second;
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<MethodDefInfo> MetadataReader::MethodDefs() const {
  std::vector<MethodDefInfo> out;
  const TableId md = TableId::kMethodDef;
  uint32_t n = RowCount(md);
  out.reserve(n);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    MethodDefInfo info;
    info.rid = rid;
    info.rva = GetColumn(md, rid, 0);
    info.impl_flags = static_cast<uint16_t>(GetColumn(md, rid, 1));
    info.flags = static_cast<uint16_t>(GetColumn(md, rid, 2));
    info.name = std::string(GetString(GetColumn(md, rid, 3)));
    info.signature = GetBlob(GetColumn(md, rid, 4));
    out.push_back(std::move(info));
  }
  // Declaring types from the (clamped, monotonic) method lists.
  bool has_ptr = RowCount(TableId::kMethodPtr) > 0;
  for (const TypeDefInfo& t : TypeDefs()) {
    for (uint32_t i = t.first_method; i < t.end_method; ++i) {
      uint32_t m = has_ptr ? GetColumn(TableId::kMethodPtr, i, 0) : i;
      if (m >= 1 && m <= n) out[m - 1].declaring_type = t.rid;
    }
  }
  return out;
}

uint32_t MetadataReader::DeclaringType(uint32_t methoddef_rid) const {
  const TableId td = TableId::kTypeDef;
  uint32_t n = RowCount(td);
  if (methoddef_rid == 0 || methoddef_rid > RowCount(TableId::kMethodDef) || n == 0) return 0;
  uint32_t key = methoddef_rid;
  uint32_t list_end = RowCount(TableId::kMethodDef) + 1;
  if (RowCount(TableId::kMethodPtr) > 0) {
    uint32_t np = RowCount(TableId::kMethodPtr);
    key = 0;
    for (uint32_t i = 1; i <= np; ++i) {
      if (GetColumn(TableId::kMethodPtr, i, 0) == methoddef_rid) {
        key = i;
        break;
      }
    }
    if (key == 0) return 0;
    list_end = np + 1;
  }
  // Last TypeDef whose MethodList <= key.
  uint32_t lo = 1, hi = n + 1;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (GetColumn(td, mid, 5) <= key) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 1) return 0;
  uint32_t rid = lo - 1;
  uint32_t end = rid < n ? GetColumn(td, rid + 1, 5) : list_end;
  if (key >= end) return 0;
  return rid;
}

std::string MetadataReader::TypeDefFullNameDepth(uint32_t rid, int depth) const {
  const TableId td = TableId::kTypeDef;
  if (rid == 0 || rid > RowCount(td)) return {};
  std::string_view name = GetString(GetColumn(td, rid, 1));
  std::string_view ns = GetString(GetColumn(td, rid, 2));
  std::string local = ns.empty() ? std::string(name) : std::string(ns) + "." + std::string(name);
  uint32_t enclosing = RowCount(TableId::kNestedClass) ? EnclosingType(rid) : 0;
  if (enclosing != 0 && enclosing != rid && depth < 64) {
    std::string outer = TypeDefFullNameDepth(enclosing, depth + 1);
    if (!outer.empty()) return outer + "/" + local;
  }
  return local;
}

std::string MetadataReader::TypeDefFullName(uint32_t typedef_rid) const { return TypeDefFullNameDepth(typedef_rid, 0); }

std::string MetadataReader::TypeRefFullNameDepth(uint32_t rid, int depth) const {
  const TableId tr = TableId::kTypeRef;
  if (rid == 0 || rid > RowCount(tr)) return {};
  std::string_view name = GetString(GetColumn(tr, rid, 1));
  std::string_view ns = GetString(GetColumn(tr, rid, 2));
  std::string local = ns.empty() ? std::string(name) : std::string(ns) + "." + std::string(name);
  uint32_t scope = GetColumnToken(tr, rid, 0);
  if (TokenTable(scope) == uint8_t(TableId::kTypeRef) && TokenRid(scope) != 0 && TokenRid(scope) != rid &&
      depth < 64) {
    std::string outer = TypeRefFullNameDepth(TokenRid(scope), depth + 1);
    if (!outer.empty()) return outer + "/" + local;
  }
  return local;
}

std::string MetadataReader::TypeRefFullName(uint32_t typeref_rid) const { return TypeRefFullNameDepth(typeref_rid, 0); }

std::string MetadataReader::TypeFullName(uint32_t token) const {
  switch (TableId(TokenTable(token))) {
    case TableId::kTypeDef: return TypeDefFullName(TokenRid(token));
    case TableId::kTypeRef: return TypeRefFullName(TokenRid(token));
    case TableId::kTypeSpec: {
      // GENERICINST (CLASS|VALUETYPE) TypeDefOrRefOrSpecEncoded ...
      ByteReader r(GetBlob(GetColumn(TableId::kTypeSpec, TokenRid(token), 0)));
      if (r.U8() != 0x15) return {};
      uint8_t kind = r.U8();
      if (kind != 0x12 && kind != 0x11) return {};
      uint32_t coded;
      if (!r.ReadCompressedU32(&coded)) return {};
      uint32_t tag = coded & 3, rid = coded >> 2;
      if (tag == 0) return TypeDefFullName(rid);
      if (tag == 1) return TypeRefFullName(rid);
      return {};
    }
    default: return {};
  }
}

CustomAttributeInfo MetadataReader::ReadCustomAttribute(uint32_t rid) const {
  const TableId ca = TableId::kCustomAttribute;
  CustomAttributeInfo info;
  info.rid = rid;
  info.parent = GetColumnToken(ca, rid, 0);
  info.constructor = GetColumnToken(ca, rid, 1);
  info.value = GetBlob(GetColumn(ca, rid, 2));
  uint32_t ctor_rid = TokenRid(info.constructor);
  if (TokenTable(info.constructor) == uint8_t(TableId::kMethodDef)) {
    uint32_t owner = DeclaringType(ctor_rid);
    if (owner) info.type = MakeToken(TableId::kTypeDef, owner);
  } else if (TokenTable(info.constructor) == uint8_t(TableId::kMemberRef)) {
    uint32_t parent = GetColumnToken(TableId::kMemberRef, ctor_rid, 0);
    uint8_t pt = TokenTable(parent);
    if (TokenRid(parent) != 0 && (pt == uint8_t(TableId::kTypeDef) || pt == uint8_t(TableId::kTypeRef) ||
                                  pt == uint8_t(TableId::kTypeSpec)))
      info.type = parent;
  }
  if (info.type) info.type_name = TypeFullName(info.type);
  return info;
}

std::vector<CustomAttributeInfo> MetadataReader::CustomAttributes(uint32_t token) const {
  std::vector<CustomAttributeInfo> out;
  std::optional<uint32_t> parent = EncodeCodedIndex(CodedIndex::kHasCustomAttribute, token);
  if (!parent || TokenRid(token) == 0) return out;
  const TableId ca = TableId::kCustomAttribute;
  if ((sorted_ >> uint8_t(ca)) & 1) {
    auto [lo, hi] = EqualRange(ca, 0, *parent);
    for (uint32_t rid = lo; rid < hi; ++rid) out.push_back(ReadCustomAttribute(rid));
  } else {
    uint32_t n = RowCount(ca);
    for (uint32_t rid = 1; rid <= n; ++rid)
      if (GetColumn(ca, rid, 0) == *parent) out.push_back(ReadCustomAttribute(rid));
  }
  return out;
}

bool MetadataReader::HasCustomAttribute(uint32_t token, std::string_view attribute_full_name) const {
  for (const CustomAttributeInfo& a : CustomAttributes(token))
    if (a.type_name == attribute_full_name) return true;
  return false;
}

}  // namespace dotcov
