#include "agent_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace dotcov::agent {
namespace {
std::mutex g_mu;
int g_fd = -1;
}  // namespace

void InitLog(const std::string& spec, const std::string& data_dir) {
  if (spec.empty() || spec == "0") return;
  std::string dir = spec == "1" ? data_dir + "/logs" : spec;
  mkdir(dir.c_str(), 0700);
  std::string path = dir + "/agent." + std::to_string(getpid()) + ".log";
  std::lock_guard<std::mutex> lock(g_mu);
  g_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

bool LogEnabled() { return g_fd >= 0; }

void Log(const char* fmt, ...) {
  if (g_fd < 0) return;
  char buf[2048];
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  int n = snprintf(buf, sizeof buf, "%ld.%06ld [%d] ", long(ts.tv_sec), long(ts.tv_nsec / 1000), int(getpid()));
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
  va_end(ap);
  size_t len = size_t(n) + (m < 0 ? 0 : std::min<size_t>(size_t(m), sizeof buf - n - 2));
  buf[len++] = '\n';
  std::lock_guard<std::mutex> lock(g_mu);
  ssize_t w = write(g_fd, buf, len);
  (void)w;
}

}  // namespace dotcov::agent
