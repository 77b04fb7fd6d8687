// Conditions computed into a value (FindValueConditions) and their probes
// (MethodBody::InsertAfterValue, ProbeStyle::MakeValue), on the IL shapes Roslyn
// emits for samples/Lowering/Conditions.cs in Debug and Release.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "dotcov/il_rewriter.h"
#include "dotcov/module_info.h"
#include "dotcov/module_sites.h"
#include "dotcov/pe_image.h"
#include "dotcov/probe_fallback.h"
#include "dotcov/rewrite_check.h"
#include "dotcov/signature_types.h"
#include "il_assembler.h"

namespace dotcov::il {
namespace {

using testing::Asm;
using testing::Fat;
using testing::FatEh;

constexpr uint32_t kHelper = 0x0A000001;
constexpr uint32_t kIncrement = 0x0A000002;  // Interlocked.Increment(ref long): int64(int64&)
constexpr uint16_t kBgeS = 0x2F, kBleS = 0x31, kBltS = 0x32, kBrfalseS = 0x2C, kBrtrueS = 0x2D;
constexpr uint16_t kLdarg0 = 0x02, kLdarg1 = 0x03, kLdcI40 = 0x16, kLdcI41 = 0x17, kStloc0 = 0x0A, kLdloc0 = 0x06;
constexpr uint16_t kStloc1 = 0x0B, kLdloc1 = 0x07, kStloc2 = 0x0C, kLdloc2 = 0x08, kClt = 0xFE04, kCgt = 0xFE02;
constexpr uint16_t kCeq = 0xFE01, kCgtUn = 0xFE03, kEndfilter = 0xFE11, kCallvirt = 0x6F, kIsinst = 0x75;
constexpr uint16_t kDup = 0x25, kPop = 0x26, kLeaveS = 0xDE;

MethodBody Decoded(const std::vector<uint8_t>& body) {
  MethodBody m;
  std::string error;
  EXPECT_TRUE(MethodBody::Decode(body, &m, &error)) << error;
  return m;
}

// Debug `bool b = x < 0 && y < 0; return b;`
Asm DebugAnd() {
  Asm a;
  a.op(op::kNop).op(kLdarg0).op(kLdcI40).br(kBgeS, "c0").op(kLdarg1).op(kLdcI40).label("v").op(kClt).br(op::kBrS, "j");
  a.label("c0").op(kLdcI40).label("j").op(kStloc0).op(kLdloc0).op(kStloc1).br(op::kBrS, "r").label("r").op(kLdloc1);
  a.op(op::kRet);
  return a;
}

TEST(IlValueConditions, ShortCircuitLastOperandDebugAndRelease) {
  Asm d = DebugAnd();
  EXPECT_EQ(FindValueConditions(Decoded(Fat(d.code(), 2, 0x11000001))), (std::vector<uint32_t>{d.at("v")}));
  // Release `x is > 0 and < 10`: ldarg.0; ldc.i4.0; ble.s F; ldarg.0; ldc.i4.s 10; clt; ret; F: ldc.i4.0; ret
  Asm r;
  r.op(kLdarg0).op(kLdcI40).br(kBleS, "f").op(kLdarg0).op(0x1F).u8(10).label("v").op(kClt).op(op::kRet);
  r.label("f").op(kLdcI40).op(op::kRet);
  EXPECT_EQ(FindValueConditions(Decoded(Fat(r.code(), 2))), (std::vector<uint32_t>{r.at("v")}));
  // Release `s.StartsWith('a') && s.EndsWith('z')`: the last operand is a call.
  Asm c;
  c.op(kLdarg0).op(0x1F).u8(97).tok(kCallvirt, 0x0A000002).br(kBrfalseS, "f").op(kLdarg0).op(0x1F).u8(122);
  c.label("v").tok(kCallvirt, 0x0A000003).op(op::kRet).label("f").op(kLdcI40).op(op::kRet);
  auto bool_calls = [](uint32_t token) { return token == 0x0A000002 || token == 0x0A000003; };
  EXPECT_EQ(FindValueConditions(Decoded(Fat(c.code(), 2)), bool_calls), (std::vector<uint32_t>{c.at("v")}));
  // The same shape around a call that does not return bool is `c ? Foo() : 0`: no condition.
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(c.code(), 2))).empty());
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(c.code(), 2)), [](uint32_t) { return false; }).empty());
  // `a || b` into a stloc: the constant side is ldc.i4.1.
  Asm o;
  o.op(kLdarg0).br(kBrfalseS, "t").op(kLdarg0).tok(kCallvirt, 0x0A000004).op(kLdcI40).label("v").op(kCeq);
  o.br(op::kBrS, "j").label("t").op(kLdcI41).label("j").op(kStloc0).op(kLdloc0).op(op::kRet);
  EXPECT_EQ(FindValueConditions(Decoded(Fat(o.code(), 2, 0x11000001))), (std::vector<uint32_t>{o.at("v")}));
}

