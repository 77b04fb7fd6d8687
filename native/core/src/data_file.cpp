#include "dotcov/data_file.h"

#include "dotcov/crc32.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <random>

namespace dotcov {
namespace {

constexpr size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

void PutU32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
void PutU64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// Header fields after the first 32 bytes.
constexpr size_t kLostRecordsAt = 32;
constexpr size_t kLostErrnoAt = 36;

// Module record body, after the 16-byte record header:
//   mvid[16] pdb_id[20] u32 site_count u32 path_len u32 counters_offset
//   u32 method_count u32 states_offset
//   path (UTF-8), padded to 8; sites (u32 token, u32 il_offset, u32 kind) * n;
//   counters (u64) * n at counters_offset from the record start;
//   method states (u8) * method_count at states_offset.
constexpr size_t kModuleFixed = 16 + 20 + 4 * 5;
constexpr size_t kSiteSize = 12;

struct ModuleLayout {
  size_t path_at, sites_at, counters_at, states_at, total;
};

ModuleLayout LayoutModule(size_t path_len, size_t n, size_t methods) {
  ModuleLayout l;
  l.path_at = kRecordHeaderSize + kModuleFixed;
  l.sites_at = Align8(l.path_at + path_len);
  l.counters_at = Align8(l.sites_at + kSiteSize * n);
  l.states_at = l.counters_at + 8 * n;
  l.total = l.states_at + methods;
  return l;
}

// Not-measured record body: u64 module record offset, u32 method token,
// u32 il_offset, u32 site kind, u32 reason length, reason (UTF-8).
constexpr size_t kNoteFixed = 8 + 4 * 4;

// Context record body: u32 id, u32 name length, name (UTF-8).
// Context-hits record body: u32 capacity, u32 count, then capacity pairs
// (u32 context id, u32 counter slot); only the first `count` are written.
constexpr size_t kHitsFixed = 8;
constexpr size_t kHitPairSize = 8;

#ifdef _WIN32
// The file grows when MapUpTo creates the section that covers the new space (NTFS allocates a non-sparse file's
// clusters when its end moves), so a full disk fails there, before any record uses the space.
int Fallocate(int, uint64_t, uint64_t) { return 0; }
constexpr uint64_t kWinChunk = 1 << 16;  // the allocation granularity
std::wstring Wide(const std::string& utf8) {
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), nullptr, 0);
  std::wstring w(size_t(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), w.data(), n);
  return w;
}
int ErrnoOf(DWORD e) { return e == ERROR_DISK_FULL || e == ERROR_HANDLE_DISK_FULL ? ENOSPC : EIO; }
#else
int Fallocate(int fd, uint64_t offset, uint64_t len) {
  return posix_fallocate(fd, static_cast<off_t>(offset), static_cast<off_t>(len));
}
#endif

std::string ErrnoText(const char* what, const std::string& path) {
  return std::string(what) + " " + path + ": " + std::strerror(errno);
}

// Version 6 header: u32 flags (kFileSealed), u32 checksum of every other header
// byte but the lost counts, which an agent raises while it lives (covered too
// when sealed).
constexpr size_t kFlagsAt = 40;
constexpr size_t kHeaderChecksumAt = 44;

uint32_t HeaderChecksum(const uint8_t* h, bool sealed) {
  uint32_t crc = Crc32(h, sealed ? kFlagsAt : kLostRecordsAt);
  crc = Crc32(h + kFlagsAt, 4, crc);
  return Crc32(h + kHeaderChecksumAt + 4, kFileHeaderSize - kHeaderChecksumAt - 4, crc);
}

// How much of a record its checksum covers: all of it when sealed; in a live
// agent file, what is written once before the commit (a module's counters and
// method states, a context-hits record's count and pairs change later). 0 when
// the record's own offsets are impossible.
size_t CoveredBytes(uint32_t kind, const uint8_t* rec, size_t size, bool sealed) {
  if (sealed) return size;
  if (kind == static_cast<uint32_t>(RecordKind::kModule)) {
    uint32_t counters_at = 0;
    if (size < kRecordHeaderSize + kModuleFixed) return 0;
    std::memcpy(&counters_at, rec + kRecordHeaderSize + 44, 4);
    return counters_at >= kRecordHeaderSize + kModuleFixed && counters_at <= size ? counters_at : 0;
  }
  if (kind == static_cast<uint32_t>(RecordKind::kContextHits)) return kRecordHeaderSize + 4;  // the capacity
  return size;
}

// A committed record's state (version 6): the checksum of its covered bytes but
// the state itself, never 0 (0 is "being written").
uint32_t CommitValue(const uint8_t* rec, size_t covered) {
  uint32_t crc = Crc32(rec, 4);
  crc = Crc32(rec + 8, covered - 8, crc);
  return crc ? crc : 1;
}

