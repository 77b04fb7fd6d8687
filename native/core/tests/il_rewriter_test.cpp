#include "dotcov/il_rewriter.h"
#include "dotcov/rewrite_check.h"
#include "il_assembler.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

using namespace dotcov;
using namespace dotcov::il;

namespace {

using namespace dotcov::il::testing;

// --- tokens and signatures -----------------------------------------------

constexpr uint32_t kHelper = 0x0A00FFFF;    // static void Hit(int32)
constexpr uint32_t kVoid1 = 0x0A000011;     // instance void M() / static void M(object): pops 1
constexpr uint32_t kVoid0 = 0x0A000012;     // static void M()
constexpr uint32_t kInt0 = 0x0A000013;      // static int M()
constexpr uint32_t kCtor1 = 0x0A000014;     // instance void .ctor(int32): pops 2 as a call
constexpr uint32_t kField = 0x04000001;
constexpr uint32_t kType = 0x01000001;

VerifyOptions Opts() {
  VerifyOptions o;
  o.call_resolver = [](uint32_t token, int* pops, int* pushes) {
    static const std::map<uint32_t, std::pair<int, int>> sigs = {
        {kHelper, {1, 0}}, {CheckAtomicToken(kHelper), {1, 1}}, {kVoid1, {1, 0}}, {kVoid0, {0, 0}},
        {kInt0, {0, 1}},   {kCtor1, {2, 0}}};
    auto it = sigs.find(token);
    if (it == sigs.end()) return false;
    *pops = it->second.first;
    *pushes = it->second.second;
    return true;
  };
  return o;
}

using Probes = std::vector<std::pair<uint32_t, uint32_t>>;

// The new offsets of each original instruction's group: [label[j], label[j + 1]).
std::vector<std::vector<uint32_t>> Groups(const MethodBody& nb, const std::vector<uint32_t>& label) {
  std::vector<std::vector<uint32_t>> groups(label.size());
  size_t j = 0;
  for (const Instruction& ins : nb.instructions()) {
    while (j + 1 < label.size() && ins.offset >= label[j + 1]) ++j;
    if (j < label.size() && ins.offset >= label[j]) groups[j].push_back(ins.offset);
  }
  return groups;
}

// Rewrites again asking for the IL offset map: the same bytes; one entry per
// original instruction, strictly increasing in both offsets, mapping it to the
// first new offset of its group (`groups[j]`: the new offsets of every
// instruction of original instruction j's group, its probes, itself and any
// outcome blocks); every offset of a group translates back to the original
// instruction, as the runtime's lookup does.
void CheckIlMap(const std::vector<uint8_t>& original, const Probes& probes, const std::vector<BranchProbe>& branches,
                const std::vector<uint8_t>& expected_out, const MethodBody& orig,
                const std::vector<std::vector<uint32_t>>& groups) {
  std::vector<uint8_t> out;
  std::vector<OffsetMapEntry> map;
  std::string error;
  ASSERT_TRUE(InsertProbes(original, probes, branches, ProbeStyle{kHelper, 0}, &out, &error, &map)) << error;
  EXPECT_EQ(out, expected_out);
  const auto& oi = orig.instructions();
  ASSERT_EQ(map.size(), oi.size());
  ASSERT_EQ(groups.size(), oi.size());
  for (size_t j = 0; j < oi.size(); ++j) {
    EXPECT_EQ(map[j].old_offset, oi[j].offset);
    ASSERT_FALSE(groups[j].empty());
    EXPECT_EQ(map[j].new_offset, groups[j].front()) << "original offset " << oi[j].offset;
    if (j > 0) {
      EXPECT_LT(map[j - 1].old_offset, map[j].old_offset);
      EXPECT_LT(map[j - 1].new_offset, map[j].new_offset);
    }
    for (uint32_t o : groups[j])
      EXPECT_EQ(TranslateToOriginal(map, o), oi[j].offset) << "new offset " << o;
  }
}

// Rewrites `original`, then decodes the output and checks: Verify passes; each
// requested probe (ldc.i4 <slot>; call kHelper, 5-byte ldc.i4) sits right
// before its instruction in request order and nowhere else; the remaining
// instructions equal the original ones (short branches possibly widened) with
// every branch/switch target, EH boundary and filter start re-mapped to the
// probe start of the original target; max stack + 1; locals kept.
void RewriteAndCheck(const std::vector<uint8_t>& original, const Probes& probes, MethodBody* result = nullptr,
                     const VerifyOptions& opts = Opts()) {
  MethodBody orig;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(original, &orig, &error)) << error;
  std::vector<uint8_t> out;
  ASSERT_TRUE(InsertProbes(original, probes, kHelper, &out, &error)) << error;
  MethodBody nb;
  ASSERT_TRUE(MethodBody::Decode(out, &nb, &error)) << error;
  EXPECT_TRUE(Verify(nb, &error, opts)) << error;

  std::map<uint32_t, std::vector<uint32_t>> expected;
  for (const auto& [off, slot] : probes) expected[off].push_back(slot);
  const auto& oi = orig.instructions();
  const auto& ni = nb.instructions();
  std::vector<uint32_t> label(oi.size()), at(oi.size());
  size_t i = 0;
  for (size_t j = 0; j < oi.size(); ++j) {
    ASSERT_LT(i, ni.size());
    label[j] = ni[i].offset;
    std::vector<uint32_t> slots;
    while (i + 1 < ni.size() && ni[i].opcode == op::kLdcI4 && ni[i + 1].opcode == op::kCall &&
           ni[i + 1].operand == kHelper) {
      EXPECT_EQ(ni[i].Size(), 5u);
      slots.push_back(static_cast<uint32_t>(ni[i].operand));
      i += 2;
    }
    ASSERT_LT(i, ni.size());
    at[j] = ni[i].offset;
    EXPECT_EQ(slots, expected[oi[j].offset]) << "probes before original IL offset " << oi[j].offset;
    EXPECT_TRUE(ni[i].opcode == oi[j].opcode ||
                (IsShortBranch(oi[j].opcode) && ni[i].opcode == LongFormOf(oi[j].opcode)))
        << "opcode at original offset " << oi[j].offset;
    ++i;
  }
  EXPECT_EQ(i, ni.size());
  auto map_start = [&](uint64_t o) -> int64_t {
    long idx = orig.FindInstruction(static_cast<uint32_t>(o));
    EXPECT_GE(idx, 0) << o;
    return idx < 0 ? -1 : label[static_cast<size_t>(idx)];
  };
  auto map_end = [&](uint64_t o) -> int64_t { return o == orig.code_size() ? nb.code_size() : map_start(o); };
  i = 0;
  for (size_t j = 0; j < oi.size(); ++j) {
    while (ni[i].offset != at[j]) ++i;
    const Instruction& a = oi[j];
    const Instruction& b = ni[i];
    if (IsBranch(a.opcode)) {
      EXPECT_EQ(b.operand, map_start(static_cast<uint64_t>(a.operand))) << "branch at original " << a.offset;
    } else if (a.opcode == op::kSwitch) {
      ASSERT_EQ(a.switch_targets.size(), b.switch_targets.size());
      for (size_t k = 0; k < a.switch_targets.size(); ++k)
        EXPECT_EQ(b.switch_targets[k], map_start(static_cast<uint32_t>(a.switch_targets[k])));
    } else {
      EXPECT_EQ(a.operand, b.operand);
    }
  }
  ASSERT_EQ(orig.clauses().size(), nb.clauses().size());
  for (size_t k = 0; k < orig.clauses().size(); ++k) {
    const ExceptionClause& a = orig.clauses()[k];
    const ExceptionClause& b = nb.clauses()[k];
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(b.try_offset, map_start(a.try_offset));
    EXPECT_EQ(b.try_offset + b.try_length, map_end(uint64_t{a.try_offset} + a.try_length));
    EXPECT_EQ(b.handler_offset, map_start(a.handler_offset));
    EXPECT_EQ(b.handler_offset + b.handler_length, map_end(uint64_t{a.handler_offset} + a.handler_length));
    if (a.is_filter())
      EXPECT_EQ(b.class_token_or_filter_offset, map_start(a.class_token_or_filter_offset));
    else
      EXPECT_EQ(b.class_token_or_filter_offset, a.class_token_or_filter_offset);
  }
  EXPECT_EQ(nb.max_stack(), orig.max_stack() + (probes.empty() ? 0 : 1));
  EXPECT_EQ(nb.local_var_sig_token(), orig.local_var_sig_token());
  EXPECT_EQ(nb.init_locals(), orig.init_locals());
  if (probes.empty()) {
    EXPECT_EQ(out, original);
  }
  // The IL offset map: each original instruction from its group start (its
  // first probe), and every rewritten instruction translates back to the
  // original instruction of its group.
  CheckIlMap(original, probes, {}, out, orig, Groups(nb, label));
  if (result) *result = std::move(nb);
}

std::string InsertError(const std::vector<uint8_t>& original, const Probes& probes) {
  std::vector<uint8_t> out{1, 2, 3};
  std::string error;
  bool ok = InsertProbes(original, probes, kHelper, &out, &error);
  EXPECT_FALSE(ok);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3})) << "output must be untouched on failure";
  EXPECT_FALSE(error.empty());
  return error;
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<uint32_t> Offsets(const std::vector<uint8_t>& body) {
  MethodBody m;
  std::string error;
  EXPECT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  std::vector<uint32_t> v;
  for (const auto& ins : m.instructions()) v.push_back(ins.offset);
  return v;
}

Probes AllOffsets(const std::vector<uint8_t>& body) {
  Probes p;
  uint32_t slot = 100;
  for (uint32_t o : Offsets(body)) p.push_back({o, slot++});
  return p;
}

}  // namespace

TEST(IlRewriter, TinyBodyGetsProbesAndBecomesFat) {
  auto body = Tiny(Asm().op(0x02).op(0x03).op(0x58).op(op::kRet).code());  // ldarg.0 ldarg.1 add ret
  MethodBody nb;
  RewriteAndCheck(body, {{0, 7}, {2, 8}, {3, 9}}, &nb);
  EXPECT_TRUE(nb.fat_header());  // implied max stack 8 + 1
  EXPECT_EQ(nb.max_stack(), 9);
  ASSERT_EQ(nb.instructions().size(), 10u);
  EXPECT_EQ(nb.instructions()[0].operand, 7);
  // Exact bytes of the first probe.
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {{0, 0x01020304}}, kHelper, &out, &error)) << error;
  std::vector<uint8_t> expected = {0x03, 0x30, 9, 0, 14, 0, 0, 0, 0, 0, 0, 0,
                                   0x20, 0x04, 0x03, 0x02, 0x01, 0x28, 0xFF, 0xFF, 0x00, 0x0A,
                                   0x02, 0x03, 0x58, 0x2A};
  EXPECT_EQ(out, expected);
}

TEST(IlRewriter, TinyPromotedToFatOnlyWhenCodePasses63Bytes) {
  auto body = Tiny(Asm().nops(59).op(op::kRet).code());  // 60 bytes
  auto rewrite = [&](int probes) {
    MethodBody m;
    std::string error;
    EXPECT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
    for (int i = 0; i < probes; ++i) EXPECT_TRUE(m.InsertBefore(i, {MakeInstruction(op::kNop)}, &error)) << error;
    std::vector<uint8_t> out;
    EXPECT_TRUE(m.Encode(&out, &error)) << error;
    EXPECT_TRUE(Verify(m, &error)) << error;
    return out;
  };
  auto three = rewrite(3);  // 63 bytes
  EXPECT_EQ(three.size(), 64u);
  EXPECT_EQ(three[0], 0x2 | (63 << 2));
  auto four = rewrite(4);  // 64 bytes
  ASSERT_EQ(four.size(), 12u + 64);
  EXPECT_EQ(four[0] & 0x3, 0x3);
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(four, &m, &error)) << error;
  EXPECT_EQ(m.max_stack(), 8);  // nop probes need no stack
  EXPECT_EQ(m.code_size(), 64u);
  EXPECT_FALSE(m.init_locals());
  EXPECT_EQ(m.local_var_sig_token(), 0u);
}

