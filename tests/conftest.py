"""The two test tiers, and the .NET builds the slower one shares.

A test needs a .NET build exactly when it asks for the `dotnet` fixture, directly or through a fixture that builds
(`dotnet_build`, `built_samples`, `samples_release`, `snippets`, ...): such a test is marked `dotnet` at collection.
Every other test is in the fast tier (`pytest -m "not dotnet"`, `scripts/test.sh --fast`) and may not build: it
fails, naming itself, when it starts `dotnet build` (or test, publish, restore, ...), and MSBuild refuses any project
its child processes evaluate (`CustomBeforeMicrosoftCommonTargets` points at tests/fast_tier_guard.targets).

Each build is made once per run (`dotnet_build`): under a lock, so that pytest-xdist workers never build the same
tree at once, and remembered for the run, so that the second worker to ask does not run MSBuild again."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOTCOV_SHARED_DIR", REPO.parent / "shared"))
SAMPLES = REPO / "samples"
SNIPPETS = REPO / "tests" / "branch_samples" / "Snippets"
SEQPOINTS = REPO / "tests" / "tools" / "SeqPoints"
BUILDS = REPO / "build" / "test-builds"  # the lock and each run's record of what it built
GUARD_TARGETS = REPO / "tests" / "fast_tier_guard.targets"
# dotnet commands that build, restore or create projects: what a fast-tier test may not start.
BUILDING_VERBS = {"build", "test", "publish", "pack", "restore", "msbuild", "run", "new", "vstest", "build-server"}


def dotnet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
    env.setdefault("DOTNET_NOLOGO", "1")
    env.setdefault("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1")
    # Keep `dotnet build` from leaving build servers behind between tests.
    env["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0"
    env["UseSharedCompilation"] = "false"
    return env


def pytest_configure(config) -> None:
    if not hasattr(config, "workerinput"):  # the main process: xdist workers inherit its environment
        os.environ["DOTCOV_TEST_RUN"] = uuid.uuid4().hex


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if "dotnet" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("dotnet"):
            item.add_marker(pytest.mark.dotnet)


def _building_dotnet(args) -> bool:
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    args = [os.fsdecode(a) for a in args]
    return bool(args) and Path(args[0]).name == "dotnet" and len(args) > 1 and args[1] in BUILDING_VERBS


@pytest.fixture(autouse=True)
def _fast_tier_builds_nothing(request, monkeypatch):
    """A test not marked `dotnet` that starts a .NET build fails at once, saying why (it would otherwise build
    silently, and the fast tier would not be fast)."""
    if request.node.get_closest_marker("dotnet"):
        yield
        return
    name = request.node.nodeid
    popen_init = subprocess.Popen.__init__

    def guarded(self, args, *a, **kw):
        if _building_dotnet(args):
            pytest.fail(f"{name} starts `{' '.join(map(str, args[:2]))}` but is in the fast tier: a test that "
                        f"needs a .NET build asks for the `dotnet` fixture (or one that builds), which marks it "
                        f"`dotnet` (tests/conftest.py)", pytrace=False)
        popen_init(self, args, *a, **kw)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)
    # The same for processes started by those processes (`dotcov run -- dotnet test`, `sh -c ...`): MSBuild
    # imports this file into every project it evaluates, and it stops the build with the same message.
    monkeypatch.setenv("CustomBeforeMicrosoftCommonTargets", str(GUARD_TARGETS))
    monkeypatch.setenv("DOTCOV_FAST_TIER_TEST", name)
    yield


@pytest.fixture(scope="session")
def dotnet() -> str:
    """The .NET SDK's `dotnet`; asking for it puts a test in the `dotnet` tier."""
    path = shutil.which("dotnet")
    if not path:
        pytest.fail("the .NET SDK (dotnet) is required for the tests marked `dotnet`")
    return path


@pytest.fixture(scope="session")
def run_records() -> Path:
    """This run's record directory under BUILDS (one per pytest run, shared by its xdist workers): what was made
    once for the run (a build, a measured run) and by whom."""
    run = os.environ.get("DOTCOV_TEST_RUN") or uuid.uuid4().hex
    BUILDS.mkdir(parents=True, exist_ok=True)
    for old in BUILDS.iterdir():  # earlier runs' records (a day old: not a run going on now)
        if old.is_dir() and old.stat().st_mtime < time.time() - 86400:
            shutil.rmtree(old, ignore_errors=True)
    done = BUILDS / run
    done.mkdir(exist_ok=True)
    return done


def once(records: Path, key: str, make, *, lock: str = "lock") -> None:
    """Calls make() (returning a line for the record) once per run for `key`, whichever xdist worker asks first;
    the others wait on the lock file BUILDS/<lock> and find the record."""
    with open(BUILDS / lock, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        if (records / key).exists():
            return
        note = make()
        (records / key).write_text(note)


@pytest.fixture(scope="session")
def dotnet_build(dotnet, run_records):
    """build(target, configuration="Debug", *args, cwd=SAMPLES): `dotnet build` once per run for each distinct
    call, whichever test or xdist worker asks first; the others wait for it and reuse its output (one lock for
    every build: two builds of the same tree never run at once)."""

    def build(target: str | Path, configuration: str = "Debug", *args: str, cwd: Path = SAMPLES) -> None:
        key = hashlib.sha1(repr((str(cwd), str(target), configuration, args)).encode()).hexdigest()

        def make() -> str:
            subprocess.run([dotnet, "build", str(target), "-c", configuration, *args, "-m:2", "-nologo", "-v",
                            "quiet", "-clp:ErrorsOnly"], cwd=cwd, env=dotnet_env(), check=True)
            return f"{cwd} {target} {configuration} {' '.join(args)}\n"

        once(run_records, key, make)

    return build


@pytest.fixture(scope="session")
def built_samples(dotnet_build) -> Path:
    """Every sample (samples/All.sln) built in Debug, once per run (offline restore from samples/NuGet.config)."""
    dotnet_build("All.sln", "Debug")
    return SAMPLES


@pytest.fixture(scope="session")
def samples_release(dotnet_build, built_samples) -> Path:
    """samples/All.sln built in Release as well, once per run."""
    dotnet_build("All.sln", "Release")
    return SAMPLES


@pytest.fixture(scope="session")
def snippets(dotnet_build) -> dict[str, Path]:
    """tests/branch_samples/Snippets.dll (every branch shape the recognisers know), Debug and Release, built once
    per run."""
    out = {}
    for config in ("Debug", "Release"):
        dotnet_build(SNIPPETS, config)
        out[config] = SNIPPETS / "bin" / config / "net10.0" / "Snippets.dll"
    return out


@pytest.fixture(scope="session")
def seqpoints(dotnet_build) -> Path:
    """tests/tools/SeqPoints.dll (every sequence point of an assembly, read with System.Reflection.Metadata)."""
    dotnet_build(SEQPOINTS)
    return SEQPOINTS / "bin" / "Debug" / "net10.0" / "SeqPoints.dll"
