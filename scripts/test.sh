#!/usr/bin/env bash
# Sets up, then runs every test: the C++ core (GoogleTest via CTest) and the
# Python and end-to-end suites (pytest; the e2e tests build the samples and run
# them under the real agent).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh

echo "== C++ core (CTest)"
cmake -S native -B build/native -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build/native
ctest --test-dir build/native --output-on-failure -j2

echo "== C++ core on arm64 (cross-compiled, run under qemu-aarch64-static; docs/platforms.md)"
# setup.py cross-compiled the core and the arm64 agent into build/python-arm64; the tests reuse that core.
# RewriteCheck.SystemPrivateCoreLibHasNoFailures is left out here: the same IL work as on x64 (the x64 CoreLib),
# 265 s under emulation; tests/e2e/test_arm64.py runs rewrite-check over the arm64 runtime pack instead.
ARM64_BUILD="${DOTCOV_CMAKE_BUILD_DIR:-build/python}-arm64"
cmake -S native -B "$ARM64_BUILD" -DDOTCOV_BUILD_TESTS=ON >/dev/null
cmake --build "$ARM64_BUILD" -j2 --target dotcov_core_tests clr_abi_selftest
qemu-aarch64-static "$ARM64_BUILD/agent/clr_abi_selftest"
qemu-aarch64-static "$ARM64_BUILD/core/dotcov_core_tests" --gtest_brief=1 \
  --gtest_filter=-RewriteCheck.SystemPrivateCoreLibHasNoFailures

echo "== the Windows data-file writer (mingw-w64, its GoogleTests under wine64; docs/platforms.md)"
# Only the writer and its tests (30 s of CPU); scripts/test-windows-core.sh builds and runs the whole core.
mkdir -p build/win
x86_64-w64-mingw32-g++-posix -O1 -std=gnu++20 -Inative/core/include -I/usr/src/googletest/googletest/include \
  -I/usr/src/googletest/googletest /usr/src/googletest/googletest/src/gtest-all.cc \
  /usr/src/googletest/googletest/src/gtest_main.cc native/core/src/data_file.cpp native/core/tests/data_file_win_test.cpp \
  -static -o build/win/data_file_win_tests.exe
WINEDEBUG=-all WINEPREFIX="$ROOT/build/win/wineprefix" /usr/lib/wine/wine64 build/win/data_file_win_tests.exe --gtest_brief=1
# The agent's COM ABI as mingw-w64 lays it out (every vtable slot of clr_abi.h; 3 s). The agent DLL itself is built
# and run under wine64 by tests/e2e/test_windows.py.
x86_64-w64-mingw32-g++-posix -O1 -std=gnu++20 -DDOTCOV_CLR_ABI_SELFTEST native/agent/clr_abi_check.cpp -static \
  -o build/win/clr_abi_selftest.exe
WINEDEBUG=-all WINEPREFIX="$ROOT/build/win/wineprefix" /usr/lib/wine/wine64 build/win/clr_abi_selftest.exe

echo "== rewrite-check over the shared framework (every probe style: inline, call, atomic, with branch probes and IL maps)"
# Newest Microsoft.NETCore.App: "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]".
FRAMEWORK_DIR="$(dotnet --list-runtimes |
  sed -n 's/^Microsoft\.NETCore\.App \([^ ]*\) \[\(.*\)\]$/\2\/\1/p' | sort -V | tail -1)"
[ -n "$FRAMEWORK_DIR" ] && [ -d "$FRAMEWORK_DIR" ] || { echo "test: no Microsoft.NETCore.App runtime found" >&2; exit 1; }
# --probes all (the default): the three styles over all ~130k methods; measured 11.7 s CPU for inline and call
# against 4.3 s for call probes alone, the atomic style (--exact-counts) 9.9 s more (docs/benchmarks.md), so no
# sampling. Over the SDK the atomic style alone took 67 s CPU.
time .venv/bin/dotcov debug rewrite-check --probes all "$FRAMEWORK_DIR"

echo "== rewrite-check over the SDK (Roslyn, MSBuild, F#, NuGet: ~915k methods, the three probe styles)"
SDK_DIR="$(dotnet --list-sdks | sed -n 's/^\([^ ]*\) \[\(.*\)\]$/\2\/\1/p' | sort -V | tail -1)"
[ -n "$SDK_DIR" ] && [ -d "$SDK_DIR" ] || { echo "test: no .NET SDK found" >&2; exit 1; }
time .venv/bin/dotcov debug rewrite-check --probes all "$SDK_DIR"

echo "== Python and end-to-end (pytest)"
.venv/bin/python -m pytest -q "$@"

echo "== C++ core under AddressSanitizer and UndefinedBehaviorSanitizer"
bash scripts/sanitize.sh

echo "== fuzzing the readers (bounded: ${FUZZ_SECONDS:-20} s a target)"
bash scripts/fuzz.sh
