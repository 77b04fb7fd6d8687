#include "agent_log.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "platform.h"

namespace dotcov::agent {
namespace {
std::mutex g_mu;
#ifdef _WIN32
HANDLE g_file = INVALID_HANDLE_VALUE;
std::wstring Wide(const std::string& utf8) {
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), nullptr, 0);
  std::wstring w(size_t(n > 0 ? n : 0), L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), w.data(), n);
  return w;
}
bool Open() { return g_file != INVALID_HANDLE_VALUE; }
#else
int g_fd = -1;
bool Open() { return g_fd >= 0; }
#endif
}  // namespace

void InitLog(const std::string& spec, const std::string& data_dir) {
  if (spec.empty() || spec == "0") return;
  std::string dir = spec == "1" ? data_dir + "/logs" : spec;
  std::string path = dir + "/agent." + std::to_string(ProcessId()) + ".log";
  std::lock_guard<std::mutex> lock(g_mu);
#ifdef _WIN32
  // Windows accepts '/' in paths; the directory gets the default (the user's) access, not a Unix mode.
  CreateDirectoryW(Wide(dir).c_str(), nullptr);
  g_file = CreateFileW(Wide(path).c_str(), FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                       nullptr, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
#else
  mkdir(dir.c_str(), 0700);
  g_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
#endif
}

bool LogEnabled() { return Open(); }

void Log(const char* fmt, ...) {
  if (!Open()) return;
  char buf[2048];
#ifdef _WIN32
  FILETIME ft;
  GetSystemTimePreciseAsFileTime(&ft);
  // 100 ns ticks since 1601 to Unix seconds and microseconds, as on Linux.
  uint64_t ticks = (uint64_t(ft.dwHighDateTime) << 32 | ft.dwLowDateTime) - 116444736000000000ULL;
  long sec = long(ticks / 10000000), usec = long(ticks % 10000000 / 10);
#else
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  long sec = long(ts.tv_sec), usec = long(ts.tv_nsec / 1000);
#endif
  int n = snprintf(buf, sizeof buf, "%ld.%06ld [%d] ", sec, usec, int(ProcessId()));
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
  va_end(ap);
  size_t len = size_t(n) + (m < 0 ? 0 : std::min<size_t>(size_t(m), sizeof buf - n - 2));
  buf[len++] = '\n';
  std::lock_guard<std::mutex> lock(g_mu);
#ifdef _WIN32
  DWORD written = 0;
  WriteFile(g_file, buf, DWORD(len), &written, nullptr);
#else
  ssize_t w = write(g_fd, buf, len);
  (void)w;
#endif
}

}  // namespace dotcov::agent
