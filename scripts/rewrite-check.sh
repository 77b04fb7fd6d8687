#!/usr/bin/env bash
# `dotcov debug rewrite-check` in every probe style (inline, call, atomic, with branch probes and IL maps) over the
# newest shared framework and the newest SDK (Roslyn, MSBuild, F#, NuGet): every method rewritten and its IL map
# checked, no sampling (docs/benchmarks.md). scripts/test.sh runs this in its full tier, in the background while
# pytest runs: it reads only the installed framework and SDK and the package's _native module.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "== rewrite-check over the shared framework"
# Newest Microsoft.NETCore.App: "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]".
FRAMEWORK_DIR="$(dotnet --list-runtimes |
  sed -n 's/^Microsoft\.NETCore\.App \([^ ]*\) \[\(.*\)\]$/\2\/\1/p' | sort -V | tail -1)"
[ -n "$FRAMEWORK_DIR" ] && [ -d "$FRAMEWORK_DIR" ] || { echo "test: no Microsoft.NETCore.App runtime found" >&2; exit 1; }
time .venv/bin/dotcov debug rewrite-check --probes all "$FRAMEWORK_DIR"

echo "== rewrite-check over the SDK (each distinct assembly once)"
SDK_DIR="$(dotnet --list-sdks | sed -n 's/^\([^ ]*\) \[\(.*\)\]$/\2\/\1/p' | sort -V | tail -1)"
[ -n "$SDK_DIR" ] && [ -d "$SDK_DIR" ] || { echo "test: no .NET SDK found" >&2; exit 1; }
# The SDK ships many assemblies several times over (Roslyn, MSBuild and NuGet in several tool folders): 239 of its
# 678 code assemblies (10.0.401) are byte-identical copies of another, and a rewrite depends only on the bytes, so
# each content is checked once (the first path in sorted order); resource-only assemblies hold no method.
mapfile -t SDK_ASSEMBLIES < <(find "$SDK_DIR" -type f \( -name '*.dll' -o -name '*.exe' \) ! -name '*.resources.dll' \
  -print0 | sort -z | xargs -0 sha1sum | sort -s -k1,1 -u | cut -c43- | sort)
echo "${#SDK_ASSEMBLIES[@]} distinct assemblies"
time .venv/bin/dotcov debug rewrite-check --probes all "${SDK_ASSEMBLIES[@]}"
