"""Builds the native parts (the agent .so and dotcov._native) with CMake.

Everything else lives in pyproject.toml. The agent is placed inside the package
so that `dotcov run` finds it with no configuration.
"""

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# The arm64 agent an x64 package carries beside its own (docs/platforms.md).
ARM64_AGENT = "libdotcov_agent.arm64.so"
# The Windows x64 agent (mingw-w64), for Windows processes such as those run under wine64 (docs/platforms.md).
WINDOWS_AGENT = "dotcov_agent.dll"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build_dir = Path(os.environ.get("DOTCOV_CMAKE_BUILD_DIR", ROOT / "build" / "python")).resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        args = [
            "cmake", "-S", str(ROOT / "native"), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DDOTCOV_BUILD_TESTS=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        try:
            import pybind11

            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_native", "dotcov_agent"])
        target.parent.mkdir(parents=True, exist_ok=True)
        built = next((build_dir / "python").glob("_native*.so"))
        shutil.copyfile(built, target)
        agent = build_dir / "agent" / "libdotcov_agent.so"
        agents = {"libdotcov_agent.so": agent}
        arm64 = self.build_arm64_agent(build_dir)
        if arm64:
            agents[ARM64_AGENT] = arm64
        windows = self.build_windows_agent(build_dir)
        if windows:
            agents[WINDOWS_AGENT] = windows
        for name, built_agent in agents.items():
            shutil.copyfile(built_agent, target.parent / name)
            if getattr(self, "editable_mode", False) or self.inplace:
                # An editable install imports the package from src/: the agent must be there.
                shutil.copyfile(built_agent, ROOT / "src" / "dotcov" / name)

    def build_arm64_agent(self, build_dir: Path) -> Path | None:
        """On x64 Linux, the arm64 agent too, cross-compiled (native/cmake/aarch64-linux-gnu.cmake), so that
        `dotcov run` also measures the arm64 processes its command starts (under qemu-aarch64-static here, or
        an x64 package's arm64 agent on an arm64 machine): docs/platforms.md. Skipped, with a note, where the
        cross compiler is missing (scripts/setup.sh installs it)."""
        if platform.machine() not in ("x86_64", "AMD64") or sys.platform != "linux":
            return None
        if not shutil.which("aarch64-linux-gnu-g++"):
            print("dotcov setup: aarch64-linux-gnu-g++ not found; the arm64 agent is not built", file=sys.stderr)
            return None
        return self.cross_build_agent(build_dir, "arm64", "aarch64-linux-gnu.cmake", "libdotcov_agent.so")

    def build_windows_agent(self, build_dir: Path) -> Path | None:
        """On Linux, the Windows x64 agent DLL too, cross-compiled with mingw-w64
        (native/cmake/x86_64-w64-mingw32.cmake): docs/platforms.md. Skipped, with a note, where the cross compiler
        is missing (scripts/setup.sh installs it)."""
        if sys.platform != "linux":
            return None
        if not shutil.which("x86_64-w64-mingw32-g++-posix"):
            print("dotcov setup: x86_64-w64-mingw32-g++-posix not found; the Windows agent is not built",
                  file=sys.stderr)
            return None
        return self.cross_build_agent(build_dir, "win", "x86_64-w64-mingw32.cmake", "dotcov_agent.dll")

    def cross_build_agent(self, build_dir: Path, suffix: str, toolchain: str, library: str) -> Path:
        """The agent alone, built with native/cmake/<toolchain> in <build_dir>-<suffix>; the built library's path."""
        cross_dir = build_dir.with_name(f"{build_dir.name}-{suffix}")
        args = [
            "cmake", "-S", str(ROOT / "native"), "-B", str(cross_dir),
            f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'native' / 'cmake' / toolchain}",
            "-DCMAKE_BUILD_TYPE=Release", "-DDOTCOV_BUILD_TESTS=OFF", "-DDOTCOV_BUILD_PYTHON=OFF",
        ]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(cross_dir), "--target", "dotcov_agent"])
        return cross_dir / "agent" / library


class BuildPyWithTemplates(build_py):
    """Ships the repository's templates/ (the HTML report's) inside the package as dotcov/templates.

    An editable install needs no copy: dotcov.html.report.templates_dir() finds <repo>/templates.
    """

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        source = ROOT / "templates"
        target = Path(self.build_lib) / "dotcov" / "templates"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(
    ext_modules=[Extension("dotcov._native", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithTemplates},
    package_data={"dotcov": ["libdotcov_agent.so", ARM64_AGENT, WINDOWS_AGENT]},
)