TEST(IlValueConditions, NotWhenABranchAlreadyCountsTheValueOrNoShortCircuit) {
  // Debug `if (w < 0 || h < 0)`: the joined value goes to stloc.0; ldloc.0; brfalse (counted by that branch).
  Asm a;
  a.op(op::kNop).op(kLdarg0).op(kLdcI40).br(kBltS, "t").op(kLdarg1).op(kLdcI40).op(kClt).br(op::kBrS, "j");
  a.label("t").op(kLdcI41).label("j").op(kStloc0).op(kLdloc0).br(kBrfalseS, "e").op(kLdcI41).op(op::kRet);
  a.label("e").op(kLdcI40).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(a.code(), 2, 0x11000001))).empty());
  // `return a > b;` is no condition of a decision.
  Asm g;
  g.op(kLdarg0).op(kLdarg1).op(kCgt).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(g.code(), 2))).empty());
  // `c ? x : y` where the other outcome computes a value (not a constant): not a short circuit.
  Asm t;
  t.op(kLdarg0).br(kBrfalseS, "e").op(kLdarg1).op(op::kRet).label("e").op(kLdarg0).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(t.code(), 2))).empty());
  // The operand's block is entered from elsewhere too (a loop back edge): not only the short circuit's.
  Asm l;
  l.op(kLdarg0).br(kBrfalseS, "f").label("in").op(kLdarg1).op(kStloc0).br(op::kBrS, "in").label("f").op(kLdcI40);
  l.op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(l.code(), 2, 0x11000001))).empty());
}

// The last operand a bool variable: Debug `bool b = x < 0 && <load>; return b;` in an instance method
// (ldarg.0 is `this`, ldarg.1 is x).
Asm DebugAndLoad(const std::function<void(Asm&)>& load) {
  Asm a;
  a.op(op::kNop).op(kLdarg1).op(kLdcI40).br(kBgeS, "c0").label("first");
  load(a);
  a.br(op::kBrS, "j").label("c0").op(kLdcI40).label("j").op(kStloc0).op(kLdloc0).op(op::kRet);
  return a;
}

TEST(IlValueConditions, LastOperandABoolVariable) {
  constexpr uint16_t kLdfld = 0x7B, kLdsfld = 0x7E, kLdarg2 = 0x04, kLdargS = 0x0E, kLdlocS = 0x11;
  constexpr uint32_t kBoolField = 0x04000001, kIntField = 0x04000002, kBoolRefField = 0x0A000009;
  BoolTypes types;
  types.token_is_bool = [&](uint32_t t) { return t == kBoolField || t == kBoolRefField; };
  types.arguments = {false, false, true, false};     // this, int x, bool flag, int count
  types.locals = {false, true, false, false, false, true};  // int, bool, int, ..., bool at 5
  struct Shape {
    const char* name;
    std::function<void(Asm&)> load;
    bool condition;
  };
  const Shape shapes[] = {
      {"bool field `_enabled`", [](Asm& a) { a.op(kLdarg0).label("v").tok(kLdfld, kBoolField); }, true},
      {"bool field of another type (MemberRef)", [](Asm& a) { a.op(kLdarg0).label("v").tok(kLdfld, kBoolRefField); },
       true},
      {"static bool field", [](Asm& a) { a.label("v").tok(kLdsfld, kBoolField); }, true},
      {"bool argument `flag`", [](Asm& a) { a.label("v").op(kLdarg2); }, true},
      {"bool argument by ldarg.s", [](Asm& a) { a.label("v").op(kLdargS).u8(2); }, true},
      {"bool local", [](Asm& a) { a.label("v").op(kLdloc1); }, true},
      {"bool local by ldloc.s", [](Asm& a) { a.label("v").op(kLdlocS).u8(5); }, true},
      {"`!flag`", [](Asm& a) { a.op(kLdarg2).op(kLdcI40).label("v").op(kCeq); }, true},
      // `c ? <int> : 0`: the same IL around a value that is no bool.
      {"int field", [](Asm& a) { a.op(kLdarg0).label("v").tok(kLdfld, kIntField); }, false},
      {"int argument", [](Asm& a) { a.label("v").op(kLdarg1); }, false},
      {"`this`", [](Asm& a) { a.label("v").op(kLdarg0); }, false},
      {"argument past the signature", [](Asm& a) { a.label("v").op(kLdargS).u8(9); }, false},
      {"int local", [](Asm& a) { a.label("v").op(kLdloc0); }, false},
      {"local past the signature", [](Asm& a) { a.label("v").op(kLdlocS).u8(6); }, false},
  };
  for (const Shape& shape : shapes) {
    Asm a = DebugAndLoad(shape.load);
    MethodBody body = Decoded(Fat(a.code(), 2, 0x11000001));
    auto expected = shape.condition ? std::vector<uint32_t>{a.at("v")} : std::vector<uint32_t>{};
    EXPECT_EQ(FindValueConditions(body, types), expected) << shape.name;
    // Without type knowledge only the comparison counts.
    if (std::string(shape.name) != "`!flag`") {
      EXPECT_TRUE(FindValueConditions(body).empty()) << shape.name;
    }
  }
  // Release `return ok || flag;` (static method: ldarg.0 is ok, ldarg.1 flag): brtrue.s T; ldarg.1; ret; T: ldc.i4.1.
  Asm r;
  r.op(kLdarg0).br(kBrtrueS, "t").label("v").op(kLdarg1).op(op::kRet).label("t").op(kLdcI41).op(op::kRet);
  BoolTypes two_bools;
  two_bools.arguments = {true, true};
  EXPECT_EQ(FindValueConditions(Decoded(Fat(r.code(), 2)), two_bools), (std::vector<uint32_t>{r.at("v")}));
  // Debug `if (ok || flag)`: the value goes on to brfalse, whose outcomes already count it.
  Asm d;
  d.op(kLdarg0).br(kBrtrueS, "t").op(kLdarg1).br(op::kBrS, "j").label("t").op(kLdcI41).label("j").op(kStloc0);
  d.op(kLdloc0).br(kBrfalseS, "e").op(kLdcI41).op(op::kRet).label("e").op(kLdcI40).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(d.code(), 2, 0x11000001)), two_bools).empty());
  // A bool load that is not the last operand of a short circuit (`return flag;`): none.
  Asm g;
  g.op(kLdarg1).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(g.code(), 2)), two_bools).empty());
}

