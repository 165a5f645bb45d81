/* SPDX-License-Identifier: MIT */
#error "sys/personality.h: Linux-only header outside the platform layer's Linux files"