TEST(IlRewriter, FatBodyKeepsLocalsAndInitLocals) {
  Asm a;
  a.op(0x16).op(0x0A).op(0x06).op(0x17).op(0x58).op(0x0A).op(0x06).op(op::kRet);  // loc0 = 0; loc0 += 1; ret loc0
  auto body = Fat(a.code(), 2, 0x11000003, true);
  MethodBody nb;
  RewriteAndCheck(body, AllOffsets(body), &nb);
  EXPECT_TRUE(nb.init_locals());
  EXPECT_EQ(nb.local_var_sig_token(), 0x11000003u);
  EXPECT_EQ(nb.max_stack(), 3);
  RewriteAndCheck(Fat(a.code(), 2, 0x11000003, false), {{2, 1}});
}

TEST(IlRewriter, NoProbesReproducesTheBody) {
  Asm a;
  a.op(op::kNop).br(op::kLeaveS, "end").label("h").op(0x26).br(op::kLeaveS, "end").label("end").op(op::kRet);
  auto body = Fat(a.code(), 1, 0, false, {SmallEh({{kClauseCatch, 0, 3, 3, 3, kType}})});
  RewriteAndCheck(body, {});
}

TEST(IlRewriter, PrefixesStayWithTheirInstructions) {
  Asm a;
  a.label("ldarg").op(0x02);                                          // ldarg.0 (int*)
  a.label("unaligned").op(op::kUnaligned).u8(1).label("ldind").op(0x4A).op(0x26);  // unaligned. 1 ldind.i4; pop
  a.label("volatile").op(op::kVolatile).label("ldsfld").tok(0x7E, kField).op(0x26);
  a.op(0x02).op(0x16).label("readonly").op(op::kReadonly).label("ldelema").tok(0x8F, kType).op(0x26);
  a.op(0x0F).u8(0).label("constrained").tok(op::kConstrained, kType).label("callvirt").tok(op::kCallvirt, kVoid1);
  a.op(0x02).op(0x16).label("no").op(op::kNo).u8(2).label("ldelem").op(0x9A).op(0x26);
  a.label("tail").op(op::kTail).label("call").tok(op::kCall, kVoid0).label("ret").op(op::kRet);
  auto body = Fat(a.code(), 2);
  std::set<uint32_t> after_prefix = {a.at("ldind"), a.at("ldsfld"), a.at("ldelema"), a.at("callvirt"),
                                     a.at("ldelem"), a.at("call")};
  Probes allowed;
  for (uint32_t o : Offsets(body)) {
    if (after_prefix.count(o)) {
      EXPECT_TRUE(Contains(InsertError(body, {{o, 1}}), "follows a prefix")) << o;
    } else if (o == a.at("ret")) {
      EXPECT_TRUE(Contains(InsertError(body, {{o, 1}}), "tail call"));
    } else {
      RewriteAndCheck(body, {{o, 1}});
      allowed.push_back({o, o + 1000});
    }
  }
  EXPECT_EQ(allowed.size(), Offsets(body).size() - 7);
  MethodBody nb;
  RewriteAndCheck(body, allowed, &nb);
  // Each prefix is still immediately followed by its instruction.
  const auto& ins = nb.instructions();
  for (size_t i = 0; i + 1 < ins.size(); ++i) {
    if (IsPrefix(ins[i].opcode)) {
      EXPECT_NE(ins[i + 1].opcode, op::kLdcI4);
    }
  }
  EXPECT_EQ(ins.back().opcode, op::kRet);
  EXPECT_EQ(ins[ins.size() - 2].opcode, op::kCall);
  EXPECT_EQ(ins[ins.size() - 3].opcode, op::kTail);
}

TEST(IlRewriter, TailCallAndItsRetStayTogether) {
  auto tail = Asm().op(0x02).op(op::kTail).tok(op::kCall, kVoid1).op(op::kRet).code();  // ret at 7
  EXPECT_TRUE(Contains(InsertError(Tiny(tail), {{8, 1}}), "tail call"));
  EXPECT_TRUE(Contains(InsertError(Tiny(tail), {{3, 1}}), "prefix"));
  RewriteAndCheck(Tiny(tail), {{0, 1}, {1, 2}});
  // constrained. tail. callvirt; ret
  auto ctail = Asm().op(0x02).tok(op::kConstrained, kType).op(op::kTail).tok(op::kCallvirt, kVoid1).op(op::kRet).code();
  EXPECT_TRUE(Contains(InsertError(Tiny(ctail), {{14, 1}}), "tail call"));
  // Without tail. a probe before ret is fine.
  auto plain = Asm().op(0x02).tok(op::kCall, kVoid1).op(op::kRet).code();
  RewriteAndCheck(Tiny(plain), {{6, 1}});
  // A ret after a tail. prefixed non-call (not a tail call) is not special.
  auto other = Asm().op(0x02).op(0x26).op(op::kRet).code();
  RewriteAndCheck(Tiny(other), {{2, 1}});
}

TEST(IlRewriter, SwitchTargetsFollowProbes) {
  Asm a;
  a.op(0x02).sw({"A", "B", "C", "A"}).br(op::kBrS, "D");
  a.label("A").op(op::kNop).br(op::kBrS, "D");
  a.label("B").op(op::kNop).br(op::kBrS, "D");
  a.label("C").op(op::kNop);
  a.label("D").op(op::kRet);
  auto body = Tiny(a.code());
  RewriteAndCheck(body, {{a.at("A"), 1}, {a.at("B"), 2}, {a.at("C"), 3}, {a.at("D"), 4}});
  RewriteAndCheck(body, AllOffsets(body));
  RewriteAndCheck(body, {{a.at("B"), 2}});
}

TEST(IlRewriter, ShortBranchWidenedExactlyWhenNeeded) {
  // br.s T over 117 nops: displacement 117; each probe inside adds 10.
  Asm a;
  a.br(op::kBrS, "T").label("n0").op(op::kNop).label("n1").nops(116).label("T").op(op::kRet);
  auto body = Fat(a.code(), 0);
  auto first_opcode = [](const MethodBody& m) { return m.instructions()[0].opcode; };
  MethodBody nb;
  RewriteAndCheck(body, {{a.at("n0"), 1}}, &nb);  // 127: fits
  EXPECT_EQ(first_opcode(nb), op::kBrS);
  RewriteAndCheck(body, {{0, 5}, {a.at("n0"), 1}, {a.at("T"), 2}}, &nb);  // a probe at the target does not count
  EXPECT_EQ(first_opcode(nb), op::kLdcI4);
  EXPECT_EQ(nb.instructions()[2].opcode, op::kBrS);
  RewriteAndCheck(body, {{a.at("n0"), 1}, {a.at("n1"), 2}}, &nb);  // 137: widened
  EXPECT_EQ(first_opcode(nb), op::kBr);
  EXPECT_EQ(nb.instructions()[0].operand, nb.instructions().back().offset);

  // Conditional short branch, same rule.
  Asm c;
  c.op(0x02).br(0x2D, "T").label("n0").op(op::kNop).label("n1").nops(116).label("T").op(op::kRet);
  RewriteAndCheck(Fat(c.code(), 1), {{c.at("n0"), 1}}, &nb);
  EXPECT_EQ(nb.instructions()[1].opcode, 0x2D);
  RewriteAndCheck(Fat(c.code(), 1), {{c.at("n0"), 1}, {c.at("n1"), 2}}, &nb);
  EXPECT_EQ(nb.instructions()[1].opcode, 0x3A);  // brtrue
}

TEST(IlRewriter, BackwardBranches) {
  // T: 116 nops; br.s T (displacement -118); a probe at T moves the target back.
  Asm a;
  a.label("T").op(op::kNop).label("n1").nops(115).label("br").br(op::kBrS, "T").op(op::kRet);
  auto body = Fat(a.code(), 0);
  MethodBody nb;
  RewriteAndCheck(body, {{a.at("n1"), 1}}, &nb);  // -128: fits
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 2].opcode, op::kBrS);
  RewriteAndCheck(body, {{a.at("T"), 1}}, &nb);  // target is the probe: -128
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 2].opcode, op::kBrS);
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 2].operand, 0);
  RewriteAndCheck(body, {{a.at("T"), 1}, {a.at("n1"), 2}}, &nb);  // -138
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 2].opcode, op::kBr);
  RewriteAndCheck(body, {{a.at("br"), 1}, {a.at("n1"), 2}}, &nb);  // the probe before the branch counts: -138
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 2].opcode, op::kBr);
  RewriteAndCheck(body, {{a.at("br") + 2, 1}}, &nb);  // after the branch: no effect
  EXPECT_EQ(nb.instructions()[nb.instructions().size() - 4].opcode, op::kBrS);
}

TEST(IlRewriter, WideningCascades) {
  // A: br.s TA (displacement 125) spans B: br.s TB (displacement 124). A probe
  // at TA widens B (+10 for B, not for A); B's widening (+3) then widens A.
  Asm a;
  a.label("A").br(op::kBrS, "TA").label("B").br(op::kBrS, "TB").nops(123).label("TA").op(op::kNop).label("TB").op(
      op::kRet);
  auto body = Fat(a.code(), 0);
  ASSERT_EQ(a.at("TA"), 127u);
  MethodBody nb;
  RewriteAndCheck(body, {{a.at("TA"), 1}}, &nb);
  EXPECT_EQ(nb.instructions()[0].opcode, op::kBr);
  EXPECT_EQ(nb.instructions()[1].opcode, op::kBr);
  RewriteAndCheck(body, {{a.at("TB"), 1}}, &nb);
  EXPECT_EQ(nb.instructions()[0].opcode, op::kBrS);
  EXPECT_EQ(nb.instructions()[1].opcode, op::kBrS);
  RewriteAndCheck(body, AllOffsets(body));
}

TEST(IlRewriter, TryCatch) {
  Asm a;
  a.label("try").op(op::kNop).op(0x02).tok(op::kCall, kVoid1).br(op::kLeaveS, "end");
  a.label("h").op(0x26).br(op::kLeaveS, "end");  // catch: the exception object is on the stack
  a.label("end").op(op::kRet);
  ExceptionClause c{kClauseCatch, 0, a.at("h"), a.at("h"), a.at("end") - a.at("h"), kType};
  auto body = Fat(a.code(), 1, 0, false, {SmallEh({c})});
  MethodBody nb;
  RewriteAndCheck(body, AllOffsets(body), &nb);
  ASSERT_EQ(nb.clauses().size(), 1u);
  const ExceptionClause& n = nb.clauses()[0];
  // The probes at try start and handler start are inside their regions.
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.try_offset)].opcode, op::kLdcI4);
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.handler_offset)].opcode, op::kLdcI4);
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.handler_offset) + 2].opcode, 0x26);
  // The probe at `end` is after the handler.
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.handler_offset + n.handler_length)].opcode, op::kLdcI4);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{false, 1}}));
  RewriteAndCheck(body, {{a.at("h"), 1}});
  RewriteAndCheck(body, {{a.at("end"), 1}});
}

TEST(IlRewriter, TryFinallyAndFault) {
  for (uint32_t kind : {kClauseFinally, kClauseFault}) {
    Asm a;
    a.label("try").op(op::kNop).br(op::kLeaveS, "end");
    a.label("h").op(op::kNop).op(op::kEndfinally);
    a.label("end").op(op::kRet);
    ExceptionClause c{kind, 0, a.at("h"), a.at("h"), a.at("end") - a.at("h"), 0};
    auto body = Fat(a.code(), 0, 0, false, {SmallEh({c})});
    RewriteAndCheck(body, AllOffsets(body));
    RewriteAndCheck(body, {{a.at("h"), 1}});
    RewriteAndCheck(body, {{a.at("h") + 1, 1}, {a.at("end"), 2}});
  }
}

