"""Data files: merging, combining, damaged files, erase."""

from __future__ import annotations

from pathlib import Path

import pytest

from dotcov import _native
from dotcov.data import datafiles as data

MVID = b"m" * 16
PDB = b"p" * 20


def write(path: Path, hits: list[int], *, mvid=MVID, tokens=None, offsets=None, cmd="testhost") -> Path:
    tokens = tokens or [0x06000001] * len(hits)
    offsets = offsets or list(range(len(hits)))
    kinds = [0] * len(hits)
    _native.write_data_file(str(path), {
        "processes": [{"command_line": cmd, "cwd": "/src"}],
        "modules": [{"mvid": mvid, "pdb_id": PDB, "path": "/src/bin/Calc.dll", "tokens": tokens,
                     "offsets": offsets, "kinds": kinds, "hits": hits}],
    })
    return path


def test_load_adds_hits_of_the_same_build_across_processes(tmp_path):
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0, 2])
    write(tmp_path / "dotcov.2.bbbbbbbb.cov", [0, 0, 5])
    write(tmp_path / "dotcov.3.cccccccc.cov", [9], mvid=b"o" * 16)
    cov = data.load(tmp_path)
    assert cov.modules[(MVID, PDB)].hits == [1, 0, 7]
    assert cov.modules[(MVID, PDB)].processes == 2
    assert cov.modules[(b"o" * 16, PDB)].hits == [9]
    assert len(cov.processes) == 3
    assert not cov.warnings


def test_combine_merges_then_removes_inputs_and_is_repeatable(tmp_path):
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0])
    write(tmp_path / "dotcov.2.bbbbbbbb.cov", [1, 3])
    data.combine(tmp_path)
    [combined] = data.data_files(tmp_path)
    assert combined.name.startswith(data.COMBINED_PREFIX)
    write(tmp_path / "dotcov.3.cccccccc.cov", [1, 1])
    data.combine(tmp_path)  # the combined file is an input too
    assert data.load(tmp_path).modules[(MVID, PDB)].hits == [3, 4]


def test_combine_writes_the_site_columns_as_read(tmp_path, monkeypatch):
    # A module of one file keeps its sites as the reader's columns: combine writes them back without making a
    # tuple per site (a million of them at scale); merged modules write their site list's columns.
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0, 4], offsets=[7, 3, 5])
    write(tmp_path / "dotcov.2.bbbbbbbb.cov", [2], mvid=b"o" * 16)
    write(tmp_path / "dotcov.3.cccccccc.cov", [5], mvid=b"o" * 16, offsets=[9])

    made = []  # the modules whose site tuples were made
    real = data.ModuleHits.sites
    monkeypatch.setattr(data.ModuleHits, "sites", property(lambda m: made.append(m.mvid) or real.fget(m), real.fset))
    data.combine(tmp_path)
    assert MVID not in made and b"o" * 16 in made
    monkeypatch.undo()
    modules = data.load(tmp_path).modules
    assert modules[(MVID, PDB)].sites == [(0x06000001, 7, 0), (0x06000001, 3, 0), (0x06000001, 5, 0)]
    assert modules[(MVID, PDB)].hits == [1, 0, 4]
    assert modules[(b"o" * 16, PDB)].sites == [(0x06000001, 0, 0), (0x06000001, 9, 0)]
    assert modules[(b"o" * 16, PDB)].hits == [2, 5]


def test_truncated_file_keeps_what_it_holds_and_is_set_aside(tmp_path):
    good = write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 2])
    cut = tmp_path / "dotcov.2.bbbbbbbb.cov"
    write(cut, [5, 5], mvid=b"z" * 16)
    raw = cut.read_bytes()
    cut.write_bytes(raw[:-4])  # inside the module record
    cov = data.load(tmp_path)
    assert (MVID, PDB) in cov.modules
    assert (b"z" * 16, PDB) not in cov.modules
    assert any("cut short" in w for w in cov.warnings)
    data.combine(tmp_path)
    assert (tmp_path / (cut.name + ".damaged")).exists()
    assert not good.exists()


