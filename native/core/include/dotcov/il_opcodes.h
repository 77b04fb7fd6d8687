// ECMA-335 Partition III opcode table: every one-byte (0x00-0xE0) and two-byte
// (0xFE xx) CIL opcode with its operand kind, stack behaviour and control flow.
#pragma once

#include <cstdint>
#include <span>

namespace dotcov::il {

// Opcodes are identified by a uint16_t: one-byte opcodes are 0x00XX, two-byte
// opcodes are 0xFEXX (0xFE is never a one-byte opcode).
enum class OperandKind : uint8_t {
  kNone,
  kInt8,         // ldc.i4.s
  kUInt8,        // short variable index (ldarg.s ...), unaligned., no.
  kUInt16,       // variable index (ldarg, ldloc ...)
  kInt32,        // ldc.i4
  kInt64,        // ldc.i8
  kFloat32,      // ldc.r4 (kept as raw bits)
  kFloat64,      // ldc.r8 (kept as raw bits)
  kToken,        // metadata token
  kBranchShort,  // int8 displacement from the end of the instruction
  kBranchLong,   // int32 displacement from the end of the instruction
  kSwitch,       // uint32 count, then count int32 displacements from the end
};

enum class FlowKind : uint8_t {
  kNext,        // falls through
  kBranch,      // unconditional: br, br.s, leave, leave.s
  kCondBranch,  // conditional branches and switch (also fall through)
  kReturn,      // ret, endfinally, endfilter
  kThrow,       // throw, rethrow
  kCall,        // call family (and jmp, which does not return)
  kMeta,        // prefixes
};

// Stack counts: >= 0 fixed; kVaries = depends on the signature of the operand
// (call, callvirt, calli, newobj) or of the method (ret); kClearsStack = the
// instruction empties the evaluation stack (leave, leave.s, endfinally).
constexpr int8_t kVaries = -1;
constexpr int8_t kClearsStack = -2;

struct OpcodeInfo {
  uint16_t value;
  const char* name;
  OperandKind operand;
  int8_t pops;
  int8_t pushes;
  FlowKind flow;
};

namespace op {
constexpr uint16_t kNop = 0x00;
constexpr uint16_t kLdcI4 = 0x20;
constexpr uint16_t kJmp = 0x27;
constexpr uint16_t kCall = 0x28;
constexpr uint16_t kCalli = 0x29;
constexpr uint16_t kRet = 0x2A;
constexpr uint16_t kBrS = 0x2B;
constexpr uint16_t kBr = 0x38;
constexpr uint16_t kSwitch = 0x45;
constexpr uint16_t kCallvirt = 0x6F;
constexpr uint16_t kNewobj = 0x73;
constexpr uint16_t kThrow = 0x7A;
constexpr uint16_t kEndfinally = 0xDC;
constexpr uint16_t kLeave = 0xDD;
constexpr uint16_t kLeaveS = 0xDE;
constexpr uint16_t kEndfilter = 0xFE11;
constexpr uint16_t kUnaligned = 0xFE12;
constexpr uint16_t kVolatile = 0xFE13;
constexpr uint16_t kTail = 0xFE14;
constexpr uint16_t kConstrained = 0xFE16;
constexpr uint16_t kNo = 0xFE19;
constexpr uint16_t kRethrow = 0xFE1A;
constexpr uint16_t kReadonly = 0xFE1E;
}  // namespace op

// nullptr for values that are not a defined opcode.
const OpcodeInfo* LookupOpcode(uint16_t value);

// All defined opcodes, one-byte first, in ascending order.
std::span<const OpcodeInfo> AllOpcodes();

// Bytes taken by the operand; -1 for kSwitch (4 + 4 * count).
int OperandSize(OperandKind kind);

// 1 or 2.
inline uint32_t OpcodeByteSize(uint16_t value) { return (value >> 8) == 0xFE ? 2u : 1u; }

bool IsPrefix(uint16_t value);
bool IsBranch(uint16_t value);       // operand is a branch target (not switch)
bool IsShortBranch(uint16_t value);  // br.s ... leave.s
bool IsCallFamily(uint16_t value);   // call, callvirt, calli, newobj

// Long form of a short branch (br.s -> br, leave.s -> leave); 0 if none.
uint16_t LongFormOf(uint16_t short_branch);
// Short form of a long branch; 0 if none.
uint16_t ShortFormOf(uint16_t long_branch);

}  // namespace dotcov::il
