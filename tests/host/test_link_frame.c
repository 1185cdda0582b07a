/* test_link_frame.c — the host link frame codec (host/src/link_frame.c).
 *
 * Independent references:
 *   - a bitwise CRC-32/MPEG-2 written here from the definition in
 *     docs/link-protocol.md (the same bit loop as crc_byte() of the RTL
 *     bridge's testbench tests/rtl/tb_sgpu_host_bridge.v), checked against
 *     the standard check value and against the library's table-driven CRC;
 *   - frame vectors computed outside this code base with a bitwise Python
 *     CRC-32/MPEG-2 checked against the catalogue's 0x0376E6E7, for the situations the
 *     bridge testbench exercises: PING and its ACK (info word: version and
 *     burst size), a write burst, a NO_INCR read of a register, a masked
 *     NO_INCR write (flags 0x15), a duplicate ACK, a NAK, an EVENT.
 * Then round trips through the encoder and the decoder with every chunking,
 * one test per rejection reason, resynchronisation, and a hostile stream.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../host/src/link_frame.h"

/* Deterministic generator (xorshift64), state passed explicitly. */
static uint32_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return (uint32_t)(x >> 16);
}

/* CRC-32/MPEG-2, one bit at a time, from the definition. */
static uint32_t ref_crc(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    for (int b = 7; b >= 0; b--) {
      uint32_t fb = ((c >> 31) ^ (uint32_t)(p[i] >> b)) & 1u;
      c <<= 1;
      if (fb) c ^= 0x04C11DB7u;
    }
  }
  return c;
}

/* ------------------------------------------------------------ vectors */
static const uint8_t v_ping[] = {0xA5, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x94, 0x35,
    0xA0, 0xA0};
static const uint8_t v_write[] = {0xA5, 0x02, 0x01, 0x00, 0x02, 0x00, 0x40, 0x00, 0x00, 0x00, 0xEF, 0xBE,
    0xAD, 0xDE, 0x67, 0x45, 0x23, 0x01, 0x30, 0x68, 0xDF, 0xB2};
static const uint8_t v_read[] = {0xA5, 0x03, 0x02, 0x10, 0x04, 0x00, 0x08, 0x01, 0x00, 0x80, 0x34, 0xB8,
    0x23, 0x5E};
static const uint8_t v_write_masked[] = {0xA5, 0x0B, 0x01, 0x15, 0x02, 0x00, 0xA0, 0x00, 0x00, 0x00, 0xDD, 0xCC,
    0xBB, 0xAA, 0x88, 0x77, 0x66, 0x55, 0xE6, 0xE4, 0x79, 0x12};
/* a version-2 device's PING answer (its info word 0x4002: V_ACK_PING_INFO) */
static const uint8_t v_ack_ping[] = {0xA5, 0x01, 0x81, 0x00, 0x01, 0x00, 0x02, 0x40, 0x00, 0x00, 0x8B, 0x6F, 0x48, 0x66};
#define V_ACK_PING_INFO (2u | SGPU_LINK_MAX_WORDS << 8)
static const uint8_t v_ack_dup[] = {0xA5, 0x07, 0x81, 0x01, 0x00, 0x00, 0xC7, 0xA0, 0x9B, 0xA5};
static const uint8_t v_ack_read[] = {0xA5, 0x03, 0x81, 0x00, 0x04, 0x00, 0x44, 0x33, 0x22, 0x11, 0xA5, 0xA5,
    0xA5, 0xA5, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xE0, 0x14,
    0xA9, 0xE1};
static const uint8_t v_nak_crc[] = {0xA5, 0x06, 0x82, 0x01, 0x00, 0x00, 0xEE, 0xDA, 0x4E, 0x46};
static const uint8_t v_event[] = {0xA5, 0x00, 0x83, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0xD8, 0x70,
    0xC8, 0x3A};

/* Build a device->host frame by hand (no library code), CRC from ref_crc. */
static size_t raw_answer(uint8_t *out, uint8_t seq, uint8_t kind, uint8_t info, uint16_t count,
                         const uint32_t *data, size_t ndata) {
  size_t n = 0;
  out[n++] = 0xA5;
  out[n++] = seq;
  out[n++] = kind;
  out[n++] = info;
  out[n++] = (uint8_t)count;
  out[n++] = (uint8_t)(count >> 8);
  for (size_t i = 0; i < ndata; i++)
    for (int k = 0; k < 4; k++) out[n++] = (uint8_t)(data[i] >> (8 * k));
  uint32_t c = ref_crc(out + 1, n - 1);
  out[n++] = (uint8_t)(c >> 24);
  out[n++] = (uint8_t)(c >> 16);
  out[n++] = (uint8_t)(c >> 8);
  out[n++] = (uint8_t)c;
  return n;
}

/* Feed a whole buffer in chunks of `chunk` bytes (0 = random sizes), collect
 * every result.  Returns the number of results; frames and codes in order. */
typedef struct results {
  size_t n;
  int code[4096];
  sgpu_link_frame frame[64];
  size_t nframes;
} results;

static void feed_all(sgpu_link_decoder *d, const uint8_t *p, size_t len, size_t chunk,
                     uint64_t *seed, results *res) {
  size_t off = 0;
  while (off < len || sgpu_link_decoder_pending(d)) {
    size_t c = chunk ? chunk : 1 + rnd(seed) % 40;
    if (c > len - off) c = len - off;
    size_t used = 0;
    sgpu_link_frame f;
    int r = sgpu_link_decode(d, p + off, c, &used, &f);
    assert_true(used <= c);
    assert_true(sgpu_link_decoder_pending(d) <= SGPU_LINK_MAX_RSP_FRAME);
    off += used;
    if (r == SGPU_LINK_NEED_MORE) {
      assert_int_equal(used, c);
      if (off == len) break; /* a partial frame stays held */
      continue;
    }
    if (res->n < 4096) res->code[res->n++] = r;
    if (r == SGPU_LINK_FRAME && res->nframes < 64) res->frame[res->nframes++] = f;
  }
}

