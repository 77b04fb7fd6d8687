#include "dotcov/counter_sharing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "dotcov/data_file.h"
#include "il_assembler.h"

using namespace dotcov;
using namespace dotcov::il;
using namespace dotcov::il::testing;

namespace {

constexpr uint32_t kVoid0 = 0x0A000012;  // static void M()
using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

MethodBody Decoded(const std::vector<uint8_t>& body) {
  MethodBody b;
  std::string error;
  EXPECT_TRUE(MethodBody::Decode(body, &b, &error)) << error;
  return b;
}

Pairs Sorted(Pairs p) {
  std::sort(p.begin(), p.end());
  return p;
}

// Inline probes: 7 instructions each, one ldind.i8 among them.
size_t CountProbes(const std::vector<uint8_t>& new_body) {
  MethodBody nb = Decoded(new_body);
  return static_cast<size_t>(std::count_if(nb.instructions().begin(), nb.instructions().end(),
                                           [](const Instruction& i) { return i.opcode == 0x4C; }));
}

const ProbeStyle kInline{0, 0x7F0000000000};

}  // namespace

TEST(CounterSharing, SafeInstructionsNeitherThrowNorBranch) {
  for (uint16_t o : {0x00, 0x02, 0x06, 0x0A, 0x11, 0x13, 0x14, 0x16, 0x1B, 0x20, 0x21, 0x23, 0x25, 0x26, 0x58,
                     0x5A, 0x5F, 0x62, 0x66, 0x69, 0x6A, 0x6C, 0xD3, 0xE0, 0xFE01, 0xFE05, 0xFE0C, 0xFE0E})
    EXPECT_TRUE(SharesCounterSafely(o)) << std::hex << o;
  // call, callvirt, newobj, ldfld, ldflda, stfld, ldsfld, ldind.i4, stind.i4, ldelem.i4, stelem.i4, ldlen,
  // div, rem, div.un, conv.ovf.i4, add.ovf, castclass, isinst, unbox.any, box, newarr, ldstr, throw, ret,
  // br, brtrue, switch, leave, break, ckfinite, ldtoken, ldftn, localloc, initobj, cpobj, sizeof-free jmp
  for (uint16_t o : {0x28, 0x6F, 0x73, 0x7B, 0x7C, 0x7D, 0x7E, 0x4A, 0x54, 0x94, 0x9E, 0x8E, 0x5B, 0x5D, 0x5C,
                     0xB7, 0xD6, 0x74, 0x75, 0xA5, 0x8C, 0x8D, 0x72, 0x7A, 0x2A, 0x2B, 0x2D, 0x45, 0xDD, 0x01,
                     0xC3, 0xD0, 0xFE06, 0xFE0F, 0xFE15, 0x70, 0x27})
    EXPECT_FALSE(SharesCounterSafely(o)) << std::hex << o;
}

TEST(CounterSharing, PointsInOneStraightRunShareTheFirstCounter) {
  // 0 nop; 1 ldc.i4.1; 2 stloc.0; 3 nop; 4 ldloc.0; 5 ret
  auto body = Tiny(Asm().op(0x00).op(0x17).op(0x0A).op(0x00).op(0x06).op(0x2A).code());
  SharedCounters s = ShareCounters(Decoded(body), {{{0, 10}, {1, 11}, {3, 12}, {5, 13}}, {}});
  EXPECT_EQ(s.probes, (Pairs{{0, 10}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{11, 10}, {12, 10}, {13, 10}}));
}

TEST(CounterSharing, AnInstructionThatCanThrowEndsTheRun) {
  // 0 nop; 1 call M; 6 nop; 7 ldc.i4.0; 8 ldc.i4.0; 9 div; 10 pop; 11 ret
  // A throw from the call (or the division) leaves the later point unreached: it keeps its own counter.
  auto body = Tiny(Asm().op(0x00).tok(0x28, kVoid0).op(0x00).op(0x16).op(0x16).op(0x5B).op(0x26).op(0x2A).code());
  SharedCounters s = ShareCounters(Decoded(body), {{{0, 1}, {1, 2}, {6, 3}, {10, 4}, {11, 5}}, {}});
  EXPECT_EQ(s.probes, (Pairs{{0, 1}, {6, 3}, {10, 4}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{2, 1}, {5, 4}}));
}

