/* SPDX-License-Identifier: MIT */
/*
 * bt-log: reads the log files bt's recorders write (docs/log-format.md) and says what happened:
 *
 *   bt-log print FILE [filters]   the records, one line each, tab-separated
 *   bt-log tree FILE --agent A --at T [--dot]   an agent's tree at a moment, as the dump shows it
 *   bt-log why FILE --agent A --at T   why each Priority and ActiveSelector above what runs runs
 *                                      its child: the latest switch and its cause
 *   bt-log board FILE --agent A --at T   an agent's blackboard at a moment: each key's value
 *   bt-log stats FILE [--agent ID] [--label PATTERN] [--order time|visits|tree]
 *                                 per shape and per node: visits, successes, failures, time
 *                                 running, ..., hottest first (the core's bt_stats, as at run time)
 *   bt-log coverage FILE [--agent ID] [--label PATTERN] [--format text|lcov|cobertura]
 *                                 per node: visited or not, with the figures of stats, as
 *                                 text, lcov or Cobertura (the test kit's bt_coverage)
 *   bt-log view FILE [--address A] [--port P] [--token T]
 *                                 serves the live viewer's page on the log (libbtview,
 *                                 docs/viewer.md) until interrupted
 *   bt-log diff A B [--agent ID] [--label PATTERN]
 *                                 compares two logs agent by agent (libbttest's bt_diff): each
 *                                 differing agent's first differing record, then a summary; exit
 *                                 status 0 the same, 1 they differ, 2 bad usage or a bad log
 *
 * docs/man/bt-log.1 and docs/debugging.md describe every flag and every output format; both are
 * stable, for scripts. FILE may be "-": the standard input. A log still being written is read as
 * far as it goes; --follow waits for more.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt.h"
#include "bt_test.h"
#include "btp.h"
#ifdef BT_LOG_VIEW
#include <signal.h>

#include "bt_view.h"
#endif

static const char USAGE[] =
    "usage: bt-log print FILE [--agent ID]... [--label PATTERN]... [--node PATH]...\n"
    "                         [--from T] [--to T] [--status NAME]... [--type TYPE]... [--bytes]\n"
    "                         [--follow]\n"
    "       bt-log tree FILE (--agent ID | --label PATTERN) --at T [--dot]\n"
    "       bt-log why FILE (--agent ID | --label PATTERN) --at T\n"
    "       bt-log board FILE (--agent ID | --label PATTERN) --at T\n"
    "       bt-log stats FILE [--agent ID]... [--label PATTERN]... [--order time|visits|tree]\n"
    "       bt-log coverage FILE [--agent ID]... [--label PATTERN]... [--format FORMAT]\n"
    "       bt-log view FILE [--address A] [--port P] [--token T]\n"
    "       bt-log diff A B [--agent ID]... [--label PATTERN]...\n"
    "\n"
    "Reads a log file of bt's recorders (FILE - reads the standard input), also one still\n"
    "being written, and prints:\n"
    "  print   its records, one line each: time, agent, label, think, type, then what the\n"
    "          type says, separated by tabs; a byte of a label, path, message or host's\n"
    "          bytes that is not printable ASCII is written \\xNN (\\t \\n \\r \\\\ for those)\n"
    "  tree    an agent's tree at time T, in the layout of the tree dump, or as DOT\n"
    "  why     for each Priority and ActiveSelector above what the agent runs at T: the\n"
    "          latest switch of its running child, its time and its cause; for an agent\n"
    "          gone at T (its tree was stopped: it died or left), since when, and what it\n"
    "          ran then\n"
    "  board   an agent's blackboard at time T: each key, its type and its value\n"
    "  stats   per tree shape and per node, summed over the agents: visits, successes,\n"
    "          failures, aborts, runs, thinks running, time running, longest run, errors,\n"
    "          hottest first (the same figures as the statistics at run time)\n"
    "  view    serves the viewer's page on the log (a browser replays it, fetching windows\n"
    "          of it) and prints its URL; until interrupted (Ctrl-C)\n"
    "  diff    compares two logs of one session, agent by agent (matched by id): for each\n"
    "          agent that differs, its first differing record (time, agent, label, node,\n"
    "          A's record, B's record), for each agent only one log has, which; then the\n"
    "          summary. Compared: statuses, thinks and sleep times, events, errors (not\n"
    "          their messages), reloads, key writes; nodes by their path\n"
    "\n"
    "  --agent ID       the agent of that id (print: any of those given)\n"
    "  --label PATTERN  agents whose label matches the shell pattern (print: any of those)\n"
    "  --node PATH      records of nodes whose path, or an ancestor's, matches the pattern\n"
    "                   (Root/Flee, */Wander; siblings of one name are Name#1, Name#2, ...)\n"
    "  --from T, --to T records from, and to, time T (seconds; both included)\n"
    "  --status NAME    status records into READY, SUCCESS, FAILED or RUNNING\n"
    "  --type TYPE      records of that type: status think event error reload host world lost\n"
    "                   stop key (the default: all of these), attach saved describe\n"
    "  --bytes          print: the bytes of host and world records too (else their code and\n"
    "                   size only)\n"
    "  --follow         at the end of the file, wait for more until the log's end\n"
    "  --at T           the moment, in seconds, of tree, why and board\n"
    "  --dot            tree: the Graphviz DOT picture, statuses coloured\n"
    "  --order ORDER    stats: time (the default: most time running first), visits, or tree\n"
    "                   (pre-order)\n"
    "  --format FORMAT  coverage: text (the default), lcov (a tracefile, for genhtml) or\n"
    "                   cobertura (XML); a file is named by the agents' label, its lines are\n"
    "                   the nodes' pre-order numbers from 1\n"
    "  --address A      view: the address to listen on (default 127.0.0.1; another needs\n"
    "                   --token)\n"
    "  --port P         view: the port (default 8642; 0: any free port)\n"
    "  --token T        view: the token every request must carry (letters, digits, - _ . ~)\n"
    "  --help           this text\n"
    "  --version        bt-log's version\n"
    "\n"
    "Exit status: 0 when the file was read (to its end, or as far as it goes: a log cut or\n"
    "being written, which a line on standard error says), 1 when it is not a log or is\n"
    "damaged (the records before the damage are printed), 2 for bad usage.\n"
    "diff: 0 when the logs are the same, 1 when they differ, 2 for bad usage or a log that\n"
    "cannot be read (not a log, damaged: the message names it).\n";

static const char *prog_file; /* FILE, for messages */

static void die_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bt-log: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(bt-log --help lists the subcommands and flags)\n");
  exit(2);
}

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bt-log: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  exit(1);
}

/* ---- options ---- */

#define MAX_LIST 64

