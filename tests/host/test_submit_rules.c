/* test_submit_rules.c — every sgpu_submit_command rule has its own error code
 * and nothing reaches the hardware on error (ring memory, RING_WPTR and the
 * statistics unchanged); sgpu_strerror covers every code; device URIs;
 * command-buffer overflow. */
#include "host_test.h"
#include "../../host/src/packet_check.h"

#define H(op, n, fl) SGPU_PKT_HEADER(SGPU_OP_##op, n, fl)

typedef struct rule_case {
  const char *name;
  int expect;
  uint32_t words[16]; /* buffer content (0-terminated list not used: n below) */
  uint32_t n;         /* words in the buffer / submitted */
  void (*mutate)(fixture *f, sgpu_submit_command_args *a, void *scratch);
  const char *msg_has; /* substring expected in sgpu_last_error */
} rule_case;

static uint32_t g_tgt; /* not mutable library state: just the test's target address */

/* Mutators */
static void m_null_ctx(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->context = NULL; }
static void m_bad_ctx(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f;
  memset(s, 0x5a, 64);
  a->context = (sgpu_context *)s;
}
static void m_seg3(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->dma_buffer_segment_id = 3; }
static void m_seg2(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->dma_buffer_segment_id = 2; }
static void m_end_big(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->dma_buffer_size = 16;
  a->dma_buffer_submission_end_offset = 20;
}
static void m_start2(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->dma_buffer_submission_start_offset = 2; }
static void m_order(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->dma_buffer_submission_start_offset = 8;
  a->dma_buffer_submission_end_offset = 4;
}
static void m_priv_range(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f;
  a->dma_buffer_private_data = s;
  a->dma_buffer_private_data_size = 8;
  a->dma_buffer_private_data_submission_end_offset = 12;
}
static void m_priv_null(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->dma_buffer_private_data = NULL;
  a->dma_buffer_private_data_size = 8;
  a->dma_buffer_private_data_submission_end_offset = 8;
}
static void m_priv_start(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f;
  a->dma_buffer_private_data = s;
  a->dma_buffer_private_data_size = 16;
  a->dma_buffer_private_data_submission_start_offset = 4;
  a->dma_buffer_private_data_submission_end_offset = 8;
}
static void m_src_noflip(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->vidpn_source_id = 1; }
static void m_src_range(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->flags.flip = 1;
  a->vidpn_source_id = 7;
}
static void m_int_range(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->flags.flip = 1;
  a->flip_interval = 6;
}
static void m_int_noflip(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flip_interval = 1; }
static void m_int_nowait(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->flags.flip_with_no_wait = 1;
  a->flip_interval = 2;
}
static void m_reserved(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flags.value |= 0x200; }
static void m_reserved_hi(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flags.reserved = 0x400000; }
static void m_conflict(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->flags.flip = 1;
  a->flags.flip_with_no_wait = 1;
}
static void m_engine(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->engine_ordinal = 1; }
static void m_va(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->dma_buffer_virtual_address = 0x1000; }
static void m_node_range(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->node_ordinal = 9; }
static void m_node_mismatch(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->node_ordinal = 1; }
static void m_cs_len(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flags.context_switch = 1; }
static void m_fence_same(fixture *f, sgpu_submit_command_args *a, void *s) { (void)s; a->submission_fence_id = f->fence[0]; }
static void m_fence_back(fixture *f, sgpu_submit_command_args *a, void *s) { (void)s; a->submission_fence_id = f->fence[0] + 0x80000000u; }
static void m_flip(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flags.flip = 1; a->flip_interval = 1; }
static void m_flip_nowait(fixture *f, sgpu_submit_command_args *a, void *s) { (void)f; (void)s; a->flags.flip_with_no_wait = 1; }
static void m_host_big(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)s;
  uint64_t h;
  assert_int_equal(sgpu_alloc(f->dev, SGPU_SEGMENT_SYSTEM, 1u << 20, 0, &h), 0);
  a->dma_buffer_segment_id = 0;
  a->dma_buffer_physical_address = h;
  a->dma_buffer_size = 1u << 20;
  a->dma_buffer_submission_end_offset = 1u << 20;
}
static void m_host_unknown(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f; (void)s;
  a->dma_buffer_segment_id = 0;
  a->dma_buffer_physical_address = SGPU_HOST_ADDRESS_BASE + 0x10000000ull;
}
static void m_windowed(fixture *f, sgpu_submit_command_args *a, void *s) {
  sgpu_context **c = (sgpu_context **)s;
  assert_int_equal(sgpu_create_context_windowed(f->dev, 0, (uint32_t)f->buf, 4096, c), 0);
  a->context = *c;
}
static void m_other_dev(fixture *f, sgpu_submit_command_args *a, void *s) {
  (void)f;
  /* s holds a context of a second device (set up by the test). */
  a->context = *(sgpu_context **)s;
}