TEST(IlRewriter, FilterStartAndHandlerStartBothProbed) {
  Asm a;
  a.label("try").op(op::kNop).br(op::kLeaveS, "end");
  a.label("filter").op(0x26).op(0x17).op(op::kEndfilter);  // pop; ldc.i4.1; endfilter
  a.label("h").op(0x26).br(op::kLeaveS, "end");
  a.label("end").op(op::kRet);
  ExceptionClause c{kClauseFilter, 0, a.at("filter"), a.at("h"), a.at("end") - a.at("h"), a.at("filter")};
  auto body = Fat(a.code(), 1, 0, false, {SmallEh({c})});
  MethodBody nb;
  RewriteAndCheck(body, {{a.at("filter"), 1}, {a.at("h"), 2}}, &nb);
  const ExceptionClause& n = nb.clauses()[0];
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.class_token_or_filter_offset)].operand, 1);
  EXPECT_EQ(nb.instructions()[nb.FindInstruction(n.handler_offset)].operand, 2);
  EXPECT_EQ(n.try_length, 3u);  // try ends where the filter's probe starts
  RewriteAndCheck(body, AllOffsets(body));
}

TEST(IlRewriter, NestedTryInTryAndSeveralSections) {
  Asm a;
  a.label("t").op(op::kNop).br(op::kLeaveS, "x");     // inner and outer try start at 0
  a.label("c").op(0x26).br(op::kLeaveS, "x");         // inner catch
  a.label("x").br(op::kLeaveS, "end");                // still in the outer try
  a.label("f").op(op::kNop).op(op::kEndfinally);      // outer finally
  a.label("end").op(op::kRet);
  ExceptionClause inner{kClauseCatch, 0, a.at("c"), a.at("c"), a.at("x") - a.at("c"), kType};
  ExceptionClause outer{kClauseFinally, 0, a.at("f"), a.at("f"), a.at("end") - a.at("f"), 0};
  auto one = Fat(a.code(), 1, 0, false, {SmallEh({inner, outer})});
  auto two = Fat(a.code(), 1, 0, false, {SmallEh({inner}, true), FatEh({outer})});
  auto fat = Fat(a.code(), 1, 0, false, {FatEh({inner, outer})});
  MethodBody nb;
  RewriteAndCheck(one, AllOffsets(one), &nb);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{false, 2}}));
  EXPECT_EQ(nb.clauses()[0].try_offset, 0u);
  EXPECT_EQ(nb.clauses()[1].try_offset, 0u);
  RewriteAndCheck(two, AllOffsets(two), &nb);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{false, 1}, {true, 1}}));
  RewriteAndCheck(two, {{0, 1}}, &nb);
  RewriteAndCheck(fat, {{a.at("x"), 1}, {a.at("f"), 2}}, &nb);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{true, 2}}));
}

TEST(IlRewriter, SmallSectionPromotedToFatWhenRegionsGrow) {
  Asm a;
  a.label("try").nops(240).br(op::kLeave, "end");
  a.label("h").op(0x26).br(op::kLeaveS, "end");
  a.label("end").op(op::kRet);
  ExceptionClause c{kClauseCatch, 0, a.at("h"), a.at("h"), a.at("end") - a.at("h"), kType};
  auto body = Fat(a.code(), 1, 0, false, {SmallEh({c})});
  MethodBody nb;
  RewriteAndCheck(body, {{0, 1}}, &nb);  // 255: still small
  EXPECT_EQ(nb.clauses()[0].try_length, 255u);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{false, 1}}));
  RewriteAndCheck(body, {{0, 1}, {1, 2}}, &nb);  // 265: fat
  EXPECT_EQ(nb.clauses()[0].try_length, 265u);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{true, 1}}));
  // Two sections: when the small one can no longer hold its clause, one fat section holds both.
  Asm b;
  b.label("try").nops(240).br(op::kLeave, "end");
  b.label("h").op(0x26).br(op::kLeaveS, "end");
  b.label("end").br(op::kLeaveS, "out");
  b.label("f").op(op::kEndfinally);
  b.label("out").op(op::kRet);
  ExceptionClause inner{kClauseCatch, 0, b.at("h"), b.at("h"), b.at("end") - b.at("h"), kType};
  ExceptionClause outer{kClauseFinally, 0, b.at("f"), b.at("f"), 1, 0};
  auto two = Fat(b.code(), 1, 0, false, {SmallEh({inner}, true), FatEh({outer})});
  RewriteAndCheck(two, {{0, 1}, {b.at("f"), 2}}, &nb);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{false, 1}, {true, 1}}));
  RewriteAndCheck(two, {{0, 1}, {1, 2}}, &nb);
  EXPECT_EQ(nb.eh_sections(), (std::vector<EhSectionForm>{{true, 2}}));
}

TEST(IlRewriter, ProbesWithValuesOnTheStack) {
  // ldc.i4.1 ldc.i4.2 [probe] add ret: depth 2 at the probe, max stack 2 -> 3.
  auto body = Fat(Asm().op(0x17).op(0x18).op(0x58).op(op::kRet).code(), 2);
  MethodBody nb;
  RewriteAndCheck(body, {{2, 1}, {3, 2}}, &nb);
  EXPECT_EQ(nb.max_stack(), 3);
  VerifyOptions strict = Opts();
  strict.return_values = 1;
  std::string error;
  EXPECT_TRUE(Verify(nb, &error, strict)) << error;
  // The same code with no room for the probe fails verification.
  auto too_small = Fat(Asm().op(0x17).op(0x18).op(0x20).u32(1).op(0x28).u32(kHelper).op(0x58).op(op::kRet).code(), 2);
  MethodBody m;
  ASSERT_TRUE(MethodBody::Decode(too_small, &m, &error));
  EXPECT_FALSE(Verify(m, &error, Opts()));
  EXPECT_TRUE(Contains(error, "exceeds max stack")) << error;
}

TEST(IlRewriter, SeveralProbesAtOneOffsetRunInOrder) {
  auto body = Tiny(Asm().op(op::kNop).op(op::kRet).code());
  RewriteAndCheck(body, {{1, 5}, {0, 3}, {1, 6}});
}

TEST(IlRewriter, RejectsBadRequestsAndBadBodies) {
  auto body = Tiny(Asm().op(0x20).u32(5).op(0x26).op(op::kRet).code());
  EXPECT_TRUE(Contains(InsertError(body, {{2, 1}}), "not an instruction boundary"));
  EXPECT_TRUE(Contains(InsertError(body, {{7, 1}}), "not an instruction boundary"));  // code end
  EXPECT_TRUE(Contains(InsertError(body, {{0, 1}, {99, 2}}), "not an instruction boundary"));
  auto truncated = body;
  truncated.pop_back();
  EXPECT_TRUE(Contains(InsertError(truncated, {{0, 1}}), "truncated"));
  EXPECT_TRUE(Contains(InsertError({}, {{0, 1}}), "empty"));

  // Branch into the middle of an instruction: cannot be re-targeted.
  auto mid = Tiny({0x2B, 0x01, 0x20, 0x01, 0x00, 0x00, 0x00, 0x2A});  // br.s +1 -> 3 (inside ldc.i4)
  EXPECT_TRUE(Contains(InsertError(mid, {{0, 1}}), "branch target"));
  auto mid_switch = Tiny({0x45, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x00, 0x20, 0x01, 0x00, 0x00, 0x00, 0x2A});
  EXPECT_TRUE(Contains(InsertError(mid_switch, {{9, 1}}), "switch target"));
  auto out_of_range = Tiny({0x2B, 0x70, 0x2A});
  EXPECT_TRUE(Contains(InsertError(out_of_range, {{2, 1}}), "branch target"));

  // Exception regions that do not lie on instruction boundaries.
  Asm a;
  a.op(0x20).u32(1).op(0x26).br(op::kLeaveS, "end").label("h").op(0x26).br(op::kLeaveS, "end").label("end").op(
      op::kRet);
  ExceptionClause bad{kClauseCatch, 1, 6, a.at("h"), 3, kType};
  EXPECT_TRUE(Contains(InsertError(Fat(a.code(), 1, 0, false, {SmallEh({bad})}), {{0, 1}}), "try region"));
  ExceptionClause bad_handler{kClauseCatch, 0, a.at("h"), a.at("h"), 2, kType};
  EXPECT_TRUE(
      Contains(InsertError(Fat(a.code(), 1, 0, false, {SmallEh({bad_handler})}), {{0, 1}}), "handler region"));
  ExceptionClause bad_filter{kClauseFilter, 0, a.at("h"), a.at("h"), 3, 2};
  EXPECT_TRUE(
      Contains(InsertError(Fat(a.code(), 1, 0, false, {SmallEh({bad_filter})}), {{0, 1}}), "filter start"));
  ExceptionClause past_end{kClauseCatch, 0, a.at("h"), a.at("h"), 200, kType};
  EXPECT_TRUE(Contains(InsertError(Fat(a.code(), 1, 0, false, {SmallEh({past_end})}), {{0, 1}}), "handler region"));
  auto section = SmallEh({{kClauseCatch, 0, a.at("h"), a.at("h"), 3, kType}});
  section[0] = 0x03;
  EXPECT_TRUE(Contains(InsertError(Fat(a.code(), 1, 0, false, {section}), {{0, 1}}), "section kind"));
  auto truncated_eh = Fat(a.code(), 1, 0, false, {SmallEh({{kClauseCatch, 0, a.at("h"), a.at("h"), 3, kType}})});
  truncated_eh.resize(truncated_eh.size() - 4);
  EXPECT_TRUE(Contains(InsertError(truncated_eh, {{0, 1}}), "truncated"));

  // max stack cannot grow past 0xFFFF.
  EXPECT_TRUE(Contains(InsertError(Fat({op::kRet}, 0xFFFF), {{0, 1}}), "max stack"));
}

TEST(IlRewriter, InsertBeforeRejectsUnsafeProbes) {
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(Tiny({op::kNop, op::kRet}), &m, &error));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(op::kBrS, 1)}, &error));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(op::kRet)}, &error));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(op::kTail), MakeInstruction(op::kCall, kVoid0)}, &error));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(0x17)}, &error));  // leaves a value
  EXPECT_TRUE(Contains(error, "stack neutral"));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(0x26)}, &error));  // pops the program's value
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(0x24)}, &error));  // undefined
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(op::kJmp, kVoid0)}, &error));
  EXPECT_FALSE(m.InsertBefore(0, {MakeInstruction(op::kThrow)}, &error));
  EXPECT_FALSE(m.has_insertions());
  EXPECT_TRUE(m.InsertBefore(0, {MakeInstruction(0x17), MakeInstruction(0x26)}, &error)) << error;
  EXPECT_EQ(m.probe_stack(), 1);
  EXPECT_TRUE(Verify(m, &error)) << error;  // encodes and decodes first
}

