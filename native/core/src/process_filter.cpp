#include "dotcov/process_filter.h"

namespace dotcov {
namespace {

// Paths and names are compared as Windows has them too: either separator, any case (`C:\Program
// Files\dotnet\dotnet.exe`, `DOTNET.EXE`); on Linux no SDK path differs from another only in these.
std::string Folded(const std::string& p) {
  std::string out = p;
  for (char& c : out) {
    if (c == '\\') c = '/';
    else if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  }
  return out;
}

// The base name after either separator, as written (for the log).
std::string Basename(const std::string& p) {
  size_t slash = p.find_last_of("/\\");
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The folded base name without a Windows executable's ".exe".
std::string ProgramName(const std::string& p) {
  std::string base = Folded(Basename(p));
  return base.size() > 4 && base.compare(base.size() - 4, 4, ".exe") == 0 ? base.substr(0, base.size() - 4) : base;
}

// The folded directory.
std::string Dirname(const std::string& p) {
  std::string f = Folded(p);
  size_t slash = f.rfind('/');
  return slash == std::string::npos ? std::string() : f.substr(0, slash);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `dotnet exec` options that take a value (hostfxr's muxer options).
bool TakesValue(const std::string& opt) {
  return opt == "--runtimeconfig" || opt == "--depsfile" || opt == "--additionalprobingpath" ||
         opt == "--additional-deps" || opt == "--fx-version" || opt == "--roll-forward" ||
         opt == "--runtimeconfig-json";
}

}  // namespace

ProcessDecision DecideProcess(const std::vector<std::string>& argv, const std::string& exe) {
  ProcessDecision d;
  if (argv.empty()) {
    d.reason = "no command line; covering";
    return d;
  }
  bool muxer = ProgramName(exe) == "dotnet" || ProgramName(argv[0]) == "dotnet";
  if (!muxer) {
    d.app = exe.empty() ? argv[0] : exe;
    // The SDK's compiler app hosts (sdk/<version>/Roslyn/bincore/csc, vbc, VBCSCompiler) are tools too.
    std::string app = Folded(d.app);
    if (app.find("/sdk/") != std::string::npos && app.find("/roslyn/bincore/") != std::string::npos) {
      d.cover = false;
      d.reason = "SDK compiler " + Basename(d.app);
      return d;
    }
    d.reason = "app host " + d.app;
    return d;
  }
  // The dotnet muxer: `dotnet app.dll`, `dotnet exec [opts] app.dll`, or an SDK command.
  size_t i = 1;
  if (i < argv.size() && argv[i] == "exec") {
    ++i;
    while (i < argv.size() && argv[i].rfind("--", 0) == 0) i += TakesValue(argv[i]) ? 2 : 1;
  }
  if (i >= argv.size()) {
    d.cover = false;
    d.reason = "dotnet muxer without an app";
    return d;
  }
  const std::string& app = argv[i];
  if (!EndsWith(Folded(app), ".dll") && !EndsWith(Folded(app), ".exe")) {
    d.cover = false;
    d.reason = "SDK command 'dotnet " + app + "'";
    return d;
  }
  d.app = app;
  std::string root = Dirname(exe);
  if (!root.empty() && Folded(app).rfind(root + "/sdk/", 0) == 0) {
    d.cover = false;
    d.reason = "SDK tool " + Basename(app);
    return d;
  }
  static const char* const kTools[] = {"msbuild.dll", "vbcscompiler.dll", "vstest.console.dll", "csc.dll",
                                       "dotnet.dll", "datacollector.dll"};
  for (const char* tool : kTools) {
    if (Folded(Basename(app)) == tool) {
      d.cover = false;
      d.reason = "tool " + Basename(app);
      return d;
    }
  }
  d.reason = "app " + app;
  return d;
}

}  // namespace dotcov