static int decode_one(const uint8_t *p, size_t len, sgpu_link_frame *f) {
  sgpu_link_decoder d;
  sgpu_link_decoder_init(&d);
  size_t used = 0;
  int r = sgpu_link_decode(&d, p, len, &used, f);
  return r;
}

/* ------------------------------------------------------------ CRC */
static void test_crc_reference(void **state) {
  (void)state;
  const uint8_t check[] = "123456789";
  assert_int_equal(ref_crc(check, 9), 0x0376E6E7u);
  assert_int_equal(sgpu_link_crc32(SGPU_LINK_CRC_INIT, check, 9), 0x0376E6E7u);
  assert_int_equal(sgpu_link_crc32(SGPU_LINK_CRC_INIT, check, 0), SGPU_LINK_CRC_INIT);
  /* continued computation == one pass */
  uint32_t c = sgpu_link_crc32(SGPU_LINK_CRC_INIT, check, 4);
  assert_int_equal(sgpu_link_crc32(c, check + 4, 5), 0x0376E6E7u);
  /* table-driven == bitwise on random data; residue 0 with the CRC appended */
  uint64_t seed = 0x1234567;
  uint8_t buf[300];
  for (int t = 0; t < 2000; t++) {
    size_t n = rnd(&seed) % 296;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rnd(&seed);
    uint32_t want = ref_crc(buf, n);
    assert_int_equal(sgpu_link_crc32(SGPU_LINK_CRC_INIT, buf, n), want);
    for (int k = 0; k < 4; k++) buf[n + (size_t)k] = (uint8_t)(want >> (24 - 8 * k));
    assert_int_equal(sgpu_link_crc32(SGPU_LINK_CRC_INIT, buf, n + 4), 0);
  }
  /* every vector's CRC matches the bitwise reference */
  const struct { const uint8_t *p; size_t n; } v[] = {
      {v_ping, sizeof v_ping}, {v_write, sizeof v_write}, {v_read, sizeof v_read},
      {v_write_masked, sizeof v_write_masked}, {v_ack_ping, sizeof v_ack_ping},
      {v_ack_dup, sizeof v_ack_dup}, {v_ack_read, sizeof v_ack_read},
      {v_nak_crc, sizeof v_nak_crc}, {v_event, sizeof v_event}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    assert_int_equal(v[i].p[0], SGPU_LINK_SYNC);
    assert_int_equal(ref_crc(v[i].p + 1, v[i].n - 1), 0);
  }
}

/* ------------------------------------------------------------ encoder */
static void expect_request(const sgpu_link_request *rq, const uint8_t *want, size_t n) {
  uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
  memset(out, 0xCC, sizeof out);
  assert_int_equal(sgpu_link_request_size(rq), n);
  assert_int_equal(sgpu_link_encode_request(rq, out, sizeof out), (int)n);
  assert_memory_equal(out, want, n);
  /* an exactly sized buffer is enough, one byte less is not */
  assert_int_equal(sgpu_link_encode_request(rq, out, n), (int)n);
  assert_int_equal(sgpu_link_encode_request(rq, out, n - 1), SGPU_LINK_ERR_NO_SPACE);
}

static void test_encode_request_vectors(void **state) {
  (void)state;
  sgpu_link_request rq = {1, SGPU_LINK_CMD_PING, 0, 0, 0, NULL};
  expect_request(&rq, v_ping, sizeof v_ping);
  const uint32_t wd[2] = {0xDEADBEEFu, 0x01234567u};
  rq = (sgpu_link_request){2, SGPU_LINK_CMD_WRITE, 0, 2, 0x40, wd};
  expect_request(&rq, v_write, sizeof v_write);
  rq = (sgpu_link_request){3, SGPU_LINK_CMD_READ, SGPU_LINK_FLAG_NO_INCR_MASK, 4, 0x80000108u, NULL};
  expect_request(&rq, v_read, sizeof v_read);
  const uint32_t wm[2] = {0xAABBCCDDu, 0x55667788u};
  rq = (sgpu_link_request){11, SGPU_LINK_CMD_WRITE, SGPU_LINK_FLAG_NO_INCR_MASK | 0x05u, 2, 160, wm};
  expect_request(&rq, v_write_masked, sizeof v_write_masked);
  /* a full burst: 10 + 256 + 4 bytes, as docs/link-protocol.md says (270) */
  uint32_t big[SGPU_LINK_MAX_WORDS];
  for (unsigned i = 0; i < SGPU_LINK_MAX_WORDS; i++) big[i] = 0x01010101u * i;
  rq = (sgpu_link_request){0xFF, SGPU_LINK_CMD_WRITE, 0, SGPU_LINK_MAX_WORDS, 0x1000, big};
  uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
  assert_int_equal(sgpu_link_encode_request(&rq, out, sizeof out), 270);
  assert_int_equal(SGPU_LINK_MAX_REQ_FRAME, 270);
  assert_int_equal(ref_crc(out + 1, 269), 0);
  assert_int_equal(out[4], 64);
  assert_int_equal(out[5], 0);
  assert_int_equal(out[10 + 4 * 63 + 3], 63);
}