def test_garbage_and_future_versions_are_reported_not_fatal(tmp_path):
    (tmp_path / "dotcov.9.junk0000.cov").write_bytes(b"not coverage data at all")
    future = write(tmp_path / "dotcov.8.future00.cov", [1])
    raw = bytearray(future.read_bytes())
    raw[8] = 99
    future.write_bytes(bytes(raw))
    cov = data.load(tmp_path)
    assert not cov.modules
    text = "\n".join(cov.warnings)
    assert "not a dotcov data file" in text
    assert "version 99 is not supported" in text
    assert "a newer dotcov" in text


def test_erase_removes_only_data_files(tmp_path):
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1])
    (tmp_path / "notes.txt").write_text("mine")
    assert data.erase(tmp_path) == 1
    assert (tmp_path / "notes.txt").exists()


def test_write_data_file_rejects_inconsistent_lengths(tmp_path):
    with pytest.raises(ValueError):
        _native.write_data_file(str(tmp_path / "x.cov"), {"processes": [], "modules": [
            {"mvid": MVID, "pdb_id": PDB, "path": "/a", "tokens": [1, 2], "offsets": [0], "hits": [0, 0]}]})


def test_a_module_loaded_by_a_thousand_processes_takes_one_record(tmp_path):
    single = write(tmp_path / "dotcov.0.00000000.cov", [1] * 100)
    one_size = single.stat().st_size
    for pid in range(1, 1000):
        write(tmp_path / f"dotcov.{pid}.{pid:08x}.cov", [1] * 100)
    cov = data.combine(tmp_path)
    assert cov.modules[(MVID, PDB)].hits == [1000] * 100
    [combined] = cov.files
    # One module record; only the per-process command lines grow with the process count.
    assert combined.stat().st_size < one_size + 1000 * 64


def test_combined_files_of_shards_copied_together_do_not_overwrite_each_other(tmp_path):
    shards = []
    for n, hits in enumerate(([1, 0, 0], [0, 2, 0])):
        shard = tmp_path / f"shard{n}"
        shard.mkdir()
        write(shard / f"dotcov.{n + 1}.0000000{n}.cov", hits)
        write(shard / f"dotcov.{n + 7}.0000000{n}.cov", [1, 0, 0])
        shards.append(data.combine(shard).files[0])
    assert shards[0].name != shards[1].name
    merged = tmp_path / "merged"
    merged.mkdir()
    for path in shards:
        (merged / path.name).write_bytes(path.read_bytes())
    assert data.load(merged).modules[(MVID, PDB)].hits == [3, 2, 0]  # readers find every combined file
    data.combine(merged)
    [combined] = data.data_files(merged)
    assert data.load(merged).modules[(MVID, PDB)].hits == [3, 2, 0]
    data.combine(merged)  # idempotent: the same counts, still one file
    assert len(data.data_files(merged)) == 1
    assert data.load(merged).modules[(MVID, PDB)].hits == [3, 2, 0]


def write_full(path: Path, modules: list[dict], **header) -> Path:
    _native.write_data_file(str(path), {"processes": [{"command_line": "testhost", "cwd": "/src"}],
                                        "modules": modules, **header})
    return path


def module(hits, *, states=b"", notes=(), tokens=None):
    tokens = tokens or [0x06000001 + i for i in range(len(hits))]
    return {"mvid": MVID, "pdb_id": PDB, "path": "/src/bin/Calc.dll", "tokens": tokens,
            "offsets": [0] * len(hits), "kinds": [0] * len(hits), "hits": hits, "method_states": states,
            "not_measured": list(notes)}


