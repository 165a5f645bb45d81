/* SPDX-License-Identifier: MIT */
/* view.c: a game that turns the live viewer on (bt::view): starts it on any free port, says its
 * URL's beginning, and stops it. */
#include <stdio.h>
#include <string.h>

#include "bt_view.h"

int main(void) {
  bt_view *v = NULL;
  char err[256];
  if (bt_view_create(&v, NULL, err, sizeof err) != BT_OK) {
    printf("view failed: %s\n", err);
    return 1;
  }
  printf("view %s\n", strncmp(bt_view_url(v), "http://127.0.0.1:", 17) == 0 && bt_view_port(v) > 0 ? "ok" : "bad url");
  bt_view_free(v);
  return 0;
}