static void test_encode_request_errors(void **state) {
  (void)state;
  uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
  const uint32_t w[SGPU_LINK_MAX_WORDS + 1] = {0};
  sgpu_link_request ok = {5, SGPU_LINK_CMD_WRITE, 0, 1, 0x40, w};
  assert_int_equal(sgpu_link_encode_request(&ok, out, sizeof out), 18);
  assert_int_equal(sgpu_link_encode_request(NULL, out, sizeof out), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_encode_request(&ok, NULL, sizeof out), SGPU_LINK_ERR_INVALID_ARG);
  sgpu_link_request r = ok;
  r.data = NULL;
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_INVALID_ARG);
  const uint8_t bad_cmds[] = {0x00, 0x04, 0x81, 0xFF};
  for (size_t i = 0; i < sizeof bad_cmds; i++) {
    r = ok;
    r.cmd = bad_cmds[i];
    assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_CMD);
    assert_int_equal(sgpu_link_request_size(&r), 0);
  }
  /* COUNT: 0 and 65 for READ/WRITE, not 0 for PING */
  r = ok;
  r.count = 0;
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_LENGTH);
  r.count = SGPU_LINK_MAX_WORDS + 1;
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_LENGTH);
  r.cmd = SGPU_LINK_CMD_READ;
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_LENGTH);
  r = (sgpu_link_request){1, SGPU_LINK_CMD_PING, 0, 1, 0, NULL};
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_LENGTH);
  /* FLAGS: reserved bits; byte-disable on a READ; anything on a PING */
  for (unsigned bit = 5; bit < 8; bit++) {
    r = ok;
    r.flags = (uint8_t)(1u << bit);
    assert_true(r.flags & SGPU_LINK_FLAGS_RESERVED_MASK);
    assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_FLAGS);
  }
  r = (sgpu_link_request){1, SGPU_LINK_CMD_READ, 0x01, 1, 0, NULL};
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_FLAGS);
  r.flags = SGPU_LINK_FLAG_NO_INCR_MASK;
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), 14);
  r = (sgpu_link_request){1, SGPU_LINK_CMD_PING, SGPU_LINK_FLAG_NO_INCR_MASK, 0, 0, NULL};
  assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_FLAGS);
  /* ADDR alignment (READ/WRITE) */
  for (uint32_t a = 1; a < 4; a++) {
    r = ok;
    r.address = 0x40 + a;
    assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_ADDR);
    r.cmd = SGPU_LINK_CMD_READ;
    assert_int_equal(sgpu_link_encode_request(&r, out, sizeof out), SGPU_LINK_ERR_BAD_ADDR);
  }
  /* every code has its own text */
  const int codes[] = {SGPU_LINK_NEED_MORE, SGPU_LINK_FRAME, SGPU_LINK_ERR_INVALID_ARG,
                       SGPU_LINK_ERR_NO_SPACE, SGPU_LINK_ERR_BAD_CMD, SGPU_LINK_ERR_BAD_FLAGS,
                       SGPU_LINK_ERR_BAD_ADDR, SGPU_LINK_ERR_BAD_CRC, SGPU_LINK_ERR_BAD_LENGTH,
                       SGPU_LINK_ERR_BAD_COUNT, SGPU_LINK_ERR_BAD_KIND, SGPU_LINK_ERR_BAD_INFO,
                       SGPU_LINK_ERR_TRUNCATED};
  const size_t nc = sizeof codes / sizeof codes[0];
  for (size_t i = 0; i < nc; i++)
    for (size_t j = i + 1; j < nc; j++)
      assert_string_not_equal(sgpu_link_strerror(codes[i]), sgpu_link_strerror(codes[j]));
  assert_string_equal(sgpu_link_strerror(12345), "unknown link status");
  assert_string_equal(sgpu_link_nak_name(SGPU_LINK_NAK_TIMEOUT), "TIMEOUT");
  assert_null(sgpu_link_nak_name(0));
  assert_string_equal(sgpu_link_nak_name(SGPU_LINK_NAK_OUT_OF_ORDER), "OUT_OF_ORDER");
  assert_string_equal(sgpu_link_nak_name(SGPU_LINK_NAK_IN_USE), "IN_USE");
  assert_null(sgpu_link_nak_name(SGPU_LINK_NAK_IN_USE + 1));
}

