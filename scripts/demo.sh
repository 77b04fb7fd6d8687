#!/usr/bin/env bash
# Sets up, then measures the coverage of the bundled sample's tests and shows the report: the table,
# Cobertura XML in samples/coverage.cobertura.xml and HTML in samples/htmlcov/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh >/dev/null
cd samples
../.venv/bin/dotcov run --no-report -- dotnet test Calc.Tests --nologo -v quiet
../.venv/bin/dotcov report --show-missing
../.venv/bin/dotcov xml -o coverage.cobertura.xml
../.venv/bin/dotcov html -d htmlcov
echo "Open samples/htmlcov/index.html in a browser for the HTML report."
