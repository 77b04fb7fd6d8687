"""Windows x64 (issue 26, docs/platforms.md): the agent built with mingw-w64 as a DLL measures samples/Platforms,
published self-contained for win-x64 and run under wine64, with exact line, count and branch marks; the data
file it writes is read by the reports on Linux.

The environment is the one `dotcov run` sets (`profiler_environment`), with Windows paths (`winepath -w`) for the
agent and the data directory. The PDB is built here, so it records Linux source paths: the source root is that
Linux directory, which the agent under Wine sees on drive Z: (the Unix root) because wine64 starts in it. The
runtime reports module paths as `Z:\\...`; the agent records them with '/' (`Z:/tmp/.../Platforms.dll`), and the
reports on Linux find the module through a `[paths]` entry in dotcov.toml that maps that prefix to the publish
folder. Two more publishes record their sources as other builds do: `C:\\src\\...` (built on Windows) and `/_/...`
(deterministic), each mapped back to the sources here with exact marks.

The DLL is the package's (setup.py builds it with mingw-w64 beside the Linux agent), the program is published once
per session (the win-x64 runtime pack comes from the NuGet registry through the user's NuGet configuration, as
tests/e2e/test_arm64.py gets the linux-arm64 one), and every Wine run uses one prefix, build/win/wineprefix (its
first start takes about 20 s). mingw-w64 and wine64 come from scripts/setup.sh; without them these tests fail,
never skip."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from dotcov import _native
from dotcov.measure.agent import CLSID, agent_path, profiler_environment, windows_agent_path

from .conftest import SAMPLES, _dotnet_env
from .test_arm64 import assert_exact_marks, measured

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
WINEPREFIX = ROOT / "build" / "win" / "wineprefix"
WINE64 = "/usr/lib/wine/wine64"
IMAGE_FILE_MACHINE_AMD64 = 0x8664


@dataclass
class Wine:
    env: dict[str, str]  # WINEPREFIX and WINEDEBUG, to add to a process's environment

    def path(self, unix: Path) -> str:
        """The Windows path of a Unix one (`winepath -w`)."""
        proc = subprocess.run(["winepath", "-w", str(unix)], env=os.environ | self.env, capture_output=True,
                              text=True, timeout=120, check=True)
        return proc.stdout.strip()


@pytest.fixture(scope="session")
def wine() -> Wine:
    if not (Path(WINE64).is_file() and shutil.which("winepath")):
        pytest.fail(f"{WINE64} and winepath are required (scripts/setup.sh installs wine64)")
    # One prefix for every Wine run of the tests (scripts/test.sh's too): only its first start is slow.
    WINEPREFIX.parent.mkdir(parents=True, exist_ok=True)
    w = Wine({"WINEPREFIX": str(WINEPREFIX), "WINEDEBUG": "-all"})
    assert w.path(Path("/tmp")) == "Z:\\tmp"  # the Unix root is Z:
    return w


@pytest.fixture(scope="session")
def windows_agent() -> Path:
    """The package's dotcov_agent.dll: setup.py builds it with the mingw-w64 toolchain file beside the Linux agent."""
    dll = windows_agent_path()
    assert dll is not None, ("the package has no Windows agent: setup.py builds it where x86_64-w64-mingw32-g++-posix "
                             "is installed (scripts/setup.sh installs g++-mingw-w64-x86-64-posix)")
    return dll


@dataclass
class Published:
    root: Path  # the copy of samples/Platforms's parent: the source root the PDB records
    project: Path  # root / "Platforms", the marked sources
    win: Path  # the publish folder


def publish(dotnet: str, root: Path, out: str, *props: str) -> Path:
    """samples/Platforms (copied under root) published self-contained for win-x64 into root/out."""
    subprocess.run([dotnet, "publish", "Platforms", "-c", "Debug", "-r", "win-x64", "--self-contained",
                    "-o", str(root / out), "-nologo", "-v", "quiet", "-clp:ErrorsOnly", *props], cwd=root,
                   env=_dotnet_env(), check=True)
    assert (root / out / "Platforms.exe").is_file() and (root / out / "coreclr.dll").is_file()
    return root / out


@pytest.fixture(scope="session")
def published(dotnet, tmp_path_factory) -> Published:
    root = tmp_path_factory.mktemp("platforms-win")
    shutil.copytree(SAMPLES / "Platforms", root / "Platforms", ignore=shutil.ignore_patterns("bin", "obj"))
    shutil.copy(SAMPLES / "Directory.Build.props", root / "Directory.Build.props")
    return Published(root, root / "Platforms", publish(dotnet, root, "win"))


def pe_exports(dll: Path) -> tuple[int, set[str], set[str]]:
    """(machine, exported names, imported DLLs) of a PE image, from objdump's header dump."""
    data = dll.read_bytes()
    assert data[:2] == b"MZ"
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe:pe + 4] == b"PE\0\0"
    machine = struct.unpack_from("<H", data, pe + 4)[0]
    dump = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", str(dll)], capture_output=True, text=True,
                          check=True).stdout
    table = dump.split("[Ordinal/Name Pointer] Table", 1)[1].split("\n\n", 1)[0]
    exports = {line.split()[-1] for line in table.splitlines() if line.strip().startswith("[")}
    imports = {line.split(":", 1)[1].strip() for line in dump.splitlines() if "DLL Name:" in line}
    return machine, exports, imports


def test_the_agent_is_a_windows_x64_dll_with_the_com_entry_points(windows_agent):
    assert windows_agent.parent == agent_path().parent  # in the package, beside libdotcov_agent.so
    machine, exports, imports = pe_exports(windows_agent)
    assert machine == IMAGE_FILE_MACHINE_AMD64
    assert exports == {"DllGetClassObject", "DllCanUnloadNow"}
    # Linked statically: nothing to ship beside it but what every Windows has.
    assert {i.upper() for i in imports} == {"KERNEL32.DLL", "MSVCRT.DLL", "SHELL32.DLL"}, imports


