/* test_vm.c — GPU virtual memory (docs/vm.md): VM contexts, sgpu_map /
 * sgpu_unmap and their refusals, submissions whose packets write through
 * mappings (checked against a memcpy/memset oracle over the allocation),
 * validation's page checks, a buffer the GPU rewrote after validation
 * faulting PAGE_NOT_PRESENT with nothing written outside the context's
 * writable mappings, unmap + TLB invalidation, recovery of a VM context,
 * and a 2D scene rendered the same from a VM context as from a physical one.
 *
 * The runtime tests need a device with CAPS.VM (sgpu_info.has_vm); on one
 * without, they skip, and test_without_vm checks the refusals instead. */
#include "host_test.h"

#define PAGE SGPU_PAGE_BYTES

static int has_vm(fixture *f) {
  sgpu_info in;
  CHECK(sgpu_query_info(f->dev, &in));
  return (int)in.has_vm;
}

#define NEEDS_VM(f)                                                                       \
  do {                                                                                    \
    if (!has_vm(f)) {                                                                     \
      fprintf(stderr, "skipped: the device has no GPU virtual memory (CAPS.VM = 0)\n");  \
      skip();                                                                             \
    }                                                                                     \
  } while (0)

/* Each test gets a fresh simulated device from cmocka's setup and gives it
 * back in the teardown, which runs after a failed or skipped test too. */
static int open_sim(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f || fixture_open(f, "sim")) {
    free(f);
    return -1;
  }
  *state = f;
  return 0;
}

static int close_sim(void **state) {
  fixture_close(*state);
  free(*state);
  return 0;
}

static sgpu_context *vm_context(fixture *f, uint32_t node) {
  sgpu_context *c = NULL;
  CHECK(sgpu_create_context_vm(f->dev, node, &c));
  assert_non_null(c);
  assert_int_equal(sgpu_context_is_vm(c), 1);
  return c;
}

static uint64_t alloc_pages(fixture *f, uint32_t pages) {
  uint64_t a = 0;
  CHECK(sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, pages * PAGE, PAGE, &a));
  return a;
}

static uint64_t map(fixture *f, sgpu_context *c, uint64_t pa, uint64_t size, uint32_t access) {
  uint64_t va = 0;
  CHECK(sgpu_map(c, pa, size, access, &va));
  assert_true(va >= PAGE && va % PAGE == 0);
  return va;
}

/* The words of cb written at physical cpa (mapped at cva in c), submitted
 * from c with fence id `fence`. */
/* A submission from c of the first `len` bytes of the page-sized DMA
 * buffer at virtual address cva. */
static sgpu_submit_command_args vm_args(sgpu_context *c, uint64_t cva, uint32_t len, uint32_t fence) {
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = c;
  a.dma_buffer_virtual_address = cva;
  a.dma_buffer_size = PAGE;
  a.dma_buffer_submission_end_offset = len;
  a.submission_fence_id = fence;
  a.node_ordinal = sgpu_context_node(c);
  return a;
}

static int submit_vm(fixture *f, sgpu_context *c, uint64_t cpa, uint64_t cva, const sgpu_cmdbuf *cb,
                     uint32_t fence) {
  assert_int_equal(sgpu_write(f->dev, cpa, cb->words, sgpu_cmdbuf_size(cb)), 0);
  sgpu_submit_command_args a = vm_args(c, cva, sgpu_cmdbuf_size(cb), fence);
  return sgpu_submit_command(f->dev, &a);
}

static uint32_t fence_pending(fixture *f, uint32_t node) {
  sgpu_fence_info fi;
  CHECK(sgpu_get_fence(f->dev, node, &fi));
  return fi.pending;
}

/* ------------------------------------------------------------ without CAPS.VM */
static void test_without_vm(void **state) {
  fixture *f = *state;
  /* a physical context: no mapping, no virtual DMA buffer address */
  uint64_t va = 0;
  assert_int_equal(sgpu_map(f->ctx0, f->tgt, PAGE, SGPU_MAP_READ, &va), SGPU_ERROR_NOT_VM_CONTEXT);
  assert_non_null(strstr(sgpu_last_error(f->dev), "sgpu_create_context_vm"));
  assert_int_equal(sgpu_unmap(f->ctx0, PAGE, PAGE), SGPU_ERROR_NOT_VM_CONTEXT);
  assert_int_equal(sgpu_context_is_vm(f->ctx0), 0);
  sgpu_submit_command_args a = fixture_args(f, 0);
  a.dma_buffer_virtual_address = PAGE;
  assert_int_equal(sgpu_submit_command(f->dev, &a), SGPU_ERROR_SUBMIT_VIRTUAL_ADDRESS);
  if (!has_vm(f)) {
    sgpu_context *c = (sgpu_context *)1;
    assert_int_equal(sgpu_create_context_vm(f->dev, 0, &c), SGPU_ERROR_NOT_SUPPORTED);
    assert_null(c);
    assert_non_null(strstr(sgpu_last_error(f->dev), "CAPS.VM"));
  }
}

