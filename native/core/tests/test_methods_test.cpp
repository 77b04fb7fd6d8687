// Per-test contexts in the core: the try/finally wrap of a test method's body
// and the locals/return-type signature work it needs.
#include "dotcov/test_methods.h"

#include <gtest/gtest.h>

#include "dotcov/il_rewriter.h"
#include "il_assembler.h"

using namespace dotcov;
using namespace dotcov::il;
using namespace dotcov::il::testing;

namespace {

constexpr uint32_t kEnter = 0x0A000010, kExit = 0x0A000011, kLocals = 0x11000005;

// Decodes a rewritten body and checks it structurally (calls: Enter pops 1 pushes 1, Exit pops 1, probes' helper pops 1).
MethodBody CheckWrapped(const std::vector<uint8_t>& out, int return_values) {
  MethodBody nb;
  std::string error;
  EXPECT_TRUE(MethodBody::Decode(out, &nb, &error)) << error;
  VerifyOptions options;
  options.return_values = return_values;
  options.call_resolver = [](uint32_t token, int* pops, int* pushes) {
    *pops = 1;
    *pushes = token == kEnter ? 1 : 0;
    return true;
  };
  EXPECT_TRUE(Verify(nb, &error, options)) << error;
  return nb;
}

}  // namespace

TEST(ContextWrap, ValueReturningBodyWithTwoRetsBecomesTryFinally) {
  // ldarg.0; brfalse.s L; ldc.i4.1; ret; L: ldc.i4.2; ret
  auto body = Tiny(Asm().op(0x02).br(0x2C, "L").op(0x17).op(op::kRet).label("L").op(0x18).op(op::kRet).code());
  ContextWrap wrap{7, kEnter, kExit, kLocals, 0, 1};
  std::vector<uint8_t> out;
  std::vector<OffsetMapEntry> map;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {{0, 3}, {4, 4}}, {}, ProbeStyle{0x0A000001, 0}, &out, &error, &map, &wrap))
      << error;
  MethodBody nb = CheckWrapped(out, 1);
  EXPECT_EQ(nb.local_var_sig_token(), kLocals);
  ASSERT_EQ(nb.clauses().size(), 1u);
  const ExceptionClause& c = nb.clauses()[0];
  EXPECT_EQ(c.flags, kClauseFinally);
  // The prologue (ldc.i4 7; call Enter; stloc 0) precedes the try block.
  EXPECT_EQ(nb.instructions()[0].operand, 7);
  EXPECT_EQ(nb.instructions()[1].operand, kEnter);
  EXPECT_EQ(nb.instructions()[2].opcode, 0xFE0E);
  EXPECT_EQ(c.try_offset, nb.instructions()[3].offset);
  // No ret inside the try block; exactly one ret, after the handler.
  int rets = 0;
  for (const Instruction& ins : nb.instructions()) {
    if (ins.opcode != op::kRet) continue;
    ++rets;
    EXPECT_GE(ins.offset, c.handler_offset + c.handler_length);
  }
  EXPECT_EQ(rets, 1);
  // One map entry per original instruction; the prologue belongs to the first.
  ASSERT_EQ(map.size(), 6u);
  EXPECT_EQ(map[0], (OffsetMapEntry{0, 0}));
  EXPECT_EQ(TranslateToOriginal(map, 1), 0u);
}

TEST(ContextWrap, VoidBodyInsideExistingHandlersKeepsThemInnermost) {
  // try { nop; leave.s E } catch [object] { pop; leave.s E }  E: ret
  Asm a;
  a.label("T").op(op::kNop).br(op::kLeaveS, "E").label("H").op(0x26).br(op::kLeaveS, "E").label("E").op(op::kRet);
  auto code = a.code();
  ExceptionClause catch_all{kClauseCatch, 0, a.labels["H"], a.labels["H"], a.labels["E"] - a.labels["H"], 0x01000001};
  auto body = Fat(code, 2, 0, false, {SmallEh({catch_all})});
  ContextWrap wrap{1, kEnter, kExit, kLocals, 0, -1};
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {}, {}, ProbeStyle{0x0A000001, 0}, &out, &error, nullptr, &wrap)) << error;
  MethodBody nb = CheckWrapped(out, 0);
  ASSERT_EQ(nb.clauses().size(), 2u);
  EXPECT_EQ(nb.clauses()[0].flags, kClauseCatch);
  EXPECT_EQ(nb.clauses()[1].flags, kClauseFinally);
  EXPECT_LE(nb.clauses()[1].try_offset, nb.clauses()[0].try_offset);
}