TEST(IlRewriter, VerifyCatchesBrokenBodies) {
  auto verify = [](const std::vector<uint8_t>& body, VerifyOptions opts = Opts()) {
    MethodBody m;
    std::string error;
    EXPECT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
    if (Verify(m, &error, opts)) return std::string();
    EXPECT_FALSE(error.empty());
    return error;
  };
  {
    Asm a;  // ldarg.0; brtrue.s L; ldc.i4.1; L: ret -- depth 0 vs 1 at L
    a.op(0x02).br(0x2D, "L").op(0x17).label("L").op(op::kRet);
    EXPECT_TRUE(Contains(verify(Tiny(a.code())), "inconsistent stack depth"));
  }
  EXPECT_TRUE(Contains(verify(Fat({0x17, 0x17, 0x26, 0x26, 0x2A}, 1)), "exceeds max stack"));
  EXPECT_EQ(verify(Fat({0x17, 0x17, 0x26, 0x26, 0x2A}, 2)), "");
  EXPECT_TRUE(Contains(verify(Tiny({0x26, 0x2A})), "underflow"));
  EXPECT_TRUE(Contains(verify(Tiny({0x00})), "falls off the end"));
  EXPECT_TRUE(Contains(verify(Tiny({0x17, 0x17, 0x2A})), "at ret"));
  {
    VerifyOptions void_ret = Opts();
    void_ret.return_values = 0;
    EXPECT_TRUE(Contains(verify(Tiny({0x17, 0x2A}), void_ret), "at ret"));
    EXPECT_EQ(verify(Tiny({0x17, 0x2A})), "");
  }
  EXPECT_TRUE(Contains(verify(Tiny({0x2B, 0x01, 0x20, 0x01, 0x00, 0x00, 0x00, 0x2A})), "branch target"));
  EXPECT_TRUE(Contains(verify(Tiny({0xFE, 0x13})), "prefix at the end"));
  {
    Asm a;  // branch onto an instruction that follows a prefix
    a.op(0x16).br(0x2C, "L").op(op::kVolatile).label("L").tok(0x7E, kField).op(0x26).op(op::kRet);
    EXPECT_TRUE(Contains(verify(Tiny(a.code())), "branch target"));
  }
  {
    // Calls: unknown effect without a resolver only suspends depth checks on that path.
    auto code = Asm().tok(op::kCall, kVoid0).op(0x26).op(op::kRet).code();  // call void(); pop -> underflow
    EXPECT_TRUE(Contains(verify(Tiny(code)), "underflow"));
    EXPECT_EQ(verify(Tiny(code), VerifyOptions{}), "");
    auto ok = Asm().tok(op::kCall, kInt0).op(0x26).op(op::kRet).code();
    EXPECT_EQ(verify(Tiny(ok)), "");
    // newobj with a ctor(int32) pops 1, pushes 1; calli pops the function pointer too.
    EXPECT_EQ(verify(Tiny(Asm().op(0x17).tok(op::kNewobj, kCtor1).op(0x26).op(op::kRet).code())), "");
    EXPECT_EQ(verify(Tiny(Asm().op(0x17).op(0x17).tok(op::kCalli, kVoid1).op(op::kRet).code())), "");
    EXPECT_TRUE(Contains(verify(Tiny(Asm().op(0x17).tok(op::kCalli, kVoid1).op(op::kRet).code())), "underflow"));
  }
  {
    Asm a;
    a.op(op::kNop).br(op::kLeaveS, "end").label("h").op(0x26).br(op::kLeaveS, "end").label("end").op(op::kRet);
    auto with = [&](std::vector<ExceptionClause> cs) { return Fat(a.code(), 1, 0, false, {SmallEh(cs)}); };
    ExceptionClause good{kClauseCatch, 0, 3, 3, 3, kType};
    EXPECT_EQ(verify(with({good})), "");
    EXPECT_TRUE(Contains(verify(with({{kClauseCatch, 0, 4, 3, 3, kType}})), "overlap"));
    EXPECT_TRUE(Contains(verify(with({{kClauseCatch, 0, 3, 2, 3, kType}})), "not on instruction boundaries"));
    EXPECT_TRUE(Contains(verify(with({{kClauseCatch, 0, 0, 3, 3, kType}})), "empty region"));
    EXPECT_TRUE(Contains(verify(with({{kClauseCatch, 0, 3, 3, 9, kType}})), "not on instruction boundaries"));
    EXPECT_TRUE(Contains(verify(with({{8, 0, 3, 3, 3, kType}})), "unknown flags"));
    // A catch handler entered with an empty stack underflows at its pop.
    EXPECT_TRUE(Contains(verify(with({{kClauseFinally, 0, 3, 3, 3, 0}})), "underflow"));
    // Two clauses: handler regions partially overlapping.
    EXPECT_TRUE(Contains(verify(with({{kClauseCatch, 0, 1, 1, 3, kType}, good})), "overlap"));
    // Outer listed before inner.
    ExceptionClause inner{kClauseCatch, 0, 1, 3, 3, kType};
    ExceptionClause outer{kClauseFinally, 0, 6, 6, 1, 0};
    EXPECT_TRUE(Contains(verify(with({outer, inner})), "inner clause listed after outer"));
  }
  {
    // Non-empty stack at a try start.
    Asm a;
    a.op(0x17).label("try").op(op::kNop).br(op::kLeaveS, "end").label("h").op(0x26).br(op::kLeaveS, "end");
    a.label("end").op(op::kRet);
    ExceptionClause c{kClauseCatch, 1, 3, 4, 3, kType};
    EXPECT_TRUE(Contains(verify(Fat(a.code(), 2, 0, false, {SmallEh({c})})), "try start"));
  }
}

TEST(IlRewriter, RandomBodiesWithRandomProbes) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 300; ++iter) {
    // Random straight-line pieces with depth 0 between them, branching to random pieces.
    int pieces = 2 + static_cast<int>(rng() % 60);
    struct Piece {
      int kind;
      int target;
      std::vector<int> targets;
      bool wide = false;
    };
    std::vector<Piece> ps;
    for (int p = 0; p < pieces; ++p) {
      Piece piece{static_cast<int>(rng() % 7), static_cast<int>(rng() % (pieces + 1)), {}};
      for (int k = 0, n = static_cast<int>(rng() % 4); k < n; ++k)
        piece.targets.push_back(static_cast<int>(rng() % (pieces + 1)));
      piece.wide = rng() % 4 == 0;
      ps.push_back(piece);
    }
    std::vector<uint8_t> code;
    for (int attempt = 0;; ++attempt) {
      Asm a;
      for (int p = 0; p < pieces; ++p) {
        const Piece& piece = ps[p];
        a.label("p" + std::to_string(p));
        std::string t = "p" + std::to_string(piece.target);
        switch (piece.kind) {
          case 0: a.nops(1 + static_cast<int>(rng() % 20)); break;
          case 1: a.op(0x1F).u8(7).op(0x26); break;
          case 2: a.br(piece.wide ? op::kBr : op::kBrS, t); break;
          case 3: a.op(0x17).br(piece.wide ? 0x3A : 0x2D, t); break;
          case 4: {
            std::vector<std::string> ts;
            for (int x : piece.targets) ts.push_back("p" + std::to_string(x));
            a.op(0x16).sw(ts);
            break;
          }
          case 5: a.op(0x17).op(0x17).br(piece.wide ? 0x3B : 0x2E, t); break;  // beq
          case 6: a.tok(op::kCall, kVoid0); break;
        }
      }
      a.label("p" + std::to_string(pieces)).op(op::kRet);
      if (a.Resolve(&code)) break;
      // Some short branch did not fit: make all of them long and retry.
      for (auto& piece : ps) piece.wide = true;
      ASSERT_LT(attempt, 2);
    }
    std::vector<uint8_t> body = code.size() < 64 && rng() % 2 ? Tiny(code) : Fat(code, 2);
    Probes probes;
    for (uint32_t o : Offsets(body))
      if (rng() % 3 == 0) probes.push_back({o, static_cast<uint32_t>(rng())});
    SCOPED_TRACE("iteration " + std::to_string(iter));
    RewriteAndCheck(body, probes);
    if (HasFatalFailure() || HasFailure()) break;
  }
}

// --- branch-outcome probes ------------------------------------------------

namespace {

using BranchProbes = std::vector<BranchProbe>;

struct BranchRewrite {
  MethodBody orig, nb;
  std::vector<uint32_t> label;  // original index -> new offset of its group (before-probes or itself)
  std::vector<size_t> at;       // original index -> index of the instruction itself in nb
};

// Follows the rewritten code from `start` through counter probes and
// unconditional `br`s only, until `stop`; returns the probe slots executed.
// Any other instruction on the way is a failure.
std::vector<uint32_t> Walk(const MethodBody& nb, uint64_t start, uint64_t stop) {
  std::vector<uint32_t> slots;
  const auto& ni = nb.instructions();
  uint64_t pc = start;
  for (int steps = 0; steps < 100000; ++steps) {
    if (pc == stop) return slots;
    long idx = nb.FindInstruction(static_cast<uint32_t>(pc));
    if (idx < 0) {
      ADD_FAILURE() << "walk reached " << pc << ", not an instruction";
      return slots;
    }
    size_t i = static_cast<size_t>(idx);
    if (ni[i].opcode == op::kLdcI4 && i + 1 < ni.size() && ni[i + 1].opcode == op::kCall &&
        ni[i + 1].operand == kHelper) {
      slots.push_back(static_cast<uint32_t>(ni[i].operand));
      pc = i + 2 < ni.size() ? ni[i + 2].offset : nb.code_size();
    } else if (ni[i].opcode == op::kBr || ni[i].opcode == op::kBrS) {
      pc = static_cast<uint64_t>(ni[i].operand);
    } else {
      ADD_FAILURE() << "walk from " << start << " to " << stop << " met opcode " << ni[i].opcode << " at " << pc;
      return slots;
    }
  }
  ADD_FAILURE() << "walk from " << start << " loops";
  return slots;
}

// Rewrites `original` with before-probes and branch probes, then checks: the
// result decodes and verifies; stripping the before-probes (in request order)
// and each instrumented branch's block (<F>; br; then <Tk>; br per target)
// leaves the original instructions; walking from each instrumented branch
// along its fall-through reaches its original successor through exactly its F
// probe, and along taken edge k reaches the original target k through exactly
// its Tk probe; every other branch, switch entry, EH boundary and filter start
// maps to its original instruction's group; each block lies inside exactly the
// regions holding its branch; max stack + 1; locals kept.
void BranchRewriteAndCheck(const std::vector<uint8_t>& original, const Probes& probes, const BranchProbes& branches,
                           BranchRewrite* result = nullptr, const VerifyOptions& opts = Opts()) {
  BranchRewrite r;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(original, &r.orig, &error)) << error;
  std::vector<uint8_t> out;
  ASSERT_TRUE(InsertProbes(original, probes, branches, kHelper, &out, &error)) << error;
  ASSERT_TRUE(MethodBody::Decode(out, &r.nb, &error)) << error;
  EXPECT_TRUE(Verify(r.nb, &error, opts)) << error;

  std::map<uint32_t, std::vector<uint32_t>> expected;
  for (const auto& [off, slot] : probes) expected[off].push_back(slot);
  std::map<uint32_t, const BranchProbe*> by_offset;
  for (const auto& b : branches) by_offset[b.il_offset] = &b;
  const auto& oi = r.orig.instructions();
  const auto& ni = r.nb.instructions();
  r.label.resize(oi.size());
  r.at.resize(oi.size());
  std::vector<std::pair<uint32_t, uint32_t>> blocks(oi.size(), {0, 0});  // [begin, end) of each branch's block
  size_t i = 0;
  for (size_t j = 0; j < oi.size(); ++j) {
    ASSERT_LT(i, ni.size());
    r.label[j] = ni[i].offset;
    std::vector<uint32_t> slots;
    for (size_t k = 0; k < expected[oi[j].offset].size(); ++k) {
      ASSERT_LT(i + 1, ni.size());
      ASSERT_EQ(ni[i].opcode, op::kLdcI4);
      ASSERT_EQ(ni[i + 1].opcode, op::kCall);
      slots.push_back(static_cast<uint32_t>(ni[i].operand));
      i += 2;
    }
    EXPECT_EQ(slots, expected[oi[j].offset]) << "probes before original IL offset " << oi[j].offset;
    ASSERT_LT(i, ni.size());
    r.at[j] = i;
    ASSERT_TRUE(ni[i].opcode == oi[j].opcode ||
                (IsShortBranch(oi[j].opcode) && ni[i].opcode == LongFormOf(oi[j].opcode)))
        << "opcode at original offset " << oi[j].offset;
    ++i;
    auto bit = by_offset.find(oi[j].offset);
    if (bit == by_offset.end()) continue;
    blocks[j].first = i < ni.size() ? ni[i].offset : r.nb.code_size();
    size_t count = 1 + bit->second->target_slots.size();
    for (size_t k = 0; k < count; ++k) {
      ASSERT_LT(i + 2, ni.size());
      EXPECT_EQ(ni[i].opcode, op::kLdcI4);
      EXPECT_EQ(ni[i].Size(), 5u);
      EXPECT_EQ(ni[i + 1].opcode, op::kCall);
      EXPECT_TRUE(ni[i + 2].opcode == op::kBr || ni[i + 2].opcode == op::kBrS);
      i += 3;
    }
    blocks[j].second = i < ni.size() ? ni[i].offset : r.nb.code_size();
  }
  EXPECT_EQ(i, ni.size());

