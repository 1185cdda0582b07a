/* test_validate_exact — validation is exact: random command buffers
 * (tests/diff/diff_gen.c, dg_generate_buffer: nested INDIRECTs, valid and
 * faulting packets, context windows) are given to
 * sgpu_validate_submit_command on a `sim` device.
 *
 *  - What validation accepts is submitted (sgpu_submit_command, segment 1)
 *    and must reach its fence without a fault.
 *  - What it rejects with SGPU_ERROR_PACKET_<F> at packet address A must
 *    fault on a raw chip with FAULT_REASON F, FAULT_ADDR A and FAULT_OPCODE
 *    the header word at A when the same
 *    memory is loaded and the buffer is the target of a ring INDIRECT (level
 *    1), after a ring CONTEXT packet with the same window.
 *
 * Only runtime outcomes validation cannot know are kept out of the
 * buffers: waits that never end (TIMEOUT) and display waits.
 *
 * VM (a chip with CAPS.VM): directed packets in a VM context, each checked
 * three ways: the packet checker's prediction (sgpu__check_payload with the
 * context's tables) must be the outcome written in the case (fault, FAULT_VA,
 * FAULT_ACCESS), and the chip must fault the same way at the same address,
 * writing nothing; packets that pass must write the frames the tables name.
 * The cases: each page-fault kind and access, a span crossing into a bad
 * page (FAULT_VA is that page's base), COPY's destination page check before
 * its source's range check, length 0, directory entries not VALID,
 * TLB_INVALIDATE outside the ring.
 *
 *   test_validate_exact [--seeds N] [--base S]
 * Prints FIGURE validate_exact_accepted_per_1000 and per rejected code; fails
 * when a PACKET_* code never occurred (>= 200 seeds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip_util.h"
#include "diff_gen.h"
#include "packet_check.h"
#include "sgpu.h"

#define RAW_RING 0x00010000u
#define RAW_FENCE 0x0001E000u

/* ------------------------------------------------------------ VM cases */
/* Tables: directory at VM_PD, entry 0's table at VM_PD + 4096; entry 1 not
 * VALID (virtual addresses from 4 MiB unmapped). */
#define VM_PD 0x00700000u
#define VM_BUF 0x00100000u /* buffer page: frame 0x300000, read-only */
#define VM_RW 0x00200000u  /* frame 0x340000 */
#define VM_RO 0x00201000u  /* frame 0x341000, read-only */
#define VM_NP 0x00202000u  /* not mapped (frame bits set, VALID clear) */
#define VM_RW2 0x00203000u /* frame 0x345000; VM_RW2 + 4096 not mapped */
#define VM_A 0x00205000u   /* frame 0x350000 */
#define VM_B 0x00206000u   /* frame 0x347000: VM_A's next page, elsewhere */

