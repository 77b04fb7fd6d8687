// The coverage profiler: decides what to cover at module load, rewrites each
// covered method once at JIT time, and keeps inlining from hiding probes.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent_config.h"
#include "callback_base.h"
#include "context_recorder.h"
#include "covered_module.h"
#include "dotcov/data_file.h"
#include "dotcov/il_method.h"
#include "dotcov/probe_fallback.h"
#include "probe_helper.h"
#include "rejit_requester.h"

namespace dotcov::agent {

class Profiler final : public CallbackBase {
 public:
  clr::HRESULT Initialize(clr::IUnknown* info_unknown) override;
  clr::HRESULT Shutdown() override;
  // `dotcov attach`: loaded into a running process (settings from the client data), then catches up on the
  // modules already loaded (ProfilerAttachComplete) as their loads would have.
  clr::HRESULT InitializeForAttach(clr::IUnknown* info_unknown, void* client_data, clr::UINT size) override;
  clr::HRESULT ProfilerAttachComplete() override;
  clr::HRESULT ModuleLoadFinished(clr::ModuleID module, clr::HRESULT status) override;
  clr::HRESULT ModuleUnloadStarted(clr::ModuleID module) override;
  clr::HRESULT JITCompilationStarted(clr::FunctionID function, clr::BOOL safe_to_block) override;
  clr::HRESULT JITCompilationFinished(clr::FunctionID function, clr::HRESULT status, clr::BOOL safe_to_block) override;
  clr::HRESULT JITCachedFunctionSearchStarted(clr::FunctionID function, clr::BOOL* use_cached) override;
  clr::HRESULT JITInlining(clr::FunctionID caller, clr::FunctionID callee, clr::BOOL* should_inline) override;
  clr::HRESULT GetReJITParameters(clr::ModuleID module, clr::mdMethodDef method,
                                  clr::ICorProfilerFunctionControl* control) override;
  clr::HRESULT ReJITError(clr::ModuleID module, clr::mdMethodDef method, clr::FunctionID function,
                          clr::HRESULT hr) override;

 private:
  std::shared_ptr<CoveredModule> Find(clr::ModuleID module);
  // What Initialize and InitializeForAttach share once the settings are known.
  clr::HRESULT Start(clr::IUnknown* info_unknown, bool attach);
  // A module's load, as ModuleLoadFinished reports it or, after an attach, as the catch-up finds it loaded.
  void LoadModule(clr::ModuleID module, bool catch_up);
  // After an attach: the module's methods cannot get their probes (its ReJIT request failed), say so.
  void NotMeasuredAtAttach(CoveredModule& m, const std::vector<uint32_t>& methods, const std::string& why);
  // Rewrites the method once; returns true when its IL is final (rewritten or nothing to do).
  // `function` is the FunctionID being compiled, for its IL offset map.
  // In ReJIT mode `control` takes the new IL and its map (GetReJITParameters).
  // Counter sharing (core counter_sharing.h): inserts the method's probes with
  // the redundant counters left out; false when nothing is shared, any probe
  // is refused or a sum does not fit the data file (the module's first slot is
  // `slot_base`), so the caller inserts every probe as before.
  bool ShareCountersInto(uint32_t slot_base, Bytes original,
                         const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                         const std::vector<il::BranchProbe>& branch_probes, const il::ProbeStyle& style,
                         const il::ContextWrap* wrapping, std::vector<uint8_t>* body,
                         std::vector<il::OffsetMapEntry>* il_map, std::vector<std::pair<uint32_t, uint32_t>>* derived,
                         std::vector<std::array<uint32_t, 3>>* summed);
  // Per-test contexts: the method's locals signature with one int32 appended (its token, and that local's
  // index), for the inline context check; false when the signature cannot be read or made.
  bool ContextLocals(const CoveredModule& m, const uint8_t* header, clr::ULONG size, uint32_t* token,
                     uint32_t* local, std::string* error);
  bool EnsureRewritten(CoveredModule& m, uint32_t method_token, clr::FunctionID function,
                       clr::ICorProfilerFunctionControl* control = nullptr);
  clr::HRESULT SetIlMap(clr::FunctionID function, const std::vector<il::OffsetMapEntry>& il_map);
  void ConsiderModule(clr::ModuleID module, const std::string& path, clr::DWORD flags, bool catch_up = false);
  // Per-test contexts: finds the module's test methods and gives each an extended locals signature.
  void PrepareTests(CoveredModule& m, const std::vector<uint8_t>& image);
  // A test module that is not covered: registered only so its test methods get their contexts.
  void ConsiderTestModule(clr::ModuleID module, const std::string& path);
  bool EnsureDataFile();
  // Another coverage tool is at work in this process: skip, and say so in the data file.
  void ReportConflict(const std::string& what);
  // In a declined process (vstest.console): record a coverage collector its command line turns on.
  void RecordCollectorConflict(const std::vector<std::string>& argv);
  // Records in the data file whether the method got its probes, and what was left out and why.
  void RecordRewrite(CoveredModule& m, uint32_t token, const std::string& failure,
                     const std::vector<il::RefusedProbe>& refused,
                     const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                     const std::vector<il::BranchProbe>& branch_probes);

  clr::ICorProfilerInfo5* info_ = nullptr;
  clr::ICorProfilerInfo10* info10_ = nullptr;  // ReJIT mode only
  bool rejit_ = false;                          // ReJIT mode (AgentConfig::rejit)
  RejitRequester rejit_requester_;
  AgentConfig config_;
  DataFileWriter writer_;
  ProbeHelper helper_;
  ContextRecorder contexts_;                     // per-test contexts (config_.contexts)
  std::atomic<uint32_t> next_context_{1};        // context ids of this process's data file
  bool use_helper_ = false;  // DotCov.Probes injected into CoreLib (NeedsCoreLibHelper)
  std::mutex data_file_mu_;  // one creation, even when modules load on several threads
  bool data_file_failed_ = false;
  RewriteClock clock_;  // epochs at which methods' IL became final (rewrite_policy.h)
  std::string runtime_dir_;  // CoreLib's directory: the shared framework, never covered

  // `dotcov attach`: when (ns since the Unix epoch; 0 when loaded at startup), and the modules already handled,
  // since a module loading during the catch-up can be both enumerated and reported by ModuleLoadFinished.
  uint64_t attached_ns_ = 0;
  std::mutex seen_mu_;
  std::unordered_set<clr::ModuleID> seen_;

  std::shared_mutex modules_mu_;
  std::unordered_map<clr::ModuleID, std::shared_ptr<CoveredModule>> modules_;
};

}  // namespace dotcov::agent
