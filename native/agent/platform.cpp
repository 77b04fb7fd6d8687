// What the agent asks of the operating system, on Linux and on Windows (docs/platforms.md). Kept apart from
// clr_abi.h: <windows.h> defines S_OK, E_FAIL and others as macros.
#include "platform.h"

#include <algorithm>
#include <cctype>

#ifdef _WIN32
#include <windows.h>
#include <shellapi.h>
#include <algorithm>
#else
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <iterator>
#endif

namespace dotcov::agent {

#ifdef _WIN32
namespace {
std::string Narrow(const wchar_t* w, int len = -1) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, len, nullptr, 0, nullptr, nullptr);
  if (n <= 0) return {};
  std::string s(size_t(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, w, len, s.data(), n, nullptr, nullptr);
  if (len < 0) s.pop_back();  // the terminator counted by -1
  return s;
}
}  // namespace

// The process's arguments as the C runtime splits its command line (no /proc on Windows).
std::vector<std::string> ReadCommandLine() {
  std::vector<std::string> argv;
  int argc = 0;
  wchar_t** wargv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (!wargv) return argv;
  for (int i = 0; i < argc; ++i) argv.push_back(Narrow(wargv[i]));
  LocalFree(wargv);
  return argv;
}

// The process image's path, with '/' separators (the process filter splits paths on '/').
std::string ExePath() {
  std::wstring buf(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, buf.data(), DWORD(buf.size()));
  if (n == 0 || n >= buf.size()) return {};
  std::string s = Narrow(buf.data(), int(n));
  std::replace(s.begin(), s.end(), '\\', '/');
  return s;
}

uint32_t ProcessId() { return uint32_t(GetCurrentProcessId()); }

std::string CurrentDir() {
  std::wstring buf(32768, L'\0');
  DWORD n = GetCurrentDirectoryW(DWORD(buf.size()), buf.data());
  return n == 0 || n >= buf.size() ? std::string() : Narrow(buf.data(), int(n));
}

bool IsRegularFile(const std::string& path) {
  int n = MultiByteToWideChar(CP_UTF8, 0, path.data(), int(path.size()), nullptr, 0);
  std::wstring w(size_t(n > 0 ? n : 0), L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, path.data(), int(path.size()), w.data(), n);
  DWORD a = GetFileAttributesW(w.c_str());
  return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}
#else
std::vector<std::string> ReadCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all{std::istreambuf_iterator<char>(in), {}};
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] == '\0') {
      argv.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < all.size()) argv.push_back(all.substr(start));
  return argv;
}

namespace {
std::string ReadLink(const char* path) {
  char buf[4096];
  ssize_t n = readlink(path, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

}  // namespace

std::string ExePath() { return ReadLink("/proc/self/exe"); }

uint32_t ProcessId() { return uint32_t(getpid()); }

std::string CurrentDir() {
  char cwd[4096];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) : std::string();
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
#endif

std::string AgentPath(std::string path) {
#ifdef _WIN32
  std::replace(path.begin(), path.end(), '\\', '/');
#endif
  return path;
}

bool IsAbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return true;
#ifdef _WIN32
  if (path.size() >= 3 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':' && path[2] == '/')
    return true;
#endif
  return false;
}

}  // namespace dotcov::agent
