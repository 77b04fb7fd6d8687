#include "native_symbols.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include <pybind11/stl.h>

#include <sys/stat.h>

#include "dotcov/il_method.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/metadata.h"
#include "dotcov/module_filter.h"
#include "dotcov/module_info.h"
#include "dotcov/module_sites.h"
#include "dotcov/pe_image.h"

namespace py = pybind11;
using namespace dotcov;

namespace {

py::bytes ToBytes(const uint8_t* p, size_t n) { return py::bytes(reinterpret_cast<const char*>(p), n); }
py::str ToStr(std::string_view s) { return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), s.size(), "replace")); }

// Everything reports need from an assembly and its portable PDB; raises
// ValueError with a human-facing message when they cannot be read.
// An assembly file read and parsed down to its metadata; ValueError naming the file when it is not one. Heap
// allocated: the image and the metadata reader point into `file`.
struct Assembly {
  std::vector<uint8_t> file;
  std::optional<PeImage> pe;
  std::optional<MetadataReader> md;
};

std::unique_ptr<Assembly> OpenAssembly(const std::string& path) {
  auto a = std::make_unique<Assembly>();
  std::string error;
  if (!ReadWholeFile(path, &a->file, &error)) throw py::value_error(error);
  a->pe = PeImage::Parse(a->file, &error);
  if (!a->pe) throw py::value_error(path + ": " + error);
  a->md = MetadataReader::Parse(a->pe->metadata(), &error);
  if (!a->md) throw py::value_error(path + ": " + error);
  return a;
}

