#include "dotcov/pe_image.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace dotcov {
namespace {

bool Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

constexpr size_t kDebugEntrySize = 28;
constexpr size_t kCliHeaderSize = 72;
constexpr uint32_t kMaxDebugEntries = 4096;

}  // namespace

std::array<uint8_t, 20> CodeViewInfo::pdb_id() const {
  std::array<uint8_t, 20> id{};
  std::memcpy(id.data(), guid.data(), 16);
  for (int i = 0; i < 4; ++i) id[16 + i] = static_cast<uint8_t>(stamp >> (8 * i));
  return id;
}

bool InflateRaw(Bytes compressed, size_t expected_size, std::vector<uint8_t>* out, std::string* error) {
  out->clear();
  // Deflate cannot compress better than ~1032:1; anything claiming more is
  // corrupt, and checking it keeps the allocation proportional to the input.
  if (expected_size > compressed.size() * 1032 + 1024) {
    return Fail(error, "compressed data claims an impossible uncompressed size");
  }
  if (compressed.size() > 0xFFFFFFFFu || expected_size > 0xFFFFFFFFu) {
    return Fail(error, "compressed data is too large");
  }
  try {
    out->resize(expected_size);
  } catch (const std::bad_alloc&) {
    return Fail(error, "out of memory while decompressing");
  }
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, -15) != Z_OK) return Fail(error, "zlib initialisation failed");
  // zlib's API is not const-correct for next_in; it does not write to it.
  zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  uint8_t dummy = 0;
  zs.next_out = expected_size ? reinterpret_cast<Bytef*>(out->data()) : &dummy;
  zs.avail_out = static_cast<uInt>(expected_size);
  int rc = inflate(&zs, Z_FINISH);
  size_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    out->clear();
    if (rc == Z_BUF_ERROR && produced == expected_size && zs.avail_in > 0)
      return Fail(error, "compressed data is larger than its declared size");
    return Fail(error, "compressed data is corrupt or truncated");
  }
  if (produced != expected_size) {
    out->clear();
    return Fail(error, "compressed data is smaller than its declared size");
  }
  return true;
}