/* ------------------------------------------------------------ map / unmap */
static void test_map_refusals(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  sgpu_info in;
  CHECK(sgpu_query_info(f->dev, &in));
  sgpu_context *c = vm_context(f, 0);
  uint64_t a = alloc_pages(f, 4), va = 0;
  assert_int_equal(sgpu_map(c, a + 4, PAGE, SGPU_MAP_READ, &va), SGPU_ERROR_PAGE_ALIGNMENT);
  assert_int_equal(sgpu_map(c, a, 100, SGPU_MAP_READ, &va), SGPU_ERROR_PAGE_ALIGNMENT);
  assert_int_equal(sgpu_map(c, a, 0, SGPU_MAP_READ, &va), SGPU_ERROR_PAGE_ALIGNMENT);
  assert_int_equal(sgpu_map(c, a, PAGE, 0, &va), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_map(c, a, PAGE, 4, &va), SGPU_ERROR_INVALID_PARAM);
  assert_int_equal(sgpu_map(c, a, 5 * PAGE, SGPU_MAP_READ, &va), SGPU_ERROR_NOT_ALLOCATED);
  assert_int_equal(sgpu_map(c, a + 2 * PAGE, 3 * PAGE, SGPU_MAP_READ, &va), SGPU_ERROR_NOT_ALLOCATED);
  /* nothing the library reserved can be mapped: rings, fence words, page
   * tables (through sgpud what the server itself allocated is NOT_OWNER) */
  sgpu_area areas[64];
  int n = sgpu_get_areas(f->dev, areas, 64), refused = 0;
  assert_true(n > 0);
  for (int i = 0; i < n && i < 64; i++)
    if (areas[i].kind == SGPU_AREA_RESERVED && areas[i].base % PAGE == 0 && areas[i].size >= PAGE) {
      int r = sgpu_map(c, areas[i].base, PAGE, SGPU_MAP_READ, &va);
      if (!(test_shared_device() && r == SGPU_ERROR_NOT_OWNER)) assert_int_equal(r, SGPU_ERROR_NOT_ALLOCATED);
      refused++;
    }
  assert_true(refused > 0);
  /* a whole allocation, a part of it, the same pages again: distinct VAs, never page 0 */
  uint64_t v1 = map(f, c, a, 4 * PAGE, SGPU_MAP_WRITE);
  uint64_t v2 = map(f, c, a + PAGE, PAGE, SGPU_MAP_READ);
  uint64_t v3 = map(f, c, a, PAGE, SGPU_MAP_READ | SGPU_MAP_WRITE);
  assert_true(v2 >= v1 + 4 * PAGE || v2 + PAGE <= v1);
  assert_true(v3 != v1 && v3 != v2);
  assert_true(v1 + 4 * PAGE <= in.mem_size);
  /* freeing a mapped allocation is refused; unmapping needs whole mapped pages */
  assert_int_equal(sgpu_free(f->dev, a), SGPU_ERROR_BUSY);
  assert_non_null(strstr(sgpu_last_error(f->dev), "mapped"));
  assert_int_equal(sgpu_unmap(c, v1 + 1, PAGE), SGPU_ERROR_PAGE_ALIGNMENT);
  uint64_t hole = v1 + 4 * PAGE;
  while (hole == v2 || hole == v3) hole += PAGE;
  assert_int_equal(sgpu_unmap(c, hole, PAGE), SGPU_ERROR_NOT_MAPPED);
  assert_int_equal(sgpu_unmap(c, v1, 5 * PAGE + (hole - v1 - 4 * PAGE)), SGPU_ERROR_NOT_MAPPED);
  /* a page from the middle of v1: the rest stays mapped */
  CHECK(sgpu_unmap(c, v1 + PAGE, PAGE));
  assert_int_equal(sgpu_unmap(c, v1 + PAGE, PAGE), SGPU_ERROR_NOT_MAPPED);
  CHECK(sgpu_unmap(c, v1, PAGE));
  CHECK(sgpu_unmap(c, v1 + 2 * PAGE, 2 * PAGE));
  CHECK(sgpu_unmap(c, v2, PAGE));
  assert_int_equal(sgpu_free(f->dev, a), SGPU_ERROR_BUSY);
  CHECK(sgpu_unmap(c, v3, PAGE));
  CHECK(sgpu_free(f->dev, a));
  /* out of virtual addresses: a quarter of memory fits three times, not four */
  uint64_t big = 0;
  uint32_t quarter = in.mem_size / 4;
  if (sgpu_alloc(f->dev, SGPU_SEGMENT_LOCAL, quarter, PAGE, &big) == 0) {
    for (int i = 0; i < 3; i++) map(f, c, big, quarter, SGPU_MAP_READ);
    assert_int_equal(sgpu_map(c, big, quarter, SGPU_MAP_READ, &va), SGPU_ERROR_OUT_OF_VA_SPACE);
  }
  /* destroying the context drops its mappings: the allocation can go */
  sgpu_destroy_context(c);
  if (big) CHECK(sgpu_free(f->dev, big));
}

