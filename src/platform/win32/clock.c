/* SPDX-License-Identifier: MIT */
/* clock.c: the monotonic clock, Win32's performance counter in seconds; sleeping, Sleep. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "btp.h"

#define LONGEST_SLEEP (365.0 * 24 * 3600)

double btp_time_monotonic(void) {
  /* the counter's frequency is fixed at boot: asked once (a race asks twice, harmlessly) */
  static volatile LONGLONG frequency;
  if (!frequency) {
    LARGE_INTEGER f;
    QueryPerformanceFrequency(&f);
    frequency = f.QuadPart;
  }
  LARGE_INTEGER now;
  QueryPerformanceCounter(&now);
  LONGLONG whole = now.QuadPart / frequency, part = now.QuadPart % frequency;
  return (double)whole + (double)part / (double)frequency;
}

void btp_sleep(double seconds) {
  if (!(seconds > 0)) return;
  if (seconds > LONGEST_SLEEP) seconds = LONGEST_SLEEP;
  double ms = seconds * 1000.0;
  DWORD whole = (DWORD)ms;
  Sleep(whole < ms ? whole + 1 : whole); /* never shorter than asked */
}
