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

echo "== Python and end-to-end (pytest)"
.venv/bin/python -m pytest -q "$@"