/* ------------------------------------------------------------ writes through mappings */
static void test_writes_land_at_physical_bytes(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  sgpu_context *c = vm_context(f, 0);
  uint64_t data = alloc_pages(f, 3), cmd = alloc_pages(f, 1);
  uint8_t oracle[3 * PAGE];
  for (uint32_t i = 0; i < sizeof oracle; i++) oracle[i] = (uint8_t)(i * 7 + 3);
  CHECK(sgpu_write(f->dev, data, oracle, sizeof oracle));
  /* mapped out of order: pages 2, then 0-1, so that VA order is not PA order */
  uint64_t v2 = map(f, c, data + 2 * PAGE, PAGE, SGPU_MAP_WRITE);
  uint64_t v01 = map(f, c, data, 2 * PAGE, SGPU_MAP_WRITE);
  uint64_t cva = map(f, c, cmd, PAGE, SGPU_MAP_READ);
  uint32_t mem[256];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  const uint32_t words[3] = {0x11111111, 0x22222222, 0x33333333};
  sgpu_cmd_write_data(&cb, (uint32_t)v01 + 16, words, 3);
  memcpy(oracle + 16, words, sizeof words);
  /* a FILL across the page boundary of v01 */
  sgpu_cmd_fill(&cb, (uint32_t)v01 + PAGE - 64, 128, 128, 3, 0xA5A55A5Au);
  for (uint32_t y = 0; y < 3; y++)
    for (uint32_t x = 0; x < 128; x += 4) {
      uint32_t p = 0xA5A55A5Au;
      memcpy(oracle + PAGE - 64 + y * 128 + x, &p, 4);
    }
  /* a COPY from the first page into the third (another mapping) */
  sgpu_cmd_copy(&cb, (uint32_t)v2 + 256, 64, (uint32_t)v01 + 512, 64, 64, 4);
  for (uint32_t y = 0; y < 4; y++) memmove(oracle + 2 * PAGE + 256 + y * 64, oracle + 512 + y * 64, 64);
  sgpu_cmd_fence(&cb, (uint32_t)v2 + 4000, 0xF00D, 0);
  uint32_t fd = 0xF00D;
  memcpy(oracle + 2 * PAGE + 4000, &fd, 4);
  CHECK(sgpu_cmdbuf_error(&cb));
  /* validation through the context's tables accepts it (commands: its VA) */
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  CHECK(sgpu_write(f->dev, cmd, mem, sgpu_cmdbuf_size(&cb)));
  v.commands = cva;
  v.command_length = sgpu_cmdbuf_size(&cb);
  v.context_count = 1;
  v.context[0] = c;
  CHECK(sgpu_validate_submit_command(f->dev, &v));
  CHECK(submit_vm(f, c, cmd, cva, &cb, 1));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(200)));
  uint8_t got[3 * PAGE];
  CHECK(sgpu_read(f->dev, data, got, sizeof got));
  assert_memory_equal(got, oracle, sizeof got);
  sgpu_destroy_context(c);
}

