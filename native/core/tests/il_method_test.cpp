#include "dotcov/il_method.h"
#include "il_assembler.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "dotcov/il_opcodes.h"

using namespace dotcov;
using namespace dotcov::il;

namespace {
using namespace dotcov::il::testing;

void ExpectRoundTrip(const std::vector<uint8_t>& body) {
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  std::vector<uint8_t> out;
  ASSERT_TRUE(m.Encode(&out, &error)) << error;
  EXPECT_EQ(out, body);
}

bool DecodeFails(const std::vector<uint8_t>& body, const std::string& expected_substring) {
  MethodBody m;
  std::string error;
  bool ok = MethodBody::Decode(body, &m, &error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find(expected_substring), std::string::npos) << "error was: " << error;
  return !ok;
}

}  // namespace

TEST(IlOpcodes, TableIsCompleteAndConsistent) {
  size_t one = 0, two = 0;
  std::set<uint16_t> seen;
  for (const OpcodeInfo& info : AllOpcodes()) {
    EXPECT_TRUE(seen.insert(info.value).second) << info.name;
    EXPECT_EQ(LookupOpcode(info.value), &info) << info.name;
    ((info.value >> 8) == 0xFE ? two : one)++;
  }
  // 0x00-0xE0 minus the 34 unused values; 0xFE00-0xFE1E minus 0xFE08, 0xFE10, 0xFE1B.
  EXPECT_EQ(one, 191u);
  EXPECT_EQ(two, 28u);
  for (uint16_t unused : {0x24, 0x77, 0x78, 0xA6, 0xB2, 0xBB, 0xC1, 0xC4, 0xC5, 0xC7, 0xCF, 0xE1, 0xFD, 0xFE, 0xFF,
                          0xFE08, 0xFE10, 0xFE1B, 0xFE1F, 0xFEFF, 0x0100, 0xFF00})
    EXPECT_EQ(LookupOpcode(unused), nullptr) << std::hex << unused;

  EXPECT_STREQ(LookupOpcode(0x20)->name, "ldc.i4");
  EXPECT_EQ(LookupOpcode(0x20)->operand, OperandKind::kInt32);
  EXPECT_EQ(LookupOpcode(0x1F)->operand, OperandKind::kInt8);
  EXPECT_EQ(LookupOpcode(0x0E)->operand, OperandKind::kUInt8);
  EXPECT_EQ(LookupOpcode(0xFE09)->operand, OperandKind::kUInt16);
  EXPECT_EQ(LookupOpcode(0x21)->operand, OperandKind::kInt64);
  EXPECT_EQ(LookupOpcode(0x22)->operand, OperandKind::kFloat32);
  EXPECT_EQ(LookupOpcode(0x23)->operand, OperandKind::kFloat64);
  EXPECT_EQ(LookupOpcode(0x45)->operand, OperandKind::kSwitch);
  EXPECT_EQ(LookupOpcode(0xDE)->operand, OperandKind::kBranchShort);
  EXPECT_EQ(LookupOpcode(0xDD)->operand, OperandKind::kBranchLong);
  EXPECT_STREQ(LookupOpcode(0xFE1E)->name, "readonly.");
  EXPECT_STREQ(LookupOpcode(0xE0)->name, "conv.u");

  std::set<uint16_t> prefixes;
  for (const OpcodeInfo& info : AllOpcodes())
    if (IsPrefix(info.value)) prefixes.insert(info.value);
  EXPECT_EQ(prefixes, (std::set<uint16_t>{op::kUnaligned, op::kVolatile, op::kTail, op::kConstrained, op::kNo,
                                          op::kReadonly}));
  EXPECT_EQ(LookupOpcode(op::kUnaligned)->operand, OperandKind::kUInt8);
  EXPECT_EQ(LookupOpcode(op::kNo)->operand, OperandKind::kUInt8);
  EXPECT_EQ(LookupOpcode(op::kConstrained)->operand, OperandKind::kToken);

  for (uint16_t v : {op::kCall, op::kCallvirt, op::kCalli, op::kNewobj, op::kRet})
    EXPECT_EQ(LookupOpcode(v)->pops, kVaries) << LookupOpcode(v)->name;
  EXPECT_EQ(LookupOpcode(op::kNewobj)->pushes, 1);
  EXPECT_EQ(LookupOpcode(0x25)->pops, 1);  // dup
  EXPECT_EQ(LookupOpcode(0x25)->pushes, 2);
  EXPECT_EQ(LookupOpcode(0xA4)->pops, 3);  // stelem
  EXPECT_EQ(LookupOpcode(op::kThrow)->flow, FlowKind::kThrow);
  EXPECT_EQ(LookupOpcode(op::kRethrow)->flow, FlowKind::kThrow);
  EXPECT_EQ(LookupOpcode(op::kEndfilter)->flow, FlowKind::kReturn);
  EXPECT_EQ(LookupOpcode(op::kSwitch)->flow, FlowKind::kCondBranch);
  EXPECT_EQ(LookupOpcode(op::kLeaveS)->flow, FlowKind::kBranch);

  // Every short branch has a long form and back.
  int shorts = 0;
  for (const OpcodeInfo& info : AllOpcodes()) {
    if (info.operand == OperandKind::kBranchShort) {
      ++shorts;
      uint16_t l = LongFormOf(info.value);
      ASSERT_NE(l, 0) << info.name;
      EXPECT_EQ(LookupOpcode(l)->operand, OperandKind::kBranchLong);
      EXPECT_EQ(std::string(LookupOpcode(l)->name) + ".s", info.name);
      EXPECT_EQ(ShortFormOf(l), info.value);
      EXPECT_EQ(LookupOpcode(l)->pops, info.pops);
    }
  }
  EXPECT_EQ(shorts, 14);
  EXPECT_EQ(LongFormOf(op::kBr), 0);
}