TEST(IlValueConditions, FSharpLastOperandAtTheBranchTarget) {
  // F# `let negativeOr (flag: bool) x = x < 0 || flag` (Debug and Release): `ldarg.1; ldc.i4.0; bge.s T;
  // ldc.i4.1; ret; T: ldarg.0; ret` -- the constant falls through, the last operand is the target.
  BoolTypes types;
  types.arguments = {true, false};
  Asm a;
  a.op(kLdarg1).op(kLdcI40).br(kBgeS, "t").op(kLdcI41).op(op::kRet).label("t").label("v").op(kLdarg0).op(op::kRet);
  EXPECT_EQ(FindValueConditions(Decoded(Fat(a.code(), 2)), types), (std::vector<uint32_t>{a.at("v")}));
  // `x > 0 && big` with a local: `ble.s T; ldloc.0; ret; T: ldc.i4.0; ret` is the usual shape (target constant).
  // Not when the target is entered from elsewhere too, or when code falls into it.
  Asm two;
  two.op(kLdarg1).op(kLdcI40).br(kBgeS, "t").op(kLdarg1).br(kBrtrueS, "t").op(kLdcI41).op(op::kRet).label("t");
  two.op(kLdarg0).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(two.code(), 2)), types).empty());
  Asm fall;
  fall.op(kLdarg1).op(kLdcI40).br(kBgeS, "t").op(kLdcI41).op(kPop).label("t").op(kLdarg0).op(op::kRet);
  EXPECT_TRUE(FindValueConditions(Decoded(Fat(fall.code(), 2)), types).empty());
}

TEST(SignatureTypes, BoolLocalsArgumentsFieldsAndReturns) {
  std::vector<bool> flags;
  // LOCAL_SIG: int32, bool, ref bool, pinned bool, modopt(T) bool, List<bool>, bool[]
  const std::vector<uint8_t> locals = {0x07, 7, 0x08, 0x02, 0x10, 0x02, 0x45, 0x02, 0x20, 0x05, 0x02,
                                       0x15, 0x12, 0x09, 1, 0x02, 0x1D, 0x02};
  ASSERT_TRUE(BoolLocals(locals, &flags));
  EXPECT_EQ(flags, (std::vector<bool>{false, true, false, false, true, false, false}));
  EXPECT_FALSE(BoolLocals(std::vector<uint8_t>{0x07, 2, 0x02}, &flags));  // truncated
  EXPECT_TRUE(flags.empty());
  EXPECT_FALSE(BoolLocals(std::vector<uint8_t>{0x06, 0x02}, &flags));  // a field signature
  // Instance `bool M(int, bool, ref bool)`: `this` first.
  ASSERT_TRUE(BoolArguments(std::vector<uint8_t>{0x20, 3, 0x02, 0x08, 0x02, 0x10, 0x02}, &flags));
  EXPECT_EQ(flags, (std::vector<bool>{false, false, true, false}));
  // Static generic `void M<T>(bool, T)`.
  ASSERT_TRUE(BoolArguments(std::vector<uint8_t>{0x10, 1, 2, 0x01, 0x02, 0x1E, 0}, &flags));
  EXPECT_EQ(flags, (std::vector<bool>{true, false}));
  // EXPLICITTHIS: `this` is the first listed parameter.
  ASSERT_TRUE(BoolArguments(std::vector<uint8_t>{0x60, 1, 0x01, 0x02}, &flags));
  EXPECT_EQ(flags, (std::vector<bool>{true}));
  EXPECT_FALSE(BoolArguments(std::vector<uint8_t>{0x00, 2, 0x01, 0x02}, &flags));  // truncated
  // `ref bool` / `in bool` (modreq(InAttribute) before BYREF) arguments: `static void M(bool, ref bool, in bool, ref
  // int)`.
  ASSERT_TRUE(ByrefBoolArguments(
      std::vector<uint8_t>{0x00, 4, 0x01, 0x02, 0x10, 0x02, 0x1F, 0x09, 0x10, 0x02, 0x10, 0x08}, &flags));
  EXPECT_EQ(flags, (std::vector<bool>{false, true, true, false}));
  // `ref bool` locals: LOCAL_SIG {bool, ref bool, ref int, pinned ref bool, modopt(T) ref bool, ref bool[]}.
  ASSERT_TRUE(ByrefBoolLocals(std::vector<uint8_t>{0x07, 6, 0x02, 0x10, 0x02, 0x10, 0x08, 0x45, 0x10, 0x02, 0x20, 0x09,
                                                   0x10, 0x02, 0x10, 0x1D, 0x02},
                              &flags));
  EXPECT_EQ(flags, (std::vector<bool>{false, true, false, true, true, false}));
  ASSERT_TRUE(BoolLocals(std::vector<uint8_t>{0x07, 2, 0x10, 0x02, 0x02}, &flags));  // a `ref bool` is no bool local
  EXPECT_EQ(flags, (std::vector<bool>{false, true}));
  EXPECT_FALSE(ByrefBoolLocals(std::vector<uint8_t>{0x07, 2, 0x10, 0x02}, &flags));  // truncated
  EXPECT_TRUE(flags.empty());
  EXPECT_FALSE(ByrefBoolLocals(std::vector<uint8_t>{0x00, 1, 0x01, 0x02}, &flags));  // a method signature
  EXPECT_TRUE(SignatureIsBool(std::vector<uint8_t>{0x06, 0x02}));                   // bool field
  EXPECT_TRUE(SignatureIsBool(std::vector<uint8_t>{0x06, 0x1F, 0x09, 0x02}));       // modreq(IsVolatile) bool
  EXPECT_FALSE(SignatureIsBool(std::vector<uint8_t>{0x06, 0x08}));                  // int field
  EXPECT_TRUE(SignatureIsBool(std::vector<uint8_t>{0x20, 0, 0x02}));                // bool M()
  EXPECT_FALSE(SignatureIsBool(std::vector<uint8_t>{0x20, 0, 0x10, 0x02}));         // ref bool M()
  EXPECT_FALSE(SignatureIsBool(std::vector<uint8_t>{0x07, 1, 0x02}));               // locals
  EXPECT_FALSE(SignatureIsBool(std::vector<uint8_t>{}));
}

