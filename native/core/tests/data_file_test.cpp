#include "dotcov/data_file.h"
#include "dotcov/counter_sharing.h"
#include "data_file_test_util.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <iterator>
#include <set>

namespace fs = std::filesystem;
using namespace dotcov;
using namespace dotcov::test_util;

namespace {

// The same file as an older version wrote it: no checksums, a committed record's state 1.
void AsVersion(std::vector<uint8_t>& bytes, uint32_t version) {
  std::memcpy(bytes.data() + 8, &version, 4);
  for (size_t at = kFileHeaderSize; at + kRecordHeaderSize <= bytes.size();) {
    uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    if (size == 0) break;
    bytes[at + 4] = 1, bytes[at + 5] = bytes[at + 6] = bytes[at + 7] = 0;
    at += size;
  }
}

// Offsets of each record of a file, by kind.
std::vector<std::pair<uint32_t, size_t>> Records(const std::vector<uint8_t>& bytes) {
  std::vector<std::pair<uint32_t, size_t>> out;
  for (size_t at = kFileHeaderSize; at + kRecordHeaderSize <= bytes.size();) {
    uint32_t kind = 0;
    uint64_t size = 0;
    std::memcpy(&kind, bytes.data() + at, 4);
    std::memcpy(&size, bytes.data() + at + 8, 8);
    if (size == 0) break;
    out.emplace_back(kind, at);
    at += size;
  }
  return out;
}

}  // namespace

TEST(DataFile, WriterAndReaderAgree) {
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 20, &err)) << err;
  ASSERT_TRUE(w.Create(dir, 4242, &err)) << err;
  ASSERT_TRUE(w.AddProcessInfo("dotnet test", "/src", &err)) << err;
  std::vector<ProbeSite> sites = {{0x06000001, 0}, {0x06000001, 7, kBranchTarget + 1}, {0x06000002, 0}};
  auto slot = w.AddModule(Ident(1, "/src/bin/Calc.dll"), sites, &err);
  ASSERT_TRUE(slot) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + *slot;
  counters[0] = 5;
  counters[2] = 1;
  auto slot2 = w.AddModule(Ident(9, "/x/Other.dll"), {{0x06000003, 4}}, &err);
  ASSERT_TRUE(slot2);
  EXPECT_GT(*slot2, *slot + 2);
  reinterpret_cast<uint64_t*>(w.base())[*slot2] = 77;

  struct stat st {};
  ASSERT_EQ(stat(w.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.pid, 4242u);
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].command_line, "dotnet test");
  ASSERT_EQ(f.modules.size(), 2u);
  EXPECT_EQ(f.modules[0].id.path, "/src/bin/Calc.dll");
  EXPECT_EQ(f.modules[0].id.mvid, Ident(1, "").mvid);
  EXPECT_EQ(f.modules[0].id.pdb_id, Ident(1, "").pdb_id);
  EXPECT_EQ(f.modules[0].sites, sites);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{5, 0, 1}));
  EXPECT_EQ(f.modules[1].hits, (std::vector<uint64_t>{77}));
  fs::remove_all(dir);
}

TEST(DataFile, AnAttachedProcessKeepsItsAttachTime) {
  // `dotcov attach`: the time follows the cwd in the process record, written and combined alike; a record without
  // it (loaded at startup) reads 0, whatever padding follows its strings.
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 20, &err)) << err;
  ASSERT_TRUE(w.Create(dir, 4243, &err)) << err;
  ASSERT_TRUE(w.AddProcessInfo("dotnet Api.dll", "/srv", &err, 1795853121600041155ull)) << err;
  ASSERT_TRUE(w.AddProcessInfo("dotnet x", "/w", &err)) << err;
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.processes.size(), 2u);
  EXPECT_EQ(f.processes[0].cwd, "/srv");
  EXPECT_EQ(f.processes[0].attached_ns, 1795853121600041155ull);
  EXPECT_EQ(f.processes[1].attached_ns, 0u);
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  ASSERT_EQ(again.processes.size(), 2u);
  EXPECT_EQ(again.processes[0].attached_ns, 1795853121600041155ull);
  EXPECT_EQ(again.processes[1].attached_ns, 0u);
  for (size_t n = 0; n < 8; ++n) {  // every padding length: no time read from it
    DataFile one;
    one.processes.push_back({std::string(n, 'c'), "/w"});
    DataFile back;
    ASSERT_TRUE(ParseDataFile(SerializeDataFile(one), &back, &err)) << err;
    ASSERT_EQ(back.processes.size(), 1u);
    EXPECT_EQ(back.processes[0].attached_ns, 0u) << n;
  }
  fs::remove_all(dir);
}