/* ------------------------------------------------------------ decoder: vectors */
static void test_decode_vectors(void **state) {
  (void)state;
  sgpu_link_frame f;
  assert_int_equal(decode_one(v_ack_ping, sizeof v_ack_ping, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.kind, SGPU_LINK_KIND_ACK);
  assert_int_equal(f.seq, 1);
  assert_int_equal(f.info, 0);
  assert_int_equal(f.count, 1);
  assert_int_equal(f.data[0], V_ACK_PING_INFO);

  assert_int_equal(decode_one(v_ack_dup, sizeof v_ack_dup, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.kind, SGPU_LINK_KIND_ACK);
  assert_int_equal(f.seq, 7);
  assert_int_equal(f.info, SGPU_LINK_ACK_DUPLICATE);
  assert_int_equal(f.count, 0);

  assert_int_equal(decode_one(v_ack_read, sizeof v_ack_read, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.count, 4);
  const uint32_t want[4] = {0x11223344u, 0xA5A5A5A5u, 0, 0xFFFFFFFFu};
  assert_memory_equal(f.data, want, sizeof want);

  assert_int_equal(decode_one(v_nak_crc, sizeof v_nak_crc, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.kind, SGPU_LINK_KIND_NAK);
  assert_int_equal(f.seq, 6);
  assert_int_equal(f.info, SGPU_LINK_NAK_BAD_CRC);
  assert_int_equal(f.count, 0);

  assert_int_equal(decode_one(v_event, sizeof v_event, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.kind, SGPU_LINK_KIND_EVENT);
  assert_int_equal(f.seq, 0);
  assert_int_equal(f.count, 1);
  assert_int_equal(f.data[0], 1);

  /* the encoder gives the same bytes for the same frames */
  uint8_t out[SGPU_LINK_MAX_RSP_FRAME];
  sgpu_link_frame e = {0};
  e.seq = 3;
  e.kind = SGPU_LINK_KIND_ACK;
  e.count = 4;
  memcpy(e.data, want, sizeof want);
  assert_int_equal(sgpu_link_encode_answer(&e, out, sizeof out), (int)sizeof v_ack_read);
  assert_memory_equal(out, v_ack_read, sizeof v_ack_read);
  e = (sgpu_link_frame){0};
  e.kind = SGPU_LINK_KIND_EVENT;
  e.count = 1;
  e.data[0] = 1;
  assert_int_equal(sgpu_link_encode_answer(&e, out, sizeof out), (int)sizeof v_event);
  assert_memory_equal(out, v_event, sizeof v_event);

  /* every chunk size gives the same frames: all vectors back to back */
  uint8_t stream[256];
  size_t n = 0;
  memcpy(stream + n, v_ack_ping, sizeof v_ack_ping), n += sizeof v_ack_ping;
  memcpy(stream + n, v_ack_read, sizeof v_ack_read), n += sizeof v_ack_read;
  memcpy(stream + n, v_event, sizeof v_event), n += sizeof v_event;
  memcpy(stream + n, v_nak_crc, sizeof v_nak_crc), n += sizeof v_nak_crc;
  memcpy(stream + n, v_ack_dup, sizeof v_ack_dup), n += sizeof v_ack_dup;
  uint64_t seed = 99;
  for (size_t chunk = 0; chunk <= n; chunk++) {
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    static results res;
    memset(&res, 0, sizeof res);
    feed_all(&d, stream, n, chunk, &seed, &res);
    assert_int_equal(res.n, 5);
    assert_int_equal(res.nframes, 5);
    assert_int_equal(res.frame[0].data[0], V_ACK_PING_INFO);
    assert_memory_equal(res.frame[1].data, want, sizeof want);
    assert_int_equal(res.frame[2].kind, SGPU_LINK_KIND_EVENT);
    assert_int_equal(res.frame[3].kind, SGPU_LINK_KIND_NAK);
    assert_int_equal(res.frame[4].info, SGPU_LINK_ACK_DUPLICATE);
    assert_int_equal(sgpu_link_decoder_pending(&d), 0);
    assert_int_equal(d.skipped, 0);
  }
}

/* ------------------------------------------------------------ round trips */
static void random_answer(uint64_t *s, sgpu_link_frame *f) {
  memset(f, 0, sizeof *f);
  f->seq = (uint8_t)rnd(s);
  switch (rnd(s) % 3) {
  case 0:
    f->kind = SGPU_LINK_KIND_ACK;
    f->info = (uint8_t)(rnd(s) & SGPU_LINK_ACK_DUPLICATE);
    f->count = (uint16_t)(rnd(s) % (SGPU_LINK_MAX_WORDS + 1));
    break;
  case 1:
    f->kind = SGPU_LINK_KIND_NAK;
    f->info = (uint8_t)(1 + rnd(s) % 5);
    break;
  default:
    f->kind = SGPU_LINK_KIND_EVENT;
    f->count = 1;
  }
  for (unsigned i = 0; i < f->count; i++) {
    /* plenty of SYNC bytes inside the data */
    f->data[i] = rnd(s) % 4 ? rnd(s) : 0xA5A5A5A5u;
  }
}

static void test_round_trip(void **state) {
  (void)state;
  uint64_t seed = 0xC0FFEE;
  static uint8_t stream[64 * SGPU_LINK_MAX_RSP_FRAME];
  static sgpu_link_frame sent[64];
  static results res;
  for (int t = 0; t < 200; t++) {
    size_t n = 0, nf = 1 + rnd(&seed) % 64;
    for (size_t i = 0; i < nf; i++) {
      random_answer(&seed, &sent[i]);
      int r = sgpu_link_encode_answer(&sent[i], stream + n, sizeof stream - n);
      assert_int_equal(r, (int)(SGPU_LINK_RSP_HDR_BYTES + 4u * sent[i].count + SGPU_LINK_CRC_BYTES));
      /* independent construction gives the same bytes */
      uint8_t raw[SGPU_LINK_MAX_RSP_FRAME];
      size_t rn = raw_answer(raw, sent[i].seq, sent[i].kind, sent[i].info, sent[i].count,
                             sent[i].data, sent[i].count);
      assert_int_equal(rn, (size_t)r);
      assert_memory_equal(raw, stream + n, rn);
      n += (size_t)r;
    }
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    memset(&res, 0, sizeof res);
    feed_all(&d, stream, n, t % 3 == 0 ? 1 : 0, &seed, &res);
    assert_int_equal(res.n, nf);
    assert_int_equal(res.nframes, nf);
    for (size_t i = 0; i < nf; i++) {
      assert_int_equal(res.code[i], SGPU_LINK_FRAME);
      assert_memory_equal(&res.frame[i], &sent[i], sizeof sent[i]);
    }
    assert_int_equal(d.frames, nf);
    assert_int_equal(d.rejected, 0);
  }
  /* requests: the header fields land where the protocol table says */
  for (int t = 0; t < 500; t++) {
    uint32_t w[SGPU_LINK_MAX_WORDS];
    for (unsigned i = 0; i < SGPU_LINK_MAX_WORDS; i++) w[i] = rnd(&seed);
    sgpu_link_request rq = {(uint8_t)rnd(&seed), (uint8_t)(1 + rnd(&seed) % 3), 0, 0,
                            rnd(&seed) & ~3u, w};
    if (rq.cmd != SGPU_LINK_CMD_PING) {
      rq.count = (uint16_t)(1 + rnd(&seed) % SGPU_LINK_MAX_WORDS);
      rq.flags = (uint8_t)(rnd(&seed) & (rq.cmd == SGPU_LINK_CMD_WRITE ? 0x1Fu : 0x10u));
    }
    uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
    int n = sgpu_link_encode_request(&rq, out, sizeof out);
    assert_true(n > 0);
    assert_int_equal((size_t)n, sgpu_link_request_size(&rq));
    assert_int_equal(out[0], SGPU_LINK_SYNC);
    assert_int_equal(out[1], rq.seq);
    assert_int_equal(out[2], rq.cmd);
    assert_int_equal(out[3], rq.flags);
    assert_int_equal(out[4] | out[5] << 8, rq.count);
    assert_int_equal((uint32_t)out[6] | (uint32_t)out[7] << 8 | (uint32_t)out[8] << 16 |
                         (uint32_t)out[9] << 24,
                     rq.address);
    size_t data = rq.cmd == SGPU_LINK_CMD_WRITE ? 4u * rq.count : 0;
    assert_int_equal((size_t)n, 10 + data + 4);
    for (size_t i = 0; i < data; i++) assert_int_equal(out[10 + i], (uint8_t)(w[i / 4] >> (8 * (i % 4))));
    uint32_t c = ref_crc(out + 1, (size_t)n - 5);
    assert_int_equal(out[n - 4], c >> 24);
    assert_int_equal(out[n - 3], (c >> 16) & 0xFF);
    assert_int_equal(out[n - 2], (c >> 8) & 0xFF);
    assert_int_equal(out[n - 1], c & 0xFF);
  }
}

/* ------------------------------------------------------------ rejections */
/* Feed p[0..n) into a fresh decoder; the first result must be `want`. */
static void expect_reject(const uint8_t *p, size_t n, int want) {
  sgpu_link_decoder d;
  sgpu_link_decoder_init(&d);
  sgpu_link_frame f;
  size_t used = 0;
  assert_int_equal(sgpu_link_decode(&d, p, n, &used, &f), want);
  assert_int_equal(d.rejected, 1);
  assert_int_equal(d.frames, 0);
  /* the same, byte by byte */
  sgpu_link_decoder_init(&d);
  int r = SGPU_LINK_NEED_MORE;
  for (size_t i = 0; i < n && r == SGPU_LINK_NEED_MORE; i++) r = sgpu_link_decode(&d, p + i, 1, &used, &f);
  assert_int_equal(r, want);
}

static void test_reject_bad_crc(void **state) {
  (void)state;
  /* every single-bit error in every vector is caught (header errors may be
   * caught first as a bad kind/length/count; never accepted) */
  const struct { const uint8_t *p; size_t n; } v[] = {
      {v_ack_ping, sizeof v_ack_ping}, {v_ack_dup, sizeof v_ack_dup},
      {v_ack_read, sizeof v_ack_read}, {v_nak_crc, sizeof v_nak_crc}, {v_event, sizeof v_event}};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    for (size_t i = 1; i < v[k].n; i++) {
      for (int b = 0; b < 8; b++) {
        uint8_t buf[64];
        memcpy(buf, v[k].p, v[k].n);
        buf[i] ^= (uint8_t)(1u << b);
        sgpu_link_decoder d;
        sgpu_link_decoder_init(&d);
        static results res;
        memset(&res, 0, sizeof res);
        uint64_t seed = 1;
        feed_all(&d, buf, v[k].n, 0, &seed, &res);
        for (size_t j = 0; j < res.n; j++) assert_true(res.code[j] != SGPU_LINK_FRAME);
        /* bytes 1, 3 and the data/CRC are only checked by the CRC */
        if (i == 1 || i >= 6) {
          assert_true(res.n >= 1);
          assert_int_equal(res.code[0], SGPU_LINK_ERR_BAD_CRC);
        }
      }
    }
  }
  /* a forged CRC */
  uint8_t buf[64];
  memcpy(buf, v_event, sizeof v_event);
  buf[sizeof v_event - 1] ^= 0xFF;
  expect_reject(buf, sizeof v_event, SGPU_LINK_ERR_BAD_CRC);
}

static void test_reject_bad_length(void **state) {
  (void)state;
  uint8_t buf[SGPU_LINK_MAX_RSP_FRAME + 8];
  /* COUNT 65 and 0xFFFF with valid-looking CRC bytes: rejected at the header */
  size_t n = raw_answer(buf, 1, SGPU_LINK_KIND_ACK, 0, SGPU_LINK_MAX_WORDS + 1, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_LENGTH);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_ACK, 0, 0xFFFF, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_LENGTH);
  /* the header is enough: six bytes */
  expect_reject(buf, SGPU_LINK_RSP_HDR_BYTES, SGPU_LINK_ERR_BAD_LENGTH);
  /* 64 is fine */
  uint32_t w[SGPU_LINK_MAX_WORDS] = {0};
  n = raw_answer(buf, 1, SGPU_LINK_KIND_ACK, 0, SGPU_LINK_MAX_WORDS, w, SGPU_LINK_MAX_WORDS);
  assert_int_equal(n, SGPU_LINK_MAX_RSP_FRAME);
  sgpu_link_frame f;
  assert_int_equal(decode_one(buf, n, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.count, SGPU_LINK_MAX_WORDS);
  /* the encoder refuses what the decoder would */
  sgpu_link_frame e = {0};
  e.kind = SGPU_LINK_KIND_ACK;
  e.count = SGPU_LINK_MAX_WORDS + 1;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_LENGTH);
  e.count = SGPU_LINK_MAX_WORDS;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, SGPU_LINK_MAX_RSP_FRAME - 1), SGPU_LINK_ERR_NO_SPACE);
}

static void test_reject_bad_count(void **state) {
  (void)state;
  uint8_t buf[64];
  const uint32_t w[2] = {1, 2};
  size_t n = raw_answer(buf, 1, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_BAD_CRC, 1, w, 1);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_COUNT);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_EVENT, 0, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_COUNT);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_EVENT, 0, 2, w, 2);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_COUNT);
  sgpu_link_frame e = {0};
  e.kind = SGPU_LINK_KIND_EVENT;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_COUNT);
  e.kind = SGPU_LINK_KIND_NAK;
  e.info = SGPU_LINK_NAK_TIMEOUT;
  e.count = 1;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_COUNT);
  /* OUT_OF_ORDER carries exactly one word: the device's last SEQ */
  e.info = SGPU_LINK_NAK_OUT_OF_ORDER;
  e.count = 0;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_COUNT);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_OUT_OF_ORDER, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_COUNT);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_OUT_OF_ORDER, 2, w, 2);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_COUNT);
  sgpu_link_frame f;
  const uint32_t last[1] = {0x7E};
  n = raw_answer(buf, 5, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_OUT_OF_ORDER, 1, last, 1);
  assert_int_equal(decode_one(buf, n, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.count, 1);
  assert_int_equal(f.data[0], 0x7E);
}