// `try { ldarg.0; callvirt; stloc.0; leave.s E } filter { isinst; dup; brtrue.s L; pop; ldc.i4.0; br.s F;
// L: stloc.1; <condition> F: endfilter } { pop; ...; leave.s E } E: ldloc.0; ret`
std::vector<uint8_t> Filter(bool debug, uint32_t* value, uint32_t* after = nullptr) {
  Asm a;
  a.label("try").op(kLdarg0).tok(kCallvirt, 0x0A000005).op(kStloc0).br(kLeaveS, "end");
  a.label("filter").tok(kIsinst, 0x02000003).op(kDup).br(kBrtrueS, "l").op(kPop).op(kLdcI40).br(op::kBrS, "f");
  a.label("l").op(kStloc1).op(kLdloc1).tok(kCallvirt, 0x06000008).op(0x19).label("v").op(kCeq).label("after");
  if (debug) a.op(kStloc2).op(kLdloc2);
  a.op(kLdcI40).op(kCgtUn).label("f").op(kEndfilter);
  a.label("handler").op(kPop).op(0x19).op(kStloc0).br(kLeaveS, "end").label("end").op(kLdloc0).op(op::kRet);
  *value = a.at("v");
  if (after) *after = a.at("after");
  ExceptionClause c{kClauseFilter, a.at("try"), a.at("filter") - a.at("try"), a.at("handler"),
                    a.at("end") - a.at("handler"), a.at("filter")};
  return Fat(a.code(), 3, 0x11000001, false, {FatEh({c})});
}

TEST(IlValueConditions, ExceptionFilterConditionDebugAndRelease) {
  for (bool debug : {true, false}) {
    uint32_t v = 0;
    auto body = Filter(debug, &v);
    EXPECT_EQ(FindValueConditions(Decoded(body)), (std::vector<uint32_t>{v})) << (debug ? "Debug" : "Release");
  }
}

// --- the probe -------------------------------------------------------------

// Runs a value probe (ProbeStyle::MakeValue) on `value`: the counters it adds to, and the stack it leaves.
struct ProbeRun {
  std::map<uint64_t, int64_t> counts;  // slot (call style) or address (inline style) -> increments
  std::vector<int64_t> stack;
};

// `right`: what an operand probe's re-run load (ldarg, ldloc, ldarg.0; ldfld) reads.
ProbeRun Execute(const std::vector<Instruction>& probe, int64_t value, int64_t right = 0) {
  ProbeRun r;
  auto& s = r.stack;
  s.push_back(value);
  auto pop = [&] {
    int64_t v = s.back();
    s.pop_back();
    return v;
  };
  for (const Instruction& i : probe) {
    switch (i.opcode) {
      case 0x25: s.push_back(s.back()); break;
      case 0x16: s.push_back(0); break;
      case 0x17: s.push_back(1); break;
      case op::kLdcI4: case 0x21: s.push_back(i.operand); break;
      case 0xFE03: { int64_t b = pop(), a = pop(); s.push_back(uint64_t(a) > uint64_t(b) ? 1 : 0); break; }
      case 0x5A: { int64_t b = pop(), a = pop(); s.push_back(a * b); break; }
      case 0x58: { int64_t b = pop(), a = pop(); s.push_back(a + b); break; }
      case 0xE0: case 0x6A: break;  // conv.u, conv.i8: 64-bit here
      case 0x61: { int64_t b = pop(), a = pop(); s.push_back(a ^ b); break; }  // xor
      case 0x02: case 0x03: case 0x04: case 0x05: case 0x0E: case 0x06: case 0x07: case 0x08: case 0x09: case 0x11:
        s.push_back(right);  // ldarg, ldloc
        break;
      case 0x7B: case 0x47: pop(); s.push_back(right); break;  // ldfld, ldind.u1
      case op::kCall:
        if (i.operand == kIncrement) {  // the exact style: adds 1 at the address, returns the new count
          uint64_t a = uint64_t(pop());
          s.push_back(r.counts[a] += 1);
          break;
        }
        EXPECT_EQ(i.operand, kHelper);
        r.counts[uint64_t(pop())] += 1;
        break;
      case 0x26: pop(); break;
      case 0x4C: s.push_back(r.counts[uint64_t(pop())]); break;  // ldind.i8
      case 0x55: { int64_t v = pop(); r.counts[uint64_t(pop())] = v; break; }  // stind.i8
      default: ADD_FAILURE() << "unexpected opcode " << i.opcode; return r;
    }
  }
  return r;
}

