/* SPDX-License-Identifier: MIT */
#error "linux/inotify.h: Linux-only header outside the platform layer's Linux files"
