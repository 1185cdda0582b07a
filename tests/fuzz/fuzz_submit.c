/* fuzz_submit.c — libFuzzer target: argument checking of
 * sgpu_submit_command() and sgpu_validate_submit_command() on the `sim`
 * device (the Verilator model of the RTL).
 *
 * The input picks one call and derives every field of its args struct
 * (contexts from a pool of live, windowed, foreign and forged handles;
 * addresses near the harness's buffers or raw 64-bit values; sizes,
 * offsets, flags, fences, private data) and, from the bytes left, the
 * command buffer written to the buffers of segments 0, 1 and 2.
 *
 * Besides crashes and sanitizer reports, the harness checks the contract:
 * a call that succeeds had a buffer range inside its segment (segment 0:
 * inside the host allocation), aligned offsets in order, and a validated
 * command range inside GPU memory.  Submissions that pass are dropped with
 * sgpu_reset_from_timeout() so the chip never runs long; those of a
 * windowed context may run for one simulated millisecond first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sgpu.h"

#define BUF_BYTES 4096u
#define MAX_READ 16384u /* bytes of GPU memory one call may read */

/* The device is opened once per process (the chip model is slow to build). */
static struct harness {
  sgpu_device *dev, *other;
  sgpu_info info;
  sgpu_context *pool[8];
  sgpu_context *windowed[2];
  uint64_t fake_storage[16]; /* a forged handle: memory that is no context */
  uint64_t buf[SGPU_SEGMENT_COUNT]; /* one 4 KiB buffer per segment */
  uint64_t scratch;                 /* the windowed contexts' window */
  uint8_t priv[64];
  uint8_t shadow[SGPU_SEGMENT_COUNT][BUF_BYTES]; /* what each buffer holds */
  int verbose; /* FUZZ_VERBOSE=1: print each call's result */
} H;

static void die(const char *what, int rc) {
  fprintf(stderr, "fuzz_submit init: %s: %d %s (%s)\n", what, rc, sgpu_strerror(rc),
          H.dev ? sgpu_last_error(H.dev) : "");
  exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  int rc;
  H.verbose = getenv("FUZZ_VERBOSE") != NULL;
  /* A short watchdog: a hung packet faults quickly instead of stalling. */
  if ((rc = sgpu_open("sim:video=tiny,watchdog=20000", &H.dev))) die("sgpu_open", rc);
  if ((rc = sgpu_open("sim:video=tiny", &H.other))) die("sgpu_open (second device)", rc);
  if ((rc = sgpu_query_info(H.dev, &H.info))) die("sgpu_query_info", rc);
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++)
  {
    if ((rc = sgpu_alloc(H.dev, s, BUF_BYTES, 4096, &H.buf[s]))) die("sgpu_alloc", rc);
    if ((rc = sgpu_write(H.dev, H.buf[s], H.shadow[s], BUF_BYTES))) die("sgpu_write", rc);
  }
  if ((rc = sgpu_alloc(H.dev, SGPU_SEGMENT_LOCAL, 2 * BUF_BYTES, 4096, &H.scratch))) die("sgpu_alloc", rc);
  sgpu_context *c0, *c1, *w0, *w1, *foreign;
  if ((rc = sgpu_create_context(H.dev, 0, &c0))) die("context", rc);
  if ((rc = sgpu_create_context(H.dev, H.info.node_count > 1 ? 1 : 0, &c1))) die("context", rc);
  if ((rc = sgpu_create_context_windowed(H.dev, 0, (uint32_t)H.scratch, 2 * BUF_BYTES, &w0)))
    die("windowed context", rc);
  if ((rc = sgpu_create_context_windowed(H.dev, H.info.node_count > 1 ? 1 : 0,
                                         (uint32_t)H.scratch + BUF_BYTES, BUF_BYTES, &w1)))
    die("windowed context", rc);
  if ((rc = sgpu_create_context(H.other, 0, &foreign))) die("foreign context", rc);
  memset(H.fake_storage, 0x5A, sizeof H.fake_storage);
  sgpu_context *fake = (sgpu_context *)(void *)H.fake_storage;
  sgpu_context *pool[8] = {NULL, c0, c1, w0, fake, foreign, w1, c0};
  memcpy(H.pool, pool, sizeof pool);
  H.windowed[0] = w0;
  H.windowed[1] = w1;
  return 0;
}

