/* SPDX-License-Identifier: MIT */
/*
 * logfmt.h: the log file's format (docs/log-format.md describes it byte by byte), shared by its
 * writer (log.c) and its reader (logread.c): the header, the block and record codes, varints,
 * zigzag numbers, doubles by their bits, and the blocks' CRC-32.
 */
#ifndef BT_LOGFMT_H
#define BT_LOGFMT_H

#include <stdint.h>
#include <string.h>

/* The header: 8 bytes of magic, the format version, the flags (BT_LOG_DBSTRINGS), 2 zero bytes,
 * the CRC-32 of those 12 bytes. */
#define LOG_MAGIC "\x89" "BTLOG\r\n"
#define LOG_MAGIC_SIZE 8
#define LOG_HEADER_SIZE 16
#define LOG_VERSION 1
/* Byte 10: the format's minor version. 0: the first (its readers take byte 10 for a zero byte);
 * 1 adds the blackboard: keys and ports after a shape's nodes, the keys' values in an attach
 * record, and the key record. A reader reads every minor version up to its own. */
#define LOG_MINOR 1

/* Block types. A block: its type (1 byte), its payload's size (varint), the payload, and the
 * CRC-32 of all of these (4 bytes, little-endian). */
enum {
  BLOCK_SHAPE = 1, /* a tree's shape */
  BLOCK_AGENT = 2, /* an agent's number, id and label */
  BLOCK_FRAME = 3, /* records of agents: a table of times, then each agent's records */
  BLOCK_WORLD = 4, /* a host record of no agent (bt_log_write_host) */
  BLOCK_END = 5    /* the log was closed */
};

/* Record codes in an agent's records (the first byte of each record). */
enum {
  REC_STATUS = 0x00, /* 0x00..0x0f: from | to << 2, then the node's difference (zigzag) */
  REC_THINK = 0x10,  /* 0x10..0x1f: cause | sleep form << 2, then the sleep time by its form */
  REC_TIME = 0x20,   /* 0x20..0x2e: the next think, at time table[code - 0x20] */
  REC_TIME_ANY = 0x2f, /* think difference (zigzag), time table index (varint) */
  REC_EVENT = 0x30,  /* node difference (zigzag) */
  REC_ERROR = 0x31,  /* node (zigzag, -1: none), size, bytes */
  REC_RELOAD = 0x32, /* def_from, def_to: 8 bytes each */
  REC_HOST = 0x33,   /* code (zigzag), size, bytes */
  REC_SHAPE = 0x34,  /* shape hash (8 bytes), then the statuses not READY: count, entries */
  REC_SAVED = 0x35,  /* a think saved its statuses as last results */
  REC_DESCRIBE = 0x36, /* count, entries: node difference, sleep form and time, size, bytes */
  REC_LOST = 0x37,   /* count of records lost here */
  REC_STOP = 0x38,   /* the tree was stopped (bt_inst_stop) */
  REC_KEY = 0x39,    /* (1.1) a key written: key (varint), its value before and after (VALUE_*) */
  REC_KEY_WOKE = 0x3a, /* (1.1) the same, and the write woke the instance */
  REC_THINK_MORE = 0x40 /* 0x40..0x4f: as REC_THINK, for the causes 4 to 7: cause - 4 | sleep form << 2 */
};
#define REC_TIME_SHORT 15 /* time table indices REC_TIME can name */

/* How a sleep time is written: none, 0.0 (its bits all zero), a float (4 bytes: the value is
 * exactly a float's), a double (8 bytes). */
enum { SLEEP_NONE = 0, SLEEP_ZERO = 1, SLEEP_FLOAT = 2, SLEEP_DOUBLE = 3 };

/* Node flags in a shape. */
#define SHAPE_LEAF 0x01        /* no children list (Don't Starve's `not self.children`) */
#define SHAPE_NIL_PARAM 0x02   /* the param is nil */
#define SHAPE_PARAM_FN 0x04    /* the param comes from a function */
#define SHAPE_NOSCATTER 0x08   /* no scattered first evaluation */
#define SHAPE_SUCCESS_ONE 0x10 /* PolicyParallel: one success is enough */
#define SHAPE_FAILURE_ALL 0x20 /* PolicyParallel: it fails when all fail */
#define SHAPE_HAS_PARAM 0x40   /* 8 bytes of param follow */
#define SHAPE_FLAGS 0x7f