/* Buffers: target placeholder T is patched to the test's target address. */
#define T 0xEEEE0000u
#define OK_WORDS {H(WRITE_DATA, 2, 0), T, 0x12345678}
#define FLIP0 {H(FLIP, 3, 0), 0, T, 1}

static const rule_case cases[] = {
    {"null context", SGPU_ERROR_SUBMIT_NULL_CONTEXT, OK_WORDS, 3, m_null_ctx, "Paging"},
    {"dead context", SGPU_ERROR_INVALID_CONTEXT, OK_WORDS, 3, m_bad_ctx, "context"},
    {"other device's context", SGPU_ERROR_SUBMIT_CONTEXT_DEVICE, OK_WORDS, 3, m_other_dev, "another device"},
    {"segment 3", SGPU_ERROR_SUBMIT_SEGMENT_ID, OK_WORDS, 3, m_seg3, "segment_id 3"},
    {"segment 2 with a segment-1 address", SGPU_ERROR_SUBMIT_BUFFER_ADDRESS, OK_WORDS, 3, m_seg2, "segment 2"},
    {"unknown host buffer", SGPU_ERROR_SUBMIT_BUFFER_ADDRESS, OK_WORDS, 3, m_host_unknown, "host allocation"},
    {"end offset beyond size", SGPU_ERROR_SUBMIT_OFFSET_RANGE, OK_WORDS, 3, m_end_big, "end offset 20"},
    {"misaligned start", SGPU_ERROR_SUBMIT_OFFSET_ALIGN, OK_WORDS, 3, m_start2, "aligned"},
    {"start after end", SGPU_ERROR_SUBMIT_OFFSET_ORDER, OK_WORDS, 3, m_order, "start offset 8"},
    {"private slice past its buffer", SGPU_ERROR_SUBMIT_PRIVATE_DATA_RANGE, OK_WORDS, 3, m_priv_range, "[0, 12)"},
    {"private NULL with a size", SGPU_ERROR_SUBMIT_PRIVATE_DATA_RANGE, OK_WORDS, 3, m_priv_null, "private"},
    {"private start without Paging", SGPU_ERROR_SUBMIT_PRIVATE_DATA_START, OK_WORDS, 3, m_priv_start, "start offset 4"},
    {"source without flip", SGPU_ERROR_SUBMIT_SOURCE_WITHOUT_FLIP, OK_WORDS, 3, m_src_noflip, "vidpn_source_id 1"},
    {"source out of range", SGPU_ERROR_SUBMIT_SOURCE_RANGE, FLIP0, 4, m_src_range, "vidpn_source_id 7"},
    {"interval 6", SGPU_ERROR_SUBMIT_INTERVAL_RANGE, FLIP0, 4, m_int_range, "flip_interval 6"},
    {"interval without flip", SGPU_ERROR_SUBMIT_INTERVAL_WITHOUT_FLIP, OK_WORDS, 3, m_int_noflip, "without Flip"},
    {"interval with FlipWithNoWait", SGPU_ERROR_SUBMIT_INTERVAL_WITHOUT_FLIP, FLIP0, 4, m_int_nowait, "without Flip"},
    {"reserved flag 0x200", SGPU_ERROR_SUBMIT_RESERVED_FLAGS, OK_WORDS, 3, m_reserved, "reserved"},
    {"reserved flag bit 31", SGPU_ERROR_SUBMIT_RESERVED_FLAGS, OK_WORDS, 3, m_reserved_hi, "reserved"},
    {"Flip and FlipWithNoWait", SGPU_ERROR_SUBMIT_FLAG_CONFLICT, FLIP0, 4, m_conflict, "exclusive"},
    {"engine ordinal", SGPU_ERROR_SUBMIT_ENGINE_ORDINAL, OK_WORDS, 3, m_engine, "engine_ordinal is 1"},
    {"virtual address", SGPU_ERROR_SUBMIT_VIRTUAL_ADDRESS, OK_WORDS, 3, m_va, "0x1000"},
    {"node out of range", SGPU_ERROR_SUBMIT_NODE_RANGE, OK_WORDS, 3, m_node_range, "node_ordinal 9"},
    {"node not the context's", SGPU_ERROR_SUBMIT_NODE_MISMATCH, OK_WORDS, 3, m_node_mismatch, "node 0"},
    {"ContextSwitch with work", SGPU_ERROR_SUBMIT_CONTEXT_SWITCH_LENGTH, OK_WORDS, 3, m_cs_len, "12-byte"},
    {"fence repeated", SGPU_ERROR_SUBMIT_FENCE_ORDER, OK_WORDS, 3, m_fence_same, "does not advance"},
    {"fence half a wrap back", SGPU_ERROR_SUBMIT_FENCE_ORDER, OK_WORDS, 3, m_fence_back, "does not advance"},
    {"Flip without FLIP packet", SGPU_ERROR_SUBMIT_FLIP_MISSING, OK_WORDS, 3, m_flip, "no FLIP"},
    {"Flip with a FLIP of another source", SGPU_ERROR_SUBMIT_FLIP_MISMATCH,
     {H(FLIP, 3, 0), 1, T, 1}, 4, m_flip, "offset 0x0"},
    {"Flip with a FLIP of another interval", SGPU_ERROR_SUBMIT_FLIP_MISMATCH,
     {H(FLIP, 3, 0), 0, T, 2}, 4, m_flip, "interval 2"},
    {"Flip with a no-wait FLIP", SGPU_ERROR_SUBMIT_FLIP_MISMATCH,
     {H(FLIP, 3, SGPU_FLIP_FLAG_NO_WAIT), 0, T, 1}, 4, m_flip, "no-wait"},
    {"FlipWithNoWait with a waiting FLIP", SGPU_ERROR_SUBMIT_FLIP_MISMATCH, FLIP0, 4, m_flip_nowait, "waiting"},
    {"FLIP in a plain submission", SGPU_ERROR_SUBMIT_UNEXPECTED_FLIP,
     {H(NOP, 1, 0), 0, H(FLIP, 3, 0), 0, T, 1}, 6, NULL, "offset 0x8"},
    {"segment-0 range too large to stage", SGPU_ERROR_SUBMIT_TOO_LARGE, OK_WORDS, 3, m_host_big, "staging"},
    /* packet walk: what the hardware faults on */
    {"illegal opcode", SGPU_ERROR_PACKET_ILLEGAL_OPCODE, {H(NOP, 0, 0), SGPU_PKT_HEADER(0x3F, 0, 0)}, 2, NULL,
     "offset 0x4"},
    {"packet type 2", SGPU_ERROR_PACKET_BAD_HEADER, {0x80000000u}, 1, NULL, "type 2"},
    {"zero word", SGPU_ERROR_PACKET_BAD_HEADER, {0}, 1, NULL, "type 0"},
    {"reserved packet flag", SGPU_ERROR_PACKET_BAD_HEADER, {H(WRITE_DATA, 2, 1), T, 1}, 3, NULL, "flag"},
    {"FILL with 4 payload words", SGPU_ERROR_PACKET_BAD_COUNT, {H(FILL, 4, 0), T, 16, 16, 1}, 5, NULL, "count 4"},
    {"WRITE_DATA with 1 payload word", SGPU_ERROR_PACKET_BAD_COUNT, {H(WRITE_DATA, 1, 0), T}, 2, NULL, "at least 2"},
    {"packet past the range", SGPU_ERROR_PACKET_OVERRUN, {H(WRITE_DATA, 4, 0), T, 1, 2}, 4, NULL, "past the end"},
    {"misaligned WRITE_DATA", SGPU_ERROR_PACKET_MISALIGNED, {H(WRITE_DATA, 2, 0), T + 2, 1}, 3, NULL, "aligned"},
    {"misaligned INDIRECT length", SGPU_ERROR_PACKET_MISALIGNED, {H(INDIRECT, 3, 0), T, 6, 0}, 4, NULL, "aligned"},
    {"FENCE beyond memory", SGPU_ERROR_PACKET_OUT_OF_RANGE, {H(FENCE, 2, 0), 0x7FFFFFF0u, 1}, 3, NULL, "GPU memory"},
    {"FILL beyond memory", SGPU_ERROR_PACKET_OUT_OF_RANGE, {H(FILL, 5, 0), 0x7FFFF0u, 64, 64, 64, 0}, 6, NULL,
     "GPU memory"},
    {"WRITE_DATA outside the window", SGPU_ERROR_PACKET_CONTEXT_WINDOW, {H(WRITE_DATA, 2, 0), T, 1}, 3, m_windowed,
     "window"},
    {"WAIT_VSYNC of source 9", SGPU_ERROR_PACKET_BAD_PARAM, {H(WAIT_VSYNC, 1, 0), 9}, 2, NULL, "source 9"},
    {"WAIT_MEM function 7", SGPU_ERROR_PACKET_BAD_PARAM, {H(WAIT_MEM, 3, 7), T, 1, 1}, 4, NULL, "func 7"},
    {"FILL pitch < width", SGPU_ERROR_PACKET_BAD_PARAM, {H(FILL, 5, 0), T, 8, 16, 2, 0}, 6, NULL, "pitch"},
    {"CONTEXT in a buffer", SGPU_ERROR_PACKET_PRIVILEGED, {H(CONTEXT, 3, 0), 0, 0, 0x1000}, 4, NULL, "ring"},
};