uint64_t NowNs() {
#ifdef _WIN32
  FILETIME ft;
  GetSystemTimePreciseAsFileTime(&ft);
  uint64_t t = (uint64_t(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;  // 100 ns since 1601
  return (t - 116444736000000000ull) * 100;
#else
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
#endif
}

// The new file's header (both platforms' Create).
void WriteFileHeader(uint8_t* base, uint32_t pid) {
  std::memcpy(base, kDataMagic, 8);
  PutU32(base + 8, kDataFormatVersion);
  PutU32(base + 12, kFileHeaderSize);
  PutU32(base + 16, pid);
  PutU64(base + 24, NowNs());
  PutU32(base + kHeaderChecksumAt, HeaderChecksum(base, false));
}

}  // namespace

#ifdef _WIN32

bool DataFileWriterAlive(const std::string& path) {
  HANDLE h = CreateFileW(Wide(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         nullptr, OPEN_EXISTING, 0, nullptr);
  if (h == INVALID_HANDLE_VALUE) return false;
  OVERLAPPED at{};
  at.OffsetHigh = kLiveLockOffsetHigh;
  bool taken = LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at);
  if (taken) UnlockFileEx(h, 0, 1, 0, &at);
  CloseHandle(h);
  return !taken;
}

DataFileWriter::~DataFileWriter() {
  for (uint8_t* v : views_) UnmapViewOfFile(v);
  for (uint64_t at = mapped_; base_ && at < capacity_; at += kWinChunk) VirtualFree(base_ + at, 0, MEM_RELEASE);
  if (file_) CloseHandle(file_);
}

bool DataFileWriter::Reserve(size_t capacity, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (base_) return true;
  capacity = (capacity + kWinChunk - 1) & ~(kWinChunk - 1);
  // Find a free range, then hold it as chunk-sized reservations that growth can release one by one (a
  // reservation is released whole or not at all). Another thread could take the range in between: then try again.
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto* p = static_cast<uint8_t*>(VirtualAlloc(nullptr, capacity, MEM_RESERVE, PAGE_NOACCESS));
    if (!p) break;
    VirtualFree(p, 0, MEM_RELEASE);
    uint64_t at = 0;
    while (at < capacity && VirtualAlloc(p + at, kWinChunk, MEM_RESERVE, PAGE_NOACCESS) == p + at) at += kWinChunk;
    if (at == capacity) {
      base_ = p;
      capacity_ = capacity;
      return true;
    }
    for (uint64_t back = 0; back < at; back += kWinChunk) VirtualFree(p + back, 0, MEM_RELEASE);
  }
  *error = "cannot reserve address space: error " + std::to_string(GetLastError());
  return false;
}

bool DataFileWriter::MapUpTo(uint64_t end, int* err) {
  // Caller holds mu_ (or is Create).
  if (end <= mapped_) return true;
  uint64_t to = std::min<uint64_t>((end + kWinChunk - 1) & ~(kWinChunk - 1), capacity_);
  HANDLE section = CreateFileMappingW(file_, nullptr, PAGE_READWRITE, DWORD(to >> 32), DWORD(to), nullptr);
  if (!section) {
    *err = ErrnoOf(GetLastError());
    return false;
  }
  for (uint64_t at = mapped_; at < to; at += kWinChunk) VirtualFree(base_ + at, 0, MEM_RELEASE);
  void* v = MapViewOfFileEx(section, FILE_MAP_WRITE, DWORD(mapped_ >> 32), DWORD(mapped_), size_t(to - mapped_),
                            base_ + mapped_);
  DWORD view_error = GetLastError();
  CloseHandle(section);  // the view keeps the section
  if (v != base_ + mapped_) {
    // Hold the range again so the counters' addresses stay ours.
    for (uint64_t at = mapped_; at < to; at += kWinChunk) VirtualAlloc(base_ + at, kWinChunk, MEM_RESERVE, PAGE_NOACCESS);
    *err = ErrnoOf(view_error);
    return false;
  }
  views_.push_back(static_cast<uint8_t*>(v));
  mapped_ = to;
  return true;
}

bool DataFileWriter::Create(const std::string& dir, uint32_t pid, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) return true;
  if (!base_) {
    *error = "data file: address space not reserved";
    return false;
  }
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char name[96];
    snprintf(name, sizeof name, "/dotcov.%u.%08x.cov", pid, static_cast<unsigned>(rd()));
    std::string path = dir + name;
    // Readers (combine, reports) open it while it lives; they may also delete it when the writer is gone.
    HANDLE h = CreateFileW(Wide(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, CREATE_NEW,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_FILE_EXISTS) continue;
    if (h == INVALID_HANDLE_VALUE) {
      *error = "cannot create data file " + path + ": error " + std::to_string(GetLastError());
      return false;
    }
    // Live while locked, as flock on Linux: one byte far past any data, so that the lock (mandatory on Windows)
    // never stops a reader's reads; `combine` tries the same byte.
    OVERLAPPED at{};
    at.OffsetHigh = kLiveLockOffsetHigh;
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
      *error = "cannot lock data file " + path + ": error " + std::to_string(GetLastError());
      CloseHandle(h);
      DeleteFileW(Wide(path).c_str());
      return false;
    }
    FILE_STANDARD_INFO info{};
    if (!GetFileInformationByHandleEx(h, FileStandardInfo, &info, sizeof info) || info.DeletePending) {
      CloseHandle(h);
      continue;
    }
    if (!allocator_) allocator_ = Fallocate;
    file_ = h;
    int err = allocator_(0, 0, kFileHeaderSize);
    if (err == 0) MapUpTo(kFileHeaderSize, &err);
    if (err != 0) {
      errno = err;
      *error = ErrnoText("cannot size data file", path);
      CloseHandle(h);
      file_ = nullptr;
      DeleteFileW(Wide(path).c_str());
      return false;
    }
    WriteFileHeader(base_, pid);
    fd_ = 0;
    path_ = path;
    size_ = kFileHeaderSize;
    return true;
  }
  *error = "cannot find a free data file name in " + dir;
  return false;
}

#else


DataFileWriter::~DataFileWriter() {
  // The agent never destroys its writer (callbacks may outlive Shutdown); this
  // is for tests and tools.
  if (base_) munmap(base_, capacity_);
  if (fd_ >= 0) close(fd_);
}

bool DataFileWriter::Reserve(size_t capacity, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (base_) return true;
  void* p = mmap(nullptr, capacity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    *error = std::string("cannot reserve address space: ") + std::strerror(errno);
    return false;
  }
  base_ = static_cast<uint8_t*>(p);
  capacity_ = capacity;
  return true;
}

