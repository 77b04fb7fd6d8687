"""The framed files the plan cache keeps (data/cache_files.py): a damaged or cut file is a miss, never an error; a reader
beside concurrent writers sees whole files only; prune keeps the newest within its bounds, always the newest one."""

from __future__ import annotations

import os
import threading
import zlib

import pytest

from dotcov.data import cache_files
from dotcov.data.cache_files import FramedFiles

FILES = FramedFiles(b"dotcov-test-frame-1\n", prefix="t.", suffix=".bin", temp="t")


def test_a_written_file_reads_back(tmp_path):
    path = FILES.path(tmp_path / "sub", "k")
    assert path.name == "t.k.bin"
    assert FILES.write(path, b"body")
    assert bytes(FILES.read(path)) == b"body"
    assert FILES.write(tmp_path / "t.empty.bin", b"") and bytes(FILES.read(tmp_path / "t.empty.bin")) == b""
    assert not list((tmp_path / "sub").glob(".t.*.tmp"))


def test_the_frame_is_magic_length_crc_body(tmp_path):
    # The cache's format on disk (analysis/plans/cache.py) is this frame: a change must be a new MAGIC.
    FILES.write(tmp_path / "t.x.bin", b"abc")
    assert (tmp_path / "t.x.bin").read_bytes() == (FILES.magic + (3).to_bytes(8, "little")
                                                  + zlib.crc32(b"abc").to_bytes(4, "little") + b"abc")


@pytest.mark.parametrize("damage", ["missing", "empty", "short head", "truncated", "longer", "flipped", "magic",
                                    "length", "crc", "directory"])
def test_a_damaged_file_is_a_miss(tmp_path, damage):
    path = tmp_path / "t.k.bin"
    FILES.write(path, b"x" * 100)
    blob = bytearray(path.read_bytes())
    head = len(FILES.magic)
    if damage == "missing":
        path.unlink()
    elif damage == "directory":
        path.unlink()
        path.mkdir()
    else:
        if damage == "empty":
            blob = bytearray()
        elif damage == "short head":
            blob = blob[:head + 5]
        elif damage == "truncated":
            blob = blob[:-1]
        elif damage == "longer":
            blob += b"x"
        elif damage == "flipped":
            blob[-1] ^= 1
        elif damage == "magic":
            blob[0] ^= 1
        elif damage == "length":
            blob[head] ^= 1
        elif damage == "crc":
            blob[head + 8] ^= 1
        path.write_bytes(bytes(blob))
    assert FILES.read(path) is None


def test_a_big_file_is_mapped_and_checked_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_files, "MAP_FROM", 64)
    path = tmp_path / "t.k.bin"
    FILES.write(path, bytes(range(256)) * 4)
    assert bytes(FILES.read(path)) == bytes(range(256)) * 4
    blob = bytearray(path.read_bytes())
    blob[-5] ^= 1
    path.write_bytes(bytes(blob))
    assert FILES.read(path) is None


def test_an_unwritable_directory_is_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert FILES.write(blocker / "t.k.bin", b"x") is False
    FILES.prune(blocker, 1)
    FILES.clear(blocker)
    assert blocker.read_text() == "not a directory"


def test_a_reader_beside_concurrent_writers_sees_whole_files_only(tmp_path):
    path = tmp_path / "t.k.bin"
    bodies = [bytes([i]) * (50_000 + 1000 * i) for i in range(4)]
    FILES.write(path, bodies[0])
    stop = threading.Event()

    def writer(body):
        while not stop.is_set():
            assert FILES.write(path, body)

    threads = [threading.Thread(target=writer, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    seen = set()
    try:
        for _ in range(400):
            body = FILES.read(path)
            assert body is not None  # renamed over: never missing, never half a file
            seen.add(bytes(body))
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert seen <= set(bodies)
    assert not list(tmp_path.glob(".t.*.tmp"))  # every temporary file renamed or removed


def _files(directory, n, size=100):
    paths = []
    for i in range(n):
        path = FILES.path(directory, f"{i:02}")
        FILES.write(path, b"x" * size)
        os.utime(path, ns=((i + 1) * 10**9, (i + 1) * 10**9))  # f00 oldest
        paths.append(path)
    return paths


def left(directory):
    return sorted(p.name for p in directory.glob("t.*.bin"))


def test_prune_keeps_the_newest_within_the_byte_bound(tmp_path):
    paths = _files(tmp_path, 6)
    size = paths[0].stat().st_size
    FILES.prune(tmp_path, 2 * size)  # two files exactly fit
    assert left(tmp_path) == [p.name for p in paths[4:]]
    FILES.prune(tmp_path, 2 * size - 1)
    assert left(tmp_path) == [paths[5].name]


def test_prune_always_keeps_the_newest_file(tmp_path):
    # The file just written is kept even when it alone is over the bound: the next command uses it.
    paths = _files(tmp_path, 3)
    FILES.prune(tmp_path, 0)
    assert left(tmp_path) == [paths[2].name]


def test_prune_touches_only_its_own_files_and_stale_temporaries(tmp_path):
    paths = _files(tmp_path, 2)
    other = [tmp_path / "plan.x.bin", tmp_path / "t.x.other", tmp_path / ".c.y.tmp"]
    for p in other:
        p.write_bytes(b"other cache")
    (tmp_path / "t.sub.bin").mkdir()  # not a file: left alone, no error
    fresh, stale = tmp_path / ".t.fresh.tmp", tmp_path / ".t.stale.tmp"
    fresh.write_bytes(b"being written")
    stale.write_bytes(b"left by a killed command")
    os.utime(stale, ns=(1, 1))
    FILES.prune(tmp_path, paths[1].stat().st_size)  # room for the newest only
    assert all(p.exists() for p in other) and fresh.exists() and not stale.exists()
    assert (tmp_path / "t.sub.bin").is_dir()
    assert left(tmp_path) == ["t.01.bin", "t.sub.bin"]


def test_clear_removes_the_files_then_the_directory_if_empty(tmp_path):
    directory = tmp_path / "cache"
    _files(directory, 3)
    (directory / ".t.x.tmp").write_bytes(b"half")
    FILES.clear(directory)
    assert not directory.exists()
    _files(directory, 1)
    (directory / "other").write_bytes(b"kept")
    FILES.clear(directory)
    assert [p.name for p in directory.iterdir()] == ["other"]
    FILES.clear(tmp_path / "never made")  # no error
