/* SPDX-License-Identifier: MIT */
#error "sys/prctl.h: Linux-only header outside the platform layer's Linux files"