static void test_two_contexts_share_an_allocation(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  sgpu_context *a = vm_context(f, 0), *b = vm_context(f, 1);
  uint64_t data = alloc_pages(f, 1), ca = alloc_pages(f, 1), cbp = alloc_pages(f, 1);
  uint64_t pad = map(f, b, ca, PAGE, SGPU_MAP_READ); /* b's VAs differ from a's */
  (void)pad;
  uint64_t va = map(f, a, data, PAGE, SGPU_MAP_WRITE), vb = map(f, b, data, PAGE, SGPU_MAP_WRITE);
  assert_true(va != vb);
  uint64_t cva = map(f, a, ca, PAGE, SGPU_MAP_READ), cvb = map(f, b, cbp, PAGE, SGPU_MAP_READ);
  uint32_t m1[32], m2[32];
  sgpu_cmdbuf c1, c2;
  sgpu_cmdbuf_init(&c1, m1, sizeof m1);
  sgpu_cmdbuf_init(&c2, m2, sizeof m2);
  uint32_t x = 0xAAAA0001, y = 0xBBBB0002;
  sgpu_cmd_write_data(&c1, (uint32_t)va + 8, &x, 1);
  sgpu_cmd_write_data(&c2, (uint32_t)vb + 12, &y, 1);
  CHECK(submit_vm(f, a, ca, cva, &c1, 1));
  CHECK(submit_vm(f, b, cbp, cvb, &c2, 1));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(100)));
  CHECK(sgpu_wait_fence(f->dev, 1, 1, wait_ms(100)));
  assert_int_equal(rd(f, data + 8), x);
  assert_int_equal(rd(f, data + 12), y);
  sgpu_destroy_context(a);
  sgpu_destroy_context(b);
}

/* ------------------------------------------------------------ validation */
static void test_validation_predicts_page_faults(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  sgpu_context *c = vm_context(f, 0);
  uint64_t data = alloc_pages(f, 2), cmd = alloc_pages(f, 1);
  uint64_t ro = map(f, c, data, PAGE, SGPU_MAP_READ);
  uint64_t rw = map(f, c, data + PAGE, PAGE, SGPU_MAP_WRITE);
  uint64_t cva = map(f, c, cmd, PAGE, SGPU_MAP_READ);
  uint32_t mem[64];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, mem, sizeof mem);
  sgpu_cmd_nop(&cb, 1);
  sgpu_cmd_fill(&cb, (uint32_t)ro, 64, 64, 1, 0); /* a write to a read-only page */
  CHECK(sgpu_write(f->dev, cmd, mem, sgpu_cmdbuf_size(&cb)));
  sgpu_validate_submit_command_args v;
  memset(&v, 0, sizeof v);
  v.commands = cva;
  v.command_length = sgpu_cmdbuf_size(&cb);
  v.context_count = 1;
  v.context[0] = c;
  assert_int_equal(sgpu_validate_submit_command(f->dev, &v), SGPU_ERROR_PACKET_PAGE_PROTECTION);
  char page[32];
  snprintf(page, sizeof page, "page 0x%llx", (unsigned long long)ro);
  assert_non_null(strstr(sgpu_last_error(f->dev), page));
  assert_int_equal(submit_vm(f, c, cmd, cva, &cb, 1), SGPU_ERROR_PACKET_PAGE_PROTECTION);
  assert_non_null(strstr(sgpu_last_error(f->dev), "offset 0x8"));
  assert_int_equal(fence_pending(f, 0), 0); /* nothing queued */
  /* reading it is fine; a page past the mapping is not present */
  sgpu_cmdbuf_reset(&cb);
  sgpu_cmd_copy(&cb, (uint32_t)rw, 64, (uint32_t)ro, 64, 64, 2);
  CHECK(submit_vm(f, c, cmd, cva, &cb, 1));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(100)));
  sgpu_cmdbuf_reset(&cb);
  sgpu_cmd_wait_mem(&cb, (uint32_t)rw + PAGE, 1, 0, SGPU_WAIT_FUNC_EQ);
  uint64_t unmapped = rw + PAGE == cva ? cva + PAGE : rw + PAGE;
  sgpu_cmdbuf_reset(&cb);
  sgpu_cmd_wait_mem(&cb, (uint32_t)unmapped, 1, 0, SGPU_WAIT_FUNC_EQ);
  assert_int_equal(submit_vm(f, c, cmd, cva, &cb, 2), SGPU_ERROR_PACKET_PAGE_NOT_PRESENT);
  /* the DMA buffer itself must be mapped */
  sgpu_cmdbuf_reset(&cb);
  sgpu_cmd_nop(&cb, 0);
  assert_int_equal(submit_vm(f, c, cmd, unmapped, &cb, 2), SGPU_ERROR_NOT_MAPPED);
  char addr[32];
  snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)unmapped);
  assert_non_null(strstr(sgpu_last_error(f->dev), addr));
  assert_int_equal(fence_pending(f, 0), 0);
  sgpu_destroy_context(c);
}

/* ------------------------------------------------------------ what the hardware enforces */
/* The first MiB of GPU memory: the test's allocations, the contexts'
 * directories and tables, the rings' words (reading all of it twice took
 * most of a minute on the model, far longer under valgrind and on a link). */
typedef struct snap {
  uint64_t base;
  uint32_t size;
  uint8_t *bytes;
} snap;

