/* SPDX-License-Identifier: MIT */
#error "sys/vfs.h: Linux-only header outside the platform layer's Linux files"
