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
    char name[80];
    snprintf(name, sizeof name, "validate_exact_rejected_per_1000_%s", sgpu_fault_name(f));
    chip_figure(name, rejected[f] * 1000.0 / seeds);
    if (!rejected[f]) missing++;
  }
  sgpu_sim_destroy(raw);
  sgpu_close(dev);
  if (seeds >= 200 && (missing || !accepted)) {
    printf("FAIL: %d rejection kinds never occurred%s\n", missing, accepted ? "" : ", nothing accepted");
    return 1;
  }
  if (failures) return 1;
  printf("test_validate_exact: PASS\n");
  return 0;
}
