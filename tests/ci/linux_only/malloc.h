/* SPDX-License-Identifier: MIT */
#error "malloc.h: Linux-only header outside the platform layer's Linux files"
