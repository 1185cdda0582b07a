/* test_reserved.c — the library protects what it owns (issue 22):
 *   - sgpu_write over a node's ring, its rptr/fence words, its staging area
 *     or the boot identity block is refused with SGPU_ERROR_RESERVED_ADDRESS,
 *     nothing written, and sgpu_last_error names the area; a range that only
 *     touches it by one word is refused too, the words around it are not;
 *   - sgpu_write_raw (the tools' path) writes them; reading stays allowed;
 *   - sgpu_get_areas cuts segments 1 and 2 into free, allocated and reserved
 *     areas, in order, without gaps, reserved ones named;
 *   - sgpu_reg_write to a read-only register (ID, CYCLE_LO, RING_RPTR@1...)
 *     returns SGPU_ERROR_READ_ONLY without sending the write (the chip would
 *     flag CFG_ERROR: it stays 0); writable registers still work. */
#include "host_test.h"

static const sgpu_area *area_at(const sgpu_area *a, int n, uint64_t addr) {
  for (int i = 0; i < n; i++)
    if (addr >= a[i].base && addr - a[i].base < a[i].size) return &a[i];
  return NULL;
}

static void expect_refused(fixture *f, uint64_t addr, uint32_t size, const char *name) {
  uint8_t junk[64];
  memset(junk, 0xA5, sizeof junk);
  assert_true(size <= sizeof junk);
  int r = sgpu_write(f->dev, addr, junk, size);
  if (r != SGPU_ERROR_RESERVED_ADDRESS)
    fail_msg("sgpu_write(0x%llx, %u) over %s: %d (%s)", (unsigned long long)addr, size, name, r,
             sgpu_last_error(f->dev));
  if (!strstr(sgpu_last_error(f->dev), name))
    fail_msg("last error does not name '%s': %s", name, sgpu_last_error(f->dev));
}

static void test_write_refuses_reserved_areas(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("reads the library's fence words and writes its ring (sgpu_write_raw): every program's on a shared device");
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim"), 0);
  assert_string_equal(sgpu_strerror(SGPU_ERROR_RESERVED_ADDRESS),
                      "address range overlaps an area the library reserved (ring, fence words, staging, identity)");
  sgpu_ring_info ri;
  CHECK(sgpu_get_ring_info(f->dev, 0, &ri));
  /* the ring: its first word, its last, a range that ends in its first word */
  expect_refused(f, ri.base, 4, "node 0's ring");
  expect_refused(f, ri.base + ri.size - 4, 4, "node 0's ring");
  if (ri.base >= 8) expect_refused(f, ri.base - 4, 8, "node 0's ring");
  /* the rptr writeback and the fence word */
  expect_refused(f, ri.fence_address, 4, "node 0's rptr and fence words");
  expect_refused(f, ri.rptr_address, 8, "node 0's rptr and fence words");
  sgpu_ring_info r1;
  CHECK(sgpu_get_ring_info(f->dev, 1, &r1));
  expect_refused(f, r1.fence_address, 4, "node 1's rptr and fence words");
  expect_refused(f, r1.base + 64, 32, "node 1's ring");

  /* nothing was written: the fence word still reads what the library put */
  uint32_t before = 0, now = 0;
  CHECK(sgpu_read(f->dev, ri.fence_address, &before, 4));
  assert_int_equal(sgpu_write(f->dev, ri.fence_address, &(uint32_t){0xDEAD}, 4), SGPU_ERROR_RESERVED_ADDRESS);
  CHECK(sgpu_read(f->dev, ri.fence_address, &now, 4));
  assert_int_equal(now, before);

  /* the user's own buffers are fine, and submissions still run */
  uint32_t w[3] = {SGPU_PKT_HEADER(SGPU_OP_FENCE, 2, 0), (uint32_t)f->tgt, 0x600d};
  put(f, f->buf, w, 3);
  sgpu_submit_command_args a = fixture_args(f, sizeof w);
  CHECK(sgpu_submit_command(f->dev, &a));
  CHECK(sgpu_wait_fence(f->dev, 0, a.submission_fence_id, wait_ms(100)));
  CHECK(sgpu_read(f->dev, f->tgt, &now, 4));
  assert_int_equal(now, 0x600d);

  /* the raw path writes it (and a read shows it) */
  uint32_t v = 0x5A5A5A5A, back = 0;
  CHECK(sgpu_read(f->dev, ri.base + ri.size - 4, &before, 4));
  CHECK(sgpu_write_raw(f->dev, ri.base + ri.size - 4, &v, 4));
  CHECK(sgpu_read(f->dev, ri.base + ri.size - 4, &back, 4));
  assert_int_equal(back, v);
  CHECK(sgpu_write_raw(f->dev, ri.base + ri.size - 4, &before, 4));
  fixture_close(f);
}

