// Minimal owning pointer for COM interfaces handed out by the runtime.
#pragma once

#include "clr_abi.h"

namespace dotcov::agent {

template <typename T>
class ComPtr {
 public:
  ComPtr() = default;
  ~ComPtr() { Reset(); }
  ComPtr(const ComPtr&) = delete;
  ComPtr& operator=(const ComPtr&) = delete;
  ComPtr(ComPtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // For out-parameters of type IUnknown** / T**.
  template <typename U = T>
  U** Out() {
    Reset();
    return reinterpret_cast<U**>(&p_);
  }
  void Reset() {
    if (p_) p_->Release();
    p_ = nullptr;
  }
  // QueryInterface into another ComPtr.
  template <typename U>
  bool As(const clr::GUID& iid, ComPtr<U>* out) const {
    if (!p_) return false;
    return p_->QueryInterface(iid, reinterpret_cast<void**>(out->Out())) == clr::S_OK && out->get();
  }

 private:
  T* p_ = nullptr;
};

}  // namespace dotcov::agent
