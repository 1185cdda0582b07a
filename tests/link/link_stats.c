/* link_stats URI_A URI_B — the link counters are per device, and sgpu_ping
 * and sgpu_get_link_stats refuse what they should.  Two link devices in one
 * process: pings and accesses on one never move the other's counters; on a
 * clean link every frame sent is answered (frames_received = frames_sent,
 * no retransmission, NAK, timeout or CRC error) and its bytes are what the
 * frame format says (a PING is 14 bytes out and 14 back; a 1-word READ 14
 * out and 14 back; a 1-word WRITE 18 out and 10 back).  Exit 0, or 1 with
 * "FAIL reason" lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgpu.h"
#include "sgpu_hw.h"

static int fails;
#define EXPECT(cond, ...)                          \
  do {                                             \
    if (!(cond)) {                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);  \
      printf(__VA_ARGS__);                         \
      printf("\n");                                \
      fails++;                                     \
    }                                              \
  } while (0)

static sgpu_device *open_or_die(const char *uri) {
  sgpu_device *d = NULL;
  char msg[256];
  int r = sgpu_open_detail(uri, &d, msg, sizeof msg);
  if (r) {
    printf("FAIL open %s: %s: %s\n", uri, sgpu_strerror(r), msg);
    exit(1);
  }
  return d;
}

static sgpu_link_stats get(sgpu_device *d) {
  sgpu_link_stats s;
  memset(&s, 0xAB, sizeof s);
  int r = sgpu_get_link_stats(d, &s);
  EXPECT(r == 0, "sgpu_get_link_stats: %s", sgpu_strerror(r));
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: link_stats URI_A URI_B\n");
    return 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  sgpu_device *a = open_or_die(argv[1]), *b = open_or_die(argv[2]);

  /* argument checks */
  uint32_t us = 0;
  EXPECT(sgpu_ping(NULL, 100, &us) == SGPU_ERROR_INVALID_PARAM, "ping of NULL device");
  EXPECT(sgpu_ping(a, 100, NULL) == SGPU_ERROR_INVALID_PARAM, "ping with NULL rtt");
  EXPECT(sgpu_ping(a, 0, &us) == SGPU_ERROR_INVALID_PARAM, "ping with timeout 0");
  EXPECT(strstr(sgpu_last_error(a), "1..60000") != NULL, "message '%s'", sgpu_last_error(a));
  EXPECT(sgpu_ping(a, 60001, &us) == SGPU_ERROR_INVALID_PARAM, "ping with timeout 60001");
  EXPECT(sgpu_get_link_stats(a, NULL) == SGPU_ERROR_INVALID_PARAM, "stats into NULL");
  EXPECT(sgpu_get_link_stats(NULL, NULL) == SGPU_ERROR_INVALID_PARAM, "stats of NULL");

  sgpu_link_stats a0 = get(a), b0 = get(b);
  EXPECT(a0.frames_sent > 0 && a0.frames_received == a0.frames_sent,
         "after open: %llu frames sent, %llu received", (unsigned long long)a0.frames_sent,
         (unsigned long long)a0.frames_received);
  EXPECT(a0.max_words == SGPU_LINK_MAX_WORDS, "max_words %u", a0.max_words);
  EXPECT(a0.baud == 0, "tcp: baud %u", a0.baud);

  /* 5 pings on A, one 1-word WRITE and READ on B */
  for (int i = 0; i < 5; i++) {
    int r = sgpu_ping(a, 5000, &us);
    EXPECT(r == 0, "ping %d: %s (%s)", i, sgpu_strerror(r), sgpu_last_error(a));
  }
  uint32_t v = 0x600DF00D, back = 0;
  EXPECT(sgpu_reg_write(b, SGPU_REG_SCRATCH, v) == 0, "scratch write on B");
  EXPECT(sgpu_reg_read(b, SGPU_REG_SCRATCH, &back) == 0 && back == v, "scratch read on B");

  sgpu_link_stats a1 = get(a), b1 = get(b);
  EXPECT(a1.pings - a0.pings == 5 && a1.pings_lost == a0.pings_lost, "A: %llu pings, %llu lost",
         (unsigned long long)(a1.pings - a0.pings), (unsigned long long)(a1.pings_lost - a0.pings_lost));
  EXPECT(a1.frames_sent - a0.frames_sent == 5, "A: %llu frames for 5 pings",
         (unsigned long long)(a1.frames_sent - a0.frames_sent));
  EXPECT(a1.bytes_sent - a0.bytes_sent == 5u * 14u && a1.bytes_received - a0.bytes_received == 5u * 14u,
         "A: %llu bytes out, %llu back for 5 pings (want 70 and 70)",
         (unsigned long long)(a1.bytes_sent - a0.bytes_sent),
         (unsigned long long)(a1.bytes_received - a0.bytes_received));
  EXPECT(b1.pings == b0.pings && b1.pings == 0, "B's ping counter moved: %llu",
         (unsigned long long)b1.pings);
  EXPECT(b1.frames_sent - b0.frames_sent == 2, "B: %llu frames for a write and a read",
         (unsigned long long)(b1.frames_sent - b0.frames_sent));
  EXPECT(b1.bytes_sent - b0.bytes_sent == 18u + 14u && b1.bytes_received - b0.bytes_received == 10u + 14u,
         "B: %llu bytes out, %llu back (want 32 and 24)",
         (unsigned long long)(b1.bytes_sent - b0.bytes_sent),
         (unsigned long long)(b1.bytes_received - b0.bytes_received));
  EXPECT(b1.payload_sent - b0.payload_sent == 4 && b1.payload_received - b0.payload_received == 4,
         "B: payload %llu out, %llu back", (unsigned long long)(b1.payload_sent - b0.payload_sent),
         (unsigned long long)(b1.payload_received - b0.payload_received));
  EXPECT(a1.frames_received == a1.frames_sent, "A: %llu sent, %llu received",
         (unsigned long long)a1.frames_sent, (unsigned long long)a1.frames_received);
  EXPECT(a1.retransmissions + a1.naks + a1.timeouts + a1.crc_errors + a1.rejected + a1.duplicates ==
             0,
         "clean link A has errors");
  EXPECT(a1.busy_us <= a1.elapsed_us && a1.busy_us > 0, "busy %llu of %llu us",
         (unsigned long long)a1.busy_us, (unsigned long long)a1.elapsed_us);
  EXPECT(a1.rtt_us > 0, "no round trip measured");

  /* the in-process model has no link */
  sgpu_device *s = open_or_die("sim");
  sgpu_link_stats st;
  EXPECT(sgpu_get_link_stats(s, &st) == SGPU_ERROR_NOT_SUPPORTED, "sim has link stats");
  EXPECT(sgpu_ping(s, 100, &us) == SGPU_ERROR_NOT_SUPPORTED, "sim answers a ping");
  EXPECT(strstr(sgpu_last_error(s), "no link") != NULL, "sim ping message: '%s'",
         sgpu_last_error(s));
  sgpu_close(s);

  sgpu_close(a);
  sgpu_close(b);
  if (fails) return 1;
  printf("ok link counters per device, ping and refusals\n");
  return 0;
}
