#!/usr/bin/env bash
# Runs one libFuzzer target for CTest: run_fuzzer.sh FUZZER SEED_DIR SCRATCH_DIR [libFuzzer flags...]
# New inputs go to SCRATCH_DIR/corpus (libFuzzer writes into its first corpus
# directory only), crash/leak/timeout reproducers to SCRATCH_DIR/artifacts, so
# the committed SEED_DIR is only read. Exits non-zero on any crash or
# sanitizer report, and when the fuzzer did not actually run.
set -uo pipefail
fuzzer="$1" seeds="$2" scratch="$3"
shift 3
mkdir -p "$scratch/corpus" "$scratch/artifacts"
log="$scratch/last_run.log"
"$fuzzer" "$@" -artifact_prefix="$scratch/artifacts/" "$scratch/corpus" "$seeds" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [[ $rc -ne 0 ]]; then
  echo "run_fuzzer: $(basename "$fuzzer") exited with $rc; reproducers in $scratch/artifacts" >&2
  exit "$rc"
fi
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:' "$log"; then
  echo "run_fuzzer: sanitizer report in the output of $(basename "$fuzzer")" >&2
  exit 1
fi
if ! grep -q 'Done [0-9]* runs' "$log"; then
  echo "run_fuzzer: $(basename "$fuzzer") did not finish its run" >&2
  exit 1
fi
exit 0
