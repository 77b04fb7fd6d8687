"""A module's branch analysis (plan.branch_rows: branches.analyse, about half of a cold plan's time) in a worker
process, while plan.make_plan makes the rest of the plan on the other core.

The worker is a fresh interpreter (`python -m dotcov.plan_worker`), not a fork: after a fork, every page of the
report's process that either side then writes (a reference count is a write) is copied on first touch, and at a
million statements the report's process spent as much CPU with a forked child as without one (docs/benchmarks.md,
"The cold plan").
It gets what branch_rows reads that is not in the files: the branch-like counters (kind >= 1, with their
indexes: the sequence points' counters are never read) and the path mapper; it reads the assembly's symbols and
IL itself, checks the symbols are the ones the parent read (MVID and PDB id), and answers with the rows as
`marshal` bytes. When it cannot be started, fails, or answers anything else, `result()` computes the rows in
the caller, so the caller gets the very rows, or exception, a serial run gives.
"""

from __future__ import annotations

import marshal
import os
import pickle
import subprocess
import sys
import threading
from itertools import compress
from operator import itemgetter
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

__all__ = ["BranchWorker"]

_OK = b"\x01"


class BranchWorker:
    """plan.branch_rows of one module, computed by a worker process when `start` is true (else by result())."""

    def __init__(self, serial: Callable[[], list], module, sym, mapper, *, start: bool = True) -> None:
        self._serial = serial
        self._proc = None
        self._answer: tuple[bytes, bytes] | BaseException | None = None
        self._thread = None
        if not start or not sys.executable or os.environ.get("DOTCOV_NO_WORKERS"):
            return
        raw = sym.raw
        index = list(compress(range(len(module.sites)), map(itemgetter(2), module.sites)))  # (kind >= 1)
        sites = list(map(module.sites.__getitem__, index))
        job = (mapper.map(module.path), module.path, raw["mvid"], raw["pdb_id"], sites, index, mapper)
        try:
            payload = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - e.g. a mapper that cannot be pickled: no worker
            return
        package_parent = str(Path(__file__).resolve().parents[1])  # this dotcov, whatever sys.path says
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "dotcov.plan_worker"], env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return
        # communicate() writes the job and reads the answer without holding the GIL: the caller goes on.
        self._thread = threading.Thread(target=self._talk, args=(payload,), daemon=True)
        self._thread.start()

    def _talk(self, payload: bytes) -> None:
        try:
            self._answer = self._proc.communicate(payload)
        except BaseException as e:  # noqa: BLE001 - result() falls back to the serial rows
            self._answer = e

    @property
    def started(self) -> bool:
        return self._proc is not None

    def result(self) -> list:
        """The rows: the worker's, or the serial function's when there was no worker or it failed."""
        if self._proc is None:
            return self._serial()
        self._thread.join()
        proc, answer, self._proc = self._proc, self._answer, None
        if not isinstance(answer, BaseException) and proc.returncode == 0 and answer[0][:1] == _OK:
            try:
                return marshal.loads(memoryview(answer[0])[1:])
            except (EOFError, ValueError, TypeError):
                pass
        return self._serial()

    def close(self) -> None:
        """Stops the worker if result() was not called (the caller failed first)."""
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.kill()
        self._thread.join()
        self._proc = None


def main() -> None:
    import gc

    gc.disable()  # (as api._no_gc: millions of objects kept, none freed)
    assembly, module_path, mvid, pdb_id, sites, index, mapper = pickle.load(sys.stdin.buffer)
    from dotcov import _native, hit_exprs
    from dotcov.plan import branch_rows
    from dotcov.results import Symbols

    raw = _native.read_symbols(assembly)
    if raw["mvid"] != mvid or raw["pdb_id"] != pdb_id:
        sys.exit(1)  # rebuilt since the parent read it: the parent computes the rows itself
    module = SimpleNamespace(path=module_path, sites=sites, hits=None)
    rows = branch_rows(module, Symbols(raw), mapper, hits=[hit_exprs.Site(i) for i in index])
    sys.stdout.buffer.write(_OK + marshal.dumps(rows))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
