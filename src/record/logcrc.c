/* SPDX-License-Identifier: MIT */
/* logcrc.c: the CRC-32 that closes the header and each block of a log file (logfmt.h): ISO-HDLC's,
 * as zlib and PNG compute it (reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF),
 * eight bytes a step ("slicing by 8"): table k holds the remainder of a byte followed by k zero
 * bytes, made once, at the first use. */
#include "btp.h"
#include "rec_internal.h"
#include "logfmt.h"

static uint32_t tables[8][256];
static btp_once made = BTP_ONCE_INIT;

static void make_tables(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    tables[0][i] = c;
  }
  for (int k = 1; k < 8; k++)
    for (int i = 0; i < 256; i++) tables[k][i] = tables[0][tables[k - 1][i] & 0xff] ^ (tables[k - 1][i] >> 8);
}

uint32_t bti_crc32(uint32_t crc, const unsigned char *p, size_t n) {
  btp_once_run(&made, make_tables);
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    crc = tables[7][lo & 0xff] ^ tables[6][lo >> 8 & 0xff] ^ tables[5][lo >> 16 & 0xff] ^ tables[4][lo >> 24] ^
          tables[3][hi & 0xff] ^ tables[2][hi >> 8 & 0xff] ^ tables[1][hi >> 16 & 0xff] ^ tables[0][hi >> 24];
  }
  for (; n; n--, p++) crc = tables[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}
