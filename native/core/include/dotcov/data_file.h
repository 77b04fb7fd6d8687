// The per-process coverage data file (format described in docs/architecture.md).
//
// The agent maps the file MAP_SHARED and probes increment counters in place, so
// every completed increment is in the page cache and survives SIGKILL, abort or
// a vstest kill: no flush, no shutdown callback needed.
//
// File space is reserved (posix_fallocate) before any page of it is used, so a
// full disk or quota never turns a counter increment into SIGBUS: growth fails
// instead, the writer stops growing, and the header counts what was lost. The
// writer holds an flock on the file for the life of the process, so `dotcov
// combine` can tell a live file from a finished one.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

inline constexpr char kDataMagic[8] = {'D', 'O', 'T', 'C', 'O', 'V', 'D', '\x1a'};
// Version 4 adds derived counters (kDerivedCounter); version 5 summed ones
// (kSummedCounter); version 6 checksums (a committed record's state is its
// checksum, the header has one) and the merged-inputs record. Versions 3 to 5,
// which lack them, still read.
inline constexpr uint32_t kDataFormatVersion = 6;
inline constexpr uint32_t kOldestReadableFormatVersion = 3;
inline constexpr uint32_t kFirstDerivedCounterFormatVersion = 4;
inline constexpr uint32_t kFirstChecksumFormatVersion = 6;
// Header flags (version 6, offset 40): the file was written whole by `dotcov
// combine`, so every checksum covers all of its record, counters included.
inline constexpr uint32_t kFileSealed = 1;
// A counter holding no count of its own (counter sharing, counter_sharing.h):
// the top bit set, the low 32 bits the index, in the same module record, of
// the site whose counter it equals. The agent writes it once, before the
// method can run; no probe ever increments it. ParseDataFile replaces it by
// that site's count, so readers and `dotcov combine` see plain counts.
inline constexpr uint64_t kDerivedCounter = uint64_t{1} << 63;
// A derived counter that is the sum of two others (a block entered by two
// counted edges, counter_sharing.h): kDerivedCounter | kSummedCounter |
// (a << 31) | b, a and b site indexes below 2^31 of the same record, each a
// count or derived in turn (never, by construction, from this counter).
inline constexpr uint64_t kSummedCounter = uint64_t{1} << 62;
inline constexpr uint32_t kMaxSummedSource = (uint32_t{1} << 31) - 1;
inline constexpr uint32_t kFileHeaderSize = 64;
// Windows: the writer holds an exclusive lock on the one byte at offset kLiveLockOffsetHigh << 32 while it lives
// (Linux: flock on the whole file); far past any data, since Windows locks are mandatory for reads.
inline constexpr uint32_t kLiveLockOffsetHigh = 0x7FFFFFFF;
#ifdef _WIN32
// Whether the process writing the data file at `path` (UTF-8) still lives: another handle cannot take its live
// lock. What a `combine` on Windows asks before it merges and removes a file (Linux's takes the file's flock).
// False when the file cannot be opened.
bool DataFileWriterAlive(const std::string& path);
#endif
inline constexpr uint32_t kRecordHeaderSize = 16;

enum class RecordKind : uint32_t {
  kModule = 1,
  kProcess = 2,
  kNotMeasured = 3,
  kConflict = 4,
  kContext = 5,      // a per-test context: its id in this file and its name
  kContextHits = 6,  // (context id, counter slot) pairs, appended in place
  kMergedInputs = 7,  // `combine`: the identities of the data files merged into this one
};

// Pairs per context-hits record the agent allocates at a time (16 KiB).
inline constexpr uint32_t kContextHitsPerRecord = 2048;
enum class RecordState : uint32_t { kWriting = 0, kCommitted = 1 };

// What a probe site counts.
enum SiteKind : uint32_t {
  kSequencePoint = 0,
  // Outcomes of the conditional branch or switch at il_offset: fall-through
  // (condition false, switch default), then target i at kBranchTarget + i.
  kBranchFallThrough = 1,
  kBranchTarget = 2,
  // A condition computed into a value with no branch of its own (il::FindValueConditions), counted right after
  // the instruction at il_offset leaves it: the value was false (zero) / true (nonzero).
  kValueFalse = 0x80000000u,
  kValueTrue = 0x80000001u,
  // The right operand of a short circuit Roslyn computed with `or` / `and` and no branch (`ok || flag` with a bool
  // local or argument; il::FindShortCircuitOperands), counted before the operand at il_offset is loaded: the left
  // operand decided the result (the right one is not evaluated in the source), or the right operand was false /
  // true. The left operand's outcomes follow: decided (true for ||, false for &&) or not.
  kOperandSkipped = 0x80000002u,
  kOperandFalse = 0x80000003u,
  kOperandTrue = 0x80000004u,
};

