/* SPDX-License-Identifier: MIT */
#error "sys/signalfd.h: Linux-only header outside the platform layer's Linux files"