TEST(DataFile, TwoWritersNeverShareAFile) {
  fs::path dir = MakeTempDir();
  DataFileWriter a, b;
  std::string err;
  ASSERT_TRUE(a.Reserve(1 << 16, &err) && a.Create(dir, 7, &err)) << err;
  ASSERT_TRUE(b.Reserve(1 << 16, &err) && b.Create(dir, 7, &err)) << err;  // same pid, as after PID reuse
  EXPECT_NE(a.path(), b.path());
  fs::remove_all(dir);
}

TEST(DataFile, CountsSurviveSigkill) {
  fs::path dir = MakeTempDir();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DataFileWriter w;
    std::string err;
    if (!w.Reserve(1 << 20, &err) || !w.Create(dir, getpid(), &err)) _exit(2);
    auto slot = w.AddModule(Ident(2, "/a.dll"), {{0x06000001, 0}, {0x06000001, 3}}, &err);
    if (!slot) _exit(3);
    auto* c = reinterpret_cast<volatile uint64_t*>(w.base()) + *slot;
    for (int i = 0; i < 1000; ++i) c[1] = c[1] + 1;
    kill(getpid(), SIGKILL);  // no destructor, no msync
    _exit(4);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGKILL);
  std::vector<fs::path> files(fs::directory_iterator(dir), {});
  ASSERT_EQ(files.size(), 1u);
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(ReadAll(files[0]), &f, &err)) << err;
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{0, 1000}));
  fs::remove_all(dir);
}

TEST(DataFile, EveryTruncationIsReadSafely) {
  DataFile src;
  src.pid = 3;
  src.processes.push_back({"cmd", "/w"});
  for (int m = 0; m < 3; ++m) {
    ModuleData md;
    md.id = Ident(uint8_t(m), "/m" + std::to_string(m) + ".dll");
    md.sites = {{0x06000001, 0}, {0x06000001, 2}};
    md.hits = {uint64_t(m), 1};
    src.modules.push_back(md);
  }
  std::vector<uint8_t> bytes = SerializeDataFile(src);
  DataFile full;
  std::string err;
  ASSERT_TRUE(ParseDataFile(bytes, &full, &err));
  ASSERT_EQ(full.modules.size(), 3u);
  EXPECT_TRUE(full.warnings.empty());
  // Record boundaries: a file cut exactly there is a valid, shorter file.
  std::set<size_t> boundaries = {bytes.size()};
  for (size_t at = kFileHeaderSize; at < bytes.size();) {
    boundaries.insert(at);
    uint64_t size;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    at += size;
  }
  size_t last_count = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    DataFile f;
    bool ok = ParseDataFile(Bytes(bytes.data(), n), &f, &err);
    if (n < kFileHeaderSize) {
      EXPECT_FALSE(ok) << n;
      continue;
    }
    ASSERT_TRUE(ok) << n;
    EXPECT_GE(f.modules.size(), last_count);  // a longer prefix never loses modules
    last_count = f.modules.size();
    for (size_t i = 0; i < f.modules.size(); ++i) EXPECT_EQ(f.modules[i].hits, src.modules[i].hits);
    EXPECT_EQ(f.warnings.empty(), boundaries.count(n) == 1) << n;
  }
}

TEST(DataFile, RejectsOtherFilesAndVersions) {
  DataFile f;
  std::string err;
  std::vector<uint8_t> junk = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_FALSE(ParseDataFile(junk, &f, &err));
  EXPECT_NE(err.find("not a dotcov data file"), std::string::npos);
  std::vector<uint8_t> bytes = SerializeDataFile(DataFile{});
  bytes[8] = 99;
  EXPECT_FALSE(ParseDataFile(bytes, &f, &err));
  EXPECT_NE(err.find("version 99"), std::string::npos);
}

TEST(DataFile, UncommittedRecordIsSkippedNotFatal) {
  DataFile src;
  ModuleData md;
  md.id = Ident(1, "/a.dll");
  md.sites = {{0x06000001, 0}};
  md.hits = {4};
  src.modules = {md, md};
  std::vector<uint8_t> bytes = SerializeDataFile(src);
  bytes[kFileHeaderSize + 4] = 0;  // first record: state "writing"
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(bytes, &f, &err));
  EXPECT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.warnings.size(), 1u);
}

