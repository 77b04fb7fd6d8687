"""A module's branch analysis (plan.branch_rows: branches.analyse, about half of a cold plan's time) shared between
a worker process and the report's process, so that both cores work on the cold plan's longest step.

The worker is a fresh interpreter (`python -m dotcov.analysis.plans.worker`), not a fork: after a fork, every page of the
report's process that either side then writes (a reference count is a write) is copied on first touch, and at a
million statements the report's process spent as much CPU with a forked child as without one (docs/benchmarks.md,
"The cold plan").

It starts as soon as the module's counters are known (results.build starts it before reading the symbols), with
a compact job: the branch-like counters (kind >= 1; the sequence points' are never read), as int64 array bytes
ordered by method, their indexes, the path mapper, and chunk bounds that cut them into runs of whole methods.
It reads the assembly's symbols and IL itself and checks they are the build the data file names (MVID and PDB
id, as results.load_symbols checks the parent's). Then both sides take chunks: the worker from the first method
up, the parent (once the rest of its plan is made) from the last one down, until they meet; so both finish
together whatever each one's speed. Records are per method, in method order, so the chunks' rows concatenated
are the rows of one serial branch_rows.

When the worker cannot be started, fails, or answers anything else, the parent computes the chunks it is missing;
when the parent's own chunk raises, it runs the serial branch_rows, so the caller gets the very rows, or
exception, a serial run gives.

Protocol (worker -> parent): b"C" claims the next chunk (sent one chunk ahead, so the worker never waits);
b"R" + 8-byte length + marshal bytes answers the oldest chunk granted. Parent -> worker: the pickled job, then one
byte per claim: 1 granted, 0 refused (the worker then answers what it holds and exits).
"""

from __future__ import annotations

import marshal
import os
import pickle
import subprocess
import sys
import threading
from array import array
from itertools import compress, repeat
from operator import itemgetter, rshift
from pathlib import Path
from types import SimpleNamespace

__all__ = ["BranchWorker", "chunk_bounds"]

CHUNKS = 48  # enough that the last chunk either side takes is short; few enough that claims cost nothing
_GRANT, _REFUSE = b"\x01", b"\x00"
STALL_SECONDS = 60.0  # a worker that answers no chunk for this long, once this process has done its share, is stopped


