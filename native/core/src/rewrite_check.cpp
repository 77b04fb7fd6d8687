#include "dotcov/rewrite_check.h"

#include "dotcov/counter_sharing.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>

#include "dotcov/il_method.h"
#include "dotcov/metadata.h"
#include "dotcov/module_info.h"
#include "dotcov/module_sites.h"
#include "dotcov/pe_image.h"

namespace dotcov {
namespace {

using il::Instruction;
using il::MethodBody;

bool Fail(std::string* reason, const std::string& message) {
  if (reason) *reason = message;
  return false;
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// MethodAttributes / MethodImplAttributes (ECMA-335 II.23.1.10, II.23.1.11).
constexpr uint16_t kMethodAbstract = 0x0400;
constexpr uint16_t kMethodPinvokeImpl = 0x2000;
constexpr uint16_t kImplCodeTypeMask = 0x0003;  // 0 IL, 1 native, 2 OPTIL, 3 runtime
constexpr uint16_t kImplInternalCall = 0x1000;

// Length of the original body: header + code + exception sections (with the
// padding before each section), read from the bytes the decoder accepted.
bool OriginalLength(Bytes body, const MethodBody& m, size_t* length) {
  uint64_t pos = (m.fat_header() ? 12u : 1u) + uint64_t{m.code_size()};
  if (pos > body.size()) return false;
  if (m.fat_header() && (m.header_flags() & 0x8) != 0) {
    bool more = true;
    while (more) {
      pos = (pos + 3) & ~uint64_t{3};
      if (pos + 4 > body.size()) return false;
      uint8_t kind = body[pos];
      uint32_t size = (kind & 0x40) ? (uint32_t{body[pos + 1]} | uint32_t{body[pos + 2]} << 8 |
                                       uint32_t{body[pos + 3]} << 16)
                                    : body[pos + 1];
      pos += size;
      if (pos > body.size()) return false;
      more = (kind & 0x80) != 0;
    }
  }
  *length = static_cast<size_t>(pos);
  return true;
}

// The rewriter's rule: not right after a prefix, not the ret of a `tail.` call.
bool ProbeAllowed(const std::vector<Instruction>& ins, size_t i) {
  if (i > 0 && il::IsPrefix(ins[i - 1].opcode)) return false;
  if (ins[i].opcode == il::op::kRet && i > 0 && il::IsCallFamily(ins[i - 1].opcode)) {
    for (size_t j = i - 1; j-- > 0 && il::IsPrefix(ins[j].opcode);)
      if (ins[j].opcode == il::op::kTail) return false;
  }
  return true;
}

bool SameInstruction(const Instruction& original, const Instruction& rewritten) {
  bool widened = il::IsShortBranch(original.opcode) && rewritten.opcode == il::LongFormOf(original.opcode);
  if (rewritten.opcode != original.opcode && !widened) return false;
  if (il::IsBranch(original.opcode)) return true;  // targets are compared separately
  if (original.opcode == il::op::kSwitch) return original.switch_targets.size() == rewritten.switch_targets.size();
  return original.operand == rewritten.operand;
}

// Whether out[j...] is exactly `probe`.
bool IsProbe(const std::vector<Instruction>& out, size_t j, const std::vector<Instruction>& probe) {
  if (j + probe.size() > out.size()) return false;
  for (size_t k = 0; k < probe.size(); ++k)
    if (out[j + k].opcode != probe[k].opcode || out[j + k].operand != probe[k].operand) return false;
  return true;
}

bool IsCounterProbe(const std::vector<Instruction>& out, size_t j, uint32_t slot, const il::ProbeStyle& style) {
  return IsProbe(out, j, style.Make(slot));
}

bool IsBr(const Instruction& ins) { return ins.opcode == il::op::kBr || ins.opcode == il::op::kBrS; }

// Instruments `original` with a probe at every legal boundary (slot = index of
// the instruction) and, when `with_branches`, outcome probes on every branch
// FindBranches reports (slots from the instruction count up: fall-through,
// then each target) and value probes on every condition FindValueConditions
// finds without type knowledge (comparisons, filters; two slots each, after the
// branches'), then checks the result structurally and with Verify.
bool CheckInstrumented(const MethodBody& original, Bytes original_bytes, const il::ProbeStyle& style,
                       const il::VerifyOptions& options, bool with_branches, bool shared, std::string* reason,
                       uint64_t* branches_checked, const il::BoolTypes& types) {
  std::string error;
  const std::string what = std::string(" (") +
                           (style.atomic_token ? "atomic" : style.counters_base ? "inline" : "call") + " probes" +
                           (with_branches ? ", with branch probes" : "") + (shared ? ", shared counters)" : ")");
  const size_t probe_size = style.Make(0).size();
  const std::vector<Instruction>& ins = original.instructions();
  std::vector<bool> probed(ins.size(), false);
  std::vector<std::pair<uint32_t, uint32_t>> probes;
  for (size_t i = 0; i < ins.size(); ++i) {
    if (!ProbeAllowed(ins, i)) continue;
    probed[i] = true;
    probes.emplace_back(ins[i].offset, static_cast<uint32_t>(i));
  }
  std::vector<il::BranchProbe> branch_probes;
  std::vector<long> plan(ins.size(), -1);  // original index -> index into branch_probes
  std::vector<long> value_after(ins.size(), -1);  // original index -> the value probe before it (branch_probes)
  std::vector<long> operand_before(ins.size(), -1);  // original index -> its operand probe (branch_probes)
  if (with_branches) {
    uint32_t slot = static_cast<uint32_t>(ins.size());
    for (const il::BranchSite& site : il::FindBranches(original)) {
      il::BranchProbe b;
      b.il_offset = site.il_offset;
      b.fall_through_slot = slot++;
      for (uint32_t k = 0; k < site.target_count; ++k) b.target_slots.push_back(slot++);
      plan[static_cast<size_t>(original.FindInstruction(site.il_offset))] = static_cast<long>(branch_probes.size());
      branch_probes.push_back(std::move(b));
    }
    for (uint32_t offset : il::FindValueConditions(original, types)) {
      const size_t i = static_cast<size_t>(original.FindInstruction(offset));
      value_after[i + 1] = static_cast<long>(branch_probes.size());
      branch_probes.push_back(il::BranchProbe{offset, slot, {slot + 1}, true});
      slot += 2;
    }
    for (uint32_t offset : il::FindShortCircuitOperands(original, types)) {
      operand_before[static_cast<size_t>(original.FindInstruction(offset))] = static_cast<long>(branch_probes.size());
      branch_probes.push_back(il::BranchProbe{offset, slot, {slot + 1, slot + 2}, false, true});
      slot += 3;
    }
  }
  if (shared) {
    // Counter sharing (counter_sharing.h) drops probes and outcome blocks: check the layout that remains.
    SharedCounters sc = ShareCounters(original, {probes, branch_probes});
    probes = std::move(sc.probes);
    branch_probes = std::move(sc.branch_probes);
    std::fill(probed.begin(), probed.end(), false);
    for (const auto& [offset, slot] : probes) probed[slot] = true;  // the slot is the instruction's index
    for (size_t i = 0; i < ins.size(); ++i) {
      if (plan[i] < 0) continue;
      const il::BranchProbe& b = branch_probes[static_cast<size_t>(plan[i])];
      bool any = b.fall_through_slot != il::kNoProbeSlot;
      for (uint32_t t : b.target_slots) any = any || t != il::kNoProbeSlot;
      if (!any) plan[i] = -1;  // left as it is
    }
  }
  std::vector<uint8_t> rewritten_bytes;
  std::vector<il::OffsetMapEntry> il_map;
  if (!il::InsertProbes(original_bytes, probes, branch_probes, style, &rewritten_bytes, &error, &il_map))
    return Fail(reason, "inserting " + std::to_string(probes.size()) + " probes" +
                            (with_branches ? " and " + std::to_string(branch_probes.size()) + " branch probes" : "") +
                            what + " failed: " + error);

  // (c) Structural comparison: stripping the probes, and after each
  // instrumented branch its outcome blocks (<F probe>; br NEXT, then per target
  // <T probe>; br target), leaves the original instructions.
  MethodBody rewritten;
  if (!MethodBody::Decode(rewritten_bytes, &rewritten, &error))
    return Fail(reason, "rewritten body does not decode" + what + ": " + error);
  const std::vector<Instruction>& out = rewritten.instructions();
  std::vector<uint32_t> label(ins.size());  // original index -> new offset of its probe (or itself)
  std::vector<size_t> at(ins.size());       // original index -> index in `out`
  struct Outcomes {
    size_t fall_br = 0;                // index in `out` of the `br NEXT`
    std::vector<uint32_t> entry;       // new offset of each target block
    std::vector<size_t> taken_br;      // index in `out` of each block's `br target`
  };
  std::vector<Outcomes> outcomes(branch_probes.size());
  std::vector<size_t> owner(out.size(), 0);  // index in `out` -> original index of its group
  size_t j = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    const size_t group = j;
    if (probed[i]) {
      if (!IsCounterProbe(out, j, static_cast<uint32_t>(i), style))
        return Fail(reason, "probe for IL offset " + Hex(ins[i].offset) + " missing or malformed" + what);
      label[i] = out[j].offset;
      j += probe_size;
    }
    if (value_after[i] >= 0) {  // after the sequence-point probe: InsertAfterValue appends to the same group
      const il::BranchProbe& v = branch_probes[static_cast<size_t>(value_after[i])];
      const std::vector<Instruction> probe = style.MakeValue(v.fall_through_slot, v.target_slots[0]);
      if (!IsProbe(out, j, probe))
        return Fail(reason, "value probe after IL offset " + Hex(v.il_offset) + " missing or malformed" + what);
      if (!probed[i]) label[i] = out[j].offset;
      probed[i] = true;
      j += probe.size();
    }
    if (operand_before[i] >= 0) {  // after the sequence-point probe: InsertBefore appends to the same group
      const il::BranchProbe& v = branch_probes[static_cast<size_t>(operand_before[i])];
      std::vector<Instruction> load;
      bool is_or = false;
      const std::vector<Instruction> probe =
          il::ShortCircuitOperandAt(original, v.il_offset, &load, &is_or, &error)
              ? style.MakeOperand(v.fall_through_slot, v.target_slots[0], v.target_slots[1], load, is_or)
              : std::vector<Instruction>{};
      if (probe.empty() || !IsProbe(out, j, probe))
        return Fail(reason, "operand probe before IL offset " + Hex(v.il_offset) + " missing or malformed" + what);
      if (!probed[i]) label[i] = out[j].offset;
      probed[i] = true;
      j += probe.size();
    }
    if (j >= out.size() || !SameInstruction(ins[i], out[j]))
      return Fail(reason, "instruction at IL offset " + Hex(ins[i].offset) + " changed" + what);
    if (!probed[i]) label[i] = out[j].offset;
    at[i] = j++;
    if (plan[i] >= 0) {
      const il::BranchProbe& b = branch_probes[static_cast<size_t>(plan[i])];
      Outcomes& o = outcomes[static_cast<size_t>(plan[i])];
      // A derived outcome (kNoProbeSlot) has no probe; the `br NEXT` is there unless no target block follows.
      const bool fall_probe = b.fall_through_slot != il::kNoProbeSlot;
      bool blocks = b.target_slots.empty();
      for (uint32_t t : b.target_slots) blocks = blocks || t != il::kNoProbeSlot;
      const size_t fall_size = fall_probe ? probe_size : 0;
      if ((fall_probe && !IsCounterProbe(out, j, b.fall_through_slot, style)) ||
          (blocks && (j + fall_size >= out.size() || !IsBr(out[j + fall_size]))))
        return Fail(reason, "fall-through block of the branch at IL offset " + Hex(ins[i].offset) +
                                " missing or malformed" + what);
      o.fall_br = blocks ? j + fall_size : SIZE_MAX;
      j += fall_size + (blocks ? 1 : 0);
      for (uint32_t slot : b.target_slots) {
        if (slot == il::kNoProbeSlot) {
          o.entry.push_back(UINT32_MAX);
          o.taken_br.push_back(SIZE_MAX);
          continue;
        }
        if (!IsCounterProbe(out, j, slot, style) || j + probe_size >= out.size() || !IsBr(out[j + probe_size]))
          return Fail(reason, "target block " + std::to_string(o.entry.size()) + " of the branch at IL offset " +
                                  Hex(ins[i].offset) + " missing or malformed" + what);
        o.entry.push_back(out[j].offset);
        o.taken_br.push_back(j + probe_size);
        j += probe_size + 1;
      }
    }
    for (size_t k = group; k < j; ++k) owner[k] = i;
  }
  if (j != out.size()) return Fail(reason, "rewritten body has extra instructions" + what);

  // (e) The IL offset map: one entry per original instruction, at its group's
  // start, so every rewritten offset translates back to the instruction whose
  // group holds it (a probe to the statement it precedes, an outcome block to
  // its branch), as the runtime reads the map for stack traces and stepping.
  if (il_map.size() != ins.size()) return Fail(reason, "IL map has " + std::to_string(il_map.size()) +
                                                           " entries for " + std::to_string(ins.size()) +
                                                           " instructions" + what);
  for (size_t i = 0; i < ins.size(); ++i) {
    if (il_map[i].old_offset != ins[i].offset || il_map[i].new_offset != label[i])
      return Fail(reason, "IL map entry for IL offset " + Hex(ins[i].offset) + " is " + Hex(il_map[i].old_offset) +
                              " -> " + Hex(il_map[i].new_offset) + ", not -> " + Hex(label[i]) + what);
  }
  for (size_t k = 0; k < out.size(); ++k) {
    uint32_t back = il::TranslateToOriginal(il_map, out[k].offset);
    if (back != ins[owner[k]].offset)
      return Fail(reason, "rewritten IL offset " + Hex(out[k].offset) + " translates back to " + Hex(back) +
                              ", not to its instruction at " + Hex(ins[owner[k]].offset) + what);
  }

  auto map = [&](uint64_t original_offset, bool allow_end, uint64_t* mapped) {
    if (allow_end && original_offset == original.code_size()) {
      *mapped = rewritten.code_size();
      return true;
    }
    if (original_offset > UINT32_MAX) return false;
    long idx = original.FindInstruction(static_cast<uint32_t>(original_offset));
    if (idx < 0) return false;
    *mapped = label[static_cast<size_t>(idx)];
    return true;
  };
  for (size_t i = 0; i < ins.size(); ++i) {
    const Instruction& a = ins[i];
    const Instruction& b = out[at[i]];
    uint64_t want = 0;
    if (plan[i] >= 0) {
      // Fall-through: <F>; br NEXT. Taken edge k: branch -> <Tk>; br target k.
      const Outcomes& o = outcomes[static_cast<size_t>(plan[i])];
      if (o.fall_br != SIZE_MAX && static_cast<uint64_t>(out[o.fall_br].operand) != label[i + 1])
        return Fail(reason,
                    "fall-through of the branch at IL offset " + Hex(a.offset) + " does not reach its successor");
      for (size_t k = 0; k < o.entry.size(); ++k) {
        uint64_t taken = il::IsBranch(a.opcode) ? static_cast<uint64_t>(b.operand)
                                                : uint64_t{static_cast<uint32_t>(b.switch_targets[k])};
        uint64_t target = il::IsBranch(a.opcode) ? static_cast<uint64_t>(a.operand)
                                                 : uint64_t{static_cast<uint32_t>(a.switch_targets[k])};
        if (o.taken_br[k] == SIZE_MAX) {  // derived outcome: straight to the original target
          if ((il::IsBranch(a.opcode) && a.operand < 0) || !map(target, false, &want) || taken != want)
            return Fail(reason, "taken edge " + std::to_string(k) + " of the branch at IL offset " + Hex(a.offset) +
                                    " does not reach its original target" + what);
          continue;
        }
        if (taken != o.entry[k])
          return Fail(reason, "taken edge " + std::to_string(k) + " of the branch at IL offset " + Hex(a.offset) +
                                  " does not enter its probe block");
        if ((il::IsBranch(a.opcode) && a.operand < 0) || !map(target, false, &want) ||
            static_cast<uint64_t>(out[o.taken_br[k]].operand) != want)
          return Fail(reason, "taken edge " + std::to_string(k) + " of the branch at IL offset " + Hex(a.offset) +
                                  " does not reach its original target");
      }
      continue;
    }
    if (il::IsBranch(a.opcode)) {
      if (a.operand < 0 || !map(static_cast<uint64_t>(a.operand), false, &want) ||
          static_cast<uint64_t>(b.operand) != want)
        return Fail(reason, "branch at IL offset " + Hex(a.offset) + " retargeted wrongly" + what);
    }
    for (size_t k = 0; k < a.switch_targets.size(); ++k) {
      if (!map(static_cast<uint32_t>(a.switch_targets[k]), false, &want) ||
          static_cast<uint32_t>(b.switch_targets[k]) != want)
        return Fail(reason, "switch at IL offset " + Hex(a.offset) + " entry " + std::to_string(k) +
                                " retargeted wrongly" + what);
    }
  }

  const auto& oc = original.clauses();
  const auto& nc = rewritten.clauses();
  if (oc.size() != nc.size()) return Fail(reason, "exception clause count changed" + what);
  for (size_t k = 0; k < oc.size(); ++k) {
    const il::ExceptionClause& a = oc[k];
    const il::ExceptionClause& b = nc[k];
    std::string name = "exception clause " + std::to_string(k);
    if (a.flags != b.flags) return Fail(reason, name + ": flags changed" + what);
    if (!a.is_filter() && a.class_token_or_filter_offset != b.class_token_or_filter_offset)
      return Fail(reason, name + ": class token changed" + what);
    uint64_t ts, te, hs, he;
    if (!map(a.try_offset, false, &ts) || !map(uint64_t{a.try_offset} + a.try_length, true, &te) ||
        b.try_offset != ts || uint64_t{b.try_offset} + b.try_length != te)
      return Fail(reason, name + ": try block mapped wrongly" + what);
    if (!map(a.handler_offset, false, &hs) || !map(uint64_t{a.handler_offset} + a.handler_length, true, &he) ||
        b.handler_offset != hs || uint64_t{b.handler_offset} + b.handler_length != he)
      return Fail(reason, name + ": handler block mapped wrongly" + what);
    if (a.is_filter()) {
      uint64_t fs;
      if (!map(a.class_token_or_filter_offset, false, &fs) || b.class_token_or_filter_offset != fs)
        return Fail(reason, name + ": filter start mapped wrongly" + what);
    }
  }

  bool any = !probes.empty() || std::any_of(branch_probes.begin(), branch_probes.end(), [](const auto& b) {
    return b.fall_through_slot != il::kNoProbeSlot ||
           std::any_of(b.target_slots.begin(), b.target_slots.end(), [](uint32_t t) { return t != il::kNoProbeSlot; });
  });
  const bool values = std::any_of(branch_probes.begin(), branch_probes.end(), [](const auto& b) { return b.value; });
  const bool operands =
      std::any_of(branch_probes.begin(), branch_probes.end(), [](const auto& b) { return b.operand; });
  uint32_t want_stack = uint32_t{original.max_stack()} +
                        (any ? uint32_t(std::max({style.max_stack(), values ? style.value_max_stack() : 0,
                                                  operands ? style.operand_max_stack() : 0}))
                             : 0);
  if (rewritten.max_stack() != want_stack)
    return Fail(reason, "max stack " + std::to_string(rewritten.max_stack()) + ", expected " +
                            std::to_string(want_stack) + what);
  if (rewritten.local_var_sig_token() != original.local_var_sig_token() ||
      rewritten.init_locals() != original.init_locals())
    return Fail(reason, "locals signature or InitLocals changed" + what);

  // (d) The rewritten body verifies.
  if (!il::Verify(rewritten, &error, options))
    return Fail(reason, "rewritten body fails verification" + what + ": " + error);
  if (branches_checked) *branches_checked += branch_probes.size();
  return true;
}

bool CheckMethodBodyImpl(Bytes body, const il::ProbeStyle& style, const il::CallResolver& call_resolver,
                         int return_values, std::string* reason, uint64_t* branches,
                         const il::BoolTypes& types) {
  MethodBody original;
  std::string error;
  if (!MethodBody::Decode(body, &original, &error)) return Fail(reason, "original body does not decode: " + error);
  size_t length = 0;
  if (!OriginalLength(body, original, &length)) return Fail(reason, "cannot delimit the original body");
  Bytes original_bytes = body.first(length);

  // (a) Unchanged re-encoding is byte-identical.
  std::vector<uint8_t> same;
  if (!original.Encode(&same, &error)) return Fail(reason, "re-encoding the unchanged body failed: " + error);
  if (same.size() != original_bytes.size() || !std::equal(same.begin(), same.end(), original_bytes.begin())) {
    size_t at = 0;
    while (at < same.size() && at < original_bytes.size() && same[at] == original_bytes[at]) ++at;
    return Fail(reason, "unchanged re-encoding differs from the original (" + std::to_string(same.size()) + " vs " +
                            std::to_string(original_bytes.size()) + " bytes, first difference at byte " +
                            std::to_string(at) + ")");
  }

  il::VerifyOptions options;
  options.call_resolver = call_resolver;
  options.return_values = return_values;
  if (!il::Verify(original, &error, options)) return Fail(reason, "original body fails verification: " + error);

  // (b) A probe at every legal boundary, then again with outcome probes on
  // every conditional branch and switch as well.
  // (f) Again with shared counters (counter_sharing.h), the layout the agent writes by default.
  if (!CheckInstrumented(original, original_bytes, style, options, false, false, reason, nullptr, types)) return false;
  if (!CheckInstrumented(original, original_bytes, style, options, true, false, reason, branches, types)) return false;
  return CheckInstrumented(original, original_bytes, style, options, true, true, reason, nullptr, types);
}

std::optional<uint32_t> SignatureBlobOf(const MetadataReader& md, uint32_t token, int depth) {
  uint32_t rid = TokenRid(token);
  if (rid == 0) return std::nullopt;
  switch (static_cast<TableId>(TokenTable(token))) {
    case TableId::kMethodDef:
      if (rid > md.RowCount(TableId::kMethodDef)) return std::nullopt;
      return md.GetColumn(TableId::kMethodDef, rid, 4);
    case TableId::kMemberRef:
      if (rid > md.RowCount(TableId::kMemberRef)) return std::nullopt;
      return md.GetColumn(TableId::kMemberRef, rid, 2);
    case TableId::kStandAloneSig:
      if (rid > md.RowCount(TableId::kStandAloneSig)) return std::nullopt;
      return md.GetColumn(TableId::kStandAloneSig, rid, 0);
    case TableId::kMethodSpec: {
      if (rid > md.RowCount(TableId::kMethodSpec) || depth > 0) return std::nullopt;
      uint32_t method = md.GetColumnToken(TableId::kMethodSpec, rid, 0);
      uint8_t table = TokenTable(method);
      if (table != uint8_t(TableId::kMethodDef) && table != uint8_t(TableId::kMemberRef)) return std::nullopt;
      return SignatureBlobOf(md, method, depth + 1);
    }
    default:
      return std::nullopt;
  }
}

RewriteCheckResult RewriteCheckImpl(Bytes file, const std::string& path, unsigned styles) {
  RewriteCheckResult result;
  std::string error;
  auto pe = PeImage::Parse(file, &error);
  if (!pe) {
    bool looks_pe = file.size() >= 2 && file[0] == 'M' && file[1] == 'Z';
    result.status = looks_pe ? RewriteCheckStatus::kError : RewriteCheckStatus::kNotManaged;
    result.error = error;
    return result;
  }
  if (!pe->is_managed()) {
    result.status = RewriteCheckStatus::kNotManaged;
    result.error = "not a managed assembly";
    return result;
  }
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) {
    result.status = RewriteCheckStatus::kError;
    result.error = "cannot read metadata: " + error;
    return result;
  }
  // A helper token (and CheckAtomicToken below it) that names no MemberRef of this assembly.
  uint32_t helper = md->RowCount(TableId::kMemberRef) < 0xFFFE ? 0x0A00FFFFu : 0x0AFFFFFFu;
  il::CallResolver resolver = MetadataCallResolver(*md, helper);
  const uint32_t n = md->RowCount(TableId::kMethodDef);
  for (uint32_t rid = 1; rid <= n; ++rid) {
    uint32_t rva = md->GetColumn(TableId::kMethodDef, rid, 0);
    uint16_t impl = static_cast<uint16_t>(md->GetColumn(TableId::kMethodDef, rid, 1));
    uint16_t flags = static_cast<uint16_t>(md->GetColumn(TableId::kMethodDef, rid, 2));
    if (rva == 0 || (flags & (kMethodAbstract | kMethodPinvokeImpl)) != 0 || (impl & kImplCodeTypeMask) != 0 ||
        (impl & kImplInternalCall) != 0)
      continue;
    const uint32_t token = MakeToken(TableId::kMethodDef, rid);
    ++result.methods_checked;
    int pops = 0, pushes = -1;
    if (!MethodSigStackEffect(md->GetBlob(md->GetColumn(TableId::kMethodDef, rid, 4)), &pops, &pushes)) pushes = -1;
    Bytes body = pe->MethodBodyAt(rva);
    std::string reason;
    if (body.empty()) {
      result.failures.push_back({path, token, "method body RVA " + Hex(rva) + " is not in the image"});
      continue;
    }
    // What the agent knows of bool types (module_sites BoolTypesOf), for the value and operand probes.
    il::MethodBody decoded;
    std::string why;
    const il::BoolTypes types =
        il::MethodBody::Decode(body, &decoded, &why) ? BoolTypesOf(*md, token, decoded) : il::BoolTypes{};
    uint64_t branches = 0;  // of one style: each style instruments the same branches
    bool passed = true;
    for (ProbeStyles style : {kInlineProbes, kCallProbes, kAtomicProbes}) {
      if ((styles & style) == 0) continue;
      branches = 0;
      if (!CheckMethodBody(body, CheckStyle(style, helper), resolver, pushes, &reason, &branches, types)) {
        result.failures.push_back({path, token, reason});
        passed = false;
        break;
      }
    }
    if (passed) result.branches_checked += branches;
  }
  return result;
}

}  // namespace

