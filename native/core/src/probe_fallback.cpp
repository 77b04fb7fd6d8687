#include "dotcov/probe_fallback.h"

namespace dotcov::il {

bool InsertProbesSkippingRefused(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                                 const std::vector<BranchProbe>& branch_probes, const ProbeStyle& style,
                                 std::vector<uint8_t>* new_body, std::vector<RefusedProbe>* refused,
                                 std::string* error, std::vector<OffsetMapEntry>* il_map, const ContextWrap* wrap) {
  refused->clear();
  if (InsertProbes(original_body, probes, branch_probes, style, new_body, error, il_map, wrap)) return true;
  std::string whole_error = *error;
  // Rare path: one trial rewrite per probe.
  std::vector<uint8_t> scratch;
  std::string why;
  std::vector<std::pair<uint32_t, uint32_t>> kept_probes;
  std::vector<BranchProbe> kept_branches;
  for (size_t i = 0; i < probes.size(); ++i) {
    if (InsertProbes(original_body, {probes[i]}, {}, style, &scratch, &why))
      kept_probes.push_back(probes[i]);
    else
      refused->push_back({false, i, why});
  }
  for (size_t i = 0; i < branch_probes.size(); ++i) {
    if (InsertProbes(original_body, {}, {branch_probes[i]}, style, &scratch, &why))
      kept_branches.push_back(branch_probes[i]);
    else
      refused->push_back({true, i, why});
  }
  if (refused->empty() || (kept_probes.empty() && kept_branches.empty())) {
    // Each probe is fine alone (or none is): the method as a whole cannot be rewritten.
    refused->clear();
    *error = whole_error;
    return false;
  }
  if (!InsertProbes(original_body, kept_probes, kept_branches, style, new_body, error, il_map, wrap)) {
    refused->clear();
    *error = whole_error + " (and without the refused probes: " + *error + ")";
    return false;
  }
  return true;
}

}  // namespace dotcov::il
