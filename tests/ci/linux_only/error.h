/* SPDX-License-Identifier: MIT */
#error "error.h: Linux-only header outside the platform layer's Linux files"
