#include "dotcov/module_filter.h"

#include <algorithm>
#include <cctype>

namespace dotcov {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

bool IsTestAssembly(const std::vector<std::string>& refs, std::string* framework) {
  for (const auto& r : refs) {
    std::string n = Lower(r);
    bool test = n == "xunit.core" || n == "xunit.assert" || n == "xunit.abstractions" || StartsWith(n, "xunit.v3") ||
                n == "nunit.framework" || StartsWith(n, "microsoft.visualstudio.testplatform.testframework") ||
                StartsWith(n, "mstest.");
    if (test) {
      if (framework) *framework = r;
      return true;
    }
  }
  return false;
}

bool PathIsUnder(const std::string& path, const std::string& root) {
  if (root.empty()) return true;
  if (root == "/") return !path.empty() && path[0] == '/';
  if (!StartsWith(path, root)) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

FilterDecision DecideModule(const ModuleFacts& facts, const ModuleFilterOptions& options) {
  FilterDecision d;
  std::string framework;
  if (!options.include_test_assemblies && IsTestAssembly(facts.referenced_assemblies, &framework)) {
    d.reason = "test assembly (references " + framework + ")";
    return d;
  }
  if (facts.document_paths.empty()) {
    d.reason = "its PDB lists no source documents";
    return d;
  }
  for (const auto& doc : facts.document_paths) {
    if (PathIsUnder(doc, options.source_root)) {
      d.cover = true;
      d.reason = "sources under " + (options.source_root.empty() ? std::string("any root") : options.source_root);
      return d;
    }
  }
  d.reason = "no source document under " + options.source_root + " (first: " + facts.document_paths[0] + ")";
  return d;
}

}  // namespace dotcov
