#include "dotcov/counter_sharing.h"

#include <algorithm>
#include <utility>
#include <map>

#include "dotcov/data_file.h"
#include "dotcov/il_opcodes.h"

namespace dotcov {

bool SharesCounterSafely(uint16_t o) {
  if (o <= 0x13) return o != 0x01;  // nop, ldarg*, ldloc*, stloc*, ldarga.s, starg.s, ldloca.s (0x01 is break)
  if (o >= 0x14 && o <= 0x23) return true;  // ldnull, ldc.*
  switch (o) {
    case 0x25:  // dup
    case 0x26:  // pop
    case 0x58: case 0x59: case 0x5A:  // add, sub, mul (no overflow check)
    case 0x5F: case 0x60: case 0x61:  // and, or, xor
    case 0x62: case 0x63: case 0x64:  // shl, shr, shr.un
    case 0x65: case 0x66:              // neg, not
    case 0x67: case 0x68: case 0x69: case 0x6A:  // conv.i1, conv.i2, conv.i4, conv.i8
    case 0x6B: case 0x6C:              // conv.r4, conv.r8
    case 0x6D: case 0x6E:              // conv.u4, conv.u8
    case 0x76:                         // conv.r.un
    case 0xD1: case 0xD2: case 0xD3:   // conv.u2, conv.u1, conv.i
    case 0xE0:                         // conv.u
    case 0xFE01: case 0xFE02: case 0xFE03: case 0xFE04: case 0xFE05:  // ceq, cgt, cgt.un, clt, clt.un
    case 0xFE09: case 0xFE0A: case 0xFE0B: case 0xFE0C: case 0xFE0D: case 0xFE0E:  // ldarg, ldarga, starg, ldloc, ldloca, stloc
      return true;
    default:
      return false;  // calls, newobj, ld/stfld, ldind/stind, ldelem/stelem, div/rem, *.ovf, castclass, box,
                     // ldsfld (static constructor), ldstr (lazily bound), ldtoken, ckfinite, branches ...
  }
}

namespace {

// Calls visit(k, which) for each control-flow edge out of instruction i into instruction k: `which` is -1
// for the fall-through, else the branch target's index (0) or the switch target's.
template <typename Visit>
void ForEachSuccessor(const il::MethodBody& body, size_t i, Visit visit) {
  const auto& ins = body.instructions();
  const il::OpcodeInfo* info = il::LookupOpcode(ins[i].opcode);
  if (!info) return;
  bool falls = info->flow == il::FlowKind::kNext || info->flow == il::FlowKind::kMeta ||
               info->flow == il::FlowKind::kCondBranch ||
               (info->flow == il::FlowKind::kCall && ins[i].opcode != il::op::kJmp);
  if (falls && i + 1 < ins.size()) visit(static_cast<long>(i + 1), -1);
  if (il::IsBranch(ins[i].opcode) && ins[i].operand >= 0 && ins[i].operand <= UINT32_MAX) {
    long t = body.FindInstruction(static_cast<uint32_t>(ins[i].operand));
    if (t >= 0) visit(t, 0);
  }
  for (size_t k = 0; k < ins[i].switch_targets.size(); ++k) {
    long t = body.FindInstruction(static_cast<uint32_t>(ins[i].switch_targets[k]));
    if (t >= 0) visit(t, static_cast<int>(k));
  }
}

// The third rule (counter_sharing.h): a probed point starting a block entered
// by exactly two edges reads the sum of the counters counting those edges.
// `point_slot` maps the instruction of each kept point to its slot.
void SumJoins(const il::MethodBody& body, const std::vector<bool>& special, const std::vector<int>& edges,
              const std::map<size_t, uint32_t>& point_slot, SharedCounters* out) {
  const auto& ins = body.instructions();
  const size_t n = ins.size();
  constexpr uint32_t kNone = il::kNoProbeSlot;
  // The counter of each instruction's executions: its run's (the kept point starting it, then every
  // instruction that nothing else enters and whose predecessor cannot throw or branch).
  std::vector<uint32_t> run_slot(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    auto it = point_slot.find(i);
    if (it != point_slot.end()) {
      run_slot[i] = it->second;
    } else if (i > 0 && run_slot[i - 1] != kNone && SharesCounterSafely(ins[i - 1].opcode) && !special[i] &&
               edges[i] == 1) {
      run_slot[i] = run_slot[i - 1];
    }
  }
  std::map<size_t, const il::BranchProbe*> outcomes;  // conditional branch -> its outcome probes
  for (const il::BranchProbe& b : out->branch_probes) {
    if (b.value || b.operand) continue;
    long at = body.FindInstruction(b.il_offset);
    if (at > 0 && il::IsPrefix(ins[static_cast<size_t>(at) - 1].opcode)) continue;
    if (at >= 0) outcomes[static_cast<size_t>(at)] = &b;
  }
  // The slot counting edge `which` (-1 the fall-through, else the target's index) out of instruction e.
  auto edge_slot = [&](size_t e, int which) -> uint32_t {
    const il::OpcodeInfo* info = il::LookupOpcode(ins[e].opcode);
    if (!info) return kNone;
    if (info->flow == il::FlowKind::kCondBranch) {
      auto it = outcomes.find(e);
      if (it == outcomes.end()) return kNone;
      const il::BranchProbe& b = *it->second;
      if (which < 0) return b.fall_through_slot;
      return static_cast<size_t>(which) < b.target_slots.size() ? b.target_slots[static_cast<size_t>(which)] : kNone;
    }
    if (which < 0) return info->flow == il::FlowKind::kNext && SharesCounterSafely(ins[e].opcode) ? run_slot[e] : kNone;
    return ins[e].opcode == il::op::kBr || ins[e].opcode == il::op::kBrS ? run_slot[e] : kNone;  // not leave
  };
  // Which instructions enter each candidate block, and by which edge.
  std::vector<std::vector<std::pair<size_t, int>>> into(n);
  auto candidate = [&](long k) { return k >= 0 && !special[static_cast<size_t>(k)] && edges[static_cast<size_t>(k)] == 2 &&
                                        point_slot.count(static_cast<size_t>(k)); };
  for (size_t i = 0; i < n; ++i) {
    ForEachSuccessor(body, i, [&](long t, int which) {
      if (candidate(t)) into[static_cast<size_t>(t)].emplace_back(i, which);
    });
  }
  std::map<uint32_t, std::vector<uint32_t>> sources;  // derived or summed slot -> the slots it reads
  for (const auto& [slot, source] : out->derived) sources[slot] = {source};
  auto reads = [&](uint32_t from, uint32_t target) {  // whether `from`'s count involves `target`'s
    std::vector<uint32_t> todo{from};
    std::vector<uint32_t> seen;
    while (!todo.empty()) {
      uint32_t s = todo.back();
      todo.pop_back();
      if (s == target) return true;
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
      seen.push_back(s);
      auto it = sources.find(s);
      if (it != sources.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
    }
    return false;
  };
  for (size_t d = 0; d < n; ++d) {
    if (into[d].size() != 2) continue;
    const uint32_t slot = point_slot.at(d);
    uint32_t a = edge_slot(into[d][0].first, into[d][0].second);
    uint32_t b = edge_slot(into[d][1].first, into[d][1].second);
    if (a == kNone || b == kNone || reads(a, slot) || reads(b, slot)) continue;
    out->summed.push_back({slot, a, b});
    sources[slot] = {a, b};
    auto p = std::find_if(out->probes.begin(), out->probes.end(), [&](const auto& q) { return q.second == slot; });
    if (p != out->probes.end()) out->probes.erase(p);
  }
}

}  // namespace

SharedCounters ShareCounters(const il::MethodBody& body, const MethodProbes& in) {
  SharedCounters out;
  const auto& ins = body.instructions();
  const size_t n = ins.size();
  auto index_of = [&](uint64_t offset) -> long {
    return offset > UINT32_MAX ? -1 : body.FindInstruction(static_cast<uint32_t>(offset));
  };
  // Entries into each instruction other than one plain fall-through edge.
  std::vector<int> edges(n, 0);     // incoming control-flow edges (fall-through, branch, switch entry)
  std::vector<bool> special(n, false);  // method entry, handler or filter start, EH region boundary
  if (n) special[0] = true;
  for (size_t i = 0; i < n; ++i) ForEachSuccessor(body, i, [&](long t, int) { ++edges[static_cast<size_t>(t)]; });
  auto mark = [&](uint64_t offset) {
    long k = index_of(offset);
    if (k >= 0) special[static_cast<size_t>(k)] = true;
  };
  for (const il::ExceptionClause& c : body.clauses()) {
    mark(c.try_offset);
    mark(uint64_t{c.try_offset} + c.try_length);
    mark(c.handler_offset);
    mark(uint64_t{c.handler_offset} + c.handler_length);
    if (c.is_filter()) mark(c.class_token_or_filter_offset);
  }
  auto entered_only_by_fall_through = [&](size_t k) { return !special[k] && edges[k] == 1; };

  // Sequence points, in code order: each joins the run of the point before it, or starts its own.
  std::vector<size_t> order(in.probes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return in.probes[a].first < in.probes[b].first; });
  std::vector<bool> kept(in.probes.size(), true);
  std::map<size_t, uint32_t> point_slot;  // instruction index -> the counter slot of a kept point there
  long leader = -1;
  uint32_t leader_slot = 0;
  for (size_t p : order) {
    const auto [offset, slot] = in.probes[p];
    long at = index_of(offset);
    if (at < 0) {
      leader = -1;
      continue;
    }
    bool joins = leader >= 0;
    for (long k = leader; joins && k < at; ++k) {
      if (!SharesCounterSafely(ins[static_cast<size_t>(k)].opcode)) joins = false;
      if (k + 1 <= at && !entered_only_by_fall_through(static_cast<size_t>(k + 1))) joins = false;
    }
    if (joins) {
      kept[p] = false;
      out.derived.emplace_back(slot, leader_slot);
      continue;
    }
    leader = at;
    leader_slot = slot;
    point_slot.emplace(static_cast<size_t>(at), slot);
  }
  for (size_t i = 0; i < in.probes.size(); ++i)
    if (kept[i]) out.probes.push_back(in.probes[i]);

