// Calls RequestReJITWithInliners on a thread of its own: the runtime deadlocks
// when a ReJIT is requested from inside ModuleLoadFinished (DataDog
// dd-trace-dotnet#1203), yet the module's methods must not run before the
// request is in place, so the caller waits for it, up to a bound: a module
// whose request is not done by then takes the JIT-time path instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "clr_abi.h"

namespace dotcov::agent {

class RejitRequester {
 public:
  struct Outcome {
    bool timed_out = false;   // not done within the bound (then hr means nothing)
    clr::HRESULT hr = clr::S_OK;
  };

  // Starts the thread (which calls InitializeCurrentThread first).
  bool Start(clr::ICorProfilerInfo10* info);
  // Requests a ReJIT of `methods` of `module` with inlining blocked, and waits
  // up to `bound` for the request to finish. On timeout a request that has not
  // started is dropped (never made later); one already inside the runtime may
  // still complete (see docs/architecture.md). `test_stall` (tests only:
  // DOTCOV_TEST_STALL_REJIT) holds the job back until the caller gives up.
  Outcome Request(clr::ModuleID module, const std::vector<uint32_t>& methods, std::chrono::milliseconds bound,
                  bool test_stall = false);

 private:
  struct Job {
    clr::ModuleID module = 0;
    std::vector<uint32_t> methods;
    bool test_stall = false;
    clr::HRESULT hr = clr::S_OK;
    bool done = false;
    bool abandoned = false;  // the caller stopped waiting
  };
  void Run();

  clr::ICorProfilerInfo10* info_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;  // shared: an abandoned job outlives its caller's frame
};

}  // namespace dotcov::agent
