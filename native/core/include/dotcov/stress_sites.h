// Stress mode (DOTCOV_STRESS_ALL_METHODS=1): a probe site at every instruction
// boundary of every method body, PDB or not, to prove the rewriter on all the
// IL a process runs.
#pragma once

#include <string>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/data_file.h"
#include "dotcov/il_method.h"

namespace dotcov {

// Offsets of `body` before which a probe may go: every instruction except one
// right after a prefix and the `ret` that follows a `tail.` call.
std::vector<uint32_t> ProbeableOffsets(const il::MethodBody& body);

// Sites for every method with a body in the assembly file `image` (every
// probeable offset, every branch outcome, both outcomes of every value
// condition as module_sites finds them), sorted by
// (token, offset); *method_count is the MethodDef row count and *mvid the
// module's MVID. Methods whose bodies do not decode get no sites.
bool StressSites(Bytes image, std::vector<ProbeSite>* sites, uint32_t* method_count,
                 std::array<uint8_t, 16>* mvid, std::string* error);

}  // namespace dotcov