def test_combine_never_removes_a_file_whose_writer_is_alive(tmp_path):
    import fcntl
    import os

    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0])
    live = write(tmp_path / "dotcov.2.bbbbbbbb.cov", [0, 5])
    holder = os.open(live, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # as the agent holds it for its process's life
    try:
        cov = data.combine(tmp_path)
        assert live.exists()
        assert cov.modules[(MVID, PDB)].hits == [1, 5]  # the report sees the live data
        assert any("still being written" in w for w in cov.warnings)
        # The combined file holds only what was finished (else the next combine would count it twice).
        only = data.CoverageData()
        [combined] = tmp_path.glob(data.COMBINED_PREFIX + "*.cov")
        data.read_file(combined, only)
        assert only.modules[(MVID, PDB)].hits == [1, 0]
    finally:
        os.close(holder)
    data.combine(tmp_path)  # the writer has ended: now it is merged, once
    assert not live.exists()
    assert data.load(tmp_path).modules[(MVID, PDB)].hits == [1, 5]


def test_a_damaged_combined_file_is_kept_before_it_is_rewritten(tmp_path):
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 2])
    data.combine(tmp_path)
    [combined] = tmp_path.glob(data.COMBINED_PREFIX + "*.cov")
    cut = combined.read_bytes()[:-4]
    combined.write_bytes(cut)
    write(tmp_path / "dotcov.2.bbbbbbbb.cov", [1, 1])
    cov = data.combine(tmp_path)
    assert any("cut short" in w for w in cov.warnings)
    assert combined.with_name(combined.name + ".damaged").read_bytes() == cut
    assert data.load(tmp_path).modules[(MVID, PDB)].hits == [1, 1]


def test_a_damaged_copy_never_replaces_another(tmp_path):
    for n in range(2):
        f = write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 2])
        f.write_bytes(f.read_bytes()[:-4] + bytes([n]))
        data.combine(tmp_path)
    kept = sorted(p.name for p in tmp_path.glob("dotcov.1.aaaaaaaa.cov.damaged*"))
    assert kept == ["dotcov.1.aaaaaaaa.cov.damaged", "dotcov.1.aaaaaaaa.cov.damaged.1"]


def test_lost_data_is_reported_and_survives_combine(tmp_path):
    write_full(tmp_path / "dotcov.1.aaaaaaaa.cov", [module([1])], lost_records=3, lost_errno=28)
    cov = data.load(tmp_path)
    assert cov.lost_records == 3
    assert any("data was lost" in w and "No space left on device" in w for w in cov.warnings)
    data.combine(tmp_path)
    again = data.load(tmp_path)
    assert again.lost_records == 3
    assert any("data was lost" in w for w in again.warnings)


def test_methods_the_agent_could_not_instrument_are_unmeasured(tmp_path):
    W = data.WHOLE_METHOD
    notes = [(0x06000002, W, W, "rewrite failed: bad IL"), (0x06000001, 6, 0, "probe refused")]
    write_full(tmp_path / "dotcov.1.aaaaaaaa.cov",
               [module([1, 0, 0], states=bytes([1, 2, 0]), notes=notes)])
    m = data.load(tmp_path).modules[(MVID, PDB)]
    assert m.unmeasured == {0x06000002: "rewrite failed: bad IL"}
    assert m.unmeasured_sites == {(0x06000001, 6, 0): "probe refused"}
    data.combine(tmp_path)  # kept through combine
    assert data.load(tmp_path).modules[(MVID, PDB)].unmeasured == {0x06000002: "rewrite failed: bad IL"}
    # Another process instrumented that method: what it measured stands.
    write_full(tmp_path / "dotcov.2.bbbbbbbb.cov", [module([0, 0, 0], states=bytes([1, 1, 0]))])
    assert data.load(tmp_path).modules[(MVID, PDB)].unmeasured == {}


def test_an_unmeasured_method_without_its_note_still_says_so(tmp_path):
    write_full(tmp_path / "dotcov.1.aaaaaaaa.cov", [module([0], states=bytes([2]))])
    m = data.load(tmp_path).modules[(MVID, PDB)]
    assert "reason was not recorded" in m.unmeasured[0x06000001]


