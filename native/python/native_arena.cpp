// Python's small-object arenas on transparent huge pages.
//
// A warm million-statement report makes a few hundred MiB of small objects (dicts' entries, ints, tuples, the
// model's objects). Python takes them from 256 KiB arenas, each its own mmap, whose 4 KiB pages fault in one at a
// time: 57,000 faults were half of applying the module plans (docs/benchmarks.md). Here the arenas are cut from
// 2 MiB-aligned chunks marked MADV_HUGEPAGE, so the kernel fills them 2 MiB at a time (where the system allows
// transparent huge pages for madvised memory; elsewhere nothing changes but where the arenas sit).
//
// Freeing an arena unmaps it (a part of a chunk may be unmapped on its own), as Python's own allocator does, so
// memory goes back to the system as before. Arenas made before the install are freed the same way (munmap),
// which is what Python's default would do with them.
#include "native_arena.h"

#include <Python.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace py = pybind11;

namespace {

constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kChunk = size_t{32} << 20;  // arenas cut from one mapping (a multiple of kHuge)

struct Chunk {
  char* next = nullptr;  // the part not yet handed out: [next, end)
  char* end = nullptr;
};

Chunk chunk;
bool installed = false;

void* MapAnonymous(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// A new chunk, aligned to kHuge (so each huge page is whole), marked for huge pages; false if none can be had.
bool NewChunk() {
  char* raw = static_cast<char*>(MapAnonymous(kChunk + kHuge));
  if (raw == nullptr) return false;
  const uintptr_t at = (reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1);
  char* start = reinterpret_cast<char*>(at);
  if (start > raw) munmap(raw, static_cast<size_t>(start - raw));
  const size_t tail = static_cast<size_t>(raw + kChunk + kHuge - (start + kChunk));
  if (tail) munmap(start + kChunk, tail);
#ifdef MADV_HUGEPAGE
  madvise(start, kChunk, MADV_HUGEPAGE);  // (advice: refused or unsupported, the chunk works as it is)
#endif
  chunk = {start, start + kChunk};
  return true;
}

void* Alloc(void*, size_t size) {
  if (size == 0 || size > kChunk / 4 || size % 4096) return MapAnonymous(size);  // (not an arena: as Python does)
  if (static_cast<size_t>(chunk.end - chunk.next) < size && !NewChunk()) return MapAnonymous(size);
  void* p = chunk.next;
  chunk.next += size;
  return p;
}

void Free(void*, void* ptr, size_t size) {
  if (ptr != nullptr) munmap(ptr, size);
}

// Installs the allocator (once); returns whether this call installed it.
bool UseHugeArenas() {
  if (installed) return false;
  PyObjectArenaAllocator mine{nullptr, Alloc, Free};
  PyObject_SetArenaAllocator(&mine);
  installed = true;
  return true;
}

}  // namespace

void RegisterArena(py::module_& m) {
  m.def("use_huge_arenas", &UseHugeArenas,
        "Python's small-object arenas from now on cut from 2 MiB-aligned chunks advised for transparent huge pages "
        "(fewer page faults when building a large model). Returns whether this call installed it (once a process).");
}
