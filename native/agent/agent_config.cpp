#include "agent_config.h"

#include <cstdlib>

namespace dotcov::agent {
namespace {
std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

AgentConfig AgentConfig::FromEnvironment() {
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

}  // namespace dotcov::agent