typedef struct options {
  const char *command, *file;
  const char *file2; /* diff: B */
  unsigned long long agents[MAX_LIST];
  int nagents;
  const char *labels[MAX_LIST];
  int nlabels;
  const char *nodes[MAX_LIST];
  int nnodes;
  double from, to, at;
  int has_at;
  unsigned statuses; /* bit per status; 0: any */
  unsigned types;    /* bit per record type; 0: the default ones */
  int follow, dot;
  int bytes; /* print: the bytes of host and world records */
  int order; /* stats: BT_STATS_BY_* */
  int has_order; /* --order was given */
  int format;    /* coverage: BT_COVERAGE_*, -1 unless given */
  const char *address, *token; /* view */
  int port;                    /* view: -1 unless given */
  int filters;                 /* flags given other than view's */
} options;

static const struct {
  const char *name;
  int type;
} TYPES[] = {{"status", BT_REC_STATUS}, {"think", BT_REC_THINK},   {"event", BT_REC_EVENT},
             {"error", BT_REC_ERROR},   {"reload", BT_REC_RELOAD}, {"host", BT_REC_HOST},
             {"world", BT_LOG_WORLD},   {"lost", BT_LOG_LOST},     {"stop", BT_LOG_STOP},
             {"key", BT_REC_KEY},       {"attach", BT_LOG_ATTACH}, {"saved", BT_LOG_SAVED},
             {"describe", BT_LOG_DESCRIBE}};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])
#define DEFAULT_TYPES 0x3ff /* the first 10 of TYPES */

static const char *type_name(int type) {
  for (size_t i = 0; i < NTYPES; i++)
    if (TYPES[i].type == type) return TYPES[i].name;
  return "unknown";
}

static unsigned type_bit(int type) {
  for (size_t i = 0; i < NTYPES; i++)
    if (TYPES[i].type == type) return 1u << i;
  return 0;
}

static double parse_time(const char *flag, const char *v) {
  char *end = NULL;
  errno = 0;
  double t = strtod(v, &end);
  if (!*v || *end || errno || t != t) die_usage("%s needs a time in seconds, got '%s'", flag, v);
  return t;
}

/* Calls fn on each comma-separated word of v. */
static void each_word(const char *flag, const char *v, void (*fn)(const char *flag, const char *word, options *o),
                      options *o) {
  char buf[256];
  if (strlen(v) >= sizeof buf) die_usage("%s: '%s' is too long", flag, v);
  snprintf(buf, sizeof buf, "%s", v);
  for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) fn(flag, w, o);
}

static void add_status(const char *flag, const char *w, options *o) {
  for (int s = BT_READY; s <= BT_RUNNING; s++)
    if (strcmp(w, bt_status_name(s)) == 0) {
      o->statuses |= 1u << s;
      return;
    }
  die_usage("%s: '%s' is no status (READY, SUCCESS, FAILED, RUNNING)", flag, w);
}

static void add_type(const char *flag, const char *w, options *o) {
  for (size_t i = 0; i < NTYPES; i++)
    if (strcmp(w, TYPES[i].name) == 0) {
      o->types |= 1u << i;
      return;
    }
  die_usage("%s: '%s' is no record type (status think event error reload host world lost stop key attach "
            "saved describe)",
            flag, w);
}

static void parse(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->from = -1e308;
  o->to = 1e308;
  o->order = BT_STATS_BY_TIME;
  o->format = -1;
  o->port = -1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(USAGE, stdout);
      exit(0);
    }
    if (strcmp(arg, "--version") == 0) {
      printf("bt-log (bt) %s\n", BT_VERSION);
      exit(0);
    }
  }
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--follow") == 0) {
      o->follow = 1;
      o->filters = 1;
      continue;
    }
    if (strcmp(arg, "--dot") == 0) {
      o->dot = 1;
      o->filters = 1;
      continue;
    }
    if (strcmp(arg, "--bytes") == 0) {
      o->bytes = 1;
      o->filters = 1;
      continue;
    }
    static const char *const valued[] = {"--agent", "--label", "--node", "--from", "--to", "--status", "--type",
                                         "--at", "--order", "--format", "--address", "--port", "--token", NULL};
    const char *flag = NULL, *value = NULL;
    for (int k = 0; valued[k]; k++) {
      size_t n = strlen(valued[k]);
      if (strncmp(arg, valued[k], n) == 0 && (arg[n] == 0 || arg[n] == '=')) {
        flag = valued[k];
        if (arg[n] == '=') value = arg + n + 1;
        else if (i + 1 < argc) value = argv[++i];
        else die_usage("%s needs a value", flag);
        break;
      }
    }
    if (!flag) {
      if (arg[0] == '-' && arg[1]) die_usage("unknown flag '%s'", arg);
      if (!o->command) o->command = arg;
      else if (!o->file) o->file = arg;
      else if (!o->file2 && strcmp(o->command, "diff") == 0) o->file2 = arg;
      else die_usage("unexpected argument '%s'", arg);
      continue;
    }
    if (strcmp(flag, "--address") == 0 || strcmp(flag, "--token") == 0) {
      if (!*value) die_usage("%s needs a value", flag);
      if (flag[2] == 'a') o->address = value;
      else o->token = value;
      continue;
    }
    if (strcmp(flag, "--port") == 0) {
      char *end = NULL;
      errno = 0;
      long v = strtol(value, &end, 10);
      if (!*value || *end || errno || v < 0 || v > 65535) die_usage("--port needs a port from 0 to 65535, got '%s'", value);
      o->port = (int)v;
      continue;
    }
    o->filters = 1;
    if (strcmp(flag, "--agent") == 0) {
      char *end = NULL;
      errno = 0;
      unsigned long long v = strtoull(value, &end, 10);
      if (!*value || *end || errno || value[0] == '-') die_usage("--agent needs an agent's id (a whole number), got '%s'", value);
      if (o->nagents == MAX_LIST) die_usage("more than %d --agent", MAX_LIST);
      o->agents[o->nagents++] = v;
    } else if (strcmp(flag, "--label") == 0 || strcmp(flag, "--node") == 0) {
      if (!*value) die_usage("%s needs a pattern", flag);
      int *n = flag[2] == 'l' ? &o->nlabels : &o->nnodes;
      if (*n == MAX_LIST) die_usage("more than %d %s", MAX_LIST, flag);
      (flag[2] == 'l' ? o->labels : o->nodes)[(*n)++] = value;
    } else if (strcmp(flag, "--from") == 0) {
      o->from = parse_time(flag, value);
    } else if (strcmp(flag, "--to") == 0) {
      o->to = parse_time(flag, value);
    } else if (strcmp(flag, "--at") == 0) {
      o->at = parse_time(flag, value);
      o->has_at = 1;
    } else if (strcmp(flag, "--order") == 0) {
      o->has_order = 1;
      if (strcmp(value, "time") == 0) o->order = BT_STATS_BY_TIME;
      else if (strcmp(value, "visits") == 0) o->order = BT_STATS_BY_VISITS;
      else if (strcmp(value, "tree") == 0) o->order = BT_STATS_BY_TREE;
      else die_usage("--order needs time, visits or tree, got '%s'", value);
    } else if (strcmp(flag, "--format") == 0) {
      if (strcmp(value, "text") == 0) o->format = BT_COVERAGE_TEXT;
      else if (strcmp(value, "lcov") == 0) o->format = BT_COVERAGE_LCOV;
      else if (strcmp(value, "cobertura") == 0) o->format = BT_COVERAGE_COBERTURA;
      else die_usage("--format needs text, lcov or cobertura, got '%s'", value);
    } else if (strcmp(flag, "--status") == 0) {
      each_word(flag, value, add_status, o);
    } else {
      each_word(flag, value, add_type, o);
    }
  }
  if (!o->command) die_usage("no subcommand (print, tree, why, board, stats, coverage, view, diff)");
  if (strcmp(o->command, "view") != 0 && (o->address || o->token || o->port >= 0))
    die_usage("--address, --port and --token are for view");
  if (!o->file) die_usage("%s: no FILE", o->command);
  if (strcmp(o->command, "diff") == 0 && !o->file2) die_usage("diff: it needs two logs, A and B");
}