// A test of the writer's records: a fresh data file (pid 5) in a directory of its own, removed afterwards.
class WrittenFile : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(w.Reserve(1 << 20, &err) && w.Create(dir, 5, &err)) << err; }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
};

TEST_F(WrittenFile, MethodStatesAndNotMeasuredNotesRoundTrip) {
  auto m = w.AddModule(Ident(1, "/a.dll"), {{0x06000001, 0}, {0x06000002, 0}, {0x06000002, 4}}, 3, &err);
  ASSERT_TRUE(m) << err;
  w.SetMethodState(*m, 1, kMethodInstrumented);
  w.SetMethodState(*m, 2, kMethodNotMeasured);
  w.SetMethodState(*m, 4, kMethodInstrumented);  // out of range: ignored
  ASSERT_TRUE(w.AddNotMeasured(*m, {0x06000002, kWholeMethod, kWholeMethod, "rewrite failed: bad IL"}, &err)) << err;
  ASSERT_TRUE(w.AddNotMeasured(*m, {0x06000001, 6, kSequencePoint, "probe refused"}, &err)) << err;
  auto other = w.AddModule(Ident(2, "/b.dll"), {{0x06000001, 0}}, 1, &err);
  ASSERT_TRUE(other) << err;
  reinterpret_cast<uint64_t*>(w.base())[m->first_slot] = 3;

  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.modules.size(), 2u);
  EXPECT_EQ(f.modules[0].method_states, (std::vector<uint8_t>{kMethodInstrumented, kMethodNotMeasured, 0}));
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{3, 0, 0}));
  ASSERT_EQ(f.modules[0].not_measured.size(), 2u);
  EXPECT_EQ(f.modules[0].not_measured[0].reason, "rewrite failed: bad IL");
  EXPECT_EQ(f.modules[0].not_measured[0].il_offset, kWholeMethod);
  EXPECT_EQ(f.modules[0].not_measured[1].il_offset, 6u);
  EXPECT_TRUE(f.modules[1].not_measured.empty());
  EXPECT_EQ(f.modules[1].method_states, (std::vector<uint8_t>{0}));

  // `dotcov combine` writes them back unchanged.
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  EXPECT_TRUE(again.warnings.empty());
  ASSERT_EQ(again.modules.size(), 2u);
  EXPECT_EQ(again.modules[0].method_states, f.modules[0].method_states);
  EXPECT_EQ(again.modules[0].not_measured, f.modules[0].not_measured);
}

TEST(DataFile, FullDiskStopsGrowingAndCountsWhatWasLost) {
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  int calls = 0;
  // The header and the first module fit; then the disk is full.
  w.SetAllocatorForTesting([&](int fd, uint64_t offset, uint64_t len) {
    if (++calls > 2) return ENOSPC;
    return posix_fallocate(fd, off_t(offset), off_t(len));
  });
  ASSERT_TRUE(w.Reserve(1 << 20, &err) && w.Create(dir, 5, &err)) << err;
  auto first = w.AddModule(Ident(1, "/a.dll"), {{0x06000001, 0}}, 1, &err);
  ASSERT_TRUE(first) << err;
  reinterpret_cast<uint64_t*>(w.base())[first->first_slot] = 9;
  EXPECT_FALSE(w.AddModule(Ident(2, "/b.dll"), {{0x06000001, 0}}, 1, &err));
  EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
  EXPECT_FALSE(w.AddNotMeasured(*first, {0x06000001, kWholeMethod, kWholeMethod, "x"}, &err));
  EXPECT_NE(err.find("stopped growing"), std::string::npos) << err;
  EXPECT_EQ(calls, 3);  // stopped growing: no further attempt
  EXPECT_EQ(w.lost_records(), 2u);

  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.lost_records, 2u);
  EXPECT_EQ(f.lost_errno, uint32_t(ENOSPC));
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{9}));
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  EXPECT_EQ(again.lost_records, 2u);
  fs::remove_all(dir);
}