/* A request given another SEQ is the frame encoded with that SEQ. */
static void test_request_reseq(void **state) {
  (void)state;
  const uint32_t w[3] = {1, 0xA5A5A5A5u, 3};
  sgpu_link_request rq = {7, SGPU_LINK_CMD_WRITE, 0, 3, 0x100, w};
  uint8_t a[64], b[64];
  int n = sgpu_link_encode_request(&rq, a, sizeof a);
  assert_true(n > 0);
  rq.seq = 200;
  assert_int_equal(sgpu_link_encode_request(&rq, b, sizeof b), n);
  assert_int_equal(sgpu_link_request_reseq(a, (size_t)n, 200), 0);
  assert_memory_equal(a, b, (size_t)n);
  assert_int_equal(sgpu_link_request_reseq(a, 13, 1), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_request_reseq(NULL, (size_t)n, 1), SGPU_LINK_ERR_INVALID_ARG);
}

static void test_reject_bad_kind(void **state) {
  (void)state;
  uint8_t buf[64];
  /* request commands echoed back, neighbours of the valid kinds, 0, 0xFF */
  const uint8_t kinds[] = {0x00, 0x01, 0x02, 0x03, 0x80, 0x84, 0xA5, 0xFF};
  for (size_t i = 0; i < sizeof kinds; i++) {
    size_t n = raw_answer(buf, 1, kinds[i], 0, 0, NULL, 0);
    expect_reject(buf, n, SGPU_LINK_ERR_BAD_KIND);
    sgpu_link_frame e = {0};
    e.kind = kinds[i];
    assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_CMD);
  }
}

