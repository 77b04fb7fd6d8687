"""The compatibility matrix (docs/compatibility.md): test frameworks, runners, runtimes, languages and build settings.

Every C# row measures the same library, samples/compat/Lib, through code that makes the same calls, so each row
compares dotcov's covered and missed lines with the same `// @hit` / `// @miss` marks. The VB row measures
samples/compat/VbLib (marks `' @hit` / `' @miss`, read here: tests/e2e/marks.py reads `//` marks only). Each build
is made once per session: samples/compat/Compat.slnx in its default Debug output, every other variant into
samples/compat/artifacts/<variant>/ (dotnet --artifacts-path), so variants never overwrite each other.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from dotcov.data import datafiles as data
from dotcov.analysis import results

from .conftest import SAMPLES, _dotnet_env, coverage_by_file
from .marks import read_marks

pytestmark = pytest.mark.e2e

COMPAT = SAMPLES / "compat"
LIB_SOURCES = [COMPAT / "Lib" / "Grades.cs", COMPAT / "Lib" / "Stats.cs"]
VB_SOURCES = [COMPAT / "VbLib" / "Grades.vb"]
ARTIFACTS = COMPAT / "artifacts"

_VB_MARK = re.compile(r"'\s*@(hit|miss)\b")
# A line holding only a brace (and its mark): Roslyn gives it a sequence point in Debug builds only.
_BRACE_LINE = re.compile(r"^\s*[{}]\s*//")


def expected_marks(src: Path, *, release: bool = False) -> tuple[set[int], set[int]]:
    """The (hit, miss) line sets of a marked source; `release` drops the brace lines a Release build has no
    sequence point on."""
    if src.suffix == ".vb":
        hit, miss = set(), set()
        for number, line in enumerate(src.read_text(encoding="utf-8").splitlines(), start=1):
            if m := _VB_MARK.search(line):
                (hit if m.group(1) == "hit" else miss).add(number)
    else:
        hit, miss = read_marks(src)
    if release:
        braces = {n for n, line in enumerate(src.read_text(encoding="utf-8").splitlines(), start=1)
                  if _BRACE_LINE.match(line)}
        hit, miss = hit - braces, miss - braces
    assert hit and miss, src
    return hit, miss


def assert_lines(files, sources: list[Path], *, release: bool = False) -> None:
    """Covered and missed lines of each source equal its marks exactly."""
    problems = []
    for src in sources:
        hit, miss = expected_marks(src, release=release)
        fc = files.get(str(src))
        lines = fc.lines if fc else {}
        covered = {n for n, h in lines.items() if h > 0}
        missed = {n for n, h in lines.items() if h == 0}
        if covered != hit:
            problems.append(f"{src.name}: covered but not marked @hit {sorted(covered - hit)}, "
                            f"marked @hit but not covered {sorted(hit - covered)}")
        if missed != miss:
            problems.append(f"{src.name}: missed but not marked @miss {sorted(missed - miss)}, "
                            f"marked @miss but not missed {sorted(miss - missed)}")
    assert not problems, "\n".join(problems) + f"\nfiles: {sorted(files)}"


def assert_no_test_assemblies(files) -> None:
    assert not [p for p in files if ".Tests" in p], sorted(files)


class Builds:
    """Builds each variant once per session (cwd samples/compat, offline-ish restore through its NuGet.config)."""

    # variant -> dotnet arguments (run in samples/compat; all but "default" get --artifacts-path artifacts/<variant>)
    VARIANTS = {
        "default": ["build", "Compat.slnx"],
        "release": ["build", "XunitV2.Tests", "-c", "Release"],
        "embedded": ["build", "XunitV2.Tests", "-p:DebugType=embedded"],
        "full": ["build", "XunitV2.Tests", "-p:DebugType=full"],
        "pdbonly": ["build", "XunitV2.Tests", "-p:DebugType=pdbonly"],
        "none": ["build", "XunitV2.Tests", "-p:DebugType=none"],
        # A deterministic CI build with a SourceLink document map in the PDB, as Microsoft.SourceLink.GitHub (built
        # into the SDK) writes one when the repository has a GitHub remote; this checkout has no remote, so the
        # compiler is given the map directly.
        "sourcelink": ["build", "XunitV2.Tests", "-p:ContinuousIntegrationBuild=true", "-p:Deterministic=true",
                       f"-p:SourceLink={COMPAT / 'sourcelink.json'}"],
        "sc-net8.0": ["build", "App", "-r", "linux-x64", "-p:SelfContained=true", "-p:AppTargetFramework=net8.0"],
        "sc-net9.0": ["build", "App", "-r", "linux-x64", "-p:SelfContained=true", "-p:AppTargetFramework=net9.0"],
        "r2r": ["publish", "App", "-r", "linux-x64", "-p:AppReadyToRun=true"],
    }

    def __init__(self, dotnet: str):
        self.dotnet = dotnet
        self.done: dict[str, Path] = {}

    def __call__(self, variant: str) -> Path:
        """Builds `variant` (once) and returns its output root: samples/compat or artifacts/<variant>."""
        if variant not in self.done:
            args = list(self.VARIANTS[variant])
            root = COMPAT
            if variant != "default":
                root = ARTIFACTS / variant
                args += ["--artifacts-path", str(root)]
            proc = subprocess.run([self.dotnet, *args, "-nologo", "-v", "quiet", "-clp:ErrorsOnly"], cwd=COMPAT,
                                  env=_dotnet_env(), capture_output=True, text=True, timeout=900)
            assert proc.returncode == 0, f"{variant}: {args}\n{proc.stdout}\n{proc.stderr}"
            self.done[variant] = root
        return self.done[variant]


@pytest.fixture(scope="session")
def compat_build(dotnet) -> Builds:
    return Builds(dotnet)


def _tests_dll(root: Path, variant: str, project: str = "XunitV2.Tests", config: str = "debug") -> Path:
    if variant == "default":
        parent = project.rsplit("/", 1)[0] + "/" if "/" in project else ""
        name = project.rsplit("/", 1)[-1]
        return COMPAT / f"{parent}{name}" / "bin" / config.capitalize() / "net10.0" / f"{name}.dll"
    return root / "bin" / project / config / f"{project}.dll"


def _measure(dotcov_run, cmd, *, release=False, sources=LIB_SOURCES, args=(), env_extra=None, cwd=COMPAT):
    run = dotcov_run([str(c) for c in cmd], cwd=cwd, args=list(args), env_extra=env_extra)
    assert run.status == 0, run.stdout + run.stderr
    assert "TOTAL" in run.stdout, run.stdout + run.stderr
    files = coverage_by_file(run.data_dir, COMPAT)
    assert_lines(files, sources, release=release)
    assert_no_test_assemblies(files)
    return run, files


# ---- test frameworks and runners ---------------------------------------------------------------------------------

@pytest.mark.parametrize("project", ["XunitV2.Tests", "NUnit.Tests", "MSTest.Tests"])
def test_dotnet_test_vstest(compat_build, dotcov_run, dotnet, project):
    """`dotnet test` (VSTest: vstest.console starts testhost) with xunit v2, NUnit and MSTest."""
    compat_build("default")
    run, _ = _measure(dotcov_run, [dotnet, "test", project, "--no-build", "--nologo"])
    assert "Passed!" in run.stdout, run.stdout


def test_dotnet_vstest_dll(compat_build, dotcov_run, dotnet):
    """`dotnet vstest path/X.Tests.dll`."""
    root = compat_build("default")
    _measure(dotcov_run, [dotnet, "vstest", _tests_dll(root, "default")])


@pytest.mark.parametrize("project", ["XunitV3.Tests", "MSTest.Runner.Tests"])
def test_dotnet_test_microsoft_testing_platform(compat_build, dotcov_run, dotnet, project):
    """`dotnet test` in Microsoft.Testing.Platform mode (selected by samples/compat/mtp/global.json, which dotnet
    test reads from its working directory): xunit v3 and MSTest runner. dotcov runs in samples/compat (the source
    root, where Lib lies) and the command changes to mtp/."""
    compat_build("default")
    run, _ = _measure(dotcov_run, ["env", "-C", "mtp", dotnet, "test", "--project", project, "--no-build"])
    assert "succeeded: 2" in run.stdout, run.stdout


@pytest.mark.parametrize("how", ["dotnet-dll", "apphost"])
@pytest.mark.parametrize("project", ["XunitV3.Tests", "MSTest.Runner.Tests"])
def test_test_project_run_as_executable(compat_build, dotcov_run, dotnet, project, how):
    """A Microsoft.Testing.Platform test project is a program: `dotnet X.Tests.dll` or its apphost `X.Tests`."""
    root = compat_build("default")
    dll = _tests_dll(root, "default", f"mtp/{project}")
    _measure(dotcov_run, [dotnet, dll] if how == "dotnet-dll" else [dll.with_suffix("")])


def test_console_app_dotnet_dll(compat_build, dotcov_run, dotnet):
    compat_build("default")
    run, files = _measure(dotcov_run, [dotnet, COMPAT / "App" / "bin" / "Debug" / "net10.0" / "App.dll"])
    assert "ok on .NET 10." in run.stdout, run.stdout
    # A program's own code is covered too (it references no test framework).
    assert str(COMPAT / "App" / "Program.cs") in files, sorted(files)


def test_console_app_dotnet_run(compat_build, dotcov_run, dotnet):
    """`dotnet run --project App` (the build it does first runs with the agent declining in the SDK and MSBuild)."""
    compat_build("default")
    run, _ = _measure(dotcov_run, [dotnet, "run", "--project", "App"])
    assert "ok on .NET 10." in run.stdout, run.stdout


# ---- runtimes ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tfm", ["net8.0", "net9.0"])
def test_self_contained_older_runtime(compat_build, dotcov_run, tfm):
    """.NET 8 and 9: a self-contained console app (runtime pack from NuGet) runs on that runtime, not on the
    machine's .NET 10."""
    root = compat_build(f"sc-{tfm}")
    app = root / "bin" / "App" / "debug_linux-x64" / "App"
    run, _ = _measure(dotcov_run, [app])
    assert f"ok on .NET {tfm[3]}.0." in run.stdout, run.stdout


