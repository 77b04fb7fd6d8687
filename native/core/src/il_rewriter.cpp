#include "dotcov/il_rewriter.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

namespace dotcov::il {
namespace {

bool Fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string At(uint64_t offset) { return " at IL offset " + Hex(offset); }

struct Block {
  uint64_t begin, end;
  size_t clause;
  bool is_try;
  const char* what;
};

bool CheckClauses(const MethodBody& body, std::string* error) {
  const uint64_t code_size = body.code_size();
  auto start_ok = [&](uint64_t o) { return o < code_size && body.FindInstruction(static_cast<uint32_t>(o)) >= 0; };
  auto end_ok = [&](uint64_t o) { return o == code_size || start_ok(o); };
  std::vector<Block> blocks;
  const auto& clauses = body.clauses();
  for (size_t i = 0; i < clauses.size(); ++i) {
    const ExceptionClause& c = clauses[i];
    std::string name = "exception clause " + std::to_string(i);
    uint64_t try_end = uint64_t{c.try_offset} + c.try_length;
    uint64_t handler_end = uint64_t{c.handler_offset} + c.handler_length;
    if (c.flags != kClauseCatch && c.flags != kClauseFilter && c.flags != kClauseFinally && c.flags != kClauseFault)
      return Fail(error, name + ": unknown flags " + Hex(c.flags));
    if (c.try_length == 0 || c.handler_length == 0) return Fail(error, name + ": empty region");
    if (!start_ok(c.try_offset) || !end_ok(try_end))
      return Fail(error, name + ": try region is not on instruction boundaries");
    if (!start_ok(c.handler_offset) || !end_ok(handler_end))
      return Fail(error, name + ": handler region is not on instruction boundaries");
    blocks.push_back({c.try_offset, try_end, i, true, "try"});
    blocks.push_back({c.handler_offset, handler_end, i, false, "handler"});
    if (c.is_filter()) {
      uint64_t f = c.class_token_or_filter_offset;
      if (!start_ok(f) || f >= c.handler_offset)
        return Fail(error, name + ": filter start is not an instruction boundary before the handler");
      blocks.push_back({f, c.handler_offset, i, false, "filter"});
    }
  }
  for (size_t a = 0; a < blocks.size(); ++a) {
    for (size_t b = a + 1; b < blocks.size(); ++b) {
      const Block& x = blocks[a];
      const Block& y = blocks[b];
      bool disjoint = x.end <= y.begin || y.end <= x.begin;
      if (disjoint) continue;
      std::string names = std::string(x.what) + " of clause " + std::to_string(x.clause) + " and " + y.what +
                          " of clause " + std::to_string(y.clause);
      if (x.clause == y.clause) return Fail(error, names + " overlap");
      bool equal = x.begin == y.begin && x.end == y.end;
      if (equal) {
        if (x.is_try && y.is_try) continue;  // several handlers for one try block
        return Fail(error, names + " are the same region");
      }
      bool x_in_y = y.begin <= x.begin && x.end <= y.end;
      bool y_in_x = x.begin <= y.begin && y.end <= x.end;
      if (!x_in_y && !y_in_x) return Fail(error, names + " overlap without nesting");
      // Inner clauses come before the clauses whose try block encloses them.
      if (x_in_y && y.is_try && x.clause > y.clause) return Fail(error, names + ": inner clause listed after outer");
      if (y_in_x && x.is_try && y.clause > x.clause) return Fail(error, names + ": inner clause listed after outer");
    }
  }
  return true;
}

constexpr int kUnvisited = INT_MIN;
constexpr int kUnknown = -1;

bool SimulateStack(const MethodBody& body, const VerifyOptions& options, std::string* error) {
  const auto& ins = body.instructions();
  const size_t n = ins.size();
  if (n == 0) return true;
  std::vector<int> state(n, kUnvisited);
  std::vector<bool> try_start(n, false);
  std::vector<size_t> work;
  auto index_of = [&](uint64_t offset) { return static_cast<size_t>(body.FindInstruction(static_cast<uint32_t>(offset))); };
  std::string failure;
  auto reach = [&](size_t idx, int depth) {
    int prev = state[idx];
    if (prev == kUnvisited || (prev == kUnknown && depth != kUnknown)) {
      state[idx] = depth;
      work.push_back(idx);
      return true;
    }
    if (depth == kUnknown || prev == kUnknown || prev == depth) return true;
    failure = "inconsistent stack depth (" + std::to_string(prev) + " vs " + std::to_string(depth) + ")" +
              At(ins[idx].offset);
    return false;
  };

  if (!reach(0, 0)) return Fail(error, failure);
  for (const ExceptionClause& c : body.clauses()) {
    try_start[index_of(c.try_offset)] = true;
    int entry = (c.flags == kClauseFinally || c.flags == kClauseFault) ? 0 : 1;
    if (!reach(index_of(c.handler_offset), entry)) return Fail(error, failure);
    if (c.is_filter() && !reach(index_of(c.class_token_or_filter_offset), 1)) return Fail(error, failure);
  }
  const int max_stack = body.max_stack();
  while (!work.empty()) {
    size_t idx = work.back();
    work.pop_back();
    const Instruction& in = ins[idx];
    const OpcodeInfo* info = LookupOpcode(in.opcode);
    const int depth = state[idx];
    if (depth > max_stack) return Fail(error, "stack depth " + std::to_string(depth) + " exceeds max stack" + At(in.offset));
    if (try_start[idx] && depth > 0) return Fail(error, "stack not empty at try start" + At(in.offset));
    int next = kUnknown;
    if (depth != kUnknown) {
      int pops = info->pops, pushes = info->pushes;
      bool resolved = true;
      if (in.opcode == op::kRet) {
        if (options.return_values >= 0 ? depth != options.return_values : depth > 1)
          return Fail(error, "stack depth " + std::to_string(depth) + " at ret" + At(in.offset));
        pops = depth;
      } else if (in.opcode == op::kJmp) {
        if (depth != 0) return Fail(error, "stack not empty at jmp" + At(in.offset));
      } else if (in.opcode == op::kEndfilter) {
        if (depth != 1) return Fail(error, "stack depth " + std::to_string(depth) + " at endfilter" + At(in.offset));
      } else if (pops == kClearsStack) {
        pops = depth;
      } else if (IsCallFamily(in.opcode)) {
        int p = 0, q = 0;
        resolved = options.call_resolver && options.call_resolver(static_cast<uint32_t>(in.operand), &p, &q) &&
                   p >= 0 && q >= 0 && q <= 1;
        if (resolved) {
          if (in.opcode == op::kNewobj) {
            pops = std::max(0, p - 1);
            pushes = 1;
          } else {
            pops = p + (in.opcode == op::kCalli ? 1 : 0);
            pushes = q;
          }
        }
      }
      if (resolved) {
        if (pops > depth)
          return Fail(error, std::string("stack underflow in ") + info->name + At(in.offset));
        next = depth - pops + pushes;
        if (next > max_stack)
          return Fail(error, "stack depth " + std::to_string(next) + " exceeds max stack " +
                                 std::to_string(max_stack) + " after " + info->name + At(in.offset));
      }
    }
    bool falls_through = false;
    switch (info->flow) {
      case FlowKind::kNext:
      case FlowKind::kMeta:
        falls_through = true;
        break;
      case FlowKind::kCall:
        falls_through = in.opcode != op::kJmp;
        break;
      case FlowKind::kBranch:
      case FlowKind::kCondBranch:
        if (IsBranch(in.opcode)) {
          if (!reach(index_of(static_cast<uint64_t>(in.operand)), next)) return Fail(error, failure);
        } else {
          for (int32_t t : in.switch_targets)
            if (!reach(index_of(static_cast<uint32_t>(t)), next)) return Fail(error, failure);
        }
        falls_through = info->flow == FlowKind::kCondBranch;
        break;
      case FlowKind::kReturn:
      case FlowKind::kThrow:
        break;
    }
    if (falls_through) {
      if (idx + 1 >= n) return Fail(error, std::string("control falls off the end of the code after ") + info->name);
      if (!reach(idx + 1, next)) return Fail(error, failure);
    }
  }
  return true;
}

bool VerifyDecoded(const MethodBody& body, const VerifyOptions& options, std::string* error) {
  const auto& ins = body.instructions();
  const uint64_t code_size = body.code_size();
  auto target_ok = [&](uint64_t t) {
    if (t >= code_size) return false;
    long idx = body.FindInstruction(static_cast<uint32_t>(t));
    return idx == 0 || (idx > 0 && !IsPrefix(ins[static_cast<size_t>(idx) - 1].opcode));
  };
  for (size_t i = 0; i < ins.size(); ++i) {
    const Instruction& in = ins[i];
    if (IsPrefix(in.opcode) && i + 1 == ins.size())
      return Fail(error, "prefix at the end of the code" + At(in.offset));
    if (IsBranch(in.opcode)) {
      if (in.operand < 0 || !target_ok(static_cast<uint64_t>(in.operand)))
        return Fail(error, "branch target " + Hex(static_cast<uint64_t>(in.operand)) + " is not a valid instruction" +
                               At(in.offset));
    }
    for (int32_t t : in.switch_targets)
      if (!target_ok(static_cast<uint32_t>(t)))
        return Fail(error, "switch target " + Hex(static_cast<uint32_t>(t)) + " is not a valid instruction" +
                               At(in.offset));
  }
  if (!CheckClauses(body, error)) return false;
  return SimulateStack(body, options, error);
}

}  // namespace

std::vector<Instruction> MakeCounterProbe(uint32_t slot, uint32_t helper_method_token) {
  return {MakeInstruction(op::kLdcI4, static_cast<int32_t>(slot)), MakeInstruction(op::kCall, helper_method_token)};
}

bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  uint32_t helper_method_token, std::vector<uint8_t>* new_body, std::string* error) {
  return InsertProbes(original_body, probes, {}, helper_method_token, new_body, error);
}