static void snapshot(fixture *f, uint8_t *ring, uint32_t *wptr0, uint32_t *wptr1, sgpu_stats *st) {
  sgpu_ring_info ri;
  assert_int_equal(sgpu_get_ring_info(f->dev, 0, &ri), 0);
  assert_int_equal(sgpu_read(f->dev, ri.base, ring, ri.size), 0);
  assert_int_equal(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), wptr0), 0);
  assert_int_equal(sgpu_reg_read(f->dev, SGPU_NODE_REG(1, SGPU_NREG_RING_WPTR), wptr1), 0);
  assert_int_equal(sgpu_get_stats(f->dev, st), 0);
}

static void test_every_rule(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("reads the ring to show a refused submission left it unchanged: the ring holds every program's submissions on a shared device");
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  sgpu_device *other;
  sgpu_context *other_ctx;
  if (!test_second_uri()) TEST_NEEDS_MODEL("a second device (SGPU_TEST_DEVICE2 not set)");
  assert_int_equal(sgpu_open(test_second_uri(), &other), 0);
  assert_int_equal(sgpu_create_context(other, 0, &other_ctx), 0);
  g_tgt = (uint32_t)f->tgt;
  /* One good submission first, so fences and ring have history. */
  {
    uint32_t w[] = {H(WRITE_DATA, 2, 0), g_tgt, 0xCAFE};
    put(f, f->buf, w, 3);
    sgpu_submit_command_args a = fixture_args(f, 12);
    CHECK(sgpu_submit_command(f->dev, &a));
    f->fence[0]++;
    CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(100)));
  }
  uint8_t *ring0 = malloc(65536), *ring1 = malloc(65536);
  size_t ncases = sizeof cases / sizeof cases[0];
  int seen[128] = {0};
  for (size_t i = 0; i < ncases; i++) {
    const rule_case *c = &cases[i];
    uint32_t w[16];
    for (uint32_t k = 0; k < c->n; k++) w[k] = c->words[k] == T ? g_tgt : c->words[k];
    put(f, f->buf, w, c->n);
    sgpu_submit_command_args a = fixture_args(f, c->n * 4);
    uint8_t scratch[256] __attribute__((aligned(16)));
    sgpu_context *wctx = NULL;
    void *s = scratch;
    if (c->mutate == m_windowed) s = &wctx;
    if (c->mutate == m_other_dev) s = &other_ctx;
    if (c->mutate) c->mutate(f, &a, s);
    uint32_t wp0, wp1, wq0, wq1;
    sgpu_stats st0, st1;
    snapshot(f, ring0, &wp0, &wp1, &st0);
    int r = sgpu_submit_command(f->dev, &a);
    const char *msg = sgpu_last_error(f->dev);
    printf("case %-40s -> %d %s | %s\n", c->name, r, sgpu_strerror(r), msg);
    if (r != c->expect)
      fail_msg("case '%s': expected %d (%s), got %d (%s): %s", c->name, c->expect,
               sgpu_strerror(c->expect), r, sgpu_strerror(r), msg);
    if (c->msg_has && !strstr(msg, c->msg_has))
      fail_msg("case '%s': message '%s' lacks '%s'", c->name, msg, c->msg_has);
    snapshot(f, ring1, &wq0, &wq1, &st1);
    assert_int_equal(wp0, wq0);
    assert_int_equal(wp1, wq1);
    assert_memory_equal(ring0, ring1, 4096);
    assert_int_equal(st0.submissions, st1.submissions);
    assert_int_equal(st0.staged_bytes, st1.staged_bytes);
    if (wctx) sgpu_destroy_context(wctx);
    if (-c->expect < 128) seen[-c->expect] = 1;
  }
  /* Every submit rule code was exercised. */
  for (int code = -SGPU_ERROR_SUBMIT_NULL_CONTEXT; code <= -SGPU_ERROR_SUBMIT_CONTEXT_DEVICE; code++)
    if (!seen[code]) fail_msg("submit rule %d (%s) has no case", -code, sgpu_strerror(-code));
  for (int code = -SGPU_ERROR_PACKET_ILLEGAL_OPCODE; code <= -SGPU_ERROR_PACKET_PRIVILEGED; code++)
    if (!seen[code] && code != -SGPU_ERROR_PACKET_NESTING) /* test_nesting */
      fail_msg("packet rule %d (%s) has no case", -code, sgpu_strerror(-code));
  /* After all that, a good submission still runs. */
  {
    uint32_t w[] = {H(WRITE_DATA, 2, 0), g_tgt, 0xBEEF};
    put(f, f->buf, w, 3);
    sgpu_submit_command_args a = fixture_args(f, 12);
    CHECK(sgpu_submit_command(f->dev, &a));
    f->fence[0]++;
    CHECK(sgpu_wait_fence(f->dev, 0, f->fence[0], wait_ms(100)));
    uint32_t v = 0;
    CHECK(sgpu_read(f->dev, f->tgt, &v, 4));
    assert_int_equal(v, 0xBEEF);
  }
  free(ring0);
  free(ring1);
  sgpu_destroy_context(other_ctx);
  sgpu_close(other);
  fixture_close(f);
}

