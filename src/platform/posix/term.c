/* SPDX-License-Identifier: MIT */
/* term.c: the terminal, for a program's own view (bt-arena's): whether a standard stream is one,
 * its size, keys as they are typed (termios without ICANON and ECHO), and bytes out; the signals
 * that ask a program to end; standard streams as bytes (nothing to do on POSIX). */
#include "source.h" /* first: the names the C library shows */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "btp.h"

struct btp_term {
  struct termios saved; /* standard input's settings before, when raw */
  int raw;              /* they were changed */
  int eof;              /* standard input ended (or failed) */
};

int btp_term_is_tty(int output) { return isatty(output ? STDOUT_FILENO : STDIN_FILENO) == 1; }

int btp_term_open(btp_term **out) {
  if (!out) return BT_EINVAL;
  btp_term *t = calloc(1, sizeof *t);
  *out = t;
  if (!t) return BT_ENOMEM;
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved) == 0) {
    struct termios raw = t->saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* keys at once, unechoed; ISIG stays: ^C works */
    raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0) t->raw = 1;
  }
  return BT_OK;
}

void btp_term_close(btp_term *t) {
  if (!t) return;
  if (t->raw) tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->saved);
  free(t);
}

int btp_term_read(btp_term *t, int timeout_ms) {
  if (!t) return -1;
  if (timeout_ms < 0) timeout_ms = 0;
  if (t->eof) { /* nothing will come: wait the time out, as a read would */
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return -1;
  }
  struct pollfd p = {STDIN_FILENO, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r <= 0) return -1; /* timeout, or a signal (EINTR): the caller looks at its flags */
  unsigned char c;
  ssize_t n = read(STDIN_FILENO, &c, 1);
  if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) t->eof = 1;
  return n == 1 ? c : -1;
}

int btp_term_size(int *cols, int *rows) {
  if (!cols || !rows) return BT_EINVAL;
  struct winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0 || ws.ws_row == 0) return BT_EIO;
  *cols = ws.ws_col;
  *rows = ws.ws_row;
  return BT_OK;
}

int btp_term_write(const void *data, size_t size) {
  const char *p = data;
  while (size > 0) {
    ssize_t n = write(STDOUT_FILENO, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return BT_EIO;
    p += n;
    size -= (size_t)n;
  }
  return BT_OK;
}

void btp_quit_catch(void (*fn)(int sig)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

int btp_stream_binary(FILE *stream) { return stream ? BT_OK : BT_EINVAL; }