TEST(IlValueProbes, CountFalseOnZeroAndTrueOnAnyOtherValueAndKeepTheValue) {
  const ProbeStyle call{kHelper, 0}, inline_style{0, 0x7F0000001000ull}, atomic_style{0, 0x7F0000001000ull, kIncrement};
  for (int64_t v : {0, 1, 5, -1}) {
    ProbeRun c = Execute(call.MakeValue(40, 41), v);
    EXPECT_EQ(c.counts, (std::map<uint64_t, int64_t>{{v ? 41u : 40u, 1}})) << v;
    EXPECT_EQ(c.stack, (std::vector<int64_t>{v}));
    ProbeRun n = Execute(inline_style.MakeValue(40, 41), v);
    EXPECT_EQ(n.counts, (std::map<uint64_t, int64_t>{{0x7F0000001000ull + 8 * (v ? 41 : 40), 1}})) << v;
    EXPECT_EQ(n.stack, (std::vector<int64_t>{v}));
    ProbeRun x = Execute(atomic_style.MakeValue(40, 41), v);
    EXPECT_EQ(x.counts, n.counts) << v;
    EXPECT_EQ(x.stack, (std::vector<int64_t>{v}));
  }
}

TEST(IlValueProbes, InsertedRightAfterTheValueWithTheMapAndStackRight) {
  Asm d = DebugAnd();
  auto body = Fat(d.code(), 2, 0x11000001);
  for (const ProbeStyle& style : {ProbeStyle{kHelper, 0}, ProbeStyle{0, 0x7F0000001000ull}}) {
    std::vector<uint8_t> out;
    std::vector<OffsetMapEntry> map;
    std::string error;
    BranchProbe value{d.at("v"), 7, {8}, true};
    ASSERT_TRUE(InsertProbes(body, {{0, 1}}, {value}, style, &out, &error, &map)) << error;
    MethodBody m = Decoded(out);
    // clt leaves 1 value on a max stack of 2; the probe adds 2 (call) or 3 (inline) above it.
    EXPECT_EQ(style.value_max_stack(), style.counters_base ? 3 : 2);
    EXPECT_EQ(m.max_stack(), 2 + style.value_max_stack());
    EXPECT_TRUE(Verify(m, &error, {nullptr, 1})) << error;
    // The probe sits between clt and br.s, which still jumps to the join.
    const auto& ins = m.instructions();
    long clt = -1;
    for (size_t i = 0; i < ins.size(); ++i)
      if (ins[i].opcode == kClt) clt = long(i);
    ASSERT_GE(clt, 0);
    std::vector<Instruction> probe = style.MakeValue(7, 8);
    for (size_t k = 0; k < probe.size(); ++k) {
      EXPECT_EQ(ins[clt + 1 + k].opcode, probe[k].opcode) << k;
      EXPECT_EQ(ins[clt + 1 + k].operand, probe[k].operand) << k;
    }
    EXPECT_EQ(ins[clt + 1 + probe.size()].opcode, op::kBrS);
    // The probe translates back to the br.s it precedes; every original instruction keeps its entry.
    MethodBody orig = Decoded(body);
    ASSERT_EQ(map.size(), orig.instructions().size());
    uint32_t probe_start = ins[clt + 1].offset;
    EXPECT_EQ(TranslateToOriginal(map, probe_start), d.at("v") + 2);
    EXPECT_EQ(TranslateToOriginal(map, ins[clt].offset), d.at("v"));
  }
}

TEST(IlValueProbes, MaxStackGrowsByTheProbesWholeNeedAboveTheValue) {
  // `y + (x && F(x) ? 1 : 0)`-like, max stack 2: `ldarg.1; ldarg.0; brfalse.s f; ldarg.0; call bool F(int)` leaves
  // the value at depth 2 = max stack. The probe needs 2 (call style) or 3 (inline) above it; max stack must grow by
  // that whole need (not by max_stack(), which is 1 for a call probe: the JIT would refuse the body).
  constexpr uint32_t kF = 0x0A000009;
  Asm a;
  a.op(kLdarg1).op(kLdarg0).br(kBrfalseS, "f").op(kLdarg0).label("v").tok(op::kCall, kF).op(0x58).op(op::kRet);
  a.label("f").op(kLdcI40).op(0x58).op(op::kRet);
  auto body = Fat(a.code(), 2);
  VerifyOptions options{[](uint32_t token, int* pops, int* pushes) {
                          *pops = 1;
                          *pushes = token == kF ? 1 : 0;
                          return true;
                        },
                        1};
  std::string error;
  ASSERT_TRUE(Verify(Decoded(body), &error, options)) << error;
  for (const ProbeStyle& style : {ProbeStyle{kHelper, 0}, ProbeStyle{0, 0x7F0000001000ull}}) {
    std::vector<uint8_t> out;
    ASSERT_TRUE(InsertProbes(body, {}, {BranchProbe{a.at("v"), 1, {2}, true}}, style, &out, &error)) << error;
    MethodBody m = Decoded(out);
    EXPECT_EQ(m.max_stack(), 2 + style.value_max_stack());
    EXPECT_TRUE(Verify(m, &error, options)) << error;
  }
}

TEST(IlValueProbes, FilterProbeStaysInTheFilterBlock) {
  for (bool debug : {true, false}) {
    uint32_t v = 0;
    auto body = Filter(debug, &v);
    std::vector<uint8_t> out;
    std::string error;
    ASSERT_TRUE(InsertProbes(body, {}, {BranchProbe{v, 3, {4}, true}}, ProbeStyle{kHelper, 0}, &out, &error))
        << error;
    MethodBody m = Decoded(out);
    EXPECT_TRUE(Verify(m, &error)) << error;
    const ExceptionClause& c = m.clauses()[0];
    for (const auto& i : m.instructions())
      if (i.opcode == op::kCall) {
        EXPECT_GE(i.offset, c.class_token_or_filter_offset);
        EXPECT_LT(i.offset, c.handler_offset);
      }
  }
}

