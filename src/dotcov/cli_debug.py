"""`dotcov debug`: diagnostics for dotcov's own machinery (not for coverage users)."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

_ASSEMBLY_SUFFIXES = (".dll", ".exe")


@click.group()
def debug():
    """Diagnostics of dotcov itself."""


def _assemblies(paths) -> list[Path]:
    """Files given directly, plus every *.dll / *.exe below the given folders (sorted, each once)."""
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)

    for path in paths:
        path = Path(path)
        if path.is_dir():
            found = []
            for root, dirs, files in os.walk(path):
                dirs.sort()
                found.extend(Path(root) / f for f in files if f.lower().endswith(_ASSEMBLY_SUFFIXES))
            for f in sorted(found):
                add(f)
        else:
            add(path)
    return out


def _check(path: Path):
    from dotcov import _native

    try:
        return path, _native.rewrite_check(str(path)), None
    except (ValueError, OSError) as e:
        return path, None, str(e)


@debug.command("rewrite-check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Assemblies checked in parallel (default: CPU count).")
def rewrite_check(paths, jobs):
    """Instrument every method body of the assemblies in PATHS (files or folders) with a probe at
    every legal IL offset, without running anything, and check that each rewritten body is the
    original one plus the probes: unchanged re-encoding is byte-identical, instructions, branch
    targets and exception regions map onto the rewritten code, and the result verifies.

    Prints each failure as `ASSEMBLY 0xTOKEN: reason` and ends with `N methods, M failures`;
    exits 1 if there is any failure.
    """
    files = _assemblies(paths)
    methods = failures = assemblies = skipped = unreadable = 0
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        for path, result, error in pool.map(_check, files):
            if error is not None:
                unreadable += 1
                click.echo(f"dotcov: cannot check {path}: {error}", err=True)
                continue
            if not result["managed"]:
                skipped += 1
                continue
            assemblies += 1
            methods += result["methods"]
            for token, reason in result["failures"]:
                failures += 1
                click.echo(f"{path} 0x{token:08X}: {reason}")
    click.echo(f"{assemblies} assemblies checked, {skipped} non-managed files skipped, {unreadable} unreadable")
    click.echo(f"{methods} methods, {failures} failures")
    sys.exit(1 if failures else 0)
