/* cmdbuf.c — command-buffer builder.  Whole packets or nothing; errors are
 * sticky; nothing is ever written past the capacity. */
#include <string.h>

#include "sgpu.h"

int sgpu_cmdbuf_init(sgpu_cmdbuf *cb, void *memory, uint32_t capacity) {
  if (!cb) return SGPU_ERROR_INVALID_PARAM;
  cb->words = memory;
  cb->capacity = capacity / 4;
  cb->used = 0;
  cb->error = 0;
  if ((!memory && capacity >= 4) || ((uintptr_t)memory & 3)) {
    cb->capacity = 0;
    cb->error = SGPU_ERROR_INVALID_PARAM;
    return cb->error;
  }
  return 0;
}

uint32_t sgpu_cmdbuf_size(const sgpu_cmdbuf *cb) { return cb ? cb->used * 4 : 0; }
int sgpu_cmdbuf_error(const sgpu_cmdbuf *cb) { return cb ? cb->error : SGPU_ERROR_INVALID_PARAM; }

void sgpu_cmdbuf_reset(sgpu_cmdbuf *cb) {
  if (!cb) return;
  cb->used = 0;
  if (cb->error != SGPU_ERROR_INVALID_PARAM || cb->capacity) cb->error = 0;
}

/* Reserve header + count payload words; NULL (and sticky error) if impossible. */
static uint32_t *emit(sgpu_cmdbuf *cb, uint32_t op, uint32_t count, uint32_t flags) {
  if (cb->error) return NULL;
  if (count > SGPU_PKT_COUNT_MASK) {
    cb->error = SGPU_ERROR_CMDBUF_PARAM;
    return NULL;
  }
  if ((uint64_t)cb->used + 1 + count > cb->capacity) {
    cb->error = SGPU_ERROR_CMDBUF_OVERFLOW;
    return NULL;
  }
  uint32_t *p = cb->words + cb->used;
  p[0] = SGPU_PKT_HEADER(op, count, flags);
  cb->used += 1 + count;
  return p + 1;
}

static int bad(sgpu_cmdbuf *cb) {
  if (!cb->error) cb->error = SGPU_ERROR_CMDBUF_PARAM;
  return cb->error;
}

#define CB_CHECK(cb) \
  do {               \
    if (!(cb)) return SGPU_ERROR_INVALID_PARAM; \
    if ((cb)->error) return (cb)->error;        \
  } while (0)

int sgpu_cmd_nop(sgpu_cmdbuf *cb, uint32_t payload_words) {
  CB_CHECK(cb);
  uint32_t *p = emit(cb, SGPU_OP_NOP, payload_words, 0);
  if (!p) return cb->error;
  memset(p, 0, payload_words * 4u);
  return 0;
}

int sgpu_cmd_indirect(sgpu_cmdbuf *cb, uint32_t address, uint32_t length, uint32_t fence_id,
                      int skip) {
  CB_CHECK(cb);
  uint32_t *p = emit(cb, SGPU_OP_INDIRECT, 3, skip ? SGPU_INDIRECT_FLAG_SKIP : 0);
  if (!p) return cb->error;
  p[0] = address;
  p[1] = length;
  p[2] = fence_id;
  return 0;
}

int sgpu_cmd_fence(sgpu_cmdbuf *cb, uint32_t address, uint32_t value, int irq) {
  CB_CHECK(cb);
  uint32_t *p = emit(cb, SGPU_OP_FENCE, 2, irq ? SGPU_FENCE_FLAG_IRQ : 0);
  if (!p) return cb->error;
  p[0] = address;
  p[1] = value;
  return 0;
}

int sgpu_cmd_write_data(sgpu_cmdbuf *cb, uint32_t address, const uint32_t *data, uint32_t count) {
  CB_CHECK(cb);
  if (count == 0 || !data || count >= SGPU_PKT_COUNT_MASK) return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_WRITE_DATA, count + 1, 0);
  if (!p) return cb->error;
  p[0] = address;
  memcpy(p + 1, data, count * 4u);
  return 0;
}