/* An address near one of the harness's buffers, or anything at all. */
static uint64_t pick_address(fz *f, uint32_t seg_hint) {
  uint8_t m = fz_u8(f);
  int16_t delta = (int16_t)fz_u16(f);
  switch (m % 8) {
  case 0: return fz_u64(f);                              /* raw */
  case 1: return H.info.segment[seg_hint % 3].base + (uint64_t)(int64_t)delta;
  case 2: return UINT64_MAX - (uint16_t)delta;           /* wrap-around territory */
  case 3: return H.scratch + (uint64_t)(int64_t)delta;
  default: return H.buf[seg_hint % 3] + (uint64_t)(int64_t)(delta & ~3);
  }
}

static uint32_t pick_size(fz *f) {
  uint8_t m = fz_u8(f);
  switch (m % 4) {
  case 0: return fz_u32(f);
  case 1: return fz_u16(f);
  default: return fz_u16(f) % (BUF_BYTES + 8);
  }
}

static int is_windowed(const sgpu_context *c) { return c == H.windowed[0] || c == H.windowed[1]; }

/* [a, a+size) inside [base, base+len), without wrap-around. */
static int inside(uint64_t a, uint64_t size, uint64_t base, uint64_t len) {
  return a >= base && a - base <= len && size <= len - (a - base);
}

static void drain_events(void) {
  sgpu_event ev;
  for (int i = 0; i < 4096 && sgpu_next_event(H.dev, &ev, 0) == 0; i++) {
  }
}

