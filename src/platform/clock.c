/* SPDX-License-Identifier: MIT */
/* clock.c: the monotonic clock, POSIX's CLOCK_MONOTONIC in seconds. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "btp.h"

double btp_time_monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
