#include "agent_config.h"

#include <cstdlib>
#include <map>

namespace dotcov::agent {
namespace {
using Lookup = std::function<std::string(const char*)>;

AgentConfig FromLookup(const Lookup& Env) {
  AgentConfig c;
  c.data_dir = Env("DOTCOV_DATA_DIR");
  c.source_root = Env("DOTCOV_SOURCE_ROOT");
  while (c.source_root.size() > 1 && c.source_root.back() == '/') c.source_root.pop_back();
  c.include_test_assemblies = Env("DOTCOV_INCLUDE_TEST_ASSEMBLIES") == "1";
  c.log = Env("DOTCOV_LOG");
  c.stress_all_methods = Env("DOTCOV_STRESS_ALL_METHODS") == "1";
  c.branches = Env("DOTCOV_BRANCHES") != "0";
  c.inline_probes = Env("DOTCOV_PROBE") != "call";
  c.share_counters = Env("DOTCOV_SHARE") != "0";
  c.exact_counts = Env("DOTCOV_EXACT_COUNTS") == "1";
  c.test_fail_rewrite = Env("DOTCOV_TEST_FAIL_REWRITE");
  c.test_fail_rejit = Env("DOTCOV_TEST_FAIL_REJIT");
  c.rejit = Env("DOTCOV_REJIT") != "0";
  c.contexts = Env("DOTCOV_CONTEXTS") == "test";
  c.test_stall_rejit = Env("DOTCOV_TEST_STALL_REJIT");
  return c;
}

constexpr char kClientDataHeader[] = "dotcov-attach 1";
}  // namespace

AgentConfig AgentConfig::FromEnvironment() {
  return FromLookup([](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  });
}

bool AgentConfig::FromClientData(const void* data, size_t size, AgentConfig* out, std::string* error) {
  std::string text(static_cast<const char*>(data), data ? size : 0);
  std::map<std::string, std::string> pairs;
  size_t at = 0;
  bool header = true;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (header) {
      if (line != kClientDataHeader) {
        *error = "the attach data is not dotcov's (format \"" + std::string(kClientDataHeader) + "\" expected)";
        return false;
      }
      header = false;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    pairs[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (header) {
    *error = "no attach data";
    return false;
  }
  *out = FromLookup([&](const char* name) {
    auto it = pairs.find(name);
    return it == pairs.end() ? std::string() : it->second;
  });
  return true;
}

}  // namespace dotcov::agent
