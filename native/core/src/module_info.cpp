#include "dotcov/module_info.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "dotcov/pe_image.h"

namespace dotcov {
namespace {

namespace fs = std::filesystem;

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

std::string HexId(const std::array<uint8_t, 20>& id) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : id) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

std::string FileNameOf(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsRegularFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(path), ec);
}

bool LoadIdentity(const PeImage& pe, const std::string& path, ModuleSymbols* out, std::string* error) {
  if (!pe.is_managed()) return Fail(error, path + " is not a .NET assembly (it has no CLI header)");
  std::string why;
  std::optional<MetadataReader> md = MetadataReader::Parse(pe.metadata(), &why);
  if (!md) return Fail(error, path + ": invalid .NET metadata: " + why);
  std::optional<Guid> mvid = md->ModuleMvid();
  if (!mvid) return Fail(error, path + ": the module has no MVID");
  out->mvid = *mvid;
  if (auto a = md->Assembly()) {
    out->assembly_name = a->name;
    out->assembly_version = a->version;
  }
  for (const AssemblyRefInfo& r : md->AssemblyRefs()) out->referenced_assemblies.push_back(r.name);
  out->deterministic = pe.is_deterministic();
  if (auto cv = pe.codeview()) {
    out->has_codeview = true;
    out->codeview_path = cv->path;
  }
  out->identity_loaded = true;
  return true;
}

bool FindSymbols(const PeImage& pe, const std::string& assembly_path, ModuleSymbols* out, std::string* error) {
  std::optional<CodeViewInfo> cv = pe.codeview();
  const std::string display = FileNameOf(assembly_path);
  std::string why;

  // Empty if the PDB matches the assembly, else the mismatch message.
  auto check_id = [&](const PortablePdb& pdb, const std::string& where) -> std::string {
    if (cv && pdb.pdb_id() != cv->pdb_id()) {
      return "PDB does not match assembly: " + where + " has id " + HexId(pdb.pdb_id()) + " but " + display +
             " expects " + HexId(cv->pdb_id());
    }
    return {};
  };

  if (pe.has_embedded_pdb()) {
    std::vector<uint8_t> bytes;
    if (!pe.ReadEmbeddedPdb(&bytes, &why)) return Fail(error, display + ": " + why);
    std::optional<PortablePdb> pdb = PortablePdb::Parse(std::move(bytes), &why);
    if (!pdb) return Fail(error, display + ": embedded PDB: " + why);
    std::string mismatch = check_id(*pdb, "the embedded PDB");
    if (!mismatch.empty()) return Fail(error, mismatch);
    out->embedded = true;
    out->pdb_path.clear();
    out->pdb_id = pdb->pdb_id();
    out->documents = pdb->documents();
    out->pdb = std::move(pdb);
    return true;
  }

  if (!cv) {
    return Fail(error, display +
                           " has no debug information entry (CodeView); build with "
                           "<DebugType>portable</DebugType> or <DebugType>embedded</DebugType>");
  }

  std::vector<std::string> candidates;
  auto add = [&](const std::string& c) {
    if (c.empty()) return;
    for (const std::string& existing : candidates)
      if (existing == c) return;
    candidates.push_back(c);
  };
  fs::path asm_path(assembly_path);
  fs::path dir = asm_path.parent_path();
  if (!cv->path.empty()) {
    add(cv->path);
    add((dir / FileNameOf(cv->path)).string());
  }
  {
    fs::path stem = asm_path;
    std::string ext = stem.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".dll" || ext == ".exe") stem.replace_extension();
    add(stem.string() + ".pdb");
  }

  std::string first_error;
  for (const std::string& candidate : candidates) {
    if (!IsRegularFile(candidate)) continue;
    std::vector<uint8_t> bytes;
    std::string e;
    if (!ReadWholeFile(candidate, &bytes, &e)) {
      if (first_error.empty()) first_error = e;
      continue;
    }
    std::optional<PortablePdb> pdb = PortablePdb::Parse(std::move(bytes), &e);
    if (!pdb) {
      if (first_error.empty()) first_error = candidate + ": " + e;
      continue;
    }
    std::string mismatch = check_id(*pdb, candidate);
    if (!mismatch.empty()) {
      if (first_error.empty()) first_error = mismatch;
      continue;
    }
    out->embedded = false;
    out->pdb_path = candidate;
    out->pdb_id = pdb->pdb_id();
    out->documents = pdb->documents();
    out->pdb = std::move(pdb);
    return true;
  }
  if (!first_error.empty()) return Fail(error, first_error);
  if (!cv->portable) {
    return Fail(error, display +
                           " was built with a Windows PDB, which is not supported; build with "
                           "<DebugType>portable</DebugType>");
  }
  std::string looked;
  for (const std::string& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
  return Fail(error, "no PDB found for " + display + " (looked for: " + looked + ")");
}

}  // namespace

bool ReadWholeFile(const std::string& path, std::vector<uint8_t>* out, std::string* error, uint64_t max_size) {
  out->clear();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Fail(error, "cannot open " + path);
  bool ok = false;
  std::string message;
  do {
    if (std::fseek(f, 0, SEEK_END) != 0) {
      message = "cannot read " + path;
      break;
    }
    long size = std::ftell(f);
    if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) {
      message = "cannot read " + path;
      break;
    }
    if (uint64_t(size) > max_size) {
      message = path + " is too large";
      break;
    }
    try {
      out->resize(static_cast<size_t>(size));
    } catch (...) {
      message = "out of memory reading " + path;
      break;
    }
    if (size > 0 && std::fread(out->data(), 1, out->size(), f) != out->size()) {
      message = "cannot read " + path;
      break;
    }
    ok = true;
  } while (false);
  std::fclose(f);
  if (!ok) {
    out->clear();
    return Fail(error, message);
  }
  return true;
}

bool LoadAssemblyIdentity(const std::string& assembly_path, ModuleSymbols* out, std::string* error) {
  try {
    *out = ModuleSymbols{};
    out->assembly_path = assembly_path;
    std::vector<uint8_t> file;
    if (!ReadWholeFile(assembly_path, &file, error)) return false;
    std::string why;
    std::optional<PeImage> pe = PeImage::Parse(file, &why);
    if (!pe) return Fail(error, assembly_path + " is not a valid PE file: " + why);
    return LoadIdentity(*pe, assembly_path, out, error);
  } catch (...) {
    return Fail(error, "out of memory while reading " + assembly_path);
  }
}

bool LoadModuleSymbols(const std::string& assembly_path, ModuleSymbols* out, std::string* error) {
  try {
    *out = ModuleSymbols{};
    out->assembly_path = assembly_path;
    std::vector<uint8_t> file;
    if (!ReadWholeFile(assembly_path, &file, error)) return false;
    std::string why;
    std::optional<PeImage> pe = PeImage::Parse(file, &why);
    if (!pe) return Fail(error, assembly_path + " is not a valid PE file: " + why);
    if (!LoadIdentity(*pe, assembly_path, out, error)) return false;
    return FindSymbols(*pe, assembly_path, out, error);
  } catch (...) {
    return Fail(error, "out of memory while reading " + assembly_path);
  }
}

}  // namespace dotcov
