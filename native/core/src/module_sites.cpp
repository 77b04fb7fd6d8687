#include "dotcov/module_sites.h"

#include <algorithm>
#include <set>

#include "dotcov/il_rewriter.h"
#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"

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
  SortSites(&sites);
  return sites;
}

void SortSites(std::vector<ProbeSite>* sites) {
  std::sort(sites->begin(), sites->end(), [](const ProbeSite& a, const ProbeSite& b) {
    if (a.method_token != b.method_token) return a.method_token < b.method_token;
    if (a.il_offset != b.il_offset) return a.il_offset < b.il_offset;
    return a.kind < b.kind;
  });
}

void AddBranchSites(Bytes image, std::vector<ProbeSite>* sites) {
  std::string error;
  auto pe = PeImage::Parse(image, &error);
  if (!pe) return;
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) return;
  std::set<uint32_t> methods;
  for (const auto& s : *sites) methods.insert(s.method_token);
  std::vector<MethodDefInfo> defs = md->MethodDefs();
  for (uint32_t token : methods) {
    uint32_t rid = token & 0x00FFFFFF;
    if (rid == 0 || rid > defs.size() || defs[rid - 1].rva == 0) continue;
    il::MethodBody body;
    if (!il::MethodBody::Decode(pe->MethodBodyAt(defs[rid - 1].rva), &body, &error)) continue;
    for (const auto& b : il::FindBranches(body)) {
      sites->push_back({token, b.il_offset, kBranchFallThrough});
      for (uint32_t k = 0; k < b.target_count; ++k) sites->push_back({token, b.il_offset, kBranchTarget + k});
    }
    for (uint32_t offset : il::FindValueConditions(body)) {
      sites->push_back({token, offset, kValueFalse});
      sites->push_back({token, offset, kValueTrue});
    }
  }
  SortSites(sites);
}

}  // namespace dotcov
