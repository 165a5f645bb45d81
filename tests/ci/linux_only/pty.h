/* SPDX-License-Identifier: MIT */
#error "pty.h: Linux-only header outside the platform layer's Linux files"