namespace {
// The increment of the counter whose address is on the stack (consumed).
void AppendIncrement(const ProbeStyle& style, std::vector<Instruction>* out) {
  if (style.atomic_token) {
    out->push_back(MakeInstruction(op::kCall, style.atomic_token));  // Interlocked.Increment(ref long)
    out->push_back(MakeInstruction(0x26 /*pop*/));
    return;
  }
  for (auto i : {MakeInstruction(0x25 /*dup*/), MakeInstruction(0x4C /*ldind.i8*/), MakeInstruction(0x21 /*ldc.i8*/, 1),
                 MakeInstruction(0x58 /*add*/), MakeInstruction(0x55 /*stind.i8*/)})
    out->push_back(i);
}
}  // namespace

std::vector<Instruction> ProbeStyle::Make(uint32_t slot) const {
  if (!counters_base) return MakeCounterProbe(slot, helper_method_token);
  uint64_t address = counters_base + 8 * uint64_t(slot);
  std::vector<Instruction> out = {MakeInstruction(0x21 /*ldc.i8*/, static_cast<int64_t>(address)),
                                  MakeInstruction(0xE0 /*conv.u*/)};
  AppendIncrement(*this, &out);
  if (context.miss_token) {
    const int64_t last = static_cast<int64_t>(context.last_base + 4 * uint64_t(slot));
    auto ctx = [&] {
      return context.context_constant >= 0 ? MakeInstruction(op::kLdcI4, context.context_constant)
                                           : MakeInstruction(0xFE0C /*ldloc*/, context.context_local);
    };
    for (auto i : {MakeInstruction(0x21 /*ldc.i8*/, last), MakeInstruction(0xE0 /*conv.u*/),
                   MakeInstruction(0x4B /*ldind.u4*/), ctx(), MakeInstruction(0x2E /*beq.s*/, kProbeSkip + 4),
                   MakeInstruction(0x21 /*ldc.i8*/, last), MakeInstruction(0xE0 /*conv.u*/), ctx(),
                   MakeInstruction(op::kCall, context.miss_token)})
      out.push_back(i);
  }
  return out;
}