TEST(CounterSharing, AJumpTargetStartsANewRun) {
  // 0 ldarg.0; 1 brfalse.s ELSE; 3 nop; 4 ldc.i4.1; 5 stloc.0; 6 br.s END;
  // 8 ELSE: nop; 9 ldc.i4.2; 10 stloc.0; 11 END: nop; 12 ldloc.0; 13 ret
  Asm a;
  a.op(0x02).br(0x2C, "else").op(0x00).op(0x17).op(0x0A).br(op::kBrS, "end");
  a.label("else").op(0x00).op(0x18).op(0x0A).label("end").op(0x00).op(0x06).op(0x2A);
  auto body = Tiny(a.code());
  ASSERT_EQ(a.at("else"), 8u);
  ASSERT_EQ(a.at("end"), 11u);
  MethodProbes in{{{0, 1}, {3, 2}, {4, 3}, {8, 4}, {11, 5}, {13, 6}}, {{1, 20, {21}}}};
  SharedCounters s = ShareCounters(Decoded(body), in);
  // 3 and 8 begin blocks entered by one branch outcome each: the outcomes read those points' counters.
  // END has two ways in (br from 3's run, fall-through from 8's): its count is their sum; 13 shares it.
  EXPECT_EQ(s.probes, (Pairs{{0, 1}, {3, 2}, {8, 4}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{3, 2}, {6, 5}, {20, 2}, {21, 4}}));
  EXPECT_EQ(s.summed, (std::vector<std::array<uint32_t, 3>>{{5, 2, 4}}));
  ASSERT_EQ(s.branch_probes.size(), 1u);
  EXPECT_EQ(s.branch_probes[0].fall_through_slot, kNoProbeSlot);
  EXPECT_EQ(s.branch_probes[0].target_slots, (std::vector<uint32_t>{kNoProbeSlot}));
  // The rewrite: 3 probes, no outcome blocks (the branch is left as it is), and the body verifies.
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, s.probes, s.branch_probes, kInline, &out, &error)) << error;
  EXPECT_EQ(CountProbes(out), 3u);
  MethodBody nb = Decoded(out);
  EXPECT_TRUE(Verify(nb, &error)) << error;
  EXPECT_EQ(nb.instructions().size(), 12u + 3 * 7);  // 12 original instructions
}

TEST(CounterSharing, AnOutcomeIntoAJoinKeepsItsCounter) {
  // A loop: 0 br.s COND; 2 BODY: nop; 3 ldloc.0; 4 ldc.i4.1; 5 add; 6 stloc.0;
  // 7 COND: ldloc.0; 8 ldarg.0; 9 blt.s BODY; 11 nop; 12 ret
  Asm a;
  a.br(op::kBrS, "cond").label("body").op(0x00).op(0x06).op(0x17).op(0x58).op(0x0A);
  a.label("cond").op(0x06).op(0x02).br(0x32, "body").op(0x00).op(0x2A);
  auto body = Tiny(a.code());
  MethodProbes in{{{2, 1}, {3, 2}, {7, 3}, {11, 4}}, {{9, 10, {11}}}};
  SharedCounters s = ShareCounters(Decoded(body), in);
  // BODY is entered only by the backward branch: the taken outcome is its point's count. The exit
  // (fall-through to 11) reads point 11. COND has two ways in: its own counter.
  EXPECT_EQ(s.probes, (Pairs{{2, 1}, {7, 3}, {11, 4}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{2, 1}, {10, 4}, {11, 1}}));
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, s.probes, s.branch_probes, kInline, &out, &error)) << error;
  EXPECT_TRUE(Verify(Decoded(out), &error)) << error;
  EXPECT_EQ(CountProbes(out), 3u);
}

