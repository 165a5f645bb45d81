/* SPDX-License-Identifier: MIT */
#error "sys/eventfd.h: Linux-only header outside the platform layer's Linux files"