def test_multi_targeted_library_combined(compat_build, dotcov_run, dotnet):
    """Lib targets net10.0;net9.0;net8.0: the same sources compiled into one assembly per target framework. Two runs
    into one data directory (the net10.0 build, then the net8.0 one): dotcov keeps one module per build (different
    MVIDs), each matching the marks alone, and reports one `Lib` with its files once, hits added."""
    compat_build("default")
    root8 = compat_build("sc-net8.0")
    first = dotcov_run([dotnet, str(COMPAT / "App" / "bin" / "Debug" / "net10.0" / "App.dll")], cwd=COMPAT)
    assert first.status == 0, first.stderr
    second = dotcov_run([str(root8 / "bin" / "App" / "debug_linux-x64" / "App")], cwd=COMPAT, args=["--append"])
    assert second.status == 0, second.stderr
    cov = data.load(second.data_dir)
    libs = sorted((m for m in cov.modules.values() if Path(m.path).name == "Lib.dll"), key=lambda m: m.path)
    assert len(libs) == 2 and libs[0].mvid != libs[1].mvid, [m.path for m in libs]
    for module in libs:  # per target framework
        asm = results.module_coverage(module, results.load_symbols(module))
        assert_lines(asm.files, LIB_SOURCES)
    files = coverage_by_file(second.data_dir, COMPAT)  # combined
    assert_lines(files, LIB_SOURCES)
    letter_if = expected_marks(LIB_SOURCES[0])[0]
    assert {files[str(LIB_SOURCES[0])].lines[n] for n in letter_if} >= {2}, "hits of both builds are added"
    # The table has one row per file, not one per target framework.
    assert second.stdout.count("Lib/Grades.cs") == 1, second.stdout


