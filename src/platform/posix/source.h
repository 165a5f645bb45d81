/* SPDX-License-Identifier: MIT */
/*
 * source.h: the names the C library shows the files of posix/, each of which includes it before
 * any system header. glibc and musl (Linux) show POSIX 2008 and X/Open 7's (realpath) only when
 * asked, bt being compiled as C11; macOS and the BSDs show them unasked, and asking would hide
 * their own names that these files use (sysctl and its u_int, _SC_NPROCESSORS_ONLN, macOS's
 * st_mtimespec and pthread_cond_timedwait_relative_np).
 */
#ifndef BTP_SOURCE_H
#define BTP_SOURCE_H

#if !defined(__APPLE__) && !defined(__FreeBSD__) && !defined(__DragonFly__) && !defined(__NetBSD__) && \
    !defined(__OpenBSD__)
#define _XOPEN_SOURCE 700
#endif

#endif