bool DataFileWriter::Create(const std::string& dir, uint32_t pid, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) return true;
  if (!base_) {
    *error = "data file: address space not reserved";
    return false;
  }
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char name[96];
    snprintf(name, sizeof name, "/dotcov.%u.%08x.cov", pid, static_cast<unsigned>(rd()));
    std::string path = dir + name;
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      *error = ErrnoText("cannot create data file", path);
      return false;
    }
    // Live while locked: `dotcov combine` never removes a file it cannot lock.
    // It may have locked (and removed, or `erase` removed) this still-empty
    // file between our open and flock: then take another name.
    if (flock(fd, LOCK_EX) != 0) {
      *error = ErrnoText("cannot lock data file", path);
      close(fd);
      unlink(path.c_str());
      return false;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_nlink == 0) {
      close(fd);
      continue;
    }
    if (!allocator_) allocator_ = Fallocate;
    if (int err = allocator_(fd, 0, kFileHeaderSize); err != 0) {
      errno = err;
      *error = ErrnoText("cannot size data file", path);
      close(fd);
      unlink(path.c_str());
      return false;
    }
    void* p = mmap(base_, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
      *error = ErrnoText("cannot map data file", path);
      close(fd);
      unlink(path.c_str());
      return false;
    }
    WriteFileHeader(base_, pid);
    fd_ = fd;
    path_ = path;
    size_ = kFileHeaderSize;
    return true;
  }
  *error = "cannot find a free data file name in " + dir;
  return false;
}

#endif  // _WIN32

std::optional<uint64_t> DataFileWriter::Append(RecordKind kind, size_t total, std::string* error) {
  // Caller holds mu_.
  if (fd_ < 0) {
    *error = "data file not created";
    return std::nullopt;
  }
  if (!stopped_.empty()) {
    CountLost(0);
    *error = "the data file stopped growing earlier (" + stopped_ + ")";
    return std::nullopt;
  }
  uint64_t offset = size_;
  uint64_t end = offset + Align8(total);
  if (end > capacity_) {
    stopped_ = "data file capacity exhausted";
    CountLost(ENOSPC);
    *error = stopped_;
    return std::nullopt;
  }
  // Blocks are allocated before any page of them is touched, so a full disk
  // is an error here and never SIGBUS at a counter increment.
  int err = allocator_(fd_, offset, end - offset);
#ifdef _WIN32
  if (err == 0) MapUpTo(end, &err);
#endif
  if (err != 0) {
#ifndef _WIN32
    // Some blocks may have been added; the file keeps its old length so a
    // reader never sees a half-allocated record.
    if (ftruncate(fd_, static_cast<off_t>(offset)) != 0) {
      // Never mind: the reader stops at a zero record header.
    }
#endif
    errno = err;
    stopped_ = ErrnoText("cannot grow data file", path_);
    CountLost(err);
    *error = stopped_ + "; what follows is not recorded";
    return std::nullopt;
  }
  uint8_t* rec = base_ + offset;
  PutU32(rec, static_cast<uint32_t>(kind));
  PutU32(rec + 4, static_cast<uint32_t>(RecordState::kWriting));
  PutU64(rec + 8, end - offset);
  size_ = end;
  return offset;
}

void DataFileWriter::CountLost(int err) {
  // Caller holds mu_; the header's block was allocated by Create.
  ++lost_;
  PutU32(base_ + kLostRecordsAt, lost_);
  uint32_t first = 0;
  std::memcpy(&first, base_ + kLostErrnoAt, 4);
  if (first == 0 && err != 0) PutU32(base_ + kLostErrnoAt, static_cast<uint32_t>(err));
}

void DataFileWriter::Commit(uint64_t offset) {
  uint8_t* rec = base_ + offset;
  uint32_t kind = 0;
  uint64_t size = 0;
  std::memcpy(&kind, rec, 4);
  std::memcpy(&size, rec + 8, 8);
  auto* state = reinterpret_cast<std::atomic<uint32_t>*>(rec + 4);
  state->store(CommitValue(rec, CoveredBytes(kind, rec, size, false)), std::memory_order_release);
}

bool DataFileWriter::AddProcessInfo(const std::string& command_line, const std::string& cwd, std::string* error,
                                    uint64_t attached_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = kRecordHeaderSize + 8 + command_line.size() + cwd.size() + (attached_ns ? 8 : 0);
  auto offset = Append(RecordKind::kProcess, total, error);
  if (!offset) return false;
  uint8_t* rec = base_ + *offset;
  PutU32(rec + 16, static_cast<uint32_t>(command_line.size()));
  PutU32(rec + 20, static_cast<uint32_t>(cwd.size()));
  std::memcpy(rec + 24, command_line.data(), command_line.size());
  std::memcpy(rec + 24 + command_line.size(), cwd.data(), cwd.size());
  if (attached_ns) PutU64(rec + 24 + command_line.size() + cwd.size(), attached_ns);
  Commit(*offset);
  return true;
}

std::optional<uint32_t> DataFileWriter::AddModule(const ModuleIdentity& id, const std::vector<ProbeSite>& sites,
                                                  std::string* error) {
  auto r = AddModule(id, sites, 0, error);
  if (!r) return std::nullopt;
  return r->first_slot;
}