  auto map_start = [&](uint64_t o) -> int64_t {
    long idx = r.orig.FindInstruction(static_cast<uint32_t>(o));
    EXPECT_GE(idx, 0) << o;
    return idx < 0 ? -1 : r.label[static_cast<size_t>(idx)];
  };
  auto map_end = [&](uint64_t o) -> int64_t { return o == r.orig.code_size() ? r.nb.code_size() : map_start(o); };
  for (size_t j = 0; j < oi.size(); ++j) {
    const Instruction& a = oi[j];
    const Instruction& b = ni[r.at[j]];
    auto bit = by_offset.find(a.offset);
    if (bit != by_offset.end()) {
      const BranchProbe& bp = *bit->second;
      SCOPED_TRACE("branch at original offset " + std::to_string(a.offset));
      // Fall-through.
      EXPECT_EQ(Walk(r.nb, ni[r.at[j] + 1].offset, r.label[j + 1]), std::vector<uint32_t>{bp.fall_through_slot});
      // Each taken edge.
      size_t n = a.opcode == op::kSwitch ? a.switch_targets.size() : 1;
      ASSERT_EQ(n, bp.target_slots.size());
      for (size_t k = 0; k < n; ++k) {
        bool sw = a.opcode == op::kSwitch;
        uint64_t from = sw ? static_cast<uint32_t>(b.switch_targets[k]) : static_cast<uint64_t>(b.operand);
        uint64_t to = sw ? static_cast<uint32_t>(a.switch_targets[k]) : static_cast<uint64_t>(a.operand);
        EXPECT_GE(from, blocks[j].first);  // the edge enters the block ...
        EXPECT_LT(from, blocks[j].second);
        EXPECT_EQ(Walk(r.nb, from, static_cast<uint64_t>(map_start(to))), std::vector<uint32_t>{bp.target_slots[k]})
            << "target " << k;
      }
      continue;
    }
    if (IsBranch(a.opcode)) {
      EXPECT_EQ(b.operand, map_start(static_cast<uint64_t>(a.operand))) << "branch at original " << a.offset;
    } else if (a.opcode == op::kSwitch) {
      ASSERT_EQ(a.switch_targets.size(), b.switch_targets.size());
      for (size_t k = 0; k < a.switch_targets.size(); ++k)
        EXPECT_EQ(b.switch_targets[k], map_start(static_cast<uint32_t>(a.switch_targets[k])));
    } else {
      EXPECT_EQ(a.operand, b.operand);
    }
  }
  // Nothing else targets the inside of a block.
  for (size_t j = 0; j < oi.size(); ++j) {
    if (blocks[j].first == blocks[j].second) continue;
    for (size_t x = 0; x < ni.size(); ++x) {
      std::vector<uint64_t> targets;
      if (IsBranch(ni[x].opcode)) targets.push_back(static_cast<uint64_t>(ni[x].operand));
      for (int32_t t : ni[x].switch_targets) targets.push_back(static_cast<uint32_t>(t));
      bool own = x == r.at[j] || (ni[x].offset >= blocks[j].first && ni[x].offset < blocks[j].second);
      for (uint64_t t : targets) {
        if (!own) {
          EXPECT_FALSE(t >= blocks[j].first && t < blocks[j].second) << "jump into a block from " << ni[x].offset;
        }
      }
    }
  }
  ASSERT_EQ(r.orig.clauses().size(), r.nb.clauses().size());
  for (size_t k = 0; k < r.orig.clauses().size(); ++k) {
    const ExceptionClause& a = r.orig.clauses()[k];
    const ExceptionClause& b = r.nb.clauses()[k];
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(b.try_offset, map_start(a.try_offset));
    EXPECT_EQ(b.try_offset + b.try_length, map_end(uint64_t{a.try_offset} + a.try_length));
    EXPECT_EQ(b.handler_offset, map_start(a.handler_offset));
    EXPECT_EQ(b.handler_offset + b.handler_length, map_end(uint64_t{a.handler_offset} + a.handler_length));
    if (a.is_filter())
      EXPECT_EQ(b.class_token_or_filter_offset, map_start(a.class_token_or_filter_offset));
    else
      EXPECT_EQ(b.class_token_or_filter_offset, a.class_token_or_filter_offset);
    // Each block is in exactly the regions holding its branch.
    auto in = [](uint64_t o, uint64_t begin, uint64_t len) { return o >= begin && o < begin + len; };
    for (size_t j = 0; j < oi.size(); ++j) {
      if (blocks[j].first == blocks[j].second) continue;
      bool in_try = in(oi[j].offset, a.try_offset, a.try_length);
      bool in_handler = in(oi[j].offset, a.handler_offset, a.handler_length);
      for (uint64_t o : {uint64_t{blocks[j].first}, uint64_t{blocks[j].second} - 1}) {
        EXPECT_EQ(in(o, b.try_offset, b.try_length), in_try) << "clause " << k << ", block of " << oi[j].offset;
        EXPECT_EQ(in(o, b.handler_offset, b.handler_length), in_handler) << "clause " << k;
      }
    }
  }
  EXPECT_EQ(r.nb.max_stack(), r.orig.max_stack() + (probes.empty() && branches.empty() ? 0 : 1));
  EXPECT_EQ(r.nb.local_var_sig_token(), r.orig.local_var_sig_token());
  EXPECT_EQ(r.nb.init_locals(), r.orig.init_locals());
  // Outcome blocks belong to their branch's group: they translate back to the branch.
  CheckIlMap(original, probes, branches, out, r.orig, Groups(r.nb, r.label));
  if (result) *result = std::move(r);
}

// Outcome probes on every branch FindBranches reports; slots from `base` up.
BranchProbes AllBranches(const std::vector<uint8_t>& body, uint32_t base = 1000) {
  MethodBody m;
  std::string error;
  EXPECT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  BranchProbes out;
  for (const BranchSite& s : FindBranches(m)) {
    BranchProbe b{s.il_offset, base++, {}};
    for (uint32_t k = 0; k < s.target_count; ++k) b.target_slots.push_back(base++);
    out.push_back(b);
  }
  return out;
}

std::vector<uint16_t> Opcodes(const MethodBody& m) {
  std::vector<uint16_t> v;
  for (const auto& ins : m.instructions()) v.push_back(ins.opcode);
  return v;
}

std::string BranchError(const std::vector<uint8_t>& original, const Probes& probes, const BranchProbes& branches) {
  std::vector<uint8_t> out{1, 2, 3};
  std::string error;
  EXPECT_FALSE(InsertProbes(original, probes, branches, kHelper, &out, &error));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3})) << "output must be untouched on failure";
  EXPECT_FALSE(error.empty());
  return error;
}

constexpr uint16_t kLdcI4 = op::kLdcI4, kCall = op::kCall, kBrS = op::kBrS;

}  // namespace

TEST(IlBranchProbes, BrtrueForwardExactLayout) {
  Asm a;  // ldarg.0; brtrue.s L; nop; L: ret
  a.op(0x02).label("b").br(0x2D, "L").label("next").op(op::kNop).label("L").op(op::kRet);
  auto body = Tiny(a.code());
  BranchRewrite r;
  BranchRewriteAndCheck(body, {}, {{a.at("b"), 10, {11}}}, &r);
  // ldarg.0; brtrue.s T; ldc 10; call; br.s NEXT; T: ldc 11; call; br.s L; NEXT: nop; L: ret
  EXPECT_EQ(Opcodes(r.nb), (std::vector<uint16_t>{0x02, 0x2D, kLdcI4, kCall, kBrS, kLdcI4, kCall, kBrS, op::kNop,
                                                   op::kRet}));
  const auto& ni = r.nb.instructions();
  EXPECT_EQ(ni[1].operand, ni[5].offset);
  EXPECT_EQ(ni[2].operand, 10);
  EXPECT_EQ(ni[4].operand, ni[8].offset);
  EXPECT_EQ(ni[5].operand, 11);
  EXPECT_EQ(ni[7].operand, ni[9].offset);
  EXPECT_EQ(r.nb.max_stack(), 9);  // tiny 8 + 1
}

TEST(IlBranchProbes, BrtrueBackward) {
  Asm a;  // L: nop; ldarg.0; brtrue.s L; ret
  a.label("L").op(op::kNop).op(0x02).label("b").br(0x2D, "L").op(op::kRet);
  auto body = Tiny(a.code());
  BranchRewrite r;
  BranchRewriteAndCheck(body, {}, {{a.at("b"), 1, {2}}}, &r);
  const auto& ni = r.nb.instructions();
  EXPECT_EQ(ni[6].opcode, kLdcI4);
  EXPECT_EQ(ni[6].operand, 2);
  EXPECT_EQ(ni[8].opcode, kBrS);
  EXPECT_EQ(ni[8].operand, 0);  // back to L
  BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
}

TEST(IlBranchProbes, EveryConditionalOpcodeShortAndLong) {
  for (uint16_t opcode = 0x2C; opcode <= 0x44; ++opcode) {
    if (opcode == op::kBr) continue;
    SCOPED_TRACE(LookupOpcode(opcode)->name);
    bool unary = opcode == 0x2C || opcode == 0x2D || opcode == 0x39 || opcode == 0x3A;
    for (bool forward : {true, false}) {
      Asm a;
      a.label("L").op(op::kNop);
      if (!forward) a.label("L2");
      a.op(0x02);
      if (!unary) a.op(0x03);
      a.label("b").br(opcode, forward ? "F" : "L").op(op::kNop).label("F").op(op::kRet);
      auto body = Fat(a.code(), 2);
      BranchRewrite r;
      BranchRewriteAndCheck(body, {}, {{a.at("b"), 7, {8}}}, &r);
      EXPECT_EQ(r.nb.instructions()[r.at[r.orig.FindInstruction(a.at("b"))]].opcode, opcode);  // form kept
      BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
    }
  }
}

TEST(IlBranchProbes, SwitchWithDuplicateTargetsAndTargetEqualToNext) {
  Asm a;  // switch (A, A, NEXT); NEXT: br.s END; A: nop; END: ret
  a.op(0x02).label("sw").sw({"A", "A", "next"}).label("next").br(op::kBrS, "end");
  a.label("A").op(op::kNop).label("end").op(op::kRet);
  auto body = Tiny(a.code());
  BranchRewrite r;
  BranchRewriteAndCheck(body, {}, {{a.at("sw"), 20, {21, 22, 23}}}, &r);
  const auto& sw = r.nb.instructions()[1];
  ASSERT_EQ(sw.switch_targets.size(), 3u);
  // Each entry has its own block, even the duplicate ones.
  EXPECT_NE(sw.switch_targets[0], sw.switch_targets[1]);
  EXPECT_NE(sw.switch_targets[1], sw.switch_targets[2]);
  EXPECT_EQ(Opcodes(r.nb).size(), 2u + 3u * 4u + 3u);
  // With before-probes everywhere too: the switch's default and entry 2 both reach NEXT's probe.
  BranchRewriteAndCheck(body, AllOffsets(body), {{a.at("sw"), 20, {21, 22, 23}}});
  // A switch without entries only has a default outcome.
  Asm e;
  e.op(0x02).label("sw").sw({}).op(op::kRet);
  BranchRewriteAndCheck(Tiny(e.code()), AllOffsets(Tiny(e.code())), {{e.at("sw"), 5, {}}});
}

TEST(IlBranchProbes, BranchWhoseTargetIsItsOwnNext) {
  Asm a;  // ldarg.0; brfalse.s NEXT; NEXT: ret
  a.op(0x02).label("b").br(0x2C, "next").label("next").op(op::kRet);
  auto body = Tiny(a.code());
  BranchRewrite r;
  BranchRewriteAndCheck(body, {}, {{a.at("b"), 1, {2}}}, &r);
  const auto& ni = r.nb.instructions();
  EXPECT_EQ(ni[4].operand, ni.back().offset);  // br NEXT
  EXPECT_EQ(ni[7].operand, ni.back().offset);  // br L == NEXT
  BranchRewriteAndCheck(body, {{a.at("next"), 3}, {a.at("b"), 4}}, {{a.at("b"), 1, {2}}}, &r);
}

