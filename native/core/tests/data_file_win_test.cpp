// The data-file writer on Windows (built with mingw-w64, run under wine64; docs/platforms.md): the same records as
// on Linux, counters at fixed addresses while the file grows view by view, the live lock, a full disk.
// data_file_test.cpp holds the POSIX-only tests (fork, SIGKILL, mount namespaces, flock).
#ifdef _WIN32
#include <windows.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "data_file_test_util.h"
#include "dotcov/data_file.h"

namespace fs = std::filesystem;
using namespace dotcov;
using namespace dotcov::test_util;

namespace {

// The child half of WriterKilledInAnotherProcess: this executable started with DOTCOV_TEST_WRITER_DIR set
// writes a data file there, says so, and waits to be killed, before GoogleTest's main runs.
const bool kWriterChild = [] {
  wchar_t dir[1024];
  if (!GetEnvironmentVariableW(L"DOTCOV_TEST_WRITER_DIR", dir, 1024)) return false;
  std::string err;
  DataFileWriter w;
  fs::path d(dir);
  if (!w.Reserve(1 << 20, &err) || !w.Create(d.string(), GetCurrentProcessId(), &err) ||
      !w.AddProcessInfo("child", "C:\\src", &err))
    ExitProcess(2);
  auto slot = w.AddModule(Ident(4, "C:\\src\\a.dll"), {{0x06000001, 0}, {0x06000002, 0}}, &err);
  if (!slot) ExitProcess(3);
  reinterpret_cast<uint64_t*>(w.base())[*slot + 1] = 77;
  std::ofstream(d / "ready.tmp") << w.path();
  fs::rename(d / "ready.tmp", d / "ready");
  Sleep(INFINITE);
  return true;
}();

}  // namespace

TEST(DataFileWindows, WriterAndReaderAgreeWhileTheWriterLives) {
  fs::path dir = MakeTempDir();
  std::string err;
  {
    DataFileWriter w;
    ASSERT_TRUE(w.Reserve(1 << 20, &err)) << err;
    ASSERT_TRUE(w.Create(dir.string(), 4242, &err)) << err;
    ASSERT_TRUE(w.AddProcessInfo("dotnet test", "C:\\src", &err)) << err;
    std::vector<ProbeSite> sites = {{0x06000001, 0}, {0x06000001, 7, kBranchTarget + 1}, {0x06000002, 0}};
    auto slot = w.AddModule(Ident(1, "C:\\src\\bin\\Calc.dll"), sites, &err);
    ASSERT_TRUE(slot) << err;
    auto* counters = reinterpret_cast<uint64_t*>(w.base()) + *slot;
    counters[0] = 5;
    counters[2] = 1;
    EXPECT_TRUE(DataFileWriterAlive(w.path()));

    DataFile f;
    ASSERT_TRUE(ParseDataFile(ReadAll(fs::u8path(w.path())), &f, &err)) << err;  // the lock blocks no read
    EXPECT_TRUE(f.warnings.empty());
    EXPECT_EQ(f.pid, 4242u);
    ASSERT_EQ(f.processes.size(), 1u);
    EXPECT_EQ(f.processes[0].command_line, "dotnet test");
    ASSERT_EQ(f.modules.size(), 1u);
    EXPECT_EQ(f.modules[0].id.path, "C:\\src\\bin\\Calc.dll");
    EXPECT_EQ(f.modules[0].sites, sites);
    EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{5, 0, 1}));
    std::string path = w.path();
  }
  fs::remove_all(dir);
}

TEST(DataFileWindows, CountersKeepTheirAddressesAsTheFileGrowsAcrossViews) {
  fs::path dir = MakeTempDir();
  std::string err;
  DataFileWriter w;
  ASSERT_TRUE(w.Reserve(1 << 24, &err) && w.Create(dir.string(), 1, &err)) << err;
  // 40 modules of 1000 sites: about 40 * 20 KB, so the file grows through a dozen 64 KiB views; every module's
  // counters are written as soon as it is added, and all must read back.
  std::vector<ProbeSite> sites;
  for (uint32_t i = 0; i < 1000; ++i) sites.push_back({0x06000001 + i / 10, i % 10});
  std::vector<uint32_t> slots;
  for (int m = 0; m < 40; ++m) {
    auto slot = w.AddModule(Ident(uint8_t(m), "C:\\m" + std::to_string(m) + ".dll"), sites, &err);
    ASSERT_TRUE(slot) << err;
    slots.push_back(*slot);
    auto* counters = reinterpret_cast<uint64_t*>(w.base()) + *slot;
    for (uint32_t i = 0; i < sites.size(); ++i) counters[i] += uint64_t(m) * 1000 + i;
  }
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(fs::u8path(w.path())), &f, &err)) << err;
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.modules.size(), 40u);
  for (int m = 0; m < 40; ++m)
    for (uint32_t i = 0; i < sites.size(); ++i) ASSERT_EQ(f.modules[m].hits[i], uint64_t(m) * 1000 + i) << m;
  EXPECT_GT(fs::file_size(fs::u8path(w.path())), uint64_t(40 * 1000 * 8));
}

