/* SPDX-License-Identifier: MIT */
/* test_renamed.c: a host written against the names bt had before 0.3 compiles and works
 * unchanged (CHANGELOG.md, "Renamed"): each old name is an alias of its new one. */
#include <stdio.h>

#include "harness.h"

/* a log written through a function: the bytes are kept to read them back */
static bt_buf written;

static int keep(void *ud, const void *data, size_t size) {
  (void)ud;
  return bt_buf_append(&written, data, size) == BT_OK ? 0 : -1;
}

static void test_engine_names(void) {
  bt_graph *g = NULL;
  CHECK_INT(bt_graph_new(&g), BT_OK);
  CHECK(g != NULL);
  bt_graph_free(g);

  bt_lib *lib = NULL;
  CHECK_INT(bt_lib_new(&lib), BT_OK);
  CHECK(lib != NULL);
  bt_lib_free(lib);

  bt_builder *b = NULL;
  CHECK_INT(bt_builder_new(&b), BT_OK);
  CHECK(b != NULL);
  bt_builder_free(b);

  /* bytes that are no saved state: refused with a message, as by the new name */
  bt_saved *saved = NULL;
  char err[128] = "";
  CHECK(bt_saved_open(&saved, "nonsense", 8, err, sizeof err) != BT_OK);
  CHECK(saved == NULL && err[0] != '\0');
}

static void test_record_names(void) {
  bt_log *log = NULL;
  char err[128] = "";
  CHECK_INT(bt_log_open_fn(&log, keep, NULL, 0, err, sizeof err), BT_OK);
  CHECK_INT(bt_log_close(log), BT_OK);
  CHECK(written.len > 0);

  /* a log that cannot be made: refused with a message */
  CHECK(bt_log_open(&log, "/nonexistent-folder/x.btlog", 0, err, sizeof err) != BT_OK);
  CHECK(log == NULL && err[0] != '\0');

  bt_log_reader *r = NULL;
  CHECK_INT(bt_log_reader_new(&r), BT_OK);
  CHECK_INT(bt_log_reader_feed(r, written.data, written.len), BT_OK);
  bt_log_record rec;
  while (bt_log_read(r, &rec) == 1) {
  }
  CHECK_INT(bt_log_reader_where(r, NULL), BT_LOG_ENDED);
  bt_log_reader_free(r);

  r = NULL;
  CHECK(bt_log_reader_open(&r, "/nonexistent-folder/x.btlog", err, sizeof err) != BT_OK);
  CHECK(r == NULL);
  bt_buf_free(&written);
}

static void test_sched_names(void) {
  bt_sched *s = NULL;
  CHECK_INT(bt_sched_create(&s, 1.0 / 30), BT_OK);
  int id = bt_sched_brain_new(s);
  CHECK(id >= 0);
  CHECK_INT(bt_sched_brain_free(s, id), BT_OK);
  bt_sched_free(s);

  static leaf cond;
  cond.name = "C";
  bt_graph *g2 = new_graph();
  bt_inst *in = build(g2, add_fn(g2, BT_CONDITION, &cond, NULL), 0);
  bt_tsched *ts = NULL;
  CHECK_INT(bt_tsched_create(&ts, 1.0 / 30), BT_OK);
  id = bt_tsched_brain_new(ts, in);
  CHECK(id >= 0);
  CHECK_INT(bt_tsched_brain_free(ts, id), BT_OK);
  bt_tsched_free(ts);
  bt_inst_free(in);
}

int main(void) {
  test_engine_names();
  test_record_names();
  test_sched_names();
  return check_report("test_renamed");
}
