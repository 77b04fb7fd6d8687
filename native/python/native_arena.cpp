// Python's memory on transparent huge pages, for a process that builds a large model (a report command).
//
// A warm million-statement report reads and makes a few hundred MiB: small objects (ints, tuples, the model's
// objects) in Python's 256 KiB arenas, each its own mmap, and larger blocks (dict tables, lists, bytes) on the C
// heap. Their 4 KiB pages faulted in one at a time: 104,000 faults, a third of the build (docs/benchmarks.md).
// Here (where the system allows transparent huge pages for madvised memory; elsewhere nothing changes but where
// the arenas sit and how far the heap grows at a time):
// - the arenas are cut from 2 MiB-aligned chunks marked MADV_HUGEPAGE. Freeing an arena unmaps it (a part of a
//   chunk may be unmapped on its own), as Python's own allocator does, so memory goes back to the system as
//   before; arenas made before the install are freed the same way (munmap), as Python's default would;
// - the C heap grows kHeapPad at a time (M_TOP_PAD; glibc's own huge-page option is an environment setting, read
//   at start only), and each new stretch is marked MADV_HUGEPAGE when the arena allocator next runs (every 256 KiB
//   of small objects), which also keeps a stretch or more free at the top: what is handed out meanwhile
//   is in memory already advised. M_TRIM_THRESHOLD keeps the heap from
//   shrinking by less than four stretches; blocks up to half a stretch (M_MMAP_THRESHOLD) come from the heap too.
#include "native_arena.h"

#include <Python.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
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

// The C heap (Python's larger blocks: dict tables, lists, bytes) grows by kHeapPad at a time (M_TOP_PAD).
constexpr size_t kHeapPad = size_t{64} << 20;
uintptr_t heap_seen = 0, heap_advised = 0;  // the break last seen; the end of the advised part
bool heap_fixed = false;  // the break did not move when the heap had to grow (glibc maps memory instead)

void AdviseHeap(bool grow = true) {
#if defined(MADV_HUGEPAGE) && defined(__GLIBC__)  // (glibc's heap: mallinfo2, M_TOP_PAD; README: glibc 2.36+)
  const uintptr_t brk = reinterpret_cast<uintptr_t>(sbrk(0));
  if (brk == static_cast<uintptr_t>(-1)) return;
  if (heap_seen == 0 || brk < heap_seen) heap_advised = brk;  // (the heap before the install, or trimmed: left)
  heap_seen = brk;
  // The heap's free top kept at a stretch or more, so what is handed out before the next call is advised.
  if (grow && !heap_fixed && mallinfo2().keepcost < kHeapPad) {
    // (served from the top, which grows by a stretch; or from free space. volatile: not a pair to leave out)
    void* volatile block = malloc(kHeapPad / 2 - kHuge);
    const bool had = block != nullptr;
    free(block);
    heap_fixed = had && reinterpret_cast<uintptr_t>(sbrk(0)) == brk &&
                 mallinfo2().keepcost < kHeapPad;  // (a heap that cannot grow: not tried again)
    return AdviseHeap(false);
  }
  const uintptr_t from = (heap_advised + kHuge - 1) & ~(kHuge - 1), to = brk & ~(kHuge - 1);
  if (to <= from) return;
  madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);  // (advice: refused, the heap works as it is)
  heap_advised = to;
#endif
}

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
  AdviseHeap();
  if (size == 0 || size > kChunk / 4 || size % 4096) return MapAnonymous(size);  // (not an arena: as Python does)
  if (static_cast<size_t>(chunk.end - chunk.next) < size && !NewChunk()) return MapAnonymous(size);
  void* p = chunk.next;
  chunk.next += size;
  return p;
}

void Free(void*, void* ptr, size_t size) {
  if (ptr != nullptr) munmap(ptr, size);
}

// Installs the allocator and the heap's settings (once); returns whether this call installed them.
bool UseHugePages() {
  if (installed) return false;
  PyObjectArenaAllocator mine{nullptr, Alloc, Free};
  PyObject_SetArenaAllocator(&mine);
#if defined(__GLIBC__)
  mallopt(M_TOP_PAD, static_cast<int>(kHeapPad));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(4 * kHeapPad));
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHeapPad / 2));  // (the data's columns and hit lists on the heap too)
#endif
  AdviseHeap();  // (notes where the heap ends now; grows it by a stretch, advised before anything is in it)
  installed = true;
  return true;
}

}  // namespace

void RegisterArena(py::module_& m) {
  m.def("use_huge_pages", &UseHugePages,
        "Python's small-object arenas and the C heap from now on in memory advised for transparent huge pages "
        "(fewer page faults when building a large model). Returns whether this call installed it (once a process).");
}
