// Fewer counters, the same counts (docs/architecture.md, "Shared counters").
//
// Two rules, each exact by construction, exceptions included:
//  - Sequence points in one straight run of code share the counter of the
//    first: point B reads point A's counter when every instruction from A up
//    to B can neither throw, branch nor leave (SharesCounterSafely), and no
//    instruction after A up to B is entered other than by falling through (no
//    branch or switch target, handler or filter start, method entry or EH
//    region boundary). Whoever passes A then passes B, and nobody else does.
//  - A branch outcome whose destination is entered by that outcome's edge
//    only, and starts with a probed sequence point, reads that point's
//    counter: the point runs exactly when the edge is taken.
//  - A sequence point starting a block entered by exactly two edges, each
//    counted exactly by a counter that stays (a branch outcome's, or the run
//    counter of a block ending in `br` or falling through without anything
//    that can throw), reads the sum of those two counters: every entry takes
//    one of the edges. A loop's condition (entry + back edge) and the join
//    after an if/else are such blocks.
// Value probes are left alone. With per-test contexts the reader gives a
// derived site the tests of its sources (data_file.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "dotcov/data_file.h"
#include "dotcov/il_method.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/rewrite_policy.h"

namespace dotcov {

// Whether the instruction can neither throw (no call, allocation, memory
// access through a pointer or reference, division, overflow check, type
// check, static field or lazily bound token) nor transfer control: it simply
// falls through to the next.
bool SharesCounterSafely(uint16_t opcode);

struct SharedCounters {
  std::vector<std::pair<uint32_t, uint32_t>> probes;  // the sequence-point probes still inserted
  // The branch probes, outcomes whose count is derived set to il::kNoProbeSlot.
  std::vector<il::BranchProbe> branch_probes;
  // (slot, source slot): the count of `slot` is the count of `source slot`,
  // whose probe is kept or whose count is summed (below).
  std::vector<std::pair<uint32_t, uint32_t>> derived;
  // (slot, a, b): the count of `slot` is the sum of the counts of slots a and
  // b, each kept or derived in turn, never (transitively) from `slot`.
  std::vector<std::array<uint32_t, 3>> summed;
};

// The probes of one method (as ProbesOf gives them) with the counters the
// rules above make redundant removed. `body` is the method's original IL,
// decoded. Probes at offsets that are no instruction boundary are kept as
// they are (the rewriter refuses them).
SharedCounters ShareCounters(const il::MethodBody& body, const MethodProbes& probes);

// Whether the data file can record every sum of `shared`: each source, as a
// site of the module whose first slot is `slot_base`, at most
// kMaxSummedSource. When not, the method keeps a counter per site instead
// (a sum the file cannot hold would leave its block at 0).
bool SumsFitDataFile(const SharedCounters& shared, uint32_t slot_base);

// Writes a method's derived and summed counters (slots as ShareCounters gives
// them, the module's first at `slot_base`) into its module record, before its
// rewritten body is installed. False when a sum could not be written: the
// caller then leaves the method uninstrumented and records it "not measured".
bool RecordSharedCounters(DataFileWriter& writer, const ModuleRecordRef& module, uint32_t slot_base,
                          const std::vector<std::pair<uint32_t, uint32_t>>& derived,
                          const std::vector<std::array<uint32_t, 3>>& summed);

}  // namespace dotcov
