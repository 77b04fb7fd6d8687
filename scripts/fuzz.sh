#!/usr/bin/env bash
# Builds the libFuzzer targets of the C++ core (native/fuzz) with clang-14 and
# ASan + UBSan, then runs each one for a bounded time over the committed seed
# corpus (`ctest -L fuzz`). Exits non-zero on any crash, leak, timeout or
# sanitizer report; reproducers are left in
# build/fuzz/fuzz/scratch/<target>/artifacts (replay one with
# `build/fuzz/fuzz/fuzz_<target> <file>`).
#
#   scripts/fuzz.sh                 # every target, FUZZ_SECONDS (20) each
#   FUZZ_SECONDS=300 scripts/fuzz.sh
#   scripts/fuzz.sh --regen-seeds   # rebuild native/fuzz/corpus from native/core/tests/data
#   scripts/fuzz.sh --build-only    # build the targets, run nothing (scripts/test.sh builds them early)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"
FUZZ_JOBS="${FUZZ_JOBS:-2}"
BUILD="$ROOT/build/fuzz"

# clang-14 with its compiler-rt (libFuzzer and the sanitizer runtimes).
PACKAGES=(clang-14 libclang-rt-14-dev cmake ninja-build zlib1g-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fuzz: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
libfuzzer="$(clang++-14 -print-runtime-dir)/libclang_rt.fuzzer-x86_64.a"
if [ ! -f "$libfuzzer" ]; then
  echo "fuzz: libFuzzer is missing for clang-14 ($libfuzzer)" >&2
  exit 1
fi

echo "== configure + build ($BUILD)"
cmake -S native -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-14 -DDOTCOV_FUZZ=ON -DDOTCOV_BUILD_TESTS=OFF -DDOTCOV_BUILD_PYTHON=OFF \
  -DDOTCOV_FUZZ_SECONDS="$FUZZ_SECONDS" >/dev/null
if [ "${1:-}" = "--regen-seeds" ]; then
  cmake --build "$BUILD" --target make_seeds
  rm -rf native/fuzz/corpus
  "$BUILD/fuzz/make_seeds" native/core/tests/data native/fuzz/corpus
  exit 0
fi
cmake --build "$BUILD" --target dotcov_fuzzers
[ "${1:-}" = "--build-only" ] && exit 0

echo "== fuzz (${FUZZ_SECONDS}s per target)"
ctest --test-dir "$BUILD" -L fuzz -j "$FUZZ_JOBS" --output-on-failure
for log in "$BUILD"/fuzz/scratch/*/last_run.log; do
  t="$(basename "$(dirname "$log")")"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  echo "fuzz: $t: ${runs:-?} runs, ${rate:-?} exec/s"
done
