#include "dotcov/probe_fallback.h"

#include <gtest/gtest.h>

#include "il_assembler.h"

using namespace dotcov;
using namespace dotcov::il;
using namespace dotcov::il::testing;

namespace {
constexpr uint32_t kHelper = 0x0A00FFFF;

// ldarg.0; ldc.i4 1000 (5 bytes, offsets 1..5); add; ret
std::vector<uint8_t> Body() { return Tiny(Asm().op(0x02).op(0x20).u32(1000).op(0x58).op(op::kRet).code()); }
}  // namespace

TEST(ProbeFallback, AcceptedSetIsInsertedAsIs) {
  std::vector<uint8_t> expected, out;
  std::vector<RefusedProbe> refused;
  std::string error;
  ASSERT_TRUE(InsertProbes(Body(), {{0, 1}, {6, 2}}, {}, ProbeStyle{kHelper, 0}, &expected, &error)) << error;
  ASSERT_TRUE(InsertProbesSkippingRefused(Body(), {{0, 1}, {6, 2}}, {}, ProbeStyle{kHelper, 0}, &out, &refused,
                                          &error))
      << error;
  EXPECT_TRUE(refused.empty());
  EXPECT_EQ(out, expected);
}

TEST(ProbeFallback, ARefusedSiteIsSkippedAloneAndTheRestIsProbed) {
  // Offset 3 is inside ldc.i4's operand: the rewriter refuses it, and with it the whole set.
  std::vector<uint8_t> all, out, expected;
  std::string error;
  ASSERT_FALSE(InsertProbes(Body(), {{0, 1}, {3, 2}, {6, 3}}, {}, ProbeStyle{kHelper, 0}, &all, &error));
  std::vector<RefusedProbe> refused;
  ASSERT_TRUE(InsertProbesSkippingRefused(Body(), {{0, 1}, {3, 2}, {6, 3}}, {}, ProbeStyle{kHelper, 0}, &out,
                                          &refused, &error))
      << error;
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_FALSE(refused[0].branch);
  EXPECT_EQ(refused[0].index, 1u);
  EXPECT_FALSE(refused[0].reason.empty());
  ASSERT_TRUE(InsertProbes(Body(), {{0, 1}, {6, 3}}, {}, ProbeStyle{kHelper, 0}, &expected, &error)) << error;
  EXPECT_EQ(out, expected);
}

TEST(ProbeFallback, ARefusedBranchProbeIsSkippedAlone) {
  // A branch probe naming an instruction that is not a conditional branch.
  std::vector<uint8_t> out;
  std::vector<RefusedProbe> refused;
  std::string error;
  ASSERT_TRUE(InsertProbesSkippingRefused(Body(), {{0, 1}}, {{6, 2, {3}}}, ProbeStyle{kHelper, 0}, &out, &refused,
                                          &error))
      << error;
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_TRUE(refused[0].branch);
}

TEST(ProbeFallback, AnUndecodableBodyFailsWholeWithTheRewritersReason) {
  std::vector<uint8_t> garbage = {0xFF, 0xFF, 0xFF}, out;
  std::vector<RefusedProbe> refused;
  std::string error;
  EXPECT_FALSE(InsertProbesSkippingRefused(garbage, {{0, 1}}, {}, ProbeStyle{kHelper, 0}, &out, &refused, &error));
  EXPECT_TRUE(refused.empty());
  EXPECT_FALSE(error.empty());
}
