/* fuzz_link.c — libFuzzer target: the host link frame codec
 * (host/src/link_frame.c).
 *
 * The input is a device->host byte stream; its first bytes choose how it is
 * cut into chunks and where the line goes quiet (gap timeouts).  Properties:
 *   - the decoder never holds more than one frame's bytes and consumes what
 *     it says;
 *   - every frame it returns re-encodes (sgpu_link_encode_answer) to bytes
 *     that decode to the same frame, with a CRC residue of 0;
 *   - results do not depend on the chunking: the stream fed at once and fed
 *     one byte at a time (gaps at the same places) give the same results;
 *   - the request encoder, given fields from the input, either refuses them
 *     or produces a frame of the advertised size whose CRC checks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/src/link_frame.h"
#include "fuzz_util.h"

#define MAX_RESULTS 8192

typedef struct run {
  int code[MAX_RESULTS];
  uint32_t digest[MAX_RESULTS]; /* of the frame, when code is FRAME */
  size_t n;
} run;

static uint32_t frame_digest(const sgpu_link_frame *f) {
  uint8_t b[SGPU_LINK_MAX_RSP_FRAME];
  int n = sgpu_link_encode_answer(f, b, sizeof b);
  FZ_CHECK(n > 0, "a decoded frame does not re-encode: %d", n);
  FZ_CHECK(sgpu_link_crc32(SGPU_LINK_CRC_INIT, b + 1, (size_t)n - 1) == 0, "re-encoded CRC");
  /* and decodes back to itself */
  sgpu_link_decoder d;
  sgpu_link_decoder_init(&d);
  sgpu_link_frame g;
  size_t used = 0;
  FZ_CHECK(sgpu_link_decode(&d, b, (size_t)n, &used, &g) == SGPU_LINK_FRAME && used == (size_t)n,
           "re-encoded frame does not decode");
  FZ_CHECK(memcmp(&g, f, sizeof g) == 0, "re-decoded frame differs");
  return (sgpu_link_crc32(0, b, (size_t)n) & 0xFFFF0000u) | (uint32_t)n;
}

static void record(run *r, int code, const sgpu_link_frame *f) {
  FZ_CHECK(code == SGPU_LINK_FRAME || (code <= SGPU_LINK_ERR_BAD_CRC && code >= SGPU_LINK_ERR_TRUNCATED),
           "unexpected result %d", code);
  if (r->n < MAX_RESULTS) {
    r->code[r->n] = code;
    r->digest[r->n] = code == SGPU_LINK_FRAME ? frame_digest(f) : 0;
    r->n++;
  }
}

/* Drain everything the decoder can produce without new bytes. */
static void drain(sgpu_link_decoder *d, run *r) {
  for (;;) {
    sgpu_link_frame f;
    size_t used = 1;
    int c = sgpu_link_decode(d, NULL, 0, &used, &f);
    FZ_CHECK(used == 0, "consumed from nothing");
    if (c == SGPU_LINK_NEED_MORE) return;
    record(r, c, &f);
  }
}

/* Feed stream[0..len) in chunks of `chunk` bytes (0: the sizes in `cuts`),
 * with a gap wherever gap_at[i] is set (before byte i).  */
static void feed(const uint8_t *s, size_t len, const uint8_t *gap_at, size_t chunk,
                 const uint8_t *cuts, size_t ncuts, run *r) {
  sgpu_link_decoder d;
  sgpu_link_decoder_init(&d);
  size_t off = 0, k = 0;
  while (off < len) {
    if (gap_at[off]) {
      drain(&d, r);
      int g = sgpu_link_decoder_gap(&d);
      FZ_CHECK(g == 0 || g == SGPU_LINK_ERR_TRUNCATED, "gap %d", g);
      if (g) record(r, g, NULL);
      drain(&d, r);
    }
    size_t c = chunk ? chunk : (ncuts ? 1u + cuts[k++ % ncuts] : len);
    /* a chunk never crosses a gap */
    size_t end = off + c > len ? len : off + c;
    for (size_t i = off + 1; i < end; i++)
      if (gap_at[i]) {
        end = i;
        break;
      }
    while (off < end) {
      sgpu_link_frame f;
      size_t used = 0;
      int code = sgpu_link_decode(&d, s + off, end - off, &used, &f);
      FZ_CHECK(used <= end - off, "consumed %zu of %zu", used, end - off);
      FZ_CHECK(sgpu_link_decoder_pending(&d) <= SGPU_LINK_MAX_RSP_FRAME, "holds %zu bytes",
               sgpu_link_decoder_pending(&d));
      off += used;
      if (code == SGPU_LINK_NEED_MORE) {
        FZ_CHECK(off == end, "NEED_MORE with bytes left");
        break;
      }
      record(r, code, &f);
    }
  }
  /* end of input: drain and drop stubs until nothing is held */
  for (int guard = 0;; guard++) {
    FZ_CHECK(guard <= 1000, "the decoder never empties");
    drain(&d, r);
    int g = sgpu_link_decoder_gap(&d);
    if (!g) break;
    record(r, g, NULL);
  }
  FZ_CHECK(sgpu_link_decoder_pending(&d) == 0, "bytes left after the final gaps");
}

