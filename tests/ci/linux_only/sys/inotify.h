/* SPDX-License-Identifier: MIT */
#error "sys/inotify.h: Linux-only header outside the platform layer's Linux files"
