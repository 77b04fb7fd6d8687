// Fuzz target: coverage data-file parser. Whatever parses must serialise and
// parse back to the same content, with no warnings.
#include <string>

#include "dotcov/data_file.h"
#include "fuzz_common.h"

using namespace dotcov;
using dotcov::fuzz::Sink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DataFile file;
  std::string error;
  if (!ParseDataFile(Bytes(data, size), &file, &error)) {
    FUZZ_CHECK(!error.empty());
    FUZZ_CHECK(file.modules.empty() && file.processes.empty());
    return 0;
  }
  for (const ModuleData& m : file.modules) {
    FUZZ_CHECK(m.sites.size() == m.hits.size());
    Sink(m.id.path.size() + m.id.mvid[0] + m.id.pdb_id[0]);
  }
  for (const std::string& w : file.warnings) Sink(w.size());

  std::vector<uint8_t> bytes = SerializeDataFile(file);
  DataFile again;
  FUZZ_CHECK(ParseDataFile(Bytes(bytes), &again, &error));
  FUZZ_CHECK(again.warnings.empty());
  // An older readable format is written back in the current one.
  FUZZ_CHECK(again.format_version == kDataFormatVersion && again.pid == file.pid &&
             again.start_time_ns == file.start_time_ns);
  FUZZ_CHECK(again.processes.size() == file.processes.size());
  for (size_t i = 0; i < file.processes.size(); ++i) {
    FUZZ_CHECK(again.processes[i].command_line == file.processes[i].command_line);
    FUZZ_CHECK(again.processes[i].cwd == file.processes[i].cwd);
  }
  FUZZ_CHECK(again.modules.size() == file.modules.size());
  for (size_t i = 0; i < file.modules.size(); ++i) {
    const ModuleData& a = file.modules[i];
    const ModuleData& b = again.modules[i];
    FUZZ_CHECK(a.id.mvid == b.id.mvid && a.id.pdb_id == b.id.pdb_id && a.id.path == b.id.path);
    FUZZ_CHECK(a.sites == b.sites && a.hits == b.hits);
    FUZZ_CHECK(a.context_hits == b.context_hits);
    for (const auto& [id, index] : a.context_hits) FUZZ_CHECK(index < a.sites.size() && id != 0);
  }
  FUZZ_CHECK(again.contexts == file.contexts);
  // Serialising is a fixed point.
  FUZZ_CHECK(SerializeDataFile(again) == bytes);
  return 0;
}
