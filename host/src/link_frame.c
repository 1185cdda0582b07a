/* link_frame.c — frame codec of the host link (docs/link-protocol.md).
 * See link_frame.h.  No I/O, no allocation, no global mutable state. */
#include "link_frame.h"

#include <string.h>

/* ------------------------------------------------------------ CRC */
/* crc16_table[i] = CRC register after shifting the byte i through a zero
 * register, for polynomial 0x1021 (CRC-16/CCITT-FALSE). */
_Static_assert(SGPU_LINK_CRC_POLY == 0x1021u, "the table below is for polynomial 0x1021");
static const uint16_t crc16_table[256] = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50A5, 0x60C6, 0x70E7,
    0x8108, 0x9129, 0xA14A, 0xB16B, 0xC18C, 0xD1AD, 0xE1CE, 0xF1EF,
    0x1231, 0x0210, 0x3273, 0x2252, 0x52B5, 0x4294, 0x72F7, 0x62D6,
    0x9339, 0x8318, 0xB37B, 0xA35A, 0xD3BD, 0xC39C, 0xF3FF, 0xE3DE,
    0x2462, 0x3443, 0x0420, 0x1401, 0x64E6, 0x74C7, 0x44A4, 0x5485,
    0xA56A, 0xB54B, 0x8528, 0x9509, 0xE5EE, 0xF5CF, 0xC5AC, 0xD58D,
    0x3653, 0x2672, 0x1611, 0x0630, 0x76D7, 0x66F6, 0x5695, 0x46B4,
    0xB75B, 0xA77A, 0x9719, 0x8738, 0xF7DF, 0xE7FE, 0xD79D, 0xC7BC,
    0x48C4, 0x58E5, 0x6886, 0x78A7, 0x0840, 0x1861, 0x2802, 0x3823,
    0xC9CC, 0xD9ED, 0xE98E, 0xF9AF, 0x8948, 0x9969, 0xA90A, 0xB92B,
    0x5AF5, 0x4AD4, 0x7AB7, 0x6A96, 0x1A71, 0x0A50, 0x3A33, 0x2A12,
    0xDBFD, 0xCBDC, 0xFBBF, 0xEB9E, 0x9B79, 0x8B58, 0xBB3B, 0xAB1A,
    0x6CA6, 0x7C87, 0x4CE4, 0x5CC5, 0x2C22, 0x3C03, 0x0C60, 0x1C41,
    0xEDAE, 0xFD8F, 0xCDEC, 0xDDCD, 0xAD2A, 0xBD0B, 0x8D68, 0x9D49,
    0x7E97, 0x6EB6, 0x5ED5, 0x4EF4, 0x3E13, 0x2E32, 0x1E51, 0x0E70,
    0xFF9F, 0xEFBE, 0xDFDD, 0xCFFC, 0xBF1B, 0xAF3A, 0x9F59, 0x8F78,
    0x9188, 0x81A9, 0xB1CA, 0xA1EB, 0xD10C, 0xC12D, 0xF14E, 0xE16F,
    0x1080, 0x00A1, 0x30C2, 0x20E3, 0x5004, 0x4025, 0x7046, 0x6067,
    0x83B9, 0x9398, 0xA3FB, 0xB3DA, 0xC33D, 0xD31C, 0xE37F, 0xF35E,
    0x02B1, 0x1290, 0x22F3, 0x32D2, 0x4235, 0x5214, 0x6277, 0x7256,
    0xB5EA, 0xA5CB, 0x95A8, 0x8589, 0xF56E, 0xE54F, 0xD52C, 0xC50D,
    0x34E2, 0x24C3, 0x14A0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
    0xA7DB, 0xB7FA, 0x8799, 0x97B8, 0xE75F, 0xF77E, 0xC71D, 0xD73C,
    0x26D3, 0x36F2, 0x0691, 0x16B0, 0x6657, 0x7676, 0x4615, 0x5634,
    0xD94C, 0xC96D, 0xF90E, 0xE92F, 0x99C8, 0x89E9, 0xB98A, 0xA9AB,
    0x5844, 0x4865, 0x7806, 0x6827, 0x18C0, 0x08E1, 0x3882, 0x28A3,
    0xCB7D, 0xDB5C, 0xEB3F, 0xFB1E, 0x8BF9, 0x9BD8, 0xABBB, 0xBB9A,
    0x4A75, 0x5A54, 0x6A37, 0x7A16, 0x0AF1, 0x1AD0, 0x2AB3, 0x3A92,
    0xFD2E, 0xED0F, 0xDD6C, 0xCD4D, 0xBDAA, 0xAD8B, 0x9DE8, 0x8DC9,
    0x7C26, 0x6C07, 0x5C64, 0x4C45, 0x3CA2, 0x2C83, 0x1CE0, 0x0CC1,
    0xEF1F, 0xFF3E, 0xCF5D, 0xDF7C, 0xAF9B, 0xBFBA, 0x8FD9, 0x9FF8,
    0x6E17, 0x7E36, 0x4E55, 0x5E74, 0x2E93, 0x3EB2, 0x0ED1, 0x1EF0,
};