std::optional<ModuleRecordRef> DataFileWriter::AddModule(const ModuleIdentity& id,
                                                         const std::vector<ProbeSite>& sites, uint32_t method_count,
                                                         std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  ModuleLayout l = LayoutModule(id.path.size(), sites.size(), method_count);
  auto offset = Append(RecordKind::kModule, l.total, error);
  if (!offset) return std::nullopt;
  if ((*offset + l.counters_at) / 8 + sites.size() > UINT32_MAX) {
    *error = "slot space exhausted";
    return std::nullopt;
  }
  uint8_t* rec = base_ + *offset;
  uint8_t* body = rec + kRecordHeaderSize;
  std::memcpy(body, id.mvid.data(), 16);
  std::memcpy(body + 16, id.pdb_id.data(), 20);
  PutU32(body + 36, static_cast<uint32_t>(sites.size()));
  PutU32(body + 40, static_cast<uint32_t>(id.path.size()));
  PutU32(body + 44, static_cast<uint32_t>(l.counters_at));
  PutU32(body + 48, method_count);
  PutU32(body + 52, static_cast<uint32_t>(l.states_at));
  std::memcpy(rec + l.path_at, id.path.data(), id.path.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    PutU32(rec + l.sites_at + kSiteSize * i, sites[i].method_token);
    PutU32(rec + l.sites_at + kSiteSize * i + 4, sites[i].il_offset);
    PutU32(rec + l.sites_at + kSiteSize * i + 8, sites[i].kind);
  }
  Commit(*offset);
  return ModuleRecordRef{static_cast<uint32_t>((*offset + l.counters_at) / 8), *offset, method_count};
}

void DataFileWriter::SetMethodState(const ModuleRecordRef& module, uint32_t rid, MethodState state) {
  if (rid == 0 || rid > module.method_count || !base_) return;
  uint32_t states_at = 0;
  std::memcpy(&states_at, base_ + module.offset + kRecordHeaderSize + 52, 4);
  // One byte, written once per method under the caller's per-module lock; a
  // reader tolerates seeing it before or after.
  base_[module.offset + states_at + rid - 1] = state;
}

void DataFileWriter::SetDerivedCounter(const ModuleRecordRef& module, uint32_t site, uint32_t source_site) {
  if (!base_) return;
  // No probe writes this counter, so a plain store races with nothing.
  PutU64(base_ + 8 * (uint64_t{module.first_slot} + site), kDerivedCounter | source_site);
}

bool DataFileWriter::SetSummedCounter(const ModuleRecordRef& module, uint32_t site, uint32_t a, uint32_t b) {
  if (!base_ || a > kMaxSummedSource || b > kMaxSummedSource) return false;
  PutU64(base_ + 8 * (uint64_t{module.first_slot} + site),
         kDerivedCounter | kSummedCounter | (uint64_t{a} << 31) | b);
  return true;
}

bool DataFileWriter::AddNotMeasured(const ModuleRecordRef& module, const NotMeasuredNote& note, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  auto offset = Append(RecordKind::kNotMeasured, kRecordHeaderSize + kNoteFixed + note.reason.size(), error);
  if (!offset) return false;
  uint8_t* body = base_ + *offset + kRecordHeaderSize;
  PutU64(body, module.offset);
  PutU32(body + 8, note.method_token);
  PutU32(body + 12, note.il_offset);
  PutU32(body + 16, note.kind);
  PutU32(body + 20, static_cast<uint32_t>(note.reason.size()));
  std::memcpy(body + 24, note.reason.data(), note.reason.size());
  Commit(*offset);
  return true;
}

bool DataFileWriter::AddConflict(const std::string& text, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  auto offset = Append(RecordKind::kConflict, kRecordHeaderSize + 4 + text.size(), error);
  if (!offset) return false;
  PutU32(base_ + *offset + kRecordHeaderSize, static_cast<uint32_t>(text.size()));
  std::memcpy(base_ + *offset + kRecordHeaderSize + 4, text.data(), text.size());
  Commit(*offset);
  return true;
}

bool DataFileWriter::AddContext(uint32_t id, const std::string& name, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  auto offset = Append(RecordKind::kContext, kRecordHeaderSize + 8 + name.size(), error);
  if (!offset) return false;
  uint8_t* body = base_ + *offset + kRecordHeaderSize;
  PutU32(body, id);
  PutU32(body + 4, static_cast<uint32_t>(name.size()));
  std::memcpy(body + 8, name.data(), name.size());
  Commit(*offset);
  return true;
}

bool DataFileWriter::AddContextHit(uint32_t id, uint32_t slot, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  uint8_t* body = hits_record_ ? base_ + hits_record_ + kRecordHeaderSize : nullptr;
  uint32_t count = 0;
  if (body) std::memcpy(&count, body + 4, 4);
  if (!body || count >= kContextHitsPerRecord) {
    auto offset = Append(RecordKind::kContextHits,
                         kRecordHeaderSize + kHitsFixed + kHitPairSize * kContextHitsPerRecord, error);
    if (!offset) return false;
    hits_record_ = *offset;
    body = base_ + hits_record_ + kRecordHeaderSize;
    PutU32(body, kContextHitsPerRecord);
    PutU32(body + 4, 0);
    Commit(*offset);  // committed while empty: the count says how much of it holds pairs
    count = 0;
  }
  PutU32(body + kHitsFixed + kHitPairSize * count, id);
  PutU32(body + kHitsFixed + kHitPairSize * count + 4, slot);
  reinterpret_cast<std::atomic<uint32_t>*>(body + 4)->store(count + 1, std::memory_order_release);
  return true;
}

void DataFileWriter::Sync() {
  std::lock_guard<std::mutex> lock(mu_);
#ifdef _WIN32
  if (fd_ >= 0) FlushViewOfFile(base_, 0);
#else
  if (fd_ >= 0) msync(base_, size_, MS_ASYNC);
#endif
}