std::vector<Instruction> ProbeStyle::MakeValue(uint32_t false_slot, uint32_t true_slot) const {
  if (context.miss_token) return ProbeStyle{helper_method_token, 0}.MakeValue(false_slot, true_slot);
  // value -> (value != 0) selects the slot: false_slot + (value != 0) * (true_slot - false_slot).
  std::vector<Instruction> out = {MakeInstruction(0x25 /*dup*/), MakeInstruction(0x16 /*ldc.i4.0*/),
                                  MakeInstruction(0xFE03 /*cgt.un*/)};
  const int64_t step = int64_t{true_slot} - int64_t{false_slot};
  if (!counters_base) {
    for (auto i : {MakeInstruction(op::kLdcI4, static_cast<int32_t>(step)), MakeInstruction(0x5A /*mul*/),
                   MakeInstruction(op::kLdcI4, static_cast<int32_t>(false_slot)), MakeInstruction(0x58 /*add*/),
                   MakeInstruction(op::kCall, helper_method_token)})
      out.push_back(i);
    return out;
  }
  // The address: counters_base + 8 * false_slot + (value != 0) * 8 * step, then the increment of Make.
  for (auto i : {MakeInstruction(0xE0 /*conv.u*/), MakeInstruction(0x21 /*ldc.i8*/, 8 * step),
                 MakeInstruction(0xE0 /*conv.u*/), MakeInstruction(0x5A /*mul*/),
                 MakeInstruction(0x21 /*ldc.i8*/, static_cast<int64_t>(counters_base + 8 * uint64_t(false_slot))),
                 MakeInstruction(0xE0 /*conv.u*/), MakeInstruction(0x58 /*add*/)})
    out.push_back(i);
  AppendIncrement(*this, &out);
  return out;
}

