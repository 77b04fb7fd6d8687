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

bool ReturnsBool(const MetadataReader& md, uint32_t call_token) {
  const uint32_t rid = call_token & 0x00FFFFFF;
  Bytes sig;
  if ((call_token >> 24) == 0x06) {
    sig = md.GetBlob(md.GetColumn(TableId::kMethodDef, rid, 4));  // MethodDef: RVA, ImplFlags, Flags, Name, Signature
  } else if ((call_token >> 24) == 0x0A) {
    sig = md.GetBlob(md.GetColumn(TableId::kMemberRef, rid, 2));  // MemberRef: Class, Name, Signature
  } else {
    return false;  // MethodSpec etc.: not needed for the shapes Roslyn emits
  }
  ByteReader r(sig);
  uint8_t conv = r.U8();
  uint32_t n = 0;
  if ((conv & 0x10) && !r.ReadCompressedU32(&n)) return false;  // generic parameter count
  if (!r.ReadCompressedU32(&n)) return false;                    // parameter count
  uint8_t t = r.U8();
  while (r.ok() && (t == 0x1F || t == 0x20)) {  // custom modifiers: modreq / modopt <TypeDefOrRef>
    if (!r.ReadCompressedU32(&n)) return false;
    t = r.U8();
  }
  return r.ok() && t == 0x02;  // ELEMENT_TYPE_BOOLEAN
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
    for (uint32_t offset : il::FindValueConditions(body, [&](uint32_t t) { return ReturnsBool(*md, t); })) {
      sites->push_back({token, offset, kValueFalse});
      sites->push_back({token, offset, kValueTrue});
    }
  }
  SortSites(sites);
}

}  // namespace dotcov