TEST(IlValueProbes, RejectsOffsetsWhereTheProbeWouldRunOnOtherEdges) {
  Asm d = DebugAnd();
  auto body = Fat(d.code(), 2, 0x11000001);
  auto refuse = [&](uint32_t offset, const std::vector<uint32_t>& trues, const char* why) {
    std::vector<uint8_t> out{1, 2, 3};
    std::string error;
    EXPECT_FALSE(InsertProbes(body, {}, {BranchProbe{offset, 1, trues, true}}, ProbeStyle{kHelper, 0}, &out, &error))
        << why;
    EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3}));
    EXPECT_NE(error.find(why), std::string::npos) << error;
  };
  refuse(d.at("c0"), {2}, "jump target");      // ldc.i4.0 then the join stloc.0
  refuse(d.at("v") + 2, {2}, "one value");      // br.s leaves no value
  refuse(d.at("r") + 1, {2}, "one value");      // ret
  refuse(d.at("v") + 1, {2}, "boundary");       // inside clt
  refuse(d.at("v"), {2, 3}, "one true slot");
  // A region boundary right after the value.
  uint32_t v = 0, after = 0;
  auto filter = Filter(false, &v, &after);
  MethodBody m = Decoded(filter);
  std::string error;
  ASSERT_TRUE(m.InsertAfterValue(v, ProbeStyle{kHelper, 0}.MakeValue(1, 2), &error)) << error;
  MethodBody m2 = Decoded(filter);
  long endfilter = -1;
  for (size_t i = 0; i < m2.instructions().size(); ++i)
    if (m2.instructions()[i].opcode == kEndfilter) endfilter = long(i);
  EXPECT_FALSE(m2.InsertAfterValue(m2.instructions()[endfilter - 1].offset, ProbeStyle{kHelper, 0}.MakeValue(1, 2),
                                   &error));  // cgt.un: endfilter is a jump target
  // A probe that does not give the value back.
  MethodBody m3 = Decoded(filter);
  EXPECT_FALSE(m3.InsertAfterValue(v, {MakeInstruction(kPop)}, &error));
  EXPECT_NE(error.find("stack neutral"), std::string::npos) << error;
}

TEST(IlValueProbes, FallbackSkipsARefusedValueProbeAndKeepsTheRest) {
  Asm d = DebugAnd();
  auto body = Fat(d.code(), 2, 0x11000001);
  std::vector<uint8_t> out;
  std::vector<RefusedProbe> refused;
  std::string error;
  ASSERT_TRUE(InsertProbesSkippingRefused(body, {{0, 1}}, {BranchProbe{d.at("c0"), 2, {3}, true},
                                                           BranchProbe{d.at("v"), 4, {5}, true}},
                                          ProbeStyle{kHelper, 0}, &out, &refused, &error))
      << error;
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_TRUE(refused[0].branch);
  EXPECT_EQ(refused[0].index, 0u);
}

TEST(IlValueConditions, CallsReturningBoolReadFromTheirSignatures) {
  // tests/data/portable/Sample.dll (Sample.Calc.cs.txt): `int Add(int, int)`, the iterator and async state
  // machines' `MoveNext`, the MemberRefs `TaskAwaiter.get_IsCompleted` (bool) and `YieldAwaiter.GetResult` (void).
  std::vector<uint8_t> file;
  std::string error;
  ASSERT_TRUE(ReadWholeFile((std::filesystem::path(__FILE__).parent_path() / "data" / "portable" / "Sample.dll").string(),
                            &file, &error))
      << error;
  auto pe = PeImage::Parse(file, &error);
  ASSERT_TRUE(pe) << error;
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  ASSERT_TRUE(md) << error;
  std::map<std::string, std::vector<bool>> by_name;
  for (const auto& m : md->MethodDefs()) by_name[m.name].push_back(ReturnsBool(*md, 0x06000000 | m.rid));
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kMemberRef); ++rid)
    by_name[std::string(md->GetString(md->GetColumn(TableId::kMemberRef, rid, 1)))].push_back(
        ReturnsBool(*md, 0x0A000000 | rid));
  EXPECT_EQ(by_name["Add"], (std::vector<bool>{false}));
  // The iterator's `bool MoveNext()` and the async state machine's `void MoveNext()`.
  const auto& move_next = by_name["MoveNext"];
  EXPECT_NE(std::find(move_next.begin(), move_next.end(), true), move_next.end());
  EXPECT_NE(std::find(move_next.begin(), move_next.end(), false), move_next.end());
  ASSERT_FALSE(by_name["get_IsCompleted"].empty());
  for (bool b : by_name["get_IsCompleted"]) EXPECT_TRUE(b);
  ASSERT_FALSE(by_name["GetResult"].empty());
  for (bool b : by_name["GetResult"]) EXPECT_FALSE(b);
  EXPECT_FALSE(ReturnsBool(*md, 0x2B000001));  // MethodSpec: unknown
  EXPECT_FALSE(ReturnsBool(*md, 0x0A000000 | (md->RowCount(TableId::kMemberRef) + 1)));  // no such row
}


// --- Short-circuit operands Roslyn computes with `or` / `and` (FindShortCircuitOperands, MakeOperand) ---

constexpr uint16_t kOr = 0x60, kAnd = 0x5F, kLdfld = 0x7B;

// Release `return x < 0 || flag;` (static: ldarg.0 x, ldarg.1 flag) and Debug `if (x > 0 && big)`.
Asm ReleaseOr() {
  Asm a;
  a.op(kLdarg0).op(kLdcI40).op(kClt).label("r").op(kLdarg1).label("or").op(kOr).op(op::kRet);
  return a;
}

