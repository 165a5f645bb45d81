/* SPDX-License-Identifier: MIT */
#error "sys/sysmacros.h: Linux-only header outside the platform layer's Linux files"
