/* SPDX-License-Identifier: MIT */
#error "sys/sysinfo.h: Linux-only header outside the platform layer's Linux files"