static void fuzz_submit(fz *f, uint8_t op) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = H.pool[fz_u8(f) % 8];
  uint8_t s = fz_u8(f);
  a.dma_buffer_segment_id = s < 240 ? s % 3u : s;
  a.dma_buffer_physical_address = pick_address(f, a.dma_buffer_segment_id);
  a.dma_buffer_size = pick_size(f);
  a.dma_buffer_submission_start_offset = pick_size(f);
  a.dma_buffer_submission_end_offset = pick_size(f);
  uint8_t pm = fz_u8(f);
  if (pm & 1) {
    a.dma_buffer_private_data = H.priv;
    a.dma_buffer_private_data_size = fz_u8(f) % (sizeof H.priv + 1);
  } else {
    a.dma_buffer_private_data_size = (pm & 2) ? fz_u32(f) : 0;
  }
  a.dma_buffer_private_data_submission_start_offset = (pm & 4) ? fz_u32(f) : fz_u8(f) % 72u;
  a.dma_buffer_private_data_submission_end_offset = (pm & 8) ? fz_u32(f) : fz_u8(f) % 72u;
  uint8_t nm = fz_u8(f);
  a.node_ordinal = nm < 250 ? nm % 2u : fz_u32(f);
  uint8_t fm = fz_u8(f);
  if (fm < 200) {
    sgpu_fence_info fi;
    memset(&fi, 0, sizeof fi);
    if (a.node_ordinal < H.info.node_count) sgpu_get_fence(H.dev, a.node_ordinal, &fi);
    a.submission_fence_id = (uint32_t)fi.submitted + 1u + fm % 4u;
  } else {
    a.submission_fence_id = fz_u32(f);
  }
  uint8_t xm = fz_u8(f);
  a.flags.value = (xm & 1) ? fz_u32(f) : fz_u16(f) & 0x1FFu;
  a.vidpn_source_id = (xm & 2) ? fz_u32(f) : fz_u8(f) % 3u;
  a.flip_interval = (xm & 4) ? fz_u32(f) : fz_u8(f) % 7u;
  a.engine_ordinal = (xm & 8) ? fz_u32(f) : 0;
  a.dma_buffer_virtual_address = (xm & 16) ? fz_u64(f) : 0;

  /* Same for the range a segment-1/2 submission reads. */
  uint32_t *so = &a.dma_buffer_submission_start_offset, *eo = &a.dma_buffer_submission_end_offset;
  if (*eo > *so && *eo - *so > MAX_READ) *eo = *so + (*eo - *so) % MAX_READ;

  int rc = sgpu_submit_command(H.dev, &a);
  if (H.verbose)
    fprintf(stderr, "submit seg %u 0x%llx+%u [%u,%u): %d %s: %s\n", a.dma_buffer_segment_id,
            (unsigned long long)a.dma_buffer_physical_address, a.dma_buffer_size, *so, *eo, rc,
            sgpu_strerror(rc), sgpu_last_error(H.dev));
  FZ_CHECK(rc <= 0, "submit returned %d", rc);
  FZ_CHECK(strcmp(sgpu_strerror(rc), "") != 0, "no text for %d", rc);
  /* A buffer outside its segment must be caught by the field rules, not by
   * the transport when the library reads it. */
  FZ_CHECK(rc != SGPU_ERROR_INVALID_ADDRESS, "submit of 0x%llx+%u (segment %u) got past the range rule: %s",
           (unsigned long long)a.dma_buffer_physical_address, a.dma_buffer_size,
           a.dma_buffer_segment_id, sgpu_last_error(H.dev));
  if (rc != 0) return;

  /* It was accepted: the contract must have held. */
  uint32_t seg = a.dma_buffer_segment_id;
  FZ_CHECK(seg < SGPU_SEGMENT_COUNT, "segment %u accepted", seg);
  uint64_t pa = a.dma_buffer_physical_address;
  if (seg == SGPU_SEGMENT_SYSTEM)
    FZ_CHECK(inside(pa, a.dma_buffer_size, H.buf[0], BUF_BYTES),
             "segment-0 buffer 0x%llx+%u accepted outside the host allocation 0x%llx+%u",
             (unsigned long long)pa, a.dma_buffer_size, (unsigned long long)H.buf[0], BUF_BYTES);
  else
    FZ_CHECK(inside(pa, a.dma_buffer_size, H.info.segment[seg].base, H.info.segment[seg].size),
             "buffer 0x%llx+%u accepted outside segment %u", (unsigned long long)pa,
             a.dma_buffer_size, seg);
  FZ_CHECK(((pa | a.dma_buffer_submission_start_offset | a.dma_buffer_submission_end_offset) & 3) == 0 &&
               a.dma_buffer_submission_start_offset <= a.dma_buffer_submission_end_offset &&
               a.dma_buffer_submission_end_offset <= a.dma_buffer_size,
           "offsets %u..%u of %u accepted", a.dma_buffer_submission_start_offset,
           a.dma_buffer_submission_end_offset, a.dma_buffer_size);
  FZ_CHECK((a.flags.value & SGPU_SUBMIT_RESERVED_MASK) == 0, "reserved flags 0x%x accepted",
           a.flags.value);
  FZ_CHECK(a.context == NULL || a.context == H.pool[1] || a.context == H.pool[2] ||
               is_windowed(a.context),
           "a foreign or forged context was accepted");

  /* Let a windowed context's work run briefly (it can only touch the
   * harness's scratch window), then drop whatever is still pending. */
  if ((op & 2) && is_windowed(a.context))
    sgpu_wait_fence(H.dev, a.node_ordinal, a.submission_fence_id, 1);
  int dropped = sgpu_reset_from_timeout(H.dev);
  FZ_CHECK(dropped >= 0, "reset_from_timeout failed: %d %s", dropped, sgpu_last_error(H.dev));
  drain_events();
}