TEST(IlMethod, DecodesTinyBodyAndRoundTrips) {
  Asm a;
  a.op(0x02).op(0x03).op(0x58).op(op::kRet);  // ldarg.0 ldarg.1 add ret
  auto body = Tiny(a.code());
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  EXPECT_FALSE(m.fat_header());
  EXPECT_EQ(m.max_stack(), 8);
  EXPECT_EQ(m.code_size(), 4u);
  ASSERT_EQ(m.instructions().size(), 4u);
  EXPECT_EQ(m.instructions()[2].opcode, 0x58);
  EXPECT_EQ(m.instructions()[3].offset, 3u);
  EXPECT_TRUE(m.clauses().empty());
  ExpectRoundTrip(body);
  ExpectRoundTrip(Tiny({}));
  ExpectRoundTrip(Tiny(Asm().nops(62).op(op::kRet).code()));  // 63 bytes: largest tiny
}

TEST(IlMethod, DecodesEveryOperandKindAndRoundTrips) {
  Asm a;
  a.label("top");
  a.op(0x1F).u8(0xFB);                       // ldc.i4.s -5
  a.op(0x20).u32(0x80000001);                // ldc.i4
  a.op(0x21).u64(0x8000000000000002ull);     // ldc.i8
  a.op(0x22).u32(0x3F800000);                // ldc.r4 1.0
  a.op(0x23).u64(0x400921FB54442D18ull);     // ldc.r8 pi
  a.op(0x0E).u8(200);                        // ldarg.s 200
  a.op(0xFE09).u16(0x1234);                  // ldarg 0x1234
  a.op(0x72).u32(0x70000001);                // ldstr
  a.op(0xFE12).u8(1).op(0x4A);               // unaligned. 1 ldind.i4
  a.op(0xFE19).u8(2).op(0x9A);               // no. 2 ldelem.ref
  a.br(0x2C, "top");                         // brfalse.s backwards
  a.br(0x39, "end");                         // brfalse forwards
  a.sw({"top", "end", "top"});
  a.op(0xFE06).u32(0x06000001);              // ldftn
  a.label("end").op(op::kRet);
  auto code = a.code();
  auto body = Fat(code, 12);
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  const auto& ins = m.instructions();
  ASSERT_EQ(ins.size(), 17u);
  EXPECT_EQ(ins[0].operand, -5);
  EXPECT_EQ(ins[1].operand, static_cast<int32_t>(0x80000001));
  EXPECT_EQ(static_cast<uint64_t>(ins[2].operand), 0x8000000000000002ull);
  EXPECT_EQ(ins[3].operand, 0x3F800000);
  EXPECT_EQ(ins[5].operand, 200);
  EXPECT_EQ(ins[6].operand, 0x1234);
  EXPECT_EQ(ins[7].operand, 0x70000001);
  EXPECT_EQ(ins[8].opcode, op::kUnaligned);
  EXPECT_EQ(ins[8].operand, 1);
  EXPECT_EQ(ins[12].opcode, 0x2C);
  EXPECT_EQ(ins[12].operand, 0);  // absolute target
  EXPECT_EQ(ins[13].operand, a.labels["end"]);
  ASSERT_EQ(ins[14].switch_targets.size(), 3u);
  EXPECT_EQ(ins[14].switch_targets[1], static_cast<int32_t>(a.labels["end"]));
  EXPECT_EQ(ins[14].Size(), 1u + 4 + 12);
  EXPECT_EQ(ins[15].opcode, 0xFE06);
  ExpectRoundTrip(body);
}

