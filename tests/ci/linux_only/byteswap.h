/* SPDX-License-Identifier: MIT */
#error "byteswap.h: Linux-only header outside the platform layer's Linux files"
