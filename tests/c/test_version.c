/* SPDX-License-Identifier: MIT */
/* test_version.c: the version a host sees is the one project() in CMakeLists.txt gives
 * (BT_TEST_PROJECT_VERSION, passed by tests/CMakeLists.txt): BT_VERSION, its parts and bt_version(). */
#include <bt.h>
#include <stdio.h>

#include "check.h"

int main(void) {
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", BT_VERSION_MAJOR, BT_VERSION_MINOR, BT_VERSION_PATCH);
  CHECK_STR(BT_VERSION, BT_TEST_PROJECT_VERSION);
  CHECK_STR(parts, BT_VERSION);
  CHECK_STR(bt_version(), BT_VERSION);
#if BT_VERSION_MAJOR < 0 || BT_VERSION_MINOR < 0 || BT_VERSION_PATCH < 0
#error "BT_VERSION_* must be numbers usable in #if"
#endif
  return check_report("test_version");
}
