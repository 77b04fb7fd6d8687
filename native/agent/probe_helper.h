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

template <typename T>
class ComPtr;

class ProbeHelper {
 public:
  // Adds the helper to CoreLib. Its IL increments the 64-bit counter at
  // counters_base + 8 * slot; with `exact`, by calling CoreLib's own
  // Interlocked.Increment(ref long) (so HitCtx's increment is atomic too).
  bool InjectIntoCoreLib(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                         bool exact, std::string* error);
  bool ready() const { return ready_; }

  // CoreLib's name, version and public key, for the AssemblyRefs below (done
  // by InjectIntoCoreLib too; alone when only Interlocked is referenced).
  bool ReadCoreLibIdentity(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, std::string* error);
  // Exact inline probes: emits in `module` a MemberRef to
  // `int64 System.Threading.Interlocked::Increment(int64&)` in CoreLib.
  bool ReferenceInterlocked(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref,
                            std::string* error);

  // Per-test contexts (docs/architecture.md): adds to the helper type a static
  // AsyncLocal<int> (the current test's context id, following the async flow),
  // `int Enter(int context)` (sets it, returns the previous one), `void
  // Exit(int previous)` and `void HitCtx(int slot)`: the counter increment of
  // Hit, then, under a nonzero context c, `if (last[slot] != c) { last[slot] =
  // c; record(c, slot); }`, `record` being the native function the agent gives
  // (called through calli, unmanaged cdecl); for the inline check
  // (il::ContextCheck) `int Current()` (the AsyncLocal's value) and `void
  // Miss(native int p, int c)`: `*p = c; if (c != 0) record(c, (p - last) / 4)`.
  // HitCtx stays for the probes that compute their slot. After InjectIntoCoreLib.
  bool InjectContexts(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                      const uint32_t* last_context, void (*record)(int32_t, int32_t), std::string* error);
  bool contexts_ready() const { return contexts_ready_; }

  // MemberRefs of one module to the helper's methods.
  struct Refs {
    uint32_t hit = 0;
    uint32_t hit_ctx = 0, enter = 0, exit = 0, current = 0, miss = 0;  // when contexts_ready()
  };
  // Emits AssemblyRef/TypeRef/MemberRef in `module` and returns the MemberRef.
  bool ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref, std::string* error);
  bool ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, Refs* refs, std::string* error);

  // The helper body, exposed for tests: tiny-header IL. With
  // `increment_token` (CoreLib's Interlocked.Increment(ref long) MethodDef) the
  // increment is `call increment_token; pop`, else a plain read-add-write.
  static std::vector<uint8_t> HelperBody(const uint8_t* counters_base, uint32_t increment_token = 0);

 private:
  bool TakeIdentity(clr::IMetaDataAssemblyImport* asm_import, std::string* error);
  // In `module`: its emit interface, and a TypeRef to CoreLib's `type` through an AssemblyRef made from
  // CoreLib's identity (`type_name`: the same name, for the error).
  bool CoreLibTypeRef(clr::ICorProfilerInfo5* info, clr::ModuleID module, const char16_t* type, const char* type_name,
                      ComPtr<clr::IMetaDataEmit>* emit, uint32_t* type_ref, std::string* error);

  bool ready_ = false;
  bool contexts_ready_ = false;
  bool identity_ready_ = false;
  uint32_t increment_token_ = 0;  // CoreLib's Interlocked.Increment(ref long) when exact
  uint32_t probes_td_ = 0;
  uint32_t ctor_rva_ = 0;
  std::vector<uint8_t> public_key_;
  uint16_t version_[4] = {0, 0, 0, 0};
  uint32_t assembly_flags_ = 0;
};

}  // namespace dotcov::agent
