/* SPDX-License-Identifier: MIT */
#error "sys/fanotify.h: Linux-only header outside the platform layer's Linux files"
