/* transport.c — device URIs, all of their parsing, and the transport each
 * one opens (transport.h).
 *
 * `sim` opens the in-process Verilator model (transport_sim.c); a library
 * built with SGPU_NO_SIM (`make nosim`) has no model and refuses it.
 * `tcp`, `serial` and `usb` run the link client (link.c) over a socket, a
 * serial port (link_chan.c) or a board's FTDI chip (transport_usb.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "transport.h"
#include "transport_sim.h"

/* tcp: link timing on a noisy line (sgpu_link_options): the answer
 * timeout's floor and the quiet after a broken answer, in ms of wall time
 * (docs/link-protocol.md) */
#define LINK_TCP_ACK_NOISY_MS 1u
#define LINK_TCP_GAP_MS 1u


/* ------------------------------------------------------------ URI parsing */
static int parse_u32(const char *s, size_t len, uint32_t *out, uint32_t max) {
  char buf[24];
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, s, len);
  buf[len] = 0;
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)buf[i])) return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(buf, &end, 0);
  if (errno || *end || v > max) return -1;
  *out = (uint32_t)v;
  return 0;
}

static int parse_hex4(const char *s, size_t len, uint32_t *out) {
  if (len != 4) return -1;
  uint32_t v = 0;
  for (size_t i = 0; i < 4; i++) {
    int c = (unsigned char)s[i];
    if (!isxdigit(c)) return -1;
    v = v * 16 + (uint32_t)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
  }
  *out = v;
  return 0;
}

#define FAILMSG(code, ...)                    \
  do {                                        \
    if (msg) snprintf(msg, msg_size, __VA_ARGS__); \
    return (code);                            \
  } while (0)

/* Options every transport takes: what the library programs at open.
 *   video=tiny|vga   the display timing (tiny: 64x48, fast in simulation)
 *   watchdog=CYCLES  each node's watchdog (0 disables) */
static int open_option(const char *key, size_t klen, const char *val, size_t vlen,
                       sgpu_open_options *o, const char *what, char *msg, size_t msg_size) {
  uint32_t v = 0;
  if (klen == 5 && memcmp(key, "video", 5) == 0) {
    if (vlen == 4 && memcmp(val, "tiny", 4) == 0)
      o->video_tiny = 1;
    else if (vlen == 3 && memcmp(val, "vga", 3) == 0)
      o->video_tiny = 0;
    else
      FAILMSG(SGPU_ERROR_INVALID_URI, "%s video='%.*s' is not tiny or vga", what, (int)vlen, val);
    o->video_set = 1;
    return 0;
  }
  if (klen == 8 && memcmp(key, "watchdog", 8) == 0) {
    if (parse_u32(val, vlen, &v, SGPU_NREG_WATCHDOG_MAX))
      FAILMSG(SGPU_ERROR_INVALID_URI, "%s watchdog='%.*s' is not a cycle count up to %u", what,
              (int)vlen, val, SGPU_NREG_WATCHDOG_MAX);
    o->watchdog = v;
    o->watchdog_set = 1;
    return 0;
  }
  /* the callers pass only the keys above */
  FAILMSG(SGPU_ERROR_INVALID_URI, "unknown %s '%.*s'", what, (int)klen, key);
}