static void test_reject_bad_info(void **state) {
  (void)state;
  uint8_t buf[64];
  const uint32_t w[1] = {0x100};
  size_t n = raw_answer(buf, 1, SGPU_LINK_KIND_ACK, 0x02, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_INFO);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_ACK, 0x81, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_INFO);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_NAK, 0, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_INFO);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_IN_USE + 1, 0, NULL, 0);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_INFO);
  n = raw_answer(buf, 1, SGPU_LINK_KIND_EVENT, 1, 1, w, 1);
  expect_reject(buf, n, SGPU_LINK_ERR_BAD_INFO);
  /* every defined NAK reason passes */
  for (uint8_t r = SGPU_LINK_NAK_BAD_CRC; r <= SGPU_LINK_NAK_BAD_ADDR; r++) { /* no data */
    sgpu_link_frame f;
    n = raw_answer(buf, 9, SGPU_LINK_KIND_NAK, r, 0, NULL, 0);
    assert_int_equal(decode_one(buf, n, &f), SGPU_LINK_FRAME);
    assert_int_equal(f.info, r);
    assert_non_null(sgpu_link_nak_name(r));
  }
  sgpu_link_frame e = {0};
  e.kind = SGPU_LINK_KIND_NAK;
  assert_int_equal(sgpu_link_encode_answer(&e, buf, sizeof buf), SGPU_LINK_ERR_BAD_INFO);
}

static void test_reject_truncated(void **state) {
  (void)state;
  sgpu_link_decoder d;
  sgpu_link_frame f;
  size_t used;
  /* nothing held: the gap is harmless */
  sgpu_link_decoder_init(&d);
  assert_int_equal(sgpu_link_decoder_gap(&d), 0);
  /* cut at every point of a frame, then the line goes quiet */
  for (size_t cut = 1; cut < sizeof v_ack_read; cut++) {
    sgpu_link_decoder_init(&d);
    assert_int_equal(sgpu_link_decode(&d, v_ack_read, cut, &used, &f), SGPU_LINK_NEED_MORE);
    assert_int_equal(used, cut);
    assert_int_equal(sgpu_link_decoder_pending(&d), cut);
    assert_int_equal(sgpu_link_decoder_gap(&d), SGPU_LINK_ERR_TRUNCATED);
    /* the rest of the held bytes may start a new candidate (the A5 data
     * bytes); more gaps drop them too, and no frame comes out */
    int guard = 0;
    for (;;) {
      int r = sgpu_link_decode(&d, NULL, 0, &used, &f);
      assert_int_not_equal(r, SGPU_LINK_FRAME);
      if (r != SGPU_LINK_NEED_MORE) continue;
      if (sgpu_link_decoder_gap(&d) == 0) break;
      assert_true(++guard < 64);
    }
    assert_int_equal(sgpu_link_decoder_pending(&d), 0);
    /* and the decoder works afterwards */
    assert_int_equal(sgpu_link_decode(&d, v_event, sizeof v_event, &used, &f), SGPU_LINK_FRAME);
  }
  /* the transport's usual sequence: a truncated answer, the retransmitted
   * answer in full, then silence: the gap drops the stub and the complete
   * frame found inside the held bytes comes out */
  uint8_t s[64];
  memcpy(s, v_ack_read, 9);
  memcpy(s + 9, v_ack_ping, sizeof v_ack_ping);
  sgpu_link_decoder_init(&d);
  assert_int_equal(sgpu_link_decode(&d, s, 9 + sizeof v_ack_ping, &used, &f), SGPU_LINK_NEED_MORE);
  assert_int_equal(sgpu_link_decoder_gap(&d), SGPU_LINK_ERR_TRUNCATED);
  assert_int_equal(sgpu_link_decode(&d, NULL, 0, &used, &f), SGPU_LINK_FRAME);
  assert_int_equal(f.seq, 1);
  assert_int_equal(f.data[0], V_ACK_PING_INFO);
  assert_int_equal(sgpu_link_decode(&d, NULL, 0, &used, &f), SGPU_LINK_NEED_MORE);
  assert_int_equal(sgpu_link_decoder_pending(&d), 0);
}

