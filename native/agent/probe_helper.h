// The probe's target: a public static method `DotCov.Probes.Hit(int slot)`
// injected into System.Private.CoreLib at its ModuleLoadFinished, and the
// MemberRef every covered module gets to reach it (through an AssemblyRef built
// from CoreLib's own identity, since no facade forwards a type that did not
// exist at compile time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clr_abi.h"

namespace dotcov::agent {

class ProbeHelper {
 public:
  // Adds the helper to CoreLib. Its IL increments the 64-bit counter at
  // counters_base + 8 * slot.
  bool InjectIntoCoreLib(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                         std::string* error);
  bool ready() const { return ready_; }

  // Emits AssemblyRef/TypeRef/MemberRef in `module` and returns the MemberRef.
  bool ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref, std::string* error);

  // The helper body, exposed for tests: tiny-header IL.
  static std::vector<uint8_t> HelperBody(const uint8_t* counters_base);

 private:
  bool ready_ = false;
  std::vector<uint8_t> public_key_;
  uint16_t version_[4] = {0, 0, 0, 0};
  uint32_t assembly_flags_ = 0;
};

}  // namespace dotcov::agent
