/* SPDX-License-Identifier: MIT */
#error "mntent.h: Linux-only header outside the platform layer's Linux files"