/* ---- reading ---- */

typedef struct source {
  bt_log_reader *r;
  FILE *in; /* the standard input, fed to r */
  int follow;
} source;

static void source_open(source *s, const char *file, int follow) {
  char err[512];
  memset(s, 0, sizeof *s);
  s->follow = follow;
  prog_file = file;
  if (strcmp(file, "-") == 0) {
    prog_file = "(standard input)";
    s->in = stdin;
    if (btp_stream_binary(stdin) != BT_OK) die("the standard input cannot be read as bytes");
    if (bt_log_reader_create(&s->r) != BT_OK) die("out of memory");
    return;
  }
  int rc = bt_log_reader_create_file(&s->r, file, err, sizeof err);
  if (rc == BT_EINVAL || rc == BT_ENOMEM) die("%s: %s", file, bt_strerror(rc));
  if (rc != BT_OK) die("%s", err);
}

static void pause_a_little(void) { btp_sleep(0.2); }

/* The next record: 1, 0 at the end of what there is (with --follow: at the log's end), or dies
 * with the reader's error. */
static int next(source *s, bt_log_record *rec) {
  for (;;) {
    int rc = bt_log_read(s->r, rec);
    if (rc == 1) return 1;
    if (rc < 0) {
      fflush(stdout);
      die("%s: %s", prog_file, bt_log_reader_errmsg(s->r));
    }
    if (bt_log_reader_where(s->r, NULL) == BT_LOG_ENDED) return 0;
    if (s->in) {
      char buf[65536];
      size_t n = fread(buf, 1, sizeof buf, s->in);
      if (n > 0) {
        if (bt_log_reader_feed(s->r, buf, n) != BT_OK) die("out of memory");
        continue;
      }
      return 0; /* the end of the standard input */
    }
    if (!s->follow) return 0;
    fflush(stdout);
    pause_a_little();
  }
}

/* Says on standard error where reading stopped when it was not at the log's end. */
static void say_where(const source *s) {
  unsigned long long at = 0;
  int where = bt_log_reader_where(s->r, &at);
  if (where == BT_LOG_CUT)
    fprintf(stderr, "bt-log: %s: stopped at byte %llu: the bytes after it are not a whole block "
                    "(the log was cut there, or is being written)\n", prog_file, at);
  else if (where == BT_LOG_WHOLE)
    fprintf(stderr, "bt-log: %s: read to byte %llu: the log has no end (it is being written, or "
                    "its writer did not close it)\n", prog_file, at);
}

/* ---- text ---- */

/* 1 for a byte written as it is: printable ASCII but the backslash. */
static int plain_byte(unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }

/* Prints s (n bytes) with every byte that is not printable ASCII escaped: a backslash as \\, a
 * tab \t, a newline \n, a carriage return \r, any other control byte, DEL and every byte above
 * 0x7f as \xNN. So a line of output is one record, and the output is ASCII, whatever the log holds. */
static void put_escaped(const char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t plain = i; /* the bytes that need no escape, written at once */
    while (plain < n && plain_byte((unsigned char)s[plain])) plain++;
    fwrite(s + i, 1, plain - i, stdout);
    if (plain == n) break;
    unsigned char c = (unsigned char)s[plain];
    if (c == '\\') fputs("\\\\", stdout);
    else if (c == '\t') fputs("\\t", stdout);
    else if (c == '\n') fputs("\\n", stdout);
    else if (c == '\r') fputs("\\r", stdout);
    else printf("\\x%02x", c);
    i = plain + 1;
  }
}

static void put_escaped_text(const char *s) { put_escaped(s, strlen(s)); }

/* Prints the line made in b, escaped, and a newline; empties b. */
static void put_line(bt_buf *b) {
  if (b->err) die("out of memory");
  put_escaped(b->data ? b->data : "", b->len);
  putchar('\n');
  b->len = 0;
}

/* The paths of the nodes of the shapes met, made once each. */
typedef struct paths {
  const bt_log_shape *shape;
  char **path;
  struct paths *next;
} paths;
static paths *path_cache;

/* The node's path (kept for the program's life). */
static const char *path_of(const bt_log_shape *s, int node) {
  paths *c = path_cache;
  while (c && c->shape != s) c = c->next;
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c || !(c->path = calloc((size_t)bt_log_shape_size(s), sizeof *c->path))) die("out of memory");
    c->shape = s;
    c->next = path_cache;
    path_cache = c;
  }
  if (node < 0 || node >= bt_log_shape_size(s)) return "?";
  if (!c->path[node]) {
    bt_buf b = {0};
    if (bt_log_shape_path(s, node, &b) != BT_OK || !b.data) die("out of memory");
    c->path[node] = b.data;
  }
  return c->path[node];
}

/* ---- print ---- */

/* 1 if the node, or one of its ancestors, has a path matching one of the patterns. */
static int node_matches(const options *o, const bt_log_shape *s, int node) {
  bt_buf b = {0};
  if (bt_log_shape_path(s, node, &b) != BT_OK || !b.data) return 0;
  int match = 0;
  for (size_t len = b.len;; ) {
    b.data[len] = 0;
    for (int i = 0; i < o->nnodes && !match; i++) match = btp_pattern_match(o->nodes[i], b.data);
    if (match) break;
    char *slash = strrchr(b.data, '/');
    if (!slash) break;
    len = (size_t)(slash - b.data);
  }
  bt_buf_free(&b);
  return match;
}