static void test_nesting(void **state) {
  (void)state;
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint32_t ib2 = (uint32_t)f->buf + 1024, ib3 = (uint32_t)f->buf + 2048;
  uint32_t w2[] = {H(NOP, 0, 0), H(INDIRECT, 3, 0), ib3, 8, 0};
  uint32_t w3[] = {H(NOP, 0, 0), H(NOP, 0, 0)};
  put(f, ib2, w2, 5);
  put(f, ib3, w3, 2);
  /* ring -> buf (depth 1) -> ib2 (depth 2) -> ib3 would be depth 3 */
  uint32_t w1b[] = {H(INDIRECT, 3, 0), ib2, 20, 0};
  put(f, f->buf, w1b, 4);
  sgpu_submit_command_args a = fixture_args(f, 16);
  int r = sgpu_submit_command(f->dev, &a);
  printf("nesting: %d %s\n", r, sgpu_last_error(f->dev));
  assert_int_equal(r, SGPU_ERROR_PACKET_NESTING);
  char want[64];
  snprintf(want, sizeof want, "address 0x%x", ib2 + 4);
  assert_non_null(strstr(sgpu_last_error(f->dev), want));
  /* Depth 2 alone is fine: buf -> ib3. */
  uint32_t w1c[] = {H(INDIRECT, 3, 0), ib3, 8, 0};
  put(f, f->buf, w1c, 4);
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 0, a.submission_fence_id, wait_ms(100)));
  fixture_close(f);
}