/* ",OPT=V,OPT=V" after a link URI (tcp:, serial:, usb): open options only. */
static int link_options(const char *uri, const char *opts, sgpu_open_options *o, char *msg,
                        size_t msg_size) {
  const char *p = opts;
  if (!*p) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': empty option after ','", uri);
  while (p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': option '%.*s' is not KEY=VALUE", uri, (int)len, p);
    size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
    if (klen == 6 && memcmp(p, "window", 6) == 0) {
      /* a version-3 device's window: auto (pipeline when the measured round
       * trips say it carries more), on (always), off (one frame in flight);
       * on and off are there to compare */
      if (vlen == 4 && memcmp(eq + 1, "auto", 4) == 0)
        o->link_window = SGPU_LINK_WINDOW_AUTO;
      else if (vlen == 2 && memcmp(eq + 1, "on", 2) == 0)
        o->link_window = SGPU_LINK_WINDOW_ON;
      else if (vlen == 3 && memcmp(eq + 1, "off", 3) == 0)
        o->link_window = SGPU_LINK_WINDOW_OFF;
      else
        FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': window='%.*s' is not auto, on or off", uri,
                (int)vlen, eq + 1);
    } else if (klen == 6 && memcmp(p, "giveup", 6) == 0) {
      /* how long a frame may go without any sign of the device before the
       * link counts as lost: a slow device (a model on a loaded machine)
       * wants more than the default, SGPU_LINK_GIVEUP_DEFAULT_MS */
      uint32_t ms = 0;
      if (parse_u32(eq + 1, vlen, &ms, SGPU_LINK_GIVEUP_MAX_MS) || ms < SGPU_LINK_GIVEUP_MIN_MS)
        FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': giveup='%.*s' is not %u..%u milliseconds", uri,
                (int)vlen, eq + 1, SGPU_LINK_GIVEUP_MIN_MS, SGPU_LINK_GIVEUP_MAX_MS);
      o->link_giveup_ms = ms;
    } else if ((klen == 5 && memcmp(p, "video", 5) == 0) ||
               (klen == 8 && memcmp(p, "watchdog", 8) == 0)) {
      int e = open_option(p, klen, eq + 1, vlen, o, "option", msg, msg_size);
      if (e) return e;
    } else {
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': unknown option '%.*s' (giveup, video, watchdog, window)",
              uri, (int)klen, p);
    }
    p = comma ? comma + 1 : NULL;
    if (comma && !*p) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': empty option after ','", uri);
  }
  return 0;
}

static int open_sim(const char *opts, sgpu_transport **tr, sgpu_open_options *o, char *msg,
                    size_t msg_size) {
  sgpu_sim_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.mem_latency = 1;
  char trace[512] = "";
  const char *p = opts;
  while (p && *p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq)
      FAILMSG(SGPU_ERROR_INVALID_URI, "sim option '%.*s' is not KEY=VALUE", (int)len, p);
    size_t klen = (size_t)(eq - p);
    const char *val = eq + 1;
    size_t vlen = len - klen - 1;
    uint32_t v = 0;
#define KEY(k) (klen == strlen(k) && memcmp(p, k, klen) == 0)
    if (KEY("latency")) {
      if (parse_u32(val, vlen, &v, 1000) || v < 1)
        FAILMSG(SGPU_ERROR_INVALID_URI, "sim option latency='%.*s' is not 1..1000", (int)vlen, val);
      cfg.mem_latency = v;
    } else if (KEY("stall")) {
      if (parse_u32(val, vlen, &v, 100))
        FAILMSG(SGPU_ERROR_INVALID_URI, "sim option stall='%.*s' is not 0..100", (int)vlen, val);
      cfg.stall_percent = v;
    } else if (KEY("seed")) {
      if (parse_u32(val, vlen, &v, UINT32_MAX))
        FAILMSG(SGPU_ERROR_INVALID_URI, "sim option seed='%.*s' is not a 32-bit number", (int)vlen,
                val);
      cfg.seed = v;
    } else if (KEY("trace")) {
      if (vlen == 0 || vlen >= sizeof trace)
        FAILMSG(SGPU_ERROR_INVALID_URI, "sim option trace= needs a file name (.vcd or .fst)");
      if (!(vlen > 4 && (memcmp(val + vlen - 4, ".vcd", 4) == 0 ||
                         memcmp(val + vlen - 4, ".fst", 4) == 0)))
        FAILMSG(SGPU_ERROR_INVALID_URI, "sim option trace='%.*s' must end in .vcd or .fst",
                (int)vlen, val);
      memcpy(trace, val, vlen);
      trace[vlen] = 0;
      cfg.trace_path = trace;
    } else if (KEY("video") || KEY("watchdog")) {
      int e = open_option(p, klen, val, vlen, o, "sim option", msg, msg_size);
      if (e) return e;
    } else {
      FAILMSG(SGPU_ERROR_INVALID_URI,
              "unknown sim option '%.*s' (latency, stall, seed, trace, video, watchdog)", (int)klen,
              p);
    }
#undef KEY
    p = comma ? comma + 1 : NULL;
    if (comma && !*p) FAILMSG(SGPU_ERROR_INVALID_URI, "empty sim option after ','");
  }
  return sgpu__sim_transport_open(&cfg, tr, msg, msg_size);
}