static int agent_matches(const options *o, const bt_log_record *rec) {
  if (o->nagents) {
    int any = 0;
    for (int i = 0; i < o->nagents && !any; i++) any = o->agents[i] == rec->agent;
    if (!any) return 0;
  }
  if (o->nlabels) {
    int any = 0;
    for (int i = 0; i < o->nlabels && !any; i++) any = btp_pattern_match(o->labels[i], rec->label);
    if (!any) return 0;
  }
  return 1;
}

static int wanted(const options *o, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  if (!(type_bit(e->type) & (o->types ? o->types : DEFAULT_TYPES))) return 0;
  if (e->time < o->from || e->time > o->to) return 0;
  if ((o->nagents || o->nlabels) && (rec->agent_index < 0 || !agent_matches(o, rec))) return 0;
  if (o->statuses && (e->type != BT_REC_STATUS || !(o->statuses & 1u << e->to))) return 0;
  if (o->nnodes) {
    int has_node = e->type == BT_REC_STATUS || e->type == BT_REC_EVENT || (e->type == BT_REC_ERROR && e->node >= 0);
    if (!has_node || !rec->shape || !node_matches(o, rec->shape, e->node)) return 0;
  }
  return 1;
}

/* The first fields of a line: time, agent, label, think. Records come in runs of one agent and one
 * time (a think's), so the text of the last ones is kept. */
static void print_head(const bt_log_record *rec) {
  static char time_text[64], agent_text[64];
  static double last_time = -1;
  static int have_time, last_index = -2;
  static unsigned long long last_agent;
  static const char *last_label;
  const bt_rec_entry *e = &rec->entry;
  if (!have_time || memcmp(&e->time, &last_time, sizeof last_time) != 0) {
    snprintf(time_text, sizeof time_text, "%.4f\t", e->time);
    last_time = e->time;
    have_time = 1;
  }
  fputs(time_text, stdout);
  if (rec->agent_index < 0) {
    fputs("-\t-\t-\t", stdout);
    return;
  }
  if (rec->agent_index != last_index || rec->agent != last_agent || rec->label != last_label) {
    snprintf(agent_text, sizeof agent_text, "%llu\t", rec->agent);
    last_index = rec->agent_index;
    last_agent = rec->agent;
    last_label = rec->label;
  }
  fputs(agent_text, stdout);
  if (rec->label[0]) put_escaped_text(rec->label);
  else putchar('-');
  char digits[24], *d = digits + sizeof digits;
  *--d = '\t';
  unsigned long long think = e->think;
  do *--d = (char)('0' + think % 10); while ((think /= 10) != 0);
  *--d = '\t';
  fwrite(d, 1, (size_t)(digits + sizeof digits - d), stdout);
}

/* A number in the shortest form that reads back the same (%.15g, or %.17g when that loses bits). */
static void put_number(double x) {
  char text[32];
  snprintf(text, sizeof text, "%.15g", x);
  if (strtod(text, NULL) != x && x == x) snprintf(text, sizeof text, "%.17g", x);
  fputs(text, stdout);
}

/* A key's value: nil, 0.75, -3, true, "text" (its bytes escaped, and its quotes), entity 12,
 * value 7 (a binding's token). */
static void put_value(const bt_value *v) {
  switch (v->type) {
    case BT_KEY_NUMBER: put_number(v->as.number); break;
    case BT_KEY_INTEGER: printf("%lld", v->as.integer); break;
    case BT_KEY_BOOLEAN: fputs(v->as.boolean ? "true" : "false", stdout); break;
    case BT_KEY_STRING: {
      putchar('"');
      for (const char *p = v->as.string, *q; *p; p = q) {
        q = strchr(p, '"');
        if (!q) q = p + strlen(p);
        put_escaped(p, (size_t)(q - p));
        if (*q == '"') fputs("\\\"", stdout), q++;
      }
      putchar('"');
      break;
    }
    case BT_KEY_ENTITY: printf("entity %llu", v->as.entity); break;
    case BT_KEY_VALUE: printf("value %llu", v->as.token); break;
    default: fputs("nil", stdout); break;
  }
}

/* A key's name in the agent's shape ("?" when the log has none). */
static const char *key_name(const bt_log_shape *s, int key) {
  const char *name = bt_log_shape_key_name(s, key);
  return name ? name : "?";
}

/* One record a line: every byte of the log's (a label, a path, a message, the host's bytes) is
 * escaped, so that no record spans two lines. */
static void print_record(const options *o, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  print_head(rec);
  fputs(type_name(e->type), stdout);
  switch (e->type) {
    case BT_REC_STATUS:
      putchar('\t');
      put_escaped_text(path_of(rec->shape, e->node));
      putchar('\t');
      fputs(bt_status_name(e->from), stdout);
      putchar('>');
      fputs(bt_status_name(e->to), stdout);
      break;
    case BT_REC_THINK:
      printf("\t%s\t", bt_wake_name(e->cause));
      if (e->has_sleep) printf("%.4f", e->sleep);
      else putchar('-');
      break;
    case BT_REC_EVENT:
      putchar('\t');
      put_escaped_text(path_of(rec->shape, e->node));
      break;
    case BT_REC_ERROR:
      putchar('\t');
      put_escaped_text(e->node >= 0 ? path_of(rec->shape, e->node) : "-");
      putchar('\t');
      put_escaped(e->text, e->size);
      break;
    case BT_REC_RELOAD: printf("\t%016llx>%016llx", e->def_from, e->def_to); break;
    case BT_REC_HOST:
    case BT_LOG_WORLD: /* the bytes (a world's frame: kilobytes of binary) only when asked for */
      printf("\t%d\t%zu", e->node, e->size);
      if (o->bytes) {
        putchar('\t');
        put_escaped(e->text, e->size);
      }
      break;
    case BT_REC_KEY:
      putchar('\t');
      put_escaped_text(key_name(rec->shape, e->node));
      putchar('\t');
      put_value(&e->before);
      fputs(" -> ", stdout);
      put_value(&e->after);
      if (e->from) fputs("\twoke", stdout);
      break;
    case BT_LOG_LOST: printf("\t%zu", e->size); break;
    case BT_LOG_ATTACH: printf("\t%016llx\t%zu", bt_log_shape_hash(rec->shape), e->size); break;
    case BT_LOG_DESCRIBE: printf("\t%zu", e->size); break;
    default: break;
  }
  putchar('\n');
}

static int cmd_print(const options *o) {
  if (o->has_at || o->dot) die_usage("print: --at and --dot are for tree and why");
  source s;
  source_open(&s, o->file, o->follow);
  bt_log_record rec;
  while (next(&s, &rec))
    if (wanted(o, &rec)) print_record(o, &rec);
  fflush(stdout);
  say_where(&s);
  bt_log_reader_free(s.r);
  return 0;
}

/* ---- an agent's tree replayed: tree and why ---- */