int sgpu_cmd_wait_mem(sgpu_cmdbuf *cb, uint32_t address, uint32_t mask, uint32_t reference,
                      uint32_t func) {
  CB_CHECK(cb);
  if (func > SGPU_WAIT_FUNC_GEQ_WRAP) return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_WAIT_MEM, 3, func);
  if (!p) return cb->error;
  p[0] = address;
  p[1] = mask;
  p[2] = reference;
  return 0;
}

int sgpu_cmd_wait_vsync(sgpu_cmdbuf *cb, uint32_t source) {
  CB_CHECK(cb);
  if (source >= SGPU_MAX_SOURCES) return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_WAIT_VSYNC, 1, 0);
  if (!p) return cb->error;
  p[0] = source;
  return 0;
}

int sgpu_cmd_wait_scanline(sgpu_cmdbuf *cb, uint32_t source, uint32_t first, uint32_t last) {
  CB_CHECK(cb);
  if (source >= SGPU_MAX_SOURCES || first > 0xFFFFu || last > 0xFFFFu) return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_WAIT_SCANLINE, 2, 0);
  if (!p) return cb->error;
  p[0] = source;
  p[1] = first | last << 16;
  return 0;
}

int sgpu_cmd_fill(sgpu_cmdbuf *cb, uint32_t dst, uint32_t pitch, uint32_t width_bytes,
                  uint32_t height, uint32_t pattern32) {
  CB_CHECK(cb);
  if (pitch > SGPU_MAX_BLIT_DIM || width_bytes > SGPU_MAX_BLIT_DIM || height > SGPU_MAX_BLIT_DIM)
    return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_FILL, 5, 0);
  if (!p) return cb->error;
  p[0] = dst;
  p[1] = pitch;
  p[2] = width_bytes;
  p[3] = height;
  p[4] = pattern32;
  return 0;
}

int sgpu_cmd_copy(sgpu_cmdbuf *cb, uint32_t dst, uint32_t dst_pitch, uint32_t src,
                  uint32_t src_pitch, uint32_t width_bytes, uint32_t height) {
  CB_CHECK(cb);
  if (dst_pitch > SGPU_MAX_BLIT_DIM || src_pitch > SGPU_MAX_BLIT_DIM ||
      width_bytes > SGPU_MAX_BLIT_DIM || height > SGPU_MAX_BLIT_DIM)
    return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_COPY, 6, 0);
  if (!p) return cb->error;
  p[0] = dst;
  p[1] = dst_pitch;
  p[2] = src;
  p[3] = src_pitch;
  p[4] = width_bytes;
  p[5] = height;
  return 0;
}

int sgpu_cmd_flip(sgpu_cmdbuf *cb, uint32_t source, uint32_t address, uint32_t interval,
                  int no_wait) {
  CB_CHECK(cb);
  if (source >= SGPU_MAX_SOURCES || interval > SGPU_HW_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING)
    return bad(cb);
  uint32_t *p = emit(cb, SGPU_OP_FLIP, 3, no_wait ? SGPU_FLIP_FLAG_NO_WAIT : 0);
  if (!p) return cb->error;
  p[0] = source;
  p[1] = address;
  p[2] = interval;
  return 0;
}

int sgpu_cmd_context(sgpu_cmdbuf *cb, uint32_t context_id, uint32_t window_base,
                     uint32_t window_size) {
  CB_CHECK(cb);
  uint32_t *p = emit(cb, SGPU_OP_CONTEXT, 3, 0);
  if (!p) return cb->error;
  p[0] = context_id;
  p[1] = window_base;
  p[2] = window_size;
  return 0;
}

int sgpu_cmd_timestamp(sgpu_cmdbuf *cb, uint32_t address) {
  CB_CHECK(cb);
  uint32_t *p = emit(cb, SGPU_OP_TIMESTAMP, 1, 0);
  if (!p) return cb->error;
  p[0] = address;
  return 0;
}