/* What the URI's options set in every link's options; the rest stays 0
 * (the link's defaults) for each transport to fill. */
static void link_open_options(const sgpu_open_options *o, sgpu_link_options *lo) {
  memset(lo, 0, sizeof *lo);
  lo->window = o->link_window;
  lo->giveup_ms = o->link_giveup_ms;
}

/* usb[:VID:PID[:SERIAL]][@BAUD] */
static int open_usb(const char *uri, sgpu_transport **tr, const sgpu_open_options *o, char *msg,
                    size_t msg_size) {
  const char *at = strchr(uri, '@');
  size_t len = at ? (size_t)(at - uri) : strlen(uri);
  uint32_t baud = 0, vid = 0, pid = 0;
  if (at && (parse_u32(at + 1, strlen(at + 1), &baud, 20000000) || baud < 300))
    FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': baud rate '%s' is not 300..20000000", uri, at + 1);
  char serial[64];
  int have_serial = 0;
  if (len > 3) { /* ":VID:PID[:SERIAL]" */
    const char *v = uri + 4, *end = uri + len;
    const char *c1 = memchr(v, ':', (size_t)(end - v));
    if (!c1 || parse_hex4(v, (size_t)(c1 - v), &vid))
      FAILMSG(SGPU_ERROR_INVALID_URI,
              "URI '%s': expected usb:VID:PID[:SERIAL] with VID and PID of 4 hex digits", uri);
    const char *p = c1 + 1;
    const char *c2 = memchr(p, ':', (size_t)(end - p));
    size_t plen = c2 ? (size_t)(c2 - p) : (size_t)(end - p);
    if (parse_hex4(p, plen, &pid))
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': PID '%.*s' is not 4 hex digits", uri, (int)plen,
              p);
    if (vid == 0 && pid == 0)
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': VID:PID 0000:0000 names no device", uri);
    if (c2) {
      size_t slen = (size_t)(end - c2 - 1);
      if (slen == 0) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': empty serial number", uri);
      if (slen >= sizeof serial)
        FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': serial number longer than %zu characters", uri,
                sizeof serial - 1);
      for (size_t i = 0; i < slen; i++)
        if (c2[1 + i] <= ' ' || c2[1 + i] > '~' || c2[1 + i] == ':')
          FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': bad character in serial number", uri);
      memcpy(serial, c2 + 1, slen);
      serial[slen] = 0;
      have_serial = 1;
    }
  }
  sgpu_link_chan ch;
  int r = sgpu_link_chan_usb((uint16_t)vid, (uint16_t)pid, have_serial ? serial : NULL, &baud, &ch,
                             msg, msg_size);
  if (r) return r;
  sgpu_link_options lo;
  link_open_options(o, &lo);
  lo.bytes_per_sec = baud / 10;
  return sgpu_link_open("usb", &ch, &lo, tr, msg, msg_size);
}

