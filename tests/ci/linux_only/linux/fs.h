/* SPDX-License-Identifier: MIT */
#error "linux/fs.h: Linux-only header outside the platform layer's Linux files"
