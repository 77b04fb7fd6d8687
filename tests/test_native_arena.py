"""_native.use_huge_pages (native/python/native_arena.cpp): Python's small-object arenas cut from chunks advised
for transparent huge pages, and the C heap's new stretches advised too. Run in a child interpreter: the
allocator and the heap's settings stay for the process."""

from __future__ import annotations

import subprocess
import sys

CHILD = r"""
import gc
from dotcov import _native

def advised(address):
    # The flags of the mapping holding `address` (/proc/self/smaps): "hg" is MADV_HUGEPAGE.
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "VmFlags:":
                return "hg" in line.split()[1:]
    raise AssertionError("no mapping")

before = [object() for _ in range(10)]
assert _native.use_huge_pages() is True
assert _native.use_huge_pages() is False  # (once a process)
blocks = [bytes(8 << 20) for _ in range(12)]  # (larger blocks: the C heap, grown and advised ahead)
# (the first may come from the free top the heap had before)
assert sum(advised(id(b)) for b in blocks) >= len(blocks) - 1 and all(not any(b) for b in blocks)
del blocks
for _round in range(3):  # made, freed (arenas unmapped), made again
    made = [(i, str(i), [i]) for i in range(400_000)]  # ~100 MiB of small objects: hundreds of arenas
    assert sum(t[0] for t in made) == sum(range(400_000)) and made[123_456][1] == "123456"
    assert advised(id(made[-1])) and advised(id(made[-1][2]))
    del made
    gc.collect()
assert not advised(id(before[0]))  # (arenas from before stay where they were; freed as Python frees them)
del before
print("ok")
"""


def test_arenas_and_heap_blocks_come_from_advised_memory_and_python_runs_on_them():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