typedef struct vm_map {
  uint32_t va, pte;
} vm_map;
static const vm_map vm_maps[] = {
    {VM_BUF, 0x00300000u | SGPU_PTE_VALID_MASK},
    {VM_RW, 0x00340000u | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
    {VM_RO, 0x00341000u | SGPU_PTE_VALID_MASK | (1u << SGPU_PTE_SEGMENT_SHIFT)},
    {VM_NP, 0x00342000u | SGPU_PTE_WRITABLE_MASK},
    {VM_RW2, 0x00345000u | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
    {VM_A, 0x00350000u | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
    {VM_B, 0x00347000u | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK},
};

static uint32_t vm_read_word(void *mem, uint64_t pa) { return chip_peek(mem, (uint32_t)pa); }

typedef struct vm_case {
  const char *name;
  uint32_t words[8], n;  /* the packet, at VM_BUF (level 1), or the ring's INDIRECT (ring) */
  int ring;              /* the packet is the ring-level INDIRECT itself */
  uint32_t fault, va, access; /* expected: SGPU_FAULT_*, FAULT_VA, FAULT_ACCESS */
  uint32_t pa, value;    /* passes: the word at physical pa must then be value */
} vm_case;

#define ACC(a, u) (SGPU_HW_ACCESS_##a | SGPU_HW_UNIT_##u << SGPU_FAULT_ACCESS_UNIT_SHIFT)
#define H(op, n, f) SGPU_PKT_HEADER(SGPU_OP_##op, n, f)
static const vm_case vm_cases[] = {
    {"WRITE_DATA to a page not mapped", {H(WRITE_DATA, 2, 0), VM_NP + 8, 1}, 3, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP + 8, ACC(WRITE, CP), 0, 0},
    {"WRITE_DATA to a read-only page", {H(WRITE_DATA, 2, 0), VM_RO + 16, 1}, 3, 0,
     SGPU_FAULT_PAGE_PROTECTION, VM_RO + 16, ACC(WRITE, CP), 0, 0},
    {"WRITE_DATA from a writable page into a read-only one: nothing written",
     {H(WRITE_DATA, 5, 0), VM_RO - 8, 0xA1, 0xA2, 0xA3, 0xA4}, 6, 0,
     SGPU_FAULT_PAGE_PROTECTION, VM_RO, ACC(WRITE, CP), 0x00340FF8u, 0},
    {"WRITE_DATA across two pages mapped apart", {H(WRITE_DATA, 3, 0), VM_B - 4, 0xB1, 0xB2}, 4, 0,
     SGPU_FAULT_NONE, 0, 0, 0x00347000u, 0xB2},
    {"FENCE to a read-only page", {H(FENCE, 2, 0), VM_RO, 7}, 3, 0, SGPU_FAULT_PAGE_PROTECTION, VM_RO,
     ACC(WRITE, CP), 0, 0},
    {"FENCE through the tables", {H(FENCE, 2, 0), VM_A + 0x40, 0x5EED}, 3, 0, SGPU_FAULT_NONE, 0, 0,
     0x00350040u, 0x5EED},
    {"WAIT_MEM on a page not mapped", {H(WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), VM_NP, 0, 0}, 4, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP, ACC(READ, CP), 0, 0},
    {"WAIT_MEM on a read-only page (a read)", {H(WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ), VM_RO, 0, 0}, 4, 0,
     SGPU_FAULT_NONE, 0, 0, 0, 0},
    {"TIMESTAMP whose high word is in a read-only page", {H(TIMESTAMP, 1, 0), VM_RO - 4}, 2, 0,
     SGPU_FAULT_PAGE_PROTECTION, VM_RO, ACC(WRITE, CP), 0, 0},
    {"FILL into a page not mapped (2D engine, rows' gaps included)",
     {H(FILL, 5, 0), VM_RW2 + 0xF00, 0x100, 0x20, 2, 0x11223344}, 6, 0, SGPU_FAULT_PAGE_NOT_PRESENT,
     VM_RW2 + 0x1000, ACC(WRITE, 2D), 0, 0},
    {"FILL across two pages mapped apart", {H(FILL, 5, 0), VM_B - 8, 16, 16, 1, 0x55667788}, 6, 0,
     SGPU_FAULT_NONE, 0, 0, 0x00347004u, 0x55667788},
    {"FILL of width 0 at a page not mapped: nothing to check", {H(FILL, 5, 0), VM_NP, 16, 0, 1, 0}, 6, 0,
     SGPU_FAULT_NONE, 0, 0, 0, 0},
    {"COPY from a page not mapped", {H(COPY, 6, 0), VM_RW, 64, VM_NP + 4, 64, 32, 1}, 7, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP + 4, ACC(READ, 2D), 0, 0},
    {"COPY to a read-only page", {H(COPY, 6, 0), VM_RO + 4, 64, VM_RW, 64, 32, 1}, 7, 0,
     SGPU_FAULT_PAGE_PROTECTION, VM_RO + 4, ACC(WRITE, 2D), 0, 0},
    {"COPY: destination not mapped comes before the source's OUT_OF_RANGE",
     {H(COPY, 6, 0), VM_NP, 64, 0x007FFFF0u, 64, 32, 1}, 7, 0, SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP,
     ACC(WRITE, 2D), 0, 0},
    {"COPY: mapped destination, source OUT_OF_RANGE", {H(COPY, 6, 0), VM_RW, 64, 0x007FFFF0u, 64, 32, 1}, 7,
     0, SGPU_FAULT_OUT_OF_RANGE, 0, 0, 0, 0},
    {"COPY between two spaces' worth of pages", {H(COPY, 6, 0), VM_A, 64, VM_B - 8, 64, 16, 1}, 7, 0,
     SGPU_FAULT_NONE, 0, 0, 0x00350008u, 0x55667788},
    {"INDIRECT into a page not mapped (level 2 fetch)", {H(INDIRECT, 3, 0), VM_NP, 16, 1}, 4, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP, ACC(FETCH, CP), 0, 0},
    {"INDIRECT of length 0 at a page not mapped", {H(INDIRECT, 3, 0), VM_NP, 0, 1}, 4, 0, SGPU_FAULT_NONE,
     0, 0, 0, 0},
    {"directory entry not VALID", {H(WRITE_DATA, 2, 0), 0x00400000u, 1}, 3, 0, SGPU_FAULT_PAGE_NOT_PRESENT,
     0x00400000u, ACC(WRITE, CP), 0, 0},
    {"the tables' own address, as a virtual one", {H(WRITE_DATA, 2, 0), VM_PD + 4096, 0}, 3, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_PD + 4096, ACC(WRITE, CP), 0, 0},
    {"OUT_OF_RANGE before any page check", {H(WRITE_DATA, 2, 0), 0x00800000u, 1}, 3, 0,
     SGPU_FAULT_OUT_OF_RANGE, 0, 0, 0, 0},
    {"TLB_INVALIDATE in a buffer", {H(TLB_INVALIDATE, 0, 0)}, 1, 0, SGPU_FAULT_PRIVILEGED, 0, 0, 0, 0},
    {"FLIP of a page not mapped", {H(FLIP, 3, 0), 0, VM_NP, SGPU_HW_FLIP_INTERVAL_IMMEDIATE}, 4, 0,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP, ACC(READ, CP), 0, 0},
    {"ring INDIRECT of a buffer not mapped", {H(INDIRECT, 3, 0), VM_NP + 0x20, 8, 9}, 4, 1,
     SGPU_FAULT_PAGE_NOT_PRESENT, VM_NP + 0x20, ACC(FETCH, CP), 0, 0},
    {"ring INDIRECT of length 0 at a page not mapped", {H(INDIRECT, 3, 0), VM_NP, 0, 9}, 4, 1,
     SGPU_FAULT_NONE, 0, 0, 0, 0},
};
#undef H
#undef ACC

/* Returns the number of disagreements (the chip's part only with CAPS.VM). */
static int vm_run_cases(void) {
  sgpu_sim *sim = chip_create(NULL);
  const int chip_vm = SGPU_FIELD_GET(CAPS_VM, chip_rd(sim, SGPU_REG_CAPS)) != 0;
  const uint32_t mem = sgpu_sim_mem_bytes(sim);
  chip_ring ring;
  chip_ring_init(&ring, sim, 0, RAW_RING, 4096);
  int failures = 0;
  for (size_t k = 0; k < sizeof vm_cases / sizeof vm_cases[0]; k++) {
    const vm_case *c = &vm_cases[k];
    /* fresh tables and data for each case (the previous one may have
     * written), and a CONTEXT (which forgets the TLB) */
    for (uint32_t a = 0; a < 2 * SGPU_PAGE_BYTES; a += 4) chip_poke(sim, VM_PD + a, 0);
    chip_poke(sim, VM_PD, (VM_PD + SGPU_PAGE_BYTES) | SGPU_PDE_VALID_MASK);
    for (size_t i = 0; i < sizeof vm_maps / sizeof vm_maps[0]; i++)
      chip_poke(sim, VM_PD + SGPU_PAGE_BYTES + 4 * (vm_maps[i].va / SGPU_PAGE_BYTES % SGPU_PT_ENTRIES), vm_maps[i].pte);
    for (uint32_t f = 0x340000u; f < 0x360000u; f += 4) chip_poke(sim, f, 0x55667788u);
    for (uint32_t i = 0; i < 64; i++) chip_poke(sim, 0x300000u + 4 * i, 0);
    for (uint32_t i = 0; i < c->n; i++) chip_poke(sim, 0x300000u + 4 * i, c->words[i]);
    /* the checker's prediction */
    sgpu_pkt_vm vm = {VM_PD, mem, vm_read_word, sim, 0, 0, 0};
    sgpu_pkt_env env = {mem, sgpu_sim_sources(sim), c->ring ? 0 : 1, 0, 0, 0, SGPU_MAX_IB_DEPTH, &vm};
    char why[200] = "";
    uint32_t pred = sgpu__check_header(c->words[0], c->n, why, sizeof why);
    if (pred == SGPU_FAULT_NONE) pred = sgpu__check_payload(&env, c->words, why, sizeof why);
    const int page = pred == SGPU_FAULT_PAGE_NOT_PRESENT || pred == SGPU_FAULT_PAGE_PROTECTION;
    const uint32_t pva = page ? vm.fault_va : 0, pacc = page ? vm.fault_access : 0;
    if (pred != c->fault || pva != c->va || pacc != c->access) {
      printf("FAIL VM case '%s': the checker predicts %s FAULT_VA 0x%08x FAULT_ACCESS 0x%x (%s), the case says %s 0x%08x 0x%x\n",
             c->name, sgpu_fault_name(pred), pva, pacc, why, sgpu_fault_name(c->fault), c->va, c->access);
      failures++;
    }
    /* the chip */
    if (!chip_vm) continue;
    chip_buf rb;
    chip_buf_init(&rb);
    chip_buf_word(&rb, SGPU_PKT_HEADER(SGPU_OP_CONTEXT, SGPU_OP_CONTEXT_COUNT, SGPU_CONTEXT_FLAG_VM));
    chip_buf_word(&rb, 1 + (uint32_t)k);
    chip_buf_word(&rb, VM_PD + 4 * (uint32_t)k); /* bits [11:0] are ignored */
    chip_buf_word(&rb, SGPU_PAGE_BYTES);
    const uint32_t at = RAW_RING + ring.wptr + chip_buf_bytes(&rb);
    if (c->ring)
      for (uint32_t i = 0; i < c->n; i++) chip_buf_word(&rb, c->words[i]);
    else
      chip_pkt_indirect(&rb, VM_BUF, 4 * c->n, 1, 0);
    chip_pkt_fence(&rb, RAW_FENCE, 100 + (uint32_t)k, 0);
    chip_submit(&ring, &rb);
    chip_buf_free(&rb);
    const int st = chip_wait_idle(sim, 0, 400000);
    chip_fault f;
    chip_read_fault(sim, 0, &f);
    const uint32_t cva = chip_nrd(sim, 0, SGPU_NREG_FAULT_VA), cacc = chip_nrd(sim, 0, SGPU_NREG_FAULT_ACCESS);
    const uint32_t root = chip_nrd(sim, 0, SGPU_NREG_VM_ROOT);
    const uint32_t want_addr = c->ring ? at : VM_BUF;
    if (c->fault == SGPU_FAULT_NONE) {
      if (st != 0 || chip_peek(sim, RAW_FENCE) != 100 + k || (c->pa && chip_peek(sim, c->pa) != c->value)) {
        printf("FAIL VM case '%s': the chip %s (fault %s at 0x%08x); word at 0x%08x 0x%08x, want 0x%08x\n", c->name,
               st == 0 ? "finished" : st == 1 ? "faulted" : "hangs", sgpu_fault_name(f.reason), f.addr, c->pa,
               c->pa ? chip_peek(sim, c->pa) : 0, c->value);
        failures++;
      }
      if (st == 0 && root != VM_PD) {
        printf("FAIL VM case '%s': VM_ROOT 0x%08x, want 0x%08x\n", c->name, root, VM_PD);
        failures++;
      }
    } else if (st != 1 || f.reason != c->fault || f.addr != want_addr || f.opcode != c->words[0] || cva != c->va ||
               cacc != c->access) {
      printf("FAIL VM case '%s': the chip %s %s at 0x%08x FAULT_VA 0x%08x FAULT_ACCESS 0x%x; want %s at 0x%08x, 0x%08x 0x%x\n",
             c->name, st == 1 ? "faults" : st == 0 ? "finishes, no fault" : "hangs", sgpu_fault_name(f.reason), f.addr,
             cva, cacc, sgpu_fault_name(c->fault), want_addr, c->va, c->access);
      failures++;
    } else if (c->pa && chip_peek(sim, c->pa) != 0x55667788u) {
      printf("FAIL VM case '%s': the faulting packet wrote 0x%08x at 0x%08x\n", c->name, chip_peek(sim, c->pa), c->pa);
      failures++;
    }
    chip_ring_reset(&ring);
    chip_wr(sim, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
    if (chip_nrd(sim, 0, SGPU_NREG_FAULT_VA) || chip_nrd(sim, 0, SGPU_NREG_FAULT_ACCESS) || chip_nrd(sim, 0, SGPU_NREG_VM_ROOT)) {
      printf("FAIL VM case '%s': after RESET FAULT_VA 0x%08x FAULT_ACCESS 0x%x VM_ROOT 0x%08x, want 0\n", c->name,
             chip_nrd(sim, 0, SGPU_NREG_FAULT_VA), chip_nrd(sim, 0, SGPU_NREG_FAULT_ACCESS), chip_nrd(sim, 0, SGPU_NREG_VM_ROOT));
      failures++;
    }
  }
  printf("%zu VM cases, %d disagreements%s\n", sizeof vm_cases / sizeof vm_cases[0], failures,
         chip_vm ? "" : " (the checker's predictions only: the chip has no CAPS.VM)");
  sgpu_sim_destroy(sim);
  return failures;
}

static void put_dev(void *ctx, uint32_t addr, const uint32_t *words, size_t n) {
  sgpu_device *dev = ctx;
  int r = sgpu_write(dev, addr, words, (uint32_t)(4 * n));
  CHIP_CHECK(r == 0, "sgpu_write 0x%08x: %s", addr, sgpu_strerror(r));
}

static void put_raw(void *ctx, uint32_t addr, const uint32_t *words, size_t n) {
  CHIP_CHECK(sgpu_sim_backdoor_write(ctx, addr, words, (uint32_t)(4 * n)) == 0, "load 0x%08x", addr);
}

/* The packet address in a validation message ("... at address 0xADDR: ..."). */
static int parse_addr(const char *msg, uint32_t *addr) {
  const char *p = strstr(msg, "at address 0x");
  if (!p) return -1;
  *addr = (uint32_t)strtoul(p + strlen("at address "), NULL, 16);
  return 0;
}

static uint32_t fault_of_error(int rc) {
  for (uint32_t f = 1; f < SGPU_FAULT_COUNT; f++)
    if (sgpu__error_of_fault(f) == rc) return f;
  return SGPU_FAULT_NONE;
}

int main(int argc, char **argv) {
  uint32_t seeds = 1000, base = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--base") && i + 1 < argc) base = (uint32_t)strtoul(argv[++i], NULL, 0);
    else {
      fprintf(stderr, "usage: %s [--seeds N] [--base S]\n", argv[0]);
      return 2;
    }
  }
  sgpu_device *dev;
  int r = sgpu_open("sim", &dev);
  CHIP_CHECK(r == 0, "sgpu_open(sim): %s", sgpu_strerror(r));
  sgpu_info info;
  CHIP_CHECK(sgpu_query_info(dev, &info) == 0, "sgpu_query_info");
  /* the generated buffers live at fixed addresses: take that range of segment 1 */
  uint64_t span;
  r = sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, DG_SPAN_END - DG_SPAN_BASE, 0x100000, &span);
  CHIP_CHECK(r == 0 && span == DG_SPAN_BASE, "allocation of the span: %s at 0x%llx", sgpu_strerror(r),
             (unsigned long long)span);

  sgpu_sim *raw = chip_create(NULL);
  chip_ring ring;
  chip_ring_init(&ring, raw, 0, RAW_RING, 4096);
  const dg_limits lim = {info.mem_size, info.source_count};

  uint32_t fence[SGPU_MAX_NODES] = {0}, raw_fence = 0, accepted = 0, failures = 0;
  uint32_t rejected[SGPU_FAULT_COUNT] = {0};
  for (uint32_t i = 0; i < seeds; i++) {
    const uint32_t seed = base + i;
    dg_work w;
    dg_generate_buffer(&w, seed, &lim);
    const dg_pkt *cp = &w.seg[0].ring.p[0], *ind = &w.seg[0].ring.p[1];
    const uint32_t node = w.node % info.node_count, cmd = ind->ib_addr, len = dg_ib_len(ind);
    const int windowed = cp->w[1] != 0;
    dg_for_each_ib(&w, put_dev, dev);
    sgpu_context *ctx;
    r = windowed ? sgpu_create_context_windowed(dev, node, cp->w[2], cp->w[3], &ctx)
                 : sgpu_create_context(dev, node, &ctx);
    CHIP_CHECK(r == 0, "seed %u: context (window 0x%x+0x%x): %s: %s", seed, cp->w[2], cp->w[3],
               sgpu_strerror(r), sgpu_last_error(dev));
    sgpu_validate_submit_command_args va;
    memset(&va, 0, sizeof va);
    va.commands = cmd;
    va.command_length = len;
    va.context_count = 1;
    va.context[0] = ctx;
    const int rc = sgpu_validate_submit_command(dev, &va);
    char why[400];
    snprintf(why, sizeof why, "%s", sgpu_last_error(dev));
    if (rc == 0) {
      accepted++;
      sgpu_submit_command_args a;
      memset(&a, 0, sizeof a);
      a.context = ctx;
      a.dma_buffer_segment_id = SGPU_SEGMENT_LOCAL;
      a.dma_buffer_physical_address = cmd;
      a.dma_buffer_size = len;
      a.dma_buffer_submission_end_offset = len;
      a.submission_fence_id = ++fence[node];
      a.node_ordinal = node;
      r = sgpu_submit_command(dev, &a);
      if (r != 0) {
        printf("FAIL seed %u: validation accepted the buffer, submission rejected it: %s: %s\n", seed,
               sgpu_strerror(r), sgpu_last_error(dev));
        failures++;
        fence[node]--;
      } else {
        r = sgpu_wait_fence(dev, node, fence[node], 2000);
        sgpu_fence_info fi;
        CHIP_CHECK(sgpu_get_fence(dev, node, &fi) == 0, "sgpu_get_fence");
        if (r != 0 || fi.faulted) {
          sgpu_event ev;
          uint32_t reason = 0, addr = 0;
          while (sgpu_next_event(dev, &ev, 0) == 0)
            if (ev.type == SGPU_EVENT_DMA_FAULTED) {
              reason = ev.fault_reason;
              addr = ev.fault_address;
            }
          printf("FAIL seed %u: validation accepted the buffer at 0x%08x, the chip %s (fault %s at 0x%08x)\n", seed,
                 cmd, fi.faulted ? "faulted" : "did not finish", sgpu_fault_name(reason), addr);
          printf("  reproduce: %s --seeds 1 --base %u\n", argv[0], seed);
          failures++;
          sgpu_reset_from_timeout(dev);
        }
      }
    } else {
      const uint32_t want = fault_of_error(rc);
      uint32_t want_addr = 0;
      if (want == SGPU_FAULT_NONE || parse_addr(why, &want_addr) != 0) {
        printf("FAIL seed %u: validation returned %d (%s): %s\n", seed, rc, sgpu_strerror(rc), why);
        failures++;
      } else {
        rejected[want]++;
        /* the same buffers and window on a raw chip, the buffer at level 1 (the
         * data the buffers touch does not matter: their waits always hold) */
        dg_for_each_ib(&w, put_raw, raw);
        chip_buf rb;
        chip_buf_init(&rb);
        if (windowed) chip_pkt_context(&rb, sgpu_context_id(ctx), cp->w[2], cp->w[3]);
        else chip_pkt_context(&rb, 0, 0, 0);
        chip_pkt_indirect(&rb, cmd, len, ++raw_fence, 0);
        chip_pkt_fence(&rb, RAW_FENCE, raw_fence, 0);
        chip_submit(&ring, &rb);
        chip_buf_free(&rb);
        int st = chip_wait_idle(raw, 0, 400000);
        chip_fault f;
        chip_read_fault(raw, 0, &f);
        uint32_t want_header = 0;
        sgpu_read(dev, want_addr, &want_header, 4);
        if (st != 1 || f.reason != want || f.addr != want_addr || f.opcode != want_header) {
          printf("FAIL seed %u: validation says %s at 0x%08x (%s); the chip %s %s at 0x%08x\n", seed,
                 sgpu_fault_name(want), want_addr, why, st == 1 ? "faults" : st == 0 ? "runs to the end, no fault" : "hangs",
                 st == 1 ? sgpu_fault_name(f.reason) : "-", f.addr);
          printf("  reproduce: %s --seeds 1 --base %u\n", argv[0], seed);
          failures++;
        }
        chip_ring_reset(&ring);
        chip_wr(raw, SGPU_REG_INT_STATUS, 0xFFFFFFFFu);
      }
    }
    sgpu_destroy_context(ctx);
    dg_free(&w);
  }
  printf("%u buffers: %u accepted, %u rejected, %u disagreements\n", seeds, accepted, seeds - accepted, failures);
  chip_figure("validate_exact_accepted_per_1000", accepted * 1000.0 / seeds);
  int missing = 0;
  for (uint32_t f = 1; f < SGPU_FAULT_COUNT; f++) {
    if (sgpu__error_of_fault(f) == SGPU_ERROR_INVALID_PARAM || f == SGPU_FAULT_TIMEOUT || f == SGPU_FAULT_UNSUPPORTED) continue;
    /* the generated buffers run in physical contexts: page faults are the VM cases' */
    if (f == SGPU_FAULT_PAGE_NOT_PRESENT || f == SGPU_FAULT_PAGE_PROTECTION) continue;
    char name[80];
    snprintf(name, sizeof name, "validate_exact_rejected_per_1000_%s", sgpu_fault_name(f));
    chip_figure(name, rejected[f] * 1000.0 / seeds);
    if (!rejected[f]) missing++;
  }
  sgpu_sim_destroy(raw);
  sgpu_close(dev);
  failures += (uint32_t)vm_run_cases();
  if (seeds >= 200 && (missing || !accepted)) {
    printf("FAIL: %d rejection kinds never occurred%s\n", missing, accepted ? "" : ", nothing accepted");
    return 1;
  }
  if (failures) return 1;
  printf("test_validate_exact: PASS\n");
  return 0;
}
