# SPDX-License-Identifier: MIT
# BT_SANITIZE=ON builds every target (core, binding, bt.so, libbt.a, examples, benchmarks, C
# tests) with AddressSanitizer and UndefinedBehaviorSanitizer, and makes every finding fatal.
# Included from the top-level CMakeLists.txt before any target is defined.
#
# It sets, for tests/CMakeLists.txt:
#   BT_SANITIZE_PRELOAD   the sanitizer runtimes a stock, uninstrumented lua5.4 must preload
#                         before it can load the instrumented bt.so (a space-separated list)
#   BT_SANITIZE_TEST_ENV  the ENVIRONMENT entries every test gets (sanitizer options, CC)
#   BT_SANITIZE_LINK      the link flags a consumer of libbt.a/libbtcore.a needs (pkg-config)
option(BT_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

set(BT_SANITIZE_PRELOAD "")
set(BT_SANITIZE_TEST_ENV "")
set(BT_SANITIZE_LINK "")
if(NOT BT_SANITIZE)
  return()
endif()

# float-cast-overflow is not part of -fsanitize=undefined in GCC, but a script can hand bt any
# double (a huge period or wait time), and converting an out-of-range double to an integer is
# undefined. -fno-sanitize-recover=all makes every finding abort the process, so a test fails.
set(BT_SANITIZE_COMPILE
  -fsanitize=address,undefined,float-cast-overflow
  -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
set(BT_SANITIZE_LINK_LIST -fsanitize=address,undefined,float-cast-overflow)

if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  # GCC links the shared runtimes libasan.so and libubsan.so; the interpreter preloads both.
  set(runtimes libasan.so libubsan.so)
elseif(CMAKE_C_COMPILER_ID MATCHES "Clang")
  # Clang links its runtime statically into executables by default, which a MODULE loaded by
  # an uninstrumented interpreter cannot use; the shared one also holds UBSan's handlers.
  list(APPEND BT_SANITIZE_COMPILE -shared-libsan)
  list(APPEND BT_SANITIZE_LINK_LIST -shared-libsan)
  set(runtimes libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
else()
  message(FATAL_ERROR "BT_SANITIZE: unsupported compiler ${CMAKE_C_COMPILER_ID} (use GCC or Clang)")
endif()

foreach(runtime IN LISTS runtimes)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${runtime}
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  # -print-file-name prints the bare name back when it does not find the file
  if(NOT IS_ABSOLUTE "${path}" OR NOT EXISTS "${path}")
    message(FATAL_ERROR "BT_SANITIZE: ${CMAKE_C_COMPILER} has no ${runtime} (on Debian: apt-get install gcc, or libclang-rt-dev for Clang)")
  endif()
  get_filename_component(path "${path}" REALPATH)
  list(APPEND BT_SANITIZE_PRELOAD "${path}")
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    # Clang's shared runtime is not on the loader's default path
    get_filename_component(dir "${path}" DIRECTORY)
    list(APPEND BT_SANITIZE_LINK_LIST "-Wl,-rpath,${dir}")
  endif()
endforeach()
string(REPLACE ";" " " BT_SANITIZE_PRELOAD "${BT_SANITIZE_PRELOAD}")

add_compile_options(${BT_SANITIZE_COMPILE})
add_link_options(${BT_SANITIZE_LINK_LIST})
string(REPLACE ";" " " BT_SANITIZE_LINK "${BT_SANITIZE_LINK_LIST}")

# Options for every test process. Leak detection stays on everywhere, the uninstrumented lua5.4
# included: it closes its state on exit (lua.c does, and busted exits through os.exit(code, true)),
# so whatever is still allocated then is a leak, and the suite shows none that is not bt's; no
# suppression is needed (add a suppressions= file here, with each entry's reason, if one ever is).
set(BT_SANITIZE_TEST_ENV
  "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "BT_SANITIZE_PRELOAD=${BT_SANITIZE_PRELOAD}"
  # a C host that links the instrumented libbt.a needs the compiler whose runtime it uses
  "CC=${CMAKE_C_COMPILER}")
message(STATUS "BT_SANITIZE: ASan and UBSan on; uninstrumented interpreters preload ${BT_SANITIZE_PRELOAD}")