namespace {

// Gives each (context id, counter slot) pair to the module whose counters hold
// that slot, as (context id, site index). Pairs may precede the module record
// they name in no valid file, but a hits record can be allocated before later
// modules load, so they are resolved once every record is read.
void ResolveContextSlots(Bytes bytes, const std::vector<std::pair<uint64_t, size_t>>& module_at,
                         const std::vector<std::pair<uint32_t, uint32_t>>& pairs, DataFile* out) {
  struct Range {
    uint64_t first;
    size_t n, module;
  };
  std::vector<Range> ranges;
  for (const auto& [rec_at, index] : module_at) {
    uint32_t counters_at = 0;
    std::memcpy(&counters_at, bytes.data() + rec_at + kRecordHeaderSize + 44, 4);
    ranges.push_back({(rec_at + counters_at) / 8, out->modules[index].sites.size(), index});
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.first < b.first; });
  std::vector<uint32_t> ids;
  for (const auto& c : out->contexts) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  size_t unresolved = 0;
  for (const auto& [id, slot] : pairs) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), uint64_t{slot},
                               [](uint64_t s, const Range& r) { return s < r.first; });
    if (it == ranges.begin() || !std::binary_search(ids.begin(), ids.end(), id)) {
      ++unresolved;
      continue;
    }
    --it;
    if (slot - it->first >= it->n) {
      ++unresolved;
      continue;
    }
    out->modules[it->module].context_hits.emplace_back(id, static_cast<uint32_t>(slot - it->first));
  }
  if (unresolved)
    out->warnings.push_back(std::to_string(unresolved) + " context hit(s) name no module counter or no context");
}

// Replaces each derived counter of one module record by the count it stands
// for (kDerivedCounter, kSummedCounter): a source's count, or the sum of two,
// sources derived in turn resolved first (format 5; a format-4 source is always
// a count). A source out of range, a cycle, or a kind the file's version does
// not have reads as 0, as does a counter derived from such a one; returns how
// many did. Iterative: chains can be as long as a method's joins.
size_t ResolveDerivedCounters(std::vector<uint64_t>* hits, uint32_t version) {
  const std::vector<uint64_t> stored = *hits;
  const size_t n = stored.size();
  const bool chains = version >= 5;
  enum : uint8_t { kTodo, kOnStack, kDone };
  std::vector<uint8_t> state(n, kDone);
  for (size_t i = 0; i < n; ++i)
    if (stored[i] & kDerivedCounter) state[i] = kTodo;
  auto sources_of = [&](uint64_t v, uint32_t out[2]) -> int {
    if (v & kSummedCounter) {
      if (!chains) return -1;
      out[0] = static_cast<uint32_t>(v >> 31) & kMaxSummedSource;
      out[1] = static_cast<uint32_t>(v) & kMaxSummedSource;
      return 2;
    }
    out[0] = static_cast<uint32_t>(v);
    return 1;
  };
  size_t broken = 0;
  std::vector<bool> bad_at(n, false);
  std::vector<size_t> stack;
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != kTodo) continue;
    stack.push_back(root);
    state[root] = kOnStack;
    while (!stack.empty()) {
      const size_t t = stack.back();
      uint32_t src[2];
      const int k = sources_of(stored[t], src);
      bool bad = k < 0, pending = false;
      uint64_t sum = 0;
      for (int j = 0; j < k && !bad && !pending; ++j) {
        const uint32_t s = src[j];
        if (s >= n || ((stored[s] & kDerivedCounter) && !chains)) {
          bad = true;
        } else if (state[s] == kTodo) {
          state[s] = kOnStack;
          stack.push_back(s);
          pending = true;
        } else if (state[s] == kOnStack) {
          bad = true;  // a cycle: no writer makes one
        } else if (bad_at[s]) {
          bad = true;
        } else {
          sum = (*hits)[s] > kDerivedCounter - 1 - sum ? kDerivedCounter - 1 : sum + (*hits)[s];
        }
      }
      if (pending) continue;
      (*hits)[t] = bad ? 0 : sum;
      bad_at[t] = bad;
      broken += bad;
      state[t] = kDone;
      stack.pop_back();
    }
  }
  return broken;
}