# ---- languages ---------------------------------------------------------------------------------------------------

def test_visual_basic(compat_build, dotcov_run, dotnet):
    """VB library (marks `' @hit` / `' @miss`) tested from C# with xunit v2. C# is every other row; F# is
    tests/e2e/test_calc_sample.py (FsCalc)."""
    compat_build("default")
    _measure(dotcov_run, [dotnet, "test", "VbLib.Tests", "--no-build", "--nologo"], sources=VB_SOURCES)


# ---- build settings ----------------------------------------------------------------------------------------------

def test_release_build(compat_build, dotcov_run, dotnet):
    """Release: the same marks, except brace lines, which have no sequence points in optimized builds."""
    root = compat_build("release")
    _measure(dotcov_run, [dotnet, "test", _tests_dll(root, "release", config="release"), "--nologo"], release=True)


def test_debug_type_embedded(compat_build, dotcov_run, dotnet):
    root = compat_build("embedded")
    lib_dir = root / "bin" / "Lib" / "debug_net10.0"
    assert (lib_dir / "Lib.dll").exists() and not (lib_dir / "Lib.pdb").exists(), sorted(lib_dir.iterdir())
    _measure(dotcov_run, [dotnet, "test", _tests_dll(root, "embedded"), "--nologo"])


@pytest.mark.parametrize("debug_type", ["full", "pdbonly"])
def test_debug_type_full_and_pdbonly_are_portable_on_linux(compat_build, dotcov_run, dotnet, debug_type):
    """On Linux the compiler writes a portable PDB for DebugType full and pdbonly (a Windows PDB starts with
    "Microsoft C/C++ MSF 7.00"), so these builds are covered like portable ones."""
    root = compat_build(debug_type)
    pdb = root / "bin" / "Lib" / "debug_net10.0" / "Lib.pdb"
    assert pdb.read_bytes()[:4] == b"BSJB", pdb
    _measure(dotcov_run, [dotnet, "test", _tests_dll(root, debug_type), "--nologo"])