TEST(IlBranchProbes, CombinesWithBeforeProbesAtTheBranchItsNextAndItsTarget) {
  Asm a;  // ldarg.0; O: brtrue.s L; NEXT: nop; L: ret
  a.op(0x02).label("b").br(0x2D, "L").label("next").op(op::kNop).label("L").op(op::kRet);
  auto body = Tiny(a.code());
  BranchRewrite r;
  BranchRewriteAndCheck(body, {{a.at("b"), 1}, {a.at("next"), 2}, {a.at("L"), 3}}, {{a.at("b"), 10, {11}}}, &r);
  // ldarg.0; [1] brtrue T; [10] br NEXT; T: [11] br L; NEXT: [2] nop; L: [3] ret
  std::vector<int64_t> slots;
  for (const auto& ins : r.nb.instructions())
    if (ins.opcode == kLdcI4) slots.push_back(ins.operand);
  EXPECT_EQ(slots, (std::vector<int64_t>{1, 10, 11, 2, 3}));
  const auto& ni = r.nb.instructions();
  EXPECT_EQ(ni[3].opcode, 0x2D);
  EXPECT_EQ(ni[6].operand, r.label[2]);  // br NEXT lands on NEXT's probe
  EXPECT_EQ(ni[9].operand, r.label[3]);  // br L lands on L's probe
  // Probes registered in the other order give the same result.
  MethodBody m1, m2;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m1, &error));
  m2 = m1;
  ASSERT_TRUE(
      m1.InstrumentBranch(a.at("b"), MakeCounterProbe(10, kHelper), {MakeCounterProbe(11, kHelper)}, &error, 1));
  ASSERT_TRUE(m1.InsertBefore(a.at("next"), MakeCounterProbe(2, kHelper), &error, 1));
  ASSERT_TRUE(m2.InsertBefore(a.at("next"), MakeCounterProbe(2, kHelper), &error, 1));
  ASSERT_TRUE(
      m2.InstrumentBranch(a.at("b"), MakeCounterProbe(10, kHelper), {MakeCounterProbe(11, kHelper)}, &error, 1));
  std::vector<uint8_t> o1, o2;
  ASSERT_TRUE(m1.Encode(&o1, &error)) << error;
  ASSERT_TRUE(m2.Encode(&o2, &error)) << error;
  EXPECT_EQ(o1, o2);
}

TEST(IlBranchProbes, ValuesOnTheStackAtTheBranch) {
  Asm a;  // ldc.i4.1; ldarg.0; brtrue.s L; pop; ldc.i4.2; L: pop; ret  -- depth 1 on both edges
  a.op(0x17).op(0x02).label("b").br(0x2D, "L").op(0x26).op(0x18).label("L").op(0x26).op(op::kRet);
  auto body = Fat(a.code(), 2);
  BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
}

TEST(IlBranchProbes, BranchLastInTryAndLastInHandler) {
  // try { nop; ldarg.0; brtrue.s A } (try ends at NEXT) NEXT: nop; A: leave.s END
  // catch { pop; ldarg.0; brfalse.s END } (handler ends at NEXT = END) END: ret
  Asm a;
  a.label("try").op(op::kNop).op(0x02).label("b1").br(0x2D, "A").label("next").op(op::kNop).label("A").br(
      op::kLeaveS, "end");
  a.label("h").op(0x26).op(0x02).label("b2").br(0x2C, "end").label("end").op(op::kRet);
  ExceptionClause c{kClauseCatch, a.at("try"), a.at("next") - a.at("try"), a.at("h"), a.at("end") - a.at("h"), kType};
  auto body = Fat(a.code(), 1, 0, false, {SmallEh({c})});
  BranchRewrite r;
  BranchProbes both{{a.at("b1"), 1, {2}}, {a.at("b2"), 3, {4}}};
  BranchRewriteAndCheck(body, {}, both, &r);
  // The try ends right after b1's block (at NEXT), the handler right after b2's.
  const ExceptionClause& nc = r.nb.clauses()[0];
  EXPECT_EQ(nc.try_offset + nc.try_length, r.label[r.orig.FindInstruction(a.at("next"))]);
  EXPECT_EQ(nc.handler_offset + nc.handler_length, r.label[r.orig.FindInstruction(a.at("end"))]);
  // With before-probes at NEXT / END: the region ends before those probes, after the blocks.
  BranchRewriteAndCheck(body, {{a.at("next"), 5}, {a.at("end"), 6}}, both, &r);
  const ExceptionClause& nc2 = r.nb.clauses()[0];
  EXPECT_EQ(r.nb.instructions()[r.at[r.orig.FindInstruction(a.at("next"))] - 2].operand, 5);
  EXPECT_EQ(nc2.try_offset + nc2.try_length, r.label[r.orig.FindInstruction(a.at("next"))]);
  BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
}

TEST(IlBranchProbes, NestedRegions) {
  // try { try { ldarg.0; brtrue.s L; nop; L: ldarg.0; switch (L, M); M: leave.s E1 }
  //       catch { pop; ldarg.0; brfalse.s C; nop; C: leave.s E1 }
  //       E1: ldarg.0; ldc.i4.3; blt.s E1b; E1b: leave.s E2 }
  // finally { ldarg.0; brfalse.s F; nop; F: endfinally }
  // E2: ldarg.0; brtrue.s E2; ret
  Asm a;
  a.label("t1").label("t2").op(0x02).br(0x2D, "L").op(op::kNop).label("L").op(0x02).sw({"L", "M"}).label("M").br(
      op::kLeaveS, "E1");
  a.label("c").op(0x26).op(0x02).br(0x2C, "C").op(op::kNop).label("C").br(op::kLeaveS, "E1");
  a.label("E1").op(0x02).op(0x19).br(0x32, "E1b").label("E1b").br(op::kLeaveS, "E2");
  a.label("f").op(0x02).br(0x2C, "F").op(op::kNop).label("F").op(op::kEndfinally);
  a.label("E2").op(0x02).br(0x2D, "E2").op(op::kRet);
  ExceptionClause inner{kClauseCatch, a.at("t2"), a.at("c") - a.at("t2"), a.at("c"), a.at("E1") - a.at("c"), kType};
  ExceptionClause outer{kClauseFinally, a.at("t1"), a.at("f") - a.at("t1"), a.at("f"), a.at("E2") - a.at("f"), 0};
  for (bool fat : {false, true}) {
    auto body = Fat(a.code(), 2, 0, false, {fat ? FatEh({inner, outer}) : SmallEh({inner, outer})});
    ASSERT_EQ(AllBranches(body).size(), 6u);
    BranchRewriteAndCheck(body, {}, AllBranches(body));
    BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
  }
}

TEST(IlBranchProbes, RewriteCheckInstrumentsEveryBranch) {
  // Same shape as NestedRegions: CheckMethodBody gives all 6 branches outcome probes.
  Asm a;
  a.label("t").op(0x02).br(0x2D, "L").op(op::kNop).label("L").op(0x02).sw({"L", "M"}).label("M").br(op::kLeaveS, "E");
  a.label("f").op(0x02).br(0x2C, "F").op(op::kNop).label("F").op(op::kEndfinally);
  a.label("E").op(0x02).op(0x19).br(0x3F, "E").op(0x02).br(0x2D, "E").op(0x02).sw({"E"}).op(op::kRet);
  ExceptionClause c{kClauseFinally, a.at("t"), a.at("f") - a.at("t"), a.at("f"), a.at("E") - a.at("f"), 0};
  auto body = Fat(a.code(), 2, 0, false, {SmallEh({c})});
  VerifyOptions opts = Opts();
  std::string reason;
  uint64_t branches = 0;
  for (ProbeStyles style : {kInlineProbes, kCallProbes, kAtomicProbes}) {
    branches = 0;
    EXPECT_TRUE(CheckMethodBody(body, CheckStyle(style, kHelper), opts.call_resolver, 0, &reason, &branches))
        << reason;
    EXPECT_EQ(branches, 6u);
  }
  BranchRewriteAndCheck(body, AllOffsets(body), AllBranches(body));
}

TEST(IlBranchProbes, WideningTriggeredByTheBlocks) {
  MethodBody nb;
  {
    // br.s X spans an instrumented brtrue.s: 108 bytes + 24 bytes of blocks push it past 127.
    Asm a;
    a.label("x").br(op::kBrS, "X").op(0x02).label("b").br(0x2D, "L").nops(105).label("L").label("X").op(op::kRet);
    auto body = Fat(a.code(), 1);
    BranchRewrite r;
    BranchRewriteAndCheck(body, {}, {}, &r);
    EXPECT_EQ(r.nb.instructions()[0].opcode, op::kBrS);
    BranchRewriteAndCheck(body, {}, {{a.at("b"), 1, {2}}}, &r);
    EXPECT_EQ(r.nb.instructions()[0].opcode, op::kBr);
    // The retargeted brtrue.s only jumps over the fall-through block: stays short.
    EXPECT_EQ(r.nb.instructions()[r.at[2]].opcode, 0x2D);
  }
  {
    // brtrue.s L forward by 125: the block's `br L` spans the same distance (short);
    // a before-probe at NEXT adds 10 and widens it.
    Asm a;
    a.op(0x02).label("b").br(0x2D, "L").label("next").nops(125).label("L").op(op::kRet);
    auto body = Fat(a.code(), 1);
    BranchRewrite r;
    BranchRewriteAndCheck(body, {}, {{a.at("b"), 1, {2}}}, &r);
    EXPECT_EQ(r.nb.instructions()[r.at[1] + 6].opcode, op::kBrS);
    BranchRewriteAndCheck(body, {{a.at("next"), 3}}, {{a.at("b"), 1, {2}}}, &r);
    EXPECT_EQ(r.nb.instructions()[r.at[1] + 6].opcode, op::kBr);
    EXPECT_EQ(r.nb.instructions()[r.at[1]].opcode, 0x2D);
  }
  {
    // Backward brtrue.s by -120: the block's `br L` also spans the branch and the blocks.
    Asm a;
    a.label("L").nops(117).op(0x02).label("b").br(0x2D, "L").op(op::kRet);
    auto body = Fat(a.code(), 1);
    BranchRewrite r;
    BranchRewriteAndCheck(body, {}, {{a.at("b"), 1, {2}}}, &r);
    EXPECT_EQ(r.nb.instructions()[r.at[118] + 6].opcode, op::kBr);
    EXPECT_EQ(r.nb.instructions()[r.at[118]].opcode, 0x2D);
  }
  {
    // A switch with 12 entries: 12 blocks of 12 bytes push `br NEXT` to the long form.
    Asm a;
    std::vector<std::string> ts(12, "end");
    a.op(0x02).label("sw").sw(ts).label("end").op(op::kRet);
    auto body = Fat(a.code(), 1);
    BranchRewrite r;
    BranchProbes b{{a.at("sw"), 100, {}}};
    for (uint32_t k = 0; k < 12; ++k) b[0].target_slots.push_back(101 + k);
    BranchRewriteAndCheck(body, {}, b, &r);
    EXPECT_EQ(r.nb.instructions()[4].opcode, op::kBr);  // ldarg.0; switch; ldc; call; br NEXT
    EXPECT_EQ(r.nb.instructions()[7].opcode, op::kBr);  // first block's br END: 11 blocks away
    EXPECT_EQ(r.nb.instructions()[r.nb.instructions().size() - 2].opcode, op::kBrS);  // last block's br END
  }
}

