// Another coverage tool's work in an assembly: coverlet (its collector or
// coverlet.msbuild) rewrites the assemblies in bin/ in place and adds its
// tracker type to each. dotcov must not measure such code, and must say why.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

// Names the tool whose instrumentation `image` (an assembly file) carries, and
// the evidence; "" when there is none (or the image does not parse).
std::string ForeignInstrumentation(Bytes image);

// Names a coverage data collector the test platform's command line turns on
// (vstest.console's `--collect:NAME`, or a `--settings:FILE` whose
// DataCollector friendlyName is one), with the evidence; "" when none. The
// test host of such a run gets that collector's profiler instead of dotcov's
// (Microsoft's), or assemblies rewritten by coverlet. `read_file` returns a
// file's text ("" when unreadable).
std::string CoverageCollectorInArgs(const std::vector<std::string>& argv,
                                    const std::function<std::string(const std::string&)>& read_file);

}  // namespace dotcov
