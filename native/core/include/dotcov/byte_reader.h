// Bounds-checked little-endian reading over untrusted bytes (assemblies, PDBs,
// data files). Every read reports failure instead of reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace dotcov {

using Bytes = std::span<const uint8_t>;

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(Bytes data) : data_(data) {}

  size_t pos() const { return pos_; }
  size_t size() const { return data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  bool ok() const { return ok_; }
  Bytes data() const { return data_; }

  bool Seek(size_t pos) {
    if (pos > data_.size()) return ok_ = false;
    pos_ = pos;
    return true;
  }
  bool Skip(size_t n) {
    if (n > remaining()) return ok_ = false;
    pos_ += n;
    return true;
  }

  template <typename T>
  bool Read(T* out) {
    static_assert(std::is_integral_v<T>);
    if (sizeof(T) > remaining()) {
      ok_ = false;
      *out = 0;
      return false;
    }
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<uint64_t>(data_[pos_ + i]) << (8 * i));
    *out = v;
    pos_ += sizeof(T);
    return true;
  }
  uint8_t U8() { uint8_t v; Read(&v); return v; }
  uint16_t U16() { uint16_t v; Read(&v); return v; }
  uint32_t U32() { uint32_t v; Read(&v); return v; }
  uint64_t U64() { uint64_t v; Read(&v); return v; }

  // Reads n bytes as a sub-span; empty and !ok() when out of range.
  Bytes Take(size_t n) {
    if (n > remaining()) {
      ok_ = false;
      return {};
    }
    Bytes r = data_.subspan(pos_, n);
    pos_ += n;
    return r;
  }

  // ECMA-335 II.23.2 compressed unsigned integer.
  bool ReadCompressedU32(uint32_t* out) {
    *out = 0;
    if (remaining() < 1) return ok_ = false;
    uint8_t b0 = data_[pos_];
    if ((b0 & 0x80) == 0) {
      *out = b0;
      pos_ += 1;
      return true;
    }
    if ((b0 & 0xC0) == 0x80) {
      if (remaining() < 2) return ok_ = false;
      *out = ((b0 & 0x3Fu) << 8) | data_[pos_ + 1];
      pos_ += 2;
      return true;
    }
    if ((b0 & 0xE0) == 0xC0) {
      if (remaining() < 4) return ok_ = false;
      *out = ((b0 & 0x1Fu) << 24) | (uint32_t(data_[pos_ + 1]) << 16) | (uint32_t(data_[pos_ + 2]) << 8) |
             data_[pos_ + 3];
      pos_ += 4;
      return true;
    }
    return ok_ = false;
  }

  // ECMA-335 II.23.2 compressed signed integer (rotated sign bit).
  bool ReadCompressedI32(int32_t* out) {
    *out = 0;
    size_t start = pos_;
    uint32_t raw;
    if (!ReadCompressedU32(&raw)) return false;
    size_t len = pos_ - start;
    bool negative = raw & 1;
    uint32_t magnitude = raw >> 1;
    if (!negative) {
      *out = static_cast<int32_t>(magnitude);
    } else if (len == 1) {
      *out = static_cast<int32_t>(magnitude | 0xFFFFFFC0u);
    } else if (len == 2) {
      *out = static_cast<int32_t>(magnitude | 0xFFFFE000u);
    } else {
      *out = static_cast<int32_t>(magnitude | 0xF0000000u);
    }
    return true;
  }

 private:
  Bytes data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace dotcov
