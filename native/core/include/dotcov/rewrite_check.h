// Self-check of the IL rewriter over a real assembly: every method body is
// decoded from the image, re-encoded unchanged (must be byte-identical),
// instrumented with a probe at every legal instruction boundary (then also with
// outcome probes on every conditional branch and switch), and the result
// is decoded again and checked structurally and with il::Verify (call effects
// read from the assembly's own metadata). Never throws; never reads out of
// bounds, whatever the input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"
#include "dotcov/il_rewriter.h"

namespace dotcov {

class MetadataReader;

struct RewriteFailure {
  std::string assembly;      // path as given
  uint32_t method_token = 0;  // MethodDef token
  std::string reason;
};

enum class RewriteCheckStatus {
  kChecked,     // a managed assembly; its methods were checked
  kNotManaged,  // not a PE image, or a PE image without a CLI header: skipped
  kError,       // a managed image whose headers or metadata cannot be read
};

struct RewriteCheckResult {
  RewriteCheckStatus status = RewriteCheckStatus::kChecked;
  std::string error;  // for kNotManaged / kError
  uint64_t methods_checked = 0;
  uint64_t branches_checked = 0;  // conditional branches / switches given outcome probes in methods that passed
  std::vector<RewriteFailure> failures;
};

// Checks every MethodDef with an IL body (RVA != 0; not abstract, not
// pinvokeimpl, IL code type, not internalcall/runtime) of the assembly whose
// file bytes are `file`. `path` only labels failures.
RewriteCheckResult RewriteCheck(Bytes file, const std::string& path);

// Reads the file at `path` and checks it; status kError with the reason when
// the file cannot be read.
RewriteCheckResult RewriteCheckFile(const std::string& path);

// Checks one method body (the bytes starting at its header; trailing bytes are
// ignored): instrumented with a probe at every legal boundary, and again with
// those plus outcome probes on every conditional branch and switch that
// il::FindBranches reports; each result must be the original plus the probes
// (fall-through of a branch: its fall-through probe then `br` to the original
// successor; each taken edge: its own probe block then `br` to the original
// target), map exception regions as before and verify. `return_values` and
// `call_resolver` are passed to il::Verify (the resolver must know the helper
// token: static void(int32)). On failure *reason says what went wrong. Adds the
// number of instrumented branches to *branches_checked (if given) on success.
bool CheckMethodBody(Bytes body, uint32_t helper_token, const il::CallResolver& call_resolver, int return_values,
                     std::string* reason, uint64_t* branches_checked = nullptr);

// Stack effect of a method signature blob (MethodDefSig / MethodRefSig /
// StandAloneMethodSig) as il::CallResolver wants it. False if it is not one.
bool MethodSigStackEffect(Bytes signature, int* pops, int* pushes);

// A CallResolver over `md` (MethodDef, MemberRef, MethodSpec, StandAloneSig
// tokens), which also resolves `helper_token` as static void(int32). `md`
// must outlive the resolver.
il::CallResolver MetadataCallResolver(const MetadataReader& md, uint32_t helper_token);

}  // namespace dotcov
