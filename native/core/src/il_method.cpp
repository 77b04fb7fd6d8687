#include "dotcov/il_method.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <limits>

namespace dotcov::il {
namespace {

constexpr uint16_t kFatFormat = 0x3;
constexpr uint16_t kTinyFormat = 0x2;
constexpr uint16_t kMoreSects = 0x8;
constexpr uint16_t kInitLocals = 0x10;
constexpr uint8_t kSectEHTable = 0x01;
constexpr uint8_t kSectKindMask = 0x3F;
constexpr uint8_t kSectFatFormat = 0x40;
constexpr uint8_t kSectMoreSects = 0x80;
constexpr uint32_t kSmallClauseSize = 12;
constexpr uint32_t kFatClauseSize = 24;
constexpr uint32_t kMaxSmallClauses = (0xFF - 4) / kSmallClauseSize;  // 20
constexpr uint32_t kMaxFatClauses = (0xFFFFFF - 4) / kFatClauseSize;
constexpr uint64_t kMaxCodeSize = 0x7FFFFFFF;

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

uint64_t Align4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

void PutU8(std::vector<uint8_t>* out, uint8_t v) { out->push_back(v); }
void PutU16(std::vector<uint8_t>* out, uint16_t v) {
  out->push_back(static_cast<uint8_t>(v));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64(std::vector<uint8_t>* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

bool FitsSmall(const ExceptionClause& c) {
  return c.flags <= 0xFFFF && c.try_offset <= 0xFFFF && c.try_length <= 0xFF && c.handler_offset <= 0xFFFF &&
         c.handler_length <= 0xFF;
}

bool DecodeCode(Bytes code, std::vector<Instruction>* out, std::string* error) {
  ByteReader r(code);
  while (r.pos() < code.size()) {
    Instruction ins;
    ins.offset = static_cast<uint32_t>(r.pos());
    uint8_t b = r.U8();
    uint16_t opcode = b;
    if (b == 0xFE) {
      uint8_t b2;
      if (!r.Read(&b2)) return Fail(error, "truncated two-byte opcode" + At(ins.offset));
      opcode = static_cast<uint16_t>(0xFE00 | b2);
    }
    const OpcodeInfo* info = LookupOpcode(opcode);
    if (!info) return Fail(error, "undefined opcode " + Hex(opcode) + At(ins.offset));
    ins.opcode = opcode;
    bool ok = true;
    switch (info->operand) {
      case OperandKind::kNone:
        break;
      case OperandKind::kInt8: {
        uint8_t v = 0;
        ok = r.Read(&v);
        ins.operand = static_cast<int8_t>(v);
        break;
      }
      case OperandKind::kUInt8: {
        uint8_t v = 0;
        ok = r.Read(&v);
        ins.operand = v;
        break;
      }
      case OperandKind::kUInt16: {
        uint16_t v = 0;
        ok = r.Read(&v);
        ins.operand = v;
        break;
      }
      case OperandKind::kInt32: {
        uint32_t v = 0;
        ok = r.Read(&v);
        ins.operand = static_cast<int32_t>(v);
        break;
      }
      case OperandKind::kFloat32:
      case OperandKind::kToken: {
        uint32_t v = 0;
        ok = r.Read(&v);
        ins.operand = v;
        break;
      }
      case OperandKind::kInt64:
      case OperandKind::kFloat64: {
        uint64_t v = 0;
        ok = r.Read(&v);
        ins.operand = static_cast<int64_t>(v);
        break;
      }
      case OperandKind::kBranchShort: {
        uint8_t v = 0;
        ok = r.Read(&v);
        ins.operand = static_cast<int64_t>(r.pos()) + static_cast<int8_t>(v);
        break;
      }
      case OperandKind::kBranchLong: {
        uint32_t v = 0;
        ok = r.Read(&v);
        ins.operand = static_cast<int64_t>(r.pos()) + static_cast<int32_t>(v);
        break;
      }
      case OperandKind::kSwitch: {
        uint32_t n = 0;
        ok = r.Read(&n);
        if (!ok) break;
        if (uint64_t{n} * 4 > r.remaining()) {
          ok = false;
          break;
        }
        uint32_t end = static_cast<uint32_t>(r.pos() + uint64_t{n} * 4);
        ins.switch_targets.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
          uint32_t rel = r.U32();
          ins.switch_targets[i] = static_cast<int32_t>(end + rel);
        }
        break;
      }
    }
    if (!ok) return Fail(error, std::string("truncated operand of ") + info->name + At(ins.offset));
    out->push_back(std::move(ins));
  }
  return true;
}

bool DecodeSections(Bytes body, uint64_t start, std::vector<ExceptionClause>* clauses,
                    std::vector<EhSectionForm>* forms, std::string* error) {
  uint64_t pos = start;
  bool more = true;
  while (more) {
    if (pos > body.size() || body.size() - pos < 4) return Fail(error, "truncated extra data section header");
    uint8_t kind = body[pos];
    if ((kind & kSectKindMask) != kSectEHTable)
      return Fail(error, "unsupported extra data section kind " + Hex(kind));
    bool fat = (kind & kSectFatFormat) != 0;
    uint32_t data_size = fat ? (uint32_t{body[pos + 1]} | uint32_t{body[pos + 2]} << 8 | uint32_t{body[pos + 3]} << 16)
                             : body[pos + 1];
    if (data_size < 4) return Fail(error, "exception section size " + Hex(data_size) + " too small");
    if (body.size() - pos < data_size) return Fail(error, "truncated exception section");
    uint32_t clause_size = fat ? kFatClauseSize : kSmallClauseSize;
    uint32_t n = (data_size - 4) / clause_size;
    ByteReader r(body.subspan(pos + 4, data_size - 4));
    for (uint32_t i = 0; i < n; ++i) {
      ExceptionClause c;
      if (fat) {
        c.flags = r.U32();
        c.try_offset = r.U32();
        c.try_length = r.U32();
        c.handler_offset = r.U32();
        c.handler_length = r.U32();
      } else {
        c.flags = r.U16();
        c.try_offset = r.U16();
        c.try_length = r.U8();
        c.handler_offset = r.U16();
        c.handler_length = r.U8();
      }
      c.class_token_or_filter_offset = r.U32();
      if (!r.ok()) return Fail(error, "truncated exception clause");
      clauses->push_back(c);
    }
    forms->push_back({fat, n});
    more = (kind & kSectMoreSects) != 0;
    pos = Align4(pos + data_size);
  }
  return true;
}

void WriteInstruction(const Instruction& ins, uint16_t opcode, int64_t branch_rel, const std::vector<int64_t>& switch_rel,
                      std::vector<uint8_t>* out) {
  if (OpcodeByteSize(opcode) == 2) PutU8(out, 0xFE);
  PutU8(out, static_cast<uint8_t>(opcode));
  const OpcodeInfo* info = LookupOpcode(opcode);
  switch (info->operand) {
    case OperandKind::kNone: break;
    case OperandKind::kInt8:
    case OperandKind::kUInt8: PutU8(out, static_cast<uint8_t>(ins.operand)); break;
    case OperandKind::kUInt16: PutU16(out, static_cast<uint16_t>(ins.operand)); break;
    case OperandKind::kInt32:
    case OperandKind::kFloat32:
    case OperandKind::kToken: PutU32(out, static_cast<uint32_t>(ins.operand)); break;
    case OperandKind::kInt64:
    case OperandKind::kFloat64: PutU64(out, static_cast<uint64_t>(ins.operand)); break;
    case OperandKind::kBranchShort: PutU8(out, static_cast<uint8_t>(static_cast<int8_t>(branch_rel))); break;
    case OperandKind::kBranchLong: PutU32(out, static_cast<uint32_t>(static_cast<int32_t>(branch_rel))); break;
    case OperandKind::kSwitch:
      PutU32(out, static_cast<uint32_t>(switch_rel.size()));
      for (int64_t rel : switch_rel) PutU32(out, static_cast<uint32_t>(rel));
      break;
  }
}

}  // namespace

uint32_t Instruction::Size() const {
  const OpcodeInfo* info = LookupOpcode(opcode);
  if (!info) return 0;
  uint32_t n = OpcodeByteSize(opcode);
  if (info->operand == OperandKind::kSwitch) return n + 4 + 4 * static_cast<uint32_t>(switch_targets.size());
  return n + static_cast<uint32_t>(OperandSize(info->operand));
}

long MethodBody::FindInstruction(uint32_t offset) const {
  auto it = std::lower_bound(instructions_.begin(), instructions_.end(), offset,
                             [](const Instruction& ins, uint32_t o) { return ins.offset < o; });
  if (it == instructions_.end() || it->offset != offset) return -1;
  return static_cast<long>(it - instructions_.begin());
}

bool MethodBody::Decode(Bytes body, MethodBody* out, std::string* error) {
  try {
    return DecodeImpl(body, out, error);
  } catch (...) {
    return Fail(error, "out of memory decoding method body");
  }
}

bool MethodBody::DecodeImpl(Bytes body, MethodBody* out, std::string* error) {
  if (!out) return Fail(error, "no output body");
  MethodBody m;
  if (body.empty()) return Fail(error, "empty method body");
  uint64_t header_size;
  bool more_sects = false;
  uint8_t b0 = body[0];
  if ((b0 & 0x3) == kTinyFormat) {
    header_size = 1;
    m.fat_header_ = false;
    m.max_stack_ = 8;
    m.code_size_ = b0 >> 2;
  } else if ((b0 & 0x3) == kFatFormat) {
    ByteReader r(body);
    uint16_t flags_size = r.U16();
    m.max_stack_ = r.U16();
    m.code_size_ = r.U32();
    m.local_var_sig_token_ = r.U32();
    if (!r.ok()) return Fail(error, "truncated fat method header");
    if ((flags_size >> 12) != 3) return Fail(error, "fat method header size is not 3 dwords");
    header_size = 12;
    m.fat_header_ = true;
    m.header_flags_ = flags_size & 0x0FFF;
    m.init_locals_ = (m.header_flags_ & kInitLocals) != 0;
    more_sects = (m.header_flags_ & kMoreSects) != 0;
  } else {
    return Fail(error, "invalid method header format " + Hex(b0 & 0x3));
  }
  if (m.code_size_ > kMaxCodeSize) return Fail(error, "code size too large");
  if (body.size() - header_size < m.code_size_) return Fail(error, "method body truncated: code extends past the end");
  if (!DecodeCode(body.subspan(header_size, m.code_size_), &m.instructions_, error)) return false;
  if (more_sects &&
      !DecodeSections(body, Align4(header_size + m.code_size_), &m.clauses_, &m.eh_sections_, error))
    return false;
  *out = std::move(m);
  return true;
}

bool MethodBody::InsertBefore(uint32_t original_offset, std::vector<Instruction> probe, std::string* error,
                              int probe_max_stack, int reads) {
  try {
    return InsertBeforeImpl(original_offset, probe, error, probe_max_stack, reads);
  } catch (...) {
    return Fail(error, "out of memory inserting a probe");
  }
}

long MethodBody::InsertionPoint(uint32_t original_offset, std::string* error) const {
  long idx = FindInstruction(original_offset);
  if (idx < 0) {
    Fail(error, "IL offset " + Hex(original_offset) + " is not an instruction boundary");
    return -1;
  }
  if (idx > 0 && IsPrefix(instructions_[idx - 1].opcode)) {
    Fail(error, "IL offset " + Hex(original_offset) + " follows a prefix");
    return -1;
  }
  if (instructions_[idx].opcode == op::kRet && idx > 0 && IsCallFamily(instructions_[idx - 1].opcode)) {
    for (long j = idx - 2; j >= 0 && IsPrefix(instructions_[j].opcode); --j) {
      if (instructions_[j].opcode == op::kTail) {
        Fail(error, "IL offset " + Hex(original_offset) + " is the ret of a tail call");
        return -1;
      }
    }
  }
  return idx;
}

namespace {

// Checks a probe (see InsertBefore), stamps its instructions with `offset` and
// returns its peak stack depth in *peak.
// `reads`: values already on the stack the probe may pop, provided it leaves them as it found them
// (a value probe's `dup`); the peak counts only what the probe adds above them.
bool CheckProbe(std::vector<Instruction>& probe, uint32_t offset, int probe_max_stack, int* peak_out,
                std::string* error, int reads = 0) {
  int depth = reads, peak = reads;
  bool known = true;
  std::map<size_t, int> landing;  // probe index a skip lands on (size() = the end) -> depth there
  for (size_t k = 0; k < probe.size(); ++k) {
    Instruction& ins = probe[k];
    auto land = landing.find(k);
    if (land != landing.end() && known && land->second != depth)
      return Fail(error, "probe skip lands at another stack depth");
    const OpcodeInfo* info = LookupOpcode(ins.opcode);
    if (!info) return Fail(error, "probe contains undefined opcode " + Hex(ins.opcode));
    const bool skip = info->flow == FlowKind::kCondBranch && ins.opcode != op::kSwitch && ins.operand >= kProbeSkip;
    if (skip && uint64_t(ins.operand - kProbeSkip) > probe.size() - k - 1)
      return Fail(error, "probe skip leaves the probe");
    if (!skip && (info->flow == FlowKind::kMeta || ins.opcode == op::kJmp ||
                  (info->flow != FlowKind::kNext && info->flow != FlowKind::kCall)))
      return Fail(error, std::string("probe contains ") + info->name + ", which does not simply fall through");
    if (info->operand == OperandKind::kSwitch || !ins.switch_targets.empty())
      return Fail(error, "probe contains a switch table");
    if (info->pops >= 0) {
      if (info->pops > depth && known)
        return Fail(error, std::string("probe ") + info->name + " pops values the probe did not push");
      depth = std::max(0, depth - info->pops);
      depth += info->pushes;
    } else {
      known = false;  // call family: count as pop 0, push 1 (an upper bound for the peak)
      depth += 1;
    }
    peak = std::max(peak, depth);
    ins.offset = offset;
    if (skip) landing[k + 1 + size_t(ins.operand - kProbeSkip)] = depth;
  }
  auto land = landing.find(probe.size());
  if (land != landing.end() && known && land->second != depth)
    return Fail(error, "probe skip lands at another stack depth");
  if (known && depth != reads) return Fail(error, "probe is not stack neutral");
  peak -= reads;
  if (probe.empty()) peak = 0;
  else if (probe_max_stack >= 0) peak = probe_max_stack;
  if (peak > 0xFFFF) return Fail(error, "probe stack need too large");
  *peak_out = peak;
  return true;
}

}  // namespace

bool MethodBody::InsertBeforeImpl(uint32_t original_offset, std::vector<Instruction>& probe, std::string* error,
                                  int probe_max_stack, int reads) {
  long idx = InsertionPoint(original_offset, error);
  if (idx < 0) return false;
  if (probe.empty()) return true;
  int peak = 0;
  if (!CheckProbe(probe, original_offset, probe_max_stack, &peak, error, reads)) return false;
  auto& slot = inserts_[static_cast<size_t>(idx)];
  slot.insert(slot.end(), probe.begin(), probe.end());
  probe_stack_ = static_cast<uint16_t>(std::max<int>(probe_stack_, peak));
  return true;
}

bool MethodBody::InsertAfterValue(uint32_t original_offset, std::vector<Instruction> probe, std::string* error,
                                  int probe_max_stack) {
  try {
    long found = FindInstruction(original_offset);
    if (found < 0) return Fail(error, "IL offset " + Hex(original_offset) + " is not an instruction boundary");
    const size_t idx = static_cast<size_t>(found);
    if (idx > 0 && IsPrefix(instructions_[idx - 1].opcode))
      return Fail(error, "IL offset " + Hex(original_offset) + " follows a prefix");
    const OpcodeInfo* info = LookupOpcode(instructions_[idx].opcode);
    const bool one_value = info && (info->pushes == 1 || (info->flow == FlowKind::kCall && info->pushes == kVaries &&
                                                           instructions_[idx].opcode != op::kJmp));
    if (!one_value || IsPrefix(instructions_[idx].opcode) ||
        (info->flow != FlowKind::kNext && info->flow != FlowKind::kCall))
      return Fail(error, "IL offset " + Hex(original_offset) + " does not leave one value and fall through");
    if (idx + 1 >= instructions_.size()) return Fail(error, "the value at " + Hex(original_offset) + " ends the code");
    // The probe must run only on this instruction's own edge: nothing else may enter, and no region may start or
    // end, at the instruction after it.
    const uint32_t next = instructions_[idx + 1].offset;
    for (const Instruction& ins : instructions_) {
      bool enters = IsBranch(ins.opcode) && static_cast<uint64_t>(ins.operand) == next;
      for (int32_t t : ins.switch_targets) enters = enters || static_cast<uint32_t>(t) == next;
      if (enters) return Fail(error, "the instruction after the value at " + Hex(original_offset) + " is a jump target");
    }
    for (const ExceptionClause& c : clauses_) {
      if (c.try_offset == next || c.try_offset + c.try_length == next || c.handler_offset == next ||
          c.handler_offset + c.handler_length == next || (c.is_filter() && c.class_token_or_filter_offset == next))
        return Fail(error, "an exception region starts or ends after the value at " + Hex(original_offset));
    }
    int peak = 0;
    if (!CheckProbe(probe, next, probe_max_stack, &peak, error, 1)) return false;
    auto& slot = inserts_[idx + 1];
    slot.insert(slot.end(), probe.begin(), probe.end());
    probe_stack_ = static_cast<uint16_t>(std::max<int>(probe_stack_, peak));
    return true;
  } catch (...) {
    return Fail(error, "out of memory inserting a value probe");
  }
}

bool MethodBody::InstrumentBranch(uint32_t original_offset, std::vector<Instruction> fall_through_probe,
                                  std::vector<std::vector<Instruction>> target_probes, std::string* error,
                                  int probe_max_stack) {
  try {
    return InstrumentBranchImpl(original_offset, fall_through_probe, target_probes, error, probe_max_stack);
  } catch (...) {
    return Fail(error, "out of memory instrumenting a branch");
  }
}

bool MethodBody::InstrumentBranchImpl(uint32_t original_offset, std::vector<Instruction>& fall_through_probe,
                                      std::vector<std::vector<Instruction>>& target_probes, std::string* error,
                                      int probe_max_stack) {
  long found = FindInstruction(original_offset);
  if (found < 0) return Fail(error, "IL offset " + Hex(original_offset) + " is not an instruction boundary");
  const size_t idx = static_cast<size_t>(found);
  const Instruction& branch = instructions_[idx];
  const OpcodeInfo* info = LookupOpcode(branch.opcode);
  if (!info || info->flow != FlowKind::kCondBranch)
    return Fail(error, "IL offset " + Hex(original_offset) + " is not a conditional branch or switch");
  if (idx > 0 && IsPrefix(instructions_[idx - 1].opcode))
    return Fail(error, "IL offset " + Hex(original_offset) + " follows a prefix");
  if (idx + 1 >= instructions_.size())
    return Fail(error, "the branch at IL offset " + Hex(original_offset) + " is the last instruction");
  size_t targets = branch.opcode == op::kSwitch ? branch.switch_targets.size() : 1;
  if (target_probes.size() != targets)
    return Fail(error, "the branch at IL offset " + Hex(original_offset) + " has " + std::to_string(targets) +
                           " targets, " + std::to_string(target_probes.size()) + " target probes given");
  if (branches_.count(idx))
    return Fail(error, "the branch at IL offset " + Hex(original_offset) + " is already instrumented");
  int peak = 0, p = 0;
  if (!CheckProbe(fall_through_probe, original_offset, probe_max_stack, &p, error)) return false;
  peak = std::max(peak, p);
  for (auto& probe : target_probes) {
    if (!CheckProbe(probe, original_offset, probe_max_stack, &p, error)) return false;
    peak = std::max(peak, p);
  }
  BranchProbes& b = branches_[idx];
  b.fall_through = std::move(fall_through_probe);
  b.targets = std::move(target_probes);
  probe_stack_ = static_cast<uint16_t>(std::max<int>(probe_stack_, peak));
  return true;
}

bool MethodBody::SetEntry(std::vector<Instruction> prologue, uint32_t locals_token, std::string* error) {
  try {
    if (wrap_) return Fail(error, "the method is wrapped");
    if (entry_) return Fail(error, "the method already has an entry");
    int peak = 0;
    for (const Instruction& ins : prologue)
      if (IsBranch(ins.opcode)) return Fail(error, "entry prologue contains a branch");
    if (!CheckProbe(prologue, 0, -1, &peak, error)) return false;
    entry_ = Entry{std::move(prologue), locals_token, peak};
    return true;
  } catch (...) {
    return Fail(error, "out of memory setting the entry");
  }
}

bool MethodBody::WrapInTryFinally(std::vector<Instruction> prologue, std::vector<Instruction> finally_body,
                                  uint32_t locals_token, int32_t return_local, std::string* error) {
  try {
    if (wrap_) return Fail(error, "the method is already wrapped");
    if (entry_) return Fail(error, "the method has an entry");
    if (return_local > 0xFFFE) return Fail(error, "return local index too large");
    for (const Instruction& ins : instructions_) {
      if (ins.opcode == op::kTail) return Fail(error, "a tail call cannot leave a try block");
      if (ins.opcode == op::kJmp) return Fail(error, "jmp cannot leave a try block");
      if (ins.opcode == 0xFE0F) return Fail(error, "localloc in the body");
      if (ins.opcode != op::kRet) continue;
      for (const ExceptionClause& c : clauses_) {
        auto in = [&](uint64_t start, uint64_t length) { return ins.offset >= start && ins.offset < start + length; };
        if (in(c.try_offset, c.try_length) || in(c.handler_offset, c.handler_length))
          return Fail(error, "ret inside an exception region" + At(ins.offset));
      }
    }
    int peak = 0;
    if (!CheckProbe(prologue, 0, -1, &peak, error) || !CheckProbe(finally_body, 0, -1, &peak, error)) return false;
    wrap_ = Wrap{std::move(prologue), std::move(finally_body), locals_token, return_local};
    return true;
  } catch (...) {
    return Fail(error, "out of memory wrapping the method");
  }
}

struct MethodBody::Laid {
  std::vector<uint8_t> code;
  std::vector<ExceptionClause> clauses;
  std::vector<OffsetMapEntry> il_map;  // one entry per decoded instruction
  uint16_t max_stack = 0;
};

bool MethodBody::LayOut(Laid* out, std::string* error) const {
  if (inserts_.empty() && branches_.empty() && !wrap_ && !entry_) {
    // Unmodified: re-emit exactly what was decoded.
    for (const Instruction& ins : instructions_) {
      const OpcodeInfo* info = LookupOpcode(ins.opcode);
      if (!info) return Fail(error, "undefined opcode " + Hex(ins.opcode));
      int64_t end = int64_t{ins.offset} + ins.Size();
      // Decoded branch operands lie within end +- 2^31, so this cannot overflow.
      int64_t rel = IsBranch(ins.opcode) ? ins.operand - end : 0;
      if (info->operand == OperandKind::kBranchShort && (rel < -128 || rel > 127))
        return Fail(error, "short branch out of range" + At(ins.offset));
      if (info->operand == OperandKind::kBranchLong && (rel < INT32_MIN || rel > INT32_MAX))
        return Fail(error, "branch out of range" + At(ins.offset));
      std::vector<int64_t> switch_rel;
      for (int32_t t : ins.switch_targets)
        switch_rel.push_back(static_cast<int32_t>(static_cast<uint32_t>(t) - static_cast<uint32_t>(end)));
      WriteInstruction(ins, ins.opcode, rel, switch_rel, &out->code);
      out->il_map.push_back({ins.offset, ins.offset});
    }
    out->clauses = clauses_;
    out->max_stack = max_stack_;
    return true;
  }

  // The new sequence, with each original instruction preceded by its probes
  // and each instrumented branch followed by its outcome blocks.
  std::deque<Instruction> synthetic;  // the inserted `br`s (stable addresses)
  std::vector<const Instruction*> seq;
  std::vector<bool> fixed;  // targets come from `fixups`, not from the operand
  enum class Ref { kSequence, kOriginalIndex, kOriginalOffset };
  struct Fixup {
    size_t entry;  // sequence index of the branch / switch
    size_t k;      // switch entry (0 for a branch)
    Ref ref;
    uint64_t value;
  };
  std::vector<Fixup> fixups;
  std::vector<size_t> label_of(instructions_.size());  // original index -> first sequence index of its group
  seq.reserve(instructions_.size());
  auto push = [&](const Instruction* ins, bool has_fixups) {
    if (!has_fixups && IsBranch(ins->opcode) && ins->operand >= kProbeSkip) {  // a probe's skip (CheckProbe)
      fixups.push_back({seq.size(), 0, Ref::kSequence, seq.size() + 1 + static_cast<uint64_t>(ins->operand - kProbeSkip)});
      has_fixups = true;
    }
    seq.push_back(ins);
    fixed.push_back(has_fixups);
  };
  auto push_br = [&](uint32_t offset, Ref ref, uint64_t value) {
    synthetic.push_back(MakeInstruction(op::kBrS));
    synthetic.back().offset = offset;
    fixups.push_back({seq.size(), 0, ref, value});
    push(&synthetic.back(), true);
  };
  std::vector<size_t> leaves;  // fixups of the `leave EXIT`s that replace rets (wrapped bodies)
  if (wrap_)
    for (const Instruction& p : wrap_->prologue) push(&p, false);
  if (entry_)
    for (const Instruction& p : entry_->prologue) push(&p, false);
  for (size_t i = 0; i < instructions_.size(); ++i) {
    label_of[i] = seq.size();
    auto it = inserts_.find(i);
    if (it != inserts_.end())
      for (const Instruction& p : it->second) push(&p, false);
    const Instruction& ins = instructions_[i];
    if (wrap_ && ins.opcode == op::kRet) {
      if (wrap_->return_local >= 0) {
        synthetic.push_back(MakeInstruction(0xFE0E /*stloc*/, wrap_->return_local));
        synthetic.back().offset = ins.offset;
        push(&synthetic.back(), false);
      }
      synthetic.push_back(MakeInstruction(op::kLeaveS));
      synthetic.back().offset = ins.offset;
      leaves.push_back(fixups.size());
      fixups.push_back({seq.size(), 0, Ref::kSequence, 0});
      push(&synthetic.back(), true);
      continue;
    }
    auto bit = branches_.find(i);
    if (bit == branches_.end()) {
      push(&ins, false);
      continue;
    }
    // bCC T0 / switch (T0..); <fall-through probe>; br NEXT; Tk: <target probe k>; br Lk; ... NEXT:
    // An outcome with an empty probe (its count derived elsewhere, counter_sharing.h) gets no block: a target
    // edge goes straight to the original target; the fall-through needs its `br NEXT` only when blocks follow.
    const BranchProbes& bp = bit->second;
    const size_t at = seq.size();
    push(&ins, true);
    for (const Instruction& p : bp.fall_through) push(&p, false);
    bool blocks_follow = bp.targets.empty();  // (an empty switch table keeps its `br NEXT`, as before)
    for (const auto& t : bp.targets) blocks_follow = blocks_follow || !t.empty();
    if (blocks_follow) push_br(ins.offset, Ref::kOriginalIndex, i + 1);
    for (size_t k = 0; k < bp.targets.size(); ++k) {
      uint64_t target = ins.opcode == op::kSwitch ? uint64_t{static_cast<uint32_t>(ins.switch_targets[k])}
                        : ins.operand < 0         ? UINT64_MAX
                                                  : static_cast<uint64_t>(ins.operand);
      if (bp.targets[k].empty()) {
        fixups.push_back({at, k, Ref::kOriginalOffset, target});
        continue;
      }
      fixups.push_back({at, k, Ref::kSequence, seq.size()});
      for (const Instruction& p : bp.targets[k]) push(&p, false);
      push_br(ins.offset, Ref::kOriginalOffset, target);
    }
  }
  // Wrapped: the finally handler, then EXIT, after the original code.
  size_t code_end = seq.size(), exit_at = seq.size();
  if (wrap_) {
    uint32_t last = instructions_.empty() ? 0 : instructions_.back().offset;
    for (const Instruction& p : wrap_->finally_body) push(&p, false);
    synthetic.push_back(MakeInstruction(op::kEndfinally));
    synthetic.back().offset = last;
    push(&synthetic.back(), false);
    exit_at = seq.size();
    if (wrap_->return_local >= 0) {
      synthetic.push_back(MakeInstruction(0xFE0C /*ldloc*/, wrap_->return_local));
      synthetic.back().offset = last;
      push(&synthetic.back(), false);
    }
    synthetic.push_back(MakeInstruction(op::kRet));
    synthetic.back().offset = last;
    push(&synthetic.back(), false);
    for (size_t f : leaves) fixups[f].value = exit_at;
  }
  std::vector<uint16_t> opcodes;
  for (const Instruction* ins : seq) opcodes.push_back(ins->opcode);
  const size_t n = seq.size();

  // Original offset -> sequence index; the end of the original code maps to
  // code_end (n, or the wrapper's handler start).
  auto resolve = [&](uint64_t target, bool allow_end, size_t* label) {
    if (allow_end && target == code_size_) {
      *label = code_end;
      return true;
    }
    if (target > UINT32_MAX) return false;
    long idx = FindInstruction(static_cast<uint32_t>(target));
    if (idx < 0) return false;
    *label = label_of[static_cast<size_t>(idx)];
    return true;
  };

  std::vector<size_t> branch_label(n, 0);
  std::vector<std::vector<size_t>> switch_labels(n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = *seq[i];
    const OpcodeInfo* info = LookupOpcode(ins.opcode);
    if (!info) return Fail(error, "undefined opcode " + Hex(ins.opcode));
    if (fixed[i]) {
      if (info->operand == OperandKind::kSwitch) switch_labels[i].resize(ins.switch_targets.size());
      continue;
    }
    if (IsBranch(ins.opcode)) {
      if (ins.operand < 0 || !resolve(static_cast<uint64_t>(ins.operand), false, &branch_label[i]))
        return Fail(error, "branch target " + Hex(static_cast<uint64_t>(ins.operand)) +
                               " is not an instruction boundary" + At(ins.offset));
    } else if (info->operand == OperandKind::kSwitch) {
      for (int32_t t : ins.switch_targets) {
        size_t label;
        if (!resolve(static_cast<uint32_t>(t), false, &label))
          return Fail(error, "switch target " + Hex(static_cast<uint32_t>(t)) + " is not an instruction boundary" +
                                 At(ins.offset));
        switch_labels[i].push_back(label);
      }
    }
  }
  for (const Fixup& f : fixups) {
    size_t label = 0;
    switch (f.ref) {
      case Ref::kSequence: label = static_cast<size_t>(f.value); break;
      case Ref::kOriginalIndex: label = label_of[static_cast<size_t>(f.value)]; break;
      case Ref::kOriginalOffset:
        if (!resolve(f.value, false, &label))
          return Fail(error, "branch target " + Hex(f.value) + " is not an instruction boundary" +
                                 At(seq[f.entry]->offset));
        break;
    }
    if (IsBranch(seq[f.entry]->opcode))
      branch_label[f.entry] = label;
    else
      switch_labels[f.entry][f.k] = label;
  }

  // Widen short branches until every displacement fits.
  std::vector<uint64_t> off(n + 1, 0);
  for (;;) {
    uint64_t pos = 0;
    for (size_t i = 0; i < n; ++i) {
      off[i] = pos;
      // A widened short branch keeps its one-byte opcode; its displacement grows from 1 to 4 bytes.
      pos += seq[i]->Size() + (opcodes[i] != seq[i]->opcode ? 3 : 0);
    }
    off[n] = pos;
    if (pos > kMaxCodeSize) return Fail(error, "rewritten code too large");
    bool changed = false;
    for (size_t i = 0; i < n; ++i) {
      if (!IsShortBranch(opcodes[i])) continue;
      int64_t end = static_cast<int64_t>(off[i + 1]);
      int64_t rel = static_cast<int64_t>(off[branch_label[i]]) - end;
      if (rel < -128 || rel > 127) {
        opcodes[i] = LongFormOf(opcodes[i]);
        changed = true;
      }
    }
    if (!changed) break;
  }

  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = *seq[i];
    int64_t end = static_cast<int64_t>(off[i + 1]);
    int64_t rel = IsBranch(opcodes[i]) ? static_cast<int64_t>(off[branch_label[i]]) - end : 0;
    std::vector<int64_t> switch_rel;
    for (size_t label : switch_labels[i]) switch_rel.push_back(static_cast<int64_t>(off[label]) - end);
    WriteInstruction(ins, opcodes[i], rel, switch_rel, &out->code);
  }
  // Each original instruction maps from its group start (see OffsetMapEntry).
  out->il_map.reserve(instructions_.size());
  for (size_t i = 0; i < instructions_.size(); ++i)
    out->il_map.push_back({instructions_[i].offset, static_cast<uint32_t>(off[label_of[i]])});
  if ((wrap_ || entry_) && !out->il_map.empty()) out->il_map.front().new_offset = 0;  // the prologue is the first statement's