def test_unmeasured_given_directly_is_kept_when_merging():
    a = data.ModuleHits(MVID, PDB, "/a.dll", [(0x06000001, 0, 0)], [0], unmeasured={0x06000001: "why"})
    cov = data.CoverageData()
    cov.add_module(a)
    cov.add_module(data.ModuleHits(MVID, PDB, "/a.dll", [(0x06000001, 0, 0)], [0]))
    assert cov.modules[(MVID, PDB)].unmeasured == {0x06000001: "why"}


def test_contexts_merge_by_name_across_processes():
    cov = data.CoverageData()
    sites = [(0x06000001, 0, 0), (0x06000001, 4, 0)]
    cov.add_module(data.ModuleHits(MVID, PDB, "/a.dll", list(sites), [1, 0], contexts={"N.C.A": {0}}))
    cov.add_module(data.ModuleHits(MVID, PDB, "/a.dll", list(sites), [1, 1], contexts={"N.C.A": {1}, "N.C.B": {0}}))
    (m,) = cov.modules.values()
    assert m.contexts == {"N.C.A": {0, 1}, "N.C.B": {0}}


def test_contexts_are_read_from_files_and_kept_by_combine(tmp_path):
    """Kinds 5 and 6 of two processes' files (ids numbered per file) merge by name, and combine writes them back."""
    for i, contexts in enumerate([{"N.C.A": [0]}, {"N.C.B": [2], "N.C.A": [1]}]):
        _native.write_data_file(str(tmp_path / f"dotcov.{i}.0000000{i}.cov"), {
            "processes": [], "modules": [{"mvid": MVID, "pdb_id": PDB, "path": "/a.dll", "tokens": [0x06000001] * 3,
                                          "offsets": [0, 1, 2], "kinds": [0, 0, 0], "hits": [1, 1, 1],
                                          "contexts": contexts}]})
    assert data.load(tmp_path).modules[(MVID, PDB)].contexts == {"N.C.A": {0, 1}, "N.C.B": {2}}
    combined = data.combine(tmp_path)
    assert [p.name.startswith("dotcov.combined.") for p in data.data_files(tmp_path)] == [True]
    assert combined.modules[(MVID, PDB)].contexts == {"N.C.A": {0, 1}, "N.C.B": {2}}
    assert data.load(tmp_path).modules[(MVID, PDB)].contexts == {"N.C.A": {0, 1}, "N.C.B": {2}}


def test_a_context_naming_a_site_out_of_range_is_refused(tmp_path):
    with pytest.raises(ValueError, match="out of range"):
        _native.write_data_file(str(tmp_path / "x.cov"), {
            "processes": [], "modules": [{"mvid": MVID, "pdb_id": PDB, "path": "/a.dll", "tokens": [0x06000001],
                                          "offsets": [0], "kinds": [0], "hits": [1], "contexts": {"N.C.A": [5]}}]})


def test_sites_read_from_a_file_when_needed_are_its_sites_and_digest_as_the_eager_ones(tmp_path):
    # ModuleHits.sites of a file read are made from its columns when first read (defer_sites); the digest a kept
    # plan is named by (plan_cache.cache_key) is the same before and after, and the same as a list given directly.
    tokens, offsets, kinds = [0x06000001, 0x06000001, 0x06000002], [0, 7, 3], [0, 0, 0]
    write(tmp_path / "dotcov.1.aaaaaaaa.cov", [4, 0, 1], tokens=tokens, offsets=offsets)
    module = data.load(tmp_path).modules[(MVID, PDB)]
    before = module.sites_digest()
    assert module.sites == list(zip(tokens, offsets, kinds))
    assert module.sites is module.sites  # (made once)
    assert module.sites_digest() == before
    eager = data.ModuleHits(MVID, PDB, "/src/bin/Calc.dll", list(zip(tokens, offsets, kinds)), [4, 0, 1])
    assert eager.sites_digest() == before
    other = data.ModuleHits(MVID, PDB, "/src/bin/Calc.dll", list(zip(tokens, [0, 7, 4], kinds)), [4, 0, 1])
    assert other.sites_digest() != before
    assert data.ModuleHits(MVID, PDB, "x", [], []).sites_digest() != before
    moved = data.ModuleHits(MVID, PDB, "x", list(zip(tokens[1:] + tokens[:1], offsets[1:] + offsets[:1], kinds)), [])
    assert moved.sites_digest() != before