/* A build that nests fewer INDIRECT levels (CAPS.IB_DEPTH, the UP5K's 1):
 * the checker the library validates with refuses an INDIRECT inside a
 * buffer, as NESTING with a message naming CAPS, and the full depth still
 * allows it; a CAPS without the field (0) means the interface's depth.  The
 * sim device reports the full depth. */
static void test_nesting_caps(void **state) {
  (void)state;
  const uint32_t ind[] = {H(INDIRECT, 3, 0), 0x1000u, 16, 0};
  char why[256] = "";
  sgpu_pkt_env env = {1u << 20, 1, 1, 0, 0, 0, 1, NULL};
  assert_int_equal(sgpu__check_payload(&env, ind, why, sizeof why), SGPU_FAULT_NESTING);
  printf("ib_depth 1: %s\n", why);
  assert_non_null(strstr(why, "at most 1"));
  assert_non_null(strstr(why, "CAPS.IB_DEPTH"));
  env.level = 0; /* the ring's INDIRECT is level 1: allowed */
  assert_int_equal(sgpu__check_payload(&env, ind, why, sizeof why), SGPU_FAULT_NONE);
  env.level = 1;
  env.ib_depth = 2;
  assert_int_equal(sgpu__check_payload(&env, ind, why, sizeof why), SGPU_FAULT_NONE);
  env.ib_depth = 0;
  assert_int_equal(sgpu__ib_depth(env.ib_depth), SGPU_MAX_IB_DEPTH);
  assert_int_equal(sgpu__check_payload(&env, ind, why, sizeof why), SGPU_FAULT_NONE);
  env.level = SGPU_MAX_IB_DEPTH;
  assert_int_equal(sgpu__check_payload(&env, ind, why, sizeof why), SGPU_FAULT_NESTING);
  assert_int_equal(sgpu__error_of_fault(SGPU_FAULT_NESTING), SGPU_ERROR_PACKET_NESTING);

  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  sgpu_info info;
  CHECK(sgpu_query_info(f->dev, &info));
  assert_int_equal(SGPU_FIELD_GET(CAPS_IB_DEPTH, info.caps), SGPU_MAX_IB_DEPTH);
  assert_int_equal(info.ib_depth, SGPU_MAX_IB_DEPTH);
  fixture_close(f);
}