int sgpu_transport_open(const char *uri, sgpu_transport **tr, sgpu_open_options *o, char *msg,
                        size_t msg_size) {
  memset(o, 0, sizeof *o);
  if (msg && msg_size) msg[0] = 0;
  if (!uri || !*uri || strcmp(uri, "sim") == 0) return open_sim(NULL, tr, o, msg, msg_size);
  if (strncmp(uri, "sim:", 4) == 0) {
    if (!uri[4]) FAILMSG(SGPU_ERROR_INVALID_URI, "URI 'sim:' has no options after ':'");
    return open_sim(uri + 4, tr, o, msg, msg_size);
  }
  /* link URIs: "ADDRESS[,OPT=V...]" */
  int is_link = strncmp(uri, "tcp:", 4) == 0 || strncmp(uri, "serial:", 7) == 0 ||
                (strncmp(uri, "usb", 3) == 0 && (uri[3] == 0 || uri[3] == ':' || uri[3] == '@' ||
                                                 uri[3] == ','));
  char base[600];
  const char *comma = is_link ? strchr(uri, ',') : NULL;
  if (comma) {
    if ((size_t)(comma - uri) >= sizeof base)
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%.40s...': too long", uri);
    int e = link_options(uri, comma + 1, o, msg, msg_size);
    if (e) return e;
    memcpy(base, uri, (size_t)(comma - uri));
    base[comma - uri] = 0;
    uri = base;
  }
  if (strncmp(uri, "tcp:", 4) == 0) {
    const char *hp = uri + 4;
    const char *colon = strrchr(hp, ':');
    uint32_t port = 0;
    if (!colon || colon == hp)
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': expected tcp:HOST:PORT", uri);
    if (parse_u32(colon + 1, strlen(colon + 1), &port, 65535) || port == 0)
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': port '%s' is not 1..65535", uri, colon + 1);
    for (const char *c = hp; c < colon; c++)
      if (!(isalnum((unsigned char)*c) || strchr(".-_:[]", *c)))
        FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': bad character '%c' in host name", uri, *c);
    char host[256];
    size_t hl = (size_t)(colon - hp);
    if (hl >= sizeof host) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': host name too long", uri);
    memcpy(host, hp, hl);
    host[hl] = 0;
    if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') { /* [IPv6] */
      memmove(host, host + 1, hl - 2);
      host[hl - 2] = 0;
    }
    sgpu_link_chan ch;
    int r = sgpu_link_chan_tcp(host, port, &ch, msg, msg_size);
    if (r) return r;
    sgpu_link_options lo;
    link_open_options(o, &lo);
    /* no wire and no USB latency timer: the answer time measured is the
     * other end's (sgpu-sim: its model), so on a noisy line a short floor
     * and gap */
    lo.ack_noisy_ms = LINK_TCP_ACK_NOISY_MS;
    lo.gap_ms = LINK_TCP_GAP_MS;
    lo.whole_answers = 1; /* sgpu-sim writes each answer in one piece */
    return sgpu_link_open("tcp", &ch, &lo, tr, msg, msg_size);
  }
  if (strncmp(uri, "serial:", 7) == 0) {
    const char *path = uri + 7;
    const char *at = strchr(path, '@');
    size_t plen = at ? (size_t)(at - path) : strlen(path);
    uint32_t baud = 0;
    if (plen < 2 || path[0] != '/')
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': expected serial:/dev/NAME[@BAUD]", uri);
    if (at && (parse_u32(at + 1, strlen(at + 1), &baud, 20000000) || baud < 300))
      FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': baud rate '%s' is not 300..20000000", uri, at + 1);
    char dev[512];
    if (plen >= sizeof dev) FAILMSG(SGPU_ERROR_INVALID_URI, "URI '%s': path too long", uri);
    memcpy(dev, path, plen);
    dev[plen] = 0;
    if (!at) baud = SGPU_LINK_BAUD_ICEBREAKER;
    sgpu_link_chan ch;
    int r = sgpu_link_chan_serial(dev, baud, &ch, msg, msg_size);
    if (r) return r;
    sgpu_link_options lo;
    link_open_options(o, &lo);
    lo.bytes_per_sec = baud / 10;
    return sgpu_link_open("serial", &ch, &lo, tr, msg, msg_size);
  }
  if (strncmp(uri, "usb", 3) == 0 && (uri[3] == 0 || uri[3] == ':' || uri[3] == '@'))
    return open_usb(uri, tr, o, msg, msg_size);
  FAILMSG(SGPU_ERROR_INVALID_URI,
          "unknown device URI '%s' (sim[:OPTS], tcp:HOST:PORT, serial:/dev/X[@BAUD], "
          "usb[:VID:PID[:SERIAL]][@BAUD]; link URIs take ,giveup=MS,video=tiny|vga,watchdog=N,window=auto|on|off)",
          uri);
}