/* What a place (a node's index) last did, for why. */
typedef struct place {
  int run_child;       /* the child seen running at the last think, or -1 */
  int was_running;     /* it ran at the last think */
  int left;            /* how it last stopped running: 0 not stopped, else the status it went to */
  unsigned long long left_think;
  double left_time;
  double started;      /* when it last went to RUNNING */
  unsigned long long started_think;
  /* its latest switch (Priority, ActiveSelector) */
  int sw_child;        /* -1: none */
  double sw_time;
  unsigned long long sw_think;
  const char *sw_cause;
  char sw_detail[512];
} place;

typedef struct replay {
  unsigned long long agent;
  char label[256];
  int found;
  bt_log_tree *tree;            /* the statuses, last results, DBStrings and last think (bt.h) */
  const bt_log_shape *shape;    /* the tree's shape, whose places are below */
  int size;
  place *places;
  int *same_state;              /* the next place of the same state, or -1 */
  int *first;                   /* by state: its first place */
  int fresh;                    /* no think since the shape was attached */
  /* since the last think */
  int reload;
  double reload_time;
  unsigned long long reload_think, reload_from, reload_to;
  int events[64], nevents;
  double event_time[64];
} replay;

/* The places of the tree's new shape s, fresh. */
static void replay_shape(replay *p, const bt_log_shape *s) {
  free(p->places);
  free(p->same_state);
  free(p->first);
  p->shape = s;
  p->size = bt_log_shape_size(s);
  size_t n = (size_t)p->size;
  p->places = calloc(n, sizeof *p->places);
  p->same_state = malloc(n * sizeof *p->same_state);
  p->first = malloc(n * sizeof *p->first);
  if (!p->places || !p->same_state || !p->first) die("out of memory");
  for (int i = 0; i < p->size; i++) p->first[i] = -1;
  for (int i = 0; i < p->size; i++) {
    int st = bt_log_shape_state(s, i);
    if (p->first[st] < 0) p->first[st] = i;
    p->places[i].run_child = p->places[i].sw_child = -1;
    p->same_state[i] = -1;
    for (int j = i + 1; j < p->size; j++)
      if (bt_log_shape_state(s, j) == bt_log_shape_state(s, i)) {
        p->same_state[i] = j;
        break;
      }
  }
  p->fresh = 1;
  p->nevents = 0;
}

static int status_at(const replay *p, int node) { return bt_log_tree_status(p->tree, node); }
static int last_at(const replay *p, int node) { return bt_log_tree_last(p->tree, node); }

/* A kind whose running child switches at an evaluation (the kind table's BT_KIND_SELECTS). */
static int is_selecting(int kind) { return bt_kind_has(kind, BT_KIND_SELECTS); }

/* The index of child c among its parent's children, from 1. */
static int child_number(const bt_log_shape *s, int c) {
  int p = bt_log_shape_up(s, c);
  for (int i = 0; p >= 0 && i < bt_log_shape_child_count(s, p); i++)
    if (bt_log_shape_child(s, p, i) == c) return i + 1;
  return 0;
}

static int is_below(const bt_log_shape *s, int node, int above) {
  for (int n = node; n >= 0; n = bt_log_shape_up(s, n))
    if (n == above) return 1;
  return 0;
}

/* At a think's end (cause: BT_WAKE_*, or -1 at the moment asked for): notes, for each Priority
 * and ActiveSelector whose running child changed, the switch and its cause. */
static void checkpoint(replay *p, int cause, unsigned long long think) {
  const bt_log_shape *s = p->shape;
  for (int n = 0; n < p->size; n++) {
    place *pl = &p->places[n];
    int kind = bt_log_shape_kind(s, n), running = status_at(p, n) == BT_RUNNING;
    if (!is_selecting(kind)) {
      pl->was_running = running;
      continue;
    }
    int child = -1;
    for (int i = 0; i < bt_log_shape_child_count(s, n) && child < 0; i++) {
      int c = bt_log_shape_child(s, n, i);
      if (status_at(p, c) == BT_RUNNING) child = c;
    }
    if (child >= 0 && child != pl->run_child) {
      int old = pl->run_child;
      place *c = &p->places[child];
      pl->sw_child = child;
      pl->sw_time = c->started;
      pl->sw_think = c->started_think;
      char name[200];
      snprintf(name, sizeof name, "%s (child %d)", bt_log_shape_name(s, child), child_number(s, child));
      char before[240] = "";
      if (old >= 0 && old != child)
        snprintf(before, sizeof before, "%s (child %d)", bt_log_shape_name(s, old), child_number(s, old));
      int event = -1;
      for (int i = 0; i < p->nevents && event < 0; i++)
        if (is_below(s, p->events[i], n)) event = i;
      if (p->reload) {
        pl->sw_cause = "reload";
        int carried = c->started_think == p->reload_think && c->started == p->reload_time;
        snprintf(pl->sw_detail, sizeof pl->sw_detail,
                 "a reload at %.4f (think %llu) moved the agent from tree %016llx to tree %016llx, %s", p->reload_time,
                 p->reload_think, p->reload_from, p->reload_to,
                 carried ? "which carried it over" : "and every Priority re-evaluated");
        size_t len = strlen(pl->sw_detail);
        if (!carried) snprintf(pl->sw_detail + len, sizeof pl->sw_detail - len, ": %s passed", name);
      } else if (p->fresh) {
        pl->sw_cause = "start";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "the recording starts here: %s runs from the first think recorded",
                 name);
      } else if (old >= 0 && p->places[old].left >= BT_SUCCESS && p->places[old].left <= BT_FAILED &&
                 p->places[old].left_think + 1 >= think) {
        pl->sw_cause = "ended";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "%s ended %s at %.4f (think %llu), so %s chose %s",
                 before, bt_status_name(p->places[old].left), p->places[old].left_time, p->places[old].left_think,
                 bt_log_shape_name(s, n), name);
      } else if (bt_log_shape_up(s, n) >= 0 && !pl->was_running) {
        pl->sw_cause = "entered";
        snprintf(pl->sw_detail, sizeof pl->sw_detail,
                 "%s itself started running (its parent chose it) and chose %s", bt_log_shape_name(s, n), name);
      } else if (cause == BT_WAKE_EVENT && event >= 0) {
        pl->sw_cause = "event";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "an event fired for %s at %.4f; %s re-evaluated and %s passed",
                 path_of(s, p->events[event]), p->event_time[event], bt_log_shape_name(s, n), name);
      } else if (cause == BT_WAKE_FORCE) {
        pl->sw_cause = "force";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "ForceUpdate made this think and %s passed%s%s%s", name,
                 before[0] ? ", " : "", before[0] && child_number(s, child) < child_number(s, old) ? "an earlier child than " : before[0] ? "after " : "",
                 before);
      } else if (cause == BT_WAKE_START) {
        pl->sw_cause = "start";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "the first think recorded chose %s", name);
      } else if (cause < 0) {
        pl->sw_cause = "host";
        snprintf(pl->sw_detail, sizeof pl->sw_detail, "the host set the statuses outside a think: %s runs", name);
      } else {
        double period = 0;
        char when[64] = "re-evaluated at this think";
        if (bt_kind_has(kind, BT_KIND_PERIODIC) && bt_log_shape_param(s, n, &period))
          snprintf(when, sizeof when, "the period (%.2f s) came round", period);
        pl->sw_cause = "period";
        if (old >= 0 && child_number(s, child) < child_number(s, old))
          snprintf(pl->sw_detail, sizeof pl->sw_detail, "%s and %s passed, an earlier child than %s, which ran", when,
                   name, before);
        else
          snprintf(pl->sw_detail, sizeof pl->sw_detail, "%s and %s passed%s%s", when, name,
                   before[0] ? " after " : "", before);
      }
    }
    if (child >= 0) pl->run_child = child;
    pl->was_running = running;
  }
  p->reload = 0;
  p->fresh = 0;
  p->nevents = 0;
}

