#include "dotcov/rewrite_check.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "dotcov/il_method.h"
#include "dotcov/metadata.h"
#include "dotcov/module_info.h"
#include "dotcov/pe_image.h"

using namespace dotcov;
using namespace dotcov::il;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kHelper = 0x0A00FFFF;
constexpr uint32_t kVoid0 = 0x0A000001;  // static void M()
constexpr uint32_t kInt0 = 0x0A000002;   // static int M()
constexpr uint32_t kVoid1 = 0x0A000003;  // static void M(object)

CallResolver Resolver() {
  return [](uint32_t token, int* pops, int* pushes) {
    switch (token) {
      case kHelper: *pops = 1; *pushes = 0; return true;
      case CheckAtomicToken(kHelper): *pops = 1; *pushes = 1; return true;  // Interlocked.Increment
      case kVoid0: *pops = 0; *pushes = 0; return true;
      case kInt0: *pops = 0; *pushes = 1; return true;
      case kVoid1: *pops = 1; *pushes = 0; return true;
      default: return false;
    }
  };
}

struct Code {
  std::vector<uint8_t> b;
  Code& u8(uint8_t v) { b.push_back(v); return *this; }
  Code& u16(uint16_t v) { return u8(v & 0xFF).u8(v >> 8); }
  Code& u32(uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
  Code& op(uint16_t opcode) {
    if ((opcode >> 8) == 0xFE) u8(0xFE);
    return u8(static_cast<uint8_t>(opcode));
  }
  Code& tok(uint16_t opcode, uint32_t t) { return op(opcode).u32(t); }
  Code& nops(int n) {
    for (int i = 0; i < n; ++i) op(op::kNop);
    return *this;
  }
};

std::vector<uint8_t> Tiny(const Code& c) {
  std::vector<uint8_t> out{static_cast<uint8_t>(0x2 | (c.b.size() << 2))};
  out.insert(out.end(), c.b.begin(), c.b.end());
  return out;
}

// Fat header with one small EH section of `clauses` (each 6 values: flags, try
// offset/length, handler offset/length, class token or filter offset).
std::vector<uint8_t> FatWithSmallEh(const Code& c, uint16_t max_stack, const std::vector<std::array<uint32_t, 6>>& clauses,
                                    uint8_t extra_size = 0) {
  Code h;
  h.u16(0x3 | 0x8 | 0x3000).u16(max_stack).u32(static_cast<uint32_t>(c.b.size())).u32(0);
  h.b.insert(h.b.end(), c.b.begin(), c.b.end());
  while (h.b.size() % 4) h.u8(0);
  h.u8(0x01).u8(static_cast<uint8_t>(4 + 12 * clauses.size() + extra_size)).u16(0);
  for (const auto& k : clauses)
    h.u16(static_cast<uint16_t>(k[0])).u16(static_cast<uint16_t>(k[1])).u8(static_cast<uint8_t>(k[2]))
        .u16(static_cast<uint16_t>(k[3])).u8(static_cast<uint8_t>(k[4])).u32(k[5]);
  for (int i = 0; i < extra_size; ++i) h.u8(0);
  return h.b;
}

// Checks in every probe style: the inline increment (the agent's default) and
// the helper call; the first failure's reason names its style.
bool Check(const std::vector<uint8_t>& body, int return_values, std::string* reason) {
  for (ProbeStyles style : {kInlineProbes, kCallProbes, kAtomicProbes})
    if (!CheckMethodBody(body, CheckStyle(style, kHelper), Resolver(), return_values, reason)) return false;
  return true;
}

TEST(RewriteCheck, StraightLineTinyBody) {
  Code c;
  c.op(op::kNop).op(0x16 /*ldc.i4.0*/).op(0x26 /*pop*/).tok(op::kCall, kVoid0).op(op::kRet);
  std::string reason;
  EXPECT_TRUE(Check(Tiny(c), 0, &reason)) << reason;
}

TEST(RewriteCheck, ShortBranchesThatMustWidenAndTryFinally) {
  // 0: br.s L (to the end of a run of nops long enough that probes overflow
  // the short form); try { nop... leave.s END } finally { endfinally } END: ret
  Code c;
  c.op(op::kBrS).u8(40);  // 0..2 -> 42
  c.nops(40);             // 2..42
  // try 42..: nop, leave.s end
  uint32_t try_start = static_cast<uint32_t>(c.b.size());
  c.op(op::kNop).op(op::kLeaveS).u8(1);  // to the ret after endfinally
  uint32_t try_end = static_cast<uint32_t>(c.b.size());
  c.op(op::kEndfinally);
  uint32_t handler_end = static_cast<uint32_t>(c.b.size());
  c.op(op::kRet);
  std::string reason;
  auto body = FatWithSmallEh(c, 1, {{{kClauseFinally, try_start, try_end - try_start, try_end, handler_end - try_end, 0}}});
  EXPECT_TRUE(Check(body, 0, &reason)) << reason;
}

TEST(RewriteCheck, FilterAndSwitch) {
  Code c;
  // 0: ldc.i4.0; switch (2) -> A, B; A: nop; B: try { leave.s END } filter { pop ldc.i4.1 endfilter } handler { pop leave.s END } END: ret
  c.op(0x16).op(op::kSwitch).u32(2).u32(0).u32(1);  // end at 14; targets 14 (A), 15 (B)
  c.op(op::kNop);                                  // 14 A
  c.op(op::kLeaveS).u8(6);                         // 15 B try: 15..17 -> 23
  c.op(0x26).op(0x17).op(op::kEndfilter);          // 17 filter 17..21
  c.op(0x26).op(op::kLeaveS).u8(0);                // 21 handler 21..24 -> 24? fix below
  c.op(op::kRet);
  // Recompute: handler = 21: pop(1) leave.s(2) -> end 24; ret at 24. try leave.s at 15 ends at 17 -> target 24: disp 7.
  c.b[16] = 7;
  std::string reason;
  auto body = FatWithSmallEh(c, 1, {{{kClauseFilter, 15, 2, 21, 3, 17}}});
  EXPECT_TRUE(Check(body, 0, &reason)) << reason;
}

TEST(RewriteCheck, NoProbeAtTheRetOfATailCall) {
  Code c;
  c.op(op::kTail).tok(op::kCall, kInt0).op(op::kRet);
  std::string reason;
  EXPECT_TRUE(Check(Tiny(c), 1, &reason)) << reason;
}

TEST(RewriteCheck, ReportsANonCanonicalEhSection) {
  Code c;
  c.op(op::kNop).op(op::kLeaveS).u8(1).op(op::kEndfinally).op(op::kRet);
  auto body = FatWithSmallEh(c, 1, {{{kClauseFinally, 0, 3, 3, 1, 0}}}, /*extra_size=*/4);
  std::string reason;
  EXPECT_FALSE(Check(body, 0, &reason));
  EXPECT_NE(reason.find("differs from the original"), std::string::npos) << reason;
}

TEST(RewriteCheck, ReportsABodyThatDoesNotVerify) {
  Code c;
  c.op(0x26).op(op::kRet);  // pop on an empty stack
  std::string reason;
  EXPECT_FALSE(Check(Tiny(c), 0, &reason));
  EXPECT_NE(reason.find("original body fails verification"), std::string::npos) << reason;
  EXPECT_FALSE(Check({0x07}, 0, &reason));  // invalid header format
  EXPECT_NE(reason.find("does not decode"), std::string::npos) << reason;
}

TEST(RewriteCheck, ReturnValuesAreChecked) {
  Code c;
  c.op(0x16).op(op::kRet);
  std::string reason;
  EXPECT_TRUE(Check(Tiny(c), 1, &reason)) << reason;
  EXPECT_FALSE(Check(Tiny(c), 0, &reason));
}

TEST(RewriteCheck, MethodSignatureStackEffects) {
  int pops = -1, pushes = -1;
  const std::vector<uint8_t> static_void_int{0x00, 0x01, 0x01, 0x08};
  ASSERT_TRUE(MethodSigStackEffect(static_void_int, &pops, &pushes));
  EXPECT_EQ(pops, 1);
  EXPECT_EQ(pushes, 0);
  const std::vector<uint8_t> instance_int{0x20, 0x00, 0x08};
  ASSERT_TRUE(MethodSigStackEffect(instance_int, &pops, &pushes));
  EXPECT_EQ(pops, 1);
  EXPECT_EQ(pushes, 1);
  const std::vector<uint8_t> explicit_this{0x60, 0x01, 0x01, 0x1C};
  ASSERT_TRUE(MethodSigStackEffect(explicit_this, &pops, &pushes));
  EXPECT_EQ(pops, 1);
  EXPECT_EQ(pushes, 0);
  // generic <T>(T, T) with a modreq on a void return: still void.
  const std::vector<uint8_t> generic_modreq_void{0x30, 0x01, 0x02, 0x1F, 0x42, 0x01, 0x1E, 0x00, 0x1E, 0x00};
  ASSERT_TRUE(MethodSigStackEffect(generic_modreq_void, &pops, &pushes));
  EXPECT_EQ(pops, 3);
  EXPECT_EQ(pushes, 0);
  const std::vector<uint8_t> field{0x06, 0x08};
  EXPECT_FALSE(MethodSigStackEffect(field, &pops, &pushes));
  EXPECT_FALSE(MethodSigStackEffect({}, &pops, &pushes));
  const std::vector<uint8_t> truncated{0x20, 0x02};
  EXPECT_FALSE(MethodSigStackEffect(truncated, &pops, &pushes));
}

TEST(RewriteCheck, FailuresNameTheirProbeStyle) {
  Code c;
  c.op(0x16).op(op::kRet);
  std::string reason;
  // max stack 0xFFFF: no room for either style's probe.
  Code h;
  h.u16(0x3 | 0x3000).u16(0xFFFF).u32(static_cast<uint32_t>(c.b.size())).u32(0);
  h.b.insert(h.b.end(), c.b.begin(), c.b.end());
  EXPECT_FALSE(CheckMethodBody(h.b, CheckStyle(kInlineProbes, kHelper), Resolver(), 1, &reason));
  EXPECT_NE(reason.find("(inline probes)"), std::string::npos) << reason;
  EXPECT_FALSE(CheckMethodBody(h.b, CheckStyle(kCallProbes, kHelper), Resolver(), 1, &reason));
  EXPECT_NE(reason.find("(call probes)"), std::string::npos) << reason;
  EXPECT_FALSE(CheckMethodBody(h.b, CheckStyle(kAtomicProbes, kHelper), Resolver(), 1, &reason));
  EXPECT_NE(reason.find("(atomic probes)"), std::string::npos) << reason;
}

TEST(RewriteCheck, InlineProbesAreTheIncrementAtTheCountersAddress) {
  // A body whose every instruction takes a probe, a branch and a switch: the
  // inline check recognises exactly ProbeStyle::Make's sequence (a call-style
  // probe where an inline one is expected is a failure, and vice versa).
  Code c;
  c.op(0x16).op(0x2D /*brtrue.s*/).u8(0).op(0x16).op(op::kSwitch).u32(1).u32(0).op(op::kRet);
  std::string reason;
  uint64_t branches = 0;
  EXPECT_TRUE(CheckMethodBody(Tiny(c), CheckStyle(kInlineProbes, kHelper), Resolver(), 0, &reason, &branches))
      << reason;
  EXPECT_EQ(branches, 2u);
  EXPECT_TRUE(CheckMethodBody(Tiny(c), CheckStyle(kCallProbes, kHelper), Resolver(), 0, &reason)) << reason;
  EXPECT_TRUE(CheckMethodBody(Tiny(c), CheckStyle(kAtomicProbes, kHelper), Resolver(), 0, &reason)) << reason;
}

TEST(RewriteCheck, ValueConditionsTakeTheirValueProbes) {
  // `return 0 != 0 && 0 < 1;` as Release emits it: brfalse.s F; <0 < 1: clt>; br.s J; F: ldc.i4.0; J: ret. The
  // clt is a value condition (il::FindValueConditions): its value probe follows it, after the sequence-point probe
  // of the `br.s`, in both styles.
  Code c;
  c.op(0x16).op(0x2C /*brfalse.s*/).u8(6).op(0x16).op(0x17).op(0xFE04 /*clt*/).op(0x2B /*br.s*/).u8(1);
  c.op(0x16).op(op::kRet);
  for (auto style : {kInlineProbes, kCallProbes, kAtomicProbes}) {
    std::string reason;
    uint64_t checked = 0;
    EXPECT_TRUE(CheckMethodBody(Tiny(c), CheckStyle(style, kHelper), Resolver(), 1, &reason, &checked)) << reason;
    EXPECT_EQ(checked, 2u) << "the branch and the value condition";
  }
}

TEST(RewriteCheck, CheckingBothStylesCountsBranchesOnce) {
  fs::path dll = fs::path(__FILE__).parent_path() / "data" / "portable" / "Sample.dll";
  RewriteCheckResult inline_only = RewriteCheckFile(dll.string(), kInlineProbes);
  RewriteCheckResult call_only = RewriteCheckFile(dll.string(), kCallProbes);
  RewriteCheckResult atomic_only = RewriteCheckFile(dll.string(), kAtomicProbes);
  RewriteCheckResult both = RewriteCheckFile(dll.string());
  ASSERT_EQ(both.status, RewriteCheckStatus::kChecked) << both.error;
  EXPECT_GT(both.branches_checked, 0u);
  EXPECT_EQ(inline_only.branches_checked, both.branches_checked);
  EXPECT_EQ(call_only.branches_checked, both.branches_checked);
  EXPECT_EQ(atomic_only.branches_checked, both.branches_checked);
  EXPECT_TRUE(atomic_only.failures.empty());
  EXPECT_EQ(inline_only.methods_checked, both.methods_checked);
  EXPECT_TRUE(both.failures.empty());
}

TEST(RewriteCheck, NonPeAndBrokenImagesAreClassified) {
  std::vector<uint8_t> text{'h', 'e', 'l', 'l', 'o'};
  EXPECT_EQ(RewriteCheck(text, "x").status, RewriteCheckStatus::kNotManaged);
  std::vector<uint8_t> mz(128, 0);
  mz[0] = 'M';
  mz[1] = 'Z';
  EXPECT_EQ(RewriteCheck(mz, "x").status, RewriteCheckStatus::kError);
  EXPECT_EQ(RewriteCheckFile("/nonexistent/dotcov.dll").status, RewriteCheckStatus::kError);
}

std::optional<fs::path> SharedFramework() {
  std::error_code ec;
  fs::path root = "/usr/share/dotnet/shared/Microsoft.NETCore.App";
  std::optional<fs::path> best;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (fs::exists(e.path() / "System.Private.CoreLib.dll", ec) && (!best || e.path().filename() > best->filename()))
      best = e.path();
  }
  return best;
}