static void fuzz_validate(fz *f) {
  sgpu_validate_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.commands = pick_address(f, SGPU_SEGMENT_LOCAL);
  a.command_length = pick_size(f);
  uint8_t m = fz_u8(f);
  a.flags.value = (m & 1) ? fz_u32(f) : (m >> 1) & 1u;
  uint8_t cm = fz_u8(f);
  a.context_count = cm < 240 ? 1u + cm % 4u : cm % (SGPU_MAX_BROADCAST_CONTEXT + 2u);
  for (uint32_t i = 0; i < a.context_count && i < SGPU_MAX_BROADCAST_CONTEXT; i++)
    a.context[i] = H.pool[fz_u8(f) % 8];
  uint8_t pm = fz_u8(f);
  if (pm & 1) a.private_driver_data = H.priv;
  a.private_driver_data_size = (pm & 2) ? fz_u32(f) : fz_u8(f) % (sizeof H.priv + 1);
  a.umd_private_data_size = (pm & 4) ? fz_u32(f) : fz_u8(f) % (sizeof H.priv + 1);
  a.hw_queue_progress_fence_id = (pm & 8) ? fz_u64(f) : (pm & 16) ? fz_u8(f) : 0;

  /* The library reads the whole command buffer through the model's host
   * port (about 1 s per 100 KiB): keep a valid range short. */
  if (inside(a.commands, a.command_length, 0, H.info.mem_size) && a.command_length > MAX_READ)
    a.command_length %= MAX_READ;

  int rc = sgpu_validate_submit_command(H.dev, &a);
  if (H.verbose)
    fprintf(stderr, "validate 0x%llx+%u: %d %s: %s\n", (unsigned long long)a.commands, a.command_length,
            rc, sgpu_strerror(rc), sgpu_last_error(H.dev));
  FZ_CHECK(rc <= 0, "validate returned %d", rc);
  FZ_CHECK(rc != SGPU_ERROR_INVALID_ADDRESS, "commands 0x%llx+%u got past the range rule: %s",
           (unsigned long long)a.commands, a.command_length, sgpu_last_error(H.dev));
  if (rc != 0) return;
  FZ_CHECK(((a.commands | a.command_length) & 3) == 0, "misaligned commands accepted");
  FZ_CHECK(inside(a.commands, a.command_length, 0, H.info.mem_size),
           "commands 0x%llx+%u accepted outside GPU memory (%u bytes)",
           (unsigned long long)a.commands, a.command_length, H.info.mem_size);
  FZ_CHECK(a.context_count >= 1 && a.context_count <= SGPU_MAX_BROADCAST_CONTEXT,
           "context_count %u accepted", a.context_count);
  for (uint32_t i = 0; i < a.context_count; i++)
    FZ_CHECK(a.context[i] == H.pool[1] || a.context[i] == H.pool[2] || is_windowed(a.context[i]),
             "context[%u] (not a live context of the device) accepted", i);
  FZ_CHECK(a.umd_private_data_size <= a.private_driver_data_size, "umd size accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  uint8_t op = fz_u8(&f);
  /* The fields take a fixed prefix; the command words are at the end. */
  size_t fields = 96;
  fz words = {data, 0};
  if (size > fields) {
    words.p = data + fields;
    words.n = size - fields;
    f.n = fields - 1;
  }
  uint8_t cmd[BUF_BYTES];
  size_t n = words.n > BUF_BYTES ? BUF_BYTES : words.n & ~(size_t)3;
  memset(cmd, 0, sizeof cmd);
  memcpy(cmd, words.p, n);
  /* The same words in the buffer of every segment: all 4 KiB, so that an
   * input never depends on the one before.  Writes to GPU memory go through
   * the model's host port, so only the words that differ from what the
   * buffer holds are written (nothing else writes these buffers). */
  for (uint32_t s = 0; s < SGPU_SEGMENT_COUNT; s++) {
    size_t lo = 0, hi = BUF_BYTES;
    while (lo < hi && cmd[lo] == H.shadow[s][lo]) lo++;
    while (hi > lo && cmd[hi - 1] == H.shadow[s][hi - 1]) hi--;
    if (lo == hi) continue;
    lo &= ~(size_t)3;
    hi = (hi + 3) & ~(size_t)3;
    int rc = sgpu_write(H.dev, H.buf[s] + lo, cmd + lo, (uint32_t)(hi - lo));
    FZ_CHECK(rc == 0, "sgpu_write: %d", rc);
    memcpy(H.shadow[s] + lo, cmd + lo, hi - lo);
  }
  if (op & 1) fuzz_validate(&f);
  else fuzz_submit(&f, op);
  return 0;
}