TEST(CounterSharing, ALoopConditionReadsEntryPlusBackEdge) {
  // As above with a point before the loop: 0 nop; 1 br.s COND; 3 BODY: nop; 4 ldloc.0; 5 ldc.i4.1; 6 add;
  // 7 stloc.0; 8 COND: ldloc.0; 9 ldarg.0; 10 blt.s BODY; 12 nop; 13 ret
  Asm a;
  a.op(0x00).br(op::kBrS, "cond").label("body").op(0x00).op(0x06).op(0x17).op(0x58).op(0x0A);
  a.label("cond").op(0x06).op(0x02).br(0x32, "body").op(0x00).op(0x2A);
  auto body = Tiny(a.code());
  ASSERT_EQ(a.at("cond"), 8u);
  MethodProbes in{{{0, 9}, {3, 1}, {4, 2}, {8, 3}, {12, 4}}, {{10, 10, {11}}}};
  SharedCounters s = ShareCounters(Decoded(body), in);
  // COND is entered by the br.s ending 0's run and by the fall-through ending BODY's run (nothing in
  // either can throw): COND counts 9 + 1, and loses its probe.
  EXPECT_EQ(s.probes, (Pairs{{0, 9}, {3, 1}, {12, 4}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{2, 1}, {10, 4}, {11, 1}}));
  EXPECT_EQ(s.summed, (std::vector<std::array<uint32_t, 3>>{{3, 9, 1}}));
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, s.probes, s.branch_probes, kInline, &out, &error)) << error;
  EXPECT_TRUE(Verify(Decoded(out), &error)) << error;
  EXPECT_EQ(CountProbes(out), 3u);
}

TEST(CounterSharing, AJoinIsNotSummedFromItselfNorFromAnEdgeThatCanThrow) {
  // 0 nop; 1 LOOP: nop; 2 ldarg.0; 3 brtrue.s LOOP; 5 ret -- LOOP's back edge is its own outcome: summed
  // from 0's run and the taken outcome. But 0 nop; 1 L: nop; 2 br.s L: the back edge is L's own run.
  {
    Asm a;
    a.op(0x00).label("l").op(0x00).br(op::kBrS, "l");
    SharedCounters s = ShareCounters(Decoded(Tiny(a.code())), {{{0, 1}, {1, 2}}, {}});
    EXPECT_TRUE(s.summed.empty());
    EXPECT_EQ(s.probes, (Pairs{{0, 1}, {1, 2}}));
  }
  {
    Asm a;
    a.op(0x00).label("l").op(0x00).op(0x02).br(0x2D, "l").op(0x2A);
    SharedCounters s = ShareCounters(Decoded(Tiny(a.code())), {{{0, 1}, {1, 2}}, {{3, 5, {6}}}});
    EXPECT_EQ(s.summed, (std::vector<std::array<uint32_t, 3>>{{2, 1, 6}}));
    EXPECT_EQ(s.probes, (Pairs{{0, 1}}));
  }
  {
    // 0 nop; 1 ldarg.0; 2 brtrue.s J; 4 call M; 9 J: nop; 10 ret -- the call's fall-through counts its
    // returns, which no counter does: J keeps its own.
    Asm a;
    a.op(0x00).op(0x02).br(0x2D, "j").tok(0x28, kVoid0).label("j").op(0x00).op(0x2A);
    SharedCounters s = ShareCounters(Decoded(Tiny(a.code())), {{{0, 1}, {a.at("j"), 2}}, {{2, 5, {6}}}});
    EXPECT_TRUE(s.summed.empty());
    EXPECT_EQ(s.probes, (Pairs{{0, 1}, {a.at("j"), 2}}));
  }
}

TEST(CounterSharing, PartlyDerivedBranchKeepsOnlyItsOtherOutcome) {
  // 0 ldarg.0; 1 brtrue.s T; 3 ldc.i4.0; 4 ret; 5 T: nop; 6 ldc.i4.1; 7 ret -- no point at 3.
  Asm a;
  a.op(0x02).br(0x2D, "t").op(0x16).op(0x2A).label("t").op(0x00).op(0x17).op(0x2A);
  auto body = Tiny(a.code());
  SharedCounters s = ShareCounters(Decoded(body), {{{0, 1}, {5, 2}}, {{1, 3, {4}}}});
  EXPECT_EQ(s.branch_probes[0].fall_through_slot, 3u);
  EXPECT_EQ(s.branch_probes[0].target_slots, (std::vector<uint32_t>{kNoProbeSlot}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{4, 2}}));
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, s.probes, s.branch_probes, kInline, &out, &error)) << error;
  MethodBody nb = Decoded(out);
  EXPECT_TRUE(Verify(nb, &error)) << error;
  EXPECT_EQ(CountProbes(out), 3u);
  // The taken edge goes straight to T's probe; no `br` follows the fall-through probe (no block after it).
  const auto& ins = nb.instructions();  // [0, 7): the probe of point 0; 7 ldarg.0
  ASSERT_EQ(ins[8].opcode, 0x2D);
  EXPECT_EQ(ins[9].opcode, 0x21);   // the fall-through probe
  EXPECT_EQ(ins[16].opcode, 0x16);  // then straight on to ldc.i4.0
  long t = nb.FindInstruction(static_cast<uint32_t>(ins[8].operand));
  ASSERT_GE(t, 0);
  EXPECT_EQ(ins[static_cast<size_t>(t)].opcode, 0x21);      // T's point probe
  EXPECT_EQ(ins[static_cast<size_t>(t) + 7].opcode, 0x00);  // then T's nop
}

