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
#include "dotcov/rewrite_policy.h"

namespace dotcov::agent {

struct CoveredModule {
  clr::ModuleID id = 0;
  std::string path;
  uint32_t slot_base = 0;     // counter i of sites[] is slot_base + i
  ModuleRecordRef record;     // its record in the data file (per-method states)
  std::vector<uint32_t> fail_rewrite;  // method tokens of DOTCOV_TEST_FAIL_REWRITE
  std::vector<uint32_t> fail_rejit;    // method tokens of DOTCOV_TEST_FAIL_REJIT
  bool has_record = true;     // false: a test module loaded only for its test methods' contexts
  // Per-test contexts: MemberRefs to DotCov.Probes HitCtx/Enter/Exit/Current/Miss (0 when contexts are off),
  // the module's test methods and, per test, its extended locals signature token (0: not wrapped).
  uint32_t hit_ctx_ref = 0, enter_ref = 0, exit_ref = 0, current_ref = 0, miss_ref = 0;
  std::vector<TestMethod> tests;
  std::vector<uint32_t> test_locals;
  std::unordered_map<uint32_t, size_t> test_index;  // MethodDef rid -> index into tests
  const TestMethod* TestOf(uint32_t rid, uint32_t* locals_token) const {
    auto it = test_index.find(rid);
    if (it == test_index.end()) return nullptr;
    *locals_token = test_locals[it->second];
    return &tests[it->second];
  }
  uint32_t helper_ref = 0;    // MemberRef to DotCov.Probes::Hit in this module (call probes only)
  uint32_t atomic_ref = 0;    // MemberRef to Interlocked.Increment(ref long) (exact inline probes only)
  // ReJIT mode: its methods' IL goes to their ReJIT versions (GetReJITParameters);
  // false when the ReJIT request failed, so JITCompilationStarted rewrites them.
  std::atomic<bool> rejit{false};
  std::vector<ProbeSite> sites;  // sorted by (method token, IL offset)
  MethodSites methods;           // which sites each method has (rewrite_policy.h)
  std::unique_ptr<FinalMethods> final_methods;  // per method: once its IL is final, the epoch
  std::mutex rewrite_mu;

  uint32_t method_count() const { return methods.method_count(); }

  void Index(uint32_t method_rows) {
    methods = MethodSites(sites, method_rows);
    final_methods = std::make_unique<FinalMethods>(method_rows);
  }
};

}  // namespace dotcov::agent
