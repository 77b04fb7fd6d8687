#include "dotcov/il_opcodes.h"

#include <array>

namespace dotcov::il {
namespace {

using K = OperandKind;
using F = FlowKind;
constexpr int8_t V = kVaries;
constexpr int8_t C = kClearsStack;

// ECMA-335 Partition III (and the opcode numbering of Partition III 1.2.1).
constexpr OpcodeInfo kOpcodes[] = {
    {0x00, "nop", K::kNone, 0, 0, F::kNext},
    {0x01, "break", K::kNone, 0, 0, F::kNext},
    {0x02, "ldarg.0", K::kNone, 0, 1, F::kNext},
    {0x03, "ldarg.1", K::kNone, 0, 1, F::kNext},
    {0x04, "ldarg.2", K::kNone, 0, 1, F::kNext},
    {0x05, "ldarg.3", K::kNone, 0, 1, F::kNext},
    {0x06, "ldloc.0", K::kNone, 0, 1, F::kNext},
    {0x07, "ldloc.1", K::kNone, 0, 1, F::kNext},
    {0x08, "ldloc.2", K::kNone, 0, 1, F::kNext},
    {0x09, "ldloc.3", K::kNone, 0, 1, F::kNext},
    {0x0A, "stloc.0", K::kNone, 1, 0, F::kNext},
    {0x0B, "stloc.1", K::kNone, 1, 0, F::kNext},
    {0x0C, "stloc.2", K::kNone, 1, 0, F::kNext},
    {0x0D, "stloc.3", K::kNone, 1, 0, F::kNext},
    {0x0E, "ldarg.s", K::kUInt8, 0, 1, F::kNext},
    {0x0F, "ldarga.s", K::kUInt8, 0, 1, F::kNext},
    {0x10, "starg.s", K::kUInt8, 1, 0, F::kNext},
    {0x11, "ldloc.s", K::kUInt8, 0, 1, F::kNext},
    {0x12, "ldloca.s", K::kUInt8, 0, 1, F::kNext},
    {0x13, "stloc.s", K::kUInt8, 1, 0, F::kNext},
    {0x14, "ldnull", K::kNone, 0, 1, F::kNext},
    {0x15, "ldc.i4.m1", K::kNone, 0, 1, F::kNext},
    {0x16, "ldc.i4.0", K::kNone, 0, 1, F::kNext},
    {0x17, "ldc.i4.1", K::kNone, 0, 1, F::kNext},
    {0x18, "ldc.i4.2", K::kNone, 0, 1, F::kNext},
    {0x19, "ldc.i4.3", K::kNone, 0, 1, F::kNext},
    {0x1A, "ldc.i4.4", K::kNone, 0, 1, F::kNext},
    {0x1B, "ldc.i4.5", K::kNone, 0, 1, F::kNext},
    {0x1C, "ldc.i4.6", K::kNone, 0, 1, F::kNext},
    {0x1D, "ldc.i4.7", K::kNone, 0, 1, F::kNext},
    {0x1E, "ldc.i4.8", K::kNone, 0, 1, F::kNext},
    {0x1F, "ldc.i4.s", K::kInt8, 0, 1, F::kNext},
    {0x20, "ldc.i4", K::kInt32, 0, 1, F::kNext},
    {0x21, "ldc.i8", K::kInt64, 0, 1, F::kNext},
    {0x22, "ldc.r4", K::kFloat32, 0, 1, F::kNext},
    {0x23, "ldc.r8", K::kFloat64, 0, 1, F::kNext},
    {0x25, "dup", K::kNone, 1, 2, F::kNext},
    {0x26, "pop", K::kNone, 1, 0, F::kNext},
    {0x27, "jmp", K::kToken, 0, 0, F::kCall},
    {0x28, "call", K::kToken, V, V, F::kCall},
    {0x29, "calli", K::kToken, V, V, F::kCall},
    {0x2A, "ret", K::kNone, V, 0, F::kReturn},
    {0x2B, "br.s", K::kBranchShort, 0, 0, F::kBranch},
    {0x2C, "brfalse.s", K::kBranchShort, 1, 0, F::kCondBranch},
    {0x2D, "brtrue.s", K::kBranchShort, 1, 0, F::kCondBranch},
    {0x2E, "beq.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x2F, "bge.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x30, "bgt.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x31, "ble.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x32, "blt.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x33, "bne.un.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x34, "bge.un.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x35, "bgt.un.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x36, "ble.un.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x37, "blt.un.s", K::kBranchShort, 2, 0, F::kCondBranch},
    {0x38, "br", K::kBranchLong, 0, 0, F::kBranch},
    {0x39, "brfalse", K::kBranchLong, 1, 0, F::kCondBranch},
    {0x3A, "brtrue", K::kBranchLong, 1, 0, F::kCondBranch},
    {0x3B, "beq", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x3C, "bge", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x3D, "bgt", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x3E, "ble", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x3F, "blt", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x40, "bne.un", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x41, "bge.un", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x42, "bgt.un", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x43, "ble.un", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x44, "blt.un", K::kBranchLong, 2, 0, F::kCondBranch},
    {0x45, "switch", K::kSwitch, 1, 0, F::kCondBranch},
    {0x46, "ldind.i1", K::kNone, 1, 1, F::kNext},
    {0x47, "ldind.u1", K::kNone, 1, 1, F::kNext},
    {0x48, "ldind.i2", K::kNone, 1, 1, F::kNext},
    {0x49, "ldind.u2", K::kNone, 1, 1, F::kNext},
    {0x4A, "ldind.i4", K::kNone, 1, 1, F::kNext},
    {0x4B, "ldind.u4", K::kNone, 1, 1, F::kNext},
    {0x4C, "ldind.i8", K::kNone, 1, 1, F::kNext},
    {0x4D, "ldind.i", K::kNone, 1, 1, F::kNext},
    {0x4E, "ldind.r4", K::kNone, 1, 1, F::kNext},
    {0x4F, "ldind.r8", K::kNone, 1, 1, F::kNext},
    {0x50, "ldind.ref", K::kNone, 1, 1, F::kNext},
    {0x51, "stind.ref", K::kNone, 2, 0, F::kNext},
    {0x52, "stind.i1", K::kNone, 2, 0, F::kNext},
    {0x53, "stind.i2", K::kNone, 2, 0, F::kNext},
    {0x54, "stind.i4", K::kNone, 2, 0, F::kNext},
    {0x55, "stind.i8", K::kNone, 2, 0, F::kNext},
    {0x56, "stind.r4", K::kNone, 2, 0, F::kNext},
    {0x57, "stind.r8", K::kNone, 2, 0, F::kNext},
    {0x58, "add", K::kNone, 2, 1, F::kNext},
    {0x59, "sub", K::kNone, 2, 1, F::kNext},
    {0x5A, "mul", K::kNone, 2, 1, F::kNext},
    {0x5B, "div", K::kNone, 2, 1, F::kNext},
    {0x5C, "div.un", K::kNone, 2, 1, F::kNext},
    {0x5D, "rem", K::kNone, 2, 1, F::kNext},
    {0x5E, "rem.un", K::kNone, 2, 1, F::kNext},
    {0x5F, "and", K::kNone, 2, 1, F::kNext},
    {0x60, "or", K::kNone, 2, 1, F::kNext},
    {0x61, "xor", K::kNone, 2, 1, F::kNext},
    {0x62, "shl", K::kNone, 2, 1, F::kNext},
    {0x63, "shr", K::kNone, 2, 1, F::kNext},
    {0x64, "shr.un", K::kNone, 2, 1, F::kNext},
    {0x65, "neg", K::kNone, 1, 1, F::kNext},
    {0x66, "not", K::kNone, 1, 1, F::kNext},
    {0x67, "conv.i1", K::kNone, 1, 1, F::kNext},
    {0x68, "conv.i2", K::kNone, 1, 1, F::kNext},
    {0x69, "conv.i4", K::kNone, 1, 1, F::kNext},
    {0x6A, "conv.i8", K::kNone, 1, 1, F::kNext},
    {0x6B, "conv.r4", K::kNone, 1, 1, F::kNext},
    {0x6C, "conv.r8", K::kNone, 1, 1, F::kNext},
    {0x6D, "conv.u4", K::kNone, 1, 1, F::kNext},
    {0x6E, "conv.u8", K::kNone, 1, 1, F::kNext},
    {0x6F, "callvirt", K::kToken, V, V, F::kCall},
    {0x70, "cpobj", K::kToken, 2, 0, F::kNext},
    {0x71, "ldobj", K::kToken, 1, 1, F::kNext},
    {0x72, "ldstr", K::kToken, 0, 1, F::kNext},
    {0x73, "newobj", K::kToken, V, 1, F::kCall},
    {0x74, "castclass", K::kToken, 1, 1, F::kNext},
    {0x75, "isinst", K::kToken, 1, 1, F::kNext},
    {0x76, "conv.r.un", K::kNone, 1, 1, F::kNext},
    {0x79, "unbox", K::kToken, 1, 1, F::kNext},
    {0x7A, "throw", K::kNone, 1, 0, F::kThrow},
    {0x7B, "ldfld", K::kToken, 1, 1, F::kNext},
    {0x7C, "ldflda", K::kToken, 1, 1, F::kNext},
    {0x7D, "stfld", K::kToken, 2, 0, F::kNext},
    {0x7E, "ldsfld", K::kToken, 0, 1, F::kNext},
    {0x7F, "ldsflda", K::kToken, 0, 1, F::kNext},
    {0x80, "stsfld", K::kToken, 1, 0, F::kNext},
    {0x81, "stobj", K::kToken, 2, 0, F::kNext},
    {0x82, "conv.ovf.i1.un", K::kNone, 1, 1, F::kNext},
    {0x83, "conv.ovf.i2.un", K::kNone, 1, 1, F::kNext},
    {0x84, "conv.ovf.i4.un", K::kNone, 1, 1, F::kNext},
    {0x85, "conv.ovf.i8.un", K::kNone, 1, 1, F::kNext},
    {0x86, "conv.ovf.u1.un", K::kNone, 1, 1, F::kNext},
    {0x87, "conv.ovf.u2.un", K::kNone, 1, 1, F::kNext},
    {0x88, "conv.ovf.u4.un", K::kNone, 1, 1, F::kNext},
    {0x89, "conv.ovf.u8.un", K::kNone, 1, 1, F::kNext},
    {0x8A, "conv.ovf.i.un", K::kNone, 1, 1, F::kNext},
    {0x8B, "conv.ovf.u.un", K::kNone, 1, 1, F::kNext},
    {0x8C, "box", K::kToken, 1, 1, F::kNext},
    {0x8D, "newarr", K::kToken, 1, 1, F::kNext},
    {0x8E, "ldlen", K::kNone, 1, 1, F::kNext},
    {0x8F, "ldelema", K::kToken, 2, 1, F::kNext},
    {0x90, "ldelem.i1", K::kNone, 2, 1, F::kNext},
    {0x91, "ldelem.u1", K::kNone, 2, 1, F::kNext},
    {0x92, "ldelem.i2", K::kNone, 2, 1, F::kNext},
    {0x93, "ldelem.u2", K::kNone, 2, 1, F::kNext},
    {0x94, "ldelem.i4", K::kNone, 2, 1, F::kNext},
    {0x95, "ldelem.u4", K::kNone, 2, 1, F::kNext},
    {0x96, "ldelem.i8", K::kNone, 2, 1, F::kNext},
    {0x97, "ldelem.i", K::kNone, 2, 1, F::kNext},
    {0x98, "ldelem.r4", K::kNone, 2, 1, F::kNext},
    {0x99, "ldelem.r8", K::kNone, 2, 1, F::kNext},
    {0x9A, "ldelem.ref", K::kNone, 2, 1, F::kNext},
    {0x9B, "stelem.i", K::kNone, 3, 0, F::kNext},
    {0x9C, "stelem.i1", K::kNone, 3, 0, F::kNext},
    {0x9D, "stelem.i2", K::kNone, 3, 0, F::kNext},
    {0x9E, "stelem.i4", K::kNone, 3, 0, F::kNext},
    {0x9F, "stelem.i8", K::kNone, 3, 0, F::kNext},
    {0xA0, "stelem.r4", K::kNone, 3, 0, F::kNext},
    {0xA1, "stelem.r8", K::kNone, 3, 0, F::kNext},
    {0xA2, "stelem.ref", K::kNone, 3, 0, F::kNext},
    {0xA3, "ldelem", K::kToken, 2, 1, F::kNext},
    {0xA4, "stelem", K::kToken, 3, 0, F::kNext},
    {0xA5, "unbox.any", K::kToken, 1, 1, F::kNext},
    {0xB3, "conv.ovf.i1", K::kNone, 1, 1, F::kNext},
    {0xB4, "conv.ovf.u1", K::kNone, 1, 1, F::kNext},
    {0xB5, "conv.ovf.i2", K::kNone, 1, 1, F::kNext},
    {0xB6, "conv.ovf.u2", K::kNone, 1, 1, F::kNext},
    {0xB7, "conv.ovf.i4", K::kNone, 1, 1, F::kNext},
    {0xB8, "conv.ovf.u4", K::kNone, 1, 1, F::kNext},
    {0xB9, "conv.ovf.i8", K::kNone, 1, 1, F::kNext},
    {0xBA, "conv.ovf.u8", K::kNone, 1, 1, F::kNext},
    {0xC2, "refanyval", K::kToken, 1, 1, F::kNext},
    {0xC3, "ckfinite", K::kNone, 1, 1, F::kNext},
    {0xC6, "mkrefany", K::kToken, 1, 1, F::kNext},
    {0xD0, "ldtoken", K::kToken, 0, 1, F::kNext},
    {0xD1, "conv.u2", K::kNone, 1, 1, F::kNext},
    {0xD2, "conv.u1", K::kNone, 1, 1, F::kNext},
    {0xD3, "conv.i", K::kNone, 1, 1, F::kNext},
    {0xD4, "conv.ovf.i", K::kNone, 1, 1, F::kNext},
    {0xD5, "conv.ovf.u", K::kNone, 1, 1, F::kNext},
    {0xD6, "add.ovf", K::kNone, 2, 1, F::kNext},
    {0xD7, "add.ovf.un", K::kNone, 2, 1, F::kNext},
    {0xD8, "mul.ovf", K::kNone, 2, 1, F::kNext},
    {0xD9, "mul.ovf.un", K::kNone, 2, 1, F::kNext},
    {0xDA, "sub.ovf", K::kNone, 2, 1, F::kNext},
    {0xDB, "sub.ovf.un", K::kNone, 2, 1, F::kNext},
    {0xDC, "endfinally", K::kNone, C, 0, F::kReturn},
    {0xDD, "leave", K::kBranchLong, C, 0, F::kBranch},
    {0xDE, "leave.s", K::kBranchShort, C, 0, F::kBranch},
    {0xDF, "stind.i", K::kNone, 2, 0, F::kNext},
    {0xE0, "conv.u", K::kNone, 1, 1, F::kNext},
    // Two-byte opcodes.
    {0xFE00, "arglist", K::kNone, 0, 1, F::kNext},
    {0xFE01, "ceq", K::kNone, 2, 1, F::kNext},
    {0xFE02, "cgt", K::kNone, 2, 1, F::kNext},
    {0xFE03, "cgt.un", K::kNone, 2, 1, F::kNext},
    {0xFE04, "clt", K::kNone, 2, 1, F::kNext},
    {0xFE05, "clt.un", K::kNone, 2, 1, F::kNext},
    {0xFE06, "ldftn", K::kToken, 0, 1, F::kNext},
    {0xFE07, "ldvirtftn", K::kToken, 1, 1, F::kNext},
    {0xFE09, "ldarg", K::kUInt16, 0, 1, F::kNext},
    {0xFE0A, "ldarga", K::kUInt16, 0, 1, F::kNext},
    {0xFE0B, "starg", K::kUInt16, 1, 0, F::kNext},
    {0xFE0C, "ldloc", K::kUInt16, 0, 1, F::kNext},
    {0xFE0D, "ldloca", K::kUInt16, 0, 1, F::kNext},
    {0xFE0E, "stloc", K::kUInt16, 1, 0, F::kNext},
    {0xFE0F, "localloc", K::kNone, 1, 1, F::kNext},
    {0xFE11, "endfilter", K::kNone, 1, 0, F::kReturn},
    {0xFE12, "unaligned.", K::kUInt8, 0, 0, F::kMeta},
    {0xFE13, "volatile.", K::kNone, 0, 0, F::kMeta},
    {0xFE14, "tail.", K::kNone, 0, 0, F::kMeta},
    {0xFE15, "initobj", K::kToken, 1, 0, F::kNext},
    {0xFE16, "constrained.", K::kToken, 0, 0, F::kMeta},
    {0xFE17, "cpblk", K::kNone, 3, 0, F::kNext},
    {0xFE18, "initblk", K::kNone, 3, 0, F::kNext},
    {0xFE19, "no.", K::kUInt8, 0, 0, F::kMeta},
    {0xFE1A, "rethrow", K::kNone, 0, 0, F::kThrow},
    {0xFE1C, "sizeof", K::kToken, 0, 1, F::kNext},
    {0xFE1D, "refanytype", K::kNone, 1, 1, F::kNext},
    {0xFE1E, "readonly.", K::kNone, 0, 0, F::kMeta},
};

constexpr size_t kCount = sizeof(kOpcodes) / sizeof(kOpcodes[0]);

struct Index {
  std::array<int16_t, 256> one{};
  std::array<int16_t, 256> two{};
};

constexpr Index BuildIndex() {
  Index index;
  for (auto& v : index.one) v = -1;
  for (auto& v : index.two) v = -1;
  for (size_t i = 0; i < kCount; ++i) {
    uint16_t value = kOpcodes[i].value;
    if ((value >> 8) == 0xFE) {
      index.two[value & 0xFF] = static_cast<int16_t>(i);
    } else {
      index.one[value & 0xFF] = static_cast<int16_t>(i);
    }
  }
  return index;
}

constexpr Index kIndex = BuildIndex();

}  // namespace

const OpcodeInfo* LookupOpcode(uint16_t value) {
  int16_t i;
  if ((value >> 8) == 0xFE) {
    i = kIndex.two[value & 0xFF];
  } else if ((value >> 8) == 0 && value != 0xFE) {
    i = kIndex.one[value];
  } else {
    return nullptr;
  }
  return i < 0 ? nullptr : &kOpcodes[i];
}

std::span<const OpcodeInfo> AllOpcodes() { return {kOpcodes, kCount}; }

int OperandSize(OperandKind kind) {
  switch (kind) {
    case OperandKind::kNone: return 0;
    case OperandKind::kInt8:
    case OperandKind::kUInt8:
    case OperandKind::kBranchShort: return 1;
    case OperandKind::kUInt16: return 2;
    case OperandKind::kInt32:
    case OperandKind::kFloat32:
    case OperandKind::kToken:
    case OperandKind::kBranchLong: return 4;
    case OperandKind::kInt64:
    case OperandKind::kFloat64: return 8;
    case OperandKind::kSwitch: return -1;
  }
  return 0;
}

bool IsPrefix(uint16_t value) {
  const OpcodeInfo* info = LookupOpcode(value);
  return info && info->flow == FlowKind::kMeta;
}

bool IsBranch(uint16_t value) {
  const OpcodeInfo* info = LookupOpcode(value);
  return info && (info->operand == OperandKind::kBranchShort || info->operand == OperandKind::kBranchLong);
}

bool IsShortBranch(uint16_t value) {
  const OpcodeInfo* info = LookupOpcode(value);
  return info && info->operand == OperandKind::kBranchShort;
}

bool IsCallFamily(uint16_t value) {
  return value == op::kCall || value == op::kCallvirt || value == op::kCalli || value == op::kNewobj;
}

uint16_t LongFormOf(uint16_t short_branch) {
  if (short_branch >= 0x2B && short_branch <= 0x37) return static_cast<uint16_t>(short_branch + (0x38 - 0x2B));
  if (short_branch == op::kLeaveS) return op::kLeave;
  return 0;
}

uint16_t ShortFormOf(uint16_t long_branch) {
  if (long_branch >= 0x38 && long_branch <= 0x44) return static_cast<uint16_t>(long_branch - (0x38 - 0x2B));
  if (long_branch == op::kLeave) return op::kLeaveS;
  return 0;
}

}  // namespace dotcov::il