  for (const ExceptionClause& c : clauses_) {
    size_t ts, te, hs, he;
    uint64_t try_end = uint64_t{c.try_offset} + c.try_length;
    uint64_t handler_end = uint64_t{c.handler_offset} + c.handler_length;
    if (!resolve(c.try_offset, false, &ts) || !resolve(try_end, true, &te))
      return Fail(error, "try region [" + Hex(c.try_offset) + ", " + Hex(try_end) +
                             ") does not lie on instruction boundaries");
    if (!resolve(c.handler_offset, false, &hs) || !resolve(handler_end, true, &he))
      return Fail(error, "handler region [" + Hex(c.handler_offset) + ", " + Hex(handler_end) +
                             ") does not lie on instruction boundaries");
    if (te < ts || he < hs) return Fail(error, "exception region ends before it starts");
    ExceptionClause nc = c;
    nc.try_offset = static_cast<uint32_t>(off[ts]);
    nc.try_length = static_cast<uint32_t>(off[te] - off[ts]);
    nc.handler_offset = static_cast<uint32_t>(off[hs]);
    nc.handler_length = static_cast<uint32_t>(off[he] - off[hs]);
    if (c.is_filter()) {
      size_t fs;
      if (!resolve(c.class_token_or_filter_offset, false, &fs))
        return Fail(error, "filter start " + Hex(c.class_token_or_filter_offset) + " is not an instruction boundary");
      nc.class_token_or_filter_offset = static_cast<uint32_t>(off[fs]);
    }
    out->clauses.push_back(nc);
  }
  if (wrap_) {
    // Outermost, so listed last.
    size_t try_start = instructions_.empty() ? 0 : label_of[0];
    ExceptionClause c;
    c.flags = kClauseFinally;
    c.try_offset = static_cast<uint32_t>(off[try_start]);
    c.try_length = static_cast<uint32_t>(off[code_end] - off[try_start]);
    c.handler_offset = static_cast<uint32_t>(off[code_end]);
    c.handler_length = static_cast<uint32_t>(off[exit_at] - off[code_end]);
    out->clauses.push_back(c);
  }