std::vector<Instruction> ProbeStyle::MakeOperand(uint32_t skipped_slot, uint32_t false_slot, uint32_t true_slot,
                                             const std::vector<Instruction>& load, bool is_or) const {
  if (context.miss_token)
    return ProbeStyle{helper_method_token, 0}.MakeOperand(skipped_slot, false_slot, true_slot, load, is_or);
  // left -> e = whether the right operand is evaluated in the source: (left != 0), flipped for `or`; right -> r =
  // (right != 0); the slot is skipped + e * ((false - skipped) + r * (true - false)).
  std::vector<Instruction> out = {MakeInstruction(0x25 /*dup*/), MakeInstruction(0x16 /*ldc.i4.0*/),
                                  MakeInstruction(0xFE03 /*cgt.un*/)};
  if (is_or) {
    out.push_back(MakeInstruction(0x17 /*ldc.i4.1*/));
    out.push_back(MakeInstruction(0x61 /*xor*/));
  }
  out.insert(out.end(), load.begin(), load.end());
  const int64_t to_false = int64_t{false_slot} - int64_t{skipped_slot};
  const int64_t to_true = int64_t{true_slot} - int64_t{false_slot};
  for (auto i : {MakeInstruction(0x16 /*ldc.i4.0*/), MakeInstruction(0xFE03 /*cgt.un*/),
                 MakeInstruction(op::kLdcI4, static_cast<int32_t>(to_true)), MakeInstruction(0x5A /*mul*/),
                 MakeInstruction(op::kLdcI4, static_cast<int32_t>(to_false)), MakeInstruction(0x58 /*add*/),
                 MakeInstruction(0x5A /*mul*/)})
    out.push_back(i);
  if (!counters_base) {
    out.push_back(MakeInstruction(op::kLdcI4, static_cast<int32_t>(skipped_slot)));
    out.push_back(MakeInstruction(0x58 /*add*/));
    out.push_back(MakeInstruction(op::kCall, helper_method_token));
    return out;
  }
  // The address: counters_base + 8 * skipped_slot + 8 * (slot delta), then the increment of Make.
  for (auto i : {MakeInstruction(0x6A /*conv.i8*/), MakeInstruction(0x21 /*ldc.i8*/, int64_t{8}),
                 MakeInstruction(0x5A /*mul*/),
                 MakeInstruction(0x21 /*ldc.i8*/, static_cast<int64_t>(counters_base + 8 * uint64_t(skipped_slot))),
                 MakeInstruction(0x58 /*add*/), MakeInstruction(0xE0 /*conv.u*/)})
    out.push_back(i);
  AppendIncrement(*this, &out);
  return out;
}

bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  const std::vector<BranchProbe>& branch_probes, uint32_t helper_method_token,
                  std::vector<uint8_t>* new_body, std::string* error) {
  return InsertProbes(original_body, probes, branch_probes, ProbeStyle{helper_method_token, 0}, new_body, error);
}

bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  const std::vector<BranchProbe>& branch_probes, const ProbeStyle& style,
                  std::vector<uint8_t>* new_body, std::string* error, std::vector<OffsetMapEntry>* il_map,
                  const ContextWrap* wrap) {
  try {
    if (!new_body) return Fail(error, "no output buffer");
    MethodBody body;
    if (!MethodBody::Decode(original_body, &body, error)) return false;
    ProbeStyle context_style;
    if (style.context.miss_token) {
      // A wrapped test compares with its own id; any other method reads the current test once, on entry.
      context_style = style;
      context_style.context.context_constant = wrap ? int64_t{wrap->context_id} : -1;
      if (!wrap && !style.context.context_locals_token)
        return Fail(error, "no locals signature for the per-test context");
    }
    const ProbeStyle& s = style.context.miss_token ? context_style : style;
    int stack = s.max_stack();
    for (const auto& [offset, slot] : probes) {
      if (!body.InsertBefore(offset, s.Make(slot), error, stack)) return false;
    }
    for (const BranchProbe& b : branch_probes) {
      if (b.operand) {
        std::vector<Instruction> load;
        bool is_or = false;
        if (b.target_slots.size() != 2)
          return Fail(error, "the operand probe at IL offset " + Hex(b.il_offset) + " needs a false and a true slot");
        if (!ShortCircuitOperandAt(body, b.il_offset, &load, &is_or, error)) return false;
        if (!body.InsertBefore(b.il_offset,
                               s.MakeOperand(b.fall_through_slot, b.target_slots[0], b.target_slots[1], load, is_or),
                               error, s.operand_max_stack(), /*reads=*/1))
          return false;
        continue;
      }
      if (b.value) {
        if (b.target_slots.size() != 1)
          return Fail(error, "the value probe at IL offset " + Hex(b.il_offset) + " needs exactly one true slot");
        if (!body.InsertAfterValue(b.il_offset, s.MakeValue(b.fall_through_slot, b.target_slots[0]), error,
                                   s.value_max_stack()))
          return false;
        continue;
      }
      // kNoProbeSlot: the outcome's count is derived (counter_sharing.h), so it gets no probe.
      auto make = [&](uint32_t slot) { return slot == kNoProbeSlot ? std::vector<Instruction>{} : s.Make(slot); };
      bool any = b.fall_through_slot != kNoProbeSlot;
      std::vector<std::vector<Instruction>> targets;
      targets.reserve(b.target_slots.size());
      for (uint32_t slot : b.target_slots) {
        targets.push_back(make(slot));
        any = any || slot != kNoProbeSlot;
      }
      if (!any) continue;
      if (!body.InstrumentBranch(b.il_offset, make(b.fall_through_slot), std::move(targets), error, stack))
        return false;
    }
    if (s.context.miss_token && !wrap && body.has_insertions() &&
        !body.SetEntry({MakeInstruction(op::kCall, s.context.current_token),
                        MakeInstruction(0xFE0E /*stloc*/, s.context.context_local)},
                       s.context.context_locals_token, error))
      return false;
    if (wrap) {
      std::vector<Instruction> enter = {MakeInstruction(op::kLdcI4, static_cast<int32_t>(wrap->context_id)),
                                        MakeInstruction(op::kCall, wrap->enter_token),
                                        MakeInstruction(0xFE0E /*stloc*/, wrap->previous_local)};
      std::vector<Instruction> leave = {MakeInstruction(0xFE0C /*ldloc*/, wrap->previous_local),
                                        MakeInstruction(op::kCall, wrap->exit_token)};
      if (!body.WrapInTryFinally(std::move(enter), std::move(leave), wrap->locals_token, wrap->return_local, error))
        return false;
    }
    std::vector<uint8_t> out;
    std::vector<OffsetMapEntry> map;
    if (!body.Encode(&out, error, il_map ? &map : nullptr)) return false;
    *new_body = std::move(out);
    if (il_map) *il_map = std::move(map);
    return true;
  } catch (...) {
    return Fail(error, "out of memory inserting probes");
  }
}

uint32_t TranslateToOriginal(const std::vector<OffsetMapEntry>& il_map, uint32_t new_offset) {
  constexpr uint32_t kProlog = 0xFFFFFFFE;  // ICorDebugInfo::PROLOG
  if (il_map.empty() || static_cast<int32_t>(new_offset) < 0) return new_offset;
  if (new_offset < il_map.front().new_offset) return kProlog;
  auto it = std::upper_bound(il_map.begin(), il_map.end(), new_offset,
                             [](uint32_t o, const OffsetMapEntry& e) { return o < e.new_offset; });
  return std::prev(it)->old_offset;
}

std::vector<BranchSite> FindBranches(const MethodBody& body) {
  std::vector<BranchSite> out;
  const auto& ins = body.instructions();
  for (size_t i = 0; i + 1 < ins.size(); ++i) {
    const OpcodeInfo* info = LookupOpcode(ins[i].opcode);
    if (!info || info->flow != FlowKind::kCondBranch) continue;
    if (i > 0 && IsPrefix(ins[i - 1].opcode)) continue;
    uint32_t count = ins[i].opcode == op::kSwitch ? static_cast<uint32_t>(ins[i].switch_targets.size()) : 1;
    out.push_back({ins[i].offset, count});
  }
  return out;
}

