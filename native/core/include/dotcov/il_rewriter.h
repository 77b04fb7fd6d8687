// Coverage probe insertion and structural verification of IL method bodies.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/il_method.h"

namespace dotcov::il {

// `ldc.i4 <slot>` (always the 5-byte 0x20 form) + `call <helper_method_token>`.
// Stack neutral when the helper is `static void (int32)`; peak depth 1.
std::vector<Instruction> MakeCounterProbe(uint32_t slot, uint32_t helper_method_token);

// Decodes `original_body`, inserts a counter probe before the instruction at
// each (il offset, slot) pair (pairs in any order; several at one offset run in
// the given order) and encodes the result into `new_body` (max stack + 1).
// Fails, leaving `new_body` untouched, when the body does not decode, an offset
// is not an instruction boundary, follows a prefix or is the ret of a `tail.`
// call, or a branch target / exception boundary does not resolve. The caller
// then leaves the method uninstrumented. With no probes the body is re-encoded
// unchanged.
bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  uint32_t helper_method_token, std::vector<uint8_t>* new_body, std::string* error);

// How a probe counts. Call style (counters_base == 0): `ldc.i4 <slot>; call
// <helper>`, the helper incrementing the counter. Inline style: the increment
// itself, `ldc.i8 <counters_base + 8 * slot>; conv.u; dup; ldind.i8; ldc.i8 1;
// add; stind.i8` — no call, so it stays cheap in unoptimised (Debug) code,
// where the JIT never inlines the helper; even MinOpts makes it `mov rax, imm64;
// inc qword ptr [rax]` (a 64-bit constant 1, not `ldc.i4.1; conv.i8`, which
// MinOpts loads into a register first). Both are stack neutral.
// Exact (atomic) inline style, when `atomic_token` is also set: the address,
// then `call <atomic_token>; pop` in place of `dup; ldind.i8; ldc.i8 1; add;
// stind.i8`, the token a MemberRef to `int64 Interlocked::Increment(int64&)`
// (a native int passes as the byref): `lock xadd` in optimised code, a call
// in MinOpts (docs/architecture.md, "The increment is not atomic").
// Per-test contexts (inline style with `miss_token`): after the increment,
// `if (last[slot] != ctx) Miss(&last[slot], ctx)` inline (one compare while
// the slot's last test is the current one), `last` the agent's per-slot table
// at `last_base`, `Miss` a `static void (native int, int32)`, ctx the method's
// own int32 local `context_local` (InsertProbes stores `call current_token`
// into it on entry; `context_locals_token` is the method's locals followed by
// it) or, in a wrapped test method, the test's context id. A method's frame
// never changes thread, and the context changes only in a test method's
// wrapper or across an await (a new MoveNext call): so the value read on
// entry is the current test at every probe. Value and operand probes compute
// their slot, so they call `helper_method_token` (HitCtx) instead.
struct ContextCheck {
  uint32_t miss_token = 0;
  uint64_t last_base = 0;
  uint32_t current_token = 0;
  uint32_t context_locals_token = 0;
  uint32_t context_local = 0;
  int64_t context_constant = -1;  // >= 0: a wrapped test's id (set by InsertProbes)
};

struct ProbeStyle {
  uint32_t helper_method_token = 0;
  uint64_t counters_base = 0;
  uint32_t atomic_token = 0;  // inline style only
  ContextCheck context{};     // inline style only

  std::vector<Instruction> Make(uint32_t slot) const;
  // A value probe (MethodBody::InsertAfterValue): counts `false_slot` when the
  // value on top of the stack is zero, else `true_slot`, without a branch
  // (`dup; ldc.i4.0; cgt.un` picks the slot) and leaves the value in place.
  // Needs value_max_stack() above the value.
  std::vector<Instruction> MakeValue(uint32_t false_slot, uint32_t true_slot) const;
  int value_max_stack() const { return counters_base ? 3 : 2; }
  // A short-circuit operand probe (MethodBody::InsertBefore with the left
  // operand's value below): with `load` the right operand's side-effect-free
  // load (re-run by the probe) and `is_or` for `or` (else `and`), counts
  // `skipped_slot` when the left value decides the result (nonzero for or, zero
  // for and), else `false_slot` / `true_slot` by the right value, without a
  // branch, and leaves the stack as it found it. Needs operand_max_stack().
  std::vector<Instruction> MakeOperand(uint32_t skipped_slot, uint32_t false_slot, uint32_t true_slot,
                                       const std::vector<Instruction>& load, bool is_or) const;
  int operand_max_stack() const { return 3; }
  int max_stack() const { return counters_base ? 3 : 1; }
};