py::dict ReadSymbols(const std::string& path) {
  ModuleSymbols sym;
  std::string error;
  if (!LoadModuleSymbols(path, &sym, &error)) throw py::value_error(error);
  auto assembly = OpenAssembly(path);
  const MetadataReader* md = &*assembly->md;

  py::dict out;
  out["mvid"] = ToBytes(sym.mvid.data(), 16);
  out["pdb_id"] = ToBytes(sym.pdb_id.data(), 20);
  out["assembly_name"] = ToStr(sym.assembly_name);
  out["pdb_path"] = ToStr(sym.pdb_path);
  out["embedded"] = sym.embedded;
  py::list documents;
  for (const auto& d : sym.documents) documents.append(ToStr(d.name));
  out["documents"] = documents;
  // Per document: (hash algorithm GUID as stored, 16 bytes or empty if nil; the source checksum), for stale-source checks.
  py::list document_hashes;
  for (const auto& d : sym.documents) {
    bool nil = std::all_of(d.hash_algorithm.begin(), d.hash_algorithm.end(), [](uint8_t b) { return b == 0; });
    document_hashes.append(py::make_tuple(nil ? py::bytes() : ToBytes(d.hash_algorithm.data(), 16),
                                          ToBytes(d.hash.data(), d.hash.size())));
  }
  out["document_hashes"] = document_hashes;

  py::list types;
  for (const auto& t : md->TypeDefs())
    types.append(py::make_tuple(ToStr(t.name_space), ToStr(t.name), t.enclosing_type, t.flags));
  out["types"] = types;
  py::list methods;
  for (const auto& m : md->MethodDefs())
    methods.append(py::make_tuple(ToStr(m.name), m.declaring_type, m.flags, ToBytes(m.signature.data(), m.signature.size())));
  out["methods"] = methods;
  py::list typerefs;
  uint32_t nrefs = md->RowCount(TableId::kTypeRef);
  for (uint32_t rid = 1; rid <= nrefs; ++rid) {
    std::string full = md->TypeRefFullName(rid);
    size_t dot = full.rfind('.');
    typerefs.append(dot == std::string::npos ? py::make_tuple(py::str(""), ToStr(full))
                                             : py::make_tuple(ToStr(full.substr(0, dot)), ToStr(full.substr(dot + 1))));
  }
  out["typerefs"] = typerefs;
  py::list typespecs;
  uint32_t nspecs = md->RowCount(TableId::kTypeSpec);
  for (uint32_t rid = 1; rid <= nspecs; ++rid) {
    Bytes b = md->GetBlob(md->GetColumn(TableId::kTypeSpec, rid, 0));
    typespecs.append(ToBytes(b.data(), b.size()));
  }
  out["typespecs"] = typespecs;

  // Custom attribute type names on the assembly, types and methods (for exclude-by-attribute), and in the same pass
  // NullableContextAttribute's byte by TypeDef or MethodDef token (the C# names: analysis/signatures.py).
  py::dict attributes, nullable_context;
  auto add_attributes = [&](uint32_t token) {
    auto cas = md->CustomAttributes(token);
    if (cas.empty()) return;
    py::list names;
    for (const auto& ca : cas) {
      names.append(ToStr(ca.type_name));
      if (ca.type_name == "System.Runtime.CompilerServices.NullableContextAttribute" && ca.value.size() >= 3)
        nullable_context[py::int_(token)] = ca.value[2];  // (prolog, then the byte)
    }
    attributes[py::int_(token)] = names;
  };
  if (md->RowCount(TableId::kAssembly)) add_attributes(0x20000001);
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kTypeDef); ++rid) add_attributes(0x02000000 | rid);
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kMethodDef); ++rid) add_attributes(0x06000000 | rid);
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kProperty); ++rid) add_attributes(0x17000000 | rid);
  out["attributes"] = attributes;
  out["nullable_context"] = nullable_context;
  // Property -> accessor methods (MethodSemantics), so attributes on a property reach its getter/setter.
  py::dict accessors;
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kMethodSemantics); ++rid) {
    uint32_t method = md->GetColumnToken(TableId::kMethodSemantics, rid, 1);
    uint32_t assoc = md->GetColumnToken(TableId::kMethodSemantics, rid, 2);
    if ((assoc >> 24) == 0x17) accessors[py::int_(method & 0x00FFFFFF)] = assoc;
  }
  out["accessor_of"] = accessors;
  // What the names reports show need beyond the signatures (analysis/signatures.py): generic parameter names by
  // owner token (TypeDef or MethodDef, in Number order), and each method's parameters as (sequence, flags,
  // TupleElementNamesAttribute value or None, whether IsReadOnlyAttribute marks it: `in`, NullableAttribute value or
  // None, DynamicAttribute value or None).
  py::dict generic_params;
  {
    std::map<uint32_t, std::vector<std::pair<uint32_t, std::string_view>>> by_owner;
    for (uint32_t rid = 1; rid <= md->RowCount(TableId::kGenericParam); ++rid)
      by_owner[md->GetColumnToken(TableId::kGenericParam, rid, 2)].emplace_back(
          md->GetColumn(TableId::kGenericParam, rid, 0), md->GetString(md->GetColumn(TableId::kGenericParam, rid, 3)));
    for (auto& [owner, list] : by_owner) {
      std::sort(list.begin(), list.end());
      py::list names;
      for (const auto& [_number, name] : list) names.append(ToStr(name));
      generic_params[py::int_(owner)] = names;
    }
  }
  out["generic_params"] = generic_params;
  py::dict params;
  uint32_t nparams = md->RowCount(TableId::kParam), nmethods = md->RowCount(TableId::kMethodDef);
  if (md->RowCount(TableId::kParamPtr) == 0) {  // (an uncompressed #- stream's indirection: no names shown)
    for (uint32_t rid = 1; rid <= nmethods; ++rid) {
      uint32_t first = std::clamp(md->GetColumn(TableId::kMethodDef, rid, 5), 1u, nparams + 1);
      uint32_t next = rid < nmethods ? md->GetColumn(TableId::kMethodDef, rid + 1, 5) : nparams + 1;
      uint32_t end = std::clamp(next, first, nparams + 1);
      if (first >= end) continue;
      py::list list;
      for (uint32_t p = first; p < end; ++p) {
        py::object tuple_names = py::none();
        py::object nullable = py::none(), dynamic = py::none();
        bool read_only = false;
        for (const auto& ca : md->CustomAttributes(0x08000000 | p)) {
          if (ca.type_name == "System.Runtime.CompilerServices.TupleElementNamesAttribute")
            tuple_names = ToBytes(ca.value.data(), ca.value.size());
          else if (ca.type_name == "System.Runtime.CompilerServices.NullableAttribute")
            nullable = ToBytes(ca.value.data(), ca.value.size());
          else if (ca.type_name == "System.Runtime.CompilerServices.DynamicAttribute")
            dynamic = ToBytes(ca.value.data(), ca.value.size());
          else if (ca.type_name == "System.Runtime.CompilerServices.IsReadOnlyAttribute")
            read_only = true;
        }
        list.append(py::make_tuple(md->GetColumn(TableId::kParam, p, 1), md->GetColumn(TableId::kParam, p, 0),
                                   tuple_names, read_only, nullable, dynamic));
      }
      params[py::int_(rid)] = list;
    }
  }
  out["params"] = params;
  out["source_link"] = sym.pdb && sym.pdb->SourceLinkJson() ? py::object(ToStr(*sym.pdb->SourceLinkJson())) : py::none();

  py::dict points, kickoff, hidden_points;
  if (sym.pdb) {
    std::vector<SequencePoint> sps;
    for (uint32_t rid = 1; rid <= sym.pdb->method_count(); ++rid) {
      if (!sym.pdb->ReadSequencePoints(rid, &sps, &error)) continue;
      py::list l, hidden;
      uint32_t last = UINT32_MAX;
      for (const auto& p : sps) {
        if (p.hidden || p.start_line == kHiddenSequencePointLine) {
          hidden.append(p.il_offset);
          continue;
        }
        if (p.il_offset == last) continue;  // as CollectSites: the first point at an offset wins
        last = p.il_offset;
        l.append(py::make_tuple(p.il_offset, p.start_line, p.start_column, p.end_line, p.end_column, p.document));
      }
      if (py::len(l)) points[py::int_(rid)] = l;
      if (py::len(hidden)) hidden_points[py::int_(rid)] = hidden;
      if (uint32_t k = sym.pdb->StateMachineKickoff(rid)) kickoff[py::int_(rid)] = k & 0x00FFFFFF;
    }
  }
  out["sequence_points"] = points;
  out["hidden_points"] = hidden_points;
  out["kickoff"] = kickoff;
  return out;
}