static void test_areas(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("writes the free memory between areas, which may be another program's next allocation on a shared device");
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim"), 0);
  sgpu_info in;
  CHECK(sgpu_query_info(f->dev, &in));
  int n = sgpu_get_areas(f->dev, NULL, 0);
  assert_true(n > 0);
  sgpu_area *a = calloc((size_t)n, sizeof *a);
  assert_non_null(a);
  assert_int_equal(sgpu_get_areas(f->dev, a, (size_t)n), n);
  /* segments 1 then 2, each covered from base to end without gaps */
  int i = 0;
  for (uint32_t s = SGPU_SEGMENT_LOCAL; s < SGPU_SEGMENT_COUNT; s++) {
    uint64_t cur = in.segment[s].base, free_bytes = 0;
    for (; i < n && a[i].segment == s; i++) {
      assert_int_equal(a[i].base, cur);
      assert_true(a[i].size > 0);
      cur += a[i].size;
      if (a[i].kind == SGPU_AREA_FREE) free_bytes += a[i].size;
      if (a[i].kind == SGPU_AREA_RESERVED) assert_true(a[i].name[0] != '\0');
      else assert_string_equal(a[i].name, "");
    }
    assert_int_equal(cur, in.segment[s].base + in.segment[s].size);
    assert_int_equal(free_bytes, in.segment[s].free);
  }
  assert_int_equal(i, n);
  /* the rings, fence words and staging areas are reserved; the fixture's
   * buffers are the user's; sgpu_write refuses exactly the reserved ones */
  for (uint32_t node = 0; node < in.node_count; node++) {
    sgpu_ring_info ri;
    CHECK(sgpu_get_ring_info(f->dev, node, &ri));
    const sgpu_area *r = area_at(a, n, ri.base), *fw = area_at(a, n, ri.fence_address);
    assert_non_null(r);
    assert_non_null(fw);
    assert_int_equal(r->kind, SGPU_AREA_RESERVED);
    assert_int_equal(fw->kind, SGPU_AREA_RESERVED);
    char want[48];
    snprintf(want, sizeof want, "node %u's ring", node);
    assert_string_equal(r->name, want);
  }
  int staging = 0;
  for (int k = 0; k < n; k++) staging += a[k].kind == SGPU_AREA_RESERVED && strstr(a[k].name, "staging") != NULL;
  /* one per ring: a node's high-priority ring (CAPS.PRIORITY) and second
   * normal ring (CAPS.TIME_SLICE) have their own */
  assert_int_equal(staging, (int)(in.node_count * (in.has_time_slice ? 3u : in.has_priority ? 2u : 1u)));
  assert_int_equal(area_at(a, n, f->buf)->kind, SGPU_AREA_ALLOCATED);
  for (int k = 0; k < n; k++) {
    uint32_t word = 0;
    int r = sgpu_write(f->dev, a[k].base, &word, 4);
    if (a[k].kind == SGPU_AREA_RESERVED) assert_int_equal(r, SGPU_ERROR_RESERVED_ADDRESS);
    else if (a[k].kind == SGPU_AREA_ALLOCATED) assert_int_equal(r, 0);
    if (a[k].kind != SGPU_AREA_RESERVED) { /* the word just before a reserved area is writable */
      if (k + 1 < n && a[k + 1].kind == SGPU_AREA_RESERVED && a[k + 1].segment == a[k].segment)
        CHECK(sgpu_write(f->dev, a[k + 1].base - 4, &word, 4));
    }
  }
  /* an allocation lands in what was free */
  uint64_t x;
  CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 8192, 4096, &x));
  const sgpu_area *fx_area = area_at(a, n, x);
  assert_non_null(fx_area);
  assert_int_equal(fx_area->kind, SGPU_AREA_FREE);
  free(a);
  fixture_close(f);
}