TEST(DataFileWindows, TheLiveLockGoesWithTheWriter) {
  fs::path dir = MakeTempDir();
  std::string err, path;
  {
    DataFileWriter w;
    ASSERT_TRUE(w.Reserve(1 << 16, &err) && w.Create(dir.string(), 3, &err)) << err;
    path = w.path();
    EXPECT_TRUE(DataFileWriterAlive(path));
  }
  EXPECT_FALSE(DataFileWriterAlive(path));
  fs::remove_all(dir);
}

// As `combine` sees a writer in another process: alive while it runs (its lock held, its records and counters
// readable), dead once killed (TerminateProcess, as a test host killed mid-run), its committed records and
// counters all there.
TEST(DataFileWindows, WriterKilledInAnotherProcess) {
  fs::path dir = MakeTempDir();
  wchar_t exe[MAX_PATH];
  ASSERT_GT(GetModuleFileNameW(nullptr, exe, MAX_PATH), 0u);
  ASSERT_TRUE(SetEnvironmentVariableW(L"DOTCOV_TEST_WRITER_DIR", dir.wstring().c_str()));
  STARTUPINFOW si{};
  si.cb = sizeof si;
  PROCESS_INFORMATION pi{};
  BOOL started = CreateProcessW(exe, nullptr, nullptr, nullptr, FALSE, 0, nullptr, nullptr, &si, &pi);
  SetEnvironmentVariableW(L"DOTCOV_TEST_WRITER_DIR", nullptr);
  ASSERT_TRUE(started) << GetLastError();
  for (int i = 0; i < 600 && !fs::exists(dir / "ready"); ++i) {
    if (WaitForSingleObject(pi.hProcess, 100) == WAIT_OBJECT_0) break;
  }
  ASSERT_TRUE(fs::exists(dir / "ready")) << "the child wrote no data file";
  std::string path;
  std::getline(std::ifstream(dir / "ready"), path);

  EXPECT_TRUE(DataFileWriterAlive(path));
  DataFile f;
  std::string err;
  ASSERT_TRUE(ParseDataFile(ReadAll(fs::u8path(path)), &f, &err)) << err;
  EXPECT_EQ(f.pid, pi.dwProcessId);
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{0, 77}));

  ASSERT_TRUE(TerminateProcess(pi.hProcess, 137));
  ASSERT_EQ(WaitForSingleObject(pi.hProcess, 60000), WAIT_OBJECT_0);
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  EXPECT_FALSE(DataFileWriterAlive(path));
  DataFile after;
  ASSERT_TRUE(ParseDataFile(ReadAll(fs::u8path(path)), &after, &err)) << err;
  EXPECT_TRUE(after.warnings.empty());
  ASSERT_EQ(after.processes.size(), 1u);
  EXPECT_EQ(after.processes[0].command_line, "child");
  ASSERT_EQ(after.modules.size(), 1u);
  EXPECT_EQ(after.modules[0].id.path, "C:\\src\\a.dll");
  EXPECT_EQ(after.modules[0].hits, (std::vector<uint64_t>{0, 77}));
  fs::remove_all(dir);
}

TEST(DataFileWindows, FullDiskStopsGrowingAndCountsWhatWasLost) {
  fs::path dir = MakeTempDir();
  DataFileWriter w;
  std::string err;
  int calls = 0;
  w.SetAllocatorForTesting([&](int, uint64_t, uint64_t) { return ++calls > 2 ? ENOSPC : 0; });
  ASSERT_TRUE(w.Reserve(1 << 20, &err) && w.Create(dir.string(), 5, &err)) << err;
  auto first = w.AddModule(Ident(1, "C:\\a.dll"), {{0x06000001, 0}}, 1, &err);
  ASSERT_TRUE(first) << err;
  reinterpret_cast<uint64_t*>(w.base())[first->first_slot] = 9;
  EXPECT_FALSE(w.AddModule(Ident(2, "C:\\b.dll"), {{0x06000001, 0}}, 1, &err));
  EXPECT_FALSE(w.AddNotMeasured(*first, {0x06000001, kWholeMethod, kWholeMethod, "x"}, &err));
  EXPECT_NE(err.find("stopped growing"), std::string::npos) << err;
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(w.lost_records(), 2u);
  DataFile f;
  ASSERT_TRUE(ParseDataFile(ReadAll(fs::u8path(w.path())), &f, &err)) << err;
  EXPECT_EQ(f.lost_records, 2u);
  EXPECT_EQ(f.lost_errno, uint32_t(ENOSPC));
  ASSERT_EQ(f.modules.size(), 1u);
  EXPECT_EQ(f.modules[0].hits, (std::vector<uint64_t>{9}));
}

TEST(DataFileWindows, TwoWritersNeverShareAFile) {
  fs::path dir = MakeTempDir();
  DataFileWriter a, b;
  std::string err;
  ASSERT_TRUE(a.Reserve(1 << 16, &err) && a.Create(dir.string(), 7, &err)) << err;
  ASSERT_TRUE(b.Reserve(1 << 16, &err) && b.Create(dir.string(), 7, &err)) << err;
  EXPECT_NE(a.path(), b.path());
  EXPECT_NE(a.base(), b.base());
}
#endif  // _WIN32
