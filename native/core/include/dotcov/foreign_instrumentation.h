// Another coverage tool's work in an assembly: coverlet (its collector or
// coverlet.msbuild) rewrites the assemblies in bin/ in place and adds its
// tracker type to each. dotcov must not measure such code, and must say why.
#pragma once

#include <string>

#include "dotcov/byte_reader.h"

namespace dotcov {

// Names the tool whose instrumentation `image` (an assembly file) carries, and
// the evidence; "" when there is none (or the image does not parse).
std::string ForeignInstrumentation(Bytes image);

}  // namespace dotcov
