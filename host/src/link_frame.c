/* link_frame.c — frame codec of the host link (docs/link-protocol.md).
 * See link_frame.h.  No I/O, no allocation, no global mutable state. */
#include "link_frame.h"

#include <string.h>

/* ------------------------------------------------------------ CRC */
/* crc32_table[i] = CRC register after shifting the byte i (in the top byte)
 * through a zero register, for polynomial 0x04C11DB7 (CRC-32/MPEG-2). */
_Static_assert(SGPU_LINK_CRC_POLY == 0x04C11DB7u, "the table below is for polynomial 0x04C11DB7");
static const uint32_t crc32_table[256] = {
    0x00000000u, 0x04C11DB7u, 0x09823B6Eu, 0x0D4326D9u, 0x130476DCu, 0x17C56B6Bu,
    0x1A864DB2u, 0x1E475005u, 0x2608EDB8u, 0x22C9F00Fu, 0x2F8AD6D6u, 0x2B4BCB61u,
    0x350C9B64u, 0x31CD86D3u, 0x3C8EA00Au, 0x384FBDBDu, 0x4C11DB70u, 0x48D0C6C7u,
    0x4593E01Eu, 0x4152FDA9u, 0x5F15ADACu, 0x5BD4B01Bu, 0x569796C2u, 0x52568B75u,
    0x6A1936C8u, 0x6ED82B7Fu, 0x639B0DA6u, 0x675A1011u, 0x791D4014u, 0x7DDC5DA3u,
    0x709F7B7Au, 0x745E66CDu, 0x9823B6E0u, 0x9CE2AB57u, 0x91A18D8Eu, 0x95609039u,
    0x8B27C03Cu, 0x8FE6DD8Bu, 0x82A5FB52u, 0x8664E6E5u, 0xBE2B5B58u, 0xBAEA46EFu,
    0xB7A96036u, 0xB3687D81u, 0xAD2F2D84u, 0xA9EE3033u, 0xA4AD16EAu, 0xA06C0B5Du,
    0xD4326D90u, 0xD0F37027u, 0xDDB056FEu, 0xD9714B49u, 0xC7361B4Cu, 0xC3F706FBu,
    0xCEB42022u, 0xCA753D95u, 0xF23A8028u, 0xF6FB9D9Fu, 0xFBB8BB46u, 0xFF79A6F1u,
    0xE13EF6F4u, 0xE5FFEB43u, 0xE8BCCD9Au, 0xEC7DD02Du, 0x34867077u, 0x30476DC0u,
    0x3D044B19u, 0x39C556AEu, 0x278206ABu, 0x23431B1Cu, 0x2E003DC5u, 0x2AC12072u,
    0x128E9DCFu, 0x164F8078u, 0x1B0CA6A1u, 0x1FCDBB16u, 0x018AEB13u, 0x054BF6A4u,
    0x0808D07Du, 0x0CC9CDCAu, 0x7897AB07u, 0x7C56B6B0u, 0x71159069u, 0x75D48DDEu,
    0x6B93DDDBu, 0x6F52C06Cu, 0x6211E6B5u, 0x66D0FB02u, 0x5E9F46BFu, 0x5A5E5B08u,
    0x571D7DD1u, 0x53DC6066u, 0x4D9B3063u, 0x495A2DD4u, 0x44190B0Du, 0x40D816BAu,
    0xACA5C697u, 0xA864DB20u, 0xA527FDF9u, 0xA1E6E04Eu, 0xBFA1B04Bu, 0xBB60ADFCu,
    0xB6238B25u, 0xB2E29692u, 0x8AAD2B2Fu, 0x8E6C3698u, 0x832F1041u, 0x87EE0DF6u,
    0x99A95DF3u, 0x9D684044u, 0x902B669Du, 0x94EA7B2Au, 0xE0B41DE7u, 0xE4750050u,
    0xE9362689u, 0xEDF73B3Eu, 0xF3B06B3Bu, 0xF771768Cu, 0xFA325055u, 0xFEF34DE2u,
    0xC6BCF05Fu, 0xC27DEDE8u, 0xCF3ECB31u, 0xCBFFD686u, 0xD5B88683u, 0xD1799B34u,
    0xDC3ABDEDu, 0xD8FBA05Au, 0x690CE0EEu, 0x6DCDFD59u, 0x608EDB80u, 0x644FC637u,
    0x7A089632u, 0x7EC98B85u, 0x738AAD5Cu, 0x774BB0EBu, 0x4F040D56u, 0x4BC510E1u,
    0x46863638u, 0x42472B8Fu, 0x5C007B8Au, 0x58C1663Du, 0x558240E4u, 0x51435D53u,
    0x251D3B9Eu, 0x21DC2629u, 0x2C9F00F0u, 0x285E1D47u, 0x36194D42u, 0x32D850F5u,
    0x3F9B762Cu, 0x3B5A6B9Bu, 0x0315D626u, 0x07D4CB91u, 0x0A97ED48u, 0x0E56F0FFu,
    0x1011A0FAu, 0x14D0BD4Du, 0x19939B94u, 0x1D528623u, 0xF12F560Eu, 0xF5EE4BB9u,
    0xF8AD6D60u, 0xFC6C70D7u, 0xE22B20D2u, 0xE6EA3D65u, 0xEBA91BBCu, 0xEF68060Bu,
    0xD727BBB6u, 0xD3E6A601u, 0xDEA580D8u, 0xDA649D6Fu, 0xC423CD6Au, 0xC0E2D0DDu,
    0xCDA1F604u, 0xC960EBB3u, 0xBD3E8D7Eu, 0xB9FF90C9u, 0xB4BCB610u, 0xB07DABA7u,
    0xAE3AFBA2u, 0xAAFBE615u, 0xA7B8C0CCu, 0xA379DD7Bu, 0x9B3660C6u, 0x9FF77D71u,
    0x92B45BA8u, 0x9675461Fu, 0x8832161Au, 0x8CF30BADu, 0x81B02D74u, 0x857130C3u,
    0x5D8A9099u, 0x594B8D2Eu, 0x5408ABF7u, 0x50C9B640u, 0x4E8EE645u, 0x4A4FFBF2u,
    0x470CDD2Bu, 0x43CDC09Cu, 0x7B827D21u, 0x7F436096u, 0x7200464Fu, 0x76C15BF8u,
    0x68860BFDu, 0x6C47164Au, 0x61043093u, 0x65C52D24u, 0x119B4BE9u, 0x155A565Eu,
    0x18197087u, 0x1CD86D30u, 0x029F3D35u, 0x065E2082u, 0x0B1D065Bu, 0x0FDC1BECu,
    0x3793A651u, 0x3352BBE6u, 0x3E119D3Fu, 0x3AD08088u, 0x2497D08Du, 0x2056CD3Au,
    0x2D15EBE3u, 0x29D4F654u, 0xC5A92679u, 0xC1683BCEu, 0xCC2B1D17u, 0xC8EA00A0u,
    0xD6AD50A5u, 0xD26C4D12u, 0xDF2F6BCBu, 0xDBEE767Cu, 0xE3A1CBC1u, 0xE760D676u,
    0xEA23F0AFu, 0xEEE2ED18u, 0xF0A5BD1Du, 0xF464A0AAu, 0xF9278673u, 0xFDE69BC4u,
    0x89B8FD09u, 0x8D79E0BEu, 0x803AC667u, 0x84FBDBD0u, 0x9ABC8BD5u, 0x9E7D9662u,
    0x933EB0BBu, 0x97FFAD0Cu, 0xAFB010B1u, 0xAB710D06u, 0xA6322BDFu, 0xA2F33668u,
    0xBCB4666Du, 0xB8757BDAu, 0xB5365D03u, 0xB1F740B4u,
};