def test_the_native_reader_says_why_a_path_cannot_be_read(tmp_path):
    # (read_data_file reads the file itself, into memory advised for huge pages: its errors are the OS's)
    import errno

    with pytest.raises(OSError) as missing:
        _native.read_data_file(str(tmp_path / "none.cov"))
    assert missing.value.errno == errno.ENOENT and missing.value.filename == str(tmp_path / "none.cov")
    with pytest.raises(OSError) as directory:
        _native.read_data_file(str(tmp_path))
    assert directory.value.errno == errno.EISDIR
    (tmp_path / "empty.cov").write_bytes(b"")
    with pytest.raises(ValueError, match="not a dotcov data file"):
        _native.read_data_file(str(tmp_path / "empty.cov"))


def test_a_small_data_file_is_read_without_a_fresh_mapping_each_time(tmp_path):
    # read_data_file reads a large file into memory advised for huge pages (a fresh 2 MiB-aligned mapping); a
    # small one (most per-process files `combine` reads) must not pay a new mapping, and a huge page zeroed, per
    # read: that made each small read 4-5x slower than reading into the heap, which reuses its memory.
    import resource

    path = write(tmp_path / "dotcov.1.aaaaaaaa.cov", list(range(300)), offsets=list(range(300)))
    assert path.stat().st_size < 64 << 10
    _native.read_data_file(str(path))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(400):
        _native.read_data_file(str(path))
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 200, f"{faults} page faults for 400 reads of a {path.stat().st_size}-byte file"


def agent_file(path: Path, hits: list[int], pid: int) -> Path:
    """A data file with an agent's identity: its header's pid and start time."""
    return write_full(path, [module(hits)], pid=pid, start_time_ns=1_700_000_000_000_000_000 + pid)


@pytest.mark.parametrize("steps", range(8))
def test_combine_interrupted_at_any_step_never_counts_an_input_twice(tmp_path, monkeypatch, steps):
    # A combined file (from an earlier run) and two new files; the combine dies after `steps` file-system
    # changes (the combined file's rename, then each removal): nothing after that happens, as on SIGKILL.
    agent_file(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0, 0], pid=1)
    data.combine(tmp_path)
    agent_file(tmp_path / "dotcov.2.bbbbbbbb.cov", [0, 2, 0], pid=2)
    agent_file(tmp_path / "dotcov.3.cccccccc.cov", [0, 0, 4], pid=3)
    done = []

    class Killed(BaseException):
        pass

    def step(real):
        def changed(*args, **kwargs):
            if len(done) >= steps:
                raise Killed
            done.append(args)
            return real(*args, **kwargs)
        return changed

    monkeypatch.setattr(data.os, "replace", step(data.os.replace))
    monkeypatch.setattr(Path, "unlink", step(Path.unlink))
    monkeypatch.setattr(Path, "rename", step(Path.rename))
    try:
        data.combine(tmp_path)
    except Killed:
        pass
    monkeypatch.undo()
    assert data.load(tmp_path).modules[(MVID, PDB)].hits == [1, 2, 4]
    data.combine(tmp_path)  # the next combine finishes the job
    assert [p.name[:len(data.COMBINED_PREFIX)] for p in data.data_files(tmp_path)] == [data.COMBINED_PREFIX]
    assert data.load(tmp_path).modules[(MVID, PDB)].hits == [1, 2, 4]
    assert not list(tmp_path.glob(".combine.*.tmp"))


def records(raw: bytes) -> list[tuple[int, int, int]]:
    """(kind, offset, size) of each record of a data file."""
    import struct

    out, at = [], 64
    while at + 16 <= len(raw):
        kind, _, size = struct.unpack_from("<IIQ", raw, at)
        if size == 0:
            break
        out.append((kind, at, size))
        at += size
    return out


