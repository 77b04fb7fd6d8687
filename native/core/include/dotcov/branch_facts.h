// What the report's branch analysis (src/dotcov/analysis/branches/analyse.py) needs to know about each conditional
// branch and switch of one decoded method body: which compiler-generated pattern claims it, and the Debug
// short-circuit shapes (short_circuit_constants, tests_zero_comparison): the product's only implementation of these
// rules (docs/branches.md). tests/oracles/branch_rules.py states them in Python, rule for rule, and
// tests/test_branch_facts.py checks both agree on every method of the samples' and the framework's assemblies. Any
// instruction list is accepted: every index is
// bounds-checked, so IL the decoder accepted but no compiler wrote yields answers, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "dotcov/il_method.h"

namespace dotcov::il {

// The recognisers in analyse.RECOGNISER_NAMES order (BranchFacts::recogniser indexes it).
enum class Recogniser : int {
  kNone = -1,
  kStateMachineDispatch = 0,
  kAwaitCompletionCheck,
  kDisposeNullCheck,
  kLockTakenCheck,
  kExceptionFilterTypeCheck,
  kDelegateCacheCheck,
  kConstantCondition,
  kDisposeModeCheck,
  kHiddenPointBranch,
};

struct MethodContext {
  bool is_move_next = false;  // MoveNext of an async or iterator state machine
  // IL offsets of the method's hidden sequence points; nullopt when unknown (hidden_point_branch then never
  // claims anything).
  std::optional<std::vector<int64_t>> hidden_offsets;
  std::vector<int64_t> visible_offsets;  // IL offsets of its visible sequence points
};

// One (branch offset, outcome kind) entering a constant block (short_circuit_constants).
using Entering = std::pair<uint32_t, uint32_t>;

struct BranchFacts {
  uint32_t offset = 0;
  uint16_t opcode = 0;
  Recogniser recogniser = Recogniser::kNone;  // the first that claims the branch
  // short_circuit_constants: set when the shape matches; subtract[k - 1] for outcome kind k (1, 2).
  bool has_short_circuit = false;
  uint32_t true_kind = 0;  // the kind listed first in the Python dict
  std::vector<Entering> subtract[2];
  bool tests_zero_comparison = false;
};

// Facts of every conditional branch and switch of `body`, in IL order.
std::vector<BranchFacts> AnalyseBranches(const MethodBody& body, const MethodContext& context);

}  // namespace dotcov::il
