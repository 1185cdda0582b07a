/* link_upload URI BYTES [MODE] — upload BYTES of a pseudo-random pattern to
 * GPU memory, read it back, compare; then a doorbell count check: a series
 * of submissions each writing its fence must complete exactly once each.
 * Prints link statistics and FIGURE lines.  MODE "kill" prints "UPLOADING"
 * and keeps uploading until a call fails, then reports the error code and
 * how long the failing call took. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgpu.h"
#include "sgpu_hw.h"

/* the chip's CYCLE counter (low word): simulated time on sgpu-sim */
static uint32_t cycle_lo(sgpu_device *dev) {
  uint32_t v = 0;
  sgpu_reg_read(dev, SGPU_REG_CYCLE_LO, &v);
  return v;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: link_upload URI BYTES [kill]\n");
    return 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0);
  int kill_mode = argc > 3 && !strcmp(argv[3], "kill");
  sgpu_device *dev;
  char msg[256];
  int r = sgpu_open_detail(argv[1], &dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "open %s: %s: %s\n", argv[1], sgpu_strerror(r), msg);
    return 1;
  }
  uint8_t *a = malloc(n), *b = malloc(n);
  uint32_t s = 12345;
  for (uint32_t i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    a[i] = (uint8_t)(s >> 16);
  }
  const uint32_t base = 0x200000;
  if (kill_mode) {
    printf("UPLOADING\n");
    fflush(stdout);
    for (;;) {
      double t0 = now_s();
      r = sgpu_write(dev, base, a, n);
      double dt = now_s() - t0;
      if (r) {
        printf("error %d %s after %.3f s: %s\n", r, sgpu_strerror(r), dt, sgpu_last_error(dev));
        double t1 = now_s();
        int r2 = sgpu_write(dev, base, a, 4);
        printf("next call: %d after %.3f s\n", r2, now_s() - t1);
        sgpu_close(dev);
        free(a);
        free(b);
        return r == SGPU_ERROR_IO ? 0 : 1;
      }
    }
  }
  sgpu_link_stats st0, st1, st2;
  memset(&st0, 0, sizeof st0);
  sgpu_get_link_stats(dev, &st0);
  uint32_t c0 = cycle_lo(dev);
  double t0 = now_s();
  r = sgpu_write(dev, base, a, n);
  if (r) {
    fprintf(stderr, "upload: %s: %s\n", sgpu_strerror(r), sgpu_last_error(dev));
    sgpu_close(dev);
    free(a);
    free(b);
    return 1;
  }
  double t1 = now_s();
  memset(&st1, 0, sizeof st1);
  sgpu_get_link_stats(dev, &st1);
  uint32_t c1 = cycle_lo(dev);
  double t1r = now_s();
  r = sgpu_read(dev, base, b, n);
  if (r) {
    fprintf(stderr, "read back: %s: %s\n", sgpu_strerror(r), sgpu_last_error(dev));
    return 1;
  }
  if (memcmp(a, b, n)) {
    for (uint32_t i = 0; i < n; i++)
      if (a[i] != b[i]) {
        fprintf(stderr, "read back differs at byte %u: %02x, want %02x\n", i, b[i], a[i]);
        /* the write or the read?  read those words again */
        uint32_t w0 = i & ~15u, again[4];
        for (int k = 0; k < 3; k++)
          if (sgpu_read(dev, base + w0, again, 16) == 0)
            fprintf(stderr, "again at %u: %08x %08x %08x %08x (wrote %08x %08x %08x %08x, first read "
                    "%08x %08x %08x %08x)\n", w0, again[0], again[1], again[2], again[3],
                    ((uint32_t *)(a + w0))[0], ((uint32_t *)(a + w0))[1], ((uint32_t *)(a + w0))[2],
                    ((uint32_t *)(a + w0))[3], ((uint32_t *)(b + w0))[0], ((uint32_t *)(b + w0))[1],
                    ((uint32_t *)(b + w0))[2], ((uint32_t *)(b + w0))[3]);
        break;
      }
    return 1;
  }
  double t2 = now_s();
  uint32_t c2 = cycle_lo(dev);
  memset(&st2, 0, sizeof st2);
  sgpu_get_link_stats(dev, &st2);
  printf("upload of %u bytes read back identical (%.2f s)\n", n, t1 - t0);
  /* "figure NAME VALUE": the upload, then the read back (simulated cycles
   * from the chip's CYCLE counter, at SGPU_NOMINAL_CLOCK_HZ) */
  printf("figure upload_wall_s %.2f\nfigure upload_cycles %u\n", t1 - t0, c1 - c0);
  printf("figure upload_frames %llu\nfigure upload_repeats %llu\nfigure upload_naks %llu\n"
         "figure upload_timeouts %llu\n",
         (unsigned long long)(st1.frames_sent - st0.frames_sent),
         (unsigned long long)(st1.retransmissions - st0.retransmissions),
         (unsigned long long)(st1.naks - st0.naks), (unsigned long long)(st1.timeouts - st0.timeouts));
  printf("figure upload_payload_Bps_wall %.0f\nfigure upload_payload_Bps_sim %.0f\n",
         n / (t1 - t0), n / ((double)(uint32_t)(c1 - c0) / SGPU_NOMINAL_CLOCK_HZ));
  printf("figure readback_wall_s %.2f\nfigure readback_cycles %u\n", t2 - t1r, c2 - c1);
  printf("figure readback_frames %llu\nfigure readback_repeats %llu\n",
         (unsigned long long)(st2.frames_sent - st1.frames_sent),
         (unsigned long long)(st2.retransmissions - st1.retransmissions));
  printf("figure readback_payload_Bps_wall %.0f\nfigure readback_payload_Bps_sim %.0f\n",
         n / (t2 - t1r), n / ((double)(uint32_t)(c2 - c1) / SGPU_NOMINAL_CLOCK_HZ));
  printf("figure upload_in_flight_max %u\n", st1.in_flight_max);
  printf("window: link version %u, %u request bytes, up to %u frames in flight, %llu out of order, "
         "%llu renumbered\n",
         st1.version, st1.window_bytes, st1.in_flight_max, (unsigned long long)st1.out_of_order,
         (unsigned long long)st1.renumbered);
  uint64_t wire = st1.bytes_sent - st0.bytes_sent;
  if (wire)
    printf("upload: %llu frames (%llu repeated), %llu wire bytes for %u payload bytes: %.3f\n",
           (unsigned long long)(st1.frames_sent - st0.frames_sent),
           (unsigned long long)(st1.retransmissions - st0.retransmissions), (unsigned long long)wire, n,
           (double)n / (double)wire);

  /* exactly-once: K submissions each increment a counter through WRITE_DATA
   * of (i+1) at a slot; every slot must hold its own value, every fence come */
  sgpu_context *ctx;
  if (sgpu_create_context(dev, 0, &ctx)) return 1;
  uint64_t hb;
  if (sgpu_alloc(dev, 0, 64, 16, &hb)) return 1;
  const uint32_t K = 40, slots = 0x300000;
  uint32_t zeros[40] = {0};
  if (sgpu_write(dev, slots, zeros, sizeof zeros)) return 1;
  sgpu_get_link_stats(dev, &st0);
  double ts = now_s();
  uint32_t done = 0;
  for (uint32_t i = 0; i < K; i++) {
    uint32_t w[4];
    sgpu_cmdbuf cb;
    sgpu_cmdbuf_init(&cb, w, sizeof w);
    uint32_t v = i + 1;
    sgpu_cmd_write_data(&cb, slots + 4 * i, &v, 1);
    if ((r = sgpu_write(dev, hb, w, sgpu_cmdbuf_size(&cb)))) break;
    sgpu_submit_command_args sa;
    memset(&sa, 0, sizeof sa);
    sa.context = ctx;
    sa.dma_buffer_physical_address = hb;
    sa.dma_buffer_size = 64;
    sa.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(&cb);
    sa.submission_fence_id = i + 1;
    if ((r = sgpu_submit_command(dev, &sa))) break;
  }
  if (!r) r = sgpu_wait_fence(dev, 0, K, 60000);
  double te = now_s();
  sgpu_get_link_stats(dev, &st1);
  if (r) {
    fprintf(stderr, "submissions: %s: %s\n", sgpu_strerror(r), sgpu_last_error(dev));
    return 1;
  }
  sgpu_event ev;
  while (sgpu_next_event(dev, &ev, 0) == 0)
    if (ev.type == SGPU_EVENT_DMA_COMPLETED) done++;
  uint32_t got[40];
  if (sgpu_read(dev, slots, got, sizeof got)) return 1;
  for (uint32_t i = 0; i < K; i++)
    if (got[i] != i + 1) {
      fprintf(stderr, "slot %u holds %u, want %u\n", i, got[i], i + 1);
      return 1;
    }
  sgpu_fence_info fi;
  sgpu_get_fence(dev, 0, &fi);
  if (done != K || fi.completed != K || fi.faulted) {
    fprintf(stderr, "%u completion events, completed %llu, want %u\n", done,
            (unsigned long long)fi.completed, K);
    return 1;
  }
  printf("%u submissions: every write applied once, %u completion events, fence %llu\n", K, done,
         (unsigned long long)fi.completed);
  printf("submissions: %.1f per second, %.1f wire bytes and %.2f frames each (incl. upload of the "
         "command buffer and the fence wait)\n",
         K / (te - ts), (double)(st1.bytes_sent - st0.bytes_sent) / K,
         (double)(st1.frames_sent - st0.frames_sent) / K);
  printf("link: %llu frames, %llu repeated, %llu naks, %llu timeouts, %llu duplicates, %llu events "
         "(%llu missed), %llu rejected\n",
         (unsigned long long)st1.frames_sent, (unsigned long long)st1.retransmissions,
         (unsigned long long)st1.naks, (unsigned long long)st1.timeouts,
         (unsigned long long)st1.duplicates, (unsigned long long)st1.events,
         (unsigned long long)st1.events_missed, (unsigned long long)st1.rejected);
  sgpu_destroy_context(ctx);
  sgpu_close(dev);
  free(a);
  free(b);
  return 0;
}