def combined_with_every_record(tmp_path: Path) -> Path:
    """A combined file holding every kind of record: merged inputs, process, conflict, context, module with
    method states, note, context hits."""
    W = data.WHOLE_METHOD
    agent_file(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 0], pid=1)
    write_full(tmp_path / "dotcov.2.bbbbbbbb.cov",
               [{**module([3, 0], states=bytes([1, 2]), notes=[(0x06000002, W, W, "ReJIT failed")]),
                 "contexts": {"T.Test": [0]}}],
               conflicts=["coverlet"], pid=2, start_time_ns=2)
    data.combine(tmp_path)
    [combined] = data.data_files(tmp_path)
    assert {k for k, _, _ in records(combined.read_bytes())} == {1, 2, 3, 4, 5, 6, 7}
    return combined


@pytest.mark.parametrize("region", ["header", "merged inputs", "process", "conflict", "context", "module path",
                                    "module sites", "counters", "method states", "note", "context hits"])
def test_a_flipped_byte_in_any_region_of_a_combined_file_is_damage(tmp_path, region):
    combined = combined_with_every_record(tmp_path)
    good = combined.read_bytes()
    assert not data.load(tmp_path).damaged
    kind_of = {"merged inputs": 7, "process": 2, "conflict": 4, "context": 5, "note": 3, "context hits": 6}
    [(_, mod, size)] = [r for r in records(good) if r[0] == 1]
    counters_at = int.from_bytes(good[mod + 16 + 44:mod + 16 + 48], "little")
    states_at = int.from_bytes(good[mod + 16 + 52:mod + 16 + 56], "little")
    at = {"header": 20, "module path": mod + 16 + 56 + 3, "module sites": mod + counters_at - 8,
          "counters": mod + counters_at, "method states": mod + states_at + 1}.get(region)
    if at is None:
        _, rec, size = next(r for r in records(good) if r[0] == kind_of[region])
        at = rec + size - 8 if region != "context hits" else rec + 24
    bad = bytearray(good)
    bad[at] ^= 0x04
    combined.write_bytes(bytes(bad))
    cov = data.load(tmp_path)
    assert cov.damaged == [combined], cov.warnings
    assert any("fails its checksum" in w for w in cov.warnings), cov.warnings


def test_two_hundred_scrambled_bytes_in_the_middle_are_damage_not_different_numbers(tmp_path):
    import random

    write_full(tmp_path / "dotcov.1.aaaaaaaa.cov", [module([1, 0, 2, 0, 5] * 40)], pid=1, start_time_ns=1)
    data.combine(tmp_path)
    [combined] = data.data_files(tmp_path)
    raw = bytearray(combined.read_bytes())
    middle = len(raw) // 2
    raw[middle:middle + 200] = random.Random(25).randbytes(200)
    combined.write_bytes(bytes(raw))
    assert data.load(tmp_path).damaged == [combined]


def unsealed(raw: bytes) -> bytearray:
    """A sealed (combined) file made into what an agent writes: live counters and method states outside the
    checksums (docs/architecture.md, format 6)."""
    import zlib

    out = bytearray(raw)
    out[40:44] = (0).to_bytes(4, "little")
    out[44:48] = zlib.crc32(bytes(out[0:32] + out[40:44] + out[48:64])).to_bytes(4, "little")
    for kind, at, size in records(raw):
        covered = {1: int.from_bytes(out[at + 60:at + 64], "little"), 6: 20}.get(kind, size)
        crc = zlib.crc32(bytes(out[at + 8:at + covered]), zlib.crc32(bytes(out[at:at + 4]))) or 1
        out[at + 4:at + 8] = crc.to_bytes(4, "little")
    return out


