#include "dotcov/crc32.h"

#include <zlib.h>

namespace dotcov {

// zlib's CRC (several bytes a step) rather than a table of our own: the core links zlib already for PDB and PE
// inflate, the agent included. crc32 rather than crc32_z (size_t length): crc32_z would make the agent need zlib
// 1.2.9 or newer where it needs any zlib now, hence the 32-bit chunks. A null buffer gives zlib's initial value,
// not `crc`, hence the empty case.
uint32_t Crc32(const uint8_t* p, size_t n, uint32_t crc) {
  constexpr size_t kChunk = size_t{1} << 30;
  uLong c = crc;
  for (; n > kChunk; p += kChunk, n -= kChunk) c = crc32(c, p, static_cast<uInt>(kChunk));
  return n == 0 ? static_cast<uint32_t>(c) : static_cast<uint32_t>(crc32(c, p, static_cast<uInt>(n)));
}

}  // namespace dotcov
