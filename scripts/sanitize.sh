#!/usr/bin/env bash
# Builds the C++ core and its GoogleTests with AddressSanitizer + UBSan
# (-DDOTCOV_SANITIZE=ON, g++) in build/sanitize and runs them. Any sanitizer
# report aborts the test that triggered it, so this exits non-zero on any
# memory error, leak or undefined behaviour as well as on a failing test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD="$ROOT/build/sanitize"

PACKAGES=(g++ cmake ninja-build libgtest-dev zlib1g-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "sanitize: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== configure + build ($BUILD)"
cmake -S native -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ \
  -DDOTCOV_SANITIZE=ON -DDOTCOV_BUILD_TESTS=ON -DDOTCOV_BUILD_PYTHON=OFF >/dev/null
cmake --build "$BUILD" --target dotcov_core_tests

echo "== core tests under ASan + UBSan"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
ctest --test-dir "$BUILD/core" -j "${SANITIZE_JOBS:-2}" --output-on-failure
# Belt and braces: a report that did not fail its test still fails the run.
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$BUILD/Testing/Temporary/LastTest.log" 2>/dev/null \
   || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$BUILD/core/Testing/Temporary/LastTest.log" 2>/dev/null; then
  echo "sanitize: sanitizer report in the test output" >&2
  exit 1
fi
echo "sanitize: all core tests passed under ASan + UBSan"
