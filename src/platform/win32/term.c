/* SPDX-License-Identifier: MIT */
/* term.c: the console, for a program's own view (bt-arena's): whether a standard stream is one,
 * its size, keys as they are typed (the input's line and echo modes off; Ctrl-C still
 * interrupts), and bytes out, with the console told to follow the view's escape sequences
 * (ENABLE_VIRTUAL_TERMINAL_PROCESSING, Windows 10 and later). A standard input that is a pipe or a
 * file is read as it is. Also the C runtime's signals that ask a program to end, and its streams'
 * binary mode. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "btp.h"

/* older headers lack these (Windows 10's console) */
#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif
#ifndef ENABLE_VIRTUAL_TERMINAL_INPUT
#define ENABLE_VIRTUAL_TERMINAL_INPUT 0x0200
#endif
#ifndef DISABLE_NEWLINE_AUTO_RETURN
#define DISABLE_NEWLINE_AUTO_RETURN 0x0008
#endif

struct btp_term {
  HANDLE in, out;
  DWORD in_mode, out_mode; /* the console's modes before, when changed */
  int in_console, out_console;
  int eof; /* standard input ended (or failed) */
};

static int is_console(HANDLE h) {
  DWORD mode;
  return h != INVALID_HANDLE_VALUE && h != NULL && GetConsoleMode(h, &mode);
}

int btp_term_is_tty(int output) { return is_console(GetStdHandle(output ? STD_OUTPUT_HANDLE : STD_INPUT_HANDLE)); }

int btp_term_open(btp_term **out) {
  if (!out) return BT_EINVAL;
  btp_term *t = calloc(1, sizeof *t);
  *out = t;
  if (!t) return BT_ENOMEM;
  t->in = GetStdHandle(STD_INPUT_HANDLE);
  t->out = GetStdHandle(STD_OUTPUT_HANDLE);
  if (is_console(t->in) && GetConsoleMode(t->in, &t->in_mode)) {
    /* keys at once, unechoed; ENABLE_PROCESSED_INPUT stays: Ctrl-C works; arrows as escapes */
    DWORD raw = ENABLE_PROCESSED_INPUT | ENABLE_VIRTUAL_TERMINAL_INPUT;
    if (SetConsoleMode(t->in, raw) || SetConsoleMode(t->in, ENABLE_PROCESSED_INPUT)) t->in_console = 1;
  }
  if (is_console(t->out) && GetConsoleMode(t->out, &t->out_mode)) {
    /* and a line written to the last column wraps only when more comes, as in a terminal (a
     * view ends its lines with "\r\n" itself) */
    DWORD vt = t->out_mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING;
    if (SetConsoleMode(t->out, vt | DISABLE_NEWLINE_AUTO_RETURN) || SetConsoleMode(t->out, vt)) t->out_console = 1;
  }
  return BT_OK;
}

void btp_term_close(btp_term *t) {
  if (!t) return;
  if (t->in_console) SetConsoleMode(t->in, t->in_mode);
  if (t->out_console) SetConsoleMode(t->out, t->out_mode);
  free(t);
}

/* A key's byte from the console within timeout_ms, or -1. Events that are no typed character
 * (key releases, the mouse, resizing) are taken and passed over. */
static int read_console(btp_term *t, int timeout_ms) {
  DWORD until = GetTickCount() + (DWORD)timeout_ms;
  for (;;) {
    DWORD now = GetTickCount();
    DWORD left = (LONG)(until - now) > 0 ? until - now : 0;
    if (WaitForSingleObject(t->in, left) != WAIT_OBJECT_0) return -1;
    INPUT_RECORD r;
    DWORD n = 0;
    if (!ReadConsoleInputA(t->in, &r, 1, &n) || n != 1) {
      t->eof = 1;
      return -1;
    }
    if (r.EventType == KEY_EVENT && r.Event.KeyEvent.bKeyDown && r.Event.KeyEvent.uChar.AsciiChar)
      return (unsigned char)r.Event.KeyEvent.uChar.AsciiChar;
    if (left == 0) return -1;
  }
}

/* A byte of a pipe within timeout_ms (its waiting bytes looked at every 10 ms), or -1. */
static int read_pipe(btp_term *t, int timeout_ms) {
  DWORD until = GetTickCount() + (DWORD)timeout_ms;
  for (;;) {
    DWORD waiting = 0;
    if (!PeekNamedPipe(t->in, NULL, 0, NULL, &waiting, NULL)) {
      t->eof = 1; /* the writer closed it */
      return -1;
    }
    if (waiting > 0) break;
    if ((LONG)(until - GetTickCount()) <= 0) return -1;
    Sleep(10);
  }
  unsigned char c;
  DWORD n = 0;
  if (!ReadFile(t->in, &c, 1, &n, NULL) || n != 1) {
    t->eof = 1;
    return -1;
  }
  return c;
}

int btp_term_read(btp_term *t, int timeout_ms) {
  if (!t) return -1;
  if (timeout_ms < 0) timeout_ms = 0;
  if (!t->eof) {
    if (t->in_console) return read_console(t, timeout_ms);
    if (GetFileType(t->in) == FILE_TYPE_PIPE) {
      int c = read_pipe(t, timeout_ms);
      if (c >= 0 || !t->eof) return c;
    } else {
      unsigned char c;
      DWORD n = 0;
      if (ReadFile(t->in, &c, 1, &n, NULL) && n == 1) return c;
      t->eof = 1;
    }
  }
  Sleep((DWORD)timeout_ms); /* nothing will come: wait the time out, as a read would */
  return -1;
}

int btp_term_size(int *cols, int *rows) {
  if (!cols || !rows) return BT_EINVAL;
  CONSOLE_SCREEN_BUFFER_INFO info;
  if (!GetConsoleScreenBufferInfo(GetStdHandle(STD_OUTPUT_HANDLE), &info)) {
    errno = ENOTTY;
    return BT_EIO;
  }
  *cols = info.srWindow.Right - info.srWindow.Left + 1;
  *rows = info.srWindow.Bottom - info.srWindow.Top + 1;
  return *cols > 0 && *rows > 0 ? BT_OK : BT_EIO;
}

int btp_term_write(const void *data, size_t size) {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  const char *p = data;
  while (size > 0) {
    DWORD chunk = size > 1u << 30 ? 1u << 30 : (DWORD)size, n = 0;
    if (!WriteFile(out, p, chunk, &n, NULL) || n == 0) {
      errno = EIO;
      return BT_EIO;
    }
    p += n;
    size -= n;
  }
  return BT_OK;
}

void btp_quit_catch(void (*fn)(int sig)) {
  signal(SIGINT, fn);
  signal(SIGTERM, fn);
  signal(SIGBREAK, fn);
}

int btp_stream_binary(FILE *stream) {
  if (!stream) return BT_EINVAL;
  return _setmode(_fileno(stream), _O_BINARY) == -1 ? BT_EIO : BT_OK;
}