std::optional<PeImage> PeImage::Parse(Bytes image, std::string* error, PeLayout layout) {
  try {
    PeImage pe;
    pe.image_ = image;
    pe.layout_ = layout;
    ByteReader r(image);
    if (image.size() < 0x40 || image[0] != 'M' || image[1] != 'Z') {
      Fail(error, "not a PE image (missing MZ signature)");
      return std::nullopt;
    }
    r.Seek(0x3C);
    uint32_t lfanew = r.U32();
    if (!r.Seek(lfanew) || r.remaining() < 24) {
      Fail(error, "not a PE image (PE header offset out of range)");
      return std::nullopt;
    }
    if (r.U32() != 0x00004550u) {
      Fail(error, "not a PE image (missing PE signature)");
      return std::nullopt;
    }
    pe.machine_ = r.U16();
    uint16_t num_sections = r.U16();
    pe.coff_stamp_ = r.U32();
    r.Skip(8);  // symbol table pointer, number of symbols
    uint16_t opt_size = r.U16();
    pe.characteristics_ = r.U16();
    size_t opt_start = r.pos();
    if (opt_size < 2 || r.remaining() < opt_size) {
      Fail(error, "truncated PE optional header");
      return std::nullopt;
    }
    ByteReader opt(image.subspan(opt_start, opt_size));
    uint16_t magic = opt.U16();
    size_t num_dirs_off, dirs_off;
    if (magic == 0x10b) {
      num_dirs_off = 92;
      dirs_off = 96;
    } else if (magic == 0x20b) {
      pe.pe32_plus_ = true;
      num_dirs_off = 108;
      dirs_off = 112;
    } else {
      Fail(error, "unknown PE optional header magic");
      return std::nullopt;
    }
    if (!opt.Seek(60)) {
      Fail(error, "truncated PE optional header");
      return std::nullopt;
    }
    pe.size_of_headers_ = opt.U32();
    uint32_t num_dirs = 0;
    if (opt.Seek(num_dirs_off)) num_dirs = opt.U32();
    if (!opt.ok()) num_dirs = 0;
    uint32_t max_dirs = opt_size > dirs_off ? static_cast<uint32_t>((opt_size - dirs_off) / 8) : 0;
    num_dirs = std::min({num_dirs, max_dirs, 16u});
    uint32_t dir_rva[16] = {}, dir_size[16] = {};
    opt.Seek(std::min<size_t>(dirs_off, opt_size));
    for (uint32_t i = 0; i < num_dirs; ++i) {
      dir_rva[i] = opt.U32();
      dir_size[i] = opt.U32();
    }

    // Section table.
    if (!r.Seek(opt_start + opt_size) || r.remaining() / 40 < num_sections) {
      Fail(error, "truncated PE section table");
      return std::nullopt;
    }
    pe.sections_.reserve(num_sections);
    for (uint16_t i = 0; i < num_sections; ++i) {
      PeSection s;
      Bytes name = r.Take(8);
      size_t len = 0;
      while (len < 8 && name[len] != 0) ++len;
      s.name.assign(reinterpret_cast<const char*>(name.data()), len);
      s.virtual_size = r.U32();
      s.virtual_address = r.U32();
      s.raw_size = r.U32();
      s.raw_offset = r.U32();
      r.Skip(12);
      s.characteristics = r.U32();
      pe.sections_.push_back(std::move(s));
    }

    // CLI header (data directory 14).
    if (num_dirs > 14 && dir_rva[14] != 0) {
      Bytes cli = pe.BytesAtRva(dir_rva[14], kCliHeaderSize);
      if (cli.empty()) {
        Fail(error, "CLI header lies outside the image");
        return std::nullopt;
      }
      ByteReader c(cli);
      CliHeader h;
      c.U32();  // cb
      h.major_runtime_version = c.U16();
      h.minor_runtime_version = c.U16();
      h.metadata_rva = c.U32();
      h.metadata_size = c.U32();
      h.flags = c.U32();
      h.entry_point_token = c.U32();
      h.resources_rva = c.U32();
      h.resources_size = c.U32();
      h.strong_name_rva = c.U32();
      h.strong_name_size = c.U32();
      c.Skip(8 * 3);  // CodeManagerTable, VTableFixups, ExportAddressTableJumps
      h.managed_native_header_rva = c.U32();
      h.managed_native_header_size = c.U32();
      pe.metadata_ = pe.BytesAtRva(h.metadata_rva, h.metadata_size);
      if (pe.metadata_.size() < 4) {
        Fail(error, "CLI metadata lies outside the image");
        return std::nullopt;
      }
      pe.cli_ = h;
    }

    // Debug directory (data directory 6). A damaged debug directory is not
    // fatal: the image stays usable, only its debug entries are missing.
    if (num_dirs > 6 && dir_rva[6] != 0 && dir_size[6] >= kDebugEntrySize) {
      uint32_t count = std::min<uint32_t>(dir_size[6] / kDebugEntrySize, kMaxDebugEntries);
      Bytes dir = pe.BytesAtRva(dir_rva[6], count * static_cast<uint32_t>(kDebugEntrySize));
      ByteReader d(dir);
      for (uint32_t i = 0; i < count && d.remaining() >= kDebugEntrySize; ++i) {
        DebugDirectoryEntry e;
        e.characteristics = d.U32();
        e.stamp = d.U32();
        e.major_version = d.U16();
        e.minor_version = d.U16();
        e.type = d.U32();
        e.data_size = d.U32();
        e.data_rva = d.U32();
        e.data_offset = d.U32();
        if (e.data_size != 0) {
          if (layout == PeLayout::kFile && e.data_offset != 0 && e.data_offset <= image.size() &&
              e.data_size <= image.size() - e.data_offset) {
            e.data = image.subspan(e.data_offset, e.data_size);
          } else if (e.data_rva != 0) {
            e.data = pe.BytesAtRva(e.data_rva, e.data_size);
          }
        }
        pe.debug_.push_back(e);
      }
    }
    return pe;
  } catch (...) {
    Fail(error, "out of memory while parsing the PE image");
    return std::nullopt;
  }
}

std::optional<size_t> PeImage::RvaToOffset(uint32_t rva) const {
  if (layout_ == PeLayout::kMapped) {
    if (rva < image_.size()) return rva;
    return std::nullopt;
  }
  for (const PeSection& s : sections_) {
    if (rva < s.virtual_address) continue;
    uint64_t delta = rva - s.virtual_address;
    uint64_t limit = s.raw_size;
    if (s.virtual_size != 0) limit = std::min<uint64_t>(limit, s.virtual_size);
    if (delta >= limit) continue;
    uint64_t off = uint64_t(s.raw_offset) + delta;
    if (off >= image_.size()) return std::nullopt;
    return static_cast<size_t>(off);
  }
  // Headers are mapped at RVA 0 with identical offsets.
  if (rva < size_of_headers_ && rva < image_.size()) {
    bool in_section = false;
    for (const PeSection& s : sections_) in_section |= rva >= s.virtual_address;
    if (!in_section) return rva;
  }
  return std::nullopt;
}