TEST(IlShortCircuitOperands, BoolArgumentsLocalsAndCapturedFieldsBeforeOrAnd) {
  BoolTypes types;
  types.arguments = {false, true, true};
  types.locals = {true, false};
  types.token_is_bool = [](uint32_t t) { return t == 0x04000001; };
  Asm r = ReleaseOr();
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(r.code(), 2)), types), (std::vector<uint32_t>{r.at("r")}));
  // Without knowing flag is bool: none (an int `x | n` is no condition).
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(r.code(), 2)), BoolTypes{}).empty());
  // Debug `if (x > 0 && big) ...`: cgt; ldarg.1; and; stloc.0; ldloc.0; brfalse.
  Asm d;
  d.op(op::kNop).op(kLdarg0).op(kLdcI40).op(kCgt).label("r").op(kLdarg1).op(kAnd).op(kStloc0).op(kLdloc0);
  d.br(kBrfalseS, "e").op(kLdcI41).op(op::kRet).label("e").op(kLdcI40).op(op::kRet);
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(d.code(), 2, 0x11000001)), types), (std::vector<uint32_t>{d.at("r")}));
  // `a || b || flag` with three bool arguments: `ldarg.0; ldarg.1; or; ldarg.2; or` -- two operands.
  BoolTypes three;
  three.arguments = {true, true, true};
  Asm o;
  o.op(kLdarg0).label("b").op(kLdarg1).op(kOr).label("f").op(0x04).op(kOr).op(op::kRet);
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(o.code(), 2)), three), (std::vector<uint32_t>{o.at("b"), o.at("f")}));
  // A captured local (closure field): `ldarg.0; ldfld flag; or`.
  Asm c;
  c.op(kLdarg0).tok(kLdfld, 0x04000002).op(kLdcI40).op(kClt).label("r").op(kLdarg0).tok(kLdfld, 0x04000001).op(kOr);
  c.op(op::kRet);
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(c.code(), 2)), types), (std::vector<uint32_t>{c.at("r")}));
  // `x < 0 || y < 0 || flag`: the load is the join of the first two (a jump target): still the operand.
  Asm j;
  j.op(kLdarg0).op(kLdcI40).br(kBltS, "t").op(kLdarg0).op(kLdcI40).op(kClt).br(op::kBrS, "r").label("t").op(kLdcI41);
  j.label("r").op(kLdarg1).op(kOr).op(op::kRet);
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(j.code(), 2)), types), (std::vector<uint32_t>{j.at("r")}));
  // An `in bool` / `ref bool` argument: `ldarg.1; ldind.u1; or` -- only when the signature says so.
  Asm byref;
  byref.op(kLdarg0).op(kLdcI40).op(kClt).label("r").op(kLdarg1).op(0x47).op(kOr).op(op::kRet);
  BoolTypes refs;
  refs.byref_arguments = {false, true};
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(byref.code(), 2)), refs), (std::vector<uint32_t>{byref.at("r")}));
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(byref.code(), 2)), types).empty());
  // A `ref bool` local: `ldloc.1; ldind.u1; or` -- only when the local signature says so (not for a `ref int`, nor
  // for a bool local, nor for a `ref bool` argument of the same index).
  Asm local;
  local.op(kLdarg0).op(kLdcI40).op(kClt).label("r").op(kLdloc1).op(0x47).op(kOr).op(op::kRet);
  BoolTypes ref_local;
  ref_local.byref_locals = {false, true};
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(local.code(), 2)), ref_local),
            (std::vector<uint32_t>{local.at("r")}));
  BoolTypes not_ref_local;
  not_ref_local.locals = {false, true};
  not_ref_local.byref_arguments = {false, true};
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(local.code(), 2)), not_ref_local).empty());
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(local.code(), 2)), types).empty());
  std::vector<Instruction> load;
  bool is_or = false;
  std::string why;
  ASSERT_TRUE(ShortCircuitOperandAt(Decoded(Fat(local.code(), 2)), local.at("r"), &load, &is_or, &why)) << why;
  EXPECT_EQ(load.size(), 2u);
  EXPECT_TRUE(is_or);
  // Not: an int argument; the `or` a jump target; the load first in the method; a comparison before `or`.
  Asm n1;
  n1.op(kLdarg1).op(kLdarg0).op(kOr).op(op::kRet);  // ldarg.0 is int here
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(n1.code(), 2)), types).empty());
  Asm n2;
  n2.op(kLdarg1).br(kBrtrueS, "or").op(kLdarg1).op(0x04).label("or").op(kOr).op(op::kRet);
  EXPECT_EQ(FindShortCircuitOperands(Decoded(Fat(n2.code(), 3)), types).size(), 0u);
  Asm n3;
  n3.op(kLdarg1).op(0x04).op(kCeq).op(kOr).op(op::kRet);
  EXPECT_TRUE(FindShortCircuitOperands(Decoded(Fat(n3.code(), 3)), types).empty());
}

