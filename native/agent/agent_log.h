// The agent's log: off unless DOTCOV_LOG is set, so a covered process's output
// is never touched. Lines go to a file of their own per process.
#pragma once

#include <string>

namespace dotcov::agent {

// `spec` is DOTCOV_LOG: empty or "0" = off; "1" = <data dir>/logs/agent.<pid>.log;
// anything else is a directory to write agent.<pid>.log into.
void InitLog(const std::string& spec, const std::string& data_dir);
bool LogEnabled();
#ifdef _WIN32
// mingw's C++ headers route printf to its own C99 implementation (%zu works): gnu_printf says so to the checker.
void Log(const char* fmt, ...) __attribute__((format(gnu_printf, 1, 2)));
#else
void Log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
#endif

}  // namespace dotcov::agent