uint32_t sgpu_link_crc32(uint32_t crc, const void *data, size_t len) {
  const uint8_t *p = data;
  for (size_t i = 0; i < len; i++) crc = (crc << 8) ^ crc32_table[(uint8_t)((crc >> 24) ^ p[i])];
  return crc;
}

/* CRC-16/CCITT-FALSE of link version 1, bit by bit: only to recognise a
 * version-1 device's answer (sgpu_link_v1_answer). */
static uint16_t crc16_v1(const uint8_t *p, size_t len) {
  uint16_t c = 0xFFFFu;
  for (size_t i = 0; i < len; i++) {
    c ^= (uint16_t)(p[i] << 8);
    for (int k = 0; k < 8; k++) c = (c & 0x8000u) ? (uint16_t)((c << 1) ^ 0x1021u) : (uint16_t)(c << 1);
  }
  return c;
}

int sgpu_link_v1_answer(const uint8_t *p, size_t n) {
  /* SYNC SEQ KIND INFO COUNT(2) DATA CRC-16: an ACK or NAK with at most one
   * data word (the answers to a PING) */
  for (size_t i = 0; i + 8 <= n; i++) {
    if (p[i] != SGPU_LINK_SYNC || (p[i + 2] != SGPU_LINK_KIND_ACK && p[i + 2] != SGPU_LINK_KIND_NAK) ||
        p[i + 5] != 0 || p[i + 4] > 1)
      continue;
    size_t len = 8u + 4u * p[i + 4];
    if (i + len <= n && crc16_v1(p + i + 1, len - 1) == 0) return 1;
  }
  return 0;
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
  case SGPU_LINK_NAK_OUT_OF_ORDER: return "OUT_OF_ORDER";
  case SGPU_LINK_NAK_IN_USE: return "IN_USE";
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
  uint32_t c = sgpu_link_crc32(SGPU_LINK_CRC_INIT, out + 1, n - 1);
  out[n] = (uint8_t)(c >> 24);
  out[n + 1] = (uint8_t)(c >> 16);
  out[n + 2] = (uint8_t)(c >> 8);
  out[n + 3] = (uint8_t)c;
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

int sgpu_link_request_reseq(uint8_t *frame, size_t n, uint8_t seq) {
  if (!frame || n < SGPU_LINK_REQ_HDR_BYTES + SGPU_LINK_CRC_BYTES) return SGPU_LINK_ERR_INVALID_ARG;
  frame[1] = seq;
  put_crc(frame, n - SGPU_LINK_CRC_BYTES);
  return 0;
}

/* ------------------------------------------------------------ answers */
/* Header checks (kind, then count), done as soon as the header is in.  A
 * NAK may carry one word (OUT_OF_ORDER's last executed SEQ); which NAK may
 * is checked with INFO once the CRC is good. */
static int check_answer_header(uint32_t kind, uint32_t count) {
  if (kind != SGPU_LINK_KIND_ACK && kind != SGPU_LINK_KIND_NAK && kind != SGPU_LINK_KIND_EVENT)
    return SGPU_LINK_ERR_BAD_KIND;
  if (count > SGPU_LINK_MAX_WORDS) return SGPU_LINK_ERR_BAD_LENGTH;
  if ((kind == SGPU_LINK_KIND_NAK && count > 1) || (kind == SGPU_LINK_KIND_EVENT && count != 1))
    return SGPU_LINK_ERR_BAD_COUNT;
  return 0;
}

/* INFO checks, done once the CRC has been found good: the INFO byte, then
 * a NAK's count against its reason (one word for OUT_OF_ORDER, else none). */
static int check_answer_info(uint32_t kind, uint32_t info, uint32_t count) {
  if (kind == SGPU_LINK_KIND_ACK) return (info & ~SGPU_LINK_ACK_DUPLICATE) ? SGPU_LINK_ERR_BAD_INFO : 0;
  if (kind == SGPU_LINK_KIND_NAK) {
    if (!sgpu_link_nak_name(info)) return SGPU_LINK_ERR_BAD_INFO;
    return (count == 1) != (info == SGPU_LINK_NAK_OUT_OF_ORDER) ? SGPU_LINK_ERR_BAD_COUNT : 0;
  }
  return info ? SGPU_LINK_ERR_BAD_INFO : 0;
}

int sgpu_link_encode_answer(const sgpu_link_frame *f, uint8_t *out, size_t out_size) {
  if (!f || !out) return SGPU_LINK_ERR_INVALID_ARG;
  int r = check_answer_header(f->kind, f->count);
  if (r == SGPU_LINK_ERR_BAD_KIND) return SGPU_LINK_ERR_BAD_CMD;
  if (r || (r = check_answer_info(f->kind, f->info, f->count))) return r;
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
  if (sgpu_link_crc32(SGPU_LINK_CRC_INIT, d->buf + 1, d->need - 1) != 0)
    return reject(d, SGPU_LINK_ERR_BAD_CRC);
  int r = check_answer_info(d->buf[2], d->buf[3], (uint32_t)(d->buf[4] | d->buf[5] << 8));
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