// Branch-outcome counters of one conditional branch or switch (see
// MethodBody::InstrumentBranch): `fall_through_slot` counts the fall-through
// (for a switch: the default), `target_slots[k]` the taken edge to target k
// (one slot for a branch, one per table entry for a switch).
// A branch-outcome slot meaning "no probe on this outcome": its count is
// derived from another counter (counter_sharing.h). A branch whose outcomes
// all have it is left as it is.
inline constexpr uint32_t kNoProbeSlot = 0xFFFFFFFFu;

struct BranchProbe {
  uint32_t il_offset = 0;
  uint32_t fall_through_slot = 0;
  std::vector<uint32_t> target_slots;
  // A condition computed into a value (FindValueConditions) rather than a
  // branch: il_offset is the instruction leaving the value, fall_through_slot
  // counts "false" and target_slots[0] "true" (ProbeStyle::MakeValue).
  bool value = false;
  // The right operand of `or`/`and` with no branch (FindShortCircuitOperands):
  // il_offset is the operand's first instruction, fall_through_slot counts
  // "not evaluated" (the left operand decided), target_slots[0] false and
  // target_slots[1] true (ProbeStyle::MakeOperand).
  bool operand = false;
};

// As above, and also counter probes on the outcomes of each branch in
// `branch_probes` (combinable with sequence-point probes at any offset,
// including the branch's own, its next instruction and its targets). Fails,
// leaving `new_body` untouched, when a branch probe names something that is not
// an instrumentable conditional branch / switch (see FindBranches), gives the
// wrong number of target slots, or names one branch twice. Max stack + 1.
bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  const std::vector<BranchProbe>& branch_probes, uint32_t helper_method_token,
                  std::vector<uint8_t>* new_body, std::string* error);

// A test method's per-test context (docs/architecture.md, "Per-test
// contexts"): the body becomes
//     ldc.i4 <context_id>; call <enter_token>; stloc <previous_local>
//     .try { original body, each ret a leave } finally { ldloc <previous_local>; call <exit_token>; endfinally }
// with `enter` `static int32 (int32)` and `exit` `static void (int32)`, and
// `locals_token` the original locals followed by previous_local and, when
// return_local >= 0, the return value's local (MethodBody::WrapInTryFinally).
struct ContextWrap {
  uint32_t context_id = 0;
  uint32_t enter_token = 0;
  uint32_t exit_token = 0;
  uint32_t locals_token = 0;
  uint32_t previous_local = 0;
  int32_t return_local = -1;
};

// The same with either probe style (max stack grows by style.max_stack()).
// With `il_map`, also returns the old -> new IL offset map of the result (see
// OffsetMapEntry), for ICorProfilerInfo::SetILInstrumentedCodeMap; untouched
// on failure. With `wrap`, the body is also wrapped for its test context.
bool InsertProbes(Bytes original_body, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                  const std::vector<BranchProbe>& branch_probes, const ProbeStyle& style,
                  std::vector<uint8_t>* new_body, std::string* error,
                  std::vector<OffsetMapEntry>* il_map = nullptr, const ContextWrap* wrap = nullptr);

// The runtime's translation of an instrumented IL offset back to the original
// (DebuggerMethodInfo::TranslateToInstIL, new -> old): the old offset of the
// last entry whose new offset is not above `new_offset`; below the first entry
// the prolog marker 0xFFFFFFFE; an empty map or a special (negative) offset
// is returned as is.
uint32_t TranslateToOriginal(const std::vector<OffsetMapEntry>& il_map, uint32_t new_offset);

struct BranchSite {
  uint32_t il_offset = 0;
  uint32_t target_count = 0;  // 1 for a conditional branch, the table size for a switch
  bool operator==(const BranchSite&) const = default;
};

// The conditional branches and switches of `body` that InstrumentBranch
// accepts, in code order: every one except one right after a prefix (no such
// IL is defined) or one that is the last instruction (its fall-through would
// leave the code). Unconditional branches (br, leave) have no outcomes.
std::vector<BranchSite> FindBranches(const MethodBody& body);

