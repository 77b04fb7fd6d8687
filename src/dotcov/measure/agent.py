"""Where the agent is and how a process is told to load it."""

from __future__ import annotations

import os
import platform
from pathlib import Path

# Must match kAgentClsid in native/agent/class_factory.cpp.
CLSID = "{066BACCC-BAC2-4894-ACF1-83D37AEAB145}"

PROFILER_VARIABLES = (
    "CORECLR_ENABLE_PROFILING",
    "CORECLR_PROFILER",
    "CORECLR_PROFILER_PATH",
    "CORECLR_PROFILER_PATH_64",
    "CORECLR_PROFILER_PATH_ARM64",
)

# The arm64 agent an x64 package carries beside its own (setup.py cross-compiles it; docs/platforms.md).
ARM64_AGENT = "libdotcov_agent.arm64.so"
# The Windows x64 agent the package carries (setup.py cross-compiles it with mingw-w64): for Windows processes, such
# as a win-x64 program run under wine64, whose environment names it by its Windows path (docs/platforms.md).
WINDOWS_AGENT = "dotcov_agent.dll"


class AgentError(Exception):
    pass


def agent_path() -> Path:
    """The agent .so installed inside the package (DOTCOV_AGENT_PATH overrides, for development)."""
    override = os.environ.get("DOTCOV_AGENT_PATH")
    path = Path(override) if override else Path(__file__).parents[1] / "libdotcov_agent.so"
    if not path.is_file():
        raise AgentError(f"the dotcov agent is missing at {path}; reinstall dotcov")
    return path


def arm64_agent_path() -> Path | None:
    """The agent for arm64 processes: the package's arm64 agent beside the x64 one, else on an arm64 machine the
    package's own agent (DOTCOV_AGENT_PATH_ARM64 overrides); None when the package has none."""
    override = os.environ.get("DOTCOV_AGENT_PATH_ARM64")
    if override:
        path = Path(override)
        if not path.is_file():
            raise AgentError(f"the dotcov arm64 agent is missing at {path} (DOTCOV_AGENT_PATH_ARM64)")
        return path
    path = Path(__file__).parents[1] / ARM64_AGENT
    if path.is_file():
        return path
    if platform.machine().lower() in ("aarch64", "arm64"):
        return agent_path()
    return None


def windows_agent_path() -> Path | None:
    """The package's Windows x64 agent DLL, or None when the package has none (built without mingw-w64)."""
    path = Path(__file__).parents[1] / WINDOWS_AGENT
    return path if path.is_file() else None


def other_profiler(env: dict[str, str]) -> str | None:
    """Names a profiler the user configured already, which the runtime would load instead of ours."""
    clsid = env.get("CORECLR_PROFILER")
    if env.get("CORECLR_ENABLE_PROFILING") == "1" and clsid and clsid.upper() != CLSID:
        return f"CORECLR_PROFILER={clsid} (CORECLR_PROFILER_PATH={env.get('CORECLR_PROFILER_PATH', '')})"
    return None


def profiler_environment(data_dir: Path, source_root: Path, *, include_tests: bool, log: bool) -> dict[str, str]:
    path = str(agent_path())
    env = {
        "CORECLR_ENABLE_PROFILING": "1",
        "CORECLR_PROFILER": CLSID,
        "CORECLR_PROFILER_PATH": path,
        # The bitness-specific variable wins over the plain one; set both. An arm64 process reads
        # CORECLR_PROFILER_PATH_ARM64 first (an x64 one never does), so one command can start both kinds.
        "CORECLR_PROFILER_PATH_64": path,
        "DOTCOV_DATA_DIR": str(data_dir),
        "DOTCOV_SOURCE_ROOT": str(source_root),
    }
    arm64 = arm64_agent_path()
    if arm64 is not None:
        env["CORECLR_PROFILER_PATH_ARM64"] = str(arm64)
    if include_tests:
        env["DOTCOV_INCLUDE_TEST_ASSEMBLIES"] = "1"
    if log:
        env["DOTCOV_LOG"] = "1"
    return env
