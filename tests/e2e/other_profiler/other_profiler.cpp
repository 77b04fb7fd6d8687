// A profiler that is not dotcov's, for tests/e2e/test_attach.py: it loads at startup, asks for nothing and does
// nothing, so the runtime's one profiler slot is taken. Built by the test with g++ over dotcov's ABI declarations.
#include "callback_base.h"

namespace {

// Not dotcov's CLSID (native/agent/class_factory.cpp).
constexpr clr::GUID kClsid = {0x5A1E0B7F, 0x0C41, 0x4D2E, {0x9B, 0x55, 0x3F, 0x26, 0x1A, 0x7C, 0x40, 0x11}};

class Idle final : public dotcov::agent::CallbackBase {};

class Factory final : public clr::IClassFactory {
 public:
  clr::HRESULT QueryInterface(const clr::GUID& iid, void** out) override {
    *out = (iid == clr::IID_IUnknown || iid == clr::IID_IClassFactory) ? this : nullptr;
    return *out ? clr::S_OK : clr::E_NOINTERFACE;
  }
  clr::ULONG AddRef() override { return 2; }
  clr::ULONG Release() override { return 1; }
  clr::HRESULT CreateInstance(clr::IUnknown*, const clr::GUID& iid, void** out) override {
    return (new Idle())->QueryInterface(iid, out);
  }
  clr::HRESULT LockServer(clr::BOOL) override { return clr::S_OK; }
};

Factory g_factory;

}  // namespace

extern "C" __attribute__((visibility("default"))) clr::HRESULT DllGetClassObject(const clr::GUID& clsid,
                                                                                 const clr::GUID& iid, void** out) {
  if (!(clsid == kClsid)) return clr::CLASS_E_CLASSNOTAVAILABLE;
  return g_factory.QueryInterface(iid, out);
}
