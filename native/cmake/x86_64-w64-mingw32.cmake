# Cross-compiles native/ for Windows x64 with Debian's mingw-w64 (g++-mingw-w64-x86-64-posix, libz-mingw-w64-dev):
#   cmake -S native -B build-win -G Ninja -DCMAKE_TOOLCHAIN_FILE=$PWD/native/cmake/x86_64-w64-mingw32.cmake
# Test executables run under wine64 (CMAKE_CROSSCOMPILING_EMULATOR). docs/platforms.md says what is ported.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# No libstdc++/libgcc/winpthread DLLs beside the executables and the agent.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
if(EXISTS /usr/lib/wine/wine64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
endif()
# zlib linked in (libz.a, CMake >= 3.24), so the agent DLL needs no zlib1.dll beside it.
set(ZLIB_USE_STATIC_LIBS ON)
