#include "dotcov/stress_sites.h"

#include <algorithm>

#include "dotcov/il_opcodes.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/metadata.h"
#include "dotcov/module_sites.h"
#include "dotcov/pe_image.h"

namespace dotcov {

std::vector<uint32_t> ProbeableOffsets(const il::MethodBody& body) {
  const auto& ins = body.instructions();
  std::vector<uint32_t> out;
  out.reserve(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    if (i > 0 && il::IsPrefix(ins[i - 1].opcode)) continue;
    if (ins[i].opcode == il::op::kRet && i > 0 && il::IsCallFamily(ins[i - 1].opcode)) {
      bool tail = false;
      for (size_t k = i - 1; k > 0 && il::IsPrefix(ins[k - 1].opcode); --k)
        if (ins[k - 1].opcode == il::op::kTail) tail = true;
      if (tail) continue;
    }
    out.push_back(ins[i].offset);
  }
  return out;
}

bool StressSites(Bytes image, std::vector<ProbeSite>* sites, uint32_t* method_count, std::array<uint8_t, 16>* mvid,
                 std::string* error) {
  sites->clear();
  auto pe = PeImage::Parse(image, error);
  if (!pe) return false;
  if (!pe->is_managed()) return *error = "not a managed assembly", false;
  auto md = MetadataReader::Parse(pe->metadata(), error);
  if (!md) return false;
  auto id = md->ModuleMvid();
  if (!id) return *error = "no MVID", false;
  *mvid = *id;
  *method_count = md->RowCount(TableId::kMethodDef);
  for (const auto& m : md->MethodDefs()) {
    if (m.rva == 0) continue;
    Bytes body = pe->MethodBodyAt(m.rva);
    il::MethodBody decoded;
    std::string why;
    if (body.empty() || !il::MethodBody::Decode(body, &decoded, &why)) continue;
    uint32_t token = 0x06000000 | m.rid;
    for (uint32_t offset : ProbeableOffsets(decoded)) sites->push_back({token, offset});
    AddConditionSites(*md, token, decoded, sites);
  }
  SortSites(sites);
  return true;
}

}  // namespace dotcov