static void fuzz_requests(fz *f) {
  for (int i = 0; i < 4 && f->n; i++) {
    uint32_t w[SGPU_LINK_MAX_WORDS + 1];
    for (unsigned k = 0; k <= SGPU_LINK_MAX_WORDS; k++) w[k] = 0x01000193u * k;
    sgpu_link_request rq;
    rq.seq = fz_u8(f);
    rq.cmd = fz_u8(f);
    rq.flags = fz_u8(f);
    rq.count = fz_u16(f);
    rq.address = fz_u32(f);
    rq.data = (rq.flags & 0x40) ? NULL : w;
    uint8_t out[SGPU_LINK_MAX_REQ_FRAME];
    size_t room = fz_u8(f) % 2 ? sizeof out : fz_u16(f) % (sizeof out + 1);
    int n = sgpu_link_encode_request(&rq, out, room);
    if (n < 0) {
      FZ_CHECK(n <= SGPU_LINK_ERR_INVALID_ARG && n >= SGPU_LINK_ERR_BAD_LENGTH, "code %d", n);
      continue;
    }
    FZ_CHECK((size_t)n == sgpu_link_request_size(&rq) && (size_t)n <= room, "size %d", n);
    FZ_CHECK(out[0] == SGPU_LINK_SYNC && sgpu_link_crc32(SGPU_LINK_CRC_INIT, out + 1, (size_t)n - 1) == 0,
             "bad request frame");
    FZ_CHECK(!(rq.flags & SGPU_LINK_FLAGS_RESERVED_MASK), "reserved flags encoded");
    FZ_CHECK(rq.count <= SGPU_LINK_MAX_WORDS, "count %u encoded", rq.count);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  uint8_t mode = fz_u8(&f);
  if (mode == 0xFF) {
    fuzz_requests(&f);
    return 0;
  }
  /* header: gap every `gap_every` bytes (0: never), chunk sizes */
  uint8_t gap_every = fz_u8(&f);
  uint8_t cuts[8];
  for (int i = 0; i < 8; i++) cuts[i] = fz_u8(&f);
  const uint8_t *s = f.p;
  size_t len = f.n;
  static uint8_t gap_at[1 << 20];
  if (len > sizeof gap_at) len = sizeof gap_at;
  memset(gap_at, 0, len);
  if (gap_every)
    for (size_t i = gap_every; i < len; i += gap_every) gap_at[i] = 1;

  static run whole, bytes, chunks;
  whole.n = bytes.n = chunks.n = 0;
  feed(s, len, gap_at, 0, NULL, 0, &whole);
  feed(s, len, gap_at, 1, NULL, 0, &bytes);
  feed(s, len, gap_at, 0, cuts, 8, &chunks);
  FZ_CHECK(whole.n == bytes.n && whole.n == chunks.n, "result counts %zu / %zu / %zu", whole.n,
           bytes.n, chunks.n);
  for (size_t i = 0; i < whole.n && i < MAX_RESULTS; i++) {
    FZ_CHECK(whole.code[i] == bytes.code[i] && whole.code[i] == chunks.code[i],
             "result %zu: %d / %d / %d", i, whole.code[i], bytes.code[i], chunks.code[i]);
    FZ_CHECK(whole.digest[i] == bytes.digest[i] && whole.digest[i] == chunks.digest[i],
             "frame %zu differs", i);
  }
  (void)mode;
  return 0;
}