namespace {

bool IsConstant(uint16_t o) { return o == 0x14 || (o >= 0x15 && o <= 0x21); }  // ldnull, ldc.*
bool IsUnaryBranch(uint16_t o) { return o == 0x2C || o == 0x2D || o == 0x39 || o == 0x3A; }
bool IsBr(uint16_t o) { return o == op::kBrS || o == op::kBr; }
// The local a stloc / ldloc names, or -1.
long StoredLocal(const Instruction& i) {
  if (i.opcode >= 0x0A && i.opcode <= 0x0D) return i.opcode - 0x0A;
  return (i.opcode == 0x13 || i.opcode == 0xFE0E) ? static_cast<long>(i.operand) : -1;
}
long LoadedLocal(const Instruction& i) {
  if (i.opcode >= 0x06 && i.opcode <= 0x09) return i.opcode - 0x06;
  return (i.opcode == 0x11 || i.opcode == 0xFE0C) ? static_cast<long>(i.operand) : -1;
}

// The argument an ldarg names, or -1.
long LoadedArgument(const Instruction& i) {
  if (i.opcode >= 0x02 && i.opcode <= 0x05) return i.opcode - 0x02;
  return (i.opcode == 0x0E || i.opcode == 0xFE09) ? static_cast<long>(i.operand) : -1;
}

// Whether the instruction leaves a bool the last operand of a short-circuit can be: a comparison, a call
// returning bool, a load of a bool local, argument or field.
bool LeavesBool(const Instruction& i, const BoolTypes& types) {
  const uint16_t v = i.opcode;
  if (v >= 0xFE01 && v <= 0xFE05) return true;  // ceq, cgt, cgt.un, clt, clt.un
  const auto known = [](const std::vector<bool>& flags, long index) {
    return index >= 0 && static_cast<size_t>(index) < flags.size() && flags[static_cast<size_t>(index)];
  };
  if (known(types.locals, LoadedLocal(i)) || known(types.arguments, LoadedArgument(i))) return true;
  const bool by_token = v == op::kCall || v == 0x6F /*callvirt*/ || v == 0x7B /*ldfld*/ || v == 0x7E /*ldsfld*/;
  return by_token && types.token_is_bool && types.token_is_bool(static_cast<uint32_t>(i.operand));
}


// Where control can arrive from elsewhere than the instruction before: jump targets, and region boundaries.
struct Arrivals {
  std::set<uint32_t> jumps, regions;
  explicit Arrivals(const MethodBody& body) {
    for (const Instruction& i : body.instructions()) {
      if (IsBranch(i.opcode)) jumps.insert(static_cast<uint32_t>(i.operand));
      for (int32_t t : i.switch_targets) jumps.insert(static_cast<uint32_t>(t));
    }
    for (const ExceptionClause& c : body.clauses()) {
      for (uint32_t o :
           {c.try_offset, c.try_offset + c.try_length, c.handler_offset, c.handler_offset + c.handler_length})
        regions.insert(o);
      if (c.is_filter()) regions.insert(c.class_token_or_filter_offset);
    }
  }
  bool any(uint32_t offset) const { return jumps.count(offset) || regions.count(offset); }
};

constexpr uint16_t kAnd = 0x5F, kOr = 0x60, kLdfld = 0x7B, kLdarg0 = 0x02;

// The first instruction of the right operand loaded right before the `or`/`and` at index k, or -1: a plain
// ldarg/ldloc (when `is_bool` accepts it), `ldarg.0; ldfld F`, or `ldarg N; ldind.u1` / `ldloc N; ldind.u1` (when
// `is_byref_bool` accepts that load).
long OperandStart(const std::vector<Instruction>& ins, size_t k, const std::function<bool(const Instruction&)>& is_bool,
                  const std::function<bool(const Instruction& load)>& is_byref_bool) {
  if (k < 2 || (ins[k].opcode != kAnd && ins[k].opcode != kOr)) return -1;
  const Instruction& r = ins[k - 1];
  if ((LoadedLocal(r) >= 0 || LoadedArgument(r) >= 0) && is_bool(r)) return static_cast<long>(k - 1);
  if (r.opcode == kLdfld && ins[k - 2].opcode == kLdarg0 && k >= 3 && is_bool(r)) return static_cast<long>(k - 2);
  const Instruction& load = ins[k - 2];
  if (r.opcode == 0x47 /*ldind.u1*/ && (LoadedArgument(load) >= 0 || LoadedLocal(load) >= 0) && k >= 3 &&
      is_byref_bool(load))
    return static_cast<long>(k - 2);
  return -1;
}

}  // namespace

std::vector<uint32_t> FindShortCircuitOperands(const MethodBody& body, const BoolTypes& types) {
  const auto& ins = body.instructions();
  const Arrivals arrivals(body);
  const auto is_bool = [&types](const Instruction& i) { return LeavesBool(i, types); };
  const auto flagged = [](const std::vector<bool>& flags, long index) {
    return index >= 0 && static_cast<size_t>(index) < flags.size() && flags[static_cast<size_t>(index)];
  };
  const auto is_byref_bool = [&](const Instruction& load) {
    return flagged(types.byref_arguments, LoadedArgument(load)) || flagged(types.byref_locals, LoadedLocal(load));
  };
  std::vector<uint32_t> out;
  for (size_t k = 2; k + 1 < ins.size(); ++k) {
    long first = OperandStart(ins, k, is_bool, is_byref_bool);
    if (first < 1 || IsPrefix(ins[first - 1].opcode) || arrivals.regions.count(ins[first].offset)) continue;
    bool entered = false;
    for (size_t j = static_cast<size_t>(first) + 1; j <= k; ++j) entered = entered || arrivals.any(ins[j].offset);
    if (!entered) out.push_back(ins[first].offset);
  }
  return out;
}

