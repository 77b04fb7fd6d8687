// Fuzz target: IL method bodies. Decodes the input as a method body (header,
// code, exception sections), then checks:
//  - the unchanged body re-encodes, decodes back to the same model, and
//    re-encoding that is a fixed point;
//  - in each probe style (the inline increment, the agent's default, and the
//    helper call): il::InsertProbes at every decoded instruction offset either
//    fails cleanly or yields a body that decodes, with an IL offset map of one
//    entry per original instruction, strictly increasing;
//  - with probes at every legal offset (not after a prefix, not the ret of a
//    tail call): when the original passes il::Verify, the rewrite succeeds
//    (unless max stack would overflow) and the result passes il::Verify too;
//  - the rewriter self-check (CheckMethodBody, which also checks branch-outcome
//    probes, value probes and short-circuit operand probes -- every local and
//    argument taken as bool, so each load before `or`/`and` or ending a short
//    circuit gets one -- and the IL offset map) only fails on its documented
//    preconditions, in each style;
//  - the report's branch recognisers (branch_facts.h), as an ordinary method and as a state machine's MoveNext
//    with made-up hidden and visible points, give one answer per conditional branch or switch, in IL order.
#include <string>
#include <utility>
#include <vector>

#include "dotcov/branch_facts.h"
#include "dotcov/il_method.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/rewrite_check.h"
#include "fuzz_common.h"

using namespace dotcov;
using namespace dotcov::il;
using dotcov::fuzz::Sink;