Bytes PeImage::BytesAtRva(uint32_t rva, uint32_t size) const {
  Bytes body = MethodBodyAt(rva);
  if (body.size() < size) return {};
  return body.first(size);
}

Bytes PeImage::MethodBodyAt(uint32_t rva) const {
  if (layout_ == PeLayout::kMapped) {
    for (const PeSection& s : sections_) {
      if (rva < s.virtual_address) continue;
      uint64_t delta = rva - s.virtual_address;
      uint64_t limit = std::max(s.virtual_size, s.raw_size);
      if (delta >= limit) continue;
      uint64_t end = std::min<uint64_t>(uint64_t(s.virtual_address) + limit, image_.size());
      if (rva >= end) return {};
      return image_.subspan(rva, static_cast<size_t>(end - rva));
    }
    if (rva < size_of_headers_ && rva < image_.size())
      return image_.subspan(rva, std::min<size_t>(size_of_headers_, image_.size()) - rva);
    return {};
  }
  for (const PeSection& s : sections_) {
    if (rva < s.virtual_address) continue;
    uint64_t delta = rva - s.virtual_address;
    uint64_t limit = s.raw_size;
    if (s.virtual_size != 0) limit = std::min<uint64_t>(limit, s.virtual_size);
    if (delta >= limit) continue;
    uint64_t off = uint64_t(s.raw_offset) + delta;
    uint64_t end = std::min<uint64_t>(uint64_t(s.raw_offset) + limit, image_.size());
    if (off >= end) return {};
    return image_.subspan(static_cast<size_t>(off), static_cast<size_t>(end - off));
  }
  std::optional<size_t> off = RvaToOffset(rva);  // header range
  if (!off) return {};
  size_t end = std::min<size_t>(size_of_headers_, image_.size());
  if (*off >= end) return {};
  return image_.subspan(*off, end - *off);
}

bool PeImage::has_ready_to_run() const {
  if (!cli_) return false;
  return cli_->managed_native_header_rva != 0 || cli_->managed_native_header_size != 0 ||
         (cli_->flags & kComImageFlagsIlLibrary) != 0;
}

std::optional<CodeViewInfo> PeImage::codeview() const {
  for (const DebugDirectoryEntry& e : debug_) {
    if (e.type != kDebugTypeCodeView) continue;
    ByteReader r(e.data);
    if (r.U32() != 0x53445352u) continue;  // "RSDS"
    CodeViewInfo cv;
    Bytes guid = r.Take(16);
    if (!r.ok()) continue;
    std::memcpy(cv.guid.data(), guid.data(), 16);
    cv.age = r.U32();
    if (!r.ok()) continue;
    Bytes rest = r.Take(r.remaining());
    size_t len = 0;
    while (len < rest.size() && rest[len] != 0) ++len;
    cv.path.assign(reinterpret_cast<const char*>(rest.data()), len);
    cv.stamp = e.stamp;
    cv.portable = e.minor_version == kPortableCodeViewMinorVersion;
    return cv;
  }
  return std::nullopt;
}

bool PeImage::has_embedded_pdb() const {
  for (const DebugDirectoryEntry& e : debug_)
    if (e.type == kDebugTypeEmbeddedPortablePdb) return true;
  return false;
}

bool PeImage::is_deterministic() const {
  for (const DebugDirectoryEntry& e : debug_)
    if (e.type == kDebugTypeReproducible) return true;
  return false;
}

bool PeImage::ReadEmbeddedPdb(std::vector<uint8_t>* out, std::string* error) const {
  out->clear();
  for (const DebugDirectoryEntry& e : debug_) {
    if (e.type != kDebugTypeEmbeddedPortablePdb) continue;
    ByteReader r(e.data);
    if (r.U32() != 0x4244504Du) return Fail(error, "embedded PDB entry lacks the MPDB signature");  // "MPDB"
    uint32_t size = r.U32();
    if (!r.ok()) return Fail(error, "embedded PDB entry is truncated");
    if (size > kMaxEmbeddedPdbSize) return Fail(error, "embedded PDB is implausibly large");
    std::string why;
    if (!InflateRaw(r.Take(r.remaining()), size, out, &why))
      return Fail(error, "embedded PDB cannot be decompressed: " + why);
    return true;
  }
  return Fail(error, "the assembly has no embedded PDB");
}

}  // namespace dotcov
