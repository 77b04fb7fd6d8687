#include "rejit_requester.h"

namespace dotcov::agent {

bool RejitRequester::Start(clr::ICorProfilerInfo10* info) {
  info_ = info;
  try {
    std::thread(&RejitRequester::Run, this).detach();  // lives as long as the process
    return true;
  } catch (...) {
    return false;
  }
}

void RejitRequester::Run() {
  info_->InitializeCurrentThread();
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty(); });
      job = queue_.front();
      queue_.pop_front();
      if (job->test_stall) cv_.wait(lock, [&] { return job->abandoned; });
      if (job->abandoned) continue;  // its module already took the JIT-time path
    }
    std::vector<clr::ModuleID> modules(job->methods.size(), job->module);
    std::vector<clr::mdMethodDef> methods(job->methods.begin(), job->methods.end());
    clr::HRESULT hr = info_->RequestReJITWithInliners(clr::COR_PRF_REJIT_BLOCK_INLINING,
                                                      static_cast<clr::ULONG>(methods.size()), modules.data(),
                                                      methods.data());
    std::lock_guard lock(mu_);
    job->hr = hr;
    job->done = true;
    cv_.notify_all();
  }
}

RejitRequester::Outcome RejitRequester::Request(clr::ModuleID module, const std::vector<uint32_t>& methods,
                                                std::chrono::milliseconds bound, bool test_stall) {
  auto job = std::make_shared<Job>();
  job->module = module;
  job->methods = methods;
  job->test_stall = test_stall;
  std::unique_lock lock(mu_);
  queue_.push_back(job);
  cv_.notify_all();
  if (!cv_.wait_for(lock, bound, [&] { return job->done; })) {
    job->abandoned = true;
    cv_.notify_all();
    return {true, clr::S_OK};
  }
  return {false, job->hr};
}

}  // namespace dotcov::agent
