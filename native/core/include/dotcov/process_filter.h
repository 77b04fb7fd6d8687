// Decides, from a process's command line alone, whether the agent should stay:
// `dotcov run -- dotnet test` starts the SDK, MSBuild nodes, the compiler server
// and vstest.console with the agent's variables too, and those have nothing to
// cover. Declining them in Initialize costs almost nothing.
#pragma once

#include <string>
#include <vector>

namespace dotcov {

struct ProcessDecision {
  bool cover = true;
  std::string app;     // the managed app's path when known
  std::string reason;  // why, for the log
};

// `argv` is /proc/self/cmdline split on NULs; `exe` is /proc/self/exe.
ProcessDecision DecideProcess(const std::vector<std::string>& argv, const std::string& exe);

}  // namespace dotcov
