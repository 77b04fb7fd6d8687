#!/usr/bin/env bash
# The whole core and the agent DLL for Windows x64 (mingw-w64), the core's GoogleTests and the agent's ABI
# self-test under wine64 (docs/platforms.md). Not part of
# scripts/test.sh, which runs only the Windows data-file writer's tests (building everything takes ~5 min of CPU
# on 2 cores). Needs what scripts/setup.sh installs (g++-mingw-w64-x86-64-posix, libz-mingw-w64-dev, googletest,
# wine64).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TOOLCHAIN="$ROOT/native/cmake/x86_64-w64-mingw32.cmake"
OUT="$ROOT/build/win"
export WINEDEBUG=-all WINEPREFIX="$OUT/wineprefix"
# GoogleTest from Debian's source package, built with the same toolchain (never committed).
cmake -S /usr/src/googletest -B "$OUT/googletest" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX="$OUT/googletest-install" >/dev/null
cmake --build "$OUT/googletest" -j2 >/dev/null
cmake --install "$OUT/googletest" >/dev/null
cmake -S native -B "$OUT/native" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=Release \
  -DDOTCOV_BUILD_PYTHON=OFF -DCMAKE_FIND_ROOT_PATH="/usr/x86_64-w64-mingw32;$OUT/googletest-install" >/dev/null
cmake --build "$OUT/native" -j2
/usr/lib/wine/wine64 "$OUT/native/core/dotcov_core_tests.exe" --gtest_brief=1
/usr/lib/wine/wine64 "$OUT/native/agent/clr_abi_selftest.exe"
ls -l "$OUT/native/agent/dotcov_agent.dll"