bool MethodSigStackEffect(Bytes signature, int* pops, int* pushes) {
  ByteReader r(signature);
  uint8_t conv = 0;
  if (!r.Read(&conv)) return false;
  uint8_t kind = conv & 0x0F;
  if (kind > 0x05 && kind != 0x09) return false;  // field, local, property, generic instantiation ...
  uint32_t count = 0;
  if ((conv & 0x10) != 0 && !r.ReadCompressedU32(&count)) return false;  // generic parameter count
  if (!r.ReadCompressedU32(&count)) return false;
  if (count > 0xFFFF) return false;
  // Custom modifiers before the return type.
  for (;;) {
    uint8_t b = 0;
    if (r.remaining() == 0) return false;
    b = r.data()[r.pos()];
    if (b != 0x1F && b != 0x20) break;
    r.U8();
    uint32_t type;
    if (!r.ReadCompressedU32(&type)) return false;
  }
  uint8_t ret = r.U8();
  if (!r.ok()) return false;
  bool has_this = (conv & 0x20) != 0 && (conv & 0x40) == 0;
  *pops = static_cast<int>(count) + (has_this ? 1 : 0);
  *pushes = ret == 0x01 ? 0 : 1;  // ELEMENT_TYPE_VOID
  return true;
}

il::CallResolver MetadataCallResolver(const MetadataReader& md, uint32_t helper_token) {
  return [&md, helper_token](uint32_t token, int* pops, int* pushes) {
    if (token == helper_token || token == CheckAtomicToken(helper_token)) {
      *pops = 1;
      *pushes = token == helper_token ? 0 : 1;
      return true;
    }
    std::optional<uint32_t> blob = SignatureBlobOf(md, token, 0);
    if (!blob) return false;
    Bytes sig;
    if (!md.TryGetBlob(*blob, &sig)) return false;
    return MethodSigStackEffect(sig, pops, pushes);
  };
}