static void take(fixture *f, snap *s, uint64_t around) {
  sgpu_info in;
  CHECK(sgpu_query_info(f->dev, &in));
  s->base = 0;
  s->size = in.mem_size < 0x100000u ? in.mem_size : 0x100000u;
  assert_true(around + PAGE <= s->size);
  s->bytes = malloc(s->size);
  assert_non_null(s->bytes);
  CHECK(sgpu_read(f->dev, s->base, s->bytes, s->size));
}

/* Bytes that changed between a and b outside [ok[i], ok[i] + PAGE) and
 * outside the library's reserved areas (rings, fence words, staging). */
static uint32_t changed_outside(fixture *f, const snap *a, const snap *b, const uint64_t *ok, int nok,
                                int quiet) {
  sgpu_area areas[64];
  int n = sgpu_get_areas(f->dev, areas, 64);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < a->size; i++) {
    if (a->bytes[i] == b->bytes[i]) continue;
    uint64_t at = a->base + i;
    int fine = 0;
    for (int k = 0; k < nok && !fine; k++) fine = at >= ok[k] && at < ok[k] + PAGE;
    for (int k = 0; k < n && k < 64 && !fine; k++)
      fine = areas[k].kind == SGPU_AREA_RESERVED && at >= areas[k].base &&
             at < areas[k].base + areas[k].size;
    if (!fine) {
      if (bad < 4 && !quiet) fprintf(stderr, "byte 0x%llx changed outside the writable mappings\n",
                           (unsigned long long)at);
      bad++;
    }
  }
  return bad;
}

/* Submission A rewrites submission B's buffer through a writable mapping
 * after the library validated B from its copy (GPU writes do not reach that
 * copy): the hardware's page check stops B's FILL at an unmapped VA. */
static void test_rewritten_buffer_faults(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  sgpu_context *c = vm_context(f, 0), *inn = vm_context(f, 0);
  uint64_t data = alloc_pages(f, 1), bpa = alloc_pages(f, 1), apa = alloc_pages(f, 1);
  uint64_t dva = map(f, c, data, PAGE, SGPU_MAP_WRITE);
  uint64_t bva = map(f, c, bpa, PAGE, SGPU_MAP_WRITE); /* B's buffer: writable by A */
  uint64_t ava = map(f, c, apa, PAGE, SGPU_MAP_READ);
  uint64_t bad_va = ava + 4 * PAGE; /* never mapped */
  /* the innocent context's work, queued behind B on the same ring */
  uint64_t idata = alloc_pages(f, 1), ipa = alloc_pages(f, 1);
  uint64_t idva = map(f, inn, idata, PAGE, SGPU_MAP_WRITE), iva = map(f, inn, ipa, PAGE, SGPU_MAP_READ);

  uint32_t mb[32], ma[32], mi[32]; /* B, A, the innocent one */
  sgpu_cmdbuf b, a, ib;
  sgpu_cmdbuf_init(&b, mb, sizeof mb);
  sgpu_cmdbuf_init(&a, ma, sizeof ma);
  sgpu_cmdbuf_init(&ib, mi, sizeof mi);
  sgpu_cmd_fill(&b, (uint32_t)dva, 64, 64, 2, 0x5A5A5A5A); /* FILL's dst is word 1 */
  uint32_t evil = (uint32_t)bad_va;
  sgpu_cmd_write_data(&a, (uint32_t)bva + 4, &evil, 1);
  uint32_t iv = 0x1A1A1A1A;
  sgpu_cmd_write_data(&ib, (uint32_t)idva, &iv, 1);
  /* A rewrites B's FILL address and waits until the word is there, then
   * for the host's go (a word of B's page past its packets), so that the
   * innocent work is queued behind B before B runs (a link device runs on
   * its own) */
  sgpu_cmd_wait_mem(&a, (uint32_t)bva + 4, 0xFFFFFFFFu, evil, SGPU_WAIT_FUNC_EQ);
  sgpu_cmd_wait_mem(&a, (uint32_t)bva + 256, 0xFFFFFFFFu, 1, SGPU_WAIT_FUNC_EQ);
  /* both buffers written before the snapshot: from there on only the GPU writes */
  CHECK(sgpu_write(f->dev, bpa, mb, sgpu_cmdbuf_size(&b)));
  CHECK(sgpu_write(f->dev, apa, ma, sgpu_cmdbuf_size(&a)));
  CHECK(sgpu_write(f->dev, ipa, mi, sgpu_cmdbuf_size(&ib)));
  snap before, after;
  take(f, &before, data);
  CHECK(submit_vm(f, c, apa, ava, &a, 2));
  sgpu_submit_command_args s = vm_args(c, bva, sgpu_cmdbuf_size(&b), 3);
  CHECK(sgpu_submit_command(f->dev, &s)); /* validated from the library's copy: a FILL at dva */
  CHECK(submit_vm(f, inn, ipa, iva, &ib, 4));
  wr(f, bpa + 256, 1); /* go */
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 3, wait_ms(100)), SGPU_ERROR_NODE_FAULTED);
  sgpu_event ev;
  int faulted = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_FAULTED) {
      faulted = 1;
      assert_int_equal(ev.fault_reason, SGPU_FAULT_PAGE_NOT_PRESENT);
      assert_int_equal(ev.fault_va, bad_va);
      assert_int_equal(ev.fault_access, SGPU_ACCESS_WRITE);
      assert_int_equal(ev.fault_unit, SGPU_UNIT_2D);
      assert_int_equal(ev.fence_id, 3);
    }
  assert_true(faulted);
  take(f, &after, data);
  uint64_t ok[2] = {data, bpa};
  assert_int_equal(changed_outside(f, &before, &after, ok, 2, 0), 0);
  assert_true(changed_outside(f, &before, &after, ok, 1, 1) > 0); /* it sees A's write into B's page */
  assert_int_equal(rd(f, data), 0); /* the FILL wrote nothing */
  free(before.bytes);
  free(after.bytes);
  /* recovery: c is guilty, the innocent VM context's work runs (its ring
   * gets its CONTEXT again) */
  assert_int_equal(sgpu_reset_from_timeout(f->dev), 1);
  CHECK(sgpu_wait_fence(f->dev, 0, 4, wait_ms(100)));
  assert_int_equal(rd(f, idata), iv);
  int reset = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_ENGINE_RESET) {
      reset = 1;
      assert_int_equal(ev.context_id, sgpu_context_id(c));
    }
  assert_true(reset);
  sgpu_destroy_context(c);
  sgpu_destroy_context(inn);
}

