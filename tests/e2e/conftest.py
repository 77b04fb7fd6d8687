"""Fixtures that run commands under `dotcov run` (the builds they need are tests/conftest.py's, made once per
run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import BUILDS, SAMPLES, dotnet_env as _dotnet_env, once  # noqa: F401 (BUILDS: for the tests)  # tests/conftest.py: the tiers and the shared builds

REPO = Path(__file__).resolve().parents[2]
# The collector the sample test projects reference (Calc.Tests.csproj), for tests that compare with coverlet.
COVERLET_ADAPTER = (Path(os.environ.get("NUGET_PACKAGES", Path.home() / ".nuget" / "packages"))
                    / "coverlet.collector" / "6.0.4" / "build" / "netstandard2.0")


def coverlet_command(dotnet: str, tests_project: str, dest: Path, results: Path) -> list[str]:
    """`dotnet test` with coverlet.collector on a private copy (under `dest`) of samples/<tests_project>'s Debug
    output: coverlet rewrites the assemblies it measures in place, and other tests (other pytest-xdist workers) run
    the shared builds meanwhile."""
    copy = dest / tests_project
    shutil.copytree(SAMPLES / tests_project / "bin" / "Debug" / "net10.0", copy)
    return [dotnet, "test", str(copy / f"{tests_project}.dll"), "--nologo", "--collect", "XPlat Code Coverage",
            "--test-adapter-path", str(COVERLET_ADAPTER), "--results-directory", str(results)]


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str
    data_dir: Path


@pytest.fixture
def dotcov_run(tmp_path):
    """Runs `dotcov run --data-dir <tmp> -- CMD` in `cwd` and returns the status, output and data dir."""

    def run(cmd: list[str], *, cwd: Path, env_extra: dict[str, str] | None = None, args: list[str] = ()) -> Run:
        data_dir = tmp_path / "data"
        env = _dotnet_env()
        env.update(env_extra or {})
        proc = subprocess.run(
            [sys.executable, "-m", "dotcov", "run", "--data-dir", str(data_dir), *args, "--", *cmd],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr, data_dir)

    return run


@pytest.fixture(scope="session")
def measured_sample(built_samples, dotnet, run_records):
    """measured_sample(tests_project, dest, cache=True) -> Run: `dotcov run --data-dir D -- dotnet test
    <tests_project> --no-build --nologo` in samples/ (no other option or setting), measured once per run whichever
    xdist worker asks first, then copied to dest/data for the caller: the tests that read this run each read it
    as before from a data directory of their own. cache=False leaves out the caches its closing report wrote
    (DATA/cache): the directory as `--no-report` leaves it (the data files are the same either way)."""

    def measured(tests_project: str, dest: Path, *, cache: bool = True) -> Run:
        record = run_records / f"run-{tests_project}"

        def make() -> str:
            proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--data-dir", str(record / "data"), "--",
                                   dotnet, "test", tests_project, "--no-build", "--nologo"],
                                  cwd=SAMPLES, env=_dotnet_env(), capture_output=True, text=True, timeout=600)
            (record / "stdout").write_text(proc.stdout)
            (record / "stderr").write_text(proc.stderr)
            return f"{proc.returncode}\n"

        record.mkdir(exist_ok=True)
        once(record, "status", make, lock=f"run-{tests_project}.lock")
        data_dir = dest / "data"
        if (record / "data").exists():
            shutil.copytree(record / "data", data_dir, ignore=None if cache else shutil.ignore_patterns("cache"))
        else:  # the command failed before writing any data: the caller's status check says so
            data_dir.mkdir(parents=True)
        return Run(int((record / "status").read_text()), (record / "stdout").read_text(),
                   (record / "stderr").read_text(), data_dir)

    return measured


def assert_matches_marks(files, project_dir: Path) -> None:
    """Covered and missed line sets of every marked source equal its marks exactly."""
    from .marks import marked_sources, read_excluded, read_marks

    sources = marked_sources(project_dir)
    assert sources, project_dir
    problems = []
    for src in sources:
        hit, miss = read_marks(src)
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
        excluded = read_excluded(src)
        if excluded and (fc is None or not excluded <= fc.excluded):
            problems.append(f"{src.name}: marked @excluded but not reported as excluded "
                            f"{sorted(excluded - (fc.excluded if fc else set()))}")
    assert not problems, "\n".join(problems)


def coverage_by_file(data_dir: Path, source_root: Path):
    from dotcov.data import datafiles as data
    from dotcov.analysis import results

    result, problems = results.build(data.load(data_dir), source_root)
    assert not problems, problems
    return {fc.path: fc for fc in result.all_files()}


@dataclass
class GitSample:
    repo: Path  # a git repository holding a copy of samples/Calc and Calc.Tests, built, on branch "feature"
    data_dir: Path  # coverage of `dotnet test` run in it under dotcov
    base: str  # the commit "main" points at (the merge base of feature and main)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="session")
def calc_git_sample(dotnet, tmp_path_factory) -> GitSample:
    """samples/Calc in a fresh git repository with the edits of tests/e2e/diff_edits.py since `main` (some
    committed on branch feature, some not), rebuilt and run under dotcov: the setting of `dotcov diff` (and of
    `dotcov impacted`, which records its own run with contexts)."""
    from .diff_edits import apply_edits

    repo = tmp_path_factory.mktemp("gitsample") / "repo"
    ignore = shutil.ignore_patterns("bin", "obj")
    for project in ("Calc", "Calc.Tests"):
        shutil.copytree(SAMPLES / project, repo / project, ignore=ignore)
    for name in ("Directory.Build.props", "NuGet.config"):
        shutil.copy(SAMPLES / name, repo / name)
    (repo / ".gitignore").write_text("bin/\nobj/\n.dotcov/\n")
    env = _dotnet_env()
    subprocess.run([dotnet, "new", "sln", "--name", "Calc", "--format", "sln"], cwd=repo, env=env, check=True,
                   capture_output=True)
    subprocess.run([dotnet, "sln", "Calc.sln", "add", "Calc/Calc.csproj", "Calc.Tests/Calc.Tests.csproj"],
                   cwd=repo, env=env, check=True, capture_output=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "dotcov test")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD").strip()
    _git(repo, "checkout", "-q", "-b", "feature")
    apply_edits(repo, committed=True)
    _git(repo, "commit", "-q", "-am", "feature: committed edits")
    apply_edits(repo, committed=False)
    subprocess.run([dotnet, "build", "Calc.sln", "-nologo", "-v", "quiet", "-clp:ErrorsOnly"], cwd=repo, env=env,
                   check=True)
    data_dir = repo / ".dotcov"
    proc = subprocess.run([sys.executable, "-m", "dotcov", "run", "--no-report", "--", dotnet, "test",
                           "Calc.sln", "--no-build", "--nologo"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return GitSample(repo, data_dir, base)


@pytest.fixture(scope="session")
def service_dll(dotnet_build) -> Path:
    """samples/Service (an ASP.NET Core minimal API, tests/e2e/service_driver.py drives it) built in Debug, once
    per run."""
    from .service_driver import DLL

    dotnet_build("Service")
    return DLL
