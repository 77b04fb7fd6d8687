#!/usr/bin/env bash
# Makes the HTML report's screenshots in docs/images/ (shown in docs/reports.md) from the bundled sample:
# samples/Calc.Tests is run three times under dotcov (CalculatorTests; then also BranchTests; then every
# test), each run reported by `dotcov html --history`, so the index charts a real history; then
# tests/browser/screenshots.js photographs the pages (Playwright over /usr/bin/chromium, light and dark).
# Needs scripts/setup.sh (the venv, the agent, and tests/browser's npm packages) and the .NET SDK.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
DOTCOV="$ROOT/.venv/bin/dotcov"
cd "$ROOT/samples"
for filter in "FullyQualifiedName~CalculatorTests" "FullyQualifiedName~CalculatorTests|FullyQualifiedName~BranchTests" ""; do
  "$DOTCOV" run --data-dir "$WORK/data" --no-report -- dotnet test Calc.Tests --nologo -v quiet ${filter:+--filter "$filter"}
  "$DOTCOV" html --data-dir "$WORK/data" -d "$WORK/htmlcov" --history "$WORK/history" --title "Calc sample"
done
mkdir -p "$ROOT/docs/images"
node "$ROOT/tests/browser/screenshots.js" "$WORK/htmlcov" "$ROOT/docs/images"
du -ch "$ROOT"/docs/images/*.png | tail -1
