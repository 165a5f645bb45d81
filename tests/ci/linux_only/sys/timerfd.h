/* SPDX-License-Identifier: MIT */
#error "sys/timerfd.h: Linux-only header outside the platform layer's Linux files"