TEST(IlMethod, KeepsFatHeaderLocalsAndInitLocals) {
  auto code = Asm().op(0x16).op(0x0A).op(op::kRet).code();  // ldc.i4.0 stloc.0 ret
  auto body = Fat(code, 1, 0x11000005, true);
  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  EXPECT_TRUE(m.fat_header());
  EXPECT_TRUE(m.init_locals());
  EXPECT_EQ(m.local_var_sig_token(), 0x11000005u);
  EXPECT_EQ(m.max_stack(), 1);
  ExpectRoundTrip(body);
  // Fat stays fat even when a tiny header would do.
  ExpectRoundTrip(Fat(Asm().op(op::kRet).code(), 0));
  ExpectRoundTrip(Fat(Asm().op(op::kRet).code(), 8, 0, true));
}

TEST(IlMethod, RoundTripsExceptionSectionsInTheirOriginalForms) {
  // try { nop; leave.s end } catch { pop; leave.s end } end: ret
  Asm a;
  a.label("try").op(op::kNop).br(op::kLeaveS, "end");
  a.label("h").op(0x26).br(op::kLeaveS, "end");
  a.label("end").op(op::kRet);
  auto code = a.code();
  ExceptionClause c{kClauseCatch, 0, 3, 3, 3, 0x01000001};
  ExpectRoundTrip(Fat(code, 1, 0, false, {SmallEh({c})}));
  ExpectRoundTrip(Fat(code, 1, 0, false, {FatEh({c})}));  // fat kept although small fits
  ExceptionClause fin{kClauseFinally, 0, 3, 3, 3, 0};
  ExpectRoundTrip(Fat(code, 1, 0, false, {SmallEh({c}, true), FatEh({fin})}));
  ExpectRoundTrip(Fat(code, 1, 0, false, {FatEh({c, fin}, true), SmallEh({fin}, true), SmallEh({c})}));

  MethodBody m;
  std::string error;
  ASSERT_TRUE(MethodBody::Decode(Fat(code, 1, 0, false, {SmallEh({c}, true), FatEh({fin})}), &m, &error)) << error;
  ASSERT_EQ(m.clauses().size(), 2u);
  EXPECT_EQ(m.clauses()[0], c);
  EXPECT_EQ(m.clauses()[1], fin);
  EXPECT_EQ(m.eh_sections(), (std::vector<EhSectionForm>{{false, 1}, {true, 1}}));
}