TEST(RewriteCheck, SampleAssemblyHasNoFailures) {
  fs::path data = fs::path(__FILE__).parent_path() / "data";
  int seen = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(data, ec)) {
    if (e.path().extension() != ".dll") continue;
    RewriteCheckResult r = RewriteCheckFile(e.path().string());
    ASSERT_EQ(r.status, RewriteCheckStatus::kChecked) << r.error;
    EXPECT_GT(r.methods_checked, 0u);
    for (const auto& f : r.failures) ADD_FAILURE() << f.assembly << " " << std::hex << f.method_token << ": " << f.reason;
    ++seen;
  }
  if (seen == 0) GTEST_SKIP() << "no sample assemblies";
}

TEST(RewriteCheck, CorruptedImagesNeverCrash) {
  fs::path data = fs::path(__FILE__).parent_path() / "data";
  std::vector<uint8_t> bytes;
  std::string error;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(data, ec)) {
    if (e.path().extension() == ".dll" && ReadWholeFile(e.path().string(), &bytes, &error)) break;
  }
  if (bytes.empty()) GTEST_SKIP() << "no sample assembly";
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> copy = bytes;
    if (round % 3 == 0) copy.resize(rng() % copy.size());
    int flips = 1 + static_cast<int>(rng() % 16);
    for (int i = 0; i < flips && !copy.empty(); ++i) copy[rng() % copy.size()] = static_cast<uint8_t>(rng());
    RewriteCheckResult r = RewriteCheck(copy, "corrupt");
    (void)r;  // any status is fine; it must simply return
  }
}