def run_under_wine(published: Published, wine: Wine, agent: Path, data_dir: Path, source_root: str | None = None,
                   **extra: str):
    """Platforms.exe under wine64 with the environment `dotcov run` sets, its paths as Windows paths. The source
    root is the one the PDB records: by default the Linux directory a PDB built here records."""
    data_dir.mkdir()
    env = _dotnet_env() | wine.env | profiler_environment(data_dir, published.root, include_tests=False, log=True)
    # The arm64 variable names a Linux .so, which an x64 process never reads; the agent's and the data
    # directory's paths are Windows paths.
    env.pop("CORECLR_PROFILER_PATH_ARM64", None)
    agent_win = wine.path(agent)
    env |= {"CORECLR_PROFILER_PATH": agent_win, "CORECLR_PROFILER_PATH_64": agent_win,
            "DOTCOV_DATA_DIR": wine.path(data_dir), "DOTCOV_SOURCE_ROOT": source_root or str(published.root),
            **extra}
    assert env["CORECLR_PROFILER"] == CLSID
    proc = subprocess.run([WINE64, str(published.win / "Platforms.exe")], cwd=published.root, env=env,
                          capture_output=True, text=True, timeout=600)
    logs = sorted((data_dir / "logs").glob("agent.*.log")) if (data_dir / "logs").is_dir() else []
    log = "".join(p.read_text() for p in logs)
    assert proc.returncode == 0, proc.stdout + proc.stderr + log
    assert proc.stdout.startswith("X64 25 positive"), proc.stdout + proc.stderr + log
    return proc, log


def windows_measured(published: Published, wine: Wine, data_dir: Path, sources: str | None = None):
    """`dotcov json` on Linux, with the module's Windows path mapped to the publish folder ([paths]), and the
    sources' recorded root, when given, to the sources here."""
    toml = (f'[paths]\npublished = ["{published.win.as_posix()}", '
            f'"{wine.path(published.win).replace(chr(92), "/")}"]\n')
    if sources:
        toml += f"sources = ['{published.root.as_posix()}', '{sources}']\n"
    (published.root / "dotcov.toml").write_text(toml)
    return measured(data_dir, published.root)


@pytest.mark.parametrize("extra", [{}, {"DOTCOV_EXACT_COUNTS": "1"}], ids=["default", "exact-counts"])
def test_windows_program_under_wine_matches_the_marks(published, wine, windows_agent, tmp_path, extra):
    """The Windows agent's inline (or, with exact counts, Interlocked) probes count every line and outcome
    exactly as on Linux x64 and arm64; one data file, named by the Windows pid, read by the Linux reports."""
    data_dir = tmp_path / "data"
    _, log = run_under_wine(published, wine, windows_agent, data_dir, **extra)
    assert f"cover {wine.path(published.win).replace(chr(92), '/')}/Platforms.dll: " in log, log
    written = [p for p in data_dir.iterdir() if p.suffix == ".cov"]
    assert len(written) == 1, (written, log)
    assert_exact_marks(windows_measured(published, wine, data_dir), published.project)


def test_per_test_contexts_are_off_on_windows_and_the_log_says_why(published, wine, windows_agent, tmp_path):
    """Not ported (the context table relies on Linux's MAP_NORESERVE): the agent still measures lines and
    branches exactly, and its log says contexts are not measured."""
    data_dir = tmp_path / "data"
    _, log = run_under_wine(published, wine, windows_agent, data_dir, DOTCOV_CONTEXTS="test")
    assert "per-test contexts off: per-test contexts are not measured on Windows yet" in log, log
    assert_exact_marks(windows_measured(published, wine, data_dir), published.project)


# PDBs as other builds record their sources (PathMap, as the SDK's deterministic builds use it): a Windows
# machine's `C:\src\...` (the source root given as the PDB records it, as `dotcov run` started in C:\src would),
# and a deterministic `/_/...` (the agent finds the source under the Windows path of the source root).
PDB_PATHS = {
    "windows": ("C:\\src\\", "C:\\src"),
    "deterministic": ("/_/", None),
}


@pytest.mark.parametrize("kind", sorted(PDB_PATHS))
def test_pdb_paths_from_windows_and_deterministic_builds_map_back_here(published, wine, windows_agent, dotnet,
                                                                      tmp_path, kind):
    """The module is covered (its documents under the source root, or found for `/_/`), and the Linux reports
    map its documents back to the sources here ([paths], or the `/_/` search) with exact marks."""
    recorded, sources = PDB_PATHS[kind]
    win = publish(dotnet, published.root, f"win-{kind}", f"-p:PathMap={published.root}/={recorded}")
    documents = _native.read_symbols(str(win / "Platforms.dll"))["documents"]
    # The compiler here writes the mapped prefix with '/' (`C:/src/...`); a Windows build writes '\\', which the
    # module filter's and [paths]' tests cover.
    assert documents and all(d.startswith(recorded.replace("\\", "/")) for d in documents), documents
    variant = Published(published.root, published.project, win)
    source_root = sources if kind == "windows" else wine.path(published.root)
    data_dir = tmp_path / "data"
    _, log = run_under_wine(variant, wine, windows_agent, data_dir, source_root=source_root)
    assert f"cover {wine.path(win).replace(chr(92), '/')}/Platforms.dll: " in log, log
    assert_exact_marks(windows_measured(variant, wine, data_dir, sources), published.project)
