#include "context_recorder.h"

#ifndef _WIN32
#include <sys/mman.h>
#endif

#include <cerrno>
#include <cstring>

#include "agent_log.h"

namespace dotcov::agent {
namespace {
ContextRecorder* g_recorder = nullptr;  // set once, before any HitCtx can run; never freed
}

bool ContextRecorder::Start(DataFileWriter* writer, size_t counter_capacity, std::string* error) {
#ifdef _WIN32
  // Not ported: the table is as large as the counter space (512 MiB for 1 GiB of counters) and relies on Linux's
  // MAP_NORESERVE; Windows would charge all of it against the commit limit up front, or need pages committed on
  // first touch. Per-test contexts are off on Windows and the log says why (docs/platforms.md).
  (void)writer;
  (void)counter_capacity;
  *error = "per-test contexts are not measured on Windows yet (no reserve-on-touch table)";
  return false;
#else
  slots_ = counter_capacity / 8;
  void* p = mmap(nullptr, slots_ * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    *error = std::string("cannot reserve the per-test context table: ") + std::strerror(errno);
    return false;
  }
  last_ = static_cast<uint32_t*>(p);
  writer_ = writer;
  g_recorder = this;
  return true;
#endif
}

void ContextRecorder::Record(int32_t context, int32_t slot) {
  if (g_recorder && context > 0 && slot >= 0) g_recorder->RecordOnce(uint32_t(context), uint32_t(slot));
}

void ContextRecorder::RecordOnce(uint32_t context, uint32_t slot) {
  // HitCtx stores the context in last_[slot] before calling, so only its own
  // thread skipped the call for this pair: each pair arrives here at least once.
  try {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_ || !seen_.insert(uint64_t(context) << 32 | slot).second) return;
    std::string error;
    if (!writer_->AddContextHit(context, slot, &error)) {
      failed_ = true;  // the file stopped growing; the header counts what was lost
      Log("per-test contexts: cannot record more context hits: %s", error.c_str());
    }
  } catch (...) {
    // Out of memory: this pair is not recorded; the program carries on.
  }
}

}  // namespace dotcov::agent