TEST(IlBranchProbes, FindBranches) {
  Asm a;  // brtrue.s, br.s, leave.s, switch, beq (long), volatile. brtrue.s, then a trailing brfalse.s
  a.label("b0").op(0x02).label("c1").br(0x2D, "x").label("x").br(op::kBrS, "y").label("y").br(op::kLeaveS, "z");
  a.label("z").op(0x02).label("c2").sw({"w", "w", "w"}).label("w").op(0x02).op(0x02).label("c3").br(0x3B, "v");
  a.label("v").op(0x02).op(op::kVolatile).label("c4").br(0x2D, "u").label("u").op(0x02).label("c5").br(0x2C, "u");
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(Fat(a.code(), 2), &m, &error)) << error;
  EXPECT_EQ(FindBranches(m),
            (std::vector<BranchSite>{{a.at("c1"), 1}, {a.at("c2"), 3}, {a.at("c3"), 1}}));
  MethodBody copy = m;
  EXPECT_FALSE(copy.InstrumentBranch(a.at("c4"), {}, {{}}, &error));
  EXPECT_TRUE(Contains(error, "prefix")) << error;
  EXPECT_FALSE(copy.InstrumentBranch(a.at("c5"), {}, {{}}, &error));
  EXPECT_TRUE(Contains(error, "last instruction")) << error;
}

TEST(IlBranchProbes, RejectsBadRequests) {
  Asm a;  // ldarg.0; brtrue.s L; br.s L; L: ldarg.0; switch (L, M); M: nop; ret
  a.op(0x02).label("b").br(0x2D, "L").label("br").br(op::kBrS, "L").label("L").op(0x02).label("sw").sw({"L", "M"});
  a.label("M").op(op::kNop).label("ret").op(op::kRet);
  auto body = Tiny(a.code());
  EXPECT_TRUE(Contains(BranchError(body, {}, {{0, 1, {2}}}), "not a conditional branch"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("br"), 1, {2}}}), "not a conditional branch"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("ret"), 1, {2}}}), "not a conditional branch"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("b") + 1, 1, {2}}}), "not an instruction boundary"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{99, 1, {2}}}), "not an instruction boundary"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("b"), 1, {}}}), "targets"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("b"), 1, {2, 3}}}), "targets"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("sw"), 1, {2}}}), "targets"));
  EXPECT_TRUE(Contains(BranchError(body, {}, {{a.at("b"), 1, {2}}, {a.at("b"), 3, {4}}}), "already instrumented"));
  // Good branch probes with a bad before-probe still fail as a whole.
  EXPECT_TRUE(Contains(BranchError(body, {{a.at("b") + 1, 9}}, {{a.at("b"), 1, {2}}}), "not an instruction boundary"));
  // A branch target that is not an instruction boundary.
  auto mid = Tiny({0x02, 0x2D, 0x01, 0x20, 0x01, 0x00, 0x00, 0x00, 0x2A});  // brtrue.s +1 -> 4 (inside ldc.i4)
  EXPECT_TRUE(Contains(BranchError(mid, {}, {{1, 1, {2}}}), "branch target"));

  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m, &error));
  auto one = [] { return std::vector<Instruction>{MakeInstruction(0x17), MakeInstruction(0x26)}; };
  EXPECT_FALSE(m.InstrumentBranch(a.at("b"), {MakeInstruction(0x17)}, {one()}, &error));
  EXPECT_TRUE(Contains(error, "stack neutral")) << error;
  EXPECT_FALSE(m.InstrumentBranch(a.at("b"), one(), {{MakeInstruction(0x26)}}, &error));
  EXPECT_TRUE(Contains(error, "pops")) << error;
  EXPECT_FALSE(m.InstrumentBranch(a.at("b"), one(), {{MakeInstruction(op::kBrS, 0)}}, &error));
  EXPECT_FALSE(m.InstrumentBranch(a.at("b"), {MakeInstruction(op::kRet)}, {one()}, &error));
  EXPECT_FALSE(m.has_insertions());
  // Empty probes are allowed (the blocks are then just the `br`s).
  EXPECT_TRUE(m.InstrumentBranch(a.at("b"), {}, {{}}, &error)) << error;
  EXPECT_TRUE(m.has_insertions());
  EXPECT_EQ(m.probe_stack(), 0);
  EXPECT_TRUE(Verify(m, &error, Opts())) << error;
  EXPECT_TRUE(m.InstrumentBranch(a.at("sw"), one(), {one(), one()}, &error)) << error;
  EXPECT_EQ(m.probe_stack(), 1);
  EXPECT_TRUE(Verify(m, &error, Opts())) << error;
}

TEST(IlBranchProbes, RandomBodiesWithEveryBranchInstrumented) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    int pieces = 2 + static_cast<int>(rng() % 50);
    std::vector<uint8_t> code;
    for (bool wide : {false, true}) {
      Asm a;
      std::mt19937 local(static_cast<uint32_t>(iter));
      for (int p = 0; p < pieces; ++p) {
        a.label("p" + std::to_string(p));
        std::string t = "p" + std::to_string(local() % (pieces + 1));
        switch (local() % 7) {
          case 0: a.nops(1 + static_cast<int>(local() % 30)); break;
          case 1: a.op(0x1F).u8(7).op(0x26); break;
          case 2: a.br(wide ? op::kBr : op::kBrS, t); break;
          case 3: a.op(0x17).br(wide ? 0x3A : 0x2D, t); break;
          case 4: {
            std::vector<std::string> ts;
            for (int k = 0, n = static_cast<int>(local() % 5); k < n; ++k)
              ts.push_back("p" + std::to_string(local() % (pieces + 1)));
            a.op(0x16).sw(ts);
            break;
          }
          case 5: a.op(0x17).op(0x17).br(wide ? 0x3B + local() % 10 : 0x2E + local() % 10, t); break;
          case 6: a.tok(op::kCall, kVoid0); break;
        }
      }
      a.label("p" + std::to_string(pieces)).op(op::kRet);
      if (a.Resolve(&code)) break;
    }
    std::vector<uint8_t> body = code.size() < 64 && rng() % 2 ? Tiny(code) : Fat(code, 2);
    Probes probes;
    for (uint32_t o : Offsets(body))
      if (rng() % 2 == 0) probes.push_back({o, static_cast<uint32_t>(rng() % 1000)});
    BranchProbes branches;
    for (const BranchProbe& b : AllBranches(body))
      if (rng() % 4 != 0) branches.push_back(b);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    BranchRewriteAndCheck(body, probes, branches);
    if (HasFatalFailure() || HasFailure()) break;
  }
}

// The inline probe style: the counter increment itself, no call.
TEST(IlInlineProbes, IncrementSequenceBeforeEachPointAndOnEachOutcome) {
  // ldarg.0; brtrue.s +1; nop; ret
  const std::vector<uint8_t> body = {uint8_t((5 << 2) | 2), 0x02, 0x2D, 0x01, 0x00, 0x2A};
  dotcov::il::ProbeStyle style{0, 0x7F0000001000ull};
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(dotcov::il::InsertProbes(body, {{0, 0}, {4, 1}}, {{1, 2, {3}}}, style, &out, &error)) << error;
  dotcov::il::MethodBody decoded;
  ASSERT_TRUE(dotcov::il::MethodBody::Decode(out, &decoded, &error)) << error;
  EXPECT_EQ(decoded.max_stack(), 8 + 3);
  std::vector<int64_t> addresses;
  for (const auto& ins : decoded.instructions()) {
    if (ins.opcode == 0x21 && ins.operand != 1) addresses.push_back(ins.operand);  // (ldc.i8 1 is the increment)
    EXPECT_NE(ins.opcode, 0x28) << "no call in inline style";
  }
  // Slot 0 before ldarg.0, slot 2 on fall-through, slot 3 on the taken edge, slot 1 before ret.
  EXPECT_EQ(addresses.size(), 4u);
  for (int64_t a : addresses) EXPECT_TRUE(a == 0x7F0000001000 || a == 0x7F0000001008 || a == 0x7F0000001010 ||
                                          a == 0x7F0000001018);
  EXPECT_TRUE(dotcov::il::Verify(decoded, &error)) << error;
}

// The exact style (DOTCOV_EXACT_COUNTS=1): the same address, then `call Interlocked.Increment; pop` -- no
// read-add-write a second thread could interleave with.
TEST(IlAtomicProbes, InterlockedIncrementOfTheCounterBeforeEachPointAndOnEachOutcome) {
  // ldarg.0; brtrue.s +1; nop; ret
  const std::vector<uint8_t> body = {uint8_t((5 << 2) | 2), 0x02, 0x2D, 0x01, 0x00, 0x2A};
  const uint32_t increment = CheckAtomicToken(kHelper);
  ProbeStyle style{0, 0x7F0000001000ull, increment};
  const std::vector<Instruction> probe = style.Make(2);
  ASSERT_EQ(probe.size(), 4u);
  EXPECT_EQ(probe[0].opcode, 0x21);  // ldc.i8 <address of slot 2>
  EXPECT_EQ(probe[0].operand, 0x7F0000001010);
  EXPECT_EQ(probe[1].opcode, 0xE0);  // conv.u: a native int passed as the ref long
  EXPECT_EQ(probe[2].opcode, op::kCall);
  EXPECT_EQ(uint32_t(probe[2].operand), increment);
  EXPECT_EQ(probe[3].opcode, 0x26);  // pop: the returned count is not needed
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {{0, 0}, {4, 1}}, {{1, 2, {3}}}, style, &out, &error)) << error;
  MethodBody decoded;
  ASSERT_TRUE(MethodBody::Decode(out, &decoded, &error)) << error;
  std::vector<int64_t> addresses;
  int calls = 0;
  for (const auto& ins : decoded.instructions()) {
    if (ins.opcode == 0x21) addresses.push_back(ins.operand);
    EXPECT_NE(ins.opcode, 0x4C) << "no ldind.i8: nothing reads the counter but the interlocked add";
    EXPECT_NE(ins.opcode, 0x55) << "no stind.i8";
    if (ins.opcode == op::kCall) {
      EXPECT_EQ(uint32_t(ins.operand), increment);
      ++calls;
    }
  }
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(addresses, (std::vector<int64_t>{0x7F0000001000, 0x7F0000001010, 0x7F0000001018, 0x7F0000001008}));
  // With the call's real effect (pops 1, pushes 1) every probe is stack neutral: ret sees an empty stack.
  VerifyOptions opts = Opts();
  opts.return_values = 0;
  EXPECT_TRUE(Verify(decoded, &error, opts)) << error;
}

// --- the IL offset map (SetILInstrumentedCodeMap) -------------------------

namespace {

std::vector<OffsetMapEntry> MapOf(const std::vector<uint8_t>& body, const Probes& probes,
                                  const std::vector<BranchProbe>& branches, const ProbeStyle& style,
                                  std::vector<uint8_t>* out = nullptr) {
  std::vector<uint8_t> bytes;
  std::vector<OffsetMapEntry> map;
  std::string error;
  EXPECT_TRUE(InsertProbes(body, probes, branches, style, &bytes, &error, &map)) << error;
  if (out) *out = bytes;
  return map;
}

}  // namespace

TEST(IlOffsetMap, TinyBodyExactEntries) {
  // 0: ldarg.0  1: ldarg.1  2: div  3: ret; probes (10 bytes each) before 0 and 3.
  const std::vector<uint8_t> body = Tiny({0x02, 0x03, 0x5B, 0x2A});
  auto map = MapOf(body, {{0, 1}, {3, 2}}, {}, ProbeStyle{kHelper, 0});
  EXPECT_EQ(map, (std::vector<OffsetMapEntry>{{0, 0}, {1, 11}, {2, 12}, {3, 13}}));
  // The probe before ret (new 13..22) belongs to ret; div stays div.
  EXPECT_EQ(TranslateToOriginal(map, 0), 0u);   // the first probe: the first instruction, not the prolog
  EXPECT_EQ(TranslateToOriginal(map, 10), 0u);  // ldarg.0 itself
  EXPECT_EQ(TranslateToOriginal(map, 12), 2u);
  EXPECT_EQ(TranslateToOriginal(map, 13), 3u);
  EXPECT_EQ(TranslateToOriginal(map, 23), 3u);  // ret itself
}

TEST(IlOffsetMap, InlineProbesShiftByTheirTwentyThreeBytes) {
  const std::vector<uint8_t> body = Tiny({0x02, 0x03, 0x5B, 0x2A});
  auto map = MapOf(body, {{0, 1}, {2, 2}}, {}, ProbeStyle{0, 0x7F0000001000ull});
  EXPECT_EQ(map, (std::vector<OffsetMapEntry>{{0, 0}, {1, 24}, {2, 25}, {3, 49}}));
}