/* All codes of sgpu.h, listed by hand: each has its own non-generic text. */
static void test_strerror(void **state) {
  (void)state;
  /* The codes and messages are generated from the interface spec: every code
   * the library's range holds has its own message, and the ones the tests
   * rely on are among them. */
  const char *unknown = sgpu_strerror(-9999);
  assert_non_null(unknown);
  int codes[200];
  size_t n = 0;
  for (int c = 0; c > -200; c--)
    if (strcmp(sgpu_strerror(c), unknown) != 0) codes[n++] = c;
  for (size_t i = 0; i < n; i++) {
    const char *s = sgpu_strerror(codes[i]);
    assert_true(strlen(s) > 5);
    for (size_t j = 0; j < i; j++)
      if (strcmp(s, sgpu_strerror(codes[j])) == 0)
        fail_msg("codes %d and %d share the message '%s'", codes[i], codes[j], s);
  }
  static const int needed[] = {SGPU_SUCCESS, SGPU_ERROR_INVALID_PARAM, SGPU_ERROR_IO,
                               SGPU_ERROR_SUBMIT_NULL_CONTEXT, SGPU_ERROR_SUBMIT_CONTEXT_DEVICE,
                               SGPU_ERROR_PACKET_ILLEGAL_OPCODE, SGPU_ERROR_PACKET_PRIVILEGED,
                               SGPU_ERROR_VALIDATE_FENCE_PASSED};
  for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
    if (strcmp(sgpu_strerror(needed[i]), unknown) == 0) fail_msg("code %d has no message", needed[i]);
  /* Every fault validation predicts has a name and an error of its own. */
  for (uint32_t f = 1; f < SGPU_FAULT_COUNT; f++) assert_string_not_equal(sgpu_fault_name(f), "UNKNOWN");
  assert_string_equal(sgpu_fault_name(SGPU_FAULT_COUNT), "UNKNOWN");
  assert_true(n >= 68);
  printf("FIGURE error_codes %zu\n", n);
}

#define USB_ABSENT 1 /* marker: the code of a usb board that is not attached */

static void test_uris(void **state) {
  (void)state;
  struct {
    const char *uri;
    int expect;
    const char *msg_has;
  } u[] = {
      {"tcp:127.0.0.1:1", SGPU_ERROR_NO_DEVICE, "cannot connect"},
      {"tcp:[::1]:1", SGPU_ERROR_NO_DEVICE, "cannot connect"},
      {"tcp:localhost", SGPU_ERROR_INVALID_URI, "tcp:HOST:PORT"},
      {"tcp:host:0", SGPU_ERROR_INVALID_URI, "port"},
      {"tcp:host:99999", SGPU_ERROR_INVALID_URI, "port"},
      {"tcp::7000", SGPU_ERROR_INVALID_URI, "tcp:HOST:PORT"},
      {"serial:/dev/sgpu-no-such-tty", SGPU_ERROR_NO_DEVICE, "cannot open"},
      {"serial:/dev/null@115200", SGPU_ERROR_IO, "not a terminal"},
      {"serial:/dev/ttyUSB1@fast", SGPU_ERROR_INVALID_URI, "baud"},
      {"serial:ttyUSB1", SGPU_ERROR_INVALID_URI, "serial:/dev/NAME"},
      /* no board has these ids: NO_DEVICE (NOT_SUPPORTED without USB support) */
      {"usb:1d50:00ff", USB_ABSENT, "usb:1d50:00ff"},
      {"usb:1d50:00ff:FT123", USB_ABSENT, "usb:1d50:00ff"},
      {"usb:403:6010", SGPU_ERROR_INVALID_URI, "4 hex digits"},
      {"usb:0403:60zz", SGPU_ERROR_INVALID_URI, "PID"},
      {"sim:bogus=1", SGPU_ERROR_INVALID_URI, "unknown sim option 'bogus'"},
      {"sim:latency=0", SGPU_ERROR_INVALID_URI, "latency"},
      {"sim:stall=101", SGPU_ERROR_INVALID_URI, "stall"},
      {"sim:video=huge", SGPU_ERROR_INVALID_URI, "video"},
      {"sim:trace=out.txt", SGPU_ERROR_INVALID_URI, ".vcd or .fst"},
      {"sim:latency", SGPU_ERROR_INVALID_URI, "KEY=VALUE"},
      {"sim:", SGPU_ERROR_INVALID_URI, "no options"},
      {"sim:seed=1,", SGPU_ERROR_INVALID_URI, "empty"},
      /* options after a link URI: the open options only */
      {"tcp:127.0.0.1:1,video=big", SGPU_ERROR_INVALID_URI, "video='big' is not tiny or vga"},
      {"tcp:127.0.0.1:1,", SGPU_ERROR_INVALID_URI, "empty option"},
      {"tcp:127.0.0.1:1,latency=3", SGPU_ERROR_INVALID_URI, "unknown option 'latency'"},
      {"serial:/dev/ttyUSB1@3000000,watchdog=x", SGPU_ERROR_INVALID_URI, "watchdog='x'"},
      {"usb:1d50:00ff,video", SGPU_ERROR_INVALID_URI, "'video' is not KEY=VALUE"},
      {"tcp:127.0.0.1:1,video=tiny,watchdog=5000", SGPU_ERROR_NO_DEVICE, "cannot connect"},
      {"tcp:127.0.0.1:1,window=2", SGPU_ERROR_INVALID_URI, "window='2' is not auto, on or off"},
      {"tcp:127.0.0.1:1,window=off", SGPU_ERROR_NO_DEVICE, "cannot connect"},
      {"tcp:127.0.0.1:1,giveup=50", SGPU_ERROR_INVALID_URI, "giveup='50' is not 100..600000 milliseconds"},
      {"serial:/dev/ttyUSB1,giveup=1s", SGPU_ERROR_INVALID_URI, "giveup='1s' is not 100..600000"},
      {"tcp:127.0.0.1:1,giveup=600001", SGPU_ERROR_INVALID_URI, "giveup='600001'"},
      {"tcp:127.0.0.1:1,giveup=20000,window=on", SGPU_ERROR_NO_DEVICE, "cannot connect"},
      {"pcie:0", SGPU_ERROR_INVALID_URI, "unknown device URI"},
  };
  const int usb_absent = sgpu_list_boards(NULL, 0, NULL, 0) == SGPU_ERROR_NOT_SUPPORTED
                             ? SGPU_ERROR_NOT_SUPPORTED
                             : SGPU_ERROR_NO_DEVICE;
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
    sgpu_device *d = (sgpu_device *)0x1;
    char msg[256];
    int r = sgpu_open_detail(u[i].uri, &d, msg, sizeof msg);
    printf("uri %-28s -> %d %s\n", u[i].uri, r, msg);
    if (u[i].expect == USB_ABSENT) u[i].expect = usb_absent;
    if (r != u[i].expect) fail_msg("%s: expected %d got %d (%s)", u[i].uri, u[i].expect, r, msg);
    assert_null(d);
    if (!strstr(msg, u[i].msg_has)) fail_msg("%s: message '%s' lacks '%s'", u[i].uri, msg, u[i].msg_has);
  }
  /* Good sim URIs open. */
  const char *good[] = {NULL, "sim", "sim:latency=3,stall=20,seed=7,video=tiny,watchdog=100000"};
  for (size_t i = 0; i < 3; i++) {
    sgpu_device *d = NULL;
    char msg[256];
    int r = sgpu_open_detail(good[i], &d, msg, sizeof msg);
    if (test_link_uri() && r == SGPU_ERROR_NOT_SUPPORTED) { /* the library without the model */
      assert_non_null(strstr(msg, "built without the simulation model"));
      continue;
    }
    assert_int_equal(r, 0);
    sgpu_info info;
    assert_int_equal(sgpu_query_info(d, &info), 0);
    assert_string_equal(info.transport, "sim");
    assert_true(info.node_count >= 1);
    assert_int_equal(info.segment[1].base + info.segment[1].size <= info.mem_size, 1);
    sgpu_close(d);
  }
  assert_int_equal(sgpu_open("sim", NULL), SGPU_ERROR_INVALID_PARAM);
}