bool ShortCircuitOperandAt(const MethodBody& body, uint32_t offset, std::vector<Instruction>* load, bool* is_or,
                           std::string* error) {
  const auto& ins = body.instructions();
  long found = body.FindInstruction(offset);
  const auto any = [](const Instruction&) { return true; };
  const auto any_load = [](const Instruction&) { return true; };
  if (found >= 1) {
    const size_t first = static_cast<size_t>(found);
    for (size_t k = first + 1; k <= first + 2 && k < ins.size(); ++k) {
      if (OperandStart(ins, k, any, any_load) != found) continue;
      load->assign(ins.begin() + found, ins.begin() + static_cast<long>(k));
      *is_or = ins[k].opcode == kOr;
      return true;
    }
  }
  return Fail(error, "IL offset " + Hex(offset) + " is not the load of a short circuit's right operand");
}

std::vector<uint32_t> FindValueConditions(const MethodBody& body, const BoolCall& returns_bool) {
  return FindValueConditions(body, BoolTypes{returns_bool, {}, {}, {}, {}});
}

std::vector<uint32_t> FindValueConditions(const MethodBody& body, const BoolTypes& types) {
  const auto& ins = body.instructions();
  const size_t n = ins.size();
  std::set<uint32_t> entered;  // jump targets and region boundaries: where control can arrive from elsewhere
  for (const Instruction& i : ins) {
    if (IsBranch(i.opcode)) entered.insert(static_cast<uint32_t>(i.operand));
    for (int32_t t : i.switch_targets) entered.insert(static_cast<uint32_t>(t));
  }
  for (const ExceptionClause& c : body.clauses()) {
    for (uint32_t o : {c.try_offset, c.try_offset + c.try_length, c.handler_offset, c.handler_offset + c.handler_length})
      entered.insert(o);
    if (c.is_filter()) entered.insert(c.class_token_or_filter_offset);
  }
  auto skip_nops = [&](size_t i) {
    while (i < n && ins[i].opcode == op::kNop) ++i;
    return i;
  };
  auto index_at = [&](int64_t offset) {
    long i = offset < 0 ? -1 : body.FindInstruction(static_cast<uint32_t>(offset));
    return i < 0 ? n : static_cast<size_t>(i);
  };
  // Whether the value leaving at ins[k] reaches brtrue/brfalse through `br`s and `stloc N; ldloc N` (also
  // `stloc N; br J; ... J: ldloc N`, VB Debug's spilled condition after Await).
  auto flows_into_test = [&](size_t k) {
    for (int steps = 0; steps < 8; ++steps) {
      k = skip_nops(k);
      if (k >= n) return false;
      if (IsBr(ins[k].opcode)) {
        k = index_at(ins[k].operand);
        continue;
      }
      long local = StoredLocal(ins[k]);
      if (local >= 0) {
        size_t m = skip_nops(k + 1);
        if (m < n && IsBr(ins[m].opcode)) m = skip_nops(index_at(ins[m].operand));
        if (m >= n || LoadedLocal(ins[m]) != local) return false;
        k = m + 1;
        continue;
      }
      return IsUnaryBranch(ins[k].opcode);
    }
    return false;
  };
  auto leaves_one_value = [&](const Instruction& i) {
    const OpcodeInfo* info = LookupOpcode(i.opcode);
    return info && !IsConstant(i.opcode) && !IsPrefix(i.opcode) &&
           (info->pushes == 1 || (info->flow == FlowKind::kCall && i.opcode != op::kJmp)) &&
           (info->flow == FlowKind::kNext || info->flow == FlowKind::kCall);
  };
  std::map<uint32_t, int> jumps_to;  // how many branches / switch entries target each offset
  for (const Instruction& i : ins) {
    if (IsBranch(i.opcode)) ++jumps_to[static_cast<uint32_t>(i.operand)];
    for (int32_t t : i.switch_targets) ++jumps_to[static_cast<uint32_t>(t)];
  }
  std::set<uint32_t> out;
  // The operand computed from ins[start] on in straight-line code nothing else enters (ins[start] itself may be
  // entered only by the short circuit's branch), its value leaving by br, ret or stloc.
  auto operand_from = [&](size_t start) {
    for (size_t j = start; j + 1 < n; ++j) {
      if (j > start && entered.count(ins[j].offset)) return;
      const OpcodeInfo* ji = LookupOpcode(ins[j].opcode);
      if (!ji || (ji->flow != FlowKind::kNext && ji->flow != FlowKind::kCall)) return;
      const Instruction& next = ins[j + 1];
      if (!IsBr(next.opcode) && next.opcode != op::kRet && StoredLocal(next) < 0) continue;
      if (LeavesBool(ins[j], types) && !entered.count(next.offset) && leaves_one_value(ins[j]) &&
          !IsPrefix(ins[j > 0 ? j - 1 : 0].opcode) && !flows_into_test(j + 1))
        out.insert(ins[j].offset);
      return;
    }
  };
  // Short-circuit operands: bCC -> `ldc.i4.0/1`, the fall-through computing the last operand.
  for (size_t b = 0; b + 1 < n; ++b) {
    const OpcodeInfo* info = LookupOpcode(ins[b].opcode);
    if (!info || info->flow != FlowKind::kCondBranch || ins[b].opcode == op::kSwitch) continue;
    if (b > 0 && IsPrefix(ins[b - 1].opcode)) continue;
    size_t t = skip_nops(index_at(ins[b].operand));
    const bool constant_target = t < n && (ins[t].opcode == 0x16 || ins[t].opcode == 0x17);
    if (constant_target) {
      if (!entered.count(ins[b + 1].offset)) operand_from(b + 1);  // only B enters the operand
      continue;
    }
    // F# (`x < 0 || flag`: `bge T; ldc.i4.1; ret; T: ldarg flag; ret`): the constant falls through, the operand
    // is the target, which only B enters and nothing falls into.
    const size_t f = skip_nops(b + 1);
    const size_t target = index_at(ins[b].operand);
    if (f + 1 < n && (ins[f].opcode == 0x16 || ins[f].opcode == 0x17) &&
        (IsBr(ins[f + 1].opcode) || ins[f + 1].opcode == op::kRet) && target < n && target > f + 1 &&
        jumps_to[ins[target].offset] == 1 && !IsPrefix(ins[target - 1].opcode)) {
      const OpcodeInfo* before = LookupOpcode(ins[target - 1].opcode);
      const bool falls_in = before && (before->flow == FlowKind::kNext || before->flow == FlowKind::kCall ||
                                       before->flow == FlowKind::kCondBranch);
      bool region = false;
      for (const ExceptionClause& c : body.clauses())
        for (uint32_t o : {c.try_offset, c.try_offset + c.try_length, c.handler_offset,
                           c.handler_offset + c.handler_length, c.class_token_or_filter_offset})
          region = region || o == ins[target].offset;
      if (!falls_in && !region) operand_from(target);
    }
  }
  // Exception filters: `<value> [stloc N; ldloc N;] ldc.i4.0; cgt.un; endfilter`.
  for (const ExceptionClause& c : body.clauses()) {
    if (!c.is_filter()) continue;
    size_t h = index_at(c.handler_offset);
    if (h >= n || h < 4) continue;
    size_t e = h - 1;
    if (ins[e].opcode != 0xFE11 || ins[e - 1].opcode != 0xFE03 || ins[e - 2].opcode != 0x16) continue;
    if (entered.count(ins[e - 1].offset) || entered.count(ins[e - 2].offset)) continue;
    size_t p = e - 3;
    if (p >= 1 && LoadedLocal(ins[p]) >= 0 && StoredLocal(ins[p - 1]) == LoadedLocal(ins[p]) &&
        !entered.count(ins[p].offset)) {
      if (p < 2 || entered.count(ins[p - 1].offset)) continue;
      p -= 2;
    }
    if (ins[p].offset < c.class_token_or_filter_offset || entered.count(ins[p + 1].offset)) continue;
    if (p > 0 && IsPrefix(ins[p - 1].opcode)) continue;
    if (leaves_one_value(ins[p])) out.insert(ins[p].offset);
  }
  return {out.begin(), out.end()};
}

bool Verify(const MethodBody& body, std::string* error, const VerifyOptions& options) {
  try {
    if (!body.has_insertions()) return VerifyDecoded(body, options, error);
    std::vector<uint8_t> bytes;
    if (!body.Encode(&bytes, error)) return false;
    MethodBody decoded;
    if (!MethodBody::Decode(bytes, &decoded, error)) return false;
    return VerifyDecoded(decoded, options, error);
  } catch (...) {
    return Fail(error, "exception while verifying");
  }
}

}  // namespace dotcov::il
