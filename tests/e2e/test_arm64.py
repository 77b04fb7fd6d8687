"""Linux arm64 (issue 26, docs/platforms.md): the x64 package carries an arm64 agent, `dotcov run` points the
runtime's arm64 variable at it, and an arm64 .NET process measured under `qemu-aarch64-static` on this x64 machine
gets exactly the marks of samples/Platforms, the same lines, counts and branch outcomes as the same program on x64;
its data file, written by the arm64 agent, is read as it is by the x64 reports.

The program is published once per session, self-contained for linux-arm64 (`dotnet publish -r linux-arm64
--self-contained`; the runtime pack comes from the NuGet registry through the user's NuGet configuration, which is
why the sample is copied out of samples/, whose NuGet.config allows only the offline folder). qemu, the arm64 C
libraries and the cross compiler come from scripts/setup.sh; without them these tests fail, never skip."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import dotcov

from .conftest import SAMPLES, _dotnet_env
from .marks import marked_sources, read_branch_marks, read_context_marks, read_counts, read_marks

pytestmark = pytest.mark.e2e

CLSID = "{066BACCC-BAC2-4894-ACF1-83D37AEAB145}"
PACKAGE = Path(dotcov.__file__).resolve().parent
X64_AGENT = PACKAGE / "libdotcov_agent.so"
ARM64_AGENT = PACKAGE / "libdotcov_agent.arm64.so"
EM_X86_64, EM_AARCH64 = 62, 183


def elf_machine(path: Path) -> int:
    head = path.read_bytes()[:20]
    assert head[:4] == b"\x7fELF" and head[4] == 2 and head[5] == 1, f"{path} is not a 64-bit little-endian ELF"
    return struct.unpack_from("<H", head, 18)[0]


@dataclass
class Published:
    root: Path  # the copy of samples/Platforms's parent: the source root of its runs
    project: Path  # root / "Platforms", the marked sources
    arm64: Path  # the self-contained linux-arm64 program (apphost)
    x64_dll: Path  # the same sources built for x64 (framework-dependent), the reference


@pytest.fixture(scope="session")
def qemu() -> str:
    path = shutil.which("qemu-aarch64-static")
    if not path:
        pytest.fail("qemu-aarch64-static is required (scripts/setup.sh installs qemu-user-static)")
    return path


@pytest.fixture(scope="session")
def published(dotnet, tmp_path_factory) -> Published:
    root = tmp_path_factory.mktemp("platforms")
    shutil.copytree(SAMPLES / "Platforms", root / "Platforms", ignore=shutil.ignore_patterns("bin", "obj"))
    shutil.copy(SAMPLES / "Directory.Build.props", root / "Directory.Build.props")
    env = _dotnet_env()
    quiet = ["-nologo", "-v", "quiet", "-clp:ErrorsOnly"]
    subprocess.run([dotnet, "publish", "Platforms", "-c", "Debug", "-r", "linux-arm64", "--self-contained",
                    "-o", str(root / "arm64"), *quiet], cwd=root, env=env, check=True)
    subprocess.run([dotnet, "build", "Platforms", "-c", "Debug", "-o", str(root / "x64"), *quiet], cwd=root,
                   env=env, check=True)
    return Published(root, root / "Platforms", root / "arm64" / "Platforms", root / "x64" / "Platforms.dll")


def dotcov(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dotcov", *args], cwd=cwd, env=env or _dotnet_env(),
                          capture_output=True, text=True, timeout=600)


def measured(data_dir: Path, cwd: Path) -> dict[str, tuple[dict[int, int], dict[int, tuple[int, int]]]]:
    """{absolute path: ({line: hits}, {line: (covered, total)})} from `dotcov json`, read on this x64 machine."""
    out = data_dir.parent / (data_dir.name + ".json")
    proc = dotcov("json", "--data-dir", str(data_dir), "-o", str(out), cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = {}
    for assembly in json.loads(out.read_text())["assemblies"]:
        for f in assembly["files"]:
            assert f["absolute_path"] not in files
            files[f["absolute_path"]] = ({int(n): h for n, h in f["lines"].items()},
                                         {int(n): (b["covered"], b["total"]) for n, b in f["branches"].items()})
    return files


def assert_exact_marks(files, project: Path) -> None:
    """Every marked source: hit and missed lines, hit counts (@count, else 1) and branch outcomes (@branches)
    exactly as marked, nothing else measured."""
    sources = marked_sources(project)
    assert sources
    assert set(files) == {src.as_posix() for src in sources}, sorted(files)
    problems = []
    for src in sources:
        lines, branches = files[src.as_posix()]
        hit, miss = read_marks(src)
        if {n for n, h in lines.items() if h == 0} != miss:
            problems.append(f"{src.name}: missed {sorted(n for n, h in lines.items() if h == 0)}, marked "
                            f"{sorted(miss)}")
        counts = {n: h for n, h in lines.items() if h > 0}
        if counts != read_counts(src):
            problems.append(f"{src.name}: counts {counts}, marked {read_counts(src)} (hit lines {sorted(hit)})")
        if branches != read_branch_marks(src):
            problems.append(f"{src.name}: branches {branches}, marked {read_branch_marks(src)}")
    assert not problems, "\n".join(problems)


def test_the_package_carries_the_x64_and_the_arm64_agent():
    assert elf_machine(X64_AGENT) == EM_X86_64
    assert ARM64_AGENT.is_file(), f"{ARM64_AGENT} missing: setup.py builds it with g++-aarch64-linux-gnu"
    assert elf_machine(ARM64_AGENT) == EM_AARCH64


def test_dotcov_run_points_each_architecture_at_its_agent(tmp_path):
    proc = dotcov("run", "--no-report", "--data-dir", str(tmp_path / "data"), "--", "env", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    assert env["CORECLR_PROFILER_PATH_64"] == env["CORECLR_PROFILER_PATH"]
    assert Path(env["CORECLR_PROFILER_PATH_64"]).resolve() == X64_AGENT
    assert Path(env["CORECLR_PROFILER_PATH_ARM64"]).resolve() == ARM64_AGENT


def test_x64_reference_matches_the_marks(published, dotnet, tmp_path):
    data_dir = tmp_path / "data"
    proc = dotcov("run", "--no-report", "--data-dir", str(data_dir), "--", dotnet, str(published.x64_dll),
                  cwd=published.root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("X64 25 positive"), proc.stdout
    assert_exact_marks(measured(data_dir, published.root), published.project)


@pytest.mark.parametrize("args", [(), ("--exact-counts",)], ids=["default", "exact-counts"])
def test_arm64_program_under_qemu_matches_the_marks(published, qemu, tmp_path, args):
    """`dotcov run -- qemu-aarch64-static ./Platforms`: the arm64 agent's inline (or, with exact counts,
    Interlocked) probes count every line and outcome exactly as on x64."""
    data_dir = tmp_path / "data"
    proc = dotcov("run", "--no-report", "--data-dir", str(data_dir), *args, "--", qemu, str(published.arm64),
                  cwd=published.root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Arm64 25 positive"), proc.stdout
    assert_exact_marks(measured(data_dir, published.root), published.project)


def test_arm64_written_data_file_is_read_on_x64(published, qemu, tmp_path):
    """The environment `dotcov run` sets, by hand, with nothing to combine: the report reads the file the arm64
    agent mapped and wrote (same header, records and little-endian counters as x64's)."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    env = _dotnet_env() | {
        "CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": CLSID,
        "CORECLR_PROFILER_PATH": str(X64_AGENT), "CORECLR_PROFILER_PATH_64": str(X64_AGENT),
        "CORECLR_PROFILER_PATH_ARM64": str(ARM64_AGENT),
        "DOTCOV_DATA_DIR": str(data_dir), "DOTCOV_SOURCE_ROOT": str(published.root),
    }
    proc = subprocess.run([qemu, str(published.arm64)], cwd=published.root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Arm64 25 positive"), proc.stdout
    written = [p for p in data_dir.iterdir() if p.suffix == ".cov"]
    assert [p.name.split(".")[1] for p in written] == [str(proc_pid(written[0]))], written
    assert_exact_marks(measured(data_dir, published.root), published.project)
    # The report read the arm64 agent's own file: it is still there, uncombined.
    assert [p for p in data_dir.iterdir() if p.suffix == ".cov"] == written


def proc_pid(path: Path) -> int:
    """The pid the data file's header records (u32 at offset 16), which its name repeats."""
    return struct.unpack_from("<I", path.read_bytes(), 16)[0]


def test_rewrite_check_over_the_arm64_framework(published):
    """Every method of the linux-arm64 runtime pack's assemblies (the publish folder) rewritten in memory, with
    every probe style, and the IL checked: the same IL as x64's, ReadyToRun code for arm64 beside it."""
    framework = published.arm64.parent
    assert (framework / "System.Private.CoreLib.dll").is_file()
    proc = dotcov("debug", "rewrite-check", "--probes", "all", str(framework), cwd=published.root)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="session")
