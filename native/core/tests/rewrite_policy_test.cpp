#include "dotcov/rewrite_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <type_traits>

using namespace dotcov;

namespace {

ProbeSite Site(uint32_t rid, uint32_t offset, uint32_t kind = kSequencePoint) {
  return {0x06000000u | rid, offset, kind};
}

// Methods 1 and 3 have sites; 2 and 4 (the last row) have none.
std::vector<ProbeSite> Sites() {
  return {Site(1, 0), Site(1, 4), Site(3, 0), Site(3, 2, kBranchFallThrough), Site(3, 2, kBranchTarget),
          Site(3, 9), Site(3, 12, kBranchFallThrough), Site(3, 12, kBranchTarget), Site(3, 12, kBranchTarget + 1)};
}

}  // namespace

TEST(MethodSites, IndexesSitesPerMethod) {
  MethodSites m(Sites(), 4);
  EXPECT_EQ(m.method_count(), 4u);
  EXPECT_EQ(m.First(1), 0u);
  EXPECT_EQ(m.End(1), 2u);
  EXPECT_FALSE(m.HasProbes(2));
  EXPECT_EQ(m.First(3), 2u);
  EXPECT_EQ(m.End(3), 9u);
  EXPECT_FALSE(m.HasProbes(4));
}

TEST(MethodSites, OnlyMethodDefsOfThisModuleHaveRids) {
  MethodSites m(Sites(), 4);
  EXPECT_EQ(m.RidOf(0x06000003), 3u);
  EXPECT_EQ(m.RidOf(0x06000000), 0u);  // nil
  EXPECT_EQ(m.RidOf(0x06000005), 0u);  // past the table
  EXPECT_EQ(m.RidOf(0x0A000001), 0u);  // a MemberRef
  EXPECT_EQ(MethodSites().RidOf(0x06000001), 0u);
}

TEST(MethodSites, RejitRequestsCoverExactlyTheMethodsWithProbes) {
  EXPECT_EQ(MethodSites(Sites(), 4).MethodsToRejit(), (std::vector<uint32_t>{0x06000001, 0x06000003}));
  EXPECT_TRUE(MethodSites({}, 10).MethodsToRejit().empty());
  // Sites of methods past the table (a PDB newer than the image) are ignored.
  EXPECT_EQ(MethodSites({Site(1, 0), Site(7, 0)}, 2).MethodsToRejit(), (std::vector<uint32_t>{0x06000001}));
}

TEST(ProbesOf, SequencePointsAndBranchOutcomesWithTheirSlots) {
  auto sites = Sites();
  MethodProbes p = ProbesOf(sites, 2, 9, 100);
  EXPECT_EQ(p.probes, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 102}, {9, 105}}));
  ASSERT_EQ(p.branch_probes.size(), 2u);
  EXPECT_EQ(p.branch_probes[0].il_offset, 2u);
  EXPECT_EQ(p.branch_probes[0].fall_through_slot, 103u);
  EXPECT_EQ(p.branch_probes[0].target_slots, (std::vector<uint32_t>{104}));
  EXPECT_EQ(p.branch_probes[1].fall_through_slot, 106u);
  EXPECT_EQ(p.branch_probes[1].target_slots, (std::vector<uint32_t>{107, 108}));
  // A method without sites gets nothing; a range past the sites is clipped.
  MethodProbes none = ProbesOf(sites, 2, 2, 0);
  EXPECT_TRUE(none.probes.empty() && none.branch_probes.empty());
  EXPECT_EQ(ProbesOf(sites, 8, 50, 0).probes.size(), 0u);
}

TEST(ProbesOf, ValueConditionsBecomeValueProbes) {
  std::vector<ProbeSite> sites = {Site(1, 0), Site(1, 6, kValueFalse), Site(1, 6, kValueTrue), Site(1, 8)};
  MethodProbes p = ProbesOf(sites, 0, 4, 10);
  EXPECT_EQ(p.probes, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 10}, {8, 13}}));
  ASSERT_EQ(p.branch_probes.size(), 1u);
  EXPECT_TRUE(p.branch_probes[0].value);
  EXPECT_EQ(p.branch_probes[0].il_offset, 6u);
  EXPECT_EQ(p.branch_probes[0].fall_through_slot, 11u);
  EXPECT_EQ(p.branch_probes[0].target_slots, (std::vector<uint32_t>{12}));
}

TEST(ProbesOf, ShortCircuitOperandsBecomeOperandProbes) {
  std::vector<ProbeSite> sites = {Site(1, 0), Site(1, 4, kOperandSkipped), Site(1, 4, kOperandFalse),
                                  Site(1, 4, kOperandTrue), Site(1, 6, kValueFalse), Site(1, 6, kValueTrue)};
  MethodProbes p = ProbesOf(sites, 0, 6, 10);
  EXPECT_EQ(p.probes, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 10}}));
  ASSERT_EQ(p.branch_probes.size(), 2u);
  EXPECT_TRUE(p.branch_probes[0].operand);
  EXPECT_FALSE(p.branch_probes[0].value);
  EXPECT_EQ(p.branch_probes[0].il_offset, 4u);
  EXPECT_EQ(p.branch_probes[0].fall_through_slot, 11u);
  EXPECT_EQ(p.branch_probes[0].target_slots, (std::vector<uint32_t>{12, 13}));
  EXPECT_TRUE(p.branch_probes[1].value);
  EXPECT_FALSE(p.branch_probes[1].operand);
  EXPECT_EQ(p.branch_probes[1].target_slots, (std::vector<uint32_t>{15}));
}

