/* SPDX-License-Identifier: MIT */
/* client.h: a small HTTP and WebSocket client over raw sockets, for the viewer's tests and
 * benchmark: it sends exactly the bytes a test wants (a foreign Host or Origin, a malformed
 * request or frame) and reads what the server answers. One request per connection
 * (Connection: close), responses read to the end. Not a general client. */
#ifndef BT_VIEW_TEST_CLIENT_H
#define BT_VIEW_TEST_CLIENT_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENT_UNUSED __attribute__((unused))

/* a socket connected to 127.0.0.1:port (rcvbuf > 0: that receive buffer), or -1 */
static CLIENT_UNUSED int client_connect(int port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static CLIENT_UNUSED int client_send_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* waits up to ms for bytes: 1 readable, 0 not */
static CLIENT_UNUSED int client_wait(int fd, int ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, ms) > 0;
}

/* Sends `request` as it is and reads the response to its end: returns the status (0 when the
 * server closed without one) and the body (malloc'd, NUL-ended) in *body when body is not NULL. */
static CLIENT_UNUSED int http_raw(int port, const char *request, size_t len, char **body) {
  if (body) *body = NULL;
  int fd = client_connect(port, 0);
  if (fd < 0) return -1;
  if (client_send_all(fd, request, len) != 0) {
    close(fd);
    return 0;
  }
  size_t cap = 4096, got = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (got + 4096 > cap) buf = realloc(buf, cap *= 2);
    if (!client_wait(fd, 20000)) break;
    ssize_t n = recv(fd, buf + got, cap - got - 1, 0);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  buf[got] = 0;
  int status = 0;
  if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) status = 0;
  char *start = strstr(buf, "\r\n\r\n");
  if (body) {
    *body = strdup(start ? start + 4 : "");
  }
  free(buf);
  return status;
}

/* GET path with Host 127.0.0.1:port (host NULL) or `host` ("" : none), and extra header lines
 * (each ending in \r\n; NULL: none) */
static CLIENT_UNUSED int http_get_as(int port, const char *path, const char *host, const char *extra, char **body) {
  char req[4096];
  char hostline[300];
  if (!host) snprintf(hostline, sizeof hostline, "Host: 127.0.0.1:%d\r\n", port);
  else if (!*host) hostline[0] = 0;
  else snprintf(hostline, sizeof hostline, "Host: %s\r\n", host);
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\n%s%sConnection: close\r\n\r\n", path, hostline,
                   extra ? extra : "");
  return http_raw(port, req, (size_t)n, body);
}

static CLIENT_UNUSED int http_get(int port, const char *path, char **body) {
  return http_get_as(port, path, NULL, NULL, body);
}

/* ---- WebSocket ---- */

/* Opens path as a WebSocket: returns the socket (and 101 in *status), or -1 with the status the
 * server gave (403 ...) in *status. */
static CLIENT_UNUSED int ws_open(int port, const char *path, const char *host, const char *origin, int rcvbuf,
                                 int *status) {
  *status = 0;
  int fd = client_connect(port, rcvbuf);
  if (fd < 0) return -1;
  char req[2048], hostline[300], originline[300];
  if (!host) snprintf(hostline, sizeof hostline, "Host: 127.0.0.1:%d\r\n", port);
  else snprintf(hostline, sizeof hostline, "Host: %s\r\n", host);
  if (origin) snprintf(originline, sizeof originline, "Origin: %s\r\n", origin);
  else originline[0] = 0;
  int n = snprintf(req, sizeof req,
                   "GET %s HTTP/1.1\r\n%s%sUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                   path, hostline, originline);
  if (client_send_all(fd, req, (size_t)n) != 0) {
    close(fd);
    return -1;
  }
  /* the response's head, byte by byte so that no frame after it is read */
  char head[4096];
  size_t got = 0;
  while (got < sizeof head - 1) {
    if (!client_wait(fd, 20000)) break;
    ssize_t r = recv(fd, head + got, 1, 0);
    if (r <= 0) break;
    got++;
    if (got >= 4 && memcmp(head + got - 4, "\r\n\r\n", 4) == 0) break;
  }
  head[got] = 0;
  if (sscanf(head, "HTTP/1.%*d %d", status) != 1) *status = 0;
  if (*status != 101) {
    close(fd);
    return -1;
  }
  return fd;
}

/* sends one frame as a client does (masked unless unmasked is set) */
static CLIENT_UNUSED int ws_send_frame(int fd, int opcode, int fin, const void *data, size_t len, int unmasked) {
  unsigned char head[14];
  size_t h = 0;
  head[h++] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0F));
  unsigned char maskbit = unmasked ? 0 : 0x80;
  if (len < 126) head[h++] = (unsigned char)(maskbit | len);
  else if (len < 65536) {
    head[h++] = (unsigned char)(maskbit | 126);
    head[h++] = (unsigned char)(len >> 8);
    head[h++] = (unsigned char)len;
  } else {
    head[h++] = (unsigned char)(maskbit | 127);
    for (int i = 7; i >= 0; i--) head[h++] = (unsigned char)((unsigned long long)len >> (8 * i));
  }
  unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
  if (!unmasked)
    for (int i = 0; i < 4; i++) head[h++] = mask[i];
  unsigned char *body = malloc(len ? len : 1);
  for (size_t i = 0; i < len; i++) body[i] = ((const unsigned char *)data)[i] ^ (unmasked ? 0 : mask[i & 3]);
  int rc = client_send_all(fd, head, h) || client_send_all(fd, body, len);
  free(body);
  return rc;
}

static CLIENT_UNUSED int ws_send_text(int fd, const char *text) { return ws_send_frame(fd, 1, 1, text, strlen(text), 0); }

static CLIENT_UNUSED int recv_exact(int fd, void *buf, size_t len, int ms) {
  char *p = buf;
  while (len) {
    if (!client_wait(fd, ms)) return -1;
    ssize_t n = recv(fd, p, len, 0);
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Reads one frame (waiting up to ms): returns its opcode with the payload in *msg (malloc'd,
 * NUL-ended), or -1 (nothing, or the connection closed). */
static CLIENT_UNUSED int ws_recv(int fd, char **msg, int ms) {
  *msg = NULL;
  unsigned char h[2];
  if (recv_exact(fd, h, 2, ms) != 0) return -1;
  unsigned long long len = h[1] & 0x7F;
  if (len == 126) {
    unsigned char e[2];
    if (recv_exact(fd, e, 2, 20000) != 0) return -1;
    len = ((unsigned)e[0] << 8) | e[1];
  } else if (len == 127) {
    unsigned char e[8];
    if (recv_exact(fd, e, 8, 20000) != 0) return -1;
    len = 0;
    for (int i = 0; i < 8; i++) len = (len << 8) | e[i];
  }
  if (len > (64u << 20)) return -1;
  char *body = malloc((size_t)len + 1);
  if (len && recv_exact(fd, body, (size_t)len, 20000) != 0) {
    free(body);
    return -1;
  }
  body[len] = 0;
  *msg = body;
  return h[0] & 0x0F;
}

/* ---- reading the answers ---- */

/* the number after "key": in s (the first), or def */
static CLIENT_UNUSED double json_num(const char *s, const char *key, double def) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = s ? strstr(s, pat) : NULL;
  if (!p) return def;
  return strtod(p + strlen(pat), NULL);
}

#endif
