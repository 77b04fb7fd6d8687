#include "dotcov/module_sites.h"

#include <algorithm>
#include <set>

#include "dotcov/il_rewriter.h"
#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"
#include "dotcov/signature_types.h"

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

namespace {

// The signature blob of a MethodDef, FieldDef or MemberRef token of `md`; empty for other tables or no such row.
Bytes MemberSignature(const MetadataReader& md, uint32_t token) {
  const uint32_t rid = token & 0x00FFFFFF;
  const auto row = [&](TableId table, int column) {
    return rid == 0 || rid > md.RowCount(table) ? Bytes{} : md.GetBlob(md.GetColumn(table, rid, column));
  };
  switch (token >> 24) {
    case 0x06: return row(TableId::kMethodDef, 4);  // RVA, ImplFlags, Flags, Name, Signature
    case 0x04: return row(TableId::kField, 2);      // Flags, Name, Signature
    case 0x0A: return row(TableId::kMemberRef, 2);  // Class, Name, Signature
    default: return {};                            // MethodSpec etc.: not needed for the shapes Roslyn emits
  }
}

constexpr uint8_t kFieldSig = 0x06;

}  // namespace

bool ReturnsBool(const MetadataReader& md, uint32_t call_token) {
  Bytes sig = MemberSignature(md, call_token);
  return !sig.empty() && sig[0] != kFieldSig && SignatureIsBool(sig);
}

bool IsBoolField(const MetadataReader& md, uint32_t field_token) {
  Bytes sig = MemberSignature(md, field_token);
  return !sig.empty() && sig[0] == kFieldSig && SignatureIsBool(sig);
}

il::BoolTypes BoolTypesOf(const MetadataReader& md, uint32_t method_token, const il::MethodBody& body) {
  il::BoolTypes types;
  types.token_is_bool = [&md](uint32_t token) { return ReturnsBool(md, token) || IsBoolField(md, token); };
  Bytes method_sig = MemberSignature(md, method_token);
  if ((method_token >> 24) == 0x06 && !method_sig.empty()) {
    BoolArguments(method_sig, &types.arguments);
    ByrefBoolArguments(method_sig, &types.byref_arguments);
  }
  const uint32_t locals = body.local_var_sig_token();
  const uint32_t locals_rid = locals & 0x00FFFFFF;
  if ((locals >> 24) == uint32_t(TableId::kStandAloneSig) && locals_rid != 0 &&
      locals_rid <= md.RowCount(TableId::kStandAloneSig)) {
    const Bytes locals_sig = md.GetBlob(md.GetColumn(TableId::kStandAloneSig, locals_rid, 0));
    BoolLocals(locals_sig, &types.locals);
    ByrefBoolLocals(locals_sig, &types.byref_locals);
  }
  return types;
}

void AddConditionSites(const MetadataReader& md, uint32_t token, const il::MethodBody& body,
                       std::vector<ProbeSite>* sites) {
  for (const auto& b : il::FindBranches(body)) {
    sites->push_back({token, b.il_offset, kBranchFallThrough});
    for (uint32_t k = 0; k < b.target_count; ++k) sites->push_back({token, b.il_offset, kBranchTarget + k});
  }
  const il::BoolTypes types = BoolTypesOf(md, token, body);
  for (uint32_t offset : il::FindValueConditions(body, types)) {
    sites->push_back({token, offset, kValueFalse});
    sites->push_back({token, offset, kValueTrue});
  }
  for (uint32_t offset : il::FindShortCircuitOperands(body, types)) {
    for (uint32_t kind : {kOperandSkipped, kOperandFalse, kOperandTrue}) sites->push_back({token, offset, kind});
  }
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
    AddConditionSites(*md, token, body, sites);
  }
  SortSites(sites);
}

}  // namespace dotcov
