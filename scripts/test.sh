#!/usr/bin/env bash
# Sets up, then runs the tests in one of two tiers:
#
#   scripts/test.sh          every test (what CI runs): the C++ core (GoogleTest via CTest; for arm64 under qemu and
#                            for Windows x64 under wine64), rewrite-check over the shared framework and the SDK, the
#                            fast tier below, then the tests marked `dotnet` (they build the samples once and run them
#                            under the real agent), the core under ASan + UBSan, and bounded fuzzing
#   scripts/test.sh --fast   the C++ core and every pytest test that needs no .NET build (`-m "not dotnet"`,
#                            tests/conftest.py), in parallel (pytest-xdist)
#
# Further arguments go to pytest (e.g. `scripts/test.sh --fast -k cobertura`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FAST=0
if [ "${1:-}" = "--fast" ]; then
  FAST=1
  shift
fi
JOBS="$(nproc)"

# Each phase's wall time, printed as one table when the script ends (also when a phase fails): where a run's time
# goes, in every CI log.
PHASE_NAME="set-up (scripts/setup.sh)"
PHASE_START=$SECONDS
PHASE_TIMES=()
phase() {
  PHASE_TIMES+=("$(printf '%6d s  %s' $((SECONDS - PHASE_START)) "$PHASE_NAME")")
  PHASE_NAME="$1"
  PHASE_START=$SECONDS
  echo "== $1"
}
print_phases() {
  PHASE_TIMES+=("$(printf '%6d s  %s' $((SECONDS - PHASE_START)) "$PHASE_NAME")")
  echo "== wall time by phase (background jobs overlap the phases they ran beside)"
  printf '%s\n' "${PHASE_TIMES[@]}"
  local f
  for f in "${LOGS:-/nonexistent}"/*.secs; do
    [ -f "$f" ] && printf '%6d s  %s (in the background)\n' "$(cat "$f")" "$(basename "$f" .secs)"
  done
  printf '%6d s  in all\n' "$SECONDS"
}
on_exit() {
  [ -z "${BACKGROUND:-}" ] || kill -- "-$BACKGROUND" 2>/dev/null || true
  print_phases
}
trap on_exit EXIT

bash scripts/setup.sh

# pytest; exit 5 (no test collected) is an error unless arguments narrowed this run (then the other tier may hold
# the tests they name; `ran` counts the runs that had tests, and a run where none had any fails at the end).
ran=0
run_pytest() {
  local rc=0
  .venv/bin/python -m pytest "$@" || rc=$?
  if [ "$rc" -eq 5 ] && [ "$NARROWED" -eq 1 ]; then
    echo "test: no test of this tier matches the arguments"
    return 0
  fi
  [ "$rc" -eq 0 ] || exit "$rc"
  ran=$((ran + 1))
}
NARROWED=$(($# > 0))

phase "C++ core (CTest)"
# Only what CTest runs (the core's GoogleTests and the agent's ABI self-test): setup.sh built the agent and the
# Python module already (build/python).
cmake -S native -B build/native -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOTCOV_BUILD_PYTHON=OFF >/dev/null
cmake --build build/native --target dotcov_core_tests clr_abi_selftest
ctest --test-dir build/native --output-on-failure -j"$JOBS"

if [ "$FAST" -eq 1 ]; then
  phase "Python, no .NET build (pytest -m 'not dotnet', $JOBS workers)"
  run_pytest -q -n "$JOBS" -m "not dotnet" "$@"
  [ "$ran" -gt 0 ] || { echo "test: no test matches the arguments" >&2; exit 5; }
  exit 0
fi

# Jobs that need nothing from pytest run at low priority while pytest runs (whose .NET builds and test hosts
# leave part of the 2 CPUs idle), in two chains: the compile jobs (the core's Windows build, its GoogleTests then
# run under wine64; the sanitizer build and tests; the fuzzers' build) and rewrite-check over the framework and the
# SDK. Their output is shown after pytest's. The fuzzers themselves run afterwards, each its full bounded time on an
# otherwise idle machine.
LOGS="$ROOT/build/test-logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.rc "$LOGS"/*.secs
echo "== started in the background: the C++ core for Windows x64 (built, run under wine64), the C++ core under" \
  "ASan + UBSan (build and tests), the fuzzers' build; rewrite-check over the shared framework and the SDK"
# `chain NAME:SCRIPT ...`: each script in turn, its output, status and wall time in $LOGS/NAME.{log,rc,secs}.
chain() {
  local job start
  for job in "$@"; do
    start=$SECONDS
    nice -n 10 bash ${job#*:} >"$LOGS/${job%%:*}.log" 2>&1
    echo $? >"$LOGS/${job%%:*}.rc"
    echo $((SECONDS - start)) >"$LOGS/${job%%:*}.secs"
  done
}
# Their own process group (set -m), so that an early exit stops the compilers too.
set -m
(
  set +e
  chain windows-core:scripts/test-windows-core.sh sanitize:scripts/sanitize.sh "fuzz-build:scripts/fuzz.sh --build-only" &
  chain rewrite-check:scripts/rewrite-check.sh &
  wait
) &
BACKGROUND=$!
set +m

phase "C++ core on arm64 (cross-compiled, run under qemu-aarch64-static; docs/platforms.md)"
# setup.py cross-compiled the core and the arm64 agent into build/python-arm64; the tests reuse that core.
# RewriteCheck.SystemPrivateCoreLibHasNoFailures is left out here: the same IL work as on x64 (the x64 CoreLib),
# 265 s under emulation; tests/e2e/test_arm64.py runs rewrite-check over the arm64 runtime pack instead.
ARM64_BUILD="${DOTCOV_CMAKE_BUILD_DIR:-build/python}-arm64"
cmake -S native -B "$ARM64_BUILD" -DDOTCOV_BUILD_TESTS=ON >/dev/null
cmake --build "$ARM64_BUILD" -j2 --target dotcov_core_tests clr_abi_selftest
qemu-aarch64-static "$ARM64_BUILD/agent/clr_abi_selftest"
qemu-aarch64-static "$ARM64_BUILD/core/dotcov_core_tests" --gtest_brief=1 \
  --gtest_filter=-RewriteCheck.SystemPrivateCoreLibHasNoFailures

phase "Python, no .NET build (pytest -m 'not dotnet', $JOBS workers)"
run_pytest -q -n "$JOBS" -m "not dotnet" "$@"
phase "Python and end-to-end with .NET builds (pytest -m dotnet, $JOBS workers: each build made once and shared)"
# Whole files to a worker (--dist loadfile): a file's module fixtures (a measured run of a sample) are made once.
# Test hosts wait on start-up and I/O, so two workers fill the CPUs one leaves idle.
run_pytest -q -n "$JOBS" --dist loadfile --durations=60 -m dotnet "$@"
[ "$ran" -gt 0 ] || { echo "test: no test matches the arguments" >&2; exit 5; }

phase "waiting for the background jobs"
wait "$BACKGROUND" || true
BACKGROUND=""
phase "rewrite-check over the shared framework and the SDK, every probe style (run in the background)"
cat "$LOGS/rewrite-check.log"
[ "$(cat "$LOGS/rewrite-check.rc")" -eq 0 ] || exit 1

phase "C++ core for Windows x64: GoogleTests and the ABI self-test under wine64 (built and run in the background)"
cat "$LOGS/windows-core.log"
[ "$(cat "$LOGS/windows-core.rc")" -eq 0 ] || exit 1

phase "C++ core under AddressSanitizer and UndefinedBehaviorSanitizer (built and run in the background)"
cat "$LOGS/sanitize.log"
[ "$(cat "$LOGS/sanitize.rc")" -eq 0 ] || exit 1

phase "fuzzing the readers (bounded: ${FUZZ_SECONDS:-20} s a target)"
cat "$LOGS/fuzz-build.log"
[ "$(cat "$LOGS/fuzz-build.rc")" -eq 0 ] || exit 1
bash scripts/fuzz.sh