// Per-test contexts with shared counters: a derived site ran under a test exactly when its source did (a straight
// run, or the one edge into its block: nothing between them can throw or switch tests), a summed one when either
// source did (the block's two ways in). `stored`: the module's counters as written (derived marks unresolved).
void ExpandDerivedContexts(const std::vector<uint64_t>& stored, uint32_t version, ModuleData* m) {
  const size_t n = stored.size();
  std::map<uint32_t, std::vector<uint8_t>> ran;  // context id -> per site: 0 no, 1 yes
  for (const auto& [id, site] : m->context_hits)
    if (site < n) ran.try_emplace(id, n, 0).first->second[site] = 1;
  const bool chains = version >= 5;
  for (auto& [id, sites] : ran) {
    // 2: being resolved (a cycle reads as not run, as its count reads 0); resolved iteratively.
    std::vector<uint8_t> done(n, 0);
    for (size_t i = 0; i < n; ++i) done[i] = !(stored[i] & kDerivedCounter);
    std::vector<size_t> stack;
    for (size_t root = 0; root < n; ++root) {
      if (done[root]) continue;
      stack.push_back(root);
      done[root] = 2;
      while (!stack.empty()) {
        const size_t t = stack.back();
        const uint64_t v = stored[t];
        uint32_t src[2] = {static_cast<uint32_t>(v), 0};
        int k = 1;
        if (v & kSummedCounter) {
          k = chains ? 2 : 0;
          src[0] = static_cast<uint32_t>(v >> 31) & kMaxSummedSource;
          src[1] = static_cast<uint32_t>(v) & kMaxSummedSource;
        }
        bool pending = false;
        uint8_t hit = 0;
        for (int j = 0; j < k && !pending; ++j) {
          if (src[j] >= n) continue;
          if (!done[src[j]]) {
            done[src[j]] = 2;
            stack.push_back(src[j]);
            pending = true;
          } else if (done[src[j]] == 1) {
            hit |= sites[src[j]];
          }
        }
        if (pending) continue;
        sites[t] = hit;
        done[t] = 1;
        stack.pop_back();
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (sites[i] && (stored[i] & kDerivedCounter)) m->context_hits.emplace_back(id, static_cast<uint32_t>(i));
  }
}

}  // namespace

namespace {

// Whether an uncommitted record (at [end - rec.size(), end)) is what a process
// killed inside an append leaves, with nothing lost: the last record (only
// unused space follows), of a kind written before what it describes can happen
// (a module before its code runs, with no count or method state yet; a note
// after its method's state; a context before its test runs). A lost conflict or
// context-hits record is damage.
bool EndedWhileWriting(Bytes bytes, size_t end, uint32_t kind, Bytes rec) {
  for (size_t i = end; i < bytes.size() && i < end + kRecordHeaderSize; ++i)
    if (bytes[i] != 0) return false;
  switch (static_cast<RecordKind>(kind)) {
    case RecordKind::kModule: {
      // Path and sites may be written; counters and states never before the commit.
      uint32_t counters_at = 0;
      if (rec.size() >= kRecordHeaderSize + kModuleFixed)
        std::memcpy(&counters_at, rec.data() + kRecordHeaderSize + 44, 4);
      if (counters_at == 0) return true;  // killed before its sizes were written
      for (size_t i = counters_at; i < rec.size(); ++i)
        if (rec[i] != 0) return false;
      return true;
    }
    case RecordKind::kProcess:
    case RecordKind::kNotMeasured:
    case RecordKind::kContext:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ParseDataFile(Bytes bytes, DataFile* out, std::string* error) {
  *out = DataFile{};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kDataMagic, 8) != 0) {
    *error = "not a dotcov data file";
    return false;
  }
  ByteReader r(bytes);
  r.Skip(8);
  uint32_t version = r.U32();
  uint32_t header_size = r.U32();
  if (!r.ok()) {
    *error = "data file header is truncated";
    return false;
  }
  if (version < kOldestReadableFormatVersion || version > kDataFormatVersion) {
    *error = "data file format version " + std::to_string(version) + " is not supported (this dotcov reads version " +
             std::to_string(kDataFormatVersion) + "; it was written by " +
             (version < kDataFormatVersion ? "an older" : "a newer") +
             " dotcov: report it with that version, or run 'dotcov erase' and collect it again)";
    return false;
  }
  out->format_version = version;
  out->pid = r.U32();
  r.U32();
  out->start_time_ns = r.U64();
  out->lost_records = r.U32();
  out->lost_errno = r.U32();
  if (!r.ok() || header_size < 40 || header_size > bytes.size()) {
    *error = "data file header is truncated";
    return false;
  }
  const bool checksums = version >= kFirstChecksumFormatVersion;
  bool sealed = false;
  if (checksums) {
    uint32_t flags = r.U32(), stored = r.U32();
    if (!r.ok() || header_size < kFileHeaderSize || stored != HeaderChecksum(bytes.data(), flags & kFileSealed)) {
      out->warnings.push_back("the file header fails its checksum (damaged)");
    }
    sealed = flags & kFileSealed;
  }
  std::vector<std::pair<uint64_t, size_t>> module_at;  // record offset -> index in out->modules
  std::vector<std::pair<uint32_t, uint32_t>> context_slots;  // (context id, counter slot), resolved at the end
  std::map<size_t, std::vector<uint64_t>> stored_counters;   // module index -> counters as written, when some derived
  size_t pos = header_size;
  while (pos < bytes.size()) {
    if (bytes.size() - pos < kRecordHeaderSize) {
      out->warnings.push_back("file ends inside a record header at byte " + std::to_string(pos));
      break;
    }
    ByteReader h(bytes.subspan(pos, kRecordHeaderSize));
    uint32_t kind = h.U32();
    uint32_t state = h.U32();
    uint64_t size = h.U64();
    if (kind == 0 && state == 0 && size == 0) break;  // space reserved, never used
    if (size < kRecordHeaderSize || size % 8 != 0) {
      out->warnings.push_back("corrupt record header at byte " + std::to_string(pos));
      break;
    }
    if (size > bytes.size() - pos) {
      out->warnings.push_back("file is cut short inside a record at byte " + std::to_string(pos));
      break;
    }
    Bytes rec = bytes.subspan(pos, size);
    uint64_t rec_at = pos;
    pos += size;
    if (state == static_cast<uint32_t>(RecordState::kWriting)) {
      if (!sealed && EndedWhileWriting(bytes, pos, kind, rec)) {
        out->notices.push_back("skipped a record the process was writing when it ended (nothing was lost)");
      } else {
        out->warnings.push_back("skipped a record the process never finished writing at byte " +
                                std::to_string(rec_at));
      }
      continue;
    }
    if (checksums) {
      size_t covered = CoveredBytes(kind, rec.data(), rec.size(), sealed);
      if (covered < kRecordHeaderSize || state != CommitValue(rec.data(), covered)) {
        out->warnings.push_back("a record at byte " + std::to_string(rec_at) + " fails its checksum (damaged)");
        continue;
      }
    } else if (state != static_cast<uint32_t>(RecordState::kCommitted)) {
      out->warnings.push_back("corrupt record state at byte " + std::to_string(rec_at));
      continue;
    }
    ByteReader b(rec);
    b.Skip(kRecordHeaderSize);
    if (kind == static_cast<uint32_t>(RecordKind::kProcess)) {
      uint32_t cl = b.U32(), cw = b.U32();
      Bytes c1 = b.Take(cl), c2 = b.Take(cw);
      if (!b.ok()) {
        out->warnings.push_back("corrupt process record");
        continue;
      }
      ProcessData p{std::string(c1.begin(), c1.end()), std::string(c2.begin(), c2.end())};
      if (b.remaining() >= 8) p.attached_ns = b.U64();
      out->processes.push_back(std::move(p));
    } else if (kind == static_cast<uint32_t>(RecordKind::kModule)) {
      ModuleData m;
      Bytes mvid = b.Take(16), pdb = b.Take(20);
      uint32_t n = b.U32(), path_len = b.U32(), counters_at = b.U32();
      uint32_t methods = b.U32(), states_at = b.U32();
      Bytes path = b.Take(path_len);
      if (!b.ok()) {
        out->warnings.push_back("corrupt module record");
        continue;
      }
      ModuleLayout l = LayoutModule(path_len, n, methods);
      if (counters_at != l.counters_at || states_at != l.states_at || l.total > rec.size()) {
        out->warnings.push_back("corrupt module record (sizes disagree)");
        continue;
      }
      std::memcpy(m.id.mvid.data(), mvid.data(), 16);
      std::memcpy(m.id.pdb_id.data(), pdb.data(), 20);
      m.id.path.assign(path.begin(), path.end());
      m.sites.resize(n);
      m.hits.resize(n);
      ByteReader s(rec.subspan(l.sites_at));
      for (uint32_t i = 0; i < n; ++i) {
        m.sites[i].method_token = s.U32();
        m.sites[i].il_offset = s.U32();
        m.sites[i].kind = s.U32();
      }
      ByteReader c(rec.subspan(l.counters_at));
      for (uint32_t i = 0; i < n; ++i) m.hits[i] = c.U64();
      if (version < kFirstDerivedCounterFormatVersion) {
        // Before format 4 every counter is a count (an old combine saturated at 2^64 - 1): keep it below
        // kDerivedCounter so that writing it again in the current format cannot make it read as derived.
        for (uint64_t& h : m.hits) h = std::min(h, kDerivedCounter - 1);
      } else {
        if (std::any_of(m.hits.begin(), m.hits.end(), [](uint64_t h) { return (h & kDerivedCounter) != 0; }))
          stored_counters.emplace(out->modules.size(), m.hits);
        for (size_t k = ResolveDerivedCounters(&m.hits, version); k; --k)
          out->warnings.push_back("a derived counter names no counter of its module");
      }
      Bytes states = rec.subspan(l.states_at, methods);
      m.method_states.assign(states.begin(), states.end());
      module_at.emplace_back(rec_at, out->modules.size());
      out->modules.push_back(std::move(m));
    } else if (kind == static_cast<uint32_t>(RecordKind::kConflict)) {
      Bytes text = b.Take(b.U32());
      if (!b.ok()) {
        out->warnings.push_back("corrupt conflict record");
        continue;
      }
      out->conflicts.emplace_back(text.begin(), text.end());
    } else if (kind == static_cast<uint32_t>(RecordKind::kNotMeasured)) {
      uint64_t module_offset = b.U64();
      NotMeasuredNote note;
      note.method_token = b.U32();
      note.il_offset = b.U32();
      note.kind = b.U32();
      Bytes reason = b.Take(b.U32());
      if (!b.ok()) {
        out->warnings.push_back("corrupt not-measured record");
        continue;
      }
      note.reason.assign(reason.begin(), reason.end());
      auto it = std::find_if(module_at.begin(), module_at.end(),
                             [&](const auto& e) { return e.first == module_offset; });
      if (it == module_at.end()) {
        out->warnings.push_back("a not-measured record names no module record");
        continue;
      }
      out->modules[it->second].not_measured.push_back(std::move(note));
    } else if (kind == static_cast<uint32_t>(RecordKind::kContext)) {
      ContextName c;
      c.id = b.U32();
      Bytes name = b.Take(b.U32());
      if (!b.ok() || c.id == 0) {
        out->warnings.push_back("corrupt context record");
        continue;
      }
      c.name.assign(name.begin(), name.end());
      out->contexts.push_back(std::move(c));
    } else if (kind == static_cast<uint32_t>(RecordKind::kContextHits)) {
      uint32_t capacity = b.U32(), count = b.U32();
      if (!b.ok() || count > capacity || uint64_t{capacity} * kHitPairSize > b.remaining()) {
        out->warnings.push_back("corrupt context-hits record");
        continue;
      }
      for (uint32_t i = 0; i < count; ++i) {
        uint32_t id = b.U32(), slot = b.U32();
        context_slots.emplace_back(id, slot);
      }
    } else if (kind == static_cast<uint32_t>(RecordKind::kMergedInputs)) {
      uint32_t count = b.U32();
      b.U32();
      if (!b.ok() || uint64_t{count} * 16 > b.remaining()) {
        out->warnings.push_back("corrupt merged-inputs record");
        continue;
      }
      for (uint32_t i = 0; i < count; ++i) {
        FileIdentity id;
        id.pid = b.U32();
        b.U32();
        id.start_time_ns = b.U64();
        out->merged_inputs.push_back(id);
      }
    } else {
      out->warnings.push_back("skipped a record of unknown kind " + std::to_string(kind));
    }
  }
  if (!context_slots.empty()) {
    ResolveContextSlots(bytes, module_at, context_slots, out);
    for (const auto& [index, stored] : stored_counters) ExpandDerivedContexts(stored, version, &out->modules[index]);
  }
  return true;
}

std::vector<uint8_t> SerializeDataFile(const DataFile& file) {
  std::vector<uint8_t> out(kFileHeaderSize, 0);
  std::memcpy(out.data(), kDataMagic, 8);
  PutU32(out.data() + 8, kDataFormatVersion);
  PutU32(out.data() + 12, kFileHeaderSize);
  PutU32(out.data() + 16, file.pid);
  PutU64(out.data() + 24, file.start_time_ns);
  PutU32(out.data() + kLostRecordsAt, file.lost_records);
  PutU32(out.data() + kLostErrnoAt, file.lost_errno);
  PutU32(out.data() + kFlagsAt, kFileSealed);
  PutU32(out.data() + kHeaderChecksumAt, HeaderChecksum(out.data(), true));
  auto begin_record = [&](RecordKind kind, size_t total) {
    size_t at = out.size();
    out.resize(at + Align8(total), 0);
    PutU32(out.data() + at, static_cast<uint32_t>(kind));
    PutU32(out.data() + at + 4, static_cast<uint32_t>(RecordState::kCommitted));
    PutU64(out.data() + at + 8, Align8(total));
    return at;
  };
  if (!file.merged_inputs.empty()) {
    size_t count = file.merged_inputs.size();
    size_t at = begin_record(RecordKind::kMergedInputs, kRecordHeaderSize + 8 + 16 * count);
    uint8_t* body = out.data() + at + kRecordHeaderSize;
    PutU32(body, static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      PutU32(body + 8 + 16 * i, file.merged_inputs[i].pid);
      PutU64(body + 8 + 16 * i + 8, file.merged_inputs[i].start_time_ns);
    }
  }
  for (const auto& p : file.processes) {
    size_t at = begin_record(RecordKind::kProcess, kRecordHeaderSize + 8 + p.command_line.size() + p.cwd.size() +
                                                       (p.attached_ns ? 8 : 0));
    PutU32(out.data() + at + 16, static_cast<uint32_t>(p.command_line.size()));
    PutU32(out.data() + at + 20, static_cast<uint32_t>(p.cwd.size()));
    std::memcpy(out.data() + at + 24, p.command_line.data(), p.command_line.size());
    std::memcpy(out.data() + at + 24 + p.command_line.size(), p.cwd.data(), p.cwd.size());
    if (p.attached_ns) PutU64(out.data() + at + 24 + p.command_line.size() + p.cwd.size(), p.attached_ns);
  }
  for (const auto& c : file.conflicts) {
    size_t at = begin_record(RecordKind::kConflict, kRecordHeaderSize + 4 + c.size());
    PutU32(out.data() + at + kRecordHeaderSize, static_cast<uint32_t>(c.size()));
    std::memcpy(out.data() + at + kRecordHeaderSize + 4, c.data(), c.size());
  }
  for (const auto& c : file.contexts) {
    size_t at = begin_record(RecordKind::kContext, kRecordHeaderSize + 8 + c.name.size());
    PutU32(out.data() + at + kRecordHeaderSize, c.id);
    PutU32(out.data() + at + kRecordHeaderSize + 4, static_cast<uint32_t>(c.name.size()));
    std::memcpy(out.data() + at + kRecordHeaderSize + 8, c.name.data(), c.name.size());
  }
  std::vector<std::pair<uint32_t, uint32_t>> context_slots;
  for (const auto& m : file.modules) {
    size_t n = m.sites.size();
    size_t methods = m.method_states.size();
    ModuleLayout l = LayoutModule(m.id.path.size(), n, methods);
    size_t at = begin_record(RecordKind::kModule, l.total);
    uint8_t* rec = out.data() + at;
    uint8_t* body = rec + kRecordHeaderSize;
    std::memcpy(body, m.id.mvid.data(), 16);
    std::memcpy(body + 16, m.id.pdb_id.data(), 20);
    PutU32(body + 36, static_cast<uint32_t>(n));
    PutU32(body + 40, static_cast<uint32_t>(m.id.path.size()));
    PutU32(body + 44, static_cast<uint32_t>(l.counters_at));
    PutU32(body + 48, static_cast<uint32_t>(methods));
    PutU32(body + 52, static_cast<uint32_t>(l.states_at));
    std::memcpy(rec + l.path_at, m.id.path.data(), m.id.path.size());
    for (size_t i = 0; i < n; ++i) {
      PutU32(rec + l.sites_at + kSiteSize * i, m.sites[i].method_token);
      PutU32(rec + l.sites_at + kSiteSize * i + 4, m.sites[i].il_offset);
      PutU32(rec + l.sites_at + kSiteSize * i + 8, m.sites[i].kind);
      // Saturate below kDerivedCounter: a stored count never reads as a derived counter.
      PutU64(rec + l.counters_at + 8 * i, i < m.hits.size() ? std::min(m.hits[i], kDerivedCounter - 1) : 0);
    }
    if (methods) std::memcpy(rec + l.states_at, m.method_states.data(), methods);
    for (const auto& [id, index] : m.context_hits)
      if (index < n) context_slots.emplace_back(id, static_cast<uint32_t>((at + l.counters_at) / 8 + index));
    for (const auto& note : m.not_measured) {
      size_t nat = begin_record(RecordKind::kNotMeasured, kRecordHeaderSize + kNoteFixed + note.reason.size());
      uint8_t* nb = out.data() + nat + kRecordHeaderSize;
      PutU64(nb, at);
      PutU32(nb + 8, note.method_token);
      PutU32(nb + 12, note.il_offset);
      PutU32(nb + 16, note.kind);
      PutU32(nb + 20, static_cast<uint32_t>(note.reason.size()));
      std::memcpy(nb + 24, note.reason.data(), note.reason.size());
    }
  }
  if (!context_slots.empty()) {
    size_t count = context_slots.size();
    size_t at = begin_record(RecordKind::kContextHits, kRecordHeaderSize + kHitsFixed + kHitPairSize * count);
    uint8_t* body = out.data() + at + kRecordHeaderSize;
    PutU32(body, static_cast<uint32_t>(count));
    PutU32(body + 4, static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      PutU32(body + kHitsFixed + kHitPairSize * i, context_slots[i].first);
      PutU32(body + kHitsFixed + kHitPairSize * i + 4, context_slots[i].second);
    }
  }
  // Sealed: each record's state is the checksum of all of it.
  for (size_t at = kFileHeaderSize; at < out.size();) {
    uint64_t size = 0;
    std::memcpy(&size, out.data() + at + 8, 8);
    PutU32(out.data() + at + 4, CommitValue(out.data() + at, size));
    at += size;
  }
  return out;
}

}  // namespace dotcov
