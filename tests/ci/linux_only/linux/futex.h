/* SPDX-License-Identifier: MIT */
#error "linux/futex.h: Linux-only header outside the platform layer's Linux files"