def test_debug_type_none_says_why(compat_build, dotcov_run, dotnet):
    """No PDB: nothing can be measured. dotcov warns that no coverage was collected; with --log it prints what the
    agent skipped and why, as `dotcov debug logs` does."""
    root = compat_build("none")
    run = dotcov_run([dotnet, "test", str(_tests_dll(root, "none")), "--nologo"], cwd=COMPAT, args=["--log"])
    assert run.status == 0, run.stdout + run.stderr
    assert "dotcov: warning: no coverage was collected" in run.stderr, run.stderr
    lib = root / "bin" / "XunitV2.Tests" / "debug" / "Lib.dll"
    why = (f"skip {lib}: Lib.dll has no debug information entry (CodeView); build with "
           "<DebugType>portable</DebugType> or <DebugType>embedded</DebugType>")
    assert why in run.stderr, run.stderr
    logs = subprocess.run([sys.executable, "-m", "dotcov", "debug", "logs", "--data-dir", str(run.data_dir)],
                          capture_output=True, text=True, check=True).stdout
    assert why in logs, logs


def test_deterministic_ci_build_with_sourcelink(compat_build, dotcov_run, dotnet):
    """ContinuousIntegrationBuild (documents under /_/) plus a SourceLink map in the PDB: mapped back to the
    checkout (see also tests/e2e/test_deterministic.py)."""
    from dotcov import _native

    root = compat_build("sourcelink")
    lib_dir = root / "bin" / "Lib" / "debug_net10.0"
    symbols = _native.read_symbols(str(lib_dir / "Lib.dll"))
    assert symbols["documents"][0].startswith("/_/samples/compat/Lib/"), symbols["documents"]
    assert "raw.githubusercontent.com/example/dotcov" in (symbols["source_link"] or ""), symbols["source_link"]
    _measure(dotcov_run, [dotnet, "test", _tests_dll(root, "sourcelink"), "--nologo"])


def _ready_to_run(path: Path) -> bool:
    """True when the PE file's CLI header has a ManagedNativeHeader (ReadyToRun code, signature 'RTR')."""
    image = path.read_bytes()
    pe = struct.unpack_from("<I", image, 0x3C)[0]
    n_sections, opt_size = struct.unpack_from("<H", image, pe + 6)[0], struct.unpack_from("<H", image, pe + 20)[0]
    opt = pe + 24
    magic = struct.unpack_from("<H", image, opt)[0]
    dirs = opt + (96 if magic == 0x10B else 112)
    sections = [struct.unpack_from("<IIII", image, opt + opt_size + 40 * i + 8) for i in range(n_sections)]

    def offset(rva: int) -> int:
        for vsize, va, _raw_size, raw in sections:
            if va <= rva < va + max(vsize, _raw_size):
                return rva - va + raw
        raise ValueError(rva)

    cli_rva = struct.unpack_from("<I", image, dirs + 8 * 14)[0]
    native_rva = struct.unpack_from("<I", image, offset(cli_rva) + 64)[0]
    return native_rva != 0 and image[offset(native_rva):offset(native_rva) + 4] == b"RTR\0"


def test_ready_to_run(compat_build, dotcov_run):
    """`dotnet publish -r linux-x64 -p:PublishReadyToRun=true` (a Release build): Lib.dll carries precompiled code,
    which the agent refuses for covered methods, so they are JIT-compiled with probes and every mark holds."""
    compat_build("default")
    root = compat_build("r2r")
    publish = root / "publish" / "App" / "release_linux-x64"
    assert _ready_to_run(publish / "Lib.dll")
    assert not _ready_to_run(COMPAT / "Lib" / "bin" / "Debug" / "net10.0" / "Lib.dll")
    run, _ = _measure(dotcov_run, [publish / "App"], release=True)
    assert "ok on .NET 10." in run.stdout, run.stdout
