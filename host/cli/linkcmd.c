/* linkcmd.c — the link parts of the CLI: `sgpu ping` and the link
 * statistics `sgpu info` shows (sgpu_ping, sgpu_get_link_stats). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define PING_MAX_COUNT 100000u

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int cmd_ping(cli *c, int argc, char **argv) {
  uint32_t count = 10, timeout_ms = 1000, interval_ms = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if ((m = cli_opt(c, argc, argv, &i, "--count", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &count) || count == 0 || count > PING_MAX_COUNT)
        return cli_fail(c, EXIT_USAGE, "bad --count '%s' (1..%u)", v, PING_MAX_COUNT);
    } else if ((m = cli_opt(c, argc, argv, &i, "--timeout", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &timeout_ms) || timeout_ms == 0 || timeout_ms > 60000)
        return cli_fail(c, EXIT_USAGE, "bad --timeout '%s' (1..60000 milliseconds)", v);
    } else if ((m = cli_opt(c, argc, argv, &i, "--interval", &v))) {
      if (m < 0) return EXIT_USAGE;
      if (!cli_parse_u32(v, &interval_ms) || interval_ms > 60000)
        return cli_fail(c, EXIT_USAGE, "bad --interval '%s' (0..60000 milliseconds)", v);
    } else {
      return cli_unexpected_arg(c, argv[i]);
    }
  }
  int rc = cli_open(c);
  if (rc) return rc;
  sgpu_link_stats before;
  rc = sgpu_get_link_stats(c->dev, &before);
  if (rc == SGPU_ERROR_NOT_SUPPORTED)
    return cli_fail(c, EXIT_DEVICE,
                    "device '%s' is the in-process model: there is no link to ping (ping a "
                    "link: tcp:HOST:PORT to sgpu-sim --listen, serial:, usb)",
                    c->uri ? c->uri : "sim");
  if (rc) return cli_lib_fail(c, rc, "reading the link statistics");
  uint32_t *rtt = calloc(count, sizeof *rtt);
  if (!rtt) return cli_fail(c, EXIT_DEVICE, "out of memory");
  uint32_t got = 0, lost = 0, mn = UINT32_MAX, mx = 0;
  uint64_t sum = 0;
  for (uint32_t k = 0; k < count; k++) {
    if (k && interval_ms) sleep_ms(interval_ms);
    uint32_t us = 0;
    int r = sgpu_ping(c->dev, timeout_ms, &us);
    if (r == SGPU_ERROR_TIMEOUT) {
      lost++;
      if (!c->json) fprintf(c->out, "ping %u: lost (%s)\n", k + 1, sgpu_last_error(c->dev));
      continue;
    }
    if (r) {
      free(rtt);
      return cli_lib_fail(c, r, "ping");
    }
    rtt[got++] = us;
    sum += us;
    if (us < mn) mn = us;
    if (us > mx) mx = us;
    if (!c->json) fprintf(c->out, "ping %u: %u us\n", k + 1, us);
  }
  sgpu_link_stats st;
  memset(&st, 0, sizeof st);
  sgpu_get_link_stats(c->dev, &st);
  sgpu_info in;
  memset(&in, 0, sizeof in);
  sgpu_query_info(c->dev, &in);
  double avg = got ? (double)sum / got : 0.0;
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "device", c->uri ? c->uri : "sim");
    json_str(&j, "transport", in.transport);
    json_u64(&j, "count", count);
    json_u64(&j, "received", got);
    json_u64(&j, "lost", lost);
    json_u64(&j, "min_us", got ? mn : 0);
    json_f64(&j, "avg_us", avg);
    json_u64(&j, "max_us", got ? mx : 0);
    json_arr(&j, "rtt_us");
    for (uint32_t k = 0; k < got; k++) json_u64(&j, NULL, rtt[k]);
    json_end_arr(&j);
    json_u64(&j, "timeout_ms", timeout_ms);
    json_end_obj(&j);
    json_finish(&j);
  } else {
    fprintf(c->out, "%u pings, %u answered, %u lost", count, got, lost);
    if (got) fprintf(c->out, "; round trip min/avg/max %u/%.1f/%u us", mn, avg, mx);
    fprintf(c->out, " (%s, %llu frames repeated)\n", in.transport,
            (unsigned long long)(st.retransmissions - before.retransmissions));
  }
  free(rtt);
  if (!got) return cli_fail(c, EXIT_GPU, "no answer to any of %u pings", count);
  return 0;
}

/* Link statistics for `sgpu info` (nothing on a device without a link). */
void cli_link_info(cli *c, json *j) {
  sgpu_link_stats st;
  if (sgpu_get_link_stats(c->dev, &st) != 0) return;
  double busy_s = (double)st.busy_us / 1e6;
  double wire_bps = busy_s > 0 ? (double)(st.bytes_sent + st.bytes_received) / busy_s : 0.0;
  double payload_bps =
      busy_s > 0 ? (double)(st.payload_sent + st.payload_received) / busy_s : 0.0;
  if (j) {
    json_obj(j, "link");
    json_u64(j, "frames_sent", st.frames_sent);
    json_u64(j, "frames_received", st.frames_received);
    json_u64(j, "retransmissions", st.retransmissions);
    json_u64(j, "timeouts", st.timeouts);
    json_u64(j, "naks", st.naks);
    json_u64(j, "crc_errors", st.crc_errors);
    json_u64(j, "rejected", st.rejected);
    json_u64(j, "duplicates", st.duplicates);
    json_u64(j, "events", st.events);
    json_u64(j, "events_missed", st.events_missed);
    json_u64(j, "bytes_sent", st.bytes_sent);
    json_u64(j, "bytes_received", st.bytes_received);
    json_u64(j, "payload_sent", st.payload_sent);
    json_u64(j, "payload_received", st.payload_received);
    json_u64(j, "elapsed_us", st.elapsed_us);
    json_u64(j, "busy_us", st.busy_us);
    json_f64(j, "bytes_per_second", wire_bps);
    json_f64(j, "payload_bytes_per_second", payload_bps);
    json_u64(j, "rtt_us", st.rtt_us);
    json_u64(j, "max_words", st.max_words);
    json_u64(j, "burst_words", st.burst_words);
    json_u64(j, "baud", st.baud);
    json_u64(j, "version", st.version);
    json_u64(j, "window_bytes", st.window_bytes);
    json_u64(j, "in_flight_max", st.in_flight_max);
    json_u64(j, "out_of_order", st.out_of_order);
    json_u64(j, "renumbered", st.renumbered);
    json_u64(j, "refused", st.refused);
    json_end_obj(j);
    return;
  }
  FILE *f = c->out;
  fprintf(f, "link:        %llu frames sent, %llu received, %llu retransmissions, %llu timeouts, "
             "%llu NAKs, %llu CRC errors, %llu duplicates\n",
          (unsigned long long)st.frames_sent, (unsigned long long)st.frames_received,
          (unsigned long long)st.retransmissions, (unsigned long long)st.timeouts,
          (unsigned long long)st.naks, (unsigned long long)st.crc_errors,
          (unsigned long long)st.duplicates);
  fprintf(f, "link bytes:  %llu sent, %llu received (%llu and %llu of data) in %.3f s busy: "
             "%.0f bytes/s on the wire, %.0f of data\n",
          (unsigned long long)st.bytes_sent, (unsigned long long)st.bytes_received,
          (unsigned long long)st.payload_sent, (unsigned long long)st.payload_received, busy_s,
          wire_bps, payload_bps);
  fprintf(f, "link frames: up to %u words (now %u), round trip %u us",
          st.max_words, st.burst_words, st.rtt_us);
  if (st.baud) fprintf(f, ", %u baud", st.baud);
  fprintf(f, "\n");
  if (st.window_bytes)
    fprintf(f, "link window: version %u, %u request bytes in flight at most, up to %u frames in "
               "flight so far, %llu out of order, %llu renumbered\n",
            st.version, st.window_bytes, st.in_flight_max, (unsigned long long)st.out_of_order,
            (unsigned long long)st.renumbered);
  else
    fprintf(f, "link window: version %u, one frame in flight\n", st.version);
}