static void test_invalid_args(void **state) {
  (void)state;
  sgpu_link_decoder d;
  sgpu_link_frame f;
  size_t used = 7;
  sgpu_link_decoder_init(&d);
  sgpu_link_decoder_init(NULL);
  assert_int_equal(sgpu_link_decode(NULL, v_event, 1, &used, &f), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(used, 0);
  assert_int_equal(sgpu_link_decode(&d, v_event, 1, &used, NULL), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_decode(&d, NULL, 1, &used, &f), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_decode(&d, NULL, 0, NULL, &f), SGPU_LINK_NEED_MORE);
  assert_int_equal(sgpu_link_decoder_gap(NULL), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_decoder_pending(NULL), 0);
  assert_int_equal(sgpu_link_encode_answer(NULL, d.buf, 8), SGPU_LINK_ERR_INVALID_ARG);
  assert_int_equal(sgpu_link_request_size(NULL), 0);
  /* a corrupted decoder state is refused, not trusted */
  d.n = sizeof d.buf + 1;
  assert_int_equal(sgpu_link_decode(&d, v_event, 1, &used, &f), SGPU_LINK_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------ resynchronisation */
static void test_resync(void **state) {
  (void)state;
  static results res;
  uint64_t seed = 5;
  /* noise (with and without SYNC bytes) between frames is skipped */
  uint8_t s[256];
  size_t n = 0;
  const uint8_t noise[] = {0x00, 0x5A, 0xFF, 0xA4, 0x01};
  memcpy(s + n, noise, sizeof noise), n += sizeof noise;
  memcpy(s + n, v_event, sizeof v_event), n += sizeof v_event;
  memcpy(s + n, noise, sizeof noise), n += sizeof noise;
  memcpy(s + n, v_ack_dup, sizeof v_ack_dup), n += sizeof v_ack_dup;
  for (size_t chunk = 0; chunk < 8; chunk++) {
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    memset(&res, 0, sizeof res);
    feed_all(&d, s, n, chunk, &seed, &res);
    assert_int_equal(res.n, 2);
    assert_int_equal(res.nframes, 2);
    assert_int_equal(res.frame[0].kind, SGPU_LINK_KIND_EVENT);
    assert_int_equal(res.frame[1].kind, SGPU_LINK_KIND_ACK);
    assert_int_equal(d.skipped, 2 * sizeof noise);
  }
  /* a stray SYNC just before a frame: the false header (whose KIND byte is
   * the real frame's SEQ, 0x01) is rejected and the real frame decoded */
  n = 0;
  s[n++] = 0xA5;
  memcpy(s + n, v_ack_ping, sizeof v_ack_ping), n += sizeof v_ack_ping;
  for (size_t chunk = 0; chunk < 4; chunk++) {
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    memset(&res, 0, sizeof res);
    feed_all(&d, s, n, chunk, &seed, &res);
    assert_int_equal(res.n, 2);
    assert_int_equal(res.code[0], SGPU_LINK_ERR_BAD_KIND);
    assert_int_equal(res.code[1], SGPU_LINK_FRAME);
    assert_int_equal(res.frame[0].seq, 1);
  }
  /* a frame truncated in its header's COUNT promise: the 4-word ACK loses
   * its data after 10 bytes; two events follow.  The stub swallows bytes
   * until its length is reached, fails the CRC, and the rescan finds both
   * events inside the held bytes. */
  n = 0;
  memcpy(s + n, v_ack_read, 10), n += 10;
  memcpy(s + n, v_event, sizeof v_event), n += sizeof v_event;
  uint8_t ev2[16];
  const uint32_t w = 0x200;
  size_t n2 = raw_answer(ev2, 1, SGPU_LINK_KIND_EVENT, 0, 1, &w, 1);
  memcpy(s + n, ev2, n2), n += n2;
  for (size_t chunk = 0; chunk < 12; chunk++) {
    sgpu_link_decoder d;
    sgpu_link_decoder_init(&d);
    memset(&res, 0, sizeof res);
    feed_all(&d, s, n, chunk, &seed, &res);
    assert_int_equal(res.n, 3);
    assert_int_equal(res.code[0], SGPU_LINK_ERR_BAD_CRC);
    assert_int_equal(res.nframes, 2);
    assert_int_equal(res.frame[0].seq, 0);
    assert_int_equal(res.frame[0].data[0], 1);
    assert_int_equal(res.frame[1].seq, 1);
    assert_int_equal(res.frame[1].data[0], 0x200);
    assert_int_equal(sgpu_link_decoder_pending(&d), 0);
  }
}

/* ------------------------------------------------------------ hostile stream */
static void test_hostile_stream(void **state) {
  (void)state;
  uint64_t seed = 0xBADC0DE;
  enum { LEN = 1 << 20 };
  uint8_t *s = malloc(LEN);
  assert_non_null(s);
  /* 1) pure random bytes, random chunks: never a crash, bounded state; any
   *    frame that comes out really has a valid CRC and header */
  for (size_t i = 0; i < LEN; i++) s[i] = (uint8_t)rnd(&seed);
  sgpu_link_decoder d;
  sgpu_link_decoder_init(&d);
  size_t off = 0;
  uint64_t results_seen = 0;
  while (off < LEN) {
    size_t c = 1 + rnd(&seed) % 300;
    if (c > LEN - off) c = LEN - off;
    size_t used;
    sgpu_link_frame f;
    int r = sgpu_link_decode(&d, s + off, c, &used, &f);
    off += used;
    assert_true(sgpu_link_decoder_pending(&d) <= SGPU_LINK_MAX_RSP_FRAME);
    assert_true(r == SGPU_LINK_NEED_MORE || r == SGPU_LINK_FRAME || (r <= SGPU_LINK_ERR_BAD_CRC &&
                                                                     r >= SGPU_LINK_ERR_BAD_INFO));
    if (r != SGPU_LINK_NEED_MORE) results_seen++;
    if (r == SGPU_LINK_FRAME) {
      uint8_t raw[SGPU_LINK_MAX_RSP_FRAME];
      size_t rn = raw_answer(raw, f.seq, f.kind, f.info, f.count, f.data, f.count);
      assert_int_equal(ref_crc(raw + 1, rn - 1), 0);
      assert_int_equal(sgpu_link_encode_answer(&f, raw, sizeof raw), (int)rn);
    }
    if (rnd(&seed) % 64 == 0) sgpu_link_decoder_gap(&d);
  }
  assert_true(results_seen > 0);
  assert_true(d.skipped > LEN / 2); /* most of it is noise */

  /* 2) valid frames mixed with noise, forged CRCs and truncated frames: every
   *    valid frame comes out, in order, and nothing else */
  static sgpu_link_frame want[20000];
  size_t nwant = 0, n = 0;
  while (n + 2 * SGPU_LINK_MAX_RSP_FRAME < LEN && nwant < 20000) {
    uint8_t fr[SGPU_LINK_MAX_RSP_FRAME];
    sgpu_link_frame f;
    random_answer(&seed, &f);
    int fl = sgpu_link_encode_answer(&f, fr, sizeof fr);
    assert_true(fl > 0);
    switch (rnd(&seed) % 5) {
    case 0: /* valid */
      memcpy(s + n, fr, (size_t)fl), n += (size_t)fl;
      want[nwant++] = f;
      break;
    case 1: /* forged CRC */
      fr[fl - 1 - rnd(&seed) % 2] ^= (uint8_t)(1 + rnd(&seed) % 255);
      memcpy(s + n, fr, (size_t)fl), n += (size_t)fl;
      break;
    case 2: /* truncated (at least the SYNC is sent) */
      {
        size_t cut = 1 + rnd(&seed) % ((size_t)fl - 1);
        memcpy(s + n, fr, cut), n += cut;
      }
      break;
    default: /* noise */
      for (size_t k = rnd(&seed) % 40; k > 0; k--) s[n++] = (uint8_t)rnd(&seed);
    }
  }
  sgpu_link_decoder_init(&d);
  size_t got = 0;
  off = 0;
  for (;;) {
    size_t c = 1 + rnd(&seed) % 300;
    if (c > n - off) c = n - off;
    size_t used;
    sgpu_link_frame f;
    int r = sgpu_link_decode(&d, s + off, c, &used, &f);
    off += used;
    assert_true(sgpu_link_decoder_pending(&d) <= SGPU_LINK_MAX_RSP_FRAME);
    if (r == SGPU_LINK_FRAME) {
      assert_true(got < nwant);
      assert_memory_equal(&f, &want[got], sizeof f);
      got++;
    }
    if (r == SGPU_LINK_NEED_MORE && off == n) {
      /* end of input: the line goes quiet; drop stubs until nothing is held */
      if (sgpu_link_decoder_gap(&d) == 0) break;
    }
  }
  assert_int_equal(got, nwant);
  assert_true(nwant > 1000);
  assert_true(d.rejected > 1000);

  /* 3) an endless stream of EVENT frames: one result per frame, the state
   *    never grows */
  uint8_t ev[SGPU_LINK_MAX_RSP_FRAME];
  sgpu_link_decoder_init(&d);
  for (uint32_t i = 0; i < 200000; i++) {
    sgpu_link_frame f = {0};
    f.seq = (uint8_t)i;
    f.kind = SGPU_LINK_KIND_EVENT;
    f.count = 1;
    f.data[0] = i;
    int fl = sgpu_link_encode_answer(&f, ev, sizeof ev);
    assert_int_equal(fl, 14);
    size_t used, split = i % 15;
    sgpu_link_frame g;
    int r = sgpu_link_decode(&d, ev, split, &used, &g);
    if (split < 14) {
      assert_int_equal(r, SGPU_LINK_NEED_MORE);
      r = sgpu_link_decode(&d, ev + split, 14 - split, &used, &g);
    }
    assert_int_equal(r, SGPU_LINK_FRAME);
    assert_int_equal(g.data[0], i);
    assert_int_equal(g.seq, (uint8_t)i);
    assert_int_equal(sgpu_link_decoder_pending(&d), 0);
  }
  assert_int_equal(d.frames, 200000);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crc_reference),
      cmocka_unit_test(test_encode_request_vectors),
      cmocka_unit_test(test_encode_request_errors),
      cmocka_unit_test(test_decode_vectors),
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_reject_bad_crc),
      cmocka_unit_test(test_reject_bad_length),
      cmocka_unit_test(test_reject_bad_count),
      cmocka_unit_test(test_request_reseq),
      cmocka_unit_test(test_reject_bad_kind),
      cmocka_unit_test(test_reject_bad_info),
      cmocka_unit_test(test_reject_truncated),
      cmocka_unit_test(test_invalid_args),
      cmocka_unit_test(test_resync),
      cmocka_unit_test(test_hostile_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
