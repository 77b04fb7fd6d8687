#include "dotcov/foreign_instrumentation.h"

#include <algorithm>
#include <cctype>

#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"

namespace dotcov {

std::string ForeignInstrumentation(Bytes image) {
  std::string error;
  auto pe = PeImage::Parse(image, &error);
  if (!pe || !pe->is_managed()) return "";
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) return "";
  // coverlet's Instrumenter adds "Coverlet.Core.Instrumentation.Tracker.<module>_<guid>" to the module.
  for (const auto& t : md->TypeDefs()) {
    if (t.name_space.rfind("Coverlet.Core.Instrumentation", 0) == 0)
      return "coverlet (the assembly holds its tracker type " + t.name_space + "." + t.name + ")";
  }
  return "";
}

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string CollectorNamed(const std::string& name) {
  std::string l = Lower(name);
  size_t start = l.find_first_not_of(" \t\"");
  l = start == std::string::npos ? "" : l.substr(start);
  if (l.find("xplat code coverage") != std::string::npos) return "coverlet's collector";
  if (l.rfind("code coverage", 0) == 0) return "Microsoft's code coverage collector";
  return "";
}

// The value of `-name:V`, `--name:V`, `/name:V`, `--name=V` or `--name V` at argv[i], if any.
bool OptionValue(const std::vector<std::string>& argv, size_t i, const std::string& name, std::string* value) {
  std::string a = argv[i];
  for (const char* dash : {"--", "-", "/"}) {
    std::string head = dash + name;
    if (Lower(a.substr(0, head.size())) != head) continue;
    std::string rest = a.substr(head.size());
    if (rest.empty()) {
      if (i + 1 >= argv.size()) return false;
      *value = argv[i + 1];
      return true;
    }
    if (rest[0] == ':' || rest[0] == '=') {
      *value = rest.substr(1);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string CoverageCollectorInArgs(const std::vector<std::string>& argv,
                                    const std::function<std::string(const std::string&)>& read_file) {
  std::string value;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (OptionValue(argv, i, "collect", &value)) {
      std::string tool = CollectorNamed(value);
      if (!tool.empty()) return tool + " (" + argv[i] + ")";
    }
    if (OptionValue(argv, i, "settings", &value)) {
      std::string text = read_file(value);
      std::string lower = Lower(text);
      for (size_t at = lower.find("friendlyname"); at != std::string::npos; at = lower.find("friendlyname", at + 1)) {
        size_t open = lower.find('"', at);
        size_t close = open == std::string::npos ? open : lower.find('"', open + 1);
        if (close == std::string::npos) break;
        std::string name = text.substr(open + 1, close - open - 1);
        std::string tool = CollectorNamed(name);
        if (!tool.empty()) return tool + " (DataCollector \"" + name + "\" in " + value + ")";
      }
    }
  }
  return "";
}

}  // namespace dotcov
