#include "dotcov/module_sites.h"

#include <algorithm>

namespace dotcov {

ModuleFacts FactsOf(const ModuleSymbols& s) {
  ModuleFacts f;
  f.assembly_path = s.assembly_path;
  f.assembly_name = s.assembly_name;
  f.referenced_assemblies = s.referenced_assemblies;
  for (const auto& d : s.documents) f.document_paths.push_back(d.name);
  return f;
}

ModuleIdentity IdentityOf(const ModuleSymbols& s) {
  ModuleIdentity id;
  id.mvid = s.mvid;
  id.pdb_id = s.pdb_id;
  id.path = s.assembly_path;
  return id;
}

std::vector<ProbeSite> CollectSites(const ModuleSymbols& s, std::vector<std::string>* skipped) {
  std::vector<ProbeSite> sites;
  if (!s.pdb) return sites;
  uint32_t methods = s.pdb->method_count();
  std::vector<SequencePoint> points;
  for (uint32_t rid = 1; rid <= methods; ++rid) {
    std::string error;
    if (!s.pdb->ReadSequencePoints(rid, &points, &error)) {
      if (skipped) skipped->push_back("method 0x" + std::to_string(0x06000000 | rid) + ": " + error);
      continue;
    }
    uint32_t token = 0x06000000 | rid;
    size_t before = sites.size();
    for (const auto& p : points) {
      if (p.hidden || p.start_line == kHiddenSequencePointLine) continue;
      // Two points at one offset cannot both be probed; the first wins.
      if (sites.size() > before && sites.back().il_offset == p.il_offset) continue;
      sites.push_back({token, p.il_offset});
    }
  }
  std::sort(sites.begin(), sites.end(), [](const ProbeSite& a, const ProbeSite& b) {
    return a.method_token != b.method_token ? a.method_token < b.method_token : a.il_offset < b.il_offset;
  });
  return sites;
}

}  // namespace dotcov
