// The agent's settings, read once from the environment `dotcov run` prepares, or from the client data of
// `dotcov attach`.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace dotcov::agent {

struct AgentConfig {
  std::string data_dir;     // DOTCOV_DATA_DIR: where data files go (required)
  std::string source_root;  // DOTCOV_SOURCE_ROOT: cover modules whose sources lie here ("" = any)
  bool include_test_assemblies = false;  // DOTCOV_INCLUDE_TEST_ASSEMBLIES=1
  std::string log;          // DOTCOV_LOG (see agent_log.h)
  // DOTCOV_STRESS_ALL_METHODS=1: probes at every instruction of every method of
  // every module but CoreLib, PDB or not (a test of the rewriter, not coverage).
  bool stress_all_methods = false;
  // DOTCOV_BRANCHES=0 turns branch-outcome probes off (line coverage only).
  bool branches = true;
  // DOTCOV_PROBE=call: probes call the CoreLib helper; default "inline": the
  // increment is written into the method (docs/benchmarks.md has the numbers).
  bool inline_probes = true;
  // DOTCOV_SHARE=0: one counter per probe site, as before counter sharing
  // (core counter_sharing.h; kept to measure and to check that sharing changes
  // no count). Sharing is never used with per-test contexts.
  bool share_counters = true;
  // DOTCOV_EXACT_COUNTS=1 (`dotcov run --exact-counts`): every increment is
  // atomic (Interlocked.Increment), so hit counts stay exact when threads hit
  // the same probe at once; off by default for its cost (docs/benchmarks.md).
  bool exact_counts = false;
  // DOTCOV_TEST_FAIL_REWRITE=<method>: for tests only, the rewrite of every
  // covered method so named ("Name" or "Namespace.Type.Name") fails, to prove
  // that such a method is reported "not measured", never "missed".
  std::string test_fail_rewrite;
  // DOTCOV_TEST_FAIL_REJIT=<method>: for tests only, GetReJITParameters fails
  // for every covered method so named, after its rewrite, so the runtime calls
  // ReJITError and runs its original IL: it must read "not measured".
  std::string test_fail_rejit;
  // The new IL goes to a ReJIT version of each method, requested when its module
  // loads, so reflection keeps seeing the original IL; DOTCOV_REJIT=0 sets it
  // with SetILFunctionBody at the first JIT instead (docs/architecture.md).
  bool rejit = true;
  // DOTCOV_CONTEXTS=test: per-test contexts (docs/architecture.md, "Per-test
  // contexts"): test methods are wrapped and probes record which test ran them.
  bool contexts = false;
  // DOTCOV_TEST_STALL_REJIT=<file name>: for tests only, the ReJIT request of
  // the module so named is held back until its load stops waiting, to prove the
  // JIT-time fallback still measures it exactly.
  std::string test_stall_rejit;

  static AgentConfig FromEnvironment();
  // `dotcov attach`: the settings come as InitializeForAttach's client data, "dotcov-attach 1\n" then the
  // environment's KEY=VALUE pairs one a line (src/dotcov/measure/attach.py). False, with `error`, when the data is
  // not in that format.
  static bool FromClientData(const void* data, size_t size, AgentConfig* out, std::string* error);
};

}  // namespace dotcov::agent