TEST(IlMethod, RejectsMalformedBodies) {
  DecodeFails({}, "empty");
  DecodeFails({0x00}, "header format");
  DecodeFails({0x01, 0x2A}, "header format");
  DecodeFails({0x03, 0x30, 0x08, 0x00}, "truncated fat method header");
  DecodeFails({0x0A, 0x00}, "truncated");  // tiny claims 2 bytes, has 1
  {
    auto body = Fat({op::kRet}, 1);
    body[1] = 0x20;  // header size 2 dwords
    DecodeFails(body, "3 dwords");
    auto truncated = Fat({0x00, 0x00, op::kRet}, 1);
    truncated.pop_back();
    DecodeFails(truncated, "truncated");
  }
  DecodeFails(Tiny({0x24}), "undefined opcode");
  DecodeFails(Tiny({0xFE, 0x08}), "undefined opcode");
  DecodeFails(Tiny({0xFE}), "truncated two-byte opcode");
  DecodeFails(Tiny({0x20, 0x01, 0x02}), "truncated operand of ldc.i4");
  DecodeFails(Tiny({0x2B}), "truncated operand of br.s");
  DecodeFails(Tiny({0x45, 0x02, 0x00}), "truncated operand of switch");
  DecodeFails(Tiny({0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00}), "truncated operand of switch");
  DecodeFails(Tiny({0xFE, 0x12}), "truncated operand of unaligned.");

  auto code = Asm().op(op::kNop).br(op::kLeaveS, "e").op(0x26).br(op::kLeaveS, "e").label("e").op(op::kRet).code();
  ExceptionClause c{kClauseCatch, 0, 3, 3, 3, 0x01000001};
  {
    auto body = Fat(code, 1, 0, false, {SmallEh({c})});
    body.resize(body.size() - 1);
    DecodeFails(body, "truncated exception section");
    body.resize(Fat(code, 1).size());  // MoreSects without any section
    DecodeFails(body, "truncated extra data section header");
  }
  {
    auto section = SmallEh({c});
    section[0] = 0x02;  // OptILTable
    DecodeFails(Fat(code, 1, 0, false, {section}), "unsupported extra data section kind");
    section[0] = 0x01;
    section[1] = 2;
    DecodeFails(Fat(code, 1, 0, false, {section}), "too small");
    auto fat_section = FatEh({c});
    fat_section[3] = 0x10;  // 1 MiB data size
    DecodeFails(Fat(code, 1, 0, false, {fat_section}), "truncated exception section");
  }
  {
    // A section claims more sections follow, but none do.
    DecodeFails(Fat(code, 1, 0, false, {SmallEh({c}, true)}), "truncated extra data section header");
  }
  // Nothing happens with a null output.
  std::string error;
  EXPECT_FALSE(MethodBody::Decode(Tiny({0x2A}), nullptr, &error));
}

TEST(IlMethod, SurvivesRandomBytes) {
  std::mt19937 rng(1234);
  auto code = Asm()
                  .op(op::kNop)
                  .br(op::kLeaveS, "e")
                  .op(0x26)
                  .br(op::kLeaveS, "e")
                  .label("e")
                  .op(0x20)
                  .u32(7)
                  .op(0x45)
                  .u32(1)
                  .u32(0)
                  .op(op::kRet)
                  .code();
  ExceptionClause c{kClauseCatch, 0, 3, 3, 3, 0x01000001};
  std::vector<std::vector<uint8_t>> seeds = {Fat(code, 2, 0, false, {SmallEh({c}, true), FatEh({c})}), Tiny(code)};
  int decoded = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> body = seeds[iter % seeds.size()];
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) body[rng() % body.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) body.resize(rng() % (body.size() + 1));
    MethodBody m;
    std::string error;
    if (!MethodBody::Decode(body, &m, &error)) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    ++decoded;
    std::vector<uint8_t> out;
    std::string encode_error;
    if (m.Encode(&out, &encode_error)) {
      MethodBody again;
      EXPECT_TRUE(MethodBody::Decode(out, &again, &error)) << error;
      EXPECT_EQ(again.instructions(), m.instructions());
      EXPECT_EQ(again.clauses(), m.clauses());
    }
    for (const Instruction& ins : m.instructions()) {
      MethodBody copy = m;
      copy.InsertBefore(ins.offset, {MakeInstruction(op::kNop)}, &error);
      std::vector<uint8_t> rewritten;
      copy.Encode(&rewritten, &error);
    }
  }
  EXPECT_GT(decoded, 100);
}