/* Applies one record of the agent: to its tree, then to what why keeps of its places. */
static void apply(replay *p, const bt_log_reader *r, const bt_log_record *rec) {
  const bt_rec_entry *e = &rec->entry;
  int rc = bt_log_tree_apply(p->tree, r, rec);
  if (rc == BT_ENOMEM) die("out of memory");
  if (rc != BT_OK) return;
  if (e->type == BT_LOG_ATTACH) {
    replay_shape(p, rec->shape);
    for (int n = 0; n < p->size; n++)
      if (status_at(p, n) == BT_RUNNING) {
        p->places[n].started = e->time;
        p->places[n].started_think = e->think;
      }
    return;
  }
  if (!p->shape) return;
  switch (e->type) {
    case BT_REC_STATUS:
      for (int q = p->first[bt_log_shape_state(p->shape, e->node)]; q >= 0; q = p->same_state[q]) {
        place *pl = &p->places[q];
        if (e->to == BT_RUNNING) {
          pl->started = e->time;
          pl->started_think = e->think;
          pl->left = 0;
        } else if (e->from == BT_RUNNING) {
          pl->left = e->to == BT_READY ? -1 : e->to;
          pl->left_time = e->time;
          pl->left_think = e->think;
        }
      }
      break;
    case BT_REC_THINK: checkpoint(p, e->cause, e->think); break;
    case BT_REC_EVENT:
      if (p->nevents < 64) {
        p->events[p->nevents] = e->node;
        p->event_time[p->nevents++] = e->time;
      }
      break;
    case BT_REC_RELOAD:
      p->reload = 1;
      p->reload_time = e->time;
      p->reload_think = e->think;
      p->reload_from = e->def_from;
      p->reload_to = e->def_to;
      break;
    default: break;
  }
}

/* Replays the agent --agent or --label names up to --at; dies when there is none. */
static void replay_run(const options *o, replay *p, source *s) {
  if (!o->has_at) die_usage("%s: --at T is needed", o->command);
  if (o->nagents + o->nlabels != 1) die_usage("%s: one --agent or one --label is needed", o->command);
  if (o->nnodes || o->statuses || o->types || o->bytes || o->follow || o->from > -1e308 || o->to < 1e308)
    die_usage("%s: only --agent, --label, --at%s apply", o->command, strcmp(o->command, "tree") ? "" : " and --dot");
  if (o->dot && strcmp(o->command, "tree")) die_usage("--dot is for tree");
  memset(p, 0, sizeof *p);
  if (bt_log_tree_create(&p->tree) != BT_OK) die("out of memory");
  source_open(s, o->file, 0);
  bt_log_record rec;
  int index = -1;
  while (next(s, &rec)) {
    if (rec.agent_index < 0) continue;
    if (index < 0) {
      if (!agent_matches(o, &rec)) continue;
      index = rec.agent_index;
      p->agent = rec.agent;
      p->found = 1;
    }
    if (rec.agent_index != index) continue;
    snprintf(p->label, sizeof p->label, "%s", rec.label);
    if (rec.entry.time > o->at) break;
    apply(p, s->r, &rec);
  }
  if (!p->found) {
    say_where(s);
    if (o->nagents) die("%s: no agent %llu in the log", prog_file, o->agents[0]);
    die("%s: no agent whose label matches '%s' in the log", prog_file, o->labels[0]);
  }
  if (!p->shape) die("%s: agent %llu has no tree at %.4f (its first record comes later)", prog_file, p->agent, o->at);
}

static void print_header(const replay *p, double at) {
  unsigned long long think;
  double think_time;
  printf("agent %llu \"", p->agent);
  put_escaped(p->label, strlen(p->label));
  printf("\" at %.4f: ", at);
  if (bt_log_tree_think(p->tree, &think, &think_time)) printf("think %llu at %.4f\n", think, think_time);
  else printf("no think yet\n");
}

static void print_tree(const replay *p, int dbstrings) {
  const bt_log_shape *s = p->shape;
  for (int n = 0; n < p->size; n++) {
    int depth = 0;
    for (int u = bt_log_shape_up(s, n); u >= 0; u = bt_log_shape_up(s, u)) depth++;
    for (int d = 0; d < depth; d++) fputs("   >", stdout);
    int st = status_at(p, n);
    printf("%s - %s <%s> (", bt_log_shape_name(s, n), bt_status_name(st), bt_status_name(last_at(p, n)));
    int has_sleep = 0;
    double sleep = 0;
    const char *text = NULL;
    size_t len = 0;
    if (st == BT_RUNNING && bt_log_tree_describe(p->tree, n, &has_sleep, &sleep, &text, &len)) fwrite(text, 1, len, stdout);
    putchar(')');
    if (dbstrings) printf(">%2.2f", has_sleep ? sleep : 0.0);
    putchar('\n');
  }
}

static void print_dot(const replay *p) {
  bt_def *def = NULL;
  int rc = bt_log_shape_def(p->shape, &def);
  if (rc != BT_OK) die("%s: the tree of agent %llu cannot be drawn: %s", prog_file, p->agent, bt_strerror(rc));
  bt_inst *in = NULL;
  if (bt_inst_create(&in, def, NULL, NULL, BT_INST_NOSCATTER) != BT_OK) die("out of memory");
  for (int n = 0; n < p->size; n++) bt_node_set_status(in, n, (bt_status)last_at(p, n));
  bt_node_save_status(in, 0);
  for (int n = 0; n < p->size; n++) bt_node_set_status(in, n, (bt_status)status_at(p, n));
  bt_buf b = {0};
  if (bt_inst_dot(in, &b) != BT_OK) die("out of memory");
  fputs(b.data, stdout);
  bt_buf_free(&b);
  bt_inst_free(in);
  bt_def_release(def);
}

