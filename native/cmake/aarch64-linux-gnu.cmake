# Cross-compiles native/ for Linux arm64 (aarch64) on an x64 Debian machine:
#   cmake -S native -B build/arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=native/cmake/aarch64-linux-gnu.cmake
# Needs g++-aarch64-linux-gnu and the arm64 libraries (dpkg --add-architecture arm64; zlib1g-dev:arm64,
# libgtest-dev:arm64); scripts/setup.sh installs them. The test executables run under qemu-aarch64-static
# (CMAKE_CROSSCOMPILING_EMULATOR, used by ctest and gtest_discover_tests). On an arm64 machine no toolchain file
# is needed: the same CMakeLists.txt builds natively.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch layout: arm64 libraries in /usr/lib/aarch64-linux-gnu, headers shared in /usr/include.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
find_program(DOTCOV_QEMU_AARCH64 qemu-aarch64-static)
if(DOTCOV_QEMU_AARCH64)
  # -L: where the emulated dynamic loader finds /lib/ld-linux-aarch64.so.1 (multiarch puts it in / already).
  set(CMAKE_CROSSCOMPILING_EMULATOR ${DOTCOV_QEMU_AARCH64})
endif()
