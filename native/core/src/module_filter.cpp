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

// "C:\\..." or "c:/...": a Windows path, compared with either separator and in any case (as Windows does).
bool IsDrivePath(const std::string& p) {
  return p.size() >= 3 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':' && (p[2] == '\\' || p[2] == '/');
}

// A Windows path with '/' separators and lower case; other paths unchanged.
std::string Comparable(const std::string& p) {
  if (!IsDrivePath(p)) return p;
  std::string out = Lower(p);
  std::replace(out.begin(), out.end(), '\\', '/');
  return out;
}

std::string Slashes(std::string p) {
  std::replace(p.begin(), p.end(), '\\', '/');
  return p;
}

// "/_/a/b.cs" or "/_1/a/b.cs" -> "a/b.cs"; "" for other paths.
std::string DeterministicRest(const std::string& doc) {
  if (!StartsWith(doc, "/_")) return "";
  size_t i = 2;
  while (i < doc.size() && std::isdigit(static_cast<unsigned char>(doc[i]))) ++i;
  if (i >= doc.size() || doc[i] != '/') return "";
  return doc.substr(i + 1);
}

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

bool PathIsUnder(const std::string& path_in, const std::string& root_in) {
  if (root_in.empty()) return true;
  if (IsDrivePath(root_in) != IsDrivePath(path_in)) return false;
  std::string path = Comparable(path_in), root = Comparable(root_in);
  if (root.size() > 1 && root.back() == '/') root.pop_back();  // "c:/" and "/src/" as "c:" and "/src"
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
  // Deterministic CI builds record sources as /_/..., /_1/...: such a module is the
  // user's when one of those sources exists below the source root or one of its
  // parents (the repository root), as the report will map it. Packages' own
  // deterministic builds copied into bin/ have no sources here.
  const std::string& first = facts.document_paths[0];
  if (options.file_exists && !options.source_root.empty()) {
    for (const auto& doc : facts.document_paths) {
      std::string rest = DeterministicRest(doc);
      if (rest.empty()) continue;
      // A Windows root with '/' separators, which Windows opens too.
      for (std::string dir = IsDrivePath(options.source_root) ? Slashes(options.source_root) : options.source_root;
           !dir.empty();) {
        if (options.file_exists(dir + "/" + rest)) {
          d.cover = true;
          d.reason = "deterministic build; " + doc + " is " + dir + "/" + rest;
          return d;
        }
        size_t slash = dir.rfind('/');
        if (slash == std::string::npos || dir == "/") break;
        dir = slash == 0 ? (dir == "/" ? "" : "/") : dir.substr(0, slash);
        if (dir == "/") {
          if (options.file_exists("/" + rest)) {
            d.cover = true;
            d.reason = "deterministic build; " + doc + " is /" + rest;
            return d;
          }
          break;
        }
      }
    }
  }
  d.reason = "no source document under " + options.source_root + " (first: " + first + ")";
  return d;
}

}  // namespace dotcov
