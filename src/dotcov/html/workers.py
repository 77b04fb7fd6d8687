"""The HTML report's page workers: processes that write the file pages while the report's process makes the
rest (search index, method pages, index).

A worker is a fresh interpreter (`python -m dotcov.html.page_worker`), not a fork of the report's process. At a
million statements that process holds about 1 GiB of model; after a fork, every page of it that either side
then writes (a reference count is a write) is copied on the first touch, and on this machine that made the
pages cost more CPU in two processes than in one (docs/benchmarks.md, "The HTML writer's own time"). A worker
gets only its pages' data (html.PageJob: plain values, no model objects; each packed by html.job_blob and
unpacked just before its page) as a pickle on stdin, and answers on stdout with how many pages it wrote and how
many sources' colours it added to the cache (html_cache.py), or the exception that stopped it (re-raised in the
report's process).
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

__all__ = ["Workers", "start", "start_early", "start_early_for_data", "drop_early", "default_count"]


class Workers:
    """Page workers, started before their pages are known (`start`): each interpreter loads the page code while
    the report's process collects the files. `send()` hands each its pages; `finish()` waits for them, re-raises
    what stopped one and returns how many sources' colours they added to the cache; `abort()` stops them."""

    def __init__(self, procs: list[subprocess.Popen]):
        self._procs = procs
        self._results: list[tuple[bytes, bytes] | BaseException | None] = [None] * len(procs)
        self._expected = 0
        self._threads: list[threading.Thread] = []

    def __len__(self) -> int:
        return len(self._procs)

    def send(self, directory: str, shares: list[list], common: dict, cache_dir: str | None = None) -> None:
        """Hands worker i `shares[i]` (html.job_blob's bytes, or html.PageJobs) to write into `directory`,
        keeping sources' colours in `cache_dir` (html_cache.py) when given; a worker without a share writes
        nothing."""
        shares = [*shares, *([[]] * (len(self._procs) - len(shares)))]
        if len(shares) != len(self._procs):
            raise ValueError(f"{len(shares)} shares for {len(self._procs)} page workers")
        self._expected = sum(len(s) for s in shares)
        payloads = [pickle.dumps((directory, share, common, cache_dir), protocol=pickle.HIGHEST_PROTOCOL)
                    for share in shares]
        # communicate() writes the payload and reads the answer without holding the GIL: the report's
        # process goes on with its own work meanwhile.
        self._threads = [threading.Thread(target=self._talk, args=(i, data), daemon=True)
                         for i, data in enumerate(payloads)]
        for t in self._threads:
            t.start()

    def _talk(self, i: int, data: bytes) -> None:
        try:
            self._results[i] = self._procs[i].communicate(data)
        except BaseException as e:  # noqa: BLE001 - handed to finish()
            self._results[i] = e

    def finish(self) -> int:
        if not self._threads:
            raise RuntimeError("the HTML page workers were given no pages")
        for t in self._threads:
            t.join()
        written = added = 0
        for proc, result in zip(self._procs, self._results):
            if isinstance(result, BaseException):
                raise result
            out, err = result
            answer = _answer(out)
            if isinstance(answer, BaseException):
                raise answer
            if (proc.returncode != 0 or not isinstance(answer, tuple) or len(answer) != 2
                    or not all(isinstance(n, int) for n in answer)):
                detail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
                raise RuntimeError(f"an HTML page worker failed: {detail[0]}")
            written += answer[0]
            added += answer[1]
        if written != self._expected:
            raise RuntimeError(f"the HTML page workers wrote {written} pages of {self._expected}")
        return added

    def abort(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
        for t in self._threads:
            t.join()
        for proc in self._procs:  # (those never sent anything are not reaped by communicate)
            proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None and not stream.closed:
                    stream.close()


def _answer(out: bytes):
    try:
        return pickle.loads(out) if out else None
    except Exception:  # noqa: BLE001 - a worker that died mid-answer
        return None


def default_count() -> int:
    """How many page workers a large report uses (html.write_html; a small one writes its pages itself)."""
    return min(4, os.cpu_count() or 1)


# Workers started before their report is known (start_early), taken by the next `start`.
_early: list[subprocess.Popen] = []


def start_early(count: int) -> None:
    """Starts `count` page workers now for a report still to come: `dotcov html` starts them before it builds
    the model, whose one thread leaves the other CPUs idle meanwhile, so their interpreters start and load the
    page code there (about 0.3 s of CPU each). The next `start` takes them; `drop_early` stops those it does
    not take (write_html when it needs none, and at exit)."""
    if count < 1 or _early:
        return
    try:
        _early.extend(_spawn(count))
    except OSError:
        drop_early()
        return
    atexit.unregister(drop_early)  # (registered once)
    atexit.register(drop_early)


def start_early_for_data(data_dir: str | os.PathLike) -> None:
    """`start_early` when the data in `data_dir` is large enough that its report will likely have the 200
    files that make write_html use workers (EARLY_DATA_BYTES: 140,000 statements in 100 files are 3.2 MB of
    data; 1M in 715 files, 22 MB)."""
    from dotcov.data.datafiles import data_files

    if default_count() < 2:
        return
    try:
        size = sum(p.stat().st_size for p in data_files(Path(data_dir)))
    except OSError:
        return
    if size >= EARLY_DATA_BYTES:
        start_early(default_count())


EARLY_DATA_BYTES = 8 << 20


def drop_early() -> None:
    """Stops the workers `start_early` started that no report took."""
    procs = _early[:]
    _early.clear()
    if procs:
        Workers(procs).abort()


def start(count: int) -> Workers | None:
    """Starts `count` page workers (taking those `start_early` started first), each waiting for its pages
    (Workers.send); None when no interpreter can be started (the caller then writes the pages itself)."""
    alive = [p for p in _early if p.poll() is None]  # (one that died meanwhile is replaced)
    procs = alive[:count]
    for p in procs:
        _early.remove(p)
    drop_early()
    try:
        procs += _spawn(count - len(procs))
    except OSError:
        Workers(procs).abort()
        return None
    return Workers(procs)


def _spawn(count: int) -> list[subprocess.Popen]:
    """`count` fresh worker interpreters (raises OSError, having stopped those it started, when one cannot
    start)."""
    if count <= 0:
        return []
    if not sys.executable:
        raise OSError("no Python interpreter to start page workers with")
    # This dotcov, whatever sys.path the worker gets; -P: no working directory first on it (a `dotcov` or `json`
    # there would be imported instead).
    package_parent = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    # A page's strings (its rows, the encoded page: ~300 KB each) are freed after every page. glibc then gives
    # the top of the heap back to the system, and the next page faults it in again, page by page: on this
    # machine (a VM) that was a third of a worker's time. A 64 MiB top pad keeps it (glibc's own setting,
    # ignored elsewhere; the user's own value wins).
    env.setdefault("MALLOC_TOP_PAD_", str(64 << 20))
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            procs.append(subprocess.Popen([sys.executable, "-P", "-m", "dotcov.html.page_worker"], env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    except OSError:
        Workers(procs).abort()
        raise
    return procs
