// Self-check of the IL rewriter over a real assembly: every method body is
// decoded from the image, re-encoded unchanged (must be byte-identical),
// instrumented with a probe at every legal instruction boundary (then also with
// outcome probes on every conditional branch and switch), in each probe style
// asked for (the inline increment the agent uses by default, the helper call),
// and the result is decoded again and checked structurally, against the IL
// offset map the rewriter returns with it, and with il::Verify (call effects
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

// Which probe styles (il::ProbeStyle) a check instruments with: a bit set.
enum ProbeStyles : unsigned {
  kInlineProbes = 1,  // the increment itself (the agent's default)
  kCallProbes = 2,    // ldc.i4 slot; call helper
  kAtomicProbes = 4,  // the inline address, then call Interlocked.Increment; pop (DOTCOV_EXACT_COUNTS=1)
  kAllProbeStyles = kInlineProbes | kCallProbes | kAtomicProbes,
};

// The atomic style's Interlocked.Increment token in checks: next to the helper
// token (both name no MemberRef of the checked assembly); resolved as
// int64(int64&) by MetadataCallResolver.
constexpr uint32_t CheckAtomicToken(uint32_t helper_token) { return helper_token - 1; }

// The inline style's counter base address in checks: any non-zero value does.
constexpr uint64_t kCheckCountersBase = 0x00007F0000001000ull;

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
// file bytes are `file`, in each style of `styles`. `path` only labels
// failures; a failure's reason names the style.
RewriteCheckResult RewriteCheck(Bytes file, const std::string& path, unsigned styles = kAllProbeStyles);

// Reads the file at `path` and checks it; status kError with the reason when
// the file cannot be read.
RewriteCheckResult RewriteCheckFile(const std::string& path, unsigned styles = kAllProbeStyles);

// Checks one method body (the bytes starting at its header; trailing bytes are
// ignored): instrumented in `style` with a probe at every legal boundary, and
// again with those plus outcome probes on every conditional branch and switch
// that il::FindBranches reports, value probes on every condition
// il::FindValueConditions finds and operand probes on every short-circuit operand
// il::FindShortCircuitOperands finds, both with `types` (RewriteCheck passes
// what the metadata says, as the agent does); each result must be the
// original plus the probes (fall-through of a branch: its fall-through probe
// then `br` to the original successor; each taken edge: its own probe block then
// `br` to the original target; a value probe right after its value, behind the
// next instruction's sequence-point probe, an operand probe before its load,
// behind the load's sequence-point probe), map exception regions as before and verify, and its IL
// offset map must have one entry per original instruction at the start of its
// group (its probes, itself, its outcome blocks), so that every rewritten
// offset translates back (il::TranslateToOriginal) to the instruction it
// belongs to. `return_values` and `call_resolver` are passed to il::Verify (for
// the call style the resolver must know the helper token: static void(int32)).
// On failure *reason says what went wrong. Adds the number of instrumented
// branches and value conditions to *branches_checked (if given) on success.
bool CheckMethodBody(Bytes body, const il::ProbeStyle& style, const il::CallResolver& call_resolver,
                     int return_values, std::string* reason, uint64_t* branches_checked = nullptr,
                     const il::BoolTypes& types = {});

// The style of one bit of ProbeStyles in checks (helper_token for the call
// style, kCheckCountersBase for the inline and atomic ones, the atomic one
// calling CheckAtomicToken(helper_token)).
il::ProbeStyle CheckStyle(ProbeStyles style, uint32_t helper_token);

// Stack effect of a method signature blob (MethodDefSig / MethodRefSig /
// StandAloneMethodSig) as il::CallResolver wants it. False if it is not one.
bool MethodSigStackEffect(Bytes signature, int* pops, int* pushes);

// A CallResolver over `md` (MethodDef, MemberRef, MethodSpec, StandAloneSig
// tokens), which also resolves `helper_token` as static void(int32) and
// CheckAtomicToken(helper_token) as static int64(int64&). `md` must outlive
// the resolver.
il::CallResolver MetadataCallResolver(const MetadataReader& md, uint32_t helper_token);

}  // namespace dotcov