uint16_t sgpu_link_crc16(uint16_t crc, const void *data, size_t len) {
  const uint8_t *p = data;
  for (size_t i = 0; i < len; i++)
    crc = (uint16_t)((uint16_t)(crc << 8) ^ crc16_table[(uint8_t)((crc >> 8) ^ p[i])]);
  return crc;
}

/* ------------------------------------------------------------ names */
const char *sgpu_link_strerror(int code) {
  switch (code) {
  case SGPU_LINK_NEED_MORE: return "need more bytes";
  case SGPU_LINK_FRAME: return "frame decoded";
  case SGPU_LINK_ERR_INVALID_ARG: return "invalid argument";
  case SGPU_LINK_ERR_NO_SPACE: return "output buffer too small for the frame";
  case SGPU_LINK_ERR_BAD_CMD: return "unknown command or frame kind";
  case SGPU_LINK_ERR_BAD_FLAGS: return "flags not valid for the command";
  case SGPU_LINK_ERR_BAD_ADDR: return "address not 4-byte aligned";
  case SGPU_LINK_ERR_BAD_CRC: return "frame CRC mismatch";
  case SGPU_LINK_ERR_BAD_LENGTH: return "frame word count out of range";
  case SGPU_LINK_ERR_BAD_COUNT: return "frame word count not allowed for its kind";
  case SGPU_LINK_ERR_BAD_KIND: return "unknown frame kind";
  case SGPU_LINK_ERR_BAD_INFO: return "frame INFO byte not valid for its kind";
  case SGPU_LINK_ERR_TRUNCATED: return "frame truncated (line quiet inside a frame)";
  default: return "unknown link status";
  }
}

const char *sgpu_link_nak_name(uint32_t reason) {
  switch (reason) {
  case SGPU_LINK_NAK_BAD_CRC: return "BAD_CRC";
  case SGPU_LINK_NAK_BAD_LENGTH: return "BAD_LENGTH";
  case SGPU_LINK_NAK_BAD_CMD: return "BAD_CMD";
  case SGPU_LINK_NAK_TIMEOUT: return "TIMEOUT";
  case SGPU_LINK_NAK_BAD_ADDR: return "BAD_ADDR";
  default: return NULL;
  }
}

/* ------------------------------------------------------------ helpers */
static void put_le16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Append the CRC of bytes 1..n-1 (everything after SYNC), high byte first. */
static size_t put_crc(uint8_t *out, size_t n) {
  uint16_t c = sgpu_link_crc16((uint16_t)SGPU_LINK_CRC_INIT, out + 1, n - 1);
  out[n] = (uint8_t)(c >> 8);
  out[n + 1] = (uint8_t)c;
  return n + SGPU_LINK_CRC_BYTES;
}

