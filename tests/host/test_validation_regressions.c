/* test_validation_regressions.c — command buffers on which library validation
 * and the chip once disagreed.  Each is given to sgpu_validate_submit_command
 * and sgpu_submit_command (both must refuse it with the packet error of the
 * fault, naming the packet's address), and its words are put on a ring of a
 * raw chip model directly: the chip must fault with the same reason at the
 * same packet address, and write nothing. */
#include "host_test.h"
#include "sgpu_sim.h"

#define H(op, n, fl) SGPU_PKT_HEADER(SGPU_OP_##op, n, fl)

/* Where the buffers sit, in both the library's device and the raw chip. */
typedef struct layout {
  uint32_t buf;  /* level-1 buffer (the submission) */
  uint32_t buf2; /* level-2 buffer, for the nesting case */
} layout;

typedef struct regression {
  const char *name;
  uint32_t words[8], n;     /* level-1 buffer; 0xB2B2B2B2 is replaced by buf2 */
  uint32_t words2[8], n2;   /* level-2 buffer */
  uint32_t fault;           /* SGPU_FAULT_* the chip reports */
  int in_level2;            /* the faulting packet is the first of buf2 (else of buf) */
} regression;

#define BUF2 0xB2B2B2B2u

static const regression cases[] = {
    /* Validation accepted an empty INDIRECT at the very end of memory; the
     * chip faults on an address at or past the end even with length 0. */
    {"indirect at the end of memory with length 0",
     {H(INDIRECT, 3, 0), 0x800000u, 0, 7}, 4, {0}, 0, SGPU_FAULT_OUT_OF_RANGE, 0},
    /* Validation said MISALIGNED; the chip checks nesting first. */
    {"misaligned indirect inside a level-2 buffer",
     {H(INDIRECT, 3, 0), BUF2, 16, 0}, 4, {H(INDIRECT, 3, 0), 0x1002u, 8, 0}, 4,
     SGPU_FAULT_NESTING, 1},
    /* Validation said MISALIGNED; the chip checks the compare function first. */
    {"wait_mem with function 7 at a misaligned address",
     {H(WAIT_MEM, 3, 7), 0x2002u, 0xFFFFFFFFu, 0}, 4, {0}, 0, SGPU_FAULT_BAD_PARAM, 0},
    /* Validation said OUT_OF_RANGE (destination); the chip checks every
     * parameter before any range. */
    {"copy past memory with a source pitch below the width",
     {H(COPY, 6, 0), 0x7FFFF0u, 64, 0x1000u, 8, 64, 4}, 7, {0}, 0, SGPU_FAULT_BAD_PARAM, 0},
};

static void patch(uint32_t *dst, const uint32_t *src, uint32_t n, uint32_t buf2) {
  for (uint32_t i = 0; i < n; i++) dst[i] = src[i] == BUF2 ? buf2 : src[i];
}

/* The library: validation and submission both refuse, nothing reaches the ring. */
static void library_side(const regression *c) {
  fixture F, *f = &F;
  assert_int_equal(fixture_open(f, "sim:video=tiny"), 0);
  uint64_t buf2;
  assert_int_equal(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &buf2), 0);
  uint32_t w[8], w2[8];
  patch(w, c->words, c->n, (uint32_t)buf2);
  patch(w2, c->words2, c->n2, (uint32_t)buf2);
  put(f, f->buf, w, c->n);
  if (c->n2) put(f, buf2, w2, c->n2);
  int expect = 0;
  switch (c->fault) {
  case SGPU_FAULT_OUT_OF_RANGE: expect = SGPU_ERROR_PACKET_OUT_OF_RANGE; break;
  case SGPU_FAULT_NESTING: expect = SGPU_ERROR_PACKET_NESTING; break;
  case SGPU_FAULT_BAD_PARAM: expect = SGPU_ERROR_PACKET_BAD_PARAM; break;
  default: fail_msg("no library code for fault %u", c->fault);
  }
  char where[64];
  snprintf(where, sizeof where, "0x%llx",
           (unsigned long long)(c->in_level2 ? buf2 : f->buf));

  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.commands = f->buf;
  v.command_length = c->n * 4;
  v.context_count = 1;
  v.context[0] = f->ctx0;
  int r = sgpu_validate_submit_command(f->dev, &v);
  printf("%s: validate -> %d (%s): %s\n", c->name, r, sgpu_strerror(r), sgpu_last_error(f->dev));
  assert_int_equal(r, expect);
  assert_non_null(strstr(sgpu_last_error(f->dev), where));

  sgpu_ring_info ri;
  assert_int_equal(sgpu_get_ring_info(f->dev, 0, &ri), 0);
  uint32_t wptr0, wptr1;
  assert_int_equal(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), &wptr0), 0);
  sgpu_submit_command_args a = fixture_args(f, c->n * 4);
  r = sgpu_submit_command(f->dev, &a);
  printf("%s: submit -> %d (%s): %s\n", c->name, r, sgpu_strerror(r), sgpu_last_error(f->dev));
  assert_int_equal(r, expect);
  assert_int_equal(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_RING_WPTR), &wptr1), 0);
  assert_int_equal(wptr0, wptr1);
  fixture_close(f);
}

