#include "dotcov/crc32.h"

#include <zlib.h>

namespace dotcov {

// zlib's CRC (several bytes a step) rather than a table of our own: the core links zlib already for PDB and PE
// inflate, the agent included. crc32_z (zlib 1.2.9 on) takes a size_t length; given a null buffer it returns the
// initial value instead of `crc`, hence the empty case here.
uint32_t Crc32(const uint8_t* p, size_t n, uint32_t crc) {
  return n == 0 ? crc : static_cast<uint32_t>(crc32_z(crc, p, n));
}

}  // namespace dotcov