/* ------------------------------------------------------------ requests */
/* 0 when the request's command, count, flags and address are acceptable. */
static int check_request(const sgpu_link_request *r) {
  uint32_t rw_flags = SGPU_LINK_FLAG_NO_INCR_MASK;
  switch (r->cmd) {
  case SGPU_LINK_CMD_WRITE: rw_flags |= SGPU_LINK_FLAG_BYTE_DISABLE_MASK; /* fall through */
  case SGPU_LINK_CMD_READ:
    if (r->count == 0 || r->count > SGPU_LINK_MAX_WORDS) return SGPU_LINK_ERR_BAD_LENGTH;
    if (r->flags & ~rw_flags) return SGPU_LINK_ERR_BAD_FLAGS;
    if (r->address & 3u) return SGPU_LINK_ERR_BAD_ADDR;
    if (r->cmd == SGPU_LINK_CMD_WRITE && !r->data) return SGPU_LINK_ERR_INVALID_ARG;
    return 0;
  case SGPU_LINK_CMD_PING:
    if (r->count != 0) return SGPU_LINK_ERR_BAD_LENGTH;
    if (r->flags) return SGPU_LINK_ERR_BAD_FLAGS;
    return 0;
  default: return SGPU_LINK_ERR_BAD_CMD;
  }
}

size_t sgpu_link_request_size(const sgpu_link_request *req) {
  if (!req) return 0;
  int r = check_request(req);
  if (r == SGPU_LINK_ERR_BAD_CMD || r == SGPU_LINK_ERR_BAD_LENGTH) return 0;
  size_t data = req->cmd == SGPU_LINK_CMD_WRITE ? 4u * req->count : 0;
  return SGPU_LINK_REQ_HDR_BYTES + data + SGPU_LINK_CRC_BYTES;
}

int sgpu_link_encode_request(const sgpu_link_request *req, uint8_t *out, size_t out_size) {
  if (!req || !out) return SGPU_LINK_ERR_INVALID_ARG;
  int r = check_request(req);
  if (r) return r;
  size_t size = sgpu_link_request_size(req);
  if (out_size < size) return SGPU_LINK_ERR_NO_SPACE;
  out[0] = (uint8_t)SGPU_LINK_SYNC;
  out[1] = req->seq;
  out[2] = req->cmd;
  out[3] = req->flags;
  put_le16(out + 4, req->count);
  put_le32(out + 6, req->address);
  size_t n = SGPU_LINK_REQ_HDR_BYTES;
  if (req->cmd == SGPU_LINK_CMD_WRITE)
    for (uint32_t i = 0; i < req->count; i++, n += 4) put_le32(out + n, req->data[i]);
  return (int)put_crc(out, n);
}

/* ------------------------------------------------------------ answers */
/* Header checks (kind, then count), done as soon as the header is in. */
static int check_answer_header(uint32_t kind, uint32_t count) {
  if (kind != SGPU_LINK_KIND_ACK && kind != SGPU_LINK_KIND_NAK && kind != SGPU_LINK_KIND_EVENT)
    return SGPU_LINK_ERR_BAD_KIND;
  if (count > SGPU_LINK_MAX_WORDS) return SGPU_LINK_ERR_BAD_LENGTH;
  if ((kind == SGPU_LINK_KIND_NAK && count != 0) || (kind == SGPU_LINK_KIND_EVENT && count != 1))
    return SGPU_LINK_ERR_BAD_COUNT;
  return 0;
}

/* INFO checks, done once the CRC has been found good. */
static int check_answer_info(uint32_t kind, uint32_t info) {
  if (kind == SGPU_LINK_KIND_ACK) return (info & ~SGPU_LINK_ACK_DUPLICATE) ? SGPU_LINK_ERR_BAD_INFO : 0;
  if (kind == SGPU_LINK_KIND_NAK) return sgpu_link_nak_name(info) ? 0 : SGPU_LINK_ERR_BAD_INFO;
  return info ? SGPU_LINK_ERR_BAD_INFO : 0;
}

int sgpu_link_encode_answer(const sgpu_link_frame *f, uint8_t *out, size_t out_size) {
  if (!f || !out) return SGPU_LINK_ERR_INVALID_ARG;
  int r = check_answer_header(f->kind, f->count);
  if (r == SGPU_LINK_ERR_BAD_KIND) return SGPU_LINK_ERR_BAD_CMD;
  if (r || (r = check_answer_info(f->kind, f->info))) return r;
  size_t size = SGPU_LINK_RSP_HDR_BYTES + 4u * f->count + SGPU_LINK_CRC_BYTES;
  if (out_size < size) return SGPU_LINK_ERR_NO_SPACE;
  out[0] = (uint8_t)SGPU_LINK_SYNC;
  out[1] = f->seq;
  out[2] = f->kind;
  out[3] = f->info;
  put_le16(out + 4, f->count);
  size_t n = SGPU_LINK_RSP_HDR_BYTES;
  for (uint32_t i = 0; i < f->count; i++, n += 4) put_le32(out + n, f->data[i]);
  return (int)put_crc(out, n);
}

