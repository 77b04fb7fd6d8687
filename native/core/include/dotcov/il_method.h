// The IL method body model: decodes a method body as returned by
// ICorProfilerInfo::GetILFunctionBody (header, code, extra data sections with
// exception clauses), accepts instructions inserted before original
// instructions, and re-encodes it with branch targets and exception clauses
// re-resolved. All input is untrusted: every failure is a false return with a
// message; nothing throws across this API.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/il_opcodes.h"

namespace dotcov::il {

// COR_ILEXCEPTION_CLAUSE flags.
constexpr uint32_t kClauseCatch = 0;
constexpr uint32_t kClauseFilter = 1;
constexpr uint32_t kClauseFinally = 2;
constexpr uint32_t kClauseFault = 4;

struct ExceptionClause {
  uint32_t flags = 0;  // 0 catch, 1 filter, 2 finally, 4 fault
  uint32_t try_offset = 0, try_length = 0, handler_offset = 0, handler_length = 0;
  uint32_t class_token_or_filter_offset = 0;  // class token (catch) or filter start (filter)

  bool is_filter() const { return (flags & kClauseFilter) != 0; }
  bool operator==(const ExceptionClause&) const = default;
};

struct Instruction {
  uint32_t offset = 0;  // offset in the decoded code (for inserted ones: the anchor's offset)
  uint16_t opcode = 0;  // 0x00XX or 0xFEXX
  // Immediate value: sign-extended for int8/int32/int64, zero-extended for
  // uint8/uint16/token, raw IEEE bits for float32/float64. For branches the
  // ABSOLUTE target offset in the decoded code (end of instruction + displacement).
  int64_t operand = 0;
  // switch: absolute target offsets (end of the switch + displacement, modulo 2^32).
  std::vector<int32_t> switch_targets;

  // Encoded size in bytes (opcode + operand); 0 for an undefined opcode.
  uint32_t Size() const;
  bool operator==(const Instruction&) const = default;
};

// A probe's only allowed branch: a conditional branch whose operand is
// kProbeSkip + n skips the probe's next n instructions (forward, within the
// probe; per-test contexts call out only when a slot sees a new test).
inline constexpr int64_t kProbeSkip = int64_t{1} << 62;

inline Instruction MakeInstruction(uint16_t opcode, int64_t operand = 0) {
  Instruction i;
  i.opcode = opcode;
  i.operand = operand;
  return i;
}

// One entry of the IL offset map of a rewritten body (COR_IL_MAP without its
// unused fAccurate flag): the original instruction at `old_offset` now starts
// its group at `new_offset`. A group is the probes inserted before that
// instruction, the instruction, and, for an instrumented branch, its outcome
// blocks; branches to the instruction now land at the group start. The
// runtime translates an instrumented offset back by rounding down to the last
// entry whose new_offset is not above it (DebuggerMethodInfo::TranslateToInstIL,
// ComposeMapping in debuginfostore.cpp), without interpolating: so every
// original instruction has an entry, a probe maps to the instruction it
// precedes (its statement, as in a plain run: the runtime then merges the JIT's
// entries for the probe and for the instruction into one) and an outcome block
// to its branch. Entries are strictly increasing in both offsets.
struct OffsetMapEntry {
  uint32_t old_offset = 0;
  uint32_t new_offset = 0;
  bool operator==(const OffsetMapEntry&) const = default;
};

// One extra data section holding exception clauses, as it was decoded.
struct EhSectionForm {
  bool fat = false;
  uint32_t clause_count = 0;
  bool operator==(const EhSectionForm&) const = default;
};

class MethodBody {
 public:
  // `body` starts at the method header (tiny or fat). Rejects bad headers,
  // truncated code or sections, undefined opcodes, truncated operands and
  // extra data sections that are not exception tables.
  static bool Decode(Bytes body, MethodBody* out, std::string* error);

