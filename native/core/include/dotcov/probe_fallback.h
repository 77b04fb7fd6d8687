// When the rewriter refuses a method's probe set: find the probe sites it
// refuses on their own and instrument the rest, so one bad site (a sequence
// point inside an instruction, after a prefix, ...) does not cost the whole
// method its coverage. Kept apart from il_rewriter: only the failure path.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/il_rewriter.h"

namespace dotcov::il {

struct RefusedProbe {
  bool branch = false;  // index into branch_probes, else into probes
  size_t index = 0;
  std::string reason;
};

// InsertProbes with every probe first; if that fails, each probe is tried
// alone, those refused alone are listed in *refused and the rest inserted.
// Returns false (the method stays uninstrumented, *error says why) when the
// body cannot take the remaining probes, or every probe is refused. With
// `il_map`, also returns the IL offset map of the body written (il_rewriter.h).
bool InsertProbesSkippingRefused(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                                 const std::vector<BranchProbe>& branch_probes, const ProbeStyle& style,
                                 std::vector<uint8_t>* new_body, std::vector<RefusedProbe>* refused,
                                 std::string* error, std::vector<OffsetMapEntry>* il_map = nullptr,
                                 const ContextWrap* wrap = nullptr);

}  // namespace dotcov::il