static uint32_t reg_rd(sgpu_sim *s, uint32_t off) {
  uint32_t v = 0;
  assert_int_equal(sgpu_sim_reg_read(s, off, &v), 0);
  return v;
}
static void reg_wr(sgpu_sim *s, uint32_t off, uint32_t v) { assert_int_equal(sgpu_sim_reg_write(s, off, v), 0); }

/* The chip: a ring INDIRECT to the same words; the fault and nothing written. */
static void chip_side(const regression *c) {
  sgpu_sim *s = sgpu_sim_create(NULL);
  assert_non_null(s);
  const uint32_t ring = 0x10000, buf = 0x20000, buf2 = 0x21000, sentinel = 0x2000;
  uint32_t w[8], w2[8];
  patch(w, c->words, c->n, buf2);
  patch(w2, c->words2, c->n2, buf2);
  assert_int_equal(sgpu_sim_mem_write(s, buf, w, c->n * 4), 0);
  if (c->n2) assert_int_equal(sgpu_sim_mem_write(s, buf2, w2, c->n2 * 4), 0);
  uint32_t before = 0x5A5A5A5A, after = 0;
  assert_int_equal(sgpu_sim_backdoor_write(s, sentinel, &before, 4), 0);
  const uint32_t n0 = SGPU_NODE_REG(0, 0);
  reg_wr(s, n0 + SGPU_NREG_RING_BASE, ring);
  reg_wr(s, n0 + SGPU_NREG_RING_SIZE, 4096);
  reg_wr(s, n0 + SGPU_NREG_WATCHDOG, 100000);
  reg_wr(s, n0 + SGPU_NREG_CONTROL, SGPU_CONTROL_ENABLE);
  uint32_t rw[] = {H(INDIRECT, 3, 0), buf, c->n * 4, 42};
  assert_int_equal(sgpu_sim_mem_write(s, ring, rw, sizeof rw), 0);
  reg_wr(s, n0 + SGPU_NREG_RING_WPTR, sizeof rw);
  for (int i = 0; i < 1000 && !(reg_rd(s, n0 + SGPU_NREG_STATUS) & SGPU_STATUS_FAULTED); i++)
    sgpu_sim_run(s, 100, 0);
  uint32_t status = reg_rd(s, n0 + SGPU_NREG_STATUS), reason = reg_rd(s, n0 + SGPU_NREG_FAULT_REASON);
  uint32_t faddr = reg_rd(s, n0 + SGPU_NREG_FAULT_ADDR);
  printf("%s: chip -> status 0x%x, FAULT_REASON %u (%s) at 0x%x\n", c->name, status, reason,
         sgpu_fault_name(reason), faddr);
  assert_true(status & SGPU_STATUS_FAULTED);
  assert_string_equal(sgpu_fault_name(reason), sgpu_fault_name(c->fault));
  assert_int_equal(faddr, c->in_level2 ? buf2 : buf);
  assert_int_equal(reg_rd(s, n0 + SGPU_NREG_FAULT_FENCE), 42);
  assert_int_equal(sgpu_sim_backdoor_read(s, sentinel, &after, 4), 0);
  assert_int_equal(after, before);
  sgpu_sim_destroy(s);
}

static void test_regressions(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    library_side(&cases[i]);
    chip_side(&cases[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_regressions)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