static void test_cmdbuf(void **state) {
  (void)state;
  uint32_t mem[8 + 4];
  for (int i = 0; i < 12; i++) mem[i] = 0xA5A5A5A5u;
  sgpu_cmdbuf cb;
  assert_int_equal(sgpu_cmdbuf_init(&cb, mem, 8 * 4), 0);
  assert_int_equal(sgpu_cmd_fence(&cb, 0x100, 7, 1), 0);                       /* 3 words */
  assert_int_equal(sgpu_cmdbuf_size(&cb), 12);
  assert_int_equal(sgpu_cmd_fill(&cb, 0, 16, 16, 1, 0), SGPU_ERROR_CMDBUF_OVERFLOW); /* needs 6 */
  assert_int_equal(sgpu_cmdbuf_size(&cb), 12);
  assert_int_equal(sgpu_cmd_nop(&cb, 0), SGPU_ERROR_CMDBUF_OVERFLOW); /* sticky */
  assert_int_equal(sgpu_cmdbuf_error(&cb), SGPU_ERROR_CMDBUF_OVERFLOW);
  for (int i = 3; i < 12; i++) assert_int_equal(mem[i], 0xA5A5A5A5u); /* nothing past the fence */
  assert_int_equal(mem[0], SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, SGPU_FENCE_FLAG_IRQ));
  sgpu_cmdbuf_reset(&cb);
  assert_int_equal(sgpu_cmdbuf_error(&cb), 0);
  assert_int_equal(sgpu_cmd_nop(&cb, 7), 0); /* exactly full */
  assert_int_equal(sgpu_cmdbuf_size(&cb), 32);
  assert_int_equal(sgpu_cmd_nop(&cb, 0), SGPU_ERROR_CMDBUF_OVERFLOW);
  for (int i = 8; i < 12; i++) assert_int_equal(mem[i], 0xA5A5A5A5u);
  /* Field range errors are sticky too. */
  sgpu_cmdbuf_reset(&cb);
  assert_int_equal(sgpu_cmd_flip(&cb, 0, 0, 6, 0), SGPU_ERROR_CMDBUF_PARAM);
  assert_int_equal(sgpu_cmd_nop(&cb, 0), SGPU_ERROR_CMDBUF_PARAM);
  sgpu_cmdbuf_reset(&cb);
  assert_int_equal(sgpu_cmd_wait_mem(&cb, 0, 1, 1, 9), SGPU_ERROR_CMDBUF_PARAM);
  sgpu_cmdbuf_reset(&cb);
  assert_int_equal(sgpu_cmd_fill(&cb, 0, 70000, 16, 1, 0), SGPU_ERROR_CMDBUF_PARAM);
  /* Encodings. */
  uint32_t big[64];
  assert_int_equal(sgpu_cmdbuf_init(&cb, big, sizeof big), 0);
  uint32_t d[2] = {1, 2};
  assert_int_equal(sgpu_cmd_write_data(&cb, 0x40, d, 2), 0);
  assert_int_equal(sgpu_cmd_copy(&cb, 1, 2, 3, 4, 5, 6), 0);
  assert_int_equal(sgpu_cmd_flip(&cb, 1, 0x1000, 2, 1), 0);
  assert_int_equal(sgpu_cmd_wait_scanline(&cb, 0, 10, 20), 0);
  assert_int_equal(sgpu_cmd_timestamp(&cb, 0x80), 0);
  assert_int_equal(sgpu_cmd_indirect(&cb, 0x100, 64, 9, 1), 0);
  assert_int_equal(sgpu_cmd_wait_vsync(&cb, 1), 0);
  assert_int_equal(sgpu_cmd_context(&cb, 3, 0, 0x1000), 0);
  const uint32_t expect[] = {
      SGPU_PKT_HEADER(SGPU_OP_WRITE_DATA, 3, 0), 0x40, 1, 2,
      SGPU_PKT_HEADER(SGPU_OP_COPY, 6, 0), 1, 2, 3, 4, 5, 6,
      SGPU_PKT_HEADER(SGPU_OP_FLIP, 3, SGPU_FLIP_FLAG_NO_WAIT), 1, 0x1000, 2,
      SGPU_PKT_HEADER(SGPU_OP_WAIT_SCANLINE, 2, 0), 0, 10 | 20u << 16,
      SGPU_PKT_HEADER(SGPU_OP_TIMESTAMP, 1, 0), 0x80,
      SGPU_PKT_HEADER(SGPU_OP_INDIRECT, 3, SGPU_INDIRECT_FLAG_SKIP), 0x100, 64, 9,
      SGPU_PKT_HEADER(SGPU_OP_WAIT_VSYNC, 1, 0), 1,
      SGPU_PKT_HEADER(SGPU_OP_CONTEXT, 3, 0), 3, 0, 0x1000,
  };
  assert_int_equal(sgpu_cmdbuf_size(&cb), sizeof expect);
  assert_memory_equal(big, expect, sizeof expect);
  assert_int_equal(sgpu_cmdbuf_init(&cb, (uint8_t *)big + 1, 16), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_cmd_nop(&cb, 0), SGPU_ERROR_INVALID_PARAM);
}

