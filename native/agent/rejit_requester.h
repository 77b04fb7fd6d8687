// Calls RequestReJITWithInliners on a thread of its own: the runtime deadlocks
// when a ReJIT is requested from inside ModuleLoadFinished (DataDog
// dd-trace-dotnet#1203), yet the module's methods must not run before the
// request is in place, so the caller waits for it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "clr_abi.h"

namespace dotcov::agent {

class RejitRequester {
 public:
  // Starts the thread (which calls InitializeCurrentThread first).
  bool Start(clr::ICorProfilerInfo10* info);
  // Requests a ReJIT of `methods` of `module` with inlining blocked, and waits
  // for the request to finish; the request's HRESULT.
  clr::HRESULT Request(clr::ModuleID module, const std::vector<uint32_t>& methods);

 private:
  struct Job {
    clr::ModuleID module;
    std::vector<uint32_t> methods;
    clr::HRESULT hr = clr::S_OK;
    bool done = false;
  };
  void Run();

  clr::ICorProfilerInfo10* info_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job*> queue_;
};

}  // namespace dotcov::agent
