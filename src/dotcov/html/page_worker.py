"""One HTML page worker's process (started by workers.py): reads its pages' jobs on stdin, writes the pages, and
answers on stdout with (pages written, sources' colours added to the cache) or the exception that stopped it."""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    from dotcov.html import report as html  # first: loaded while the report's process is still collecting the pages

    directory, jobs, common, cache_dir = pickle.load(sys.stdin.buffer)
    try:
        answer = (len(jobs), html.write_pages(directory, jobs, common, cache_dir))
    except Exception as e:  # noqa: BLE001 - re-raised in the report's process
        answer = e
    try:
        data = pickle.dumps(answer)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled
        data = pickle.dumps(RuntimeError(f"an HTML page worker failed: {answer!r}"))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
