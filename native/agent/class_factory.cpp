// COM entry points: the runtime dlopens the agent, calls DllGetClassObject with
// the CLSID from CORECLR_PROFILER, and asks the factory for a callback object.
#include <atomic>
#include <new>

#include "clr_abi.h"
#include "profiler.h"

namespace dotcov::agent {
namespace {

// Must match CLSID in src/dotcov/measure/agent.py.
constexpr clr::GUID kAgentClsid = {0x066BACCC, 0xBAC2, 0x4894, {0xAC, 0xF1, 0x83, 0xD3, 0x7A, 0xEA, 0xB1, 0x45}};

class ClassFactory final : public clr::IClassFactory {
 public:
  clr::HRESULT QueryInterface(const clr::GUID& iid, void** out) override {
    if (iid == clr::IID_IUnknown || iid == clr::IID_IClassFactory) {
      *out = static_cast<clr::IClassFactory*>(this);
      return clr::S_OK;
    }
    *out = nullptr;
    return clr::E_NOINTERFACE;
  }
  clr::ULONG AddRef() override { return 2; }  // static lifetime
  clr::ULONG Release() override { return 1; }
  clr::HRESULT CreateInstance(clr::IUnknown* outer, const clr::GUID& iid, void** out) override {
    if (!out) return clr::E_INVALIDARG;
    *out = nullptr;
    if (outer) return clr::CLASS_E_NOAGGREGATION;
    // Never freed: callbacks may arrive after Shutdown.
    auto* profiler = new (std::nothrow) Profiler();
    if (!profiler) return clr::E_OUTOFMEMORY;
    clr::HRESULT hr = profiler->QueryInterface(iid, out);
    if (hr != clr::S_OK) profiler->Release();
    return hr;
  }
  clr::HRESULT LockServer(clr::BOOL) override { return clr::S_OK; }
};

ClassFactory g_factory;

}  // namespace
}  // namespace dotcov::agent

#ifdef _WIN32
#define DOTCOV_EXPORT __declspec(dllexport)
#else
#define DOTCOV_EXPORT __attribute__((visibility("default")))
#endif

extern "C" DOTCOV_EXPORT clr::HRESULT DllGetClassObject(const clr::GUID& clsid,
                                                                                 const clr::GUID& iid, void** out) {
  if (!out) return clr::E_INVALIDARG;
  *out = nullptr;
  if (!(clsid == dotcov::agent::kAgentClsid)) return clr::CLASS_E_CLASSNOTAVAILABLE;
  return dotcov::agent::g_factory.QueryInterface(iid, out);
}

extern "C" DOTCOV_EXPORT clr::HRESULT DllCanUnloadNow() {
  return clr::S_FALSE;  // the agent stays loaded for the life of the process
}