def chunk_bounds(tokens: list[int], chunks: int | None = None) -> list[int]:
    """Cuts `tokens` (the branch counters' method tokens, ordered by method) into at most `chunks` runs of about
    equal counts (branches.analyse's cost grows with them), each of whole methods: the runs' start positions and
    len(tokens)."""
    chunks = chunks or CHUNKS
    bounds = [0]
    n = len(tokens)
    for c in range(1, chunks):
        at = max(bounds[-1], c * n // chunks)
        while 0 < at < n and tokens[at] & 0x00FFFFFF == tokens[at - 1] & 0x00FFFFFF:
            at += 1  # (never between two counters of one method)
        if bounds[-1] < at < n:
            bounds.append(at)
    bounds.append(n)
    return bounds if n else [0]


class BranchWorker:
    """plan.branch_rows of one module, shared with a worker process when `start` is true (else computed by
    result() alone)."""

    def __init__(self, module, mapper, *, start: bool = True) -> None:
        self._module, self._mapper = module, mapper
        self._proc = None
        self._thread = None
        if not start or not sys.executable or os.environ.get("DOTCOV_NO_WORKERS"):
            return
        # (the columns, not the site tuples: a million of those take half a second to make)
        columns = getattr(module, "site_columns", None)
        tokens, offsets, kinds = columns() if columns else (list(map(itemgetter(i), module.sites)) for i in range(3))
        index = list(compress(range(len(kinds)), kinds))  # (kind >= 1)
        if not index:
            return  # no branches: nothing to share
        # By method (stable: each method's in their order); when the tokens are of one table (MethodDef: always the
        # agent's), ordering by the token is ordering by its row, and the key is C code.
        if len(set(map(rshift, map(tokens.__getitem__, index), repeat(24)))) == 1:
            index.sort(key=tokens.__getitem__)
        else:
            index.sort(key=lambda i: tokens[i] & 0x00FFFFFF)
        self._index = index
        self._bounds = chunk_bounds(list(map(tokens.__getitem__, index)))
        try:
            flat = array("q", bytes(24 * len(index)))  # (token, offset, kind) per branch counter
            for k, column in enumerate((tokens, offsets, kinds)):
                flat[k::3] = array("q", map(column.__getitem__, index))
            flat = flat.tobytes()
            job = pickle.dumps((mapper.map(module.path), module.path, module.mvid, module.pdb_id, mapper, flat,
                                array("q", index).tobytes(), self._bounds),
                               protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a value beyond int64, a mapper that cannot be pickled: no worker
            return
        # This dotcov, whatever sys.path says; -P: no working directory first on it (a `dotcov` or `json` there would
        # be imported instead).
        package_parent = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
        try:
            self._proc = subprocess.Popen([sys.executable, "-P", "-m", "dotcov.analysis.plans.worker"], env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return
        n = len(self._bounds) - 1
        self._lock = threading.Condition()
        self._low, self._high = 0, n  # the worker has been granted chunks [0, low); the parent takes [high, n)
        self._answers: list[bytes] = []  # the worker's answers to chunks 0, 1, ... in order
        self._done = False  # the worker's stream ended (or failed)
        # The thread writes the job and serves the claims without holding the GIL while it waits: the caller goes on.
        self._thread = threading.Thread(target=self._talk, args=(self._proc, job), daemon=True)
        self._thread.start()

    @property
    def started(self) -> bool:
        return self._proc is not None

    @property
    def shares(self) -> tuple[int, int, int]:
        """(chunks, how many the worker was granted, how many this process took) so far."""
        if self._thread is None:
            return (0, 0, 0)
        with self._lock:
            n = len(self._bounds) - 1
            return (n, self._low, n - self._high)

    def _talk(self, proc: subprocess.Popen, job: bytes) -> None:
        try:
            proc.stdin.write(job)
            proc.stdin.flush()
            read = proc.stdout.read
            while True:
                kind = read(1)
                if kind == b"C":
                    with self._lock:
                        granted = self._low < self._high
                        self._low += granted
                    proc.stdin.write(_GRANT if granted else _REFUSE)
                    proc.stdin.flush()
                elif kind == b"R":
                    size = int.from_bytes(read(8), "little")
                    answer = read(size)
                    if len(answer) != size:
                        break
                    with self._lock:
                        self._answers.append(answer)
                        self._lock.notify_all()
                else:
                    break  # end of the stream, or not the protocol
        except BaseException:  # noqa: BLE001 - result() computes what the worker did not answer
            pass
        finally:
            with self._lock:
                self._done = True
                self._lock.notify_all()

    def result(self, sym) -> list:
        """The rows: the worker's chunks and the parent's (`sym`: the symbols this process read), or the serial
        branch_rows' when there was no worker or a chunk here failed."""
        from dotcov.analysis.branches.analyse import branch_rows

        module, mapper = self._module, self._mapper
        if self._proc is None:
            return branch_rows(module, sym, mapper)
        try:
            rows = self._share(sym)
        except Exception:  # noqa: BLE001 - the serial run gives the rows, or its own exception
            rows = None
        self.close()
        return branch_rows(module, sym, mapper) if rows is None else rows

    def _share(self, sym) -> list:
        from dotcov import _native
        from dotcov.analysis.branches.analyse import branch_rows

        module, mapper, index, bounds = self._module, self._mapper, self._index, self._bounds
        bodies = None

        def rows_of(c: int) -> list:
            nonlocal bodies
            if bodies is None:  # (once, not once per chunk; not at all when the worker answers every chunk)
                try:
                    bodies = _native.read_method_bodies(mapper.map(module.path))
                except (OSError, ValueError):
                    bodies = {}
            part = index[bounds[c]:bounds[c + 1]]
            sub = SimpleNamespace(path=module.path, sites=list(map(module.sites.__getitem__, part)), hits=None)
            return branch_rows(sub, sym, mapper, hits=_sites(part), bodies=bodies)

        n = len(bounds) - 1
        mine: dict[int, list] = {}
        while True:
            with self._lock:
                if self._high <= self._low:
                    break
                self._high -= 1
                c = self._high
            mine[c] = rows_of(c)
        with self._lock:  # the chunks the worker was granted: answered, or the worker ended or stalled
            seen = len(self._answers)
            while len(self._answers) < self._low and not self._done:
                if not self._lock.wait(STALL_SECONDS) and len(self._answers) == seen:
                    break  # (its chunks are computed here; result() stops it)
                seen = len(self._answers)
            answers, granted = self._answers[:self._low], self._low
        out: list = []
        for c in range(n):
            if c >= granted:
                out += mine[c]
                continue
            got = None
            if c < len(answers):
                try:
                    got = marshal.loads(answers[c])
                except (EOFError, ValueError, TypeError):
                    got = None
            out += got if type(got) is list else rows_of(c)  # (a chunk the worker did not answer: here)
        return out

    def close(self) -> None:
        """Stops the worker (its chunks are all answered, or result() was not called: the caller failed first)."""
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._thread.join(5)  # (the end of its output ends the thread; a stray child holding that open cannot hang us)
        if self._thread.is_alive():
            return  # (its pipes are closed when the thread ends: closing a file being read would wait for it)
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass


def _sites(indexes) -> list:
    from dotcov.analysis.hit_exprs import Site

    return list(map(Site, indexes))


def main() -> None:
    import gc

    gc.disable()  # (as api._no_gc: millions of objects kept, none freed)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    assembly, module_path, mvid, pdb_id, mapper, flat, index, bounds = pickle.load(stdin)
    from dotcov import _native
    from dotcov.analysis.branches.analyse import branch_rows
    from dotcov.analysis.symbols import Symbols

    raw = _native.read_symbols(assembly)
    if raw["mvid"] != mvid or raw["pdb_id"] != pdb_id:
        sys.exit(1)  # rebuilt since the coverage run: the parent reports it, or computes the rows itself
    sym = Symbols(raw)
    try:
        bodies = _native.read_method_bodies(assembly)
    except (OSError, ValueError):
        bodies = {}
    values = array("q")
    values.frombytes(flat)
    sites = list(zip(values[0::3], values[1::3], values[2::3]))
    positions = array("q")
    positions.frombytes(index)

    def claim() -> bool:
        stdout.write(b"C")
        stdout.flush()
        return stdin.read(1) == _GRANT

    c, holding = 0, claim()
    while holding and c < len(bounds) - 1:
        stdout.write(b"C")  # (the next one, claimed while this one is computed)
        stdout.flush()
        lo, hi = bounds[c], bounds[c + 1]
        sub = SimpleNamespace(path=module_path, sites=sites[lo:hi], hits=None)
        rows = marshal.dumps(branch_rows(sub, sym, mapper, hits=_sites(positions[lo:hi]), bodies=bodies))
        stdout.write(b"R" + len(rows).to_bytes(8, "little") + rows)
        stdout.flush()
        c, holding = c + 1, stdin.read(1) == _GRANT


if __name__ == "__main__":
    main()