/* After sgpu_unmap the old VA faults even though the TLB held it: a buffer
 * rewritten on the GPU to write there is stopped, the page's bytes stay. */
static void test_unmap_invalidates(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  TEST_NEEDS_LOCAL(SHARED_RESETS_AT_ONCE);
  sgpu_context *c = vm_context(f, 0);
  uint64_t page = alloc_pages(f, 1), data = alloc_pages(f, 1), bpa = alloc_pages(f, 1),
           apa = alloc_pages(f, 1);
  uint64_t pva = map(f, c, page, PAGE, SGPU_MAP_WRITE);
  uint64_t dva = map(f, c, data, PAGE, SGPU_MAP_WRITE);
  uint64_t bva = map(f, c, bpa, PAGE, SGPU_MAP_WRITE);
  uint64_t ava = map(f, c, apa, PAGE, SGPU_MAP_READ);
  uint32_t m[32];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, m, sizeof m);
  uint32_t one = 1;
  sgpu_cmd_write_data(&cb, (uint32_t)pva, &one, 1); /* the TLB learns pva */
  CHECK(submit_vm(f, c, apa, ava, &cb, 1));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(100)));
  assert_int_equal(rd(f, page), 1);

  /* with work queued the unmap is refused */
  sgpu_cmdbuf_reset(&cb);
  sgpu_cmd_wait_mem(&cb, (uint32_t)dva, 0xFFFFFFFFu, 7, SGPU_WAIT_FUNC_EQ);
  CHECK(submit_vm(f, c, apa, ava, &cb, 2));
  assert_int_equal(sgpu_unmap(c, pva, PAGE), SGPU_ERROR_BUSY);
  wr(f, data, 7);
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(100)));
  CHECK(sgpu_unmap(c, pva, PAGE));

  /* B writes dva as validated; A rewrites it to write pva */
  uint32_t mb[16];
  sgpu_cmdbuf b;
  sgpu_cmdbuf_init(&b, mb, sizeof mb);
  uint32_t v = 0x0BAD0BAD;
  sgpu_cmd_write_data(&b, (uint32_t)dva + 8, &v, 1); /* its address is word 1 */
  CHECK(sgpu_write(f->dev, bpa, mb, sgpu_cmdbuf_size(&b)));
  sgpu_cmdbuf_reset(&cb);
  uint32_t evil = (uint32_t)pva;
  sgpu_cmd_write_data(&cb, (uint32_t)bva + 4, &evil, 1);
  sgpu_cmd_wait_mem(&cb, (uint32_t)bva + 4, 0xFFFFFFFFu, evil, SGPU_WAIT_FUNC_EQ);
  CHECK(submit_vm(f, c, apa, ava, &cb, 3));
  sgpu_submit_command_args s = vm_args(c, bva, sgpu_cmdbuf_size(&b), 4);
  CHECK(sgpu_submit_command(f->dev, &s));
  assert_int_equal(sgpu_wait_fence(f->dev, 0, 4, wait_ms(100)), SGPU_ERROR_NODE_FAULTED);
  sgpu_event ev;
  int faulted = 0;
  while (sgpu_next_event(f->dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_FAULTED) {
      faulted = 1;
      assert_int_equal(ev.fault_reason, SGPU_FAULT_PAGE_NOT_PRESENT);
      assert_int_equal(ev.fault_va, pva);
      assert_int_equal(ev.fault_access, SGPU_ACCESS_WRITE);
      assert_int_equal(ev.fault_unit, SGPU_UNIT_CP);
    }
  assert_true(faulted);
  assert_int_equal(rd(f, page), 1); /* the unmapped page kept its bytes */
  assert_int_equal(rd(f, data + 8), 0);
  CHECK(sgpu_reset_from_timeout(f->dev));
  sgpu_destroy_context(c);
}

