#!/usr/bin/env bash
# The core's GoogleTests and the agent's ABI self-test for Windows x64 (mingw-w64), run under wine64
# (docs/platforms.md); scripts/test.sh runs this in its full tier, in the background while pytest runs. Their own
# build tree, not setup.py's Windows one, which tests/e2e/test_wheel.py's `pip wheel` rebuilds meanwhile. GoogleTest
# is built from Debian's `googletest` source package.
# Needs what scripts/setup.sh installs (g++-mingw-w64-x86-64-posix, libz-mingw-w64-dev, googletest, wine64).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WIN_BUILD=build/win/native
# One Wine prefix for every Wine run of the tests (tests/e2e/test_windows.py's too).
mkdir -p build/win
export WINEDEBUG=-all WINEPREFIX="$ROOT/build/win/wineprefix"
cmake -S native -B "$WIN_BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/native/cmake/x86_64-w64-mingw32.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DDOTCOV_BUILD_PYTHON=OFF -DDOTCOV_BUILD_TESTS=ON \
  -DDOTCOV_GTEST_SOURCE_DIR=/usr/src/googletest >/dev/null
cmake --build "$WIN_BUILD" -j2 --target dotcov_core_tests clr_abi_selftest
/usr/lib/wine/wine64 "$WIN_BUILD/agent/clr_abi_selftest.exe"
# RewriteCheck.SystemPrivateCoreLibHasNoFailures is left out, as under qemu: the same IL work as on Linux x64.
/usr/lib/wine/wine64 "$WIN_BUILD/core/dotcov_core_tests.exe" --gtest_brief=1 \
  --gtest_filter=-RewriteCheck.SystemPrivateCoreLibHasNoFailures
