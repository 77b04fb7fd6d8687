#include "dotcov/rewrite_policy.h"

namespace dotcov {

MethodSites::MethodSites(const std::vector<ProbeSite>& sites, uint32_t method_count) {
  first_.assign(size_t{method_count} + 2, 0);
  size_t i = 0;
  for (uint32_t rid = 0; rid <= method_count + 1; ++rid) {
    while (i < sites.size() && (sites[i].method_token & 0x00FFFFFF) < rid) ++i;
    first_[rid] = static_cast<uint32_t>(i);
  }
}

uint32_t MethodSites::RidOf(uint32_t token) const {
  uint32_t rid = token & 0x00FFFFFF;
  if ((token & 0xFF000000) != 0x06000000 || rid == 0 || rid > method_count()) return 0;
  return rid;
}

std::vector<uint32_t> MethodSites::MethodsToRejit() const {
  std::vector<uint32_t> tokens;
  for (uint32_t rid = 1; rid <= method_count(); ++rid)
    if (HasProbes(rid)) tokens.push_back(0x06000000 | rid);
  return tokens;
}

MethodProbes ProbesOf(const std::vector<ProbeSite>& sites, uint32_t first, uint32_t end, uint32_t slot_base) {
  MethodProbes out;
  for (uint32_t i = first; i < end && i < sites.size(); ++i) {
    const ProbeSite& s = sites[i];
    uint32_t slot = slot_base + i;
    if (s.kind == kSequencePoint) {
      out.probes.emplace_back(s.il_offset, slot);
    } else if (s.kind == kBranchFallThrough) {
      out.branch_probes.push_back({s.il_offset, slot, {}});
    } else if (s.kind == kValueFalse) {
      out.branch_probes.push_back({s.il_offset, slot, {}, /*value=*/true});  // kValueTrue follows
    } else if (s.kind == kOperandSkipped) {
      out.branch_probes.push_back({s.il_offset, slot, {}, false, /*operand=*/true});  // kOperandFalse, True follow
    } else if (!out.branch_probes.empty() && out.branch_probes.back().il_offset == s.il_offset) {
      out.branch_probes.back().target_slots.push_back(slot);  // sites are sorted: targets follow in order
    }
  }
  return out;
}

bool MayInline(const InlineFacts& f) {
  if (f.rejit_path) return !f.has_probes;
  return f.callee_final_epoch != 0 && f.callee_final_epoch <= f.caller_started;
}

bool NeedsCoreLibHelper(const ProbeDesign& design) { return !design.inline_probes || design.contexts; }

}  // namespace dotcov