TEST(IlOffsetMap, AtomicProbesShiftByTheirSixteenBytes) {
  // ldc.i8 (9) + conv.u (1) + call (5) + pop (1).
  const std::vector<uint8_t> body = Tiny({0x02, 0x03, 0x5B, 0x2A});
  auto map = MapOf(body, {{0, 1}, {2, 2}}, {}, ProbeStyle{0, 0x7F0000001000ull, CheckAtomicToken(kHelper)});
  EXPECT_EQ(map, (std::vector<OffsetMapEntry>{{0, 0}, {1, 17}, {2, 18}, {3, 35}}));
}

TEST(IlOffsetMap, UnmodifiedBodyIsTheIdentity) {
  const std::vector<uint8_t> body = Tiny({0x02, 0x03, 0x5B, 0x2A});
  EXPECT_EQ(MapOf(body, {}, {}, ProbeStyle{kHelper, 0}),
            (std::vector<OffsetMapEntry>{{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
}

TEST(IlOffsetMap, WidenedBranchesMoveWhatFollows) {
  // 0: br.s L (2 bytes)  2..121: 120 nops  L(122): ret. A probe before every nop widens br.s to br (5 bytes).
  Asm a;
  a.br(op::kBrS, "L").nops(120).label("L").op(op::kRet);
  std::vector<uint8_t> body = Fat(a.code(), 1);
  Probes probes;
  for (uint32_t o = 2; o < 122; ++o) probes.push_back({o, o});
  auto map = MapOf(body, probes, {}, ProbeStyle{kHelper, 0});
  ASSERT_EQ(map.size(), 122u);
  EXPECT_EQ(map[0], (OffsetMapEntry{0, 0}));
  EXPECT_EQ(map[1], (OffsetMapEntry{2, 5}));        // after the widened br
  EXPECT_EQ(map[2], (OffsetMapEntry{3, 5 + 11}));   // probe + nop per original nop
  EXPECT_EQ(map.back(), (OffsetMapEntry{122, 5 + 120 * 11}));
}

TEST(IlOffsetMap, BranchOutcomeBlocksTranslateToTheBranch) {
  // 0: ldarg.0  1: brtrue.s T(4)  3: nop  4(T): ret. Before-probe at 3, outcome probes on the branch.
  const std::vector<uint8_t> body = Tiny({0x02, 0x2D, 0x01, 0x00, 0x2A});
  std::vector<uint8_t> out;
  auto map = MapOf(body, {{3, 9}}, {{1, 7, {8}}}, ProbeStyle{kHelper, 0}, &out);
  // 0 ldarg.0 | 1 brtrue.s | 3 F probe, 13 br.s NEXT | 15 T probe, 25 br.s T | 27 probe(9), 37 nop | 38 ret
  EXPECT_EQ(map, (std::vector<OffsetMapEntry>{{0, 0}, {1, 1}, {3, 27}, {4, 38}}));
  for (uint32_t o : {3u, 13u, 15u, 25u}) EXPECT_EQ(TranslateToOriginal(map, o), 1u) << o;
  EXPECT_EQ(TranslateToOriginal(map, 27), 3u);
  EXPECT_EQ(TranslateToOriginal(map, 37), 3u);
}

TEST(IlOffsetMap, EveryRewrittenInstructionOfEhBodyTranslatesIntoItsClause) {
  // try { nop; leave.s END } catch { pop; leave.s END } END: ret, every instruction probed.
  Asm a;
  a.label("try").op(op::kNop).br(0xDE, "end").label("h").op(0x26).br(0xDE, "end").label("end").op(op::kRet);
  ExceptionClause c{kClauseCatch, a.at("try"), a.at("h") - a.at("try"), a.at("h"), a.at("end") - a.at("h"), kType};
  std::vector<uint8_t> body = Fat(a.code(), 1, 0, false, {SmallEh({c})});
  std::vector<uint8_t> out;
  auto map = MapOf(body, AllOffsets(body), {}, ProbeStyle{0, 0x1000}, &out);
  MethodBody nb;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(out, &nb, &error)) << error;
  const ExceptionClause& nc = nb.clauses().at(0);
  for (const Instruction& ins : nb.instructions()) {
    uint32_t old = TranslateToOriginal(map, ins.offset);
    bool new_in_handler = ins.offset >= nc.handler_offset && ins.offset < nc.handler_offset + nc.handler_length;
    bool old_in_handler = old >= c.handler_offset && old < c.handler_offset + c.handler_length;
    EXPECT_EQ(new_in_handler, old_in_handler) << ins.offset;
  }
}

TEST(IlOffsetMap, TranslationFollowsTheRuntimesRules) {
  EXPECT_EQ(TranslateToOriginal({}, 7), 7u);  // no map: unchanged
  std::vector<OffsetMapEntry> map{{0, 4}, {2, 10}};
  EXPECT_EQ(TranslateToOriginal(map, 3), 0xFFFFFFFEu);  // before the first entry: the prolog
  EXPECT_EQ(TranslateToOriginal(map, 0xFFFFFFFFu), 0xFFFFFFFFu);  // NO_MAPPING stays
  EXPECT_EQ(TranslateToOriginal(map, 9), 0u);
  EXPECT_EQ(TranslateToOriginal(map, 10), 2u);
  EXPECT_EQ(TranslateToOriginal(map, 1000), 2u);
}

// --- per-test contexts: the inline check (ContextCheck) --------------------

namespace {

constexpr uint32_t kMiss = 0x0A000021;     // static void Miss(native int, int32)
constexpr uint32_t kCurrent = 0x0A000022;  // static int32 Current()
constexpr uint32_t kContextLocals = 0x11000005;
constexpr uint64_t kLast = 0x7F0000800000ull;

ProbeStyle ContextStyle() {
  ProbeStyle style{kHelper, 0x7F0000001000ull};
  style.context = ContextCheck{kMiss, kLast, kCurrent, kContextLocals, 3};
  return style;
}

VerifyOptions ContextOpts() {
  VerifyOptions o = Opts();
  auto base = o.call_resolver;
  o.call_resolver = [base](uint32_t token, int* pops, int* pushes) {
    if (token == kMiss) return *pops = 2, *pushes = 0, true;
    if (token == kCurrent) return *pops = 0, *pushes = 1, true;
    return base(token, pops, pushes);
  };
  o.return_values = 0;
  return o;
}

}  // namespace

TEST(IlContextProbes, ReadTheTestOnEntryOnceAndCallOutOnlyWhenTheSlotsLastTestDiffers) {
  // 0: nop  1: ldarg.0  2: brtrue.s 0 (back to the start)  4: ret
  const std::vector<uint8_t> body = Tiny({0x00, 0x02, 0x2D, 0xFC, 0x2A});
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {{0, 0}, {4, 1}}, {{2, 2, {3}}}, ContextStyle(), &out, &error)) << error;
  MethodBody decoded;
  ASSERT_TRUE(MethodBody::Decode(out, &decoded, &error)) << error;
  EXPECT_EQ(decoded.local_var_sig_token(), kContextLocals);
  const auto& ins = decoded.instructions();
  ASSERT_GE(ins.size(), 3u);
  EXPECT_EQ(ins[0].opcode, op::kCall);  // the entry: ctx = Current()
  EXPECT_EQ(uint32_t(ins[0].operand), kCurrent);
  EXPECT_EQ(ins[1].opcode, 0xFE0E);
  EXPECT_EQ(ins[1].operand, 3);
  const uint32_t after_entry = ins[2].offset;
  int currents = 0, misses = 0, compares = 0;
  std::vector<int64_t> lasts;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (ins[i].opcode == op::kCall && uint32_t(ins[i].operand) == kCurrent) ++currents;
    if (ins[i].opcode == op::kCall && uint32_t(ins[i].operand) == kMiss) {
      ++misses;
      EXPECT_EQ(ins[i - 1].opcode, 0xFE0C);  // Miss(&last[slot], ctx)
      EXPECT_EQ(ins[i - 1].operand, 3);
      lasts.push_back(ins[i - 3].operand);
    }
    if (ins[i].opcode == 0x2E) {  // beq.s: the slot's last test is ctx: skip the call, to the next instruction
      ++compares;
      ASSERT_LT(i + 5, ins.size());
      EXPECT_EQ(ins[i + 4].opcode, op::kCall);
      EXPECT_EQ(ins[i].operand, int64_t{ins[i + 5].offset});
      EXPECT_EQ(ins[i - 1].opcode, 0xFE0C);
      EXPECT_EQ(ins[i - 2].opcode, 0x4B);  // ldind.u4 of last[slot]
    }
    // The loop back to offset 0 lands after the entry: the test is read once per call.
    if ((ins[i].opcode == 0x2D || ins[i].opcode == op::kBrS) && ins[i].operand < int64_t{after_entry})
      ADD_FAILURE() << "a branch re-enters the entry at " << ins[i].offset;
  }
  EXPECT_EQ(currents, 1);
  EXPECT_EQ(misses, 4);
  EXPECT_EQ(compares, 4);
  EXPECT_EQ(lasts, (std::vector<int64_t>{int64_t(kLast), int64_t(kLast + 8), int64_t(kLast + 12), int64_t(kLast + 4)}));
  EXPECT_TRUE(Verify(decoded, &error, ContextOpts())) << error;
  // The map: the entry belongs to the first statement.
  std::vector<OffsetMapEntry> map;
  ASSERT_TRUE(InsertProbes(body, {{0, 0}, {4, 1}}, {{2, 2, {3}}}, ContextStyle(), &out, &error, &map)) << error;
  ASSERT_FALSE(map.empty());
  EXPECT_EQ(map.front().new_offset, 0u);
}

TEST(IlContextProbes, AWrappedTestComparesWithItsOwnIdAndReadsNothingOnEntry) {
  const std::vector<uint8_t> body = Tiny({0x00, 0x2A});
  ContextWrap wrap{7, 0x0A000031, 0x0A000032, 0x11000009, 0, -1};
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(InsertProbes(body, {{0, 0}}, {}, ContextStyle(), &out, &error, nullptr, &wrap)) << error;
  MethodBody decoded;
  ASSERT_TRUE(MethodBody::Decode(out, &decoded, &error)) << error;
  EXPECT_EQ(decoded.local_var_sig_token(), 0x11000009u);
  int constants = 0;
  for (const Instruction& i : decoded.instructions()) {
    EXPECT_FALSE(i.opcode == op::kCall && uint32_t(i.operand) == kCurrent);
    if (i.opcode == op::kLdcI4 && i.operand == 7) ++constants;
  }
  EXPECT_EQ(constants, 3);  // Enter(7), and the compare and Miss of the one probe
}

TEST(IlContextProbes, SkipsThatLeaveTheProbeOrLandAtAnotherDepthAreRefused) {
  const std::vector<uint8_t> body = Tiny({0x00, 0x2A});
  MethodBody decoded;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &decoded, &error)) << error;
  // ldc.i4.0; ldc.i4.0; beq.s +2 leaves the probe (one instruction follows).
  EXPECT_FALSE(decoded.InsertBefore(0, {MakeInstruction(0x16), MakeInstruction(0x16), MakeInstruction(0x2E, kProbeSkip + 2),
                                        MakeInstruction(0x00)}, &error));
  // ldc.i4.0; ldc.i4.0; beq.s +1; ldc.i4.0 -- the skip lands at depth 0, the fall-through ends at 1.
  EXPECT_FALSE(decoded.InsertBefore(0, {MakeInstruction(0x16), MakeInstruction(0x16), MakeInstruction(0x2E, kProbeSkip + 1),
                                        MakeInstruction(0x16)}, &error));
  EXPECT_FALSE(decoded.has_insertions());
  EXPECT_TRUE(decoded.InsertBefore(0, {MakeInstruction(0x16), MakeInstruction(0x16), MakeInstruction(0x2E, kProbeSkip + 1),
                                       MakeInstruction(0x00)}, &error)) << error;
}