// One probe site: a sequence point, or one outcome of a branch, of a method.
struct ProbeSite {
  uint32_t method_token = 0;
  uint32_t il_offset = 0;
  uint32_t kind = kSequencePoint;
  bool operator==(const ProbeSite&) const = default;
};

// What the agent decided about one method of a covered module (a byte per
// method in the module record, indexed by MethodDef rid - 1).
enum MethodState : uint8_t {
  kMethodNotCompiled = 0,  // never JIT-compiled in this process (so never run)
  kMethodInstrumented = 1,  // its probes are in (sites noted kNotMeasured excepted)
  kMethodNotMeasured = 2,   // left uninstrumented; a kNotMeasured note says why
};

// il_offset and kind of a note about a whole method (not one probe site).
inline constexpr uint32_t kWholeMethod = 0xFFFFFFFF;

// Why a method, or one probe site of it, is not measured.
struct NotMeasuredNote {
  uint32_t method_token = 0;
  uint32_t il_offset = kWholeMethod;
  uint32_t kind = kWholeMethod;
  std::string reason;
  bool operator==(const NotMeasuredNote&) const = default;
};

// Where a module record is, for later per-method updates.
struct ModuleRecordRef {
  uint32_t first_slot = 0;  // counter i of the module lives at base() + 8 * (first_slot + i)
  uint64_t offset = 0;      // of the record in the file
  uint32_t method_count = 0;
};

// Reserves file space as posix_fallocate(fd, offset, len) does: 0 or an errno.
using SpaceAllocator = std::function<int(int fd, uint64_t offset, uint64_t len)>;

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

  // Replaces posix_fallocate (tests inject a full disk this way). Before Create.
  void SetAllocatorForTesting(SpaceAllocator allocator) { allocator_ = std::move(allocator); }

  // Creates the file (owner-only, never overwriting: O_EXCL with a random
  // suffix) in `dir`, locks it (flock, held until the process ends) and maps it
  // over the reservation. Idempotent.
  bool Create(const std::string& dir, uint32_t pid, std::string* error);
  bool created() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fd_ >= 0;
  }
  const std::string& path() const { return path_; }
  // Records that could not be written because the file could not grow.
  uint32_t lost_records() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lost_;
  }

  // Appends a process record (command line etc.). Requires Create. `attached_ns` (ns since the Unix epoch):
  // when the agent was attached to the running process (`dotcov attach`), 0 when it loaded at startup.
  bool AddProcessInfo(const std::string& command_line, const std::string& cwd, std::string* error,
                      uint64_t attached_ns = 0);

  // Appends a module record with zeroed counters. Returns the slot of the
  // first counter: counter i of the module lives at base() + 8 * (slot + i).
  std::optional<uint32_t> AddModule(const ModuleIdentity& id, const std::vector<ProbeSite>& sites,
                                    std::string* error);
  // The same, with a state byte per method (`method_count` MethodDef rows).
  std::optional<ModuleRecordRef> AddModule(const ModuleIdentity& id, const std::vector<ProbeSite>& sites,
                                           uint32_t method_count, std::string* error);

  // Records the decision about method `rid` (1-based) of a module record.
  void SetMethodState(const ModuleRecordRef& module, uint32_t rid, MethodState state);

  // Marks counter `site` of a module record as derived from counter
  // `source_site` of the same record (kDerivedCounter). Call it before the
  // method whose probes count them can run.
  void SetDerivedCounter(const ModuleRecordRef& module, uint32_t site, uint32_t source_site);
  // Marks counter `site` as the sum of counters `a` and `b` (kSummedCounter).
  // Same timing as SetDerivedCounter. False, writing nothing, when there is no
  // file or a source is past kMaxSummedSource: the caller must then leave the
  // method uninstrumented (its block would read 0, "missed").
  [[nodiscard]] bool SetSummedCounter(const ModuleRecordRef& module, uint32_t site, uint32_t a, uint32_t b);

  // Appends why a method (il_offset = kind = kWholeMethod) or one probe site of
  // it is not measured.
  bool AddNotMeasured(const ModuleRecordRef& module, const NotMeasuredNote& note, std::string* error);

  // Appends a note that another coverage tool was found in this process.
  bool AddConflict(const std::string& text, std::string* error);

  // Names per-test context `id` (nonzero, unique in this file).
  bool AddContext(uint32_t id, const std::string& name, std::string* error);
  // Records that counter `slot` ran under context `id`. The caller records each
  // pair once. Pairs go into kContextHits records allocated kContextHitsPerRecord
  // at a time; each pair is written before the record's count covers it
  // (release), so a process killed at any point keeps every pair it counted.
  bool AddContextHit(uint32_t id, uint32_t slot, std::string* error);

  // Best effort msync of what has been written (never required for safety).
  void Sync();

 private:
  std::optional<uint64_t> Append(RecordKind kind, size_t body_size, std::string* error);
  void Commit(uint64_t offset);
  void CountLost(int err);
  uint64_t hits_record_ = 0;  // the context-hits record being filled (0: none)

  mutable std::mutex mu_;
  uint8_t* base_ = nullptr;
  size_t capacity_ = 0;
  uint64_t size_ = 0;
  int fd_ = -1;  // Windows: 0 once created (the handle is file_)
