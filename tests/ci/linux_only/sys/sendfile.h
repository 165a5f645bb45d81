/* SPDX-License-Identifier: MIT */
#error "sys/sendfile.h: Linux-only header outside the platform layer's Linux files"