TEST(CounterSharing, SwitchWithARepeatedTargetKeepsThatOutcome) {
  // 0 ldarg.0; 1 switch (A, A, B); 17 A: nop; 18 ret; 19 B: nop; 20 ret -- fall-through to 17 too.
  Asm a;
  a.op(0x02).sw({"a", "a", "b"}).label("a").op(0x00).op(0x2A).label("b").op(0x00).op(0x2A);
  auto body = Tiny(a.code());
  SharedCounters s = ShareCounters(Decoded(body), {{{0, 1}, {a.at("a"), 2}, {a.at("b"), 3}}, {{1, 10, {11, 12, 13}}}});
  EXPECT_EQ(s.branch_probes[0].fall_through_slot, 10u);
  EXPECT_EQ(s.branch_probes[0].target_slots, (std::vector<uint32_t>{11, 12, kNoProbeSlot}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{13, 3}}));
}

TEST(CounterSharing, HandlerStartsAndRegionBoundariesEndRuns) {
  // try { 0 nop; 1 call M; 6 leave.s END } catch { 8 pop; 9 nop; 10 leave.s END } 12 END: nop; 13 ret
  Asm a;
  a.op(0x00).tok(0x28, kVoid0).br(0xDE, "end").label("h").op(0x26).op(0x00).br(0xDE, "end");
  a.label("end").op(0x00).op(0x2A);
  ExceptionClause c{kClauseCatch, 0, 8, 8, 4, 0x01000001};
  auto body = Fat(a.code(), 8, 0, false, {SmallEh({c})});
  SharedCounters s = ShareCounters(Decoded(body), {{{0, 1}, {8, 2}, {9, 3}, {12, 4}, {13, 5}}, {}});
  // 9 shares the handler's first point; 12 (two leaves in) keeps its own; 13 shares 12.
  EXPECT_EQ(s.probes, (Pairs{{0, 1}, {8, 2}, {12, 4}}));
  EXPECT_EQ(Sorted(s.derived), (Pairs{{3, 2}, {5, 4}}));
}

TEST(CounterSharing, ValueProbesAndUnknownOffsetsAreLeftAlone) {
  auto body = Tiny(Asm().op(0x00).op(0x00).tok(0x28, kVoid0).op(0x2A).code());
  MethodProbes in{{{0, 1}, {3, 2}, {1, 3}}, {{2, 5, {6}, /*value=*/true}}};
  SharedCounters s = ShareCounters(Decoded(body), in);
  // 3 is inside the call: kept as given (the rewriter refuses it); the point at 1 shares 0.
  EXPECT_EQ(s.probes, (Pairs{{0, 1}, {3, 2}}));
  EXPECT_EQ(s.derived, (Pairs{{3, 1}}));
  EXPECT_EQ(s.branch_probes[0].fall_through_slot, 5u);
  EXPECT_TRUE(s.branch_probes[0].value);
}

TEST(CounterSharing, SumsTheDataFileCannotHoldAreRefused) {
  SharedCounters s;
  s.summed = {{1000 + 7, 1000 + 3, 1000 + 5}};
  EXPECT_TRUE(SumsFitDataFile(s, 1000));
  EXPECT_FALSE(SumsFitDataFile(s, 1004));  // source 3 would lie before the module's first slot
  s.summed.push_back({1000 + 8, 1000 + 3, 1000 + kMaxSummedSource});
  EXPECT_TRUE(SumsFitDataFile(s, 1000));
  s.summed.push_back({1000 + 9, 1000 + kMaxSummedSource + 1, 1000 + 3});  // the file keeps 31 bits a source
  EXPECT_FALSE(SumsFitDataFile(s, 1000));
  EXPECT_TRUE(SumsFitDataFile(SharedCounters{}, 0));
}
