// PE/COFF image reader for managed assemblies (ECMA-335 II.25, dotnet/runtime
// docs/design/specs/PE-COFF.md). Parses an untrusted byte span; never reads
// out of bounds. A PeImage does NOT own its bytes: the span given to Parse
// must outlive it (and every Bytes it returns).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

struct PeSection {
  std::string name;  // up to 8 characters
  uint32_t virtual_address = 0;
  uint32_t virtual_size = 0;
  uint32_t raw_size = 0;    // SizeOfRawData
  uint32_t raw_offset = 0;  // PointerToRawData
  uint32_t characteristics = 0;
};

struct DebugDirectoryEntry {
  uint32_t characteristics = 0;
  uint32_t stamp = 0;  // TimeDateStamp
  uint16_t major_version = 0;
  uint16_t minor_version = 0;
  uint32_t type = 0;
  uint32_t data_size = 0;
  uint32_t data_rva = 0;     // AddressOfRawData
  uint32_t data_offset = 0;  // PointerToRawData
  Bytes data;                // resolved payload (empty if it could not be located)
};

// Debug directory entry types (PE-COFF.md).
inline constexpr uint32_t kDebugTypeCodeView = 2;
inline constexpr uint32_t kDebugTypeReproducible = 16;
inline constexpr uint32_t kDebugTypeEmbeddedPortablePdb = 17;
inline constexpr uint32_t kDebugTypePdbChecksum = 19;
inline constexpr uint16_t kPortableCodeViewMinorVersion = 0x504D;

// CLI header flags (ECMA-335 II.25.3.3.1).
inline constexpr uint32_t kComImageFlagsIlOnly = 0x00000001;
inline constexpr uint32_t kComImageFlags32BitRequired = 0x00000002;
inline constexpr uint32_t kComImageFlagsIlLibrary = 0x00000004;
inline constexpr uint32_t kComImageFlagsStrongNameSigned = 0x00000008;
inline constexpr uint32_t kComImageFlagsNativeEntryPoint = 0x00000010;
inline constexpr uint32_t kComImageFlagsTrackDebugData = 0x00010000;
inline constexpr uint32_t kComImageFlags32BitPreferred = 0x00020000;

struct CodeViewInfo {
  std::array<uint8_t, 16> guid{};
  uint32_t age = 0;
  uint32_t stamp = 0;  // TimeDateStamp of the debug directory entry
  std::string path;    // UTF-8 as stored (may be a Windows path or "/_/..." path)
  bool portable = false;  // MinorVersion == 0x504D (Portable PDB)
  // The Portable PDB id this entry refers to: guid followed by stamp (LE).
  std::array<uint8_t, 20> pdb_id() const;
};

struct CliHeader {
  uint16_t major_runtime_version = 0;
  uint16_t minor_runtime_version = 0;
  uint32_t metadata_rva = 0, metadata_size = 0;
  uint32_t flags = 0;
  uint32_t entry_point_token = 0;  // or native entry point RVA (flags & NATIVE_ENTRYPOINT)
  uint32_t resources_rva = 0, resources_size = 0;
  uint32_t strong_name_rva = 0, strong_name_size = 0;
  uint32_t managed_native_header_rva = 0, managed_native_header_size = 0;
};

enum class PeLayout {
  kFile,    // bytes of the file on disk (RVA -> PointerToRawData mapping)
  kMapped,  // image as mapped by the loader (offset == RVA)
};

class PeImage {
 public:
  // Parses the headers. Returns std::nullopt and sets *error (if non-null) on
  // malformed input. A non-managed (native) PE parses successfully with
  // is_managed() == false.
  static std::optional<PeImage> Parse(Bytes image, std::string* error, PeLayout layout = PeLayout::kFile);

  Bytes bytes() const { return image_; }
  PeLayout layout() const { return layout_; }
  bool is_pe32_plus() const { return pe32_plus_; }
  uint16_t machine() const { return machine_; }
  uint32_t coff_stamp() const { return coff_stamp_; }
  uint16_t characteristics() const { return characteristics_; }
  const std::vector<PeSection>& sections() const { return sections_; }

  // Maps an RVA to an offset into bytes(); std::nullopt if it is not backed by
  // data in the image.
  std::optional<size_t> RvaToOffset(uint32_t rva) const;
  // `size` bytes at `rva`, or empty if any of them lies outside the image data.
  Bytes BytesAtRva(uint32_t rva, uint32_t size) const;

  bool is_managed() const { return cli_.has_value(); }
  const std::optional<CliHeader>& cli_header() const { return cli_; }
  uint32_t cli_flags() const { return cli_ ? cli_->flags : 0; }
  bool is_il_only() const { return cli_flags() & kComImageFlagsIlOnly; }
  // ReadyToRun / NGen-style precompiled code present.
  bool has_ready_to_run() const;
  // The CLI metadata root (starts with "BSJB"); empty if not managed.
  Bytes metadata() const { return metadata_; }

  const std::vector<DebugDirectoryEntry>& debug_entries() const { return debug_; }
  // The first CodeView (RSDS) entry.
  std::optional<CodeViewInfo> codeview() const;
  bool has_embedded_pdb() const;
  bool is_deterministic() const;
  // Inflates the embedded Portable PDB (debug entry type 17). Returns false
  // with *error on failure or absence.
  bool ReadEmbeddedPdb(std::vector<uint8_t>* out, std::string* error) const;

  // Bytes from `rva` to the end of the data of its section (for reading a
  // method body; the caller decodes the header). Empty if the RVA is invalid.
  Bytes MethodBodyAt(uint32_t rva) const;

  static constexpr uint32_t kMaxEmbeddedPdbSize = 256u << 20;

 private:
  Bytes image_;
  PeLayout layout_ = PeLayout::kFile;
  bool pe32_plus_ = false;
  uint16_t machine_ = 0;
  uint32_t coff_stamp_ = 0;
  uint16_t characteristics_ = 0;
  uint32_t size_of_headers_ = 0;
  std::vector<PeSection> sections_;
  std::optional<CliHeader> cli_;
  Bytes metadata_;
  std::vector<DebugDirectoryEntry> debug_;
};

// Raw-deflate (RFC 1951) decompression into exactly `expected_size` bytes;
// false with *error if the stream is corrupt or sizes disagree.
bool InflateRaw(Bytes compressed, size_t expected_size, std::vector<uint8_t>* out, std::string* error);

}  // namespace dotcov