static void test_flags_layout(void **state) {
  (void)state;
  sgpu_submit_flags f;
  const struct { int bit; } dummy = {0};
  (void)dummy;
#define BIT(field, v) f.value = 0; f.field = 1; assert_int_equal(f.value, v);
  BIT(paging, 0x1) BIT(present, 0x2) BIT(redirected_present, 0x4) BIT(null_rendering, 0x8)
  BIT(flip, 0x10) BIT(flip_with_no_wait, 0x20) BIT(context_switch, 0x40) BIT(resubmission, 0x80)
  BIT(virtual_machine_data, 0x100)
  f.value = 0;
  f.reserved = 0x7FFFFF;
  assert_int_equal(f.value, 0xFFFFFE00u);
  sgpu_validate_submit_command_flags v;
  v.value = 0;
  v.hardware_queue_submission = 1;
  assert_int_equal(v.value, 1);
  assert_int_equal(SGPU_MAX_BROADCAST_CONTEXT, 64);
  sgpu_validate_submit_command_args va;
  assert_int_equal(sizeof va.context / sizeof va.context[0], 64);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flags_layout), cmocka_unit_test(test_strerror),
      cmocka_unit_test(test_cmdbuf),       cmocka_unit_test(test_uris),
      cmocka_unit_test(test_every_rule),   cmocka_unit_test(test_nesting),
      cmocka_unit_test(test_nesting_caps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
