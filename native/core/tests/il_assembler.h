// Hand assembly of IL method bodies for the core's tests: an assembler with
// labels, and tiny/fat headers and small/fat exception sections around code.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dotcov/il_method.h"

namespace dotcov::il::testing {

// --- hand assembly ---------------------------------------------------------

struct Asm {
  std::vector<uint8_t> b;
  std::map<std::string, uint32_t> labels;
  struct Fixup {
    size_t at;
    int size;
    uint32_t end;
    std::string label;
  };
  std::vector<Fixup> fixups;

  uint32_t here() const { return static_cast<uint32_t>(b.size()); }
  Asm& op(uint16_t opcode) {
    if ((opcode >> 8) == 0xFE) b.push_back(0xFE);
    b.push_back(static_cast<uint8_t>(opcode));
    return *this;
  }
  Asm& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Asm& u16(uint16_t v) { return u8(v & 0xFF).u8(v >> 8); }
  Asm& u32(uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
  Asm& tok(uint16_t opcode, uint32_t token) { return op(opcode).u32(token); }
  Asm& u64(uint64_t v) { return u32(static_cast<uint32_t>(v)).u32(static_cast<uint32_t>(v >> 32)); }
  Asm& label(const std::string& name) {
    labels[name] = here();
    return *this;
  }
  Asm& br(uint16_t opcode, const std::string& target) {
    op(opcode);
    int size = IsShortBranch(opcode) ? 1 : 4;
    fixups.push_back({b.size(), size, here() + size, target});
    for (int i = 0; i < size; ++i) b.push_back(0);
    return *this;
  }
  Asm& sw(const std::vector<std::string>& targets) {
    op(op::kSwitch).u32(static_cast<uint32_t>(targets.size()));
    uint32_t end = here() + 4 * static_cast<uint32_t>(targets.size());
    for (const auto& t : targets) {
      fixups.push_back({b.size(), 4, end, t});
      u32(0);
    }
    return *this;
  }
  Asm& nops(int n) {
    for (int i = 0; i < n; ++i) op(op::kNop);
    return *this;
  }
  uint32_t at(const std::string& name) const { return labels.at(name); }
  // False when a short displacement does not fit.
  bool Resolve(std::vector<uint8_t>* out) const {
    *out = b;
    for (const auto& f : fixups) {
      int32_t rel = static_cast<int32_t>(labels.at(f.label)) - static_cast<int32_t>(f.end);
      if (f.size == 1) {
        if (rel < -128 || rel > 127) return false;
        (*out)[f.at] = static_cast<uint8_t>(static_cast<int8_t>(rel));
      } else {
        for (int i = 0; i < 4; ++i) (*out)[f.at + i] = static_cast<uint8_t>(static_cast<uint32_t>(rel) >> (8 * i));
      }
    }
    return true;
  }
  std::vector<uint8_t> code() const {
    std::vector<uint8_t> out;
    EXPECT_TRUE(Resolve(&out));
    return out;
  }
};

inline std::vector<uint8_t> Tiny(const std::vector<uint8_t>& code) {
  std::vector<uint8_t> out{static_cast<uint8_t>(0x2 | (code.size() << 2))};
  out.insert(out.end(), code.begin(), code.end());
  return out;
}

inline std::vector<uint8_t> SmallEh(const std::vector<ExceptionClause>& clauses, bool more = false) {
  std::vector<uint8_t> s{static_cast<uint8_t>(0x01 | (more ? 0x80 : 0)),
                         static_cast<uint8_t>(4 + 12 * clauses.size()), 0, 0};
  Asm a;
  for (const auto& c : clauses) {
    a.u16(static_cast<uint16_t>(c.flags)).u16(static_cast<uint16_t>(c.try_offset)).u8(static_cast<uint8_t>(c.try_length));
    a.u16(static_cast<uint16_t>(c.handler_offset)).u8(static_cast<uint8_t>(c.handler_length));
    a.u32(c.class_token_or_filter_offset);
  }
  s.insert(s.end(), a.b.begin(), a.b.end());
  return s;
}

inline std::vector<uint8_t> FatEh(const std::vector<ExceptionClause>& clauses, bool more = false) {
  uint32_t size = 4 + 24 * static_cast<uint32_t>(clauses.size());
  std::vector<uint8_t> s{static_cast<uint8_t>(0x41 | (more ? 0x80 : 0)), static_cast<uint8_t>(size),
                         static_cast<uint8_t>(size >> 8), static_cast<uint8_t>(size >> 16)};
  Asm a;
  for (const auto& c : clauses)
    a.u32(c.flags).u32(c.try_offset).u32(c.try_length).u32(c.handler_offset).u32(c.handler_length).u32(
        c.class_token_or_filter_offset);
  s.insert(s.end(), a.b.begin(), a.b.end());
  return s;
}

inline std::vector<uint8_t> Fat(const std::vector<uint8_t>& code, uint16_t max_stack, uint32_t locals = 0,
                                bool init_locals = false, const std::vector<std::vector<uint8_t>>& sections = {}) {
  Asm a;
  uint16_t flags = 0x3 | (sections.empty() ? 0 : 0x8) | (init_locals ? 0x10 : 0);
  a.u16(flags | 0x3000).u16(max_stack).u32(static_cast<uint32_t>(code.size())).u32(locals);
  a.b.insert(a.b.end(), code.begin(), code.end());
  for (const auto& s : sections) {
    while (a.b.size() % 4) a.b.push_back(0);
    a.b.insert(a.b.end(), s.begin(), s.end());
  }
  return a.b;
}

}  // namespace dotcov::il::testing
