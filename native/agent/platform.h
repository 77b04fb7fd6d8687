// What the agent asks of the operating system (platform.cpp: Linux and Windows).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dotcov::agent {

// The process's arguments (Linux: /proc/self/cmdline; Windows: the command line split as the C runtime does).
std::vector<std::string> ReadCommandLine();
// The process image's path ('/' separators on both), or "" when unknown.
std::string ExePath();
uint32_t ProcessId();
// The working directory (UTF-8), or "".
std::string CurrentDir();
// Whether path (UTF-8) names a regular file. On Windows a path with '/' separators works too; under Wine a
// Unix absolute path resolves on the current drive, which is Z: (the Unix root) when started from a Unix directory.
bool IsRegularFile(const std::string& path);
// A path the runtime gives (a module's) as the agent handles it: '/' separators (Windows: "C:\\a\\b.dll" becomes
// "C:/a/b.dll", which Windows opens too); unchanged on Linux.
std::string AgentPath(std::string path);
// "/..." on both; on Windows also "X:/...".
bool IsAbsolutePath(const std::string& path);

}  // namespace dotcov::agent