// A real full file system: a 16 KiB tmpfs in a private mount namespace (needs
// root, as in CI's container). Without space reservation the first counter
// increment on a page the disk could not supply would be SIGBUS.
TEST(DataFile, RealFullDiskIsNeverSigbus) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char dir[] = "/tmp/dotcov-full-XXXXXX";
    if (!mkdtemp(dir)) _exit(10);
    if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", dir, "tmpfs", 0, "size=16k") != 0)
      _exit(77);  // not permitted here
    DataFileWriter w;
    std::string err;
    if (!w.Reserve(1 << 24, &err) || !w.Create(dir, getpid(), &err)) _exit(11);
    std::vector<ProbeSite> sites;
    for (uint32_t i = 0; i < 200; ++i) sites.push_back({0x06000001, i});
    int added = 0;
    for (int i = 0; i < 100; ++i) {
      auto m = w.AddModule(Ident(uint8_t(i), "/m.dll"), sites, 1, &err);
      if (!m) break;
      ++added;
      auto* c = reinterpret_cast<volatile uint64_t*>(w.base()) + m->first_slot;
      for (size_t k = 0; k < sites.size(); ++k) c[k] = c[k] + 1;  // SIGBUS here without fallocate
    }
    if (added == 0 || added == 100 || err.find("No space left") == std::string::npos) _exit(12);
    DataFile f;
    if (!ParseDataFile(ReadAll(w.path()), &f, &err)) _exit(13);
    if (int(f.modules.size()) != added || f.lost_records != 1 || f.lost_errno != ENOSPC) _exit(14);
    umount2(dir, MNT_DETACH);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot mount a tmpfs here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(DataFile, LockedForTheWritersLife) {
  fs::path dir = MakeTempDir();
  std::string path;
  {
    DataFileWriter w;
    std::string err;
    ASSERT_TRUE(w.Reserve(1 << 16, &err) && w.Create(dir, 5, &err)) << err;
    path = w.path();
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_NE(flock(fd, LOCK_EX | LOCK_NB), 0);
    EXPECT_EQ(errno, EWOULDBLOCK);
    close(fd);
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);  // the writer is gone
  close(fd);
  fs::remove_all(dir);
}

TEST(DataFile, ConflictNotesRoundTrip) {
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 16, &err) && w.Create(dir, 5, &err)) << err;
  ASSERT_TRUE(w.AddConflict("coverlet rewrote /a.dll", &err)) << err;
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_EQ(f.conflicts, (std::vector<std::string>{"coverlet rewrote /a.dll"}));
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  EXPECT_EQ(again.conflicts, f.conflicts);
  fs::remove_all(dir);
}

// Per-test contexts: names (kind 5) and (context, slot) pairs (kind 6), the
// pairs resolved to (context, site index) of the module whose counters hold the
// slot, also when the hits record was allocated before the module's record.
TEST_F(WrittenFile, ContextsRoundTripThroughWriterAndSerializer) {
  auto a = w.AddModule(Ident(1, "/a.dll"), {{0x06000001, 0}, {0x06000001, 4}, {0x06000002, 0}}, 2, &err);
  ASSERT_TRUE(a) << err;
  ASSERT_TRUE(w.AddContext(1, "T.A.M1", &err)) << err;
  ASSERT_TRUE(w.AddContextHit(1, a->first_slot + 2, &err)) << err;
  auto b = w.AddModule(Ident(2, "/b.dll"), {{0x06000001, 0}}, 1, &err);  // after the hits record
  ASSERT_TRUE(b) << err;
  ASSERT_TRUE(w.AddContext(2, "T.B.M2", &err)) << err;
  ASSERT_TRUE(w.AddContextHit(2, b->first_slot, &err)) << err;
  ASSERT_TRUE(w.AddContextHit(2, a->first_slot, &err)) << err;
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.contexts, (std::vector<ContextName>{{1, "T.A.M1"}, {2, "T.B.M2"}}));
  ASSERT_EQ(f.modules.size(), 2u);
  using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(f.modules[0].context_hits, (Pairs{{1, 2}, {2, 0}}));
  EXPECT_EQ(f.modules[1].context_hits, (Pairs{{2, 0}}));
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  EXPECT_TRUE(again.warnings.empty());
  EXPECT_EQ(again.contexts, f.contexts);
  EXPECT_EQ(again.modules[0].context_hits, f.modules[0].context_hits);
  EXPECT_EQ(again.modules[1].context_hits, f.modules[1].context_hits);
}

TEST_F(WrittenFile, ContextHitsFillRecordAfterRecord) {
  std::vector<ProbeSite> sites(3000, ProbeSite{0x06000001, 0});
  for (uint32_t i = 0; i < sites.size(); ++i) sites[i].il_offset = i;
  auto a = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(a && w.AddContext(7, "T.C.M", &err)) << err;
  for (uint32_t i = 0; i < sites.size(); ++i) ASSERT_TRUE(w.AddContextHit(7, a->first_slot + i, &err)) << err;
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  ASSERT_EQ(f.modules[0].context_hits.size(), sites.size());
  for (uint32_t i = 0; i < sites.size(); ++i) EXPECT_EQ(f.modules[0].context_hits[i], std::make_pair(7u, i));
}

