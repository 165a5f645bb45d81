# SPDX-License-Identifier: MIT
# Cross-compiling bt for 64-bit Windows with MinGW-w64 (Debian: gcc-mingw-w64-x86-64-win32, its
# Win32 threads variant): cmake -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake ... (docs/platforms.md).
# With wine installed, ctest runs the Windows programs under it.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(BT_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "the MinGW-w64 tools' prefix")
set(CMAKE_C_COMPILER ${BT_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${BT_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${BT_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(BT_WINE NAMES wine)
if(BT_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${BT_WINE})
endif()
