// Per-test contexts, native side: the per-slot "last context" array the
// CoreLib helper HitCtx checks first, and the function it calls when a slot
// sees a context it did not see last, which records each (context, slot) pair
// once in the data file.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_set>

#include "dotcov/data_file.h"

namespace dotcov::agent {

class ContextRecorder {
 public:
  // Reserves the last-context array: one uint32 per possible counter slot of
  // `counter_capacity` bytes (anonymous, MAP_NORESERVE: only touched pages cost memory).
  bool Start(DataFileWriter* writer, size_t counter_capacity, std::string* error);
  const uint32_t* last_context() const { return last_; }

  // The function HitCtx calls (unmanaged cdecl, through calli): records (context, slot)
  // unless already recorded. Never throws, never calls into the runtime.
  static void Record(int32_t context, int32_t slot);

 private:
  void RecordOnce(uint32_t context, uint32_t slot);

  DataFileWriter* writer_ = nullptr;
  uint32_t* last_ = nullptr;
  size_t slots_ = 0;
  std::mutex mu_;
  std::unordered_set<uint64_t> seen_;  // context << 32 | slot; as large as the data it records
  bool failed_ = false;
};

}  // namespace dotcov::agent