TEST(RewriteClock, TicksAreUniqueAndIncreasing) {
  RewriteClock clock;
  uint64_t start = clock.Now();
  std::vector<uint64_t> a, b;
  std::thread t1([&] { for (int i = 0; i < 1000; ++i) a.push_back(clock.Tick()); });
  std::thread t2([&] { for (int i = 0; i < 1000; ++i) b.push_back(clock.Tick()); });
  t1.join();
  t2.join();
  for (size_t i = 1; i < a.size(); ++i) EXPECT_LT(a[i - 1], a[i]);
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  EXPECT_EQ(std::unique(a.begin(), a.end()), a.end());
  EXPECT_GT(a.front(), start);
  EXPECT_EQ(clock.Now(), a.back());
}

TEST(FinalMethods, AMethodIsFinalFromItsEpochOn) {
  FinalMethods f(3);
  EXPECT_FALSE(f.IsFinal(2));
  f.MarkFinal(2, 7);
  EXPECT_TRUE(f.IsFinal(2));
  EXPECT_EQ(f.FinalEpoch(2), 7u);
  EXPECT_EQ(f.FinalEpoch(3), 0u);
}

TEST(JitNesting, InnermostCompilationStart) {
  JitNesting n;
  EXPECT_EQ(n.InnermostStart(), 0u);
  n.Enter(5);
  n.Enter(9);  // a nested JIT (a static constructor run by the JIT, say)
  EXPECT_EQ(n.InnermostStart(), 9u);
  n.Leave();
  EXPECT_EQ(n.InnermostStart(), 5u);
  n.Leave();
  n.Leave();  // unbalanced: never below zero
  EXPECT_EQ(n.depth(), 0);
  EXPECT_EQ(n.InnermostStart(), 0u);
}

TEST(JitNesting, TooDeepMeansNothingIsFinalEarlyEnough) {
  JitNesting n;
  for (int i = 0; i <= JitNesting::kMaxDepth; ++i) n.Enter(100 + i);
  EXPECT_EQ(n.InnermostStart(), 0u);
  n.Leave();
  EXPECT_EQ(n.InnermostStart(), 100u + JitNesting::kMaxDepth - 1);
  static_assert(std::is_trivially_destructible_v<JitNesting>);
}

TEST(MayInline, RejitPathKeepsCalleesWithProbesOutOfLine) {
  EXPECT_FALSE(MayInline({.rejit_path = true, .has_probes = true, .callee_final_epoch = 1, .caller_started = 9}));
  EXPECT_TRUE(MayInline({.rejit_path = true, .has_probes = false}));
}

TEST(MayInline, JitTimePathNeedsIlFinalBeforeTheCallerStarted) {
  // Not final yet: its probes may not be in the IL the JIT would copy.
  EXPECT_FALSE(MayInline({.has_probes = true, .callee_final_epoch = 0, .caller_started = 5}));
  // Final after the caller's compilation started: the JIT may have read it before.
  EXPECT_FALSE(MayInline({.has_probes = true, .callee_final_epoch = 6, .caller_started = 5}));
  EXPECT_TRUE(MayInline({.has_probes = true, .callee_final_epoch = 5, .caller_started = 5}));
  EXPECT_TRUE(MayInline({.has_probes = true, .callee_final_epoch = 2, .caller_started = 5}));
  // No compilation known on this thread (or too deep): never.
  EXPECT_FALSE(MayInline({.has_probes = true, .callee_final_epoch = 2, .caller_started = 0}));
}

TEST(MayInline, EpochRuleOverARealSequence) {
  // Caller A starts compiling; callee B is rewritten during A's compilation
  // (on another thread): A must not inline B. C, final before A started, may be.
  RewriteClock clock;
  FinalMethods final_methods(3);
  final_methods.MarkFinal(3, clock.Tick());  // C
  JitNesting thread_a;
  thread_a.Enter(clock.Now());               // A starts
  final_methods.MarkFinal(2, clock.Tick());  // B becomes final meanwhile
  auto facts = [&](uint32_t rid) {
    return InlineFacts{false, true, final_methods.FinalEpoch(rid), thread_a.InnermostStart()};
  };
  EXPECT_FALSE(MayInline(facts(2)));
  EXPECT_TRUE(MayInline(facts(3)));
  EXPECT_FALSE(MayInline(facts(1)));  // never compiled
  thread_a.Leave();
  thread_a.Enter(clock.Now());  // a later compilation may inline B
  EXPECT_TRUE(MayInline(facts(2)));
}

// The agent keeps one per thread as a plain thread_local: constant-initialised, no TLS constructor.
constinit thread_local JitNesting t_constant_initialised;
TEST(JitNesting, IsConstantInitialised) { EXPECT_EQ(t_constant_initialised.depth(), 0); }

TEST(NeedsCoreLibHelper, OnlyCallProbesUseTheInjectedHelper) {
  EXPECT_FALSE(NeedsCoreLibHelper({.inline_probes = true}));
  EXPECT_TRUE(NeedsCoreLibHelper({.inline_probes = false}));
  EXPECT_FALSE(NeedsCoreLibHelper(ProbeDesign{}));  // the default design injects nothing
  // Per-test contexts call the helper's context members whatever the probe style.
  EXPECT_TRUE(NeedsCoreLibHelper({.inline_probes = true, .contexts = true}));
}