def xunit_v3_arm64(dotnet, tmp_path_factory) -> Path:
    """samples/Contexts.XunitV3 (an xunit v3 test project: an executable) with its library, published
    self-contained for linux-arm64; its packages come from the registry through the user-level NuGet config."""
    root = tmp_path_factory.mktemp("xunitv3")
    for project in ("Contexts", "Contexts.XunitV3"):
        shutil.copytree(SAMPLES / project, root / project, ignore=shutil.ignore_patterns("bin", "obj"))
    shutil.copy(SAMPLES / "Directory.Build.props", root / "Directory.Build.props")
    env = _dotnet_env()
    # Invariant globalization: the emulated machine has no arm64 ICU (as samples/Platforms sets it).
    subprocess.run([dotnet, "publish", "Contexts.XunitV3", "-c", "Debug", "-r", "linux-arm64", "--self-contained",
                    "-p:InvariantGlobalization=true", "-o", str(root / "arm64"), "-nologo", "-v", "quiet", "-clp:ErrorsOnly"], cwd=root, env=env,
                   check=True)
    return root


def test_xunit_v3_tests_under_qemu_get_their_contexts(xunit_v3_arm64, qemu, tmp_path):
    """`dotcov run --contexts test -- qemu-aarch64-static ./Contexts.XunitV3`: the tests run in the arm64 test
    executable, and each line of the library gets exactly the tests that ran it, as on x64
    (tests/e2e/test_contexts.py, whose renaming of the xunit v2 sample's marks this repeats). Contexts inject their
    helper into the arm64 CoreLib (ReadyToRun), so this also runs the injection path there."""
    root = xunit_v3_arm64
    data_dir = tmp_path / "data"
    proc = dotcov("run", "--no-report", "--contexts", "test", "--data-dir", str(data_dir), "--", qemu,
                  str(root / "arm64" / "Contexts.XunitV3"), cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "c.json"
    report = dotcov("json", "--show-contexts", "--data-dir", str(data_dir), "-o", str(out), cwd=root)
    assert report.returncode == 0, report.stdout + report.stderr
    work = root / "Contexts" / "Work.cs"
    (doc,) = [f for asm in json.loads(out.read_text())["assemblies"] for f in asm["files"]
              if f["absolute_path"] == work.as_posix()]
    cls = "Contexts.XunitV3Tests.Plain"
    rename = {frozenset({"Contexts.Tests.Outer+Inner.Nested"}): {f"{cls}.AwaitsThenRuns"},
              frozenset({"Contexts.Tests.TheoryTests.Parity"}): {f"{cls}.Cases"}}
    want = {line: rename[frozenset(names)] for line, names in read_context_marks(work).items()
            if frozenset(names) in rename}
    assert want
    assert {int(line): set(names) for line, names in doc["contexts"].items()} == want
