/* SPDX-License-Identifier: MIT */
/* clock.c: the monotonic clock, POSIX's CLOCK_MONOTONIC in seconds; sleeping, nanosleep. */
#include "source.h" /* first: the names the C library shows */
#include <errno.h>
#include <math.h>
#include <time.h>

#include "btp.h"

#define LONGEST_SLEEP (365.0 * 24 * 3600)

double btp_time_monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void btp_sleep(double seconds) {
  if (!(seconds > 0)) return;
  if (seconds > LONGEST_SLEEP) seconds = LONGEST_SLEEP;
  struct timespec left;
  left.tv_sec = (time_t)seconds;
  left.tv_nsec = (long)((seconds - (double)left.tv_sec) * 1e9);
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}