static void replay_free(replay *p) {
  bt_log_tree_free(p->tree);
  free(p->places);
  free(p->same_state);
  free(p->first);
}

static int cmd_tree(const options *o) {
  replay p;
  source s;
  replay_run(o, &p, &s);
  if (o->dot) {
    print_dot(&p);
  } else {
    print_header(&p, o->at);
    print_tree(&p, bt_log_reader_flags(s.r) > 0 && (bt_log_reader_flags(s.r) & BT_LOG_DBSTRINGS));
  }
  fflush(stdout);
  say_where(&s);
  replay_free(&p);
  bt_log_reader_free(s.r);
  return 0;
}

/* why for an agent gone at --at (bt_log_tree_stopped): says so and since when; the lines after
 * say what it ran when its tree stopped, in the past tense. */
static int cmd_why(const options *o) {
  replay p;
  source s;
  replay_run(o, &p, &s);
  unsigned long long last_think = 0, stop_think = 0;
  double stop_time = 0;
  bt_log_tree_think(p.tree, &last_think, NULL);
  int gone = bt_log_tree_stopped(p.tree, &stop_think, &stop_time);
  checkpoint(&p, -1, last_think + 1); /* what changed after the last think, up to --at */
  const bt_log_shape *sh = p.shape;
  print_header(&p, o->at);
  if (gone)
    printf("gone: its tree was stopped at %.4f (think %llu) and has not thought since (a brain's Stop: a "
           "creature that died or left)\n", stop_time, stop_think);
  /* the running nodes under a running root, and those of them that select; each line made in
   * line, then printed escaped (names and paths are the log's bytes) */
  bt_buf line = {0};
  int lines = 0;
  bt_buf_printf(&line, gone ? "ran when it stopped:" : "running:");
  int any = 0;
  for (int n = 0; n < p.size; n++) {
    int on_path = status_at(&p, n) == BT_RUNNING;
    for (int u = bt_log_shape_up(sh, n); on_path && u >= 0; u = bt_log_shape_up(sh, u)) on_path = status_at(&p, u) == BT_RUNNING;
    if (!on_path) continue;
    int leaf = 1;
    for (int i = 0; i < bt_log_shape_child_count(sh, n) && leaf; i++)
      if (status_at(&p, bt_log_shape_child(sh, n, i)) == BT_RUNNING) leaf = 0;
    if (leaf) {
      bt_buf_printf(&line, " %s", path_of(sh, n));
      any = 1;
    }
  }
  if (!any) bt_buf_printf(&line, " nothing");
  put_line(&line);
  for (int n = 0; n < p.size; n++) {
    int on_path = status_at(&p, n) == BT_RUNNING;
    for (int u = bt_log_shape_up(sh, n); on_path && u >= 0; u = bt_log_shape_up(sh, u)) on_path = status_at(&p, u) == BT_RUNNING;
    const place *pl = &p.places[n];
    if (!on_path || !is_selecting(bt_log_shape_kind(sh, n)) || pl->sw_child < 0) continue;
    bt_buf_printf(&line, "%s: %s %s (child %d) %s %.4f (think %llu): %s: %s", path_of(sh, n), gone ? "ran" : "runs",
                  bt_log_shape_name(sh, pl->sw_child), child_number(sh, pl->sw_child), gone ? "from" : "since",
                  pl->sw_time, pl->sw_think, pl->sw_cause, pl->sw_detail);
    put_line(&line);
    lines++;
  }
  bt_buf_free(&line);
  if (!lines && any) printf("no Priority or ActiveSelector above what %s\n", gone ? "ran" : "runs");
  fflush(stdout);
  say_where(&s);
  replay_free(&p);
  bt_log_reader_free(s.r);
  return 0;
}

/* An agent's blackboard at --at: each key of its tree's shape, its type and its value, a line
 * each (a key unset: nil). */
static int cmd_board(const options *o) {
  if (o->dot) die_usage("--dot is for tree");
  replay p;
  source s;
  replay_run(o, &p, &s);
  print_header(&p, o->at);
  int n = bt_log_shape_key_count(p.shape);
  if (!n) printf("no blackboard: the agent's tree has no keys\n");
  for (int k = 0; k < n; k++) {
    bt_value v;
    bt_log_tree_key(p.tree, k, &v);
    put_escaped_text(key_name(p.shape, k));
    printf("\t%s%s\t", bt_key_type_name(bt_log_shape_key_type(p.shape, k)),
           bt_log_shape_key_flags(p.shape, k) & BT_KEY_HOST ? " (host)" : "");
    put_value(&v);
    putchar('\n');
  }
  fflush(stdout);
  say_where(&s);
  replay_free(&p);
  bt_log_reader_free(s.r);
  return 0;
}

/* ---- stats and coverage: the core's statistics (bt_stats) fed the log's records ---- */

/* The statistics of the records of the agents asked for, counted as at run time (the test kit's
 * bt_coverage_add_log: a shared node at its first place, an attach's running nodes), in a
 * coverage that names their shapes. */
static bt_coverage *count_log(const options *o, source *s) {
  source_open(s, o->file, 0);
  bt_coverage *c = NULL;
  if (bt_coverage_create(&c, NULL) != BT_OK) die("out of memory");
  bt_log_record rec;
  while (next(s, &rec))
    if (rec.agent_index >= 0 && agent_matches(o, &rec) && bt_coverage_add_log(c, s->r, &rec) != BT_OK)
      die("%s", bt_coverage_errmsg(c));
  return c;
}

/* The statistics of a log: per shape (in the order first seen), its nodes in the order asked
 * for, tab-separated. */
static int cmd_stats(const options *o) {
  if (o->has_at || o->dot || o->nnodes || o->statuses || o->types || o->bytes || o->follow || o->format >= 0)
    die_usage("stats: it takes --agent, --label and --order");
  source s;
  bt_coverage *c = count_log(o, &s);
  bt_stats *st = bt_coverage_stats(c);
  int n = bt_stats_list(st, o->order, NULL, 0);
  bt_stats_node *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
  if (n < 0 || !rows) die("out of memory");
  bt_stats_list(st, o->order, rows, n);
  for (int k = 0; k < bt_stats_shape_count(st); k++) {
    bt_stats_shape sh;
    if (bt_stats_shape_get(st, k, &sh) != BT_OK) continue;
    const bt_log_shape *shape = bt_log_reader_shape(s.r, sh.shape);
    printf("shape\t%016llx\troot\t", sh.shape);
    put_escaped_text(shape ? bt_log_shape_name(shape, 0) : "?");
    printf("\tagents\t%d\tthinks\t%llu\terrors\t%llu", sh.agents, sh.thinks, sh.errors);
    if (bt_log_shape_key_count(shape) > 0) printf("\twrites\t%llu", sh.writes); /* a tree with keys */
    putchar('\n');
    printf("node\tvisits\tsuccesses\tfailures\taborts\truns\tthinks\ttime\tlongest\terrors\n");
    for (int i = 0; i < n; i++) {
      const bt_stats_node *f = &rows[i];
      if (f->shape != sh.shape) continue;
      put_escaped_text(shape ? path_of(shape, f->node) : "?");
      printf("\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.3f\t%.3f\t%llu\n", f->visits, f->successes, f->failures,
             f->aborts, f->runs, f->thinks, f->time, f->longest, f->errors);
    }
  }
  fflush(stdout);
  say_where(&s);
  free(rows);
  bt_coverage_free(c);
  bt_log_reader_free(s.r);
  return 0;
}

