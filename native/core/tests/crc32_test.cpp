#include "dotcov/crc32.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace dotcov;

namespace {

// The definition, one bit at a time: the oracle for the library's table-driven CRC.
uint32_t BitwiseCrc32(const uint8_t* p, size_t n, uint32_t crc = 0) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return ~crc;
}

}  // namespace

TEST(Crc32, KnownCheckValues) {
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(Crc32(check, sizeof check), 0xCBF43926u);
  EXPECT_EQ(Crc32(nullptr, 0), 0u);
  EXPECT_EQ(Crc32(nullptr, 0, 0xDEADBEEFu), 0xDEADBEEFu);
}

TEST(Crc32, EqualsTheBitwiseDefinitionAtEveryLengthAndAlignment) {
  std::mt19937 rng(24);
  std::vector<uint8_t> buffer(300 + 8);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  for (size_t start = 0; start < 8; ++start) {
    for (size_t n = 0; n <= 300; ++n) {
      const uint8_t* p = buffer.data() + start;
      ASSERT_EQ(Crc32(p, n), BitwiseCrc32(p, n)) << "start " << start << ", length " << n;
      const uint32_t seed = static_cast<uint32_t>(rng());
      ASSERT_EQ(Crc32(p, n, seed), BitwiseCrc32(p, n, seed)) << "start " << start << ", length " << n;
    }
  }
}

TEST(Crc32, ChainsAcrossAnySplit) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buffer(300);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  const uint32_t whole = BitwiseCrc32(buffer.data(), buffer.size());
  for (size_t cut = 0; cut <= buffer.size(); ++cut)
    ASSERT_EQ(Crc32(buffer.data() + cut, buffer.size() - cut, Crc32(buffer.data(), cut)), whole) << "cut " << cut;
}
