// Failures injected on purpose, so tests can prove the agent's failure paths
// end to end (DOTCOV_TEST_FAIL_REWRITE, docs/architecture.md).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

// MethodDef tokens of the assembly file `image` whose name is `name`, given as
// "Method" or "Namespace.Type.Method" (nested types "Outer/Inner"). Empty when
// none match or the image does not parse.
std::vector<uint32_t> MethodTokensNamed(Bytes image, std::string_view name);

}  // namespace dotcov