TEST(RewriteCheck, SystemPrivateCoreLibHasNoFailures) {
  auto dir = SharedFramework();
  if (!dir) GTEST_SKIP() << "no shared framework installed";
  auto start = std::chrono::steady_clock::now();
  RewriteCheckResult r = RewriteCheckFile((*dir / "System.Private.CoreLib.dll").string());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, RewriteCheckStatus::kChecked) << r.error;
  EXPECT_GT(r.methods_checked, 10000u);
  size_t shown = 0;
  for (const auto& f : r.failures)
    if (shown++ < 20) ADD_FAILURE() << std::hex << "0x" << f.method_token << ": " << f.reason;
  EXPECT_EQ(r.failures.size(), 0u);
  std::printf("CoreLib: %llu methods in %.2f s\n", static_cast<unsigned long long>(r.methods_checked), seconds);
}

// Verify only checks stack depths where every call's effect is known: make
// sure the metadata resolver knows every call-family operand of CoreLib.
TEST(RewriteCheck, MetadataResolverKnowsEveryCallInCoreLib) {
  auto dir = SharedFramework();
  if (!dir) GTEST_SKIP() << "no shared framework installed";
  std::vector<uint8_t> file;
  std::string error;
  ASSERT_TRUE(ReadWholeFile((*dir / "System.Private.CoreLib.dll").string(), &file, &error)) << error;
  auto pe = PeImage::Parse(file, &error);
  ASSERT_TRUE(pe) << error;
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  ASSERT_TRUE(md) << error;
  CallResolver resolve = MetadataCallResolver(*md, 0x0A00FFFF);
  uint64_t calls = 0, unresolved = 0;
  for (uint32_t rid = 1; rid <= md->RowCount(TableId::kMethodDef); ++rid) {
    uint32_t rva = md->GetColumn(TableId::kMethodDef, rid, 0);
    if (rva == 0) continue;
    MethodBody body;
    if (!MethodBody::Decode(pe->MethodBodyAt(rva), &body, &error)) continue;
    for (const Instruction& ins : body.instructions()) {
      if (!IsCallFamily(ins.opcode)) continue;
      ++calls;
      int pops = -1, pushes = -1;
      if (!resolve(static_cast<uint32_t>(ins.operand), &pops, &pushes)) {
        if (unresolved++ < 5) ADD_FAILURE() << std::hex << "unresolved call token 0x" << ins.operand;
      }
    }
  }
  EXPECT_GT(calls, 100000u);
  EXPECT_EQ(unresolved, 0u);
}

}  // namespace
