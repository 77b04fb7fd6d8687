"""`dotcov debug`: diagnostics for dotcov's own machinery (not for coverage users)."""

from __future__ import annotations

import os
import sys
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


_PROBE_STYLES = ("inline", "call", "atomic")


def _check(path: Path, probe_styles: list[str]):
    from dotcov import _native

    try:
        return path, _native.rewrite_check(str(path), probe_styles), None
    except (ValueError, OSError) as e:
        return path, None, str(e)


@debug.command("rewrite-check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Assemblies checked in parallel (default: CPU count).")
@click.option("--probes", "probe_styles", type=click.Choice(_PROBE_STYLES + ("all",)), default="all", show_default=True,
              help="Probe style to instrument with: the inline increment (the agent's default), the helper call, "
                   "the atomic increment (DOTCOV_EXACT_COUNTS=1), or all three.")
def rewrite_check(paths, jobs, probe_styles):
    """Instrument every method body of the assemblies in PATHS (files or folders) with a probe at
    every legal IL offset and on every branch outcome, in each probe style, without running
    anything, and check that each rewritten body is the original one plus the probes: unchanged
    re-encoding is byte-identical, instructions, branch targets and exception regions map onto the
    rewritten code, the IL offset map translates every rewritten offset back to its instruction,
    and the result verifies.

    Prints each failure as `ASSEMBLY 0xTOKEN: reason` and ends with `N methods, M failures`;
    exits 1 if there is any failure.
    """
    from concurrent.futures import ThreadPoolExecutor  # here: every other command's start-up skips it

    files = _assemblies(paths)
    methods = failures = assemblies = skipped = unreadable = 0
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        styles = list(_PROBE_STYLES) if probe_styles == "all" else [probe_styles]
        for path, result, error in pool.map(lambda p: _check(p, styles), files):
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


def _data_dir(data_dir: Path | None) -> Path:
    from dotcov.cli.config import ConfigError, load_config

    try:
        cfg = load_config()
    except ConfigError as e:
        click.echo(f"dotcov: {e}", err=True)
        sys.exit(1)
    from dotcov.cli.settings import data_dir as resolve

    return resolve(data_dir or os.environ.get("DOTCOV_DATA_DIR"), cfg)


_data_dir_option = click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                                help="Directory of the coverage data files (default as for the other commands).")


@debug.command("info")
@_data_dir_option
def info(data_dir):
    """dotcov's settings: versions, agent, configuration, data directory, profiler variables."""
    import platform

    from dotcov import __version__, _native
    from dotcov.measure.agent import CLSID, PROFILER_VARIABLES, AgentError, agent_path
    from dotcov.cli.config import find_config

    try:
        agent = str(agent_path())
    except AgentError as e:
        agent = f"MISSING ({e})"
    rows = [
        ("dotcov", __version__),
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("agent", agent),
        ("agent CLSID", CLSID),
        ("data format version", str(_native.DATA_FORMAT_VERSION)),
        ("config file", str(find_config(Path.cwd()) or "none (dotcov.toml not found from here upward)")),
        ("data directory", str(_data_dir(data_dir))),
        ("source root (dotcov run)", str(Path.cwd())),
    ]
    for name in (*PROFILER_VARIABLES, "DOTCOV_DATA_DIR", "DOTCOV_LOG", "DOTCOV_STRESS_ALL_METHODS",
                 "DOTCOV_EXACT_COUNTS", "DOTNET_ENABLE_PROFILING", "DOTNET_EnableDiagnostics"):
        if name in os.environ:
            rows.append((f"env {name}", os.environ[name]))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k:>{width}}: {v}")


