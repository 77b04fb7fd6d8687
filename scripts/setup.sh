#!/usr/bin/env bash
# Sets up a development machine: Debian packages, .venv, the native build, and
# an editable install of dotcov (so .venv/bin/dotcov works). Safe to re-run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PACKAGES=(
  python3 python3-venv python3-dev python3-pip python3-setuptools
  python3-click python3-lxml python3-jinja2 python3-pygments python3-rich
  python3-pytest python3-pytest-xdist python3-hypothesis python3-yaml python3-pybind11 pybind11-dev git
  cmake ninja-build g++ libgtest-dev zlib1g-dev
  lcov chromium
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Other platforms (docs/platforms.md): the arm64 agent is cross-compiled (setup.py builds it beside the x64 one)
# and its tests run arm64 programs under qemu-aarch64-static, which needs Debian's arm64 libraries; the Windows
# agent is built with mingw-w64 and tested under wine64. Only on an x64 machine; quiet when all is there.
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  CROSS_PACKAGES=(qemu-user-static g++-aarch64-linux-gnu libc6:arm64 libstdc++6:arm64 zlib1g-dev:arm64
                  libgtest-dev:arm64 g++-mingw-w64-x86-64-posix libz-mingw-w64-dev googletest wine64)
  cross_missing=()
  for p in "${CROSS_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || cross_missing+=("$p")
  done
  if ((${#cross_missing[@]})); then
    echo "setup: installing Debian packages for the other platforms: ${cross_missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${cross_missing[@]}" >/dev/null
  fi
fi

command -v dotnet >/dev/null || { echo "setup: the .NET SDK (dotnet) is required on PATH" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
# Builds native/ with CMake (setup.py) and puts the agent inside the package.
.venv/bin/pip install --quiet --no-build-isolation --no-deps -e . 
.venv/bin/dotcov --version

# The HTML report's browser test (tests/test_html_browser.py): Playwright from the npm registry, pinned by
# tests/browser/package-lock.json; it drives Debian's chromium, so no browser is downloaded.
if command -v npm >/dev/null && node -e 'process.exit(parseInt(process.versions.node, 10) >= 20 ? 0 : 1)'; then
  (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
else
  echo "setup: Node.js 20 or later with npm is required for the HTML report's browser test" >&2
  exit 1
fi