// Conditions of `body` computed into a value with no branch of their own, as
// the offsets of the instructions leaving the value (for InsertAfterValue), in
// code order. Two shapes, both with the instruction after the value no jump
// target or region boundary:
//  - the last operand of a short-circuit `a && b`, `a || b`, pattern `and`/`or`
//    computed into a value: a conditional branch whose target is `ldc.i4.0` or
//    `ldc.i4.1` (skipping nops), then straight-line code nothing else enters
//    ending in the value, which leaves by `br`, `ret` or `stloc`; the value a
//    comparison (ceq, cgt, cgt.un, clt, clt.un), a call whose signature returns
//    bool, or a load of a bool local, argument or field (ldloc, ldarg, ldfld,
//    ldsfld), as `types` says (so `c ? Foo() : 0` and `c ? count : 0` are
//    none); not when that value flows
//    (through `br`, `stloc N; ldloc N`) into `brtrue`/`brfalse` (a Debug
//    `if (a || b)`, whose final branch already counts it);
//  - an exception filter's condition: in a filter block, the value before the
//    closing `[stloc N; ldloc N;] ldc.i4.0; cgt.un; endfilter`.
// What the finder knows of the types of a method's values; what it does not
// know is not bool.
struct BoolTypes {
  // By token: a call's (MethodDef, MemberRef) signature returns bool, or a
  // field's (FieldDef, MemberRef) type is bool.
  std::function<bool(uint32_t token)> token_is_bool;
  std::vector<bool> locals;     // by local index
  std::vector<bool> arguments;  // by IL argument index (0 is `this` in an instance method)
  std::vector<bool> byref_arguments;  // `ref` / `in bool`, by IL argument index (short-circuit operands only)
  std::vector<bool> byref_locals;     // `ref bool`, by local index (short-circuit operands only)
};
std::vector<uint32_t> FindValueConditions(const MethodBody& body, const BoolTypes& types);
using BoolCall = std::function<bool(uint32_t call_token)>;
std::vector<uint32_t> FindValueConditions(const MethodBody& body, const BoolCall& returns_bool = {});

// Right operands of a short circuit that Roslyn computes with no branch at all:
// `a || flag`, `x > 0 && big` with a bool local or argument last (also one
// captured in a closure or hoisted into a state machine: `ldarg.0; ldfld`,
// and a `ref`/`in bool` argument or `ref bool` local: `ldarg N; ldind.u1`,
// `ldloc N; ldind.u1`)
// compile to `<a>; <load flag>; or` (`and`), in Debug and Release. Returns the
// offsets of the loads' first instructions, in code order: the load is
// `ldarg`/`ldloc` of a bool (types.arguments / locals), `ldarg.0; ldfld F`
// with F bool (types.token_is_bool) or `ldarg N; ldind.u1` / `ldloc N; ldind.u1`
// with N a `ref bool` (types.byref_arguments / byref_locals), right before `or`/`and`, nothing entering
// the load after its first instruction nor the `or`/`and`, no prefix before
// it, no region boundary at it, and something (the left operand) before it.
std::vector<uint32_t> FindShortCircuitOperands(const MethodBody& body, const BoolTypes& types);

// The shape FindShortCircuitOperands accepts at `offset`, without types: the
// load's instructions (to re-run) and whether the operator is `or`. False with
// *error when the offset is not such a load.
bool ShortCircuitOperandAt(const MethodBody& body, uint32_t offset, std::vector<Instruction>* load, bool* is_or,
                           std::string* error);

// Stack effect of a call-family token, as for `call`: pops = number of
// parameters + 1 when the signature has HASTHIS without EXPLICITTHIS, pushes =
// 0 for a void return, else 1. Verify derives newobj (pops - 1, pushes 1) and
// calli (pops + 1 for the function pointer) from it. Return false when unknown.
using CallResolver = std::function<bool(uint32_t token, int* pops, int* pushes)>;

struct VerifyOptions {
  CallResolver call_resolver;  // may be empty
  int return_values = -1;      // 0 or 1 when the method's return type is known; -1 accepts either at ret
};

// Structural checks of a decoded body (a body with pending insertions is
// encoded and decoded first):
//  - a prefix is followed by an instruction; branch/switch targets are
//    instruction boundaries that do not follow a prefix;
//  - each exception clause: non-empty try and handler within the code, starts
//    on instruction boundaries, ends on a boundary or the code end, filter
//    start on a boundary before the handler; try, filter and handler blocks of
//    one clause disjoint; blocks of different clauses disjoint or nested
//    (identical try blocks allowed); a clause with a block inside another's try
//    block is listed first;
//  - stack depth simulation from offset 0 (depth 0), catch and filter entries
//    (depth 1) and finally/fault entries (depth 0): no underflow, depth never
//    above max stack, equal depths where paths join, empty stack at try starts
//    and jmp, at most one value at ret (exactly return_values when known),
//    exactly one at endfilter, no fall-through past the end of the code.
//    Call-family instructions whose effect is unknown (no resolver, or it
//    returns false) make the depth unknown on that path only: checks resume
//    where a known depth reaches (a branch target or handler entry from
//    elsewhere); code reachable only through unknown paths is not depth-checked.
bool Verify(const MethodBody& body, std::string* error, const VerifyOptions& options = {});

}  // namespace dotcov::il