// Method bodies of an assembly, {method rid: body bytes (header + code + EH sections)},
// for the methods whose bodies decode; for analysing branches after a run.
py::dict ReadMethodBodies(const std::string& path) {
  auto assembly = OpenAssembly(path);
  const PeImage* pe = &*assembly->pe;
  const MetadataReader* md = &*assembly->md;
  std::string error;
  py::dict out;
  for (const auto& m : md->MethodDefs()) {
    if (m.rva == 0) continue;
    il::MethodBody body;
    std::vector<uint8_t> bytes;
    if (!il::MethodBody::Decode(pe->MethodBodyAt(m.rva), &body, &error) || !body.Encode(&bytes, &error)) continue;
    out[py::int_(m.rid)] = ToBytes(bytes.data(), bytes.size());
  }
  return out;
}

// {rid: [IL offsets]} of what `find` (with what the metadata says is bool: BoolTypesOf) finds in each method, for
// methods that have any: the same search module_sites makes for the agent.
template <typename Find>
py::dict PerMethodOffsets(const std::string& path, Find find) {
  auto assembly = OpenAssembly(path);
  const PeImage* pe = &*assembly->pe;
  const MetadataReader* md = &*assembly->md;
  std::string error;
  py::dict out;
  for (const auto& m : md->MethodDefs()) {
    il::MethodBody body;
    if (m.rva == 0 || !il::MethodBody::Decode(pe->MethodBodyAt(m.rva), &body, &error)) continue;
    auto found = find(body, BoolTypesOf(*md, 0x06000000 | m.rid, body));
    if (!found.empty()) out[py::int_(m.rid)] = found;
  }
  return out;
}