namespace {

constexpr uint32_t kHelper = 0x0A00FFFFu;  // MemberRef: static void (int32)

// Deterministic call effects: the helper, plus MethodDef/MemberRef tokens with
// a rid >= 0x8000, whose effects are taken from the token bits. Anything else
// (the small rids of the seeds taken from real assemblies) is unknown, which
// Verify treats as "depth unknown on this path".
bool Resolve(uint32_t token, int* pops, int* pushes) {
  if (token == kHelper || token == CheckAtomicToken(kHelper)) {
    *pops = 1;
    *pushes = token == kHelper ? 0 : 1;  // Hit(int32) / Interlocked.Increment(ref long)
    return true;
  }
  uint8_t table = static_cast<uint8_t>(token >> 24);
  if ((table != 0x06 && table != 0x0A) || (token & 0x00FFFFFF) < 0x8000) return false;
  *pops = static_cast<int>(token & 3);
  *pushes = static_cast<int>((token >> 2) & 1);
  return true;
}

bool SameModel(const MethodBody& a, const MethodBody& b) {
  return a.instructions() == b.instructions() && a.clauses() == b.clauses() && a.code_size() == b.code_size() &&
         a.max_stack() == b.max_stack() && a.local_var_sig_token() == b.local_var_sig_token() &&
         a.init_locals() == b.init_locals();
}

bool ProbeAllowed(const std::vector<Instruction>& ins, size_t i) {
  if (i > 0 && IsPrefix(ins[i - 1].opcode)) return false;
  if (ins[i].opcode == op::kRet && i > 0 && IsCallFamily(ins[i - 1].opcode)) {
    for (size_t j = i - 1; j-- > 0 && IsPrefix(ins[j].opcode);)
      if (ins[j].opcode == op::kTail) return false;
  }
  return true;
}

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// The map a successful rewrite returns: one entry per original instruction, in
// order, both offsets strictly increasing, inside the new code.
void CheckMap(const std::vector<OffsetMapEntry>& map, const std::vector<Instruction>& ins, const MethodBody& nb) {
  FUZZ_CHECK(map.size() == ins.size());
  for (size_t i = 0; i < map.size(); ++i) {
    FUZZ_CHECK(map[i].old_offset == ins[i].offset);
    FUZZ_CHECK(map[i].new_offset < nb.code_size());
    if (i > 0) FUZZ_CHECK(map[i].new_offset > map[i - 1].new_offset);
    FUZZ_CHECK(TranslateToOriginal(map, map[i].new_offset) == ins[i].offset);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes input(data, size);
  MethodBody body;
  std::string error;
  if (!MethodBody::Decode(input, &body, &error)) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  const std::vector<Instruction>& ins = body.instructions();
  uint64_t covered = 0;
  for (const Instruction& i : ins) {
    FUZZ_CHECK(i.Size() > 0);
    FUZZ_CHECK(i.offset == covered);
    covered += i.Size();
    FUZZ_CHECK(body.FindInstruction(i.offset) >= 0);
  }
  FUZZ_CHECK(covered == body.code_size());

  // Unchanged round trip.
  std::vector<uint8_t> same;
  FUZZ_CHECK(body.Encode(&same, &error));
  MethodBody back;
  FUZZ_CHECK(MethodBody::Decode(Bytes(same), &back, &error));
  FUZZ_CHECK(SameModel(body, back));
  std::vector<uint8_t> same2;
  FUZZ_CHECK(back.Encode(&same2, &error));
  FUZZ_CHECK(same2 == same);

  VerifyOptions options;
  options.call_resolver = Resolve;
  const bool valid = Verify(body, &error, options);
  Sink(valid);
  if (std::getenv("DOTCOV_FUZZ_VERBOSE"))
    std::fprintf(stderr, "il_method: %zu instructions, %zu clauses, verifies: %s\n", ins.size(),
                 body.clauses().size(), valid ? "yes" : error.c_str());
  VerifyOptions bare;
  Sink(Verify(body, &error, bare));

  // The branch recognisers, never reading outside the instructions, clauses or points they are given.
  MethodContext plain;
  MethodContext move_next{true, std::vector<int64_t>{}, {}};
  for (size_t k = 0; k < ins.size(); ++k)
    (k % 3 == 1 ? *move_next.hidden_offsets : move_next.visible_offsets).push_back(ins[k].offset);
  std::vector<BranchFacts> facts = AnalyseBranches(body, plain);
  std::vector<BranchFacts> state_facts = AnalyseBranches(body, move_next);
  FUZZ_CHECK(facts.size() == state_facts.size());
  for (size_t k = 0; k < facts.size(); ++k) {
    FUZZ_CHECK(facts[k].offset == state_facts[k].offset && facts[k].opcode == state_facts[k].opcode);
    FUZZ_CHECK(k == 0 || facts[k - 1].offset < facts[k].offset);
    FUZZ_CHECK(body.FindInstruction(facts[k].offset) >= 0);
    Sink(static_cast<int>(state_facts[k].recogniser) + facts[k].has_short_circuit + facts[k].tests_zero_comparison);
  }

  // A probe before every decoded instruction, then at every legal offset, in
  // each style.
  std::vector<std::pair<uint32_t, uint32_t>> every, legal;
  for (size_t i = 0; i < ins.size(); ++i) {
    every.emplace_back(ins[i].offset, static_cast<uint32_t>(i));
    if (ProbeAllowed(ins, i)) legal.emplace_back(ins[i].offset, static_cast<uint32_t>(i));
  }
  for (ProbeStyles which : {kInlineProbes, kCallProbes, kAtomicProbes}) {
    const ProbeStyle style = CheckStyle(which, kHelper);
    const size_t probe_size = style.Make(0).size();
    std::vector<uint8_t> out;
    std::vector<OffsetMapEntry> map;
    if (InsertProbes(input, every, {}, style, &out, &error, &map)) {
      MethodBody nb;
      FUZZ_CHECK(MethodBody::Decode(Bytes(out), &nb, &error));
      FUZZ_CHECK(nb.instructions().size() == ins.size() + probe_size * every.size());
      CheckMap(map, ins, nb);
      if (valid) FUZZ_CHECK(Verify(nb, &error, options));
    }

    out.clear();
    map.clear();
    bool inserted = InsertProbes(input, legal, {}, style, &out, &error, &map);
    if (!inserted) {
      FUZZ_CHECK(!error.empty());
      if (valid && !Contains(error, "max stack overflows")) {
        std::fprintf(stderr, "rewrite of a verified body failed: %s\n", error.c_str());
        FUZZ_CHECK(!"rewrite of a verified body failed");
      }
    } else {
      MethodBody nb;
      FUZZ_CHECK(MethodBody::Decode(Bytes(out), &nb, &error));
      FUZZ_CHECK(nb.instructions().size() == ins.size() + probe_size * legal.size());
      CheckMap(map, ins, nb);
      if (valid && !Verify(nb, &error, options)) {
        std::fprintf(stderr, "rewritten body fails verification: %s\n", error.c_str());
        FUZZ_CHECK(!"rewritten body fails verification");
      }
    }
  }

  // Probes one at a time through the MethodBody API (bounded).
  for (size_t i = 0; i < ins.size() && i < 32; ++i) {
    MethodBody copy = body;
    bool ok = copy.InsertBefore(ins[i].offset, MakeCounterProbe(7, kHelper), &error, -1);
    FUZZ_CHECK(ok == ProbeAllowed(ins, i));
    if (!ok) continue;
    std::vector<uint8_t> one;
    if (copy.Encode(&one, &error)) {
      MethodBody nb;
      FUZZ_CHECK(MethodBody::Decode(Bytes(one), &nb, &error));
      if (valid) FUZZ_CHECK(Verify(copy, &error, options));
    } else if (valid && !Contains(error, "max stack overflows")) {
      std::fprintf(stderr, "encoding with one probe failed: %s\n", error.c_str());
      FUZZ_CHECK(!"encoding with one probe failed");
    }
  }

  // The rewriter self-check (rewrite_check.h) on the same bytes, each style, with every value and operand probe
  // the finders place when all locals and arguments are bool.
  BoolTypes all_bool;
  all_bool.locals.assign(256, true);
  all_bool.arguments.assign(256, true);
  for (ProbeStyles which : {kInlineProbes, kCallProbes, kAtomicProbes}) {
    std::string reason;
    if (!CheckMethodBody(input, CheckStyle(which, kHelper), Resolve, -1, &reason, nullptr, all_bool)) {
      bool expected = Contains(reason, "unchanged re-encoding differs") || Contains(reason, "fails verification") ||
                      Contains(reason, "max stack overflows") || Contains(reason, "cannot delimit");
      if (valid && Contains(reason, "rewritten body fails verification")) expected = false;
      if (!expected) {
        std::fprintf(stderr, "CheckMethodBody: %s\n", reason.c_str());
        FUZZ_CHECK(!"CheckMethodBody failed unexpectedly");
      }
    }
  }
  return 0;
}