#ifdef _WIN32
  // Windows keeps no file mapping at a fixed address for the whole capacity (a file-backed section would grow the
  // file to its size): the range is reserved in kWinChunk pieces, and each growth releases the pieces it needs and
  // maps the file over them (docs/platforms.md).
  bool MapUpTo(uint64_t end, int* err);
  void* file_ = nullptr;
  uint64_t mapped_ = 0;               // bytes of the file mapped at base_
  std::vector<uint8_t*> views_;       // MapViewOfFileEx results, for the destructor
#endif
  std::string path_;
  SpaceAllocator allocator_;
  std::string stopped_;  // why the file stopped growing ("" while it grows)
  uint32_t lost_ = 0;
};

struct ModuleData {
  ModuleIdentity id;
  std::vector<ProbeSite> sites;
  std::vector<uint64_t> hits;
  std::vector<uint8_t> method_states;  // MethodState by MethodDef rid - 1 (may be empty)
  std::vector<NotMeasuredNote> not_measured;
  // Per-test contexts: (context id, index into `sites`) for each site that ran
  // under that context; ids name DataFile::contexts.
  std::vector<std::pair<uint32_t, uint32_t>> context_hits;
};

struct ContextName {
  uint32_t id = 0;
  std::string name;
  bool operator==(const ContextName&) const = default;
};

// A data file's identity: its header's process id and start time. `combine`
// gives a combined file its own (its pid, the time it was written).
struct FileIdentity {
  uint32_t pid = 0;
  uint64_t start_time_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

struct ProcessData {
  std::string command_line;
  std::string cwd;
  // `dotcov attach`: when the agent was attached (ns since the Unix epoch); 0: loaded at startup. Stored after
  // the cwd only when set, so files without it keep their layout and older readers skip it.
  uint64_t attached_ns = 0;
};

struct DataFile {
  uint32_t format_version = 0;
  uint32_t pid = 0;
  uint64_t start_time_ns = 0;
  // Records the writer could not add because the file could not grow (disk
  // full, quota, capacity), and the errno of the first such failure.
  uint32_t lost_records = 0;
  uint32_t lost_errno = 0;
  std::vector<ProcessData> processes;
  std::vector<ModuleData> modules;
  // Other coverage tools the agent found at work in the process.
  std::vector<std::string> conflicts;
  // Per-test contexts named in this file (ids are per file).
  std::vector<ContextName> contexts;
  // Files whose data this (combined) file holds: a reader skips them.
  std::vector<FileIdentity> merged_inputs;
  // Problems found while reading (damage); what precedes them was still read.
  std::vector<std::string> warnings;
  // Records a process left unwritten when it ended, of kinds whose loss loses
  // no hit (a module whose code had not run yet): a warning, not damage.
  std::vector<std::string> notices;
};

// Parses data-file bytes. Returns false only when nothing is usable (not a
// dotcov data file, or an unsupported version); a file cut short yields what it
// holds plus a warning.
bool ParseDataFile(Bytes bytes, DataFile* out, std::string* error);

// Serialises a data file (used by `dotcov combine`), sealed: every checksum
// covers its whole record. Hit counts saturate.
std::vector<uint8_t> SerializeDataFile(const DataFile& file);

}  // namespace dotcov