  // Header + code + exception sections. Tiny header when the body was tiny
  // (or built from nothing) and still fits (code < 64 bytes, max stack <= 8,
  // no locals signature, no InitLocals, no clauses); otherwise fat, keeping the
  // original fat flags. Exception sections keep the decoded section layout when
  // the clause count is unchanged and every small section still fits the small
  // form; otherwise one section, small when every clause fits (offsets <=
  // 0xFFFF, lengths <= 0xFF, at most 20 clauses), else fat. With insertions,
  // short branches are widened (never narrowed) until the layout is stable,
  // every target and EH boundary is re-resolved and max stack grows by the
  // largest probe stack need. Unmodified bodies re-encode byte-identically when
  // the original used these same form choices. With `il_map`, also returns one
  // OffsetMapEntry per decoded instruction, in code order (identity when
  // nothing was inserted).
  bool Encode(std::vector<uint8_t>* out, std::string* error, std::vector<OffsetMapEntry>* il_map = nullptr) const;

  // Queues `probe` to run before the original instruction at
  // `original_offset`. Branches, switch entries and EH region starts that
  // target that instruction will target the probe; an EH region END at that
  // offset also moves to the probe start (the probe belongs to the code that
  // follows). Errors (and no change) when the offset is not an instruction
  // boundary, follows a prefix, or is a `ret` right after a `tail.` call; when
  // the probe contains an undefined opcode, a prefix, a branch/switch or any
  // instruction that does not fall through (ret, throw, jmp ...), or, when all
  // its stack effects are known, is not stack neutral or pops what it did not
  // push. `probe_max_stack` is the probe's peak stack depth; -1 computes it
  // from the table (call family counted conservatively as push 1, pop 0).
  // Several probes at one offset run in the order they were inserted.
  // `reads`: values already on the stack there (on every path) the probe may
  // pop, provided it leaves them as it found them (a short-circuit operand
  // probe's `dup` of the left operand); probe_max_stack counts above them.
  bool InsertBefore(uint32_t original_offset, std::vector<Instruction> probe, std::string* error,
                    int probe_max_stack = -1, int reads = 0);

  // Queues `probe` to run right after the instruction at `original_offset`,
  // which must leave exactly one value on the stack and fall through (a
  // comparison, a call returning bool, ...): the probe may read that value
  // (e.g. start with `dup`) but must leave the stack as it found it. It runs
  // only on that instruction's own edge: errors (and no change) when the next
  // instruction is a jump target, an exception region starts or ends there,
  // the instruction is the last one or follows a prefix, or the probe fails
  // the checks of InsertBefore (with the one value below it). The probe maps
  // to the next instruction in the IL offset map.
  bool InsertAfterValue(uint32_t original_offset, std::vector<Instruction> probe, std::string* error,
                        int probe_max_stack = -1);

  // Branch-outcome probes for the conditional branch (brtrue ... blt.un, short
  // or long) or switch at `original_offset`. With NEXT the instruction after
  // it, the branch is laid out as
  //     bCC   T0                    ; switch (T0 .. Tn-1)
  //     <fall_through_probe>        ; reached only by falling through
  //     br    NEXT
  //   T0: <target_probes[0]>
  //     br    L0                    ; the original target (its before-probes)
  //     ...
  //   NEXT:                         ; NEXT's own before-probes, then NEXT
  // so each outcome runs exactly its own probe, the stack at every inserted
  // instruction is the one on that edge, and the inserted block lies inside the
  // exception regions holding the branch (a region ending or starting at NEXT
  // keeps that boundary after the block). The inserted `br`s and the
  // retargeted branch start short (the original keeps its form) and are widened
  // with the other short branches. Before-probes at the branch's own offset
  // still run before the branch. `target_probes` has one probe per target (1
  // for a branch, the table size for a switch). Errors (and no change) when the
  // offset is not an instruction boundary, is not a conditional branch or
  // switch, follows a prefix, is the last instruction (its fall-through would
  // leave the code), when the target count differs, the branch is already
  // instrumented, or a probe fails the checks of InsertBefore.
  // An empty probe means no block for that outcome (its count is derived,
  // counter_sharing.h): an empty target probe leaves that edge going straight
  // to its original target, and with every target probe empty the fall-through
  // probe is followed by NEXT directly (no `br NEXT`).
  // `probe_max_stack` applies to every probe of the branch (-1: computed).
  bool InstrumentBranch(uint32_t original_offset, std::vector<Instruction> fall_through_probe,
                        std::vector<std::vector<Instruction>> target_probes, std::string* error,
                        int probe_max_stack = -1);

