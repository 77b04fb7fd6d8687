// What the agent keeps per covered module: where its counters start and which
// probe sites each method has.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "clr_abi.h"
#include "dotcov/data_file.h"
#include "dotcov/test_methods.h"

namespace dotcov::agent {

struct CoveredModule {
  clr::ModuleID id = 0;
  std::string path;
  uint32_t slot_base = 0;     // counter i of sites[] is slot_base + i
  ModuleRecordRef record;     // its record in the data file (per-method states)
  std::vector<uint32_t> fail_rewrite;  // method tokens of DOTCOV_TEST_FAIL_REWRITE
  uint32_t helper_ref = 0;    // MemberRef to DotCov.Probes::Hit in this module
  bool has_record = true;     // false: a test module loaded only for its test methods' contexts
  // Per-test contexts: MemberRefs to DotCov.Probes HitCtx/Enter/Exit (0 when contexts are off),
  // the module's test methods and, per test, its extended locals signature token (0: not wrapped).
  uint32_t hit_ctx_ref = 0, enter_ref = 0, exit_ref = 0;
  std::vector<TestMethod> tests;
  std::vector<uint32_t> test_locals;
  std::unordered_map<uint32_t, size_t> test_index;  // MethodDef rid -> index into tests
  const TestMethod* TestOf(uint32_t rid, uint32_t* locals_token) const {
    auto it = test_index.find(rid);
    if (it == test_index.end()) return nullptr;
    *locals_token = test_locals[it->second];
    return &tests[it->second];
  }
  // ReJIT mode: its methods' IL goes to their ReJIT versions (GetReJITParameters);
  // false when the ReJIT request failed, so JITCompilationStarted rewrites them.
  std::atomic<bool> rejit{false};
  std::vector<ProbeSite> sites;  // sorted by (method token, IL offset)
  // sites of method rid r are [method_first[r], method_first[r + 1]).
  std::vector<uint32_t> method_first;
  // Per method rid: the rewrite epoch once its IL is final (0 = not yet).
  std::unique_ptr<std::atomic<uint64_t>[]> rewritten;
  std::mutex rewrite_mu;

  uint32_t method_count() const { return method_first.empty() ? 0 : uint32_t(method_first.size() - 2); }

  void Index(uint32_t methods) {
    method_first.assign(methods + 2, 0);
    size_t i = 0;
    for (uint32_t rid = 0; rid <= methods + 1; ++rid) {
      while (i < sites.size() && (sites[i].method_token & 0x00FFFFFF) < rid) ++i;
      method_first[rid] = uint32_t(i);
    }
    rewritten = std::make_unique<std::atomic<uint64_t>[]>(methods + 2);
  }
};

}  // namespace dotcov::agent