TEST(DataFile, ContextHitsSurviveSigkill) {
  fs::path dir = MakeTempDir();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DataFileWriter w;
    std::string err;
    if (!w.Reserve(1 << 20, &err) || !w.Create(dir, getpid(), &err)) _exit(2);
    auto a = w.AddModule(Ident(2, "/a.dll"), {{0x06000001, 0}, {0x06000001, 3}}, 1, &err);
    if (!a || !w.AddContext(3, "N.C.Test", &err) || !w.AddContextHit(3, a->first_slot + 1, &err)) _exit(3);
    kill(getpid(), SIGKILL);  // no destructor, no msync
    _exit(4);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::vector<fs::path> files(fs::directory_iterator(dir), {});
  ASSERT_EQ(files.size(), 1u);
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(ReadAll(files[0]), &f, &err)) << err;
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].context_hits, (std::vector<std::pair<uint32_t, uint32_t>>{{3, 1}}));
  fs::remove_all(dir);
}

TEST(DataFile, ContextHitsNamingNothingAreAWarning) {
  DataFile src;
  ModuleData md;
  md.id = Ident(1, "/a.dll");
  md.sites = {{0x06000001, 0}};
  md.hits = {1};
  md.context_hits = {{9, 0}};  // context 9 has no name record
  src.modules.push_back(md);
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(src), &f, &err)) << err;
  EXPECT_TRUE(f.modules[0].context_hits.empty());
  ASSERT_EQ(f.warnings.size(), 1u);
}

TEST_F(WrittenFile, DerivedCountersReadAsTheirSourcesCount) {
  std::vector<ProbeSite> sites = {{0x06000001, 0}, {0x06000001, 1}, {0x06000001, 4, kBranchFallThrough},
                                  {0x06000001, 9}};
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  w.SetDerivedCounter(*m, 1, 0);
  w.SetDerivedCounter(*m, 2, 3);
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  counters[0] = 41;
  counters[3] = 6;
  EXPECT_EQ(counters[1], kDerivedCounter | 0);  // what the file holds: a reference, not a count
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{41, 41, 6, 6}));
  EXPECT_TRUE(f.warnings.empty());
  // Combined (serialised) data holds plain counts, and a count never reads as a reference.
  f.modules[0].hits[3] = UINT64_MAX;
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  EXPECT_EQ(again.modules[0].hits, (std::vector<uint64_t>{41, 41, 6, kDerivedCounter - 1}));
}

TEST_F(WrittenFile, DerivedCounterNamingNothingReadsZeroWithAWarning) {
  auto m = w.AddModule(Ident(1, "/a.dll"), {{0x06000001, 0}, {0x06000001, 2}, {0x06000001, 3}}, 1, &err);
  ASSERT_TRUE(m) << err;
  w.SetDerivedCounter(*m, 0, 7);  // no site 7
  w.SetDerivedCounter(*m, 1, 2);
  w.SetDerivedCounter(*m, 2, 1);  // a cycle: no writer makes one
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(f.warnings.size(), 3u);
}

// Shared counters with per-test contexts: a derived site ran under a test when its source did, a summed one when
// either source did; the combined file then lists every site's pairs.
TEST_F(WrittenFile, DerivedAndSummedSitesGetTheContextsOfTheirSources) {
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 6; ++i) sites.push_back({0x06000001, i});
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  counters[0] = 2;
  counters[1] = 1;
  EXPECT_TRUE(w.SetSummedCounter(*m, 4, 0, 1));  // 4 = 0 + 1
  w.SetDerivedCounter(*m, 5, 4);                 // 5 reads 4, itself a sum
  w.SetDerivedCounter(*m, 2, 1);                 // 2 reads 1
  ASSERT_TRUE(w.AddContext(1, "T.A.M1", &err) && w.AddContext(2, "T.A.M2", &err)) << err;
  ASSERT_TRUE(w.AddContextHit(1, m->first_slot + 0, &err)) << err;  // test 1 ran 0
  ASSERT_TRUE(w.AddContextHit(2, m->first_slot + 1, &err)) << err;  // test 2 ran 1
  ASSERT_TRUE(w.AddContextHit(2, m->first_slot + 3, &err)) << err;  // and 3 (its own counter)
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  using Pairs = std::set<std::pair<uint32_t, uint32_t>>;
  const auto& hits = f.modules[0].context_hits;
  EXPECT_EQ(Pairs(hits.begin(), hits.end()), (Pairs{{1, 0}, {1, 4}, {1, 5}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5}}));
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(f), &again, &err)) << err;
  const auto& kept = again.modules[0].context_hits;
  EXPECT_EQ(Pairs(kept.begin(), kept.end()), Pairs(hits.begin(), hits.end()));
}