@debug.command("data")
@_data_dir_option
def data_command(data_dir):
    """Which processes wrote data, which modules they covered, and whether each can still be reported."""
    from dotcov.data import datafiles as data_mod
    from dotcov.analysis.results import SymbolsError, load_symbols

    directory = _data_dir(data_dir)
    files = data_mod.data_files(directory)
    click.echo(f"data directory: {directory} ({len(files)} data file(s))")
    cov = data_mod.load(directory)
    for w in cov.warnings:
        click.echo(f"warning: {w}")
    click.echo(f"processes: {len(cov.processes)}")
    for p in cov.processes:
        attached = f", attached at {data_mod.attach_time(p)}" if p.get("attached_ns") else ""
        click.echo(f"  {p['command_line']}  (in {p['cwd']}{attached})")
    click.echo(f"modules: {len(cov.modules)}")
    unclassified = _unclassified(cov, directory)
    for m in sorted(cov.modules.values(), key=lambda m: m.path):
        points = sum(1 for s in m.sites if s[2] == 0)
        hit = sum(1 for s, h in zip(m.sites, m.hits) if s[2] == 0 and h)
        branches = len(m.sites) - points
        raw = None
        try:
            raw = load_symbols(m).raw
            state = "reportable"
        except SymbolsError as e:
            state = f"NOT reportable: {e}"
        click.echo(f"  {m.path}\n    mvid {m.mvid.hex()}  {points} sequence points, {hit} hit; {branches} branch "
                   f"outcomes; {m.processes} process(es); {state}")
        if m.unmeasured:
            click.echo(f"    not measured (the agent could not instrument them): {len(m.unmeasured)} method(s)")
        for token, reason in sorted(m.unmeasured.items()):
            click.echo(f"      0x{token:08X} {_method_name(raw, token)}: {reason}")
        for (token, offset, kind), reason in sorted(m.unmeasured_sites.items()):
            what = "sequence point" if kind == 0 else "branch outcome"
            click.echo(f"      0x{token:08X} {_method_name(raw, token)} {what} at IL_{offset:04X} not measured: "
                       f"{reason}")
        mine = [u for u in unclassified if u[0] == m.path]
        if mine:
            click.echo(f"    branches not classified (the recognisers could not read them; every one counted as "
                       f"the user's): {len(mine)} method(s)")
        for _path, token, name, reason in mine:
            click.echo(f"      0x{token:08X} {name}: {reason}")
    logs = directory / "logs"
    if logs.is_dir():
        click.echo(f"agent logs: {logs} (see 'dotcov debug logs')")
    else:
        click.echo("agent logs: none (run with 'dotcov run --log' to record what each process saw)")


def _unclassified(cov, directory: Path) -> list[tuple[str, int, str, str]]:
    """The methods whose branches the recognisers could not read, as the reports find them (the report settings of
    dotcov.toml, the plan cache): (module path, MethodDef token, name, why)."""
    from dotcov.analysis.filters import FilterError
    from dotcov.analysis.results import build
    from dotcov.cli.config import ConfigError, load_config
    from dotcov.cli.settings import report_options
    from dotcov.data.datafiles import CACHE_DIR

    try:
        options = report_options(load_config())
    except (ConfigError, FilterError) as e:
        click.echo(f"dotcov: {e}", err=True)
        sys.exit(1)
    try:
        result, _problems = build(cov, Path.cwd(), options, cache_dir=directory / CACHE_DIR)
    except (OSError, ValueError) as e:  # (the rest of what this command says is still worth saying)
        click.echo(f"warning: the branch analysis could not be made, so the methods whose branches count as the "
                   f"user's are not listed: {e}")
        return []
    return result.unclassified


def _method_name(raw: dict | None, token: int) -> str:
    """`Namespace.Type.Method` of a MethodDef token, from read_symbols' tables ("?" when unknown)."""
    rid = token & 0xFFFFFF
    if raw is None or not 0 < rid <= len(raw["methods"]):
        return "?"
    name, type_rid = raw["methods"][rid - 1][:2]
    if 0 < type_rid <= len(raw["types"]):
        ns, type_name = raw["types"][type_rid - 1][:2]
        return f"{ns}.{type_name}.{name}" if ns else f"{type_name}.{name}"
    return name


@debug.command("logs")
@_data_dir_option
@click.option("--full", is_flag=True, help="Print the logs whole instead of a summary.")
def logs_command(data_dir, full):
    """The agent's logs: per process, the modules covered and the modules skipped, with the reason."""
    directory = _data_dir(data_dir) / "logs"
    logs = sorted(directory.glob("agent.*.log")) if directory.is_dir() else []
    if not logs:
        click.echo(f"no agent logs in {directory}; run with 'dotcov run --log'")
        sys.exit(1)
    for log in logs:
        lines = log.read_text(errors="replace").splitlines()
        if full:
            click.echo(f"== {log}")
            click.echo("\n".join(lines))
            continue
        messages = [line.partition("] ")[2] for line in lines]
        loaded = next((m for m in messages if m.startswith("agent loaded: ")), "agent loaded: ?")
        click.echo(f"== {log.name}: {loaded[len('agent loaded: '):]}")
        for m in messages:
            if m.startswith(("cover ", "skip ", "no coverage", "CoreLib helper injection failed")) or \
                    "left uninstrumented" in m:
                click.echo(f"  {m}")