/* ------------------------------------------------------------ same pixels */
/* A 2D scene (fills and copies over a 64x48 RGB565 framebuffer) drawn from
 * a physical context and from a VM context gives the same bytes. */
static void scene(sgpu_cmdbuf *cb, uint32_t fb, uint32_t pitch) {
  sgpu_cmd_fill(cb, fb, pitch, pitch, 48, 0x00000000);
  for (uint32_t i = 0; i < 6; i++)
    sgpu_cmd_fill(cb, fb + i * 6 * pitch + i * 8, pitch, 40, 10, 0x1F00F800u * (i + 1) + i);
  sgpu_cmd_copy(cb, fb + 30 * pitch + 64, pitch, fb, pitch, 60, 16);
  sgpu_cmd_copy(cb, fb + 2 * pitch + 2, pitch, fb + 20 * pitch, pitch, 100, 8);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xEDB88320u & -(c & 1u));
  }
  return ~c;
}

static void test_same_frame_from_vm_context(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  const uint32_t pitch = 128, bytes = pitch * 48;
  sgpu_context *c = vm_context(f, 0);
  uint64_t fb_phys = alloc_pages(f, 2), fb_vm = alloc_pages(f, 2), cmd = alloc_pages(f, 1);
  uint64_t fva = map(f, c, fb_vm, 2 * PAGE, SGPU_MAP_WRITE), cva = map(f, c, cmd, PAGE, SGPU_MAP_READ);
  uint32_t m[256];
  sgpu_cmdbuf cb;
  sgpu_cmdbuf_init(&cb, m, sizeof m);
  scene(&cb, (uint32_t)fb_phys, pitch);
  CHECK(sgpu_cmdbuf_error(&cb));
  CHECK(submit_at(f, f->ctx0, f->buf, &cb, 1, 0));
  CHECK(sgpu_wait_fence(f->dev, 0, 1, wait_ms(200)));
  sgpu_cmdbuf_reset(&cb);
  scene(&cb, (uint32_t)fva, pitch);
  CHECK(submit_vm(f, c, cmd, cva, &cb, 2));
  CHECK(sgpu_wait_fence(f->dev, 0, 2, wait_ms(200)));
  uint8_t p[2 * PAGE], v[2 * PAGE];
  CHECK(sgpu_read(f->dev, fb_phys, p, bytes));
  CHECK(sgpu_read(f->dev, fb_vm, v, bytes));
  assert_int_equal(crc32_of(v, bytes), crc32_of(p, bytes));
  assert_memory_equal(v, p, bytes);
  sgpu_destroy_context(c);
}

/* ------------------------------------------------------------ preemption */
/* A VM context's FILL (in a nested buffer) and COPY preempted at many
 * points, cut inside the rectangle too, each time sent again with
 * flags.resubmission until it completes: the bytes equal the oracle (a
 * memset, then a memmove per row through a temporary) and the fence
 * completes once. */
