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
    Job* job = nullptr;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty(); });
      job = queue_.front();
      queue_.pop_front();
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

clr::HRESULT RejitRequester::Request(clr::ModuleID module, const std::vector<uint32_t>& methods) {
  Job job{module, methods};
  std::unique_lock lock(mu_);
  queue_.push_back(&job);
  cv_.notify_all();
  cv_.wait(lock, [&] { return job.done; });  // the job lives in this frame
  return job.hr;
}

}  // namespace dotcov::agent