TEST_F(WrittenFile, SummedCountersReadAsTheSumOfTheirSourcesResolvedInChains) {
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 6; ++i) sites.push_back({0x06000001, i});
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  counters[0] = 5;
  counters[1] = 7;
  EXPECT_TRUE(w.SetSummedCounter(*m, 5, 4, 0));  // 5 = 4 + 0, 4 resolved first though it comes later in the walk
  EXPECT_TRUE(w.SetSummedCounter(*m, 4, 0, 1));  // 4 = 0 + 1
  w.SetDerivedCounter(*m, 2, 4);    // a point sharing a summed counter
  counters[3] = kDerivedCounter - 2;
  EXPECT_EQ(counters[4], kDerivedCounter | kSummedCounter | (uint64_t{0} << 31) | 1);
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_EQ(f.format_version, kDataFormatVersion);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{5, 7, 12, kDerivedCounter - 2, 12, 17}));
  EXPECT_TRUE(f.warnings.empty());
  // A sum past the largest count saturates below kDerivedCounter.
  EXPECT_TRUE(w.SetSummedCounter(*m, 5, 3, 3));
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_EQ(f.modules[0].hits[5], kDerivedCounter - 1);
}

TEST(DataFile, ASumTheFileCannotHoldIsRefusedNotSkipped) {
  DataFileWriter none;
  EXPECT_FALSE(none.SetSummedCounter(ModuleRecordRef{}, 0, 1, 2));  // no file
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 20, &err) && w.Create(dir, 5, &err)) << err;
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 3; ++i) sites.push_back({0x06000001, i});
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  EXPECT_FALSE(w.SetSummedCounter(*m, 2, kMaxSummedSource + 1, 0));
  EXPECT_FALSE(w.SetSummedCounter(*m, 2, 0, kMaxSummedSource + 1));
  EXPECT_EQ(counters[2], 0u);  // nothing written
  EXPECT_TRUE(w.SetSummedCounter(*m, 2, kMaxSummedSource, 0));
  EXPECT_EQ(counters[2], kDerivedCounter | kSummedCounter | (uint64_t{kMaxSummedSource} << 31));
}

TEST_F(WrittenFile, SharedCountersAreRecordedOrTheMethodIsRefused) {
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 4; ++i) sites.push_back({0x06000001, i});
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  const uint32_t base = 100;  // the module's first slot in the agent's numbering
  EXPECT_TRUE(RecordSharedCounters(w, *m, base, {{base + 3, base + 2}}, {{base + 2, base + 0, base + 1}}));
  EXPECT_EQ(counters[2], kDerivedCounter | kSummedCounter | 1);
  EXPECT_EQ(counters[3], kDerivedCounter | 2);
  counters[2] = counters[3] = 0;
  // A source past what the file holds: false, so the agent leaves the method uninstrumented ("not measured")
  // instead of running probes whose block reads 0; no mark is left behind.
  EXPECT_FALSE(RecordSharedCounters(w, *m, base, {{base + 3, base + 2}},
                                    {{base + 2, base + 0, base + kMaxSummedSource + 1}}));
  EXPECT_EQ(counters[2], 0u);
  EXPECT_EQ(counters[3], 0u);
}

TEST_F(WrittenFile, SummedCounterCyclesAndBadSourcesReadZeroWithAWarningEach) {
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 5; ++i) sites.push_back({0x06000001, i});
  auto m = w.AddModule(Ident(1, "/a.dll"), sites, 1, &err);
  ASSERT_TRUE(m) << err;
  auto* counters = reinterpret_cast<uint64_t*>(w.base()) + m->first_slot;
  counters[0] = 3;
  EXPECT_TRUE(w.SetSummedCounter(*m, 1, 0, 2));  // 1 and 2 name each other
  EXPECT_TRUE(w.SetSummedCounter(*m, 2, 1, 0));
  EXPECT_TRUE(w.SetSummedCounter(*m, 3, 0, 9));  // no site 9
  w.SetDerivedCounter(*m, 4, 3);    // derived from a broken one
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(w.path()), &f, &err)) << err;
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{3, 0, 0, 0, 0}));
  EXPECT_EQ(f.warnings.size(), 4u);
}

