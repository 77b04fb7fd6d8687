#include "profiler.h"


#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <vector>

#include "agent_log.h"
#include "platform.h"
#include "com_ptr.h"
#include "dotcov/fault_injection.h"
#include "dotcov/foreign_instrumentation.h"
#include "dotcov/module_info.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/counter_sharing.h"
#include "dotcov/probe_fallback.h"
#include "dotcov/module_filter.h"
#include "dotcov/module_sites.h"
#include "dotcov/process_filter.h"
#include "dotcov/rewrite_policy.h"
#include "dotcov/stress_sites.h"
#include "dotcov/test_methods.h"
#include "dotcov/utf.h"

namespace dotcov::agent {
namespace {

// Address space for counters and module records; touched pages only cost memory.
constexpr size_t kCounterCapacity = size_t(1) << 30;

// How long a module load waits for its ReJIT request (normally milliseconds).
constexpr std::chrono::milliseconds kRejitRequestBound{10000};

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

bool EndsWith(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The JIT compilations in progress on this thread (see JITInlining). Plain TLS: no destructor.
constinit thread_local JitNesting t_jit;

}  // namespace

clr::HRESULT Profiler::Initialize(clr::IUnknown* info_unknown) {
  config_ = AgentConfig::FromEnvironment();
  if (config_.data_dir.empty()) return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  std::vector<std::string> argv = ReadCommandLine();
  ProcessDecision decision = DecideProcess(argv, ExePath());
  if (!decision.cover) {
    // Declined processes write neither data nor log, unless this one (the
    // test platform) turns on another coverage collector for the run.
    RecordCollectorConflict(argv);
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  InitLog(config_.log, config_.data_dir);
  Log("agent loaded: %s (%s)%s", Join(argv).c_str(), decision.reason.c_str(),
      config_.exact_counts ? " (exact counts: atomic increments)" : "");
  return Start(info_unknown, false);
}

clr::HRESULT Profiler::InitializeForAttach(clr::IUnknown* info_unknown, void* client_data, clr::UINT size) {
  std::string error;
  if (!AgentConfig::FromClientData(client_data, size, &config_, &error) || config_.data_dir.empty())
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  attached_ns_ = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  InitLog(config_.log, config_.data_dir);
  Log("agent attached: %s%s", Join(ReadCommandLine()).c_str(),
      config_.exact_counts ? " (exact counts: atomic increments)" : "");
  // CoreLib loaded long ago: no helper can be injected into it, so only probes that need none (inline), no
  // per-test contexts; and every covered method is instrumented through ReJIT, the one way after the start.
  if (!config_.inline_probes) Log("attach: inline probes (call probes need a helper injected at CoreLib's load)");
  if (config_.contexts) Log("attach: no per-test contexts (they need a helper injected at CoreLib's load)");
  config_.inline_probes = true;
  config_.contexts = false;
  config_.rejit = true;
  return Start(info_unknown, true);
}

clr::HRESULT Profiler::Start(clr::IUnknown* info_unknown, bool attach) {
  use_helper_ = NeedsCoreLibHelper({config_.inline_probes, config_.contexts});
  if (info_unknown->QueryInterface(clr::IID_ICorProfilerInfo5, reinterpret_cast<void**>(&info_)) != clr::S_OK) {
    Log("ICorProfilerInfo5 unavailable; declining");
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  std::string error;
  if (!writer_.Reserve(kCounterCapacity, &error)) {
    Log("declining: %s", error.c_str());
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  if (config_.contexts && !contexts_.Start(&writer_, kCounterCapacity, &error)) {
    Log("per-test contexts off: %s", error.c_str());
    config_.contexts = false;
  }
  // Cache searches (refusing precompiled code) are a startup-only event; after an attach ReJIT replaces that code.
  clr::DWORD mask = clr::COR_PRF_MONITOR_MODULE_LOADS | clr::COR_PRF_MONITOR_JIT_COMPILATION |
                    (attach ? 0 : clr::COR_PRF_MONITOR_CACHE_SEARCHES);
  if (config_.rejit) {
    if (info_unknown->QueryInterface(clr::IID_ICorProfilerInfo10, reinterpret_cast<void**>(&info10_)) != clr::S_OK) {
      Log("ReJIT mode unavailable; declining");
      return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    mask |= clr::COR_PRF_ENABLE_REJIT;
  }
  if (attach && (mask & ~clr::COR_PRF_ALLOWABLE_AFTER_ATTACH)) {
    Log("event mask 0x%08x not allowed after an attach; declining", unsigned(mask));
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  clr::HRESULT hr = info_->SetEventMask(mask);
  if (hr != clr::S_OK) {
    Log("SetEventMask failed 0x%08x; declining", unsigned(hr));
    return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  // The thread last: a declined profiler's library may be unloaded, which a thread of it must not outlive.
  if (config_.rejit) {
    if (!rejit_requester_.Start(info10_)) {
      Log("ReJIT mode unavailable (no thread); declining");
      return clr::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    rejit_ = true;
  }
  return clr::S_OK;
}

clr::HRESULT Profiler::Shutdown() {
  // Never tear anything down: callbacks may still arrive, and the counters
  // are already in the page cache.
  writer_.Sync();
  Log("shutdown");
  return clr::S_OK;
}

bool Profiler::EnsureDataFile() {
  std::lock_guard<std::mutex> lock(data_file_mu_);
  if (writer_.created()) return true;
  if (data_file_failed_) return false;
  std::string error;
  if (!writer_.Create(config_.data_dir, ProcessId(), &error)) {
    data_file_failed_ = true;
    Log("no coverage for this process: %s", error.c_str());
    return false;
  }
  writer_.AddProcessInfo(Join(ReadCommandLine()), CurrentDir(), &error, attached_ns_);
  Log("data file %s", writer_.path().c_str());
  return true;
}

clr::HRESULT Profiler::ModuleLoadFinished(clr::ModuleID module, clr::HRESULT status) {
  if (status == clr::S_OK) LoadModule(module, false);
  return clr::S_OK;
}

clr::HRESULT Profiler::ProfilerAttachComplete() {
  // The modules loaded before the attach, CoreLib first (it tells where the shared framework is).
  ComPtr<clr::ICorProfilerModuleEnum> modules;
  if (!info_ || info_->EnumModules(modules.Out()) != clr::S_OK || !modules) {
    Log("attach: cannot list the loaded modules; only modules loaded from now on are covered");
    return clr::S_OK;
  }
  std::vector<clr::ModuleID> ids;
  clr::ModuleID batch[64];
  clr::ULONG fetched = 0;
  while (modules->Next(64, batch, &fetched) == clr::S_OK || fetched > 0) {
    ids.insert(ids.end(), batch, batch + fetched);
    if (fetched < 64) break;
    fetched = 0;
  }
  auto is_corelib = [&](clr::ModuleID id) {
    char16_t name[4096];
    clr::ULONG len = 0;
    clr::AssemblyID assembly = 0;
    clr::DWORD flags = 0;
    const uint8_t* base = nullptr;
    if (info_->GetModuleInfo2(id, &base, 4096, &len, name, &assembly, &flags) != clr::S_OK) return false;
    return EndsWith(Utf16ToUtf8(std::u16string_view(name, len ? len - 1 : 0)), "System.Private.CoreLib.dll");
  };
  std::stable_partition(ids.begin(), ids.end(), is_corelib);
  Log("attach: %zu modules already loaded", ids.size());
  for (clr::ModuleID id : ids) LoadModule(id, true);
  return clr::S_OK;
}

void Profiler::LoadModule(clr::ModuleID module, bool catch_up) {
  if (!info_) return;
  char16_t name[4096];
  clr::ULONG name_len = 0;
  clr::AssemblyID assembly = 0;
  clr::DWORD flags = 0;
  const uint8_t* base = nullptr;
  if (info_->GetModuleInfo2(module, &base, 4096, &name_len, name, &assembly, &flags) != clr::S_OK) return;
  if (attached_ns_) {
    std::lock_guard<std::mutex> lock(seen_mu_);
    if (!seen_.insert(module).second) return;  // enumerated and reported loaded: handled once
  }
  std::string path = AgentPath(Utf16ToUtf8(std::u16string_view(name, name_len ? name_len - 1 : 0)));
  if (EndsWith(path, "/System.Private.CoreLib.dll")) {
    // Shared-framework layout: <root>/shared/Microsoft.NETCore.App/<version>/. A
    // self-contained app has CoreLib beside its own assemblies: no shortcut then.
    std::string dir = path.substr(0, path.rfind('/'));
    std::string fx = dir.substr(0, dir.rfind('/'));
    if (EndsWith(fx, "/shared/Microsoft.NETCore.App")) runtime_dir_ = fx.substr(0, fx.rfind('/'));
    std::string error;
    if (use_helper_ && !helper_.InjectIntoCoreLib(info_, module, writer_.base(), config_.exact_counts, &error))
      Log("CoreLib helper injection failed, nothing will be covered: %s", error.c_str());
    else if (!use_helper_ && config_.exact_counts && !helper_.ReadCoreLibIdentity(info_, module, &error))
      Log("exact counts: CoreLib unreadable, nothing will be covered: %s", error.c_str());
    else if (config_.contexts && !helper_.InjectContexts(info_, module, writer_.base(), contexts_.last_context(),
                                                         &ContextRecorder::Record, &error))
      Log("per-test contexts off: %s", error.c_str());
    return;
  }
  ConsiderModule(module, path, flags, catch_up);
}

void Profiler::ConsiderModule(clr::ModuleID module, const std::string& path, clr::DWORD flags, bool catch_up) {
  if (flags & (clr::COR_PRF_MODULE_DYNAMIC | clr::COR_PRF_MODULE_RESOURCE)) return;
  if (!(flags & clr::COR_PRF_MODULE_DISK) || !IsAbsolutePath(path)) return;
  ModuleIdentity identity;
  std::vector<ProbeSite> sites;
  uint32_t method_count = 0;
  std::string error;
  std::string why;
  if (config_.stress_all_methods) {
    std::vector<uint8_t> image;
    if (!ReadWholeFile(path, &image, &error) ||
        !StressSites(image, &sites, &method_count, &identity.mvid, &error)) {
      Log("skip %s: %s", path.c_str(), error.c_str());
      return;
    }
    ModuleSymbols symbols;  // the PDB id, when there is a PDB, keeps reports possible
    if (LoadModuleSymbols(path, &symbols, &error)) identity.pdb_id = symbols.pdb_id;
    identity.path = path;
    why = "stress mode";
  } else {
    if (!runtime_dir_.empty() && PathIsUnder(path, runtime_dir_)) return;  // the shared framework
    ModuleSymbols symbols;
    std::string framework;
    if (!LoadModuleSymbols(path, &symbols, &error)) {
      Log("skip %s: %s", path.c_str(), error.c_str());
      if (helper_.contexts_ready() && symbols.identity_loaded &&
          IsTestAssembly(symbols.referenced_assemblies, &framework))
        ConsiderTestModule(module, path);
      return;
    }
    auto exists = [](const std::string& p) { return IsRegularFile(p); };
    FilterDecision d =
        DecideModule(FactsOf(symbols), {config_.source_root, config_.include_test_assemblies, exists});
    if (!d.cover) {
      Log("skip %s: %s", path.c_str(), d.reason.c_str());
      if (helper_.contexts_ready() && IsTestAssembly(symbols.referenced_assemblies, &framework))
        ConsiderTestModule(module, path);
      return;
    }
    std::vector<uint8_t> image;
    bool have_image = ReadWholeFile(path, &image, &error);
    if (have_image) {
      std::string other = ForeignInstrumentation(image);
      if (!other.empty()) {
        ReportConflict(path + " was instrumented by " + other);
        return;
      }
    }
    std::vector<std::string> skipped;
    sites = CollectSites(symbols, &skipped);
    for (const auto& s : skipped) Log("%s: %s left uninstrumented", path.c_str(), s.c_str());
    if (config_.branches && have_image) AddBranchSites(image, &sites);
    method_count = symbols.pdb ? symbols.pdb->method_count() : 0;
    identity = IdentityOf(symbols);
    why = d.reason;
  }
  if (use_helper_ && !helper_.ready()) {
    Log("skip %s: the CoreLib helper is not available", path.c_str());
    return;
  }
  if (!EnsureDataFile()) return;
  auto m = std::make_shared<CoveredModule>();
  m->id = module;
  m->path = path;
  m->sites = std::move(sites);
  m->Index(method_count);
  ProbeHelper::Refs refs;
  if (use_helper_ && !helper_.ReferenceFrom(info_, module, &refs, &error)) {
    Log("skip %s: %s", path.c_str(), error.c_str());
    return;
  }
  m->helper_ref = refs.hit;
  m->hit_ctx_ref = refs.hit_ctx;
  m->enter_ref = refs.enter;
  m->exit_ref = refs.exit;
  m->current_ref = refs.current;
  m->miss_ref = refs.miss;
  // Exact counts with inline probes (per-test contexts' are inline too): each increment calls
  // Interlocked.Increment. Never fall back to the plain increment silently: without the reference the module
  // is not covered.
  if (config_.exact_counts && (config_.inline_probes || m->miss_ref) &&
      !helper_.ReferenceInterlocked(info_, module, &m->atomic_ref, &error)) {
    Log("skip %s: exact counts: %s", path.c_str(), error.c_str());
    return;
  }
  if (helper_.contexts_ready() && !config_.stress_all_methods) {
    std::vector<uint8_t> image;
    if (ReadWholeFile(path, &image, &error)) PrepareTests(*m, image);
  }
  auto record = writer_.AddModule(identity, m->sites, method_count, &error);
  if (!record) {
    Log("skip %s: %s", path.c_str(), error.c_str());
    return;
  }
  m->record = *record;
  m->slot_base = record->first_slot;
  if (!config_.test_fail_rewrite.empty()) {
    std::vector<uint8_t> image;
    if (ReadWholeFile(path, &image, &error)) m->fail_rewrite = MethodTokensNamed(image, config_.test_fail_rewrite);
  }
  if (!config_.test_fail_rejit.empty()) {
    std::vector<uint8_t> image;
    if (ReadWholeFile(path, &image, &error)) m->fail_rejit = MethodTokensNamed(image, config_.test_fail_rejit);
  }
  Log("cover %s: %zu probe sites in %u methods (%s)", path.c_str(), m->sites.size(), m->method_count(),
      why.c_str());
  std::vector<uint32_t> methods;
  if (rejit_) {
    methods = m->methods.MethodsToRejit();
    for (const auto& [rid, index] : m->test_index)
      if (!m->methods.HasProbes(rid)) methods.push_back(0x06000000 | rid);
    m->rejit = !methods.empty();
  }
  std::shared_ptr<CoveredModule> covered = m;
  {
    std::unique_lock lock(modules_mu_);
    modules_[module] = std::move(m);
  }
  if (!methods.empty()) {
    // Before any method of the module runs, its ReJIT versions must be requested ("pre-ReJIT").
    // The wait is bounded: past it the module's methods are rewritten at their JIT instead.
    bool stall = !config_.test_stall_rejit.empty() && EndsWith(path, ("/" + config_.test_stall_rejit).c_str());
    RejitRequester::Outcome r = rejit_requester_.Request(module, methods, kRejitRequestBound, stall);
    if ((r.timed_out || r.hr != clr::S_OK) && catch_up) {
      // Loaded before the attach: its methods may have run already, so their JIT is past; no probes for them.
      char why[96];
      if (r.timed_out)
        snprintf(why, sizeof why, "ReJIT request at attach timed out");
      else
        snprintf(why, sizeof why, "ReJIT request at attach failed 0x%08x", unsigned(r.hr));
      NotMeasuredAtAttach(*covered, methods, why);
    } else if (r.timed_out || r.hr != clr::S_OK) {
      covered->rejit = false;  // its methods are rewritten at their JIT instead
      if (r.timed_out)
        Log("ReJIT request for %s not done after %lld ms; rewriting at JIT time", path.c_str(),
            static_cast<long long>(kRejitRequestBound.count()));
      else
        Log("ReJIT request for %s failed 0x%08x; rewriting at JIT time", path.c_str(), unsigned(r.hr));
    }
  }
}

void Profiler::NotMeasuredAtAttach(CoveredModule& m, const std::vector<uint32_t>& methods, const std::string& why) {
  Log("%s: %s; its methods are not measured", m.path.c_str(), why.c_str());
  std::lock_guard<std::mutex> lock(m.rewrite_mu);
  std::string error;
  for (uint32_t token : methods) {
    uint32_t rid = m.methods.RidOf(token);
    if (rid == 0 || m.final_methods->IsFinal(rid)) continue;
    writer_.SetMethodState(m.record, rid, kMethodNotMeasured);
    if (!writer_.AddNotMeasured(m.record, {token, kWholeMethod, kWholeMethod, why}, &error))
      Log("cannot record why: %s", error.c_str());
    m.final_methods->MarkFinal(rid, clock_.Tick());  // a late ReJIT then compiles the original IL
  }
}

void Profiler::PrepareTests(CoveredModule& m, const std::vector<uint8_t>& image) {
  std::string error;
  std::vector<TestMethod> tests;
  if (!FindTestMethods(image, &tests, &error)) {
    Log("%s: no per-test contexts: %s", m.path.c_str(), error.c_str());
    return;
  }
  if (tests.empty()) return;
  ComPtr<clr::IUnknown> unk;
  ComPtr<clr::IMetaDataEmit> emit;
  if (info_->GetModuleMetaData(m.id, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out()) != clr::S_OK ||
      !unk.As(clr::IID_IMetaDataEmit, &emit)) {
    Log("%s: no per-test contexts: module metadata is not writable", m.path.c_str());
    return;
  }
  uint32_t max_rid = m.method_count();
  for (TestMethod& t : tests) {
    uint32_t locals = 0;
    if (t.unsupported.empty()) {
      clr::HRESULT hr = emit->GetTokenFromSig(t.locals_signature.data(), clr::ULONG(t.locals_signature.size()), &locals);
      if (hr < 0) {
        char code[64];
        snprintf(code, sizeof code, "GetTokenFromSig failed 0x%08x", unsigned(hr));
        t.unsupported = code;
        locals = 0;
      }
    }
    if (!t.unsupported.empty()) Log("test %s gets no context: %s", t.name.c_str(), t.unsupported.c_str());
    max_rid = std::max(max_rid, t.token & 0x00FFFFFF);
    m.test_index[t.token & 0x00FFFFFF] = m.tests.size();
    m.tests.push_back(std::move(t));
    m.test_locals.push_back(locals);
  }
  if (max_rid > m.method_count()) m.Index(max_rid);  // a test module without probe sites
  Log("%s: %zu test methods get per-test contexts", m.path.c_str(), m.tests.size());
}

void Profiler::ConsiderTestModule(clr::ModuleID module, const std::string& path) {
  std::string error;
  std::vector<uint8_t> image;
  if (!ReadWholeFile(path, &image, &error)) return;
  if (!EnsureDataFile()) return;
  auto m = std::make_shared<CoveredModule>();
  m->id = module;
  m->path = path;
  m->has_record = false;
  m->Index(0);
  ProbeHelper::Refs refs;
  if (!helper_.ReferenceFrom(info_, module, &refs, &error)) {
    Log("%s: no per-test contexts: %s", path.c_str(), error.c_str());
    return;
  }
  m->helper_ref = refs.hit;
  m->hit_ctx_ref = refs.hit_ctx;
  m->enter_ref = refs.enter;
  m->exit_ref = refs.exit;
  m->current_ref = refs.current;
  m->miss_ref = refs.miss;
  PrepareTests(*m, image);
  if (m->tests.empty()) return;
  std::vector<uint32_t> methods;
  for (const TestMethod& t : m->tests) methods.push_back(t.token);
  m->rejit = rejit_;
  std::shared_ptr<CoveredModule> covered = m;
  {
    std::unique_lock lock(modules_mu_);
    modules_[module] = std::move(m);
  }
  if (rejit_) {
    RejitRequester::Outcome r = rejit_requester_.Request(module, methods, kRejitRequestBound, false);
    if (r.timed_out || r.hr != clr::S_OK) {
      covered->rejit = false;
      Log("ReJIT request for %s %s; wrapping its tests at JIT time", path.c_str(),
          r.timed_out ? "not done in time" : "failed");
    }
  }
}

clr::HRESULT Profiler::ModuleUnloadStarted(clr::ModuleID module) {
  // ModuleIDs can be reused after a collectible unload. Counters stay in the file.
  if (attached_ns_) {
    std::lock_guard<std::mutex> seen_lock(seen_mu_);
    seen_.erase(module);
  }
  std::unique_lock lock(modules_mu_);
  modules_.erase(module);
  return clr::S_OK;
}

std::shared_ptr<CoveredModule> Profiler::Find(clr::ModuleID module) {
  std::shared_lock lock(modules_mu_);
  auto it = modules_.find(module);
  return it == modules_.end() ? nullptr : it->second;
}

static std::vector<clr::COR_IL_MAP> MapEntries(const std::vector<il::OffsetMapEntry>& il_map) {
  std::vector<clr::COR_IL_MAP> entries;
  entries.reserve(il_map.size());
  for (const il::OffsetMapEntry& e : il_map) entries.push_back({e.old_offset, e.new_offset, 1});
  return entries;
}

// Gives the runtime the rewritten method's IL offset map, so stack traces,
// StackFrame IL offsets and debugger stepping see original offsets. The
// runtime copies the array and keeps it per module and method token
// (Module::SetInstrumentedILOffsetMapping), applying it to every later JIT of
// the method (tier 1, OSR, each generic instantiation): one call suffices.
clr::HRESULT Profiler::SetIlMap(clr::FunctionID function, const std::vector<il::OffsetMapEntry>& il_map) {
  std::vector<clr::COR_IL_MAP> entries = MapEntries(il_map);
  return info_->SetILInstrumentedCodeMap(function, 1, static_cast<clr::ULONG>(entries.size()), entries.data());
}

// ReJIT mode: the new IL and its map go to the ReJIT's own IL version, which
// reflection does not see (it reads the method's original IL).
static clr::HRESULT SetRejitBody(clr::ICorProfilerFunctionControl* control, const std::vector<uint8_t>& body,
                                 const std::vector<il::OffsetMapEntry>& il_map) {
  clr::HRESULT hr = control->SetILFunctionBody(static_cast<clr::ULONG>(body.size()), body.data());
  if (hr != clr::S_OK) return hr;
  std::vector<clr::COR_IL_MAP> entries = MapEntries(il_map);
  return control->SetILInstrumentedCodeMap(static_cast<clr::ULONG>(entries.size()), entries.data());
}

bool Profiler::ShareCountersInto(uint32_t slot_base, Bytes original,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                                 const std::vector<il::BranchProbe>& branch_probes, const il::ProbeStyle& style,
                                 const il::ContextWrap* wrapping, std::vector<uint8_t>* body,
                                 std::vector<il::OffsetMapEntry>* il_map,
                                 std::vector<std::pair<uint32_t, uint32_t>>* derived,
                                 std::vector<std::array<uint32_t, 3>>* summed) {
  // (Per-test contexts share too: the reader gives a derived site the tests of its sources.)
  if (!config_.share_counters) return false;
  il::MethodBody decoded;
  std::string error;
  if (!il::MethodBody::Decode(original, &decoded, &error)) return false;
  SharedCounters shared = ShareCounters(decoded, {probes, branch_probes});
  if (shared.derived.empty() && shared.summed.empty()) return false;
  if (!SumsFitDataFile(shared, slot_base)) return false;
  // Any refusal: the caller's path (every site its own counter, refused sites noted) handles it.
  if (!il::InsertProbes(original, shared.probes, shared.branch_probes, style, body, &error, il_map, wrapping))
    return false;
  *derived = std::move(shared.derived);
  *summed = std::move(shared.summed);
  return true;
}

bool Profiler::ContextLocals(const CoveredModule& m, const uint8_t* header, clr::ULONG size, uint32_t* token,
                             uint32_t* local, std::string* error) {
  uint32_t original = 0;
  if ((header[0] & 0x3) == 0x3 && size >= 12) std::memcpy(&original, header + 8, 4);
  ComPtr<clr::IUnknown> unk;
  ComPtr<clr::IMetaDataEmit> emit;
  ComPtr<clr::IMetaDataImport> import;
  if (info_->GetModuleMetaData(m.id, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out()) != clr::S_OK ||
      !unk.As(clr::IID_IMetaDataEmit, &emit) || !unk.As(clr::IID_IMetaDataImport, &import))
    return *error = "module metadata is not writable", false;
  Bytes locals;
  if (original) {
    clr::PCCOR_SIGNATURE sig = nullptr;
    clr::ULONG len = 0;
    if (import->GetSigFromToken(original, &sig, &len) != clr::S_OK || !sig)
      return *error = "its locals signature cannot be read", false;
    locals = Bytes(sig, len);
  }
  std::vector<uint8_t> extended;
  if (!ExtendLocals(locals, {}, &extended, local, error)) return false;
  clr::HRESULT hr = emit->GetTokenFromSig(extended.data(), clr::ULONG(extended.size()), token);
  if (hr < 0 || !*token) return *error = "GetTokenFromSig failed", false;
  return true;
}

bool Profiler::EnsureRewritten(CoveredModule& m, uint32_t token, clr::FunctionID function,
                               clr::ICorProfilerFunctionControl* control) {
  uint32_t rid = m.methods.RidOf(token);
  if (rid == 0) return true;  // not ours
  if (m.final_methods->IsFinal(rid)) return true;
  std::lock_guard<std::mutex> lock(m.rewrite_mu);
  if (m.final_methods->IsFinal(rid)) return true;
  uint32_t first = m.methods.First(rid), end = m.methods.End(rid);
  uint32_t test_locals = 0;
  const TestMethod* test = m.enter_ref ? m.TestOf(rid, &test_locals) : nullptr;
  if (!test_locals) test = nullptr;  // a test that cannot be wrapped (logged when its module loaded)
  if (first < end || test) {
    const uint8_t* header = nullptr;
    clr::ULONG size = 0;
    clr::HRESULT hr = info_->GetILFunctionBody(m.id, token, &header, &size);
    auto [probes, branch_probes] = ProbesOf(m.sites, first, end, m.slot_base);
    std::vector<uint8_t> body;
    std::vector<il::RefusedProbe> refused;
    std::vector<il::OffsetMapEntry> il_map;
    std::string error;
    std::string failure;  // why the method stays uninstrumented ("" once its probes are in)
    char code[80];
    std::vector<std::pair<uint32_t, uint32_t>> derived;  // (slot, source slot) when counters are shared
    std::vector<std::array<uint32_t, 3>> summed;          // (slot, a, b): slot counts a + b
    il::ProbeStyle style{m.helper_ref, config_.inline_probes ? reinterpret_cast<uint64_t>(writer_.base()) : 0,
                         config_.inline_probes ? m.atomic_ref : 0};
    // Per-test contexts: inline probes that call out when a slot sees another test (il::ContextCheck); HitCtx
    // for value and operand probes, and for every probe of a method whose locals cannot be extended. A test
    // method is wrapped in its context.
    if (m.hit_ctx_ref) {
      style = il::ProbeStyle{m.hit_ctx_ref, 0};
      il::ContextCheck check{m.miss_ref, reinterpret_cast<uint64_t>(contexts_.last_context()), m.current_ref};
      std::string why;
      if (first < end && hr == clr::S_OK && header &&
          ContextLocals(m, header, size, &check.context_locals_token, &check.context_local, &why)) {
        style = il::ProbeStyle{m.hit_ctx_ref, reinterpret_cast<uint64_t>(writer_.base()), m.atomic_ref, check};
      } else if (first < end) {
        Log("method 0x%08x of %s: per-test contexts through HitCtx: %s", token, m.path.c_str(), why.c_str());
      }
    }
    il::ContextWrap wrap;
    const il::ContextWrap* wrapping = nullptr;
    if (test && hr == clr::S_OK && header) {
      uint32_t header_locals = 0;
      if ((header[0] & 0x3) == 0x3 && size >= 12) std::memcpy(&header_locals, header + 8, 4);
      std::string why;
      if (header_locals != test->original_locals_token) {
        Log("test %s gets no context: its IL is not the assembly's", test->name.c_str());
      } else {
        uint32_t id = next_context_.fetch_add(1);
        if (writer_.AddContext(id, test->name, &why)) {
          wrap = {id, m.enter_ref, m.exit_ref, test_locals, test->previous_local,
                  test->returns_value ? int32_t(test->return_local) : -1};
          wrapping = &wrap;
        } else {
          Log("test %s gets no context: %s", test->name.c_str(), why.c_str());
        }
      }
    }
    if (hr != clr::S_OK || !header) {
      snprintf(code, sizeof code, "GetILFunctionBody failed 0x%08x", unsigned(hr));
      failure = code;
    } else if (std::find(m.fail_rewrite.begin(), m.fail_rewrite.end(), token) != m.fail_rewrite.end()) {
      failure = "rewrite failed on purpose (DOTCOV_TEST_FAIL_REWRITE)";
    } else if (!ShareCountersInto(m.slot_base, Bytes(header, size), probes, branch_probes, style, wrapping, &body,
                                  &il_map, &derived, &summed) &&
               !il::InsertProbesSkippingRefused(Bytes(header, size), probes, branch_probes, style, &body, &refused,
                                                &error, &il_map, wrapping) &&
               (!wrapping || first == end ||
                (Log("test %s gets no context: %s", test->name.c_str(), error.c_str()),
                 !il::InsertProbesSkippingRefused(Bytes(header, size), probes, branch_probes, style, &body,
                                                  &refused, &error, &il_map)))) {
      failure = "rewrite failed: " + error;
    } else if (m.has_record && !RecordSharedCounters(writer_, m.record, m.slot_base, derived, summed)) {
      // (Before the body is installed: no probe of it may run on a counter not yet marked.)
      failure = "a shared counter the data file cannot hold";
    } else if (control) {
      if ((hr = SetRejitBody(control, body, il_map)) != clr::S_OK) {
        control->SetILFunctionBody(size, header);  // the ReJIT then compiles the original IL
        snprintf(code, sizeof code, "ReJIT parameters refused 0x%08x", unsigned(hr));
        failure = code;
      }
    } else {
      ComPtr<clr::IMethodMalloc> alloc;
      void* mem = nullptr;
      if (info_->GetILFunctionBodyAllocator(m.id, alloc.Out()) == clr::S_OK && alloc)
        mem = alloc->Alloc(static_cast<clr::ULONG>(body.size()));
      if (!mem) {
        failure = "no IL allocator";
      } else {
        std::memcpy(mem, body.data(), body.size());
        hr = info_->SetILFunctionBody(m.id, token, static_cast<const uint8_t*>(mem));
        if (hr != clr::S_OK) {
          snprintf(code, sizeof code, "SetILFunctionBody failed 0x%08x", unsigned(hr));
          failure = code;
        } else if ((hr = SetIlMap(function, il_map)) != clr::S_OK) {
          // Without the map stack traces would show wrong lines: put the original IL back.
          info_->SetILFunctionBody(m.id, token, header);
          snprintf(code, sizeof code, "SetILInstrumentedCodeMap failed 0x%08x", unsigned(hr));
          failure = code;
        }
      }
    }
    if (first < end && m.has_record) {
      RecordRewrite(m, token, failure, refused, probes, branch_probes);
    } else if (!failure.empty()) {
      Log("test method 0x%08x of %s gets no context: %s", token, m.path.c_str(), failure.c_str());
    }
  }
  // Final either way: the IL never changes again (OSR may swap bodies mid-method).
  m.final_methods->MarkFinal(rid, clock_.Tick());
  return true;
}

void Profiler::RecordCollectorConflict(const std::vector<std::string>& argv) {
  auto read_text = [](const std::string& path) {
    std::vector<uint8_t> bytes;
    std::string error;
    return ReadWholeFile(path, &bytes, &error, 1 << 20) ? std::string(bytes.begin(), bytes.end()) : std::string();
  };
  std::string other = CoverageCollectorInArgs(argv, read_text);
  if (other.empty()) return;
  // A data file of its own (closed, and its lock released, when this returns)
  // that says so; `dotcov run` reads it and stops with a message.
  DataFileWriter w;
  std::string error;
  if (w.Reserve(size_t(1) << 16, &error) && w.Create(config_.data_dir, ProcessId(), &error)) {
    w.AddProcessInfo(Join(argv), CurrentDir(), &error);
    w.AddConflict("the test platform turned on " + other +
                      ", which measures the test host in dotcov's place (its profiler replaces dotcov's, "
                      "or it rewrites the assemblies dotcov measures)",
                  &error);
  }
}

void Profiler::ReportConflict(const std::string& what) {
  // Measuring code another tool rewrote would report its IL against the
  // original PDB; `dotcov run` reads this record and stops with a message.
  Log("skip %s", what.c_str());
  std::string error;
  if (!EnsureDataFile() || !writer_.AddConflict(what, &error)) Log("cannot record the conflict: %s", error.c_str());
}

void Profiler::RecordRewrite(CoveredModule& m, uint32_t token, const std::string& failure,
                             const std::vector<il::RefusedProbe>& refused,
                             const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                             const std::vector<il::BranchProbe>& branch_probes) {
  // Reports must tell "not measured" from "not run": the state (and why) goes
  // into the data file before the method can run.
  uint32_t rid = token & 0x00FFFFFF;
  std::string error;
  if (!failure.empty()) {
    Log("method 0x%08x of %s left uninstrumented: %s", token, m.path.c_str(), failure.c_str());
    writer_.SetMethodState(m.record, rid, kMethodNotMeasured);
    if (!writer_.AddNotMeasured(m.record, {token, kWholeMethod, kWholeMethod, failure}, &error))
      Log("cannot record why: %s", error.c_str());
    return;
  }
  for (const auto& r : refused) {
    // Every site counted by the refused probe, found by its counter slot.
    std::vector<uint32_t> slots;
    if (r.branch) {
      slots.push_back(branch_probes[r.index].fall_through_slot);
      for (uint32_t s : branch_probes[r.index].target_slots) slots.push_back(s);
    } else {
      slots.push_back(probes[r.index].second);
    }
    for (uint32_t slot : slots) {
      const ProbeSite& site = m.sites[slot - m.slot_base];
      Log("method 0x%08x of %s: probe site at IL_%04x (kind %u) left out: %s", token, m.path.c_str(),
          site.il_offset, site.kind, r.reason.c_str());
      if (!writer_.AddNotMeasured(m.record, {token, site.il_offset, site.kind, "probe refused: " + r.reason}, &error))
        Log("cannot record why: %s", error.c_str());
    }
  }
  writer_.SetMethodState(m.record, rid, kMethodInstrumented);
}

clr::HRESULT Profiler::JITCompilationStarted(clr::FunctionID function, clr::BOOL) {
  t_jit.Enter(clock_.Now());
  clr::ClassID cls = 0;
  clr::ModuleID module = 0;
  clr::mdToken token = 0;
  if (info_->GetFunctionInfo(function, &cls, &module, &token) != clr::S_OK) return clr::S_OK;
  // In ReJIT mode a covered method's IL is given in GetReJITParameters, to its ReJIT version.
  if (auto m = Find(module); m && !m->rejit.load(std::memory_order_acquire)) EnsureRewritten(*m, token, function);
  return clr::S_OK;
}

clr::HRESULT Profiler::JITCompilationFinished(clr::FunctionID, clr::HRESULT, clr::BOOL) {
  t_jit.Leave();
  return clr::S_OK;
}

clr::HRESULT Profiler::JITCachedFunctionSearchStarted(clr::FunctionID function, clr::BOOL* use_cached) {
  // Precompiled (ReadyToRun) code of a covered method has no probes: refuse it.
  clr::ClassID cls = 0;
  clr::ModuleID module = 0;
  clr::mdToken token = 0;
  if (info_->GetFunctionInfo(function, &cls, &module, &token) == clr::S_OK && Find(module)) *use_cached = 0;
  return clr::S_OK;
}

clr::HRESULT Profiler::GetReJITParameters(clr::ModuleID module, clr::mdMethodDef method,
                                          clr::ICorProfilerFunctionControl* control) {
  auto m = Find(module);
  if (!m) return clr::S_OK;
  EnsureRewritten(*m, method, 0, control);
  // A failure the runtime reports through ReJITError, for the tests (DOTCOV_TEST_FAIL_REJIT).
  if (std::find(m->fail_rejit.begin(), m->fail_rejit.end(), method) != m->fail_rejit.end()) return clr::E_FAIL;
  return clr::S_OK;
}

clr::HRESULT Profiler::ReJITError(clr::ModuleID module, clr::mdMethodDef method, clr::FunctionID, clr::HRESULT hr) {
  auto m = Find(module);
  Log("ReJIT of method 0x%08x of %s failed 0x%08x", method, m ? m->path.c_str() : "?", unsigned(hr));
  uint32_t rid = m ? m->methods.RidOf(method) : 0;
  if (rid == 0 || !m->has_record || m->methods.First(rid) == m->methods.End(rid)) return clr::S_OK;
  // Its probes never run (the original IL does), whatever its state said: not measured, never "missed".
  std::lock_guard<std::mutex> lock(m->rewrite_mu);
  char why[64];
  snprintf(why, sizeof why, "ReJIT failed 0x%08x", unsigned(hr));
  std::string error;
  writer_.SetMethodState(m->record, rid, kMethodNotMeasured);
  if (!writer_.AddNotMeasured(m->record, {method, kWholeMethod, kWholeMethod, why}, &error))
    Log("cannot record why: %s", error.c_str());
  return clr::S_OK;
}

clr::HRESULT Profiler::JITInlining(clr::FunctionID caller, clr::FunctionID callee, clr::BOOL* should_inline) {
  clr::ClassID cls = 0;
  clr::ModuleID module = 0;
  clr::mdToken token = 0;
  if (info_->GetFunctionInfo(callee, &cls, &module, &token) != clr::S_OK) return clr::S_OK;
  auto m = Find(module);
  if (!m) return clr::S_OK;
  uint32_t rid = m->methods.RidOf(token);
  if (rid == 0) return clr::S_OK;
  // A test method wrapped in its context is rewritten like one with probes.
  InlineFacts facts{m->rejit.load(std::memory_order_acquire), m->methods.HasProbes(rid) || m->test_index.count(rid),
                    m->final_methods->FinalEpoch(rid), t_jit.InnermostStart()};
  if (!MayInline(facts)) *should_inline = 0;  // rewrite_policy.h says why
  return clr::S_OK;
}

}  // namespace dotcov::agent