  uint32_t max_stack = uint32_t{max_stack_} + probe_stack_;
  if (wrap_) max_stack = std::max<uint32_t>(max_stack, 2);
  if (entry_) max_stack = std::max<uint32_t>(max_stack, static_cast<uint32_t>(entry_->peak));
  if (max_stack > 0xFFFF) return Fail(error, "max stack overflows 16 bits");
  out->max_stack = static_cast<uint16_t>(max_stack);
  return true;
}

bool MethodBody::Encode(std::vector<uint8_t>* out, std::string* error, std::vector<OffsetMapEntry>* il_map) const {
  try {
    return EncodeImpl(out, error, il_map);
  } catch (...) {
    return Fail(error, "out of memory encoding method body");
  }
}

bool MethodBody::EncodeImpl(std::vector<uint8_t>* out, std::string* error,
                            std::vector<OffsetMapEntry>* il_map) const {
  if (!out) return Fail(error, "no output buffer");
  Laid laid;
  if (!LayOut(&laid, error)) return false;
  if (laid.code.size() > kMaxCodeSize) return Fail(error, "code too large");

  // Exception section layout.
  std::vector<EhSectionForm> forms;
  uint64_t decoded_count = 0;
  bool reuse = !eh_sections_.empty();
  for (const EhSectionForm& f : eh_sections_) decoded_count += f.clause_count;
  if (decoded_count != laid.clauses.size()) reuse = false;
  if (reuse) {
    size_t k = 0;
    for (const EhSectionForm& f : eh_sections_) {
      for (uint32_t i = 0; i < f.clause_count; ++i, ++k)
        if (!f.fat && !FitsSmall(laid.clauses[k])) reuse = false;
    }
  }
  if (reuse) {
    forms = eh_sections_;
  } else if (!laid.clauses.empty()) {
    bool small = laid.clauses.size() <= kMaxSmallClauses &&
                 std::all_of(laid.clauses.begin(), laid.clauses.end(), FitsSmall);
    if (!small && laid.clauses.size() > kMaxFatClauses) return Fail(error, "too many exception clauses");
    forms.push_back({!small, static_cast<uint32_t>(laid.clauses.size())});
  }

  const uint32_t code_size = static_cast<uint32_t>(laid.code.size());
  const uint32_t locals_token = wrap_ ? wrap_->locals_token : entry_ ? entry_->locals_token : local_var_sig_token_;
  bool tiny = !fat_header_ && code_size < 64 && laid.max_stack <= 8 && locals_token == 0 && !init_locals_ &&
              forms.empty();
  if (il_map) *il_map = std::move(laid.il_map);
  out->clear();
  if (tiny) {
    PutU8(out, static_cast<uint8_t>(kTinyFormat | (code_size << 2)));
  } else {
    uint16_t flags = static_cast<uint16_t>(header_flags_ & ~(0x3 | kMoreSects | kInitLocals) & 0x0FFF);
    flags |= kFatFormat;
    if (!forms.empty()) flags |= kMoreSects;
    if (init_locals_) flags |= kInitLocals;
    PutU16(out, static_cast<uint16_t>(flags | (3u << 12)));
    PutU16(out, laid.max_stack);
    PutU32(out, code_size);
    PutU32(out, locals_token);
  }
  out->insert(out->end(), laid.code.begin(), laid.code.end());
  if (forms.empty()) return true;

  size_t k = 0;
  for (size_t s = 0; s < forms.size(); ++s) {
    while (out->size() % 4) out->push_back(0);
    const EhSectionForm& f = forms[s];
    uint8_t kind = kSectEHTable;
    if (f.fat) kind |= kSectFatFormat;
    if (s + 1 < forms.size()) kind |= kSectMoreSects;
    uint32_t data_size = 4 + f.clause_count * (f.fat ? kFatClauseSize : kSmallClauseSize);
    PutU8(out, kind);
    if (f.fat) {
      PutU8(out, static_cast<uint8_t>(data_size));
      PutU8(out, static_cast<uint8_t>(data_size >> 8));
      PutU8(out, static_cast<uint8_t>(data_size >> 16));
    } else {
      PutU8(out, static_cast<uint8_t>(data_size));
      PutU16(out, 0);
    }
    for (uint32_t i = 0; i < f.clause_count; ++i, ++k) {
      const ExceptionClause& c = laid.clauses[k];
      if (f.fat) {
        PutU32(out, c.flags);
        PutU32(out, c.try_offset);
        PutU32(out, c.try_length);
        PutU32(out, c.handler_offset);
        PutU32(out, c.handler_length);
      } else {
        PutU16(out, static_cast<uint16_t>(c.flags));
        PutU16(out, static_cast<uint16_t>(c.try_offset));
        PutU8(out, static_cast<uint8_t>(c.try_length));
        PutU16(out, static_cast<uint16_t>(c.handler_offset));
        PutU8(out, static_cast<uint8_t>(c.handler_length));
      }
      PutU32(out, c.class_token_or_filter_offset);
    }
  }
  return true;
}

}  // namespace dotcov::il
