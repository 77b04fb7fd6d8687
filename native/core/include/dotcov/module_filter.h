// Which modules are covered: by default those whose sources lie under the
// directory `dotcov run` started in, and not test assemblies.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dotcov {

struct ModuleFacts {
  std::string assembly_path;
  std::string assembly_name;
  std::vector<std::string> referenced_assemblies;
  std::vector<std::string> document_paths;  // from the PDB
};

struct ModuleFilterOptions {
  std::string source_root;  // "" = any sources
  bool include_test_assemblies = false;
  // Whether a file exists (for deterministic /_/ paths); none = never.
  std::function<bool(const std::string&)> file_exists;
};

struct FilterDecision {
  bool cover = false;
  std::string reason;
};

// True when the assembly references a test framework (xunit, NUnit, MSTest).
bool IsTestAssembly(const std::vector<std::string>& referenced_assemblies, std::string* framework);

// True when `path` is `root` or lies below it (component-wise, so /src/a is not under /src/ab).
bool PathIsUnder(const std::string& path, const std::string& root);

FilterDecision DecideModule(const ModuleFacts& facts, const ModuleFilterOptions& options);

}  // namespace dotcov
