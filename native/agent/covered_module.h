// What the agent keeps per covered module: where its counters start and which
// probe sites each method has.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clr_abi.h"
#include "dotcov/data_file.h"

namespace dotcov::agent {

struct CoveredModule {
  clr::ModuleID id = 0;
  std::string path;
  uint32_t slot_base = 0;     // counter i of sites[] is slot_base + i
  ModuleRecordRef record;     // its record in the data file (per-method states)
  std::vector<uint32_t> fail_rewrite;  // method tokens of DOTCOV_TEST_FAIL_REWRITE
  uint32_t helper_ref = 0;    // MemberRef to DotCov.Probes::Hit in this module
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
