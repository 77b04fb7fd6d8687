// One-call loading of an assembly's identity and its Portable PDB, for the
// profiler agent and the Python front end.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dotcov/metadata.h"
#include "dotcov/portable_pdb.h"

namespace dotcov {

struct ModuleSymbols {
  // Assembly identity. identity_loaded is true when these were read, even if
  // LoadModuleSymbols then failed on the PDB.
  bool identity_loaded = false;
  std::string assembly_path;
  std::string assembly_name;  // simple name, "" for a netmodule
  AssemblyVersion assembly_version;
  std::vector<std::string> referenced_assemblies;  // AssemblyRef simple names
  Guid mvid{};
  bool deterministic = false;
  bool has_codeview = false;
  std::string codeview_path;  // PDB path recorded by the compiler

  // Symbols.
  std::array<uint8_t, 20> pdb_id{};
  std::string pdb_path;  // "" if embedded
  bool embedded = false;
  std::vector<PdbDocument> documents;
  std::optional<PortablePdb> pdb;  // for sequence points etc.
};

// Reads the assembly at `assembly_path`, its MVID, simple name and references,
// and finds its Portable PDB: the embedded one first; else the CodeView path;
// else a file with the CodeView file name beside the assembly; else
// "<assembly without .dll/.exe>.pdb" beside it. Rejects Windows PDBs and PDBs
// whose id does not match the assembly's CodeView entry. Returns false with a
// human-readable *error (out->identity_loaded tells whether the identity part
// is still usable).
bool LoadModuleSymbols(const std::string& assembly_path, ModuleSymbols* out, std::string* error);

// Only the assembly identity part of LoadModuleSymbols (no PDB lookup).
bool LoadAssemblyIdentity(const std::string& assembly_path, ModuleSymbols* out, std::string* error);

// Reads a whole file (at most `max_size` bytes) into *out.
bool ReadWholeFile(const std::string& path, std::vector<uint8_t>* out, std::string* error,
                   uint64_t max_size = uint64_t(2) << 30);

}  // namespace dotcov
