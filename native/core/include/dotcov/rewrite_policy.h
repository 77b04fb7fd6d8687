// The agent's decisions about when a covered method gets its probes and when
// the JIT may inline it, kept free of the CLR so they are unit-tested
// (rewrite_policy_test.cpp); native/agent/profiler.cpp only feeds them facts.
//
// Two paths put a covered method's probes in:
//  - ReJIT (the default): at module load every method with a probe site gets a
//    ReJIT request ("pre-ReJIT"); its instrumented IL goes to the ReJIT version
//    in GetReJITParameters, so reflection keeps reading the original IL.
//  - JIT time (DOTCOV_REJIT=0, or a module whose ReJIT request failed or timed
//    out): the IL is replaced (SetILFunctionBody) when the method first JITs.
// Either way a method's IL is rewritten once, then "final" for good.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "dotcov/data_file.h"
#include "dotcov/il_rewriter.h"

namespace dotcov {

// Which probe sites each MethodDef of a covered module has.
class MethodSites {
 public:
  MethodSites() = default;
  // `sites` sorted by method token (as CollectSites and StressSites give them);
  // `method_count` MethodDef rows.
  MethodSites(const std::vector<ProbeSite>& sites, uint32_t method_count);

  uint32_t method_count() const { return first_.empty() ? 0 : static_cast<uint32_t>(first_.size() - 2); }
  // The rid of `token` when it names a MethodDef of this module, else 0.
  uint32_t RidOf(uint32_t token) const;
  // Sites of method `rid` (1..method_count) are [First(rid), End(rid)) of the sites vector.
  uint32_t First(uint32_t rid) const { return first_[rid]; }
  uint32_t End(uint32_t rid) const { return first_[rid + 1]; }
  bool HasProbes(uint32_t rid) const { return First(rid) < End(rid); }
  // The MethodDef tokens to request ReJIT versions for at module load: every
  // method with a probe site (the others never change, so never need one).
  std::vector<uint32_t> MethodsToRejit() const;

 private:
  std::vector<uint32_t> first_;  // method_count + 2 entries
};

// The probes one method gets from its sites: a counter probe before each
// sequence point, and outcome probes on each branch (its fall-through site,
// then its target sites, in order). Counter slot of sites[i] is slot_base + i.
struct MethodProbes {
  std::vector<std::pair<uint32_t, uint32_t>> probes;  // (IL offset, slot)
  std::vector<il::BranchProbe> branch_probes;
};
MethodProbes ProbesOf(const std::vector<ProbeSite>& sites, uint32_t first, uint32_t end, uint32_t slot_base);

// The process-wide rewrite clock: each method whose IL becomes final takes the
// next epoch, so "final before this compilation started" is a comparison.
class RewriteClock {
 public:
  uint64_t Now() const { return now_.load(std::memory_order_acquire); }
  uint64_t Tick() { return now_.fetch_add(1, std::memory_order_acq_rel) + 1; }

 private:
  std::atomic<uint64_t> now_{1};
};

// Per method of a module: the epoch at which its IL became final (0 = not yet).
class FinalMethods {
 public:
  explicit FinalMethods(uint32_t method_count)
      : epochs_(std::make_unique<std::atomic<uint64_t>[]>(size_t{method_count} + 2)) {}
  uint64_t FinalEpoch(uint32_t rid) const { return epochs_[rid].load(std::memory_order_acquire); }
  bool IsFinal(uint32_t rid) const { return FinalEpoch(rid) != 0; }
  void MarkFinal(uint32_t rid, uint64_t epoch) { epochs_[rid].store(epoch, std::memory_order_release); }

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> epochs_;
};

// The JIT compilations in progress on one thread, innermost last, with the
// clock at each one's start. Trivially destructible, so it can be a plain
// thread_local (no TLS destructor runs in threads the runtime owns).
class JitNesting {
 public:
  void Enter(uint64_t clock_now) {
    if (depth_ < kMaxDepth) started_[depth_] = clock_now;
    ++depth_;
  }
  void Leave() {
    if (depth_ > 0) --depth_;
  }
  // The clock when the innermost compilation started; 0 when there is none or
  // the nesting is deeper than tracked (then no callee counts as final early enough).
  uint64_t InnermostStart() const { return depth_ > 0 && depth_ <= kMaxDepth ? started_[depth_ - 1] : 0; }
  int depth() const { return depth_; }

  static constexpr int kMaxDepth = 64;

 private:
  uint64_t started_[kMaxDepth] = {};
  int depth_ = 0;
};

// What JITInlining knows about a callee in a covered module.
struct InlineFacts {
  bool rejit_path = false;          // its module's probes go in through ReJIT versions
  bool has_probes = false;          // the callee has probe sites
  uint64_t callee_final_epoch = 0;  // JIT-time path: FinalMethods::FinalEpoch (0 = not final)
  uint64_t caller_started = 0;      // JitNesting::InnermostStart() of the compiling thread
};

// Whether the JIT may inline the callee into the method being compiled:
//  - ReJIT path: never a callee with probes. An inline copies the callee's
//    original IL (the JIT reads the method's IL header, not its ReJIT version),
//    so its probes would be lost; the runtime itself refuses to inline a method
//    whose active IL version is not the default one (CEEInfo::canInline,
//    "ReJIT methods cannot be inlined."), so this only says the same. A callee
//    without probes never changes and inlines freely.
//  - JIT-time path: only a callee whose IL was final before the caller's
//    compilation started, so the IL the JIT copies certainly has its probes;
//    otherwise the callee is called, and gets its probes at its own JIT.
bool MayInline(const InlineFacts& facts);

// The probe design the agent runs with, as far as CoreLib is concerned.
struct ProbeDesign {
  bool inline_probes = true;  // DOTCOV_PROBE: inline (default) or call
  bool contexts = false;      // DOTCOV_CONTEXTS=test: probes call HitCtx, tests call Enter/Exit
};

// Whether the agent injects its helper type DotCov.Probes (static Hit(int32))
// into System.Private.CoreLib, and references it from every covered module:
// only when a chosen probe calls it (the call style, or per-test contexts, whose
// probes and test wrappers call its context members). Inline probes write their
// counter themselves, so by default CoreLib and the covered modules' metadata
// stay as shipped: reflection over CoreLib's types sees no extra one.
bool NeedsCoreLibHelper(const ProbeDesign& design);

}  // namespace dotcov