TEST(DataFile, Version3FilesStillRead) {
  DataFile f;
  f.modules.push_back({});
  f.modules[0].sites = {{0x06000001, 0}};
  f.modules[0].hits = {3};
  std::vector<uint8_t> bytes = SerializeDataFile(f);
  AsVersion(bytes, 3);
  DataFile back;
  std::string err;
  ASSERT_TRUE(ParseDataFile(bytes, &back, &err)) << err;
  EXPECT_EQ(back.format_version, 3u);
  EXPECT_EQ(back.modules[0].hits, (std::vector<uint64_t>{3}));
  bytes[8] = 2;
  EXPECT_FALSE(ParseDataFile(bytes, &back, &err));
}

TEST(DataFile, Version3CountsWithTheTopBitStayCounts) {
  // An older combine saturated at 2^64 - 1; such a count is no derived counter, and stays a count when written again.
  DataFile f;
  f.modules.push_back({});
  f.modules[0].sites = {{0x06000001, 0}};
  const uint64_t marker = 0x0123456789ABCDEFull;
  f.modules[0].hits = {marker};
  std::vector<uint8_t> bytes = SerializeDataFile(f);
  AsVersion(bytes, 3);
  uint8_t pattern[8];
  std::memcpy(pattern, &marker, 8);
  auto at = std::search(bytes.begin(), bytes.end(), pattern, pattern + 8);
  ASSERT_NE(at, bytes.end());
  std::fill(at, at + 8, uint8_t{0xFF});
  DataFile back;
  std::string err;
  ASSERT_TRUE(ParseDataFile(bytes, &back, &err)) << err;
  EXPECT_TRUE(back.warnings.empty());
  EXPECT_EQ(back.modules[0].hits, (std::vector<uint64_t>{kDerivedCounter - 1}));
  DataFile again;
  ASSERT_TRUE(ParseDataFile(SerializeDataFile(back), &again, &err)) << err;
  EXPECT_EQ(again.format_version, kDataFormatVersion);
  EXPECT_EQ(again.modules[0].hits, back.modules[0].hits);
}

TEST(DataFile, EveryByteWrittenOnceIsChecksummedInAnAgentsFile) {
  // Header, process, module (all but its counters and method states), note, conflict and context records, and a
  // context-hits record's capacity: one flipped bit anywhere there is damage; the counters and states, which the
  // process changes while it lives, cannot be checked.
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 20, &err)) << err;
  ASSERT_TRUE(w.Create(dir, 77, &err)) << err;
  ASSERT_TRUE(w.AddProcessInfo("dotnet test", "/src", &err)) << err;
  auto m = w.AddModule(Ident(1, "/src/bin/Calc.dll"), {{0x06000001, 0}, {0x06000002, 3}}, 2, &err);
  ASSERT_TRUE(m) << err;
  w.SetMethodState(*m, 1, kMethodInstrumented);
  w.SetMethodState(*m, 2, kMethodNotMeasured);
  ASSERT_TRUE(w.AddNotMeasured(*m, {0x06000002, kWholeMethod, kWholeMethod, "ReJIT failed"}, &err)) << err;
  ASSERT_TRUE(w.AddConflict("coverlet", &err)) << err;
  ASSERT_TRUE(w.AddContext(1, "T.Test", &err)) << err;
  ASSERT_TRUE(w.AddContextHit(1, m->first_slot, &err)) << err;
  reinterpret_cast<uint64_t*>(w.base())[m->first_slot] = 9;
  const std::vector<uint8_t> good = ReadAll(w.path());
  DataFile f;
  ASSERT_TRUE(ParseDataFile(good, &f, &err)) << err;
  ASSERT_TRUE(f.warnings.empty()) << f.warnings[0];
  uint32_t counters_at = 0;
  std::memcpy(&counters_at, good.data() + m->offset + kRecordHeaderSize + 44, 4);
  uint64_t module_size = 0;
  std::memcpy(&module_size, good.data() + m->offset + 8, 8);
  const size_t live_from = m->offset + counters_at, live_to = m->offset + module_size;
  // The lost counts; a module's counters, method states and the padding after them.
  std::vector<std::pair<size_t, size_t>> live = {{32, 40}, {live_from, live_to}};
  for (auto [kind, at] : Records(good))
    if (kind == static_cast<uint32_t>(RecordKind::kContextHits)) live.emplace_back(at + kRecordHeaderSize + 4, good.size());
  size_t end = Records(good).back().second;  // (the context-hits record runs to the end of the used space)
  std::set<size_t> undetected;
  for (size_t i = 0; i < end + 24; ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    DataFile d;
    bool ok = ParseDataFile(bad, &d, &err);
    if (ok && d.warnings.empty()) undetected.insert(i);
  }
  std::set<size_t> expected;
  for (auto [from, to] : live)
    for (size_t i = from; i < to && i < end + 24; ++i) expected.insert(i);
  // Everything outside the live regions is checked; a live count can change unnoticed (a context-hits pair
  // naming nothing is still a warning).
  for (size_t i : undetected) EXPECT_TRUE(expected.count(i)) << "byte " << i << " flipped unnoticed";
  EXPECT_TRUE(undetected.count(live_from));
  fs::remove_all(dir);
}

