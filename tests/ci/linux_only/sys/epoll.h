/* SPDX-License-Identifier: MIT */
#error "sys/epoll.h: Linux-only header outside the platform layer's Linux files"