TEST(IlShortCircuitOperands, ProbeCountsTheRightOperandOnlyWhenTheSourceEvaluatesIt) {
  const ProbeStyle call{kHelper, 0}, inline_style{0, 0x7F0000001000ull}, atomic_style{0, 0x7F0000001000ull, kIncrement};
  const std::vector<Instruction> load = {MakeInstruction(kLdarg1)};
  const std::vector<Instruction> field = {MakeInstruction(kLdarg0), MakeInstruction(kLdfld, 0x04000001)};
  const std::vector<Instruction> by_ref = {MakeInstruction(kLdarg1), MakeInstruction(0x47)};
  for (bool is_or : {true, false}) {
    for (int64_t left : {0, 1, 7}) {
      for (int64_t right : {0, 1}) {
        // `||`: a true left decides; `&&`: a false left decides.
        const bool decided = is_or ? left != 0 : left == 0;
        const uint32_t want = decided ? 10u : right ? 30u : 20u;
        for (const auto& l : {load, field, by_ref}) {
          ProbeRun c = Execute(call.MakeOperand(10, 20, 30, l, is_or), left, right);
          EXPECT_EQ(c.counts, (std::map<uint64_t, int64_t>{{want, 1}})) << is_or << left << right;
          EXPECT_EQ(c.stack, (std::vector<int64_t>{left}));
          ProbeRun n = Execute(inline_style.MakeOperand(10, 20, 30, l, is_or), left, right);
          EXPECT_EQ(n.counts, (std::map<uint64_t, int64_t>{{0x7F0000001000ull + 8 * want, 1}}));
          EXPECT_EQ(n.stack, (std::vector<int64_t>{left}));
          ProbeRun x = Execute(atomic_style.MakeOperand(10, 20, 30, l, is_or), left, right);
          EXPECT_EQ(x.counts, n.counts);
          EXPECT_EQ(x.stack, (std::vector<int64_t>{left}));
          for (const Instruction& i : atomic_style.MakeOperand(10, 20, 30, l, is_or))
            EXPECT_TRUE(i.opcode != 0x4C && i.opcode != 0x55) << "no plain read-add-write in the exact style";
        }
        // Slots in any order (a slot below the skipped one).
        ProbeRun c = Execute(call.MakeOperand(30, 10, 20, load, is_or), left, right);
        EXPECT_EQ(c.counts, (std::map<uint64_t, int64_t>{{decided ? 30u : right ? 20u : 10u, 1}}));
      }
    }
  }
}

TEST(IlShortCircuitOperands, ProbeBeforeTheLoadOnEveryPathWithMapStackAndVerify) {
  // `x < 0 || y < 0 || flag`: the probe runs before the load, which the first operand's `blt` jumps to.
  Asm j;
  j.op(kLdarg0).op(kLdcI40).br(kBltS, "t").op(kLdarg0).op(kLdcI40).op(kClt).br(op::kBrS, "r").label("t").op(kLdcI41);
  j.label("r").op(kLdarg1).op(kOr).op(op::kRet);
  auto body = Fat(j.code(), 2);
  for (const ProbeStyle& style : {ProbeStyle{kHelper, 0}, ProbeStyle{0, 0x7F0000001000ull}}) {
    std::vector<uint8_t> out;
    std::vector<OffsetMapEntry> map;
    std::string error;
    ASSERT_TRUE(InsertProbes(body, {{0, 1}}, {BranchProbe{j.at("r"), 7, {8, 9}, false, true}}, style, &out, &error,
                             &map))
        << error;
    MethodBody m = Decoded(out);
    EXPECT_EQ(m.max_stack(), 2 + style.operand_max_stack());
    EXPECT_TRUE(Verify(m, &error, {[](uint32_t, int* pops, int* pushes) { return *pops = 1, *pushes = 0, true; }, 1}))
        << error;
    // Both the jump and the fall-through reach the probe: the br.s and the ldc.i4.1 lead to its first instruction.
    const auto& ins = m.instructions();
    std::vector<Instruction> load = {MakeInstruction(kLdarg1)};
    std::vector<Instruction> probe = style.MakeOperand(7, 8, 9, load, true);
    long start = -1;
    for (size_t i = 0; i + 1 < ins.size(); ++i)
      if (ins[i].opcode == kLdcI41 && ins[i + 1].opcode == kDup) start = long(i + 1);
    ASSERT_GE(start, 0);
    for (size_t k = 0; k < probe.size(); ++k) EXPECT_EQ(ins[start + k].opcode, probe[k].opcode) << k;
    EXPECT_EQ(ins[start + probe.size()].opcode, kLdarg1);
    for (const auto& i : ins) {
      if (i.opcode == op::kBrS || i.opcode == 0x38) {
        EXPECT_EQ(uint32_t(i.operand), ins[start].offset);
      }
    }
    EXPECT_EQ(TranslateToOriginal(map, ins[start].offset), j.at("r"));
  }
  // Refused: not an operand load, and the wrong slot count.
  std::vector<uint8_t> out{1};
  std::string error;
  EXPECT_FALSE(InsertProbes(body, {}, {BranchProbe{0, 7, {8, 9}, false, true}}, ProbeStyle{kHelper, 0}, &out, &error));
  EXPECT_NE(error.find("right operand"), std::string::npos) << error;
  EXPECT_FALSE(InsertProbes(body, {}, {BranchProbe{j.at("r"), 7, {8}, false, true}}, ProbeStyle{kHelper, 0}, &out,
                            &error));
  EXPECT_EQ(out, (std::vector<uint8_t>{1}));
}

TEST(IlShortCircuitOperands, RewriteCheckCoversOperandProbesWithTypes) {
  Asm r = ReleaseOr();
  auto body = Fat(r.code(), 2);
  BoolTypes types;
  types.arguments = {false, true};
  std::string reason;
  uint64_t checked = 0;
  il::CallResolver none;
  for (const ProbeStyle& style : {ProbeStyle{kHelper, 0}, ProbeStyle{0, 0x7F0000001000ull}}) {
    il::CallResolver helper = [](uint32_t t, int* pops, int* pushes) { return t == kHelper && (*pops = 1, *pushes = 0, true); };
    checked = 0;
    EXPECT_TRUE(CheckMethodBody(body, style, helper, 1, &reason, &checked, types)) << reason;
    EXPECT_EQ(checked, 1u);
  }
}

}  // namespace
}  // namespace dotcov::il
