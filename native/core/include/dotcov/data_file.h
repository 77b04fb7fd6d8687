// The per-process coverage data file (format described in docs/architecture.md).
//
// The agent maps the file MAP_SHARED and probes increment counters in place, so
// every completed increment is in the page cache and survives SIGKILL, abort or
// a vstest kill: no flush, no shutdown callback needed.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

inline constexpr char kDataMagic[8] = {'D', 'O', 'T', 'C', 'O', 'V', 'D', '\x1a'};
inline constexpr uint32_t kDataFormatVersion = 2;
inline constexpr uint32_t kFileHeaderSize = 64;
inline constexpr uint32_t kRecordHeaderSize = 16;

enum class RecordKind : uint32_t { kModule = 1, kProcess = 2 };
enum class RecordState : uint32_t { kWriting = 0, kCommitted = 1 };

// What a probe site counts.
enum SiteKind : uint32_t {
  kSequencePoint = 0,
  // Outcomes of the conditional branch or switch at il_offset: fall-through
  // (condition false, switch default), then target i at kBranchTarget + i.
  kBranchFallThrough = 1,
  kBranchTarget = 2,
};

// One probe site: a sequence point, or one outcome of a branch, of a method.
struct ProbeSite {
  uint32_t method_token = 0;
  uint32_t il_offset = 0;
  uint32_t kind = kSequencePoint;
  bool operator==(const ProbeSite&) const = default;
};

struct ModuleIdentity {
  std::array<uint8_t, 16> mvid{};
  std::array<uint8_t, 20> pdb_id{};
  std::string path;  // UTF-8 path the module was loaded from
};

// Writes a data file for the agent. Not copyable; all methods thread-safe.
class DataFileWriter {
 public:
  DataFileWriter() = default;
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  // Reserves `capacity` bytes of address space so the counter base address is
  // known (and fixed) before any file exists.
  bool Reserve(size_t capacity, std::string* error);
  uint8_t* base() const { return base_; }

  // Creates the file (owner-only, never overwriting: O_EXCL with a random
  // suffix) in `dir` and maps it over the reservation. Idempotent.
  bool Create(const std::string& dir, uint32_t pid, std::string* error);
  bool created() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

  // Appends a process record (command line etc.). Requires Create.
  bool AddProcessInfo(const std::string& command_line, const std::string& cwd, std::string* error);

  // Appends a module record with zeroed counters. Returns the slot of the
  // first counter: counter i of the module lives at base() + 8 * (slot + i).
  std::optional<uint32_t> AddModule(const ModuleIdentity& id, const std::vector<ProbeSite>& sites,
                                    std::string* error);

  // Best effort msync of what has been written (never required for safety).
  void Sync();

 private:
  std::optional<uint64_t> Append(RecordKind kind, size_t body_size, std::string* error);
  void Commit(uint64_t offset);

  std::mutex mu_;
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  uint64_t size_ = 0;
  int fd_ = -1;
  std::string path_;
};

struct ModuleData {
  ModuleIdentity id;
  std::vector<ProbeSite> sites;
  std::vector<uint64_t> hits;
};

struct ProcessData {
  std::string command_line;
  std::string cwd;
};

struct DataFile {
  uint32_t format_version = 0;
  uint32_t pid = 0;
  uint64_t start_time_ns = 0;
  std::vector<ProcessData> processes;
  std::vector<ModuleData> modules;
  // Problems found while reading; what precedes them was still read.
  std::vector<std::string> warnings;
};

// Parses data-file bytes. Returns false only when nothing is usable (not a
// dotcov data file, or an unsupported version); a file cut short yields what it
// holds plus a warning.
bool ParseDataFile(Bytes bytes, DataFile* out, std::string* error);

// Serialises a data file (used by `dotcov combine`). Hit counts saturate.
std::vector<uint8_t> SerializeDataFile(const DataFile& file);

}  // namespace dotcov
