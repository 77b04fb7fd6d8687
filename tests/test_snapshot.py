"""`dotcov snapshot`: a frozen copy of the data of running processes, without stopping them (issue 28)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.data import datafiles as data

MVID = b"m" * 16
PDB = b"p" * 20


def agent_file(path: Path, hits: list[int], pid: int) -> Path:
    """A data file as an agent writes it, with its identity (pid, start time)."""
    _native.write_data_file(str(path), {
        "pid": pid, "start_time_ns": 1_700_000_000_000_000_000 + pid,
        "processes": [{"command_line": "dotnet Service.dll", "cwd": "/src"}],
        "modules": [{"mvid": MVID, "pdb_id": PDB, "path": "/src/bin/Service.dll", "tokens": [0x06000001] * len(hits),
                     "offsets": list(range(len(hits))), "kinds": [0] * len(hits), "hits": hits}]})
    return path


def count_more(path: Path, hits: list[int], pid: int) -> None:
    """The running process counts on: the same file (inode, lock) holds new counts."""
    fresh = agent_file(path.with_name("fresh.tmp"), hits, pid)
    with open(path, "r+b") as f:
        f.write(fresh.read_bytes())
    fresh.unlink()


@pytest.fixture
def running(tmp_path):
    """DATA_DIR holding a finished process's file and one whose process still runs (it holds the file's lock)."""
    d = tmp_path / "data"
    d.mkdir()
    agent_file(d / "dotcov.1.aaaaaaaa.cov", [1, 0, 0], pid=1)
    live = agent_file(d / "dotcov.2.bbbbbbbb.cov", [0, 2, 0], pid=2)
    holder = os.open(live, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # as the agent holds it for its process's life
    yield d, live
    os.close(holder)


def hits(directory: Path) -> list[int]:
    return data.load(directory).modules[(MVID, PDB)].hits


def test_snapshots_are_frozen_copies_and_a_later_one_has_the_new_counts(tmp_path, running):
    d, live = running
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    cov, first = data.snapshot(d, tmp_path / "s1")
    assert cov.live == [live]
    assert {p.name: p.read_bytes() for p in d.iterdir() if p.name != data.LOCK_NAME} == before  # untouched
    assert data.data_files(tmp_path / "s1") == [first] and first.name.startswith(data.COMBINED_PREFIX)
    assert hits(tmp_path / "s1") == [1, 2, 0]

    count_more(live, [0, 5, 1], pid=2)
    data.snapshot(d, tmp_path / "s2")
    assert hits(tmp_path / "s2") == [1, 5, 1]
    assert hits(tmp_path / "s1") == [1, 2, 0]  # the first one stays as it was
    assert hits(d) == [1, 5, 1]  # and the data directory reads as before


def test_a_snapshot_combines_with_other_data_and_never_counts_its_sources_twice(tmp_path, running):
    d, live = running
    _, snap = data.snapshot(d, tmp_path / "s")
    other = agent_file(tmp_path / "s" / "dotcov.3.cccccccc.cov", [0, 0, 7], pid=3)  # e.g. another service's data
    assert hits(tmp_path / "s") == [1, 2, 7]
    other.unlink()
    # Copied back beside the files it was taken from, it stands for them (each counted once: its counts).
    (d / snap.name).write_bytes(snap.read_bytes())
    assert hits(d) == [1, 2, 0]


def test_the_default_directory_is_new_under_data_dir_snapshots(running):
    d, _ = running
    first, second = data.snapshot_dir(d), None
    data.snapshot(d, first)
    second = data.snapshot_dir(d)
    assert first.parent == second.parent == d / data.SNAPSHOTS_DIR and first != second and not second.exists()
    assert data.data_files(d) == sorted(d.glob("dotcov.*.cov"))  # (a subdirectory: no data file of DATA_DIR)


def test_refusals(tmp_path, running):
    d, _ = running
    with pytest.raises(data.DataError, match="is the data directory itself"):
        data.snapshot(d, d)
    data.snapshot(d, tmp_path / "s")
    with pytest.raises(data.DataError, match="already holds coverage data"):
        data.snapshot(d, tmp_path / "s")
    (tmp_path / "empty").mkdir()
    with pytest.raises(data.DataError, match="no coverage data in"):
        data.snapshot(tmp_path / "empty", tmp_path / "s2")
    (d / "dotcov.4.dddddddd.cov").write_bytes(b"DOTCOVD\x1a" + b"\x06" * 40)  # cut short
    with pytest.raises(data.DataError, match="no snapshot was written: data could not be read whole from .*dddd"):
        data.snapshot(d, tmp_path / "s3")
    assert not (tmp_path / "s3").exists()
    data.snapshot(d, tmp_path / "s3", ignore_errors=True)
    assert hits(tmp_path / "s3") == [1, 2, 0]


def dotcov(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, capture_output=True, text=True)


def test_the_command_says_where_it_wrote_and_fails_clearly(tmp_path, running):
    d, _ = running
    r = dotcov("snapshot", "--data-dir", str(d), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [out] = (d / data.SNAPSHOTS_DIR).iterdir()
    [written] = data.data_files(out)
    assert r.stdout.splitlines() == [f"Snapshot of 2 data file(s) (1 of running processes) written to {written}",
                                     f"Report it with: dotcov report --data-dir {out}"]
    r = dotcov("snapshot", "--data-dir", str(d), "-o", str(out), cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == f"dotcov: {out} already holds coverage data; a snapshot goes into a new or empty directory\n"
    r = dotcov("snapshot", "--data-dir", str(tmp_path / "none"), cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, f"dotcov: no coverage data in {tmp_path / 'none'}\n")