TEST(ContextWrap, TailCallsAndLocallocAreRefused) {
  std::string error;
  std::vector<uint8_t> out;
  ContextWrap wrap{1, kEnter, kExit, kLocals, 0, -1};
  auto tail = Tiny(Asm().op(op::kTail).tok(op::kCall, 0x0A000002).op(op::kRet).code());
  EXPECT_FALSE(InsertProbes(tail, {}, {}, ProbeStyle{1, 0}, &out, &error, nullptr, &wrap));
  EXPECT_NE(error.find("tail"), std::string::npos);
  auto alloc = Tiny(Asm().op(0x16).op(0xFE0F).op(0x26).op(op::kRet).code());
  EXPECT_FALSE(InsertProbes(alloc, {}, {}, ProbeStyle{1, 0}, &out, &error, nullptr, &wrap));
}

TEST(ContextWrap, LocalsSignatureGetsTheNewLocals) {
  std::vector<uint8_t> out;
  uint32_t count = 0;
  std::string error;
  // No locals, void: one int32.
  ASSERT_TRUE(ExtendLocals({}, {}, &out, &count, &error)) << error;
  EXPECT_EQ(out, (std::vector<uint8_t>{0x07, 0x01, 0x08}));
  EXPECT_EQ(count, 0u);
  // (string, class Task<int>) + int32 + the return type (class 0x49).
  const uint8_t locals[] = {0x07, 0x02, 0x0E, 0x15, 0x12, 0x49, 0x01, 0x08};
  const uint8_t ret[] = {0x12, 0x49};
  ASSERT_TRUE(ExtendLocals(locals, ret, &out, &count, &error)) << error;
  EXPECT_EQ(out, (std::vector<uint8_t>{0x07, 0x04, 0x0E, 0x15, 0x12, 0x49, 0x01, 0x08, 0x08, 0x12, 0x49}));
  EXPECT_EQ(count, 2u);
  const uint8_t bad[] = {0x07, 0x02, 0x0E};
  EXPECT_FALSE(ExtendLocals(bad, {}, &out, &count, &error));
}

TEST(ContextWrap, ReturnTypeOfMethodSignatures) {
  Bytes ret;
  std::string error;
  const uint8_t void_sig[] = {0x20, 0x00, 0x01};  // instance void ()
  ASSERT_TRUE(ReturnTypeOf(void_sig, &ret, &error)) << error;
  EXPECT_TRUE(ret.empty());
  const uint8_t task_sig[] = {0x20, 0x01, 0x12, 0x49, 0x08};  // instance class Task (int32)
  ASSERT_TRUE(ReturnTypeOf(task_sig, &ret, &error)) << error;
  EXPECT_EQ(std::vector<uint8_t>(ret.begin(), ret.end()), (std::vector<uint8_t>{0x12, 0x49}));
  const uint8_t generic_sig[] = {0x30, 0x01, 0x00, 0x15, 0x11, 0x4D, 0x01, 0x1E, 0x00};  // ValueTask<!!0> M<T>()
  ASSERT_TRUE(ReturnTypeOf(generic_sig, &ret, &error)) << error;
  EXPECT_EQ(ret.size(), 6u);
  const uint8_t typedref_sig[] = {0x00, 0x00, 0x16};
  EXPECT_FALSE(ReturnTypeOf(typedref_sig, &ret, &error));
  EXPECT_TRUE(IsTestAttribute("Xunit.FactAttribute"));
  EXPECT_TRUE(IsTestAttribute("NUnit.Framework.TestCaseAttribute"));
  EXPECT_FALSE(IsTestAttribute("Xunit.CollectionAttribute"));
}