static void test_preempted_vm_submission_resumes(void **state) {
  fixture *f = *state;
  NEEDS_VM(f);
  TEST_NEEDS_LOCAL("preempts a node (sgpu_preempt): on a shared device the work running there may be "
                   "another program's, which sgpud does not let one program stop");
  sgpu_info in;
  CHECK(sgpu_query_info(f->dev, &in));
  if (!in.has_preemption || in.ib_depth < 2) {
    fprintf(stderr, "skipped: the device does not preempt inside nested buffers\n");
    skip();
  }
  const uint32_t W = 1024, H = 300, PAT = 0xC3A5965Au, CW = 700, CH = 120;
  sgpu_context *c = vm_context(f, 0);
  uint32_t pages = (W * H + PAGE - 1) / PAGE;
  uint64_t fb = alloc_pages(f, pages), cmd = alloc_pages(f, 1);
  uint64_t vfb = map(f, c, fb, (uint64_t)pages * PAGE, SGPU_MAP_WRITE);
  uint64_t vcmd = map(f, c, cmd, PAGE, SGPU_MAP_READ);
  uint32_t m1[64], m2[64];
  sgpu_cmdbuf l1, l2;
  sgpu_cmdbuf_init(&l2, m2, sizeof m2);
  sgpu_cmd_fill(&l2, (uint32_t)vfb, W, W, H, PAT);
  sgpu_cmdbuf_init(&l1, m1, sizeof m1);
  sgpu_cmd_indirect(&l1, (uint32_t)vcmd + 1024, sgpu_cmdbuf_size(&l2), 0, 0);
  /* an overlapping COPY, rows bottom-up: 120 rows of 700 bytes moved 2 rows and 9 bytes on */
  sgpu_cmd_copy(&l1, (uint32_t)vfb + 2 * W + 9, W, (uint32_t)vfb + 1, W, CW, CH);
  CHECK(sgpu_cmdbuf_error(&l1));
  CHECK(sgpu_write(f->dev, cmd + 1024, m2, sgpu_cmdbuf_size(&l2)));
  uint8_t *want = malloc((size_t)W * H), *got = malloc((size_t)W * H), *tmp = malloc((size_t)CW * CH);
  assert_non_null(want);
  assert_non_null(got);
  assert_non_null(tmp);
  for (uint32_t i = 0; i < W * H; i++) want[i] = (uint8_t)(PAT >> (8 * ((vfb + i) % 4)));
  for (uint32_t r = 0; r < CH; r++) memcpy(tmp + r * CW, want + 1 + r * W, CW);
  for (uint32_t r = 0; r < CH; r++) memcpy(want + 2 * W + 9 + r * W, tmp + r * CW, CW);
  uint32_t fence = 0, cut_inside = 0;
  for (uint32_t delay = 2000; delay < 160000; delay = delay * 3 / 2 + 1201) {
    uint8_t zero[4096];
    memset(zero, 0, sizeof zero);
    for (uint32_t o = 0; o < W * H; o += sizeof zero)
      CHECK(sgpu_write(f->dev, fb + o, zero, W * H - o < sizeof zero ? W * H - o : sizeof zero));
    ++fence;
    CHECK(submit_vm(f, c, cmd, vcmd, &l1, fence));
    sgpu_submit_command_args a = vm_args(c, vcmd, sgpu_cmdbuf_size(&l1), fence);
    a.flags.resubmission = 1;
    for (uint32_t rounds = 0;; rounds++) {
      assert_true(rounds < 100);
      run_chip(f, delay);
      uint32_t st = 0;
      CHECK(sgpu_reg_read(f->dev, SGPU_NODE_REG(0, SGPU_NREG_STATUS), &st));
      CHECK(sgpu_preempt(f->dev, 0, 0x3000 + rounds));
      sgpu_event ev;
      uint32_t kept = 0, seen = 0;
      while (sgpu_next_event(f->dev, &ev, 0) == 0)
        if (ev.type == SGPU_EVENT_DMA_PREEMPTED) kept = ev.preempted_count, seen = 1;
      assert_true(seen);
      if (!kept) break;
      cut_inside += (st & SGPU_STATUS_BUSY) != 0;
      CHECK(sgpu_submit_command(f->dev, &a));
    }
    CHECK(sgpu_wait_fence(f->dev, 0, fence, wait_ms(500)));
    CHECK(sgpu_read(f->dev, fb, got, W * H));
    for (uint32_t i = 0; i < W * H; i++)
      if (got[i] != want[i]) fail_msg("delay %u: byte %u is 0x%02x, expected 0x%02x", delay, i, got[i], want[i]);
  }
  assert_true(cut_inside > 5);
  free(want);
  free(got);
  free(tmp);
  sgpu_destroy_context(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_without_vm, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_map_refusals, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_writes_land_at_physical_bytes, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_two_contexts_share_an_allocation, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_validation_predicts_page_faults, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_rewritten_buffer_faults, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_unmap_invalidates, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_same_frame_from_vm_context, open_sim, close_sim),
      cmocka_unit_test_setup_teardown(test_preempted_vm_submission_resumes, open_sim, close_sim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
