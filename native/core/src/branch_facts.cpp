// The branch recognisers of src/dotcov/analysis/branches/analyse.py, rule for rule (see branch_facts.h). Names
// follow the Python's so the two read side by side.
#include "dotcov/branch_facts.h"

#include <algorithm>

namespace dotcov::il {
namespace {

constexpr uint16_t NOP = 0x00, LDARG_0 = 0x02, LDLOC_0 = 0x06, LDLOC_3 = 0x09, STLOC_0 = 0x0A, STLOC_3 = 0x0D;
constexpr uint16_t LDARG_S = 0x0E, LDLOC_S = 0x11, LDLOCA_S = 0x12, STLOC_S = 0x13, LDNULL = 0x14;
constexpr uint16_t LDC_I4_M1 = 0x15, LDC_I4_0 = 0x16, LDC_I4_1 = 0x17, LDC_I4_8 = 0x1E, LDC_I4_S = 0x1F;
constexpr uint16_t LDC_I4 = 0x20, LDC_I8 = 0x21, DUP = 0x25, POP = 0x26, CALL = 0x28, RET = 0x2A;
constexpr uint16_t BR_S = 0x2B, BRFALSE_S = 0x2C, BRTRUE_S = 0x2D, BR = 0x38, BRFALSE = 0x39, BRTRUE = 0x3A;
constexpr uint16_t SWITCH = 0x45, ADD = 0x58, SUB = 0x59, CALLVIRT = 0x6F, CASTCLASS = 0x74, ISINST = 0x75;
constexpr uint16_t LDFLD = 0x7B, STFLD = 0x7D, LDSFLD = 0x7E, STSFLD = 0x80;
constexpr uint16_t LEAVE = 0xDD, LEAVE_S = 0xDE;
constexpr uint16_t CEQ = 0xFE01, CLT_UN = 0xFE05, LDFTN = 0xFE06, LDVIRTFTN = 0xFE07;
constexpr uint16_t LDARG = 0xFE09, LDLOC = 0xFE0C, LDLOCA = 0xFE0D, STLOC = 0xFE0E, CONSTRAINED = 0xFE16;
constexpr uint32_t CLAUSE_FILTER = 1, CLAUSE_FINALLY = 2;

bool IsBranchIfTrue(uint16_t op) { return op == BRTRUE_S || op == BRTRUE; }
bool IsBranchIfFalse(uint16_t op) { return op == BRFALSE_S || op == BRFALSE; }
bool IsUnary(uint16_t op) { return IsBranchIfTrue(op) || IsBranchIfFalse(op); }
// beq.s .. blt.un.s and beq .. blt.un
bool IsCompare(uint16_t op) { return (op >= 0x2E && op < 0x38) || (op >= 0x3B && op < 0x45); }
bool IsConditional(uint16_t op) { return IsUnary(op) || IsCompare(op); }
bool IsUnconditional(uint16_t op) { return op == BR_S || op == BR || op == LEAVE || op == LEAVE_S; }
bool IsLdcI4(uint16_t op) { return (op >= LDC_I4_M1 && op <= LDC_I4_8) || op == LDC_I4_S || op == LDC_I4; }
bool IsConstant(uint16_t op) { return IsLdcI4(op) || op == LDC_I8 || op == LDNULL; }
bool IsArithmetic(uint16_t op) { return op == ADD || op == SUB || (op >= CEQ && op <= CLT_UN); }
bool IsLdloca(uint16_t op) { return op == LDLOCA_S || op == LDLOCA; }

std::optional<int64_t> LocalLoaded(const Instruction& x) {
  if (x.opcode >= LDLOC_0 && x.opcode <= LDLOC_3) return x.opcode - LDLOC_0;
  if (x.opcode == LDLOC_S || x.opcode == LDLOC || x.opcode == LDLOCA_S || x.opcode == LDLOCA) return x.operand;
  return std::nullopt;
}

std::optional<int64_t> LocalStored(const Instruction& x) {
  if (x.opcode >= STLOC_0 && x.opcode <= STLOC_3) return x.opcode - STLOC_0;
  if (x.opcode == STLOC_S || x.opcode == STLOC) return x.operand;
  return std::nullopt;
}

bool SameLoad(const Instruction& a, const Instruction& b) {
  std::optional<int64_t> la = LocalLoaded(a), lb = LocalLoaded(b);
  if (la || lb) return la == lb;
  if (a.opcode != b.opcode) return false;
  if (a.opcode >= LDARG_0 && a.opcode <= LDARG_0 + 3) return true;
  return (a.opcode == LDARG_S || a.opcode == LDARG || a.opcode == LDFLD || a.opcode == LDSFLD) &&
         a.operand == b.operand;
}

struct Branch {
  size_t index;
  uint32_t offset;
  uint16_t opcode;
  std::vector<int64_t> targets;
  int64_t fall_through;
};

// MethodIL: the instructions with their offset index, jump targets and state-machine state.
class Method {
 public:
  Method(const MethodBody& body, const MethodContext& context)
      : ins_(body.instructions()), clauses_(body.clauses()), context_(context) {
    for (const Instruction& x : ins_) {
      if (IsConditional(x.opcode) || IsUnconditional(x.opcode)) jump_targets_.push_back(x.operand);
      if (x.opcode == SWITCH)
        for (int32_t t : x.switch_targets) jump_targets_.push_back(static_cast<uint32_t>(t));
    }
    for (const ExceptionClause& c : clauses_) jump_targets_.push_back(c.handler_offset);
    std::sort(jump_targets_.begin(), jump_targets_.end());
    for (size_t k = 0; k < ins_.size(); ++k)
      if (ins_[k].opcode == BR || ins_[k].opcode == BR_S) br_into_.emplace_back(ins_[k].operand, k);
    // (by target; a stable sort keeps each target's jumps in IL order)
    std::stable_sort(br_into_.begin(), br_into_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Roslyn state machines start with `ldarg.0; ldfld <>1__state; stloc.0`.
    if (context.is_move_next && ins_.size() >= 2 && ins_[0].opcode == LDARG_0 && ins_[1].opcode == LDFLD) {
      state_field_ = ins_[1].operand;
      if (ins_.size() >= 3) state_local_ = LocalStored(ins_[2]);
    }
    for (size_t i = 0; i < ins_.size(); ++i) {
      const Instruction& x = ins_[i];
      if (x.opcode != SWITCH && !IsConditional(x.opcode)) continue;
      Branch b{i, x.offset, x.opcode, {}, i + 1 < ins_.size() ? int64_t{ins_[i + 1].offset} : int64_t{x.offset} + 1};
      if (x.opcode == SWITCH)
        for (int32_t t : x.switch_targets) b.targets.push_back(static_cast<uint32_t>(t));
      else
        b.targets.push_back(x.operand);
      branches_.push_back(std::move(b));
    }
  }

  const std::vector<Branch>& branches() const { return branches_; }

  BranchFacts Facts(const Branch& b) const {
    BranchFacts f;
    f.offset = b.offset;
    f.opcode = b.opcode;
    f.recogniser = Classify(b);
    ShortCircuitConstants(b, &f);
    f.tests_zero_comparison = TestsZeroComparison(b);
    return f;
  }

 private:
  bool IsJumpTarget(int64_t offset) const {
    return std::binary_search(jump_targets_.begin(), jump_targets_.end(), offset);
  }

  // The position of the instruction at `offset`, or -1.
  long Index(int64_t offset) const {
    auto it = std::lower_bound(ins_.begin(), ins_.end(), offset,
                               [](const Instruction& x, int64_t o) { return int64_t{x.offset} < o; });
    return it != ins_.end() && int64_t{it->offset} == offset ? static_cast<long>(it - ins_.begin()) : -1;
  }

  // Up to `limit` instructions from `offset` on, nops left out (MethodIL.at(offset)[:limit]).
  std::vector<const Instruction*> At(int64_t offset, size_t limit) const {
    std::vector<const Instruction*> out;
    long i = Index(offset);
    if (i < 0) return out;
    for (size_t k = static_cast<size_t>(i); k < ins_.size() && out.size() < limit; ++k)
      if (ins_[k].opcode != NOP) out.push_back(&ins_[k]);
    return out;
  }

  // Up to n instructions just before the branch, nearest last, within its straight-line block.
  std::vector<const Instruction*> Before(const Branch& b, size_t n) const {
    std::vector<const Instruction*> out;
    for (long i = static_cast<long>(b.index) - 1; i >= 0 && out.size() < n; --i) {
      const Instruction& x = ins_[static_cast<size_t>(i)];
      if (x.opcode == SWITCH || IsConditional(x.opcode) || IsUnconditional(x.opcode)) break;
      if (x.opcode != NOP) out.insert(out.begin(), &x);
      if (IsJumpTarget(x.offset)) break;  // control can arrive here from elsewhere
    }
    return out;
  }

  bool InFinally(uint32_t offset) const {
    for (const ExceptionClause& c : clauses_)
      if ((c.flags & CLAUSE_FINALLY) && c.handler_offset <= offset &&
          uint64_t{offset} < uint64_t{c.handler_offset} + c.handler_length)
        return true;
    return false;
  }

  bool LoadsState(const Instruction& x, const Instruction* prev) const {
    if (state_local_ && LocalLoaded(x) == state_local_ && !IsLdloca(x.opcode)) return true;
    return state_field_ && x.opcode == LDFLD && x.operand == *state_field_ && prev != nullptr &&
           prev->opcode == LDARG_0;
  }

  // The positions of the `br`/`br.s` instructions that jump to `offset`, in IL order (MethodIL.branches_into:
  // looked up in a table made once, not a scan of the method per branch, which made a large Debug method's
  // analysis quadratic: each `stloc; ldloc; brfalse` of an `if` asks).
  std::vector<size_t> BranchesInto(int64_t offset) const {
    std::vector<size_t> out;
    auto [lo, hi] = std::equal_range(br_into_.begin(), br_into_.end(), std::pair<int64_t, size_t>{offset, 0},
                                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    return out;
  }

  Recogniser Classify(const Branch& b) const {
    if (StateMachineDispatch(b)) return Recogniser::kStateMachineDispatch;
    if (AwaitCompletionCheck(b)) return Recogniser::kAwaitCompletionCheck;
    if (DisposeNullCheck(b)) return Recogniser::kDisposeNullCheck;
    if (LockTakenCheck(b)) return Recogniser::kLockTakenCheck;
    if (ExceptionFilterTypeCheck(b)) return Recogniser::kExceptionFilterTypeCheck;
    if (DelegateCacheCheck(b)) return Recogniser::kDelegateCacheCheck;
    if (ConstantCondition(b)) return Recogniser::kConstantCondition;
    if (DisposeModeCheck(b)) return Recogniser::kDisposeModeCheck;
    if (HiddenPointBranch(b)) return Recogniser::kHiddenPointBranch;
    return Recogniser::kNone;
  }

  bool StateMachineDispatch(const Branch& b) const {
    if (!context_.is_move_next || (!state_local_ && !state_field_)) return false;
    std::vector<const Instruction*> window = Before(b, 4);
    for (size_t k = window.size(); k-- > 0;) {
      const Instruction& x = *window[k];
      if (LoadsState(x, k ? window[k - 1] : nullptr)) return true;
      if (!IsLdcI4(x.opcode) && !IsArithmetic(x.opcode)) return false;
    }
    return false;
  }

  bool AwaitCompletionCheck(const Branch& b) const {
    if (!context_.is_move_next || !state_field_ || !IsUnary(b.opcode)) return false;
    std::vector<const Instruction*> prev = Before(b, 1);
    if (prev.empty() || (prev.back()->opcode != CALL && prev.back()->opcode != CALLVIRT)) return false;
    int64_t suspend = IsBranchIfTrue(b.opcode) ? b.fall_through : b.targets[0];
    std::vector<const Instruction*> path = At(suspend, 5);
    if (path.size() < 3 || path[0]->opcode != LDARG_0 || !IsLdcI4(path[1]->opcode)) return false;
    for (size_t k = 2; k < path.size(); ++k) {
      if (path[k]->opcode == STFLD) return path[k]->operand == *state_field_;
      if (path[k]->opcode != DUP && !LocalStored(*path[k])) return false;
    }
    return false;
  }

  bool DisposeNullCheck(const Branch& b) const {
    if (!IsBranchIfFalse(b.opcode) || !InFinally(b.offset)) return false;
    std::vector<const Instruction*> prev = Before(b, 2);
    if (prev.empty()) return false;
    const Instruction& load = *prev.back();
    if (load.opcode == LDFLD && !(prev.size() == 2 && prev[0]->opcode == LDARG_0)) return false;
    if (!LocalLoaded(load) && load.opcode != LDFLD && load.opcode != LDSFLD && load.opcode != LDARG_0 &&
        load.opcode != LDARG_S && load.opcode != LDARG && !(load.opcode >= LDARG_0 && load.opcode <= LDARG_0 + 3))
      return false;
    std::vector<const Instruction*> path = At(b.fall_through, 5);
    if (load.opcode == LDFLD) {
      if (!path.empty() && path[0]->opcode == LDARG_0)
        path.erase(path.begin());
      else
        path.clear();
    }
    if (path.empty() || !SameLoad(*path[0], load)) return false;
    for (size_t k = 1; k < path.size() && k < 4; ++k) {
      if (path[k]->opcode == CALLVIRT) return true;
      if (path[k]->opcode != CONSTRAINED && path[k]->opcode != CASTCLASS) return false;
    }
    return false;
  }

  bool LockTakenCheck(const Branch& b) const {
    if (!IsBranchIfFalse(b.opcode) || !InFinally(b.offset)) return false;
    std::vector<const Instruction*> prev = Before(b, 1);
    if (prev.empty() || !LocalLoaded(*prev.back()) || IsLdloca(prev.back()->opcode)) return false;
    int64_t taken = *LocalLoaded(*prev.back());
    if (std::none_of(ins_.begin(), ins_.end(),
                     [taken](const Instruction& x) { return IsLdloca(x.opcode) && x.operand == taken; }))
      return false;
    std::vector<const Instruction*> path = At(b.fall_through, 2);
    if (path.size() != 2) return false;
    std::optional<int64_t> other = LocalLoaded(*path[0]);
    return other && *other != taken && !IsLdloca(path[0]->opcode) && path[1]->opcode == CALL;
  }

  bool ExceptionFilterTypeCheck(const Branch& b) const {
    if (!IsBranchIfTrue(b.opcode)) return false;
    if (std::none_of(clauses_.begin(), clauses_.end(), [&b](const ExceptionClause& c) {
          return (c.flags & CLAUSE_FILTER) && c.class_token_or_filter_offset <= b.offset && b.offset < c.handler_offset;
        }))
      return false;
    std::vector<const Instruction*> prev = Before(b, 2);
    return prev.size() == 2 && prev[0]->opcode == ISINST && prev[1]->opcode == DUP;
  }

  bool DelegateCacheCheck(const Branch& b) const {
    if (!IsBranchIfTrue(b.opcode)) return false;
    std::vector<const Instruction*> prev = Before(b, 2);
    if (prev.size() < 2 || prev[0]->opcode != LDSFLD || prev[1]->opcode != DUP) return false;
    int64_t cache = prev[0]->operand;
    std::vector<const Instruction*> path = At(b.fall_through, 10);
    if (path.empty() || path[0]->opcode != POP) return false;
    bool saw_ftn = false;
    for (size_t k = 1; k < path.size(); ++k) {
      const Instruction& x = *path[k];
      if (int64_t{x.offset} >= b.targets[0]) break;
      if (x.opcode == LDFTN || x.opcode == LDVIRTFTN) saw_ftn = true;
      if (x.opcode == STSFLD) return saw_ftn && x.operand == cache;
    }
    return false;
  }

  bool ConstantCondition(const Branch& b) const {
    if (!IsUnary(b.opcode) || IsJumpTarget(b.offset)) return false;
    std::vector<const Instruction*> prev = Before(b, 1);
    return !prev.empty() && IsConstant(prev.back()->opcode);
  }

  // The offset of the hidden point containing `b` in a MoveNext (the last point at or before it is hidden, and no
  // visible point shares its offset), or -1.
  int64_t ContainingHiddenPoint(const Branch& b) const {
    if (!context_.hidden_offsets || !context_.is_move_next) return -1;
    int64_t hidden = -1, visible = -1;
    for (int64_t o : *context_.hidden_offsets)
      if (o <= b.offset) hidden = std::max(hidden, o);
    for (int64_t o : context_.visible_offsets)
      if (o <= b.offset) visible = std::max(visible, o);
    if (hidden < 0 || visible > hidden) return -1;
    const std::vector<int64_t>& v = context_.visible_offsets;
    return std::find(v.begin(), v.end(), hidden) != v.end() ? -1 : hidden;
  }

  // An async iterator's dispose-mode test under a hidden point, before its first point and after each resumption:
  // `ldarg.0; ldfld <>w__disposeMode; brfalse L; leave EXIT` (a field of the state machine, not its state).
  bool DisposeModeCheck(const Branch& b) const {
    if (!IsBranchIfFalse(b.opcode) || ContainingHiddenPoint(b) < 0) return false;
    std::vector<const Instruction*> prev = Before(b, 2);
    if (prev.size() != 2 || prev[0]->opcode != LDARG_0 || prev[1]->opcode != LDFLD ||
        (state_field_ && prev[1]->operand == *state_field_))
      return false;
    std::vector<const Instruction*> path = At(b.fall_through, 1);
    return path.size() == 1 && (path[0]->opcode == LEAVE || path[0]->opcode == LEAVE_S);
  }

  bool HiddenPointBranch(const Branch& b) const {
    int64_t hidden = ContainingHiddenPoint(b);
    return hidden >= 0 && !UserValueTest(b, hidden) && !AfterAwaitResult(b, hidden);
  }

  // Whether `b` comes after an await's resumption under the hidden point at `hidden`: the state reset to -1
  // (`ldc.i4.m1`, perhaps `dup; stloc`, `stfld <>1__state`) and then a call (the awaiter's GetResult) lie between
  // the hidden point and the branch. The rest of the user's statement runs there (`await F() ?? throw ...`,
  // `await F() && b`): Roslyn puts no visible point after the await.
  bool AfterAwaitResult(const Branch& b, int64_t hidden) const {
    if (!state_field_) return false;
    long i = Index(hidden);
    if (i < 0) return false;
    bool reset = false;
    for (size_t k = static_cast<size_t>(i); k < b.index; ++k) {
      const Instruction& x = ins_[k];
      if (x.opcode == STFLD && x.operand == *state_field_) {
        reset = false;
        size_t j = k;  // the stored value: ldc.i4.m1, then perhaps dup and a store to the state local
        while (j > static_cast<size_t>(i) && (ins_[j - 1].opcode == DUP || LocalStored(ins_[j - 1]) ||
                                              ins_[j - 1].opcode == NOP))
          --j;
        reset = j > static_cast<size_t>(i) && ins_[j - 1].opcode == LDC_I4_M1;
      } else if (reset && (x.opcode == CALL || x.opcode == CALLVIRT)) {
        return true;
      }
    }
    return false;
  }

  bool UserValueTest(const Branch& b, int64_t hidden) const {
    long i = Index(hidden);
    if (i <= 0) return false;
    const Instruction& store = ins_[static_cast<size_t>(i) - 1];
    std::vector<int64_t> locals, fields;
    if (LocalStored(store))
      locals.push_back(*LocalStored(store));
    else if (store.opcode == STFLD)
      fields.push_back(store.operand);
    else
      return false;
    auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    std::vector<const Instruction*> block;
    for (size_t k = static_cast<size_t>(i); k < b.index; ++k)
      if (ins_[k].opcode != NOP) block.push_back(&ins_[k]);
    for (size_t k = 0; k < block.size(); ++k) {
      const Instruction& x = *block[k];
      if (std::optional<int64_t> loaded = LocalLoaded(x)) {
        if (IsLdloca(x.opcode) || !has(locals, *loaded)) return false;
      } else if (x.opcode == LDARG_0 && k + 1 < block.size() && block[k + 1]->opcode == LDFLD &&
                 has(fields, block[k + 1]->operand)) {
        ++k;
      } else if (std::optional<int64_t> stored = LocalStored(x)) {
        locals.push_back(*stored);
      } else if (!(IsConstant(x.opcode) || x.opcode == ADD || x.opcode == SUB || IsConditional(x.opcode) ||
                   x.opcode == BR || x.opcode == BR_S)) {
        return false;
      }
    }
    return true;
  }

  // The positions of the instructions that reach the join at position `i` (a store of the condition's value):
  // the one before it when it falls through, and the one before every `br` to it.
  std::vector<size_t> JoinPredecessors(size_t i) const {
    std::vector<size_t> preds;
    if (i > 0 && !IsUnconditional(ins_[i - 1].opcode) && !IsConditional(ins_[i - 1].opcode))
      preds.push_back(i - 1);
    for (size_t k : BranchesInto(ins_[i].offset))
      if (k > 0) preds.push_back(k - 1);
    return preds;
  }

  // Where the value stored at position `i` (`stloc N`) comes from, as (join position, the positions of the
  // instructions leaving each value): the predecessors of `i`, or, when the value was spilled (VB Debug, a
  // condition after Await: each arm stores `stloc M`, then `J: ldloc M; stloc N`), the values stored at J's.
  std::pair<size_t, std::vector<size_t>> JoinedValues(size_t i) const {
    long j = static_cast<long>(i) - 1;
    while (j >= 0 && ins_[static_cast<size_t>(j)].opcode == NOP) --j;
    if (IsJumpTarget(ins_[i].offset) || j < 0) return {i, JoinPredecessors(i)};
    const Instruction& load = ins_[static_cast<size_t>(j)];
    std::optional<int64_t> spill = LocalLoaded(load);
    if (!spill || IsLdloca(load.opcode) || !IsJumpTarget(load.offset)) return {i, JoinPredecessors(i)};
    std::vector<size_t> values;
    for (size_t k : JoinPredecessors(static_cast<size_t>(j))) {
      if (k == 0 || LocalStored(ins_[k]) != spill) return {i, JoinPredecessors(i)};
      values.push_back(k - 1);
    }
    return {static_cast<size_t>(j), values};
  }

  void ShortCircuitConstants(const Branch& b, BranchFacts* f) const {
    if (!IsUnary(b.opcode)) return;
    std::vector<const Instruction*> prev = Before(b, 1);
    if (prev.empty() || !LocalLoaded(*prev[0]) || IsLdloca(prev[0]->opcode)) return;
    long i = static_cast<long>(prev[0] - ins_.data()) - 1;
    while (i >= 0 && ins_[static_cast<size_t>(i)].opcode == NOP) --i;
    if (i < 0 || LocalStored(ins_[static_cast<size_t>(i)]) != LocalLoaded(*prev[0])) return;
    auto [join, preds] = JoinedValues(static_cast<size_t>(i));
    if (!IsJumpTarget(ins_[join].offset) || preds.size() < 2) return;
    uint32_t true_kind = IsBranchIfTrue(b.opcode) ? 2 : 1, false_kind = IsBranchIfTrue(b.opcode) ? 1 : 2;
    std::vector<Entering> subtract[2];
    int computed = 0;
    for (size_t k : preds) {
      const Instruction& x = ins_[k];
      if ((x.opcode != LDC_I4_0 && x.opcode != LDC_I4_1) || !IsJumpTarget(x.offset)) {
        ++computed;
        continue;
      }
      // Only jumps may enter a constant block (never a fall-through from computed code).
      if (k > 0) {
        uint16_t before = ins_[k - 1].opcode;
        if (!IsUnconditional(before) && !IsConditional(before) && before != RET) return;
      }
      std::vector<Entering>& into = subtract[(x.opcode == LDC_I4_1 ? true_kind : false_kind) - 1];
      for (const Branch& other : branches_) {
        if (other.fall_through == int64_t{x.offset}) into.emplace_back(other.offset, 1);
        for (size_t j = 0; j < other.targets.size(); ++j)
          if (other.targets[j] == int64_t{x.offset}) into.emplace_back(other.offset, static_cast<uint32_t>(2 + j));
      }
    }
    if (computed != 1) return;
    f->has_short_circuit = true;
    f->true_kind = true_kind;
    f->subtract[0] = std::move(subtract[0]);
    f->subtract[1] = std::move(subtract[1]);
  }

  bool TestsZeroComparison(const Branch& b) const {
    if (!IsUnary(b.opcode)) return false;
    auto back = [this](long i) {
      while (i >= 0 && ins_[static_cast<size_t>(i)].opcode == NOP) --i;
      return i;
    };
    long i = back(static_cast<long>(b.index) - 1);
    if (i >= 0 && LocalLoaded(ins_[static_cast<size_t>(i)]) && !IsLdloca(ins_[static_cast<size_t>(i)].opcode)) {
      std::optional<int64_t> slot = LocalLoaded(ins_[static_cast<size_t>(i)]);
      i = back(i - 1);
      if (i < 0 || LocalStored(ins_[static_cast<size_t>(i)]) != slot) return false;
      std::vector<size_t> computed;
      for (size_t k : JoinedValues(static_cast<size_t>(i)).second)
        if (!((ins_[k].opcode == LDC_I4_0 || ins_[k].opcode == LDC_I4_1) && IsJumpTarget(ins_[k].offset)))
          computed.push_back(k);
      if (computed.size() != 1) return false;
      i = back(static_cast<long>(computed[0]));
    }
    if (i <= 0 || ins_[static_cast<size_t>(i)].opcode != CEQ) return false;
    long j = back(i - 1);  // (-1: Python's ins[-1], the last instruction)
    return ins_[j < 0 ? ins_.size() - 1 : static_cast<size_t>(j)].opcode == LDC_I4_0;
  }

  const std::vector<Instruction>& ins_;
  const std::vector<ExceptionClause>& clauses_;
  const MethodContext& context_;
  std::vector<int64_t> jump_targets_;  // sorted
  std::vector<std::pair<int64_t, size_t>> br_into_;  // (target, position) of each br/br.s, by target, IL order
  std::optional<int64_t> state_field_, state_local_;
  std::vector<Branch> branches_;
};

}  // namespace

std::vector<BranchFacts> AnalyseBranches(const MethodBody& body, const MethodContext& context) {
  Method method(body, context);
  std::vector<BranchFacts> out;
  out.reserve(method.branches().size());
  for (const Branch& b : method.branches()) out.push_back(method.Facts(b));
  return out;
}

}  // namespace dotcov::il