def test_a_module_record_left_unwritten_by_a_killed_process_is_a_warning_not_damage(tmp_path):
    # The agent allocates a module record, writes it, then commits it; killed in between, the record stays
    # uncommitted. That module's code never ran with probes: no hit is lost, so the file is not damaged.
    other = {**module([0]), "mvid": b"o" * 16}
    f = write_full(tmp_path / "dotcov.1.aaaaaaaa.cov", [module([1, 2]), other], pid=1, start_time_ns=1)
    raw = unsealed(f.read_bytes())
    f.write_bytes(bytes(raw))
    assert data.load(tmp_path).warnings == []  # (the unsealed file reads whole)
    last = records(raw)[-1]
    assert last[0] == 1
    raw[last[1] + 4:last[1] + 8] = bytes(4)
    f.write_bytes(bytes(raw))
    cov = data.load(tmp_path)
    assert list(cov.modules) == [(MVID, PDB)] and cov.modules[(MVID, PDB)].hits == [1, 2]
    assert cov.damaged == []
    assert [w.split(": ", 1)[1] for w in cov.warnings] == [
        "skipped a record the process was writing when it ended (nothing was lost)"]
    data.combine(tmp_path)
    assert data.damaged_files(tmp_path) == []
    from dotcov.api import lost_data

    assert lost_data(data.load(tmp_path), tmp_path) == []


def test_every_damaged_copy_counts_as_lost_and_is_erased(tmp_path):
    from dotcov.api import lost_data

    for n in range(2):
        f = write(tmp_path / "dotcov.1.aaaaaaaa.cov", [1, 2])
        f.write_bytes(f.read_bytes()[:-4] + bytes([n]))
        data.combine(tmp_path)
    kept = [p.name for p in data.damaged_files(tmp_path)]
    assert kept == ["dotcov.1.aaaaaaaa.cov.damaged", "dotcov.1.aaaaaaaa.cov.damaged.1"]
    lost = lost_data(data.load(tmp_path), tmp_path)
    assert [x.split(": ", 1)[0] for x in lost] == [str(tmp_path / k) for k in kept]
    assert all("the part before it was merged" in x for x in lost)
    data.erase(tmp_path)
    assert [p.name for p in tmp_path.iterdir() if ".cov" in p.name] == []


def test_data_set_aside_by_a_run_that_was_killed_comes_back_unless_replaced(tmp_path):
    f = write(tmp_path / "dotcov.combined.a.cov", [1])
    aside = data.set_aside(tmp_path)
    assert not f.exists() and (aside / f.name).exists()
    # `dotcov run` killed before its command wrote anything: the next run puts the old data back first.
    aside = data.set_aside(tmp_path)
    assert (aside / f.name).exists()
    data.restore_aside(aside)
    assert f.exists() and not aside.exists()
    # Killed after its command wrote data: that data replaces what was set aside.
    data.set_aside(tmp_path)
    new = write(tmp_path / "dotcov.2.bbbbbbbb.cov", [5])
    aside = data.set_aside(tmp_path)
    assert [p.name for p in aside.iterdir()] == [new.name]
    data.erase(tmp_path)
    assert not aside.exists()


def test_an_attached_process_keeps_its_attach_time_through_combine_and_every_report_says_it(tmp_path):
    attached = 1795853121_600041155  # 2026-11-28 08:05:21 UTC
    _native.write_data_file(str(tmp_path / "dotcov.1.aaaaaaaa.cov"), {
        "processes": [{"command_line": "dotnet Api.dll", "cwd": "/srv", "attached_ns": attached}],
        "modules": [{"mvid": MVID, "pdb_id": PDB, "path": "/src/bin/Calc.dll", "tokens": [0x06000001],
                     "offsets": [0], "kinds": [0], "hits": [1]}],
    })
    write(tmp_path / "dotcov.2.bbbbbbbb.cov", [0], cmd="testhost")
    for _ in range(2):  # as written by the agent, then as combined
        cov = data.load(tmp_path)
        assert sorted((p["command_line"], p.get("attached_ns")) for p in cov.processes) == [
            ("dotnet Api.dll", attached), ("testhost", None)]
        assert data.attach_notes(cov) == [
            "process `dotnet Api.dll` was attached at 2026-11-28 08:05:21 UTC: what it ran before then is not "
            "counted, nor what a method already running then ran until it was called again"]
        data.combine(tmp_path)