TEST(DataFile, EveryByteOfACombinedFileIsChecksummed) {
  DataFile src;
  src.pid = 5;
  src.start_time_ns = 123;
  src.lost_records = 1;
  src.lost_errno = 28;
  src.processes.push_back({"cmd", "/w"});
  src.conflicts.push_back("coverlet");
  src.contexts.push_back({1, "T.Test"});
  src.merged_inputs.push_back({42, 99});
  ModuleData md;
  md.id = Ident(1, "/a.dll");
  md.sites = {{0x06000001, 0}, {0x06000002, 0}};
  md.hits = {4, 0};
  md.method_states = {kMethodInstrumented, kMethodNotMeasured};
  md.not_measured.push_back({0x06000002, kWholeMethod, kWholeMethod, "why"});
  md.context_hits.emplace_back(1, 0);
  src.modules.push_back(md);
  const std::vector<uint8_t> good = SerializeDataFile(src);
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(good, &f, &err)) << err;
  ASSERT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.merged_inputs, src.merged_inputs);
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x01;
    DataFile d;
    bool ok = ParseDataFile(bad, &d, &err);
    EXPECT_TRUE(!ok || !d.warnings.empty()) << "byte " << i << " flipped unnoticed";
  }
}

TEST(DataFile, AModuleRecordAProcessWasKilledWritingIsANoticeNotDamage) {
  // Killed inside AddModule: the record is allocated (kind and size), maybe partly written, never committed. Its
  // methods never ran with probes, so nothing was lost.
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  ASSERT_TRUE(w.Reserve(1 << 20, &err)) << err;
  ASSERT_TRUE(w.Create(dir, 77, &err)) << err;
  auto first = w.AddModule(Ident(1, "/a.dll"), {{0x06000001, 0}}, 1, &err);
  ASSERT_TRUE(first) << err;
  auto second = w.AddModule(Ident(2, "/b.dll"), {{0x06000001, 0}}, 1, &err);
  ASSERT_TRUE(second) << err;
  std::vector<uint8_t> bytes = ReadAll(w.path());
  bytes[second->offset + 4] = bytes[second->offset + 5] = bytes[second->offset + 6] = bytes[second->offset + 7] = 0;
  DataFile f;
  ASSERT_TRUE(ParseDataFile(bytes, &f, &err)) << err;
  EXPECT_EQ(f.modules.size(), 1u);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.notices.size(), 1u);
  // With a count already in it, the record was committed once: its state was damaged, and hits are lost.
  reinterpret_cast<uint64_t*>(w.base())[second->first_slot] = 1;
  bytes = ReadAll(w.path());
  bytes[second->offset + 4] = bytes[second->offset + 5] = bytes[second->offset + 6] = bytes[second->offset + 7] = 0;
  ASSERT_TRUE(ParseDataFile(bytes, &f, &err)) << err;
  EXPECT_EQ(f.warnings.size(), 1u);
  // Not the last record: never what a kill leaves.
  bytes = ReadAll(w.path());
  bytes[first->offset + 4] = bytes[first->offset + 5] = bytes[first->offset + 6] = bytes[first->offset + 7] = 0;
  ASSERT_TRUE(ParseDataFile(bytes, &f, &err)) << err;
  EXPECT_EQ(f.warnings.size(), 1u);
  EXPECT_TRUE(f.notices.empty());
  fs::remove_all(dir);
}