/* ------------------------------------------------------------ decoder */
void sgpu_link_decoder_init(sgpu_link_decoder *d) {
  if (d) memset(d, 0, sizeof *d);
}

size_t sgpu_link_decoder_pending(const sgpu_link_decoder *d) { return d ? d->n : 0; }

/* Drop the first `k` held bytes, then everything up to the next SYNC; the
 * remaining bytes are examined again from the start. */
static void drop_front(sgpu_link_decoder *d, size_t k, int noise) {
  while (k < d->n && d->buf[k] != SGPU_LINK_SYNC) {
    k++;
    if (noise) d->skipped++;
  }
  memmove(d->buf, d->buf + k, d->n - k);
  d->n -= k;
  d->parsed = 0;
  d->need = 0;
}

/* Reject the frame at buf[0]: rescan from the byte after its SYNC. */
static int reject(sgpu_link_decoder *d, int reason) {
  d->rejected++;
  drop_front(d, 1, 0);
  return reason;
}

/* Examine held byte buf[parsed]; returns 0 to go on, or a result. */
static int examine(sgpu_link_decoder *d, sgpu_link_frame *frame) {
  size_t p = ++d->parsed;
  if (p == SGPU_LINK_RSP_HDR_BYTES) {
    uint32_t count = (uint32_t)d->buf[4] | (uint32_t)d->buf[5] << 8;
    int r = check_answer_header(d->buf[2], count);
    if (r) return reject(d, r);
    d->need = SGPU_LINK_RSP_HDR_BYTES + 4u * count + SGPU_LINK_CRC_BYTES;
  }
  if (!d->need || p < d->need) return 0;
  /* The whole frame is in: CRC over everything after SYNC, CRC included. */
  if (sgpu_link_crc16((uint16_t)SGPU_LINK_CRC_INIT, d->buf + 1, d->need - 1) != 0)
    return reject(d, SGPU_LINK_ERR_BAD_CRC);
  int r = check_answer_info(d->buf[2], d->buf[3]);
  if (r) return reject(d, r);
  memset(frame, 0, sizeof *frame);
  frame->seq = d->buf[1];
  frame->kind = d->buf[2];
  frame->info = d->buf[3];
  frame->count = (uint16_t)(d->buf[4] | d->buf[5] << 8);
  for (uint32_t i = 0; i < frame->count; i++)
    frame->data[i] = get_le32(d->buf + SGPU_LINK_RSP_HDR_BYTES + 4u * i);
  d->frames++;
  /* Bytes held after the frame (from a rescan) start the search anew. */
  drop_front(d, d->need, 1);
  return SGPU_LINK_FRAME;
}

int sgpu_link_decode(sgpu_link_decoder *d, const uint8_t *data, size_t len, size_t *consumed,
                     sgpu_link_frame *frame) {
  if (consumed) *consumed = 0;
  if (!d || !frame || (!data && len) || d->n > sizeof d->buf || d->parsed > d->n)
    return SGPU_LINK_ERR_INVALID_ARG;
  size_t used = 0;
  for (;;) {
    if (d->parsed < d->n) {
      int r = examine(d, frame);
      if (r) {
        if (consumed) *consumed = used;
        return r;
      }
      continue;
    }
    if (used == len) break;
    if (d->n == 0) { /* between frames: skip to the next SYNC */
      const uint8_t *s = memchr(data + used, SGPU_LINK_SYNC, len - used);
      size_t skip = s ? (size_t)(s - (data + used)) : len - used;
      d->skipped += skip;
      used += skip;
      if (!s) break;
    }
    d->buf[d->n++] = data[used++];
  }
  if (consumed) *consumed = used;
  return SGPU_LINK_NEED_MORE;
}

int sgpu_link_decoder_gap(sgpu_link_decoder *d) {
  if (!d) return SGPU_LINK_ERR_INVALID_ARG;
  if (d->n == 0) return 0;
  return reject(d, SGPU_LINK_ERR_TRUNCATED);
}
