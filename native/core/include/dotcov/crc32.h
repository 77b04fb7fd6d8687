// The data file's checksum: the standard CRC-32 (zlib's polynomial, reflected, inverted before and after), zlib's
// crc32 over any length; it catches every burst of up to 32 flipped bits. Chains: Crc32(b, m, Crc32(a, n)) is the
// CRC of a's n bytes followed by b's m.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dotcov {

uint32_t Crc32(const uint8_t* p, size_t n, uint32_t crc = 0);

}  // namespace dotcov