  // Branch outcomes into a block only they enter, starting with a probed point.
  auto derive = [&](long dest, uint32_t* slot) {
    if (dest < 0 || !entered_only_by_fall_through(static_cast<size_t>(dest))) return;  // one edge, no other entry
    auto it = point_slot.find(static_cast<size_t>(dest));
    if (it == point_slot.end()) return;
    out.derived.emplace_back(*slot, it->second);
    *slot = il::kNoProbeSlot;
  };
  out.branch_probes = in.branch_probes;
  for (il::BranchProbe& b : out.branch_probes) {
    if (b.value || b.operand) continue;  // value and operand probes count values, not edges into a block
    long at = index_of(b.il_offset);
    if (at < 0 || static_cast<size_t>(at) + 1 >= n) continue;
    const il::Instruction& br = ins[static_cast<size_t>(at)];
    const il::OpcodeInfo* info = il::LookupOpcode(br.opcode);
    if (!info || info->flow != il::FlowKind::kCondBranch) continue;
    if (at > 0 && il::IsPrefix(ins[static_cast<size_t>(at) - 1].opcode)) continue;
    std::vector<long> dests;
    if (br.opcode == il::op::kSwitch) {
      for (int32_t t : br.switch_targets) dests.push_back(index_of(static_cast<uint32_t>(t)));
    } else {
      dests.push_back(br.operand < 0 ? -1 : index_of(static_cast<uint64_t>(br.operand)));
    }
    if (dests.size() != b.target_slots.size()) continue;
    derive(at + 1, &b.fall_through_slot);
    for (size_t k = 0; k < dests.size(); ++k) derive(dests[k], &b.target_slots[k]);
  }
  SumJoins(body, special, edges, point_slot, &out);
  return out;
}

bool SumsFitDataFile(const SharedCounters& shared, uint32_t slot_base) {
  // Unsigned: a slot below the base wraps past the limit too.
  auto fits = [slot_base](uint32_t slot) { return slot - slot_base <= kMaxSummedSource; };
  return std::all_of(shared.summed.begin(), shared.summed.end(),
                     [&](const std::array<uint32_t, 3>& s) { return fits(s[1]) && fits(s[2]); });
}

bool RecordSharedCounters(DataFileWriter& writer, const ModuleRecordRef& module, uint32_t slot_base,
                          const std::vector<std::pair<uint32_t, uint32_t>>& derived,
                          const std::vector<std::array<uint32_t, 3>>& summed) {
  // Sums first: a refused one leaves the derived marks unwritten too (the method is not measured either way).
  for (const auto& [slot, a, b] : summed)
    if (!writer.SetSummedCounter(module, slot - slot_base, a - slot_base, b - slot_base)) return false;
  for (const auto& [slot, source] : derived) writer.SetDerivedCounter(module, slot - slot_base, source - slot_base);
  return true;
}

}  // namespace dotcov