/* The coverage of a log: the test kit's report of its statistics (bt_coverage_write). */
static int cmd_coverage(const options *o) {
  if (o->has_at || o->dot || o->nnodes || o->statuses || o->types || o->bytes || o->follow || o->has_order)
    die_usage("coverage: it takes --agent, --label and --format");
  source s;
  bt_coverage *c = count_log(o, &s);
  bt_buf out = {0};
  if (bt_coverage_write(c, o->format >= 0 ? o->format : BT_COVERAGE_TEXT, NULL, &out) != BT_OK)
    die("%s", bt_coverage_errmsg(c));
  if (out.len) fwrite(out.data, 1, out.len, stdout);
  fflush(stdout);
  say_where(&s);
  bt_buf_free(&out);
  bt_coverage_free(c);
  bt_log_reader_free(s.r);
  return 0;
}

/* ---- view ---- */

#ifdef BT_LOG_VIEW
static volatile sig_atomic_t view_quit;
static void on_view_signal(int sig) { view_quit = sig; }
#endif

static int cmd_view(const options *o) {
  if (o->filters) die_usage("view: it takes --address, --port and --token");
  if (strcmp(o->file, "-") == 0) die_usage("view: FILE must be a file (the viewer reads it again for each window)");
#ifdef BT_LOG_VIEW
  bt_view_options vo;
  bt_view_options_init(&vo);
  if (o->address) vo.address = o->address;
  vo.token = o->token;
  bt_view *v = NULL;
  char err[512];
  int rc = BT_EIO;
  if (o->port >= 0) {
    vo.port = o->port;
    rc = bt_view_create_log(&v, o->file, &vo, err, sizeof err);
  } else { /* 8642, or the next free port */
    for (int p = 8642; p < 8662 && rc == BT_EIO; p++) {
      vo.port = p;
      rc = bt_view_create_log(&v, o->file, &vo, err, sizeof err);
      if (rc == BT_EIO && strstr(err, "cannot listen") == NULL) break; /* the file, not the port */
    }
  }
  if (rc == BT_EINVAL) die_usage("view: %s", err);
  if (rc != BT_OK) die("%s: %s", o->file, err);
  btp_quit_catch(on_view_signal);
  printf("viewer: %s\n", bt_view_url(v));
  fflush(stdout);
  while (!view_quit) btp_sleep(0.1);
  bt_view_free(v);
  return 0;
#else
  die("view: this bt-log was built without the viewer (libbtview: configure with BT_VIEW=ON)");
  return 1;
#endif
}

/* ---- diff: two logs compared (libbttest's bt_diff) ---- */

/* Opens a log of diff's, or exits 2 naming it. */
static bt_log_reader *diff_open(const char *file) {
  char err[512];
  bt_log_reader *r = NULL;
  if (strcmp(file, "-") == 0) die_usage("diff: A and B must be files, not the standard input");
  int rc = bt_log_reader_create_file(&r, file, err, sizeof err);
  if (rc == BT_ENOMEM) die("out of memory");
  if (rc != BT_OK) {
    fprintf(stderr, "bt-log: diff: %s\n", rc == BT_EINVAL ? bt_strerror(rc) : err);
    exit(2);
  }
  return r;
}

/* Feeds the comparer the two logs' records as they come, the side that is behind in time first,
 * so that neither runs far ahead of the other (the comparer keeps what waits for the other side);
 * --agent and --label keep the agents they name on both sides. */
static int cmd_diff(const options *o) {
  if (o->has_at || o->dot || o->nnodes || o->statuses || o->types || o->bytes || o->follow ||
      o->from != -1e308 || o->to != 1e308)
    die_usage("diff: it takes --agent and --label");
  const char *files[2] = {o->file, o->file2};
  bt_log_reader *r[2] = {diff_open(files[0]), diff_open(files[1])};
  bt_diff *d = NULL;
  if (bt_diff_create(&d) != BT_OK || bt_diff_set_names(d, "A", "B") != BT_OK) die("out of memory");
  int ended[2] = {0, 0}, rc = BT_OK;
  double last[2] = {-1e308, -1e308};
  while (rc == BT_OK && !(ended[0] && ended[1])) {
    int s = ended[0] ? 1 : ended[1] ? 0 : last[1] < last[0];
    bt_log_record rec;
    int got = bt_log_read(r[s], &rec);
    if (got < 0) {
      fprintf(stderr, "bt-log: diff: %s (%s): %s\n", s ? "B" : "A", files[s], bt_log_reader_errmsg(r[s]));
      exit(2);
    }
    if (got == 0) {
      ended[s] = 1;
      continue;
    }
    last[s] = rec.entry.time;
    if (rec.agent_index < 0 || agent_matches(o, &rec)) rc = bt_diff_log(d, s, &rec);
  }
  if (rc == BT_OK) rc = bt_diff_finish(d);
  if (rc != BT_OK) {
    fprintf(stderr, "bt-log: diff: %s\n", bt_diff_errmsg(d));
    exit(2);
  }
  for (int s = 0; s < 2; s++) {
    prog_file = files[s];
    say_where(&(source){r[s], NULL, 0});
  }
  bt_buf out = {0};
  if (bt_diff_report(d, &out) != BT_OK) die("out of memory");
  fwrite(out.data, 1, out.len, stdout);
  fflush(stdout);
  int same = bt_diff_same(d);
  bt_buf_free(&out);
  bt_diff_free(d);
  bt_log_reader_free(r[0]);
  bt_log_reader_free(r[1]);
  return same ? 0 : 1;
}

static const struct {
  const char *name;
  int (*run)(const options *o);
} COMMANDS[] = {{"print", cmd_print}, {"tree", cmd_tree}, {"why", cmd_why},
               {"board", cmd_board}, {"stats", cmd_stats}, {"coverage", cmd_coverage},
               {"view", cmd_view}, {"diff", cmd_diff}};

int main(int argc, char **argv) {
  options o;
  parse(argc, argv, &o);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp(o.command, COMMANDS[i].name) == 0) return COMMANDS[i].run(&o);
  die_usage("unknown subcommand '%s' (print, tree, why, board, stats, coverage, view, diff)", o.command);
  return 2;
}
