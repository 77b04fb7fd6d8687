// Shared helpers of the libFuzzer targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "dotcov/byte_reader.h"

namespace dotcov::fuzz {

// A violated invariant: report it and abort so libFuzzer records the input.
[[noreturn]] inline void Die(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", what, file, line);
  std::abort();
}

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) ::dotcov::fuzz::Die(#cond, __FILE__, __LINE__); \
  } while (0)

// Reads every byte so ASan sees any span that points outside its buffer.
inline uint64_t Touch(Bytes b) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t x : b) h = (h ^ x) * 1099511628211ull;
  return h;
}
inline uint64_t Touch(std::string_view s) {
  return Touch(Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

// `inner` is empty or lies inside `outer`.
inline bool Within(Bytes inner, Bytes outer) {
  if (inner.empty()) return true;
  auto lo = reinterpret_cast<uintptr_t>(outer.data());
  auto p = reinterpret_cast<uintptr_t>(inner.data());
  return p >= lo && p - lo <= outer.size() && inner.size() <= outer.size() - (p - lo);
}
inline bool Within(std::string_view inner, Bytes outer) {
  return Within(Bytes(reinterpret_cast<const uint8_t*>(inner.data()), inner.size()), outer);
}

// Keeps results alive so the optimiser cannot drop the work.
inline volatile uint64_t g_sink = 0;
inline void Sink(uint64_t v) { g_sink = g_sink + v; }

// Deterministic pseudo-random numbers from the input (for "random" RVAs etc.).
class Rng {
 public:
  explicit Rng(Bytes seed) : s_(Touch(seed) | 1) {}
  uint64_t Next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  uint32_t Below(uint32_t n) { return n ? static_cast<uint32_t>(Next() % n) : 0; }

 private:
  uint64_t s_;
};

}  // namespace dotcov::fuzz