  // Wraps the whole method for a per-test context: `prologue` (stack neutral,
  // no branches) runs once on entry; the original code, with its probes,
  // becomes the try block of a new outermost try/finally whose handler is
  // `finally_body` (stack neutral) + endfinally; each original `ret` becomes
  // `stloc return_local` (when return_local >= 0) + `leave EXIT`, EXIT being
  // `ldloc return_local` + `ret` after the handler. The locals signature becomes
  // `locals_token` (the original locals followed by the new ones). The IL offset
  // map keeps one entry per original instruction; the prologue maps to offset 0.
  // Errors (and no change) when the body has a `tail.` prefix, jmp or localloc
  // (none allowed in a try block), a ret inside an exception region, or is
  // already wrapped.
  bool WrapInTryFinally(std::vector<Instruction> prologue, std::vector<Instruction> finally_body,
                        uint32_t locals_token, int32_t return_local, std::string* error);
  bool wrapped() const { return wrap_.has_value(); }

  // Per-test contexts outside a test method: `prologue` (stack neutral, no
  // branches; it stores the current test into a new local) runs once on entry,
  // before the first instruction and its probes and outside every exception
  // region (branches to offset 0 land after it); the locals signature becomes
  // `locals_token` (the original locals followed by the new one). Errors (and
  // no change) when the method is wrapped or already has an entry.
  bool SetEntry(std::vector<Instruction> prologue, uint32_t locals_token, std::string* error);

  bool fat_header() const { return fat_header_; }
  uint16_t header_flags() const { return header_flags_; }  // fat header flags (12 bits); 0 for tiny
  uint16_t max_stack() const { return max_stack_; }        // 8 for a tiny header
  uint32_t local_var_sig_token() const { return local_var_sig_token_; }
  bool init_locals() const { return init_locals_; }
  uint32_t code_size() const { return code_size_; }
  const std::vector<Instruction>& instructions() const { return instructions_; }  // decoded ones only
  const std::vector<ExceptionClause>& clauses() const { return clauses_; }        // decoded offsets
  const std::vector<EhSectionForm>& eh_sections() const { return eh_sections_; }
  bool has_insertions() const {
    return !inserts_.empty() || !branches_.empty() || wrap_.has_value() || entry_.has_value();
  }
  uint16_t probe_stack() const { return probe_stack_; }

  // Index into instructions() of the instruction starting at `offset`, or -1.
  long FindInstruction(uint32_t offset) const;

 private:
  struct Laid;
  bool LayOut(Laid* out, std::string* error) const;
  static bool DecodeImpl(Bytes body, MethodBody* out, std::string* error);
  bool EncodeImpl(std::vector<uint8_t>* out, std::string* error, std::vector<OffsetMapEntry>* il_map) const;
  bool InsertBeforeImpl(uint32_t original_offset, std::vector<Instruction>& probe, std::string* error,
                        int probe_max_stack, int reads = 0);
  bool InstrumentBranchImpl(uint32_t original_offset, std::vector<Instruction>& fall_through_probe,
                            std::vector<std::vector<Instruction>>& target_probes, std::string* error,
                            int probe_max_stack);
  // Checks an offset for insertion before it: its index, or -1 with *error set.
  long InsertionPoint(uint32_t original_offset, std::string* error) const;

  bool fat_header_ = false;
  uint16_t header_flags_ = 0;
  uint16_t max_stack_ = 8;
  uint32_t local_var_sig_token_ = 0;
  bool init_locals_ = false;
  uint32_t code_size_ = 0;
  std::vector<Instruction> instructions_;
  std::vector<ExceptionClause> clauses_;
  std::vector<EhSectionForm> eh_sections_;
  // Instructions to insert before instructions_[key].
  std::map<size_t, std::vector<Instruction>> inserts_;
  // Outcome probes of the conditional branch / switch instructions_[key].
  struct BranchProbes {
    std::vector<Instruction> fall_through;
    std::vector<std::vector<Instruction>> targets;
  };
  std::map<size_t, BranchProbes> branches_;
  uint16_t probe_stack_ = 0;
  struct Wrap {
    std::vector<Instruction> prologue, finally_body;
    uint32_t locals_token = 0;
    int32_t return_local = -1;
  };
  std::optional<Wrap> wrap_;
  struct Entry {
    std::vector<Instruction> prologue;
    uint32_t locals_token = 0;
    int peak = 0;
  };
  std::optional<Entry> entry_;
};

}  // namespace dotcov::il