il::ProbeStyle CheckStyle(ProbeStyles style, uint32_t helper_token) {
  if (style == kAtomicProbes) return il::ProbeStyle{0, kCheckCountersBase, CheckAtomicToken(helper_token)};
  return style == kInlineProbes ? il::ProbeStyle{0, kCheckCountersBase} : il::ProbeStyle{helper_token, 0};
}

bool CheckMethodBody(Bytes body, const il::ProbeStyle& style, const il::CallResolver& call_resolver,
                     int return_values, std::string* reason, uint64_t* branches_checked,
                     const il::BoolTypes& types) {
  try {
    return CheckMethodBodyImpl(body, style, call_resolver, return_values, reason, branches_checked, types);
  } catch (const std::exception& e) {
    return Fail(reason, std::string("exception while checking: ") + e.what());
  } catch (...) {
    return Fail(reason, "exception while checking");
  }
}

RewriteCheckResult RewriteCheck(Bytes file, const std::string& path, unsigned styles) {
  try {
    return RewriteCheckImpl(file, path, styles);
  } catch (const std::exception& e) {
    RewriteCheckResult r;
    r.status = RewriteCheckStatus::kError;
    r.error = std::string("exception while checking: ") + e.what();
    return r;
  } catch (...) {
    RewriteCheckResult r;
    r.status = RewriteCheckStatus::kError;
    r.error = "exception while checking";
    return r;
  }
}

RewriteCheckResult RewriteCheckFile(const std::string& path, unsigned styles) {
  std::vector<uint8_t> bytes;
  std::string error;
  bool ok = false;
  try {
    ok = ReadWholeFile(path, &bytes, &error);
  } catch (...) {
    error = "cannot read " + path;
  }
  if (!ok) {
    RewriteCheckResult r;
    r.status = RewriteCheckStatus::kError;
    r.error = error;
    return r;
  }
  return RewriteCheck(bytes, path, styles);
}

}  // namespace dotcov
