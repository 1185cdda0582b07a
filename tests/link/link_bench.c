/* link_bench URI BYTES READS — the host link's efficiency, measured on the
 * device's clock (the chip's CYCLE counter, SGPU_NOMINAL_CLOCK_HZ) and on
 * the wall clock: an upload and a download of BYTES, READS register reads
 * one after the other.  Prints "name value" lines (tests/link/bench_link.sh
 * turns them into FIGURE lines and docs/figures.md's "Host link" table).
 * Not a test: nothing is asserted but that the data read back is what was
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgpu.h"
#include "sgpu_hw.h"

static sgpu_device *dev;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int r) {
  fprintf(stderr, "link_bench: %s: %s: %s\n", what, sgpu_strerror(r), sgpu_last_error(dev));
  exit(1);
}

/* The chip's cycle counter, low word (one register read: its value is
 * latched when the bridge executes the read). */
static uint32_t cycle32(void) {
  uint32_t v = 0;
  int r = sgpu_reg_read(dev, SGPU_REG_CYCLE_LO, &v);
  if (r) die("reading CYCLE_LO", r);
  return v;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: link_bench URI BYTES READS\n");
    return 1;
  }
  uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0), reads = (uint32_t)strtoul(argv[3], NULL, 0);
  if (n == 0 || n % 4 || reads == 0) {
    fprintf(stderr, "link_bench: BYTES a positive multiple of 4, READS positive\n");
    return 1;
  }
  char msg[256];
  int r = sgpu_open_detail(argv[1], &dev, msg, sizeof msg);
  if (r) {
    fprintf(stderr, "link_bench: open %s: %s: %s\n", argv[1], sgpu_strerror(r), msg);
    return 1;
  }
  const double hz = SGPU_NOMINAL_CLOCK_HZ;
  uint8_t *a = malloc(n), *b = malloc(n);
  if (!a || !b) return 1;
  uint32_t s = 99;
  for (uint32_t i = 0; i < n; i++) a[i] = (uint8_t)((s = s * 1103515245u + 12345u) >> 16);
  const uint32_t base = 0x300000;
  sgpu_link_stats s0, s1, s2;

  /* upload */
  sgpu_get_link_stats(dev, &s0);
  uint32_t c0 = cycle32();
  double t0 = now_s();
  if ((r = sgpu_write(dev, base, a, n))) die("upload", r);
  double t1 = now_s();
  uint32_t c1 = cycle32();
  sgpu_get_link_stats(dev, &s1);
  /* download */
  uint32_t c2 = cycle32();
  double t2 = now_s();
  if ((r = sgpu_read(dev, base, b, n))) die("download", r);
  double t3 = now_s();
  uint32_t c3 = cycle32();
  sgpu_get_link_stats(dev, &s2);
  if (memcmp(a, b, n)) {
    fprintf(stderr, "link_bench: the download differs from the upload\n");
    return 1;
  }
  /* register reads, one after the other: between the two CYCLE reads lie
   * reads + 1 round trips */
  uint32_t c4 = cycle32();
  double t4 = now_s();
  for (uint32_t i = 0; i < reads; i++) {
    uint32_t v;
    if ((r = sgpu_reg_read(dev, SGPU_REG_SCRATCH, &v))) die("register read", r);
  }
  double t5 = now_s();
  uint32_t c5 = cycle32();

  /* each CYCLE read is one round trip inside the interval too (about half
   * of it: the value is latched mid-way); small against BYTES of transfer */
  double up_sim = (double)(uint32_t)(c1 - c0) / hz, down_sim = (double)(uint32_t)(c3 - c2) / hz;
  printf("bytes %u\n", n);
  printf("upload_wire_bytes %llu\n", (unsigned long long)(s1.bytes_sent - s0.bytes_sent));
  printf("upload_answer_bytes %llu\n", (unsigned long long)(s1.bytes_received - s0.bytes_received));
  printf("upload_frames %llu\n", (unsigned long long)(s1.frames_sent - s0.frames_sent));
  printf("upload_repeats %llu\n", (unsigned long long)(s1.retransmissions - s0.retransmissions));
  printf("upload_in_flight_max %u\n", s1.in_flight_max);
  printf("upload_sim_s %.6f\n", up_sim);
  printf("upload_wall_s %.6f\n", t1 - t0);
  printf("upload_payload_Bps_sim %.0f\n", n / up_sim);
  printf("upload_payload_Bps_wall %.0f\n", n / (t1 - t0));
  printf("download_wire_bytes %llu\n", (unsigned long long)(s2.bytes_received - s1.bytes_received));
  printf("download_request_bytes %llu\n", (unsigned long long)(s2.bytes_sent - s1.bytes_sent));
  printf("download_repeats %llu\n", (unsigned long long)(s2.retransmissions - s1.retransmissions));
  printf("download_sim_s %.6f\n", down_sim);
  printf("download_wall_s %.6f\n", t3 - t2);
  printf("download_payload_Bps_sim %.0f\n", n / down_sim);
  printf("download_payload_Bps_wall %.0f\n", n / (t3 - t2));
  printf("reg_read_rtt_us_sim %.2f\n", (double)(uint32_t)(c5 - c4) / (reads + 1) / hz * 1e6);
  printf("reg_read_rtt_us_wall %.1f\n", (t5 - t4) / reads * 1e6);
  printf("reg_read_rtt_cycles %.0f\n", (double)(uint32_t)(c5 - c4) / (reads + 1));
  sgpu_close(dev);
  free(a);
  free(b);
  return 0;
}