// The conditions computed into a value the agent gives value probes (il::FindValueConditions).
py::dict ReadValueConditions(const std::string& path) {
  return PerMethodOffsets(path, [](const il::MethodBody& body, const il::BoolTypes& types) {
    return il::FindValueConditions(body, types);
  });
}

// The right operands of short circuits the agent gives operand probes (il::FindShortCircuitOperands): the IL
// offsets of the operand loads.
py::dict ReadShortCircuitOperands(const std::string& path) {
  return PerMethodOffsets(path, [](const il::MethodBody& body, const il::BoolTypes& types) {
    return il::FindShortCircuitOperands(body, types);
  });
}

// The probe sites the agent places in an assembly it covers (profiler.cpp: CollectSites, then AddBranchSites), for
// an assembly no process loaded: [(method token, IL offset, kind)] sorted.
py::list ReadProbeSites(const std::string& path) {
  ModuleSymbols sym;
  std::string error;
  if (!LoadModuleSymbols(path, &sym, &error)) throw py::value_error(error);
  std::vector<ProbeSite> sites = CollectSites(sym);
  std::vector<uint8_t> image;
  if (!ReadWholeFile(path, &image, &error)) throw py::value_error(error);
  AddBranchSites(image, &sites);
  py::list out;
  for (const ProbeSite& s : sites) out.append(py::make_tuple(s.method_token, s.il_offset, s.kind));
  return out;
}

// The agent's own decision for an assembly file (module_filter.h): whether a process loading it would cover it,
// and why. The report uses it to find the assemblies no test process loaded.
py::tuple DecideModulePath(const std::string& path, const std::string& source_root, bool include_tests) {
  ModuleSymbols sym;
  std::string error;
  if (!LoadModuleSymbols(path, &sym, &error)) return py::make_tuple(false, ToStr(error));
  ModuleFilterOptions options;
  options.source_root = source_root;
  options.include_test_assemblies = include_tests;
  options.file_exists = [](const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  };
  FilterDecision d = DecideModule(FactsOf(sym), options);
  return py::make_tuple(d.cover, ToStr(d.reason));
}

}  // namespace

void RegisterSymbols(py::module_& m) {
  m.def("decide_module", &DecideModulePath, py::arg("assembly_path"), py::arg("source_root"),
        py::arg("include_tests") = false,
        "(cover, reason): whether the agent would cover this assembly (its filters), as it decides at load.");
  m.def("read_method_bodies", &ReadMethodBodies, py::arg("assembly_path"),
        "Method bodies of an assembly as {method rid: bytes}, for the bodies that decode.");
  m.def("read_value_conditions", &ReadValueConditions, py::arg("assembly_path"),
        "The conditions computed into a value that get value probes, as the agent finds them: {method rid: [IL "
        "offsets of the instructions leaving the value]}.");
  m.def("read_short_circuit_operands", &ReadShortCircuitOperands, py::arg("assembly_path"),
        "The right operands of `or`/`and` short circuits that get operand probes, as the agent finds them: "
        "{method rid: [IL offsets of the operand loads]}.");
  m.def("read_probe_sites", &ReadProbeSites, py::arg("assembly_path"),
        "The probe sites the agent places in the assembly when it covers it (with branches): [(method token, IL "
        "offset, kind)], sorted. Raises ValueError when it cannot be read.");
  m.def("read_symbols", &ReadSymbols, py::arg("assembly_path"),
        "Reads an assembly's identity, types, methods and portable-PDB sequence points.");
}