#define LOG_MAX_TEXT (16u << 20)   /* a record's bytes, at most (longer ones are cut) */
#define LOG_MAX_BLOCK (64u << 20)  /* a block's payload, at most (larger: damaged) */
#define LOG_FRAME_SPLIT (1u << 20) /* a frame's block ends after this many bytes of records */

static inline uint64_t bti_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t bti_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Writes v as a varint (7 bits a byte, low first, the high bit set on all but the last) at p,
 * which has room for 10 bytes; returns the bytes written. */
static inline size_t bti_put_varint(unsigned char *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (unsigned char)v;
  return n;
}

/* Reads a varint from [*p, end): 1 and *v, or 0 when it runs past end or over 10 bytes. */
static inline int bti_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v) {
  const unsigned char *q = *p;
  if (q < end && *q < 0x80) { /* one byte, the common case */
    *v = *q;
    *p = q + 1;
    return 1;
  }
  uint64_t x = 0;
  for (int shift = 0; shift < 70 && q < end; shift += 7) {
    unsigned char b = *q++;
    if (shift == 63 && b > 1) return 0; /* past 64 bits */
    x |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) {
      *v = x;
      *p = q;
      return 1;
    }
  }
  return 0;
}

static inline void bti_put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint64_t bti_get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static inline uint64_t bti_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
static inline double bti_double(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* The form a sleep time is written in (SLEEP_ZERO, _FLOAT or _DOUBLE). */
static inline int bti_sleep_form(double d) {
  uint64_t u = bti_bits(d);
  if (u == 0) return SLEEP_ZERO;
  float f = (float)d;
  return bti_bits((double)f) == u ? SLEEP_FLOAT : SLEEP_DOUBLE;
}
/* Writes d in that form at p; returns the bytes written (0, 4 or 8). */
static inline size_t bti_put_sleep(unsigned char *p, int form, double d) {
  if (form == SLEEP_FLOAT) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(u >> (8 * i));
    return 4;
  }
  if (form == SLEEP_DOUBLE) {
    bti_put_u64(p, bti_bits(d));
    return 8;
  }
  return 0;
}

/* A blackboard value (1.1): a byte of its type (bt_key_type, 0 nil), then by the type: nothing
 * (nil), an f64 (number), a zigzag (integer), a byte 0 or 1 (boolean), a string (string), a
 * varint (entity, and value: a binding's token). */
#define VALUE_MAX_HEAD 11 /* the most bytes a value takes but a string's bytes */

/* Writes v at p (room for VALUE_MAX_HEAD bytes, and a string's n bytes: *n its length, cut to
 * at most *n on entry); returns the bytes written. */
static inline size_t bti_put_value(unsigned char *p, const bt_value *v, size_t *n) {
  unsigned char *q = p;
  int type = v->type > BT_KEY_NONE && v->type < BT_KEY_TYPE_COUNT ? v->type : BT_KEY_NONE;
  *q++ = (unsigned char)type;
  switch (type) {
    case BT_KEY_NUMBER: {
      uint64_t u;
      memcpy(&u, &v->as.number, sizeof u);
      for (int i = 0; i < 8; i++) *q++ = (unsigned char)(u >> (8 * i));
      break;
    }
    case BT_KEY_INTEGER: q += bti_put_varint(q, bti_zigzag(v->as.integer)); break;
    case BT_KEY_BOOLEAN: *q++ = v->as.boolean != 0; break;
    case BT_KEY_STRING: {
      size_t len = strlen(v->as.string);
      if (len > *n) len = *n;
      q += bti_put_varint(q, len);
      memcpy(q, v->as.string, len);
      q += len;
      *n = len;
      break;
    }
    case BT_KEY_ENTITY:
    case BT_KEY_VALUE: q += bti_put_varint(q, v->as.entity); break;
    default: break;
  }
  return (size_t)(q - p);
}

/* The CRC-32 of ISO-HDLC (zlib's, reflected polynomial 0xEDB88320) of n bytes, continued from crc
 * (0 to start). */
BTI_FUNC uint32_t bti_crc32(uint32_t crc, const unsigned char *p, size_t n);

#endif