/* A valid identity block at SGPU_IDENTITY_ADDR makes it reserved. */
static void test_identity_block_reserved(void **state) {
  (void)state;
  TEST_NEEDS_LOCAL("writes the boot identity block (sgpu_write_raw), the device's, not one program's");
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim"), 0);
  uint32_t id[SGPU_IDENTITY_BYTES / 4];
  memset(id, 0, sizeof id);
  id[SGPU_IDW_MAGIC] = SGPU_IDENTITY_MAGIC;
  id[SGPU_IDW_LAYOUT] = SGPU_IDENTITY_LAYOUT_VERSION << 16 | SGPU_IDENTITY_BYTES;
  id[SGPU_IDW_FW_VERSION] = 0x00010002u;
  id[SGPU_IDW_NAME] = 0x74736574u; /* "test" */
  for (uint32_t i = 0; i < SGPU_IDW_CHECK; i++) id[SGPU_IDW_CHECK] ^= id[i];
  id[SGPU_IDW_DONE] = SGPU_IDENTITY_DONE;
  /* no block yet: the range is not reserved (unless an allocation holds it) */
  sgpu_identity got;
  int r = sgpu_write(f->dev, SGPU_IDENTITY_ADDR, id, sizeof id);
  if (r) fail_msg("writing the identity block before it exists: %s", sgpu_last_error(f->dev));
  CHECK(sgpu_read_identity(f->dev, &got));
  expect_refused(f, SGPU_IDENTITY_ADDR + 4 * SGPU_IDW_DONE, 4, "the boot identity block");
  int n = sgpu_get_areas(f->dev, NULL, 0);
  sgpu_area *a = calloc((size_t)n, sizeof *a);
  assert_non_null(a);
  sgpu_get_areas(f->dev, a, (size_t)n);
  const sgpu_area *ia = area_at(a, n, SGPU_IDENTITY_ADDR);
  assert_non_null(ia);
  assert_int_equal(ia->kind, SGPU_AREA_RESERVED);
  assert_string_equal(ia->name, "the boot identity block");
  free(a);
  /* clear it again with the raw path (a link's chip keeps its memory) */
  uint32_t zero[SGPU_IDENTITY_BYTES / 4] = {0};
  CHECK(sgpu_write_raw(f->dev, SGPU_IDENTITY_ADDR, zero, sizeof zero));
  fixture_close(f);
}

static void test_reg_write_read_only(void **state) {
  (void)state;
  fixture fx, *f = &fx;
  assert_int_equal(fixture_open(f, "sim"), 0);
  assert_string_equal(sgpu_strerror(SGPU_ERROR_READ_ONLY), "register is read-only: the write had no effect");
  uint32_t cfg = 0;
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_CFG_ERROR, &cfg));
  assert_int_equal(cfg, 0);
  static const struct {
    uint32_t off;
    const char *name;
  } ro[] = {
      {SGPU_REG_ID, "register ID "},
      {SGPU_REG_VERSION, "register VERSION "},
      {SGPU_REG_CYCLE_LO, "register CYCLE_LO "},
      {SGPU_REG_MEM_SIZE, "register MEM_SIZE "},
      {SGPU_NODE_REG(1, SGPU_NREG_RING_RPTR), "register RING_RPTR@1 "},
      {SGPU_NODE_REG(0, SGPU_NREG_STATUS), "register STATUS@0 "},
  };
  for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) {
    int r = sgpu_reg_write(f->dev, ro[i].off, 0x12345678u);
    if (r != SGPU_ERROR_READ_ONLY) fail_msg("write to %s: %d", ro[i].name, r);
    if (!strstr(sgpu_last_error(f->dev), ro[i].name) || !strstr(sgpu_last_error(f->dev), "not sent"))
      fail_msg("last error: %s", sgpu_last_error(f->dev));
  }
  uint32_t id = 0;
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_ID, &id));
  assert_int_equal(id, SGPU_HW_MAGIC);
  /* not sent: the chip flags a write to a read-only offset in CFG_ERROR */
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_CFG_ERROR, &cfg));
  assert_int_equal(cfg, 0);
  /* a writable register still takes writes */
  uint32_t v = 0;
  CHECK(sgpu_reg_write(f->dev, SGPU_REG_SCRATCH, 0xC0FFEEu));
  CHECK(sgpu_reg_read(f->dev, SGPU_REG_SCRATCH, &v));
  assert_int_equal(v, 0xC0FFEEu);
  fixture_close(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_write_refuses_reserved_areas),
      cmocka_unit_test(test_areas),
      cmocka_unit_test(test_identity_block_reserved),
      cmocka_unit_test(test_reg_write_read_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
