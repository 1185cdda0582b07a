/* sgpu-sim — run the simulated sgpu chip standalone.
 *
 *   sgpu-sim [options]
 *
 * Runs the Verilator model (libsgpu_sim.a) for a number of cycles or frames,
 * optionally shows display source 0 live in an SDL2 window, writes the last
 * captured frame as PNG, a waveform trace, and a screenshot of the window.
 * With --pattern it first programs source 0 and draws a test pattern through
 * the chip's host port, so the display shows something on its own.
 *
 * With --listen tcp:HOST:PORT or --pty it is a link server instead: the
 * chip behind its host bridge (rtl/link/sgpu_link_top.v, sim/sgpu_link_sim.h)
 * takes the bytes of docs/link-protocol.md from a TCP client or a
 * pseudo-terminal, paced at the wire rate in simulated time (--baud), with
 * optional byte faults both ways (--link-errors).  The chip persists across
 * connections; simulated time stands still while no client is connected.
 * --board icebreaker|ulx3s serves it from a board-level simulation instead
 * (sim/sgpu_board_lsim.h): the bytes cross the board's UART pins at its
 * 3 Mbaud; --frames-dir writes the frames on the board's video pins.
 */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "sgpu_hw.h"
#include "sgpu_link_sim.h"
#include "sgpu_link_model.h"
#include "sgpu_sim.h"

#define PATTERN_FB 0x00100000u /* framebuffer of --pattern, in segment 1 */
#define SRV_IDLE_MS_DEFAULT 5000u /* --idle-ms */

typedef struct options {
  uint64_t cycles;      /* 0 = not limited by cycles */
  uint64_t frames;      /* 0 = not limited by frames */
  const char *trace;
  int window;
  int scale;
  int pattern;
  int tiny;
  const char *screenshot;
  const char *png;
  sgpu_sim_config cfg;
  const char *listen;
  int pty;
  uint64_t baud;        /* 0 = as fast as the bridge takes bytes */
  uint32_t latency_us;  /* --latency-us: the FTDI latency timer on answers, 0 = off */
  double drop, corrupt, dup; /* --link-errors */
  uint32_t err_seed;
  int quiet;
  const char *board;      /* --board: "sim" (default), "icebreaker", "ulx3s" */
  const char *frames_dir; /* --frames-dir */
  uint32_t idle_ms;       /* --idle-ms: close a --listen connection without an ACK this long */
  int idle_set;
} options;

static void usage(FILE *f) {
  fprintf(f,
          "usage: sgpu-sim [options]\n"
          "Run the simulated sgpu chip (Verilator model) standalone.\n"
          "\n"
          "  --cycles N         stop after N clock cycles\n"
          "  --frames N         stop after N complete frames of display source 0\n"
          "                     (default without --window and --cycles: 1 frame)\n"
          "  --window           show source 0 live in an SDL2 window (closing it quits)\n"
          "  --scale N          window pixels per display pixel (default 1; 8 with --tiny)\n"
          "  --pattern          program source 0 and draw a test pattern through the host port\n"
          "  --tiny             with --pattern: the tiny 64x48 timing instead of 640x480\n"
          "  --screenshot FILE  with --window: save the window contents as BMP at exit\n"
          "  --png FILE         save the last complete frame of source 0 as PNG at exit\n"
          "  --trace FILE       waveform trace, VCD (.vcd) or FST (.fst)\n"
          "  --latency N        memory read latency in cycles (default 1)\n"
          "  --stall P          memory refuses a request with P%% chance per cycle\n"
          "  --seed S           seed of the stall injection\n"
          "  --listen tcp:HOST:PORT  serve the host link (docs/link-protocol.md) on TCP\n"
          "                     through the host-bridge RTL; PORT 0 picks a free port;\n"
          "                     prints 'listening on tcp:HOST:PORT'.  HOST defaults to\n"
          "                     127.0.0.1 (this machine only); whoever can connect has\n"
          "                     the whole chip: every register and all of its memory,\n"
          "                     no password.  One program at a time: a connection that\n"
          "                     comes while another is served gets NAK IN_USE (the\n"
          "                     client reports 'device in use by another connection')\n"
          "  --idle-ms N        with --listen: close a connection whose frames the chip\n"
          "                     has not ACKed for N ms of wall time (silent, stopped\n"
          "                     inside a frame, or sending no frames), so the next\n"
          "                     program gets the chip (default %u; 0 never)\n"
          "  --pty              serve the host link on a pseudo-terminal; prints\n"
          "                     'serving on /dev/pts/N' (a serial:/dev/pts/N device)\n"
          "  --baud N           with --listen/--pty: bytes at N baud (10 bits a byte) in\n"
          "                     simulated time (default: as fast as the bridge takes them)\n"
          "  --latency-us N     with --listen/--pty: hold the device's bytes as an FTDI\n"
          "                     chip does: they go to the host once 62 have gathered or N\n"
          "                     microseconds of simulated time after the oldest of them\n"
          "                     (a real FT2232H's latency timer is 1000 at best; default\n"
          "                     0: each byte goes at once)\n"
          "  --link-errors drop=P,corrupt=P,dup=P[,seed=S]\n"
          "                     with --listen/--pty: drop, corrupt or duplicate each byte\n"
          "                     with probability P (0..1), both ways (the bridge NAKs a\n"
          "                     damaged frame at once: docs/link-protocol.md)\n"
          "  --board B          with --listen/--pty: the device behind the link:\n"
          "                     sim (default): the chip behind its host-bridge RTL, the\n"
          "                       bytes entering the bridge directly (--baud paces them)\n"
          "                     icebreaker: the iCEBreaker board image (12 MHz system and\n"
          "                       25.125 MHz pixel clocks, 128 KiB SPRAM, 1 node, boot ROM)\n"
          "                     ulx3s: the ULX3S board image with the SDRAM model (30, 25\n"
          "                       and 125 MHz clocks, 32 MB, 2 nodes, boot ROM, TMDS)\n"
          "                     A board's bytes are shifted onto its UART RX pin at its\n"
          "                     3 Mbaud and decoded from its TX pin in simulated time,\n"
          "                     through its UART, boot feeder and bridge RTL; it boots\n"
          "                     before the server listens; its transfers take 5 to 15\n"
          "                     times the wall time of unpaced sim's\n"
          "  --frames-dir DIR   with --board icebreaker|ulx3s: write each complete frame on\n"
          "                     the board's video pins as DIR/frame-NNNNNN.png (640x480;\n"
          "                     the iCEBreaker's 4-bit colours widened).  Refused with\n"
          "                     --board sim: its model has no video capture\n"
          "  --quiet            no summary on stdout\n"
          "  --help             this text\n"
          "\n"
          "Exit status: 0 success, 1 runtime error, 2 usage error.\n",
          SRV_IDLE_MS_DEFAULT);
}

static int parse_u64(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  if (!s || !*s || *s == '-') return -1;
  unsigned long long x = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *v = x;
  return 0;
}

/* drop=P,corrupt=P,dup=P[,seed=S] */
static int parse_link_errors(const char *spec, options *o) {
  char buf[256];
  if (strlen(spec) >= sizeof buf) {
    fprintf(stderr, "sgpu-sim: --link-errors value too long\n");
    return -1;
  }
  strcpy(buf, spec);
  o->err_seed = 1;
  for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(k, '=');
    if (!eq) {
      fprintf(stderr, "sgpu-sim: --link-errors: '%s' is not KEY=VALUE\n", k);
      return -1;
    }
    *eq = 0;
    char *end;
    errno = 0;
    if (!strcmp(k, "seed")) {
      unsigned long long sd = strtoull(eq + 1, &end, 0);
      if (errno || *end || !eq[1] || sd > UINT32_MAX) {
        fprintf(stderr, "sgpu-sim: --link-errors: bad seed '%s'\n", eq + 1);
        return -1;
      }
      o->err_seed = (uint32_t)sd ? (uint32_t)sd : 1;
      continue;
    }
    double p = strtod(eq + 1, &end);
    if (errno || *end || !eq[1] || !(p >= 0 && p <= 1)) {
      fprintf(stderr, "sgpu-sim: --link-errors: %s='%s' is not a probability 0..1\n", k, eq + 1);
      return -1;
    }
    if (!strcmp(k, "drop")) o->drop = p;
    else if (!strcmp(k, "corrupt")) o->corrupt = p;
    else if (!strcmp(k, "dup")) o->dup = p;
    else {
      fprintf(stderr, "sgpu-sim: --link-errors: unknown key '%s' (drop, corrupt, dup, seed)\n", k);
      return -1;
    }
  }
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n;
#define NEED_VALUE()                                             \
  do {                                                           \
    if (!v) {                                                    \
      fprintf(stderr, "sgpu-sim: %s needs a value\n", a);        \
      return -1;                                                 \
    }                                                            \
    i++;                                                         \
  } while (0)
#define NEED_NUMBER(max)                                                   \
  do {                                                                     \
    NEED_VALUE();                                                          \
    if (parse_u64(v, &n) || n > (max)) {                                   \
      fprintf(stderr, "sgpu-sim: bad value '%s' for %s\n", v, a);          \
      return -1;                                                           \
    }                                                                      \
  } while (0)
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--cycles")) {
      NEED_NUMBER(UINT64_MAX);
      o->cycles = n;
    } else if (!strcmp(a, "--frames")) {
      NEED_NUMBER(1000000);
      o->frames = n;
    } else if (!strcmp(a, "--window")) {
      o->window = 1;
    } else if (!strcmp(a, "--scale")) {
      NEED_NUMBER(16);
      if (n == 0) {
        fprintf(stderr, "sgpu-sim: --scale must be 1..16\n");
        return -1;
      }
      o->scale = (int)n;
    } else if (!strcmp(a, "--pattern")) {
      o->pattern = 1;
    } else if (!strcmp(a, "--tiny")) {
      o->tiny = 1;
    } else if (!strcmp(a, "--screenshot")) {
      NEED_VALUE();
      o->screenshot = v;
    } else if (!strcmp(a, "--png")) {
      NEED_VALUE();
      o->png = v;
    } else if (!strcmp(a, "--trace")) {
      NEED_VALUE();
      o->trace = v;
    } else if (!strcmp(a, "--latency")) {
      NEED_NUMBER(64);
      if (n == 0) {
        fprintf(stderr, "sgpu-sim: --latency must be >= 1\n");
        return -1;
      }
      o->cfg.mem_latency = (uint32_t)n;
    } else if (!strcmp(a, "--stall")) {
      NEED_NUMBER(99);
      o->cfg.stall_percent = (uint32_t)n;
    } else if (!strcmp(a, "--seed")) {
      NEED_NUMBER(UINT32_MAX);
      o->cfg.seed = (uint32_t)n;
    } else if (!strcmp(a, "--listen")) {
      NEED_VALUE();
      o->listen = v;
    } else if (!strcmp(a, "--pty")) {
      o->pty = 1;
    } else if (!strcmp(a, "--baud")) {
      NEED_NUMBER(100000000);
      if (n < 300) {
        fprintf(stderr, "sgpu-sim: --baud must be 300..100000000\n");
        return -1;
      }
      o->baud = n;
    } else if (!strcmp(a, "--latency-us")) {
      NEED_NUMBER(1000000);
      o->latency_us = (uint32_t)n;
    } else if (!strcmp(a, "--link-errors")) {
      NEED_VALUE();
      if (parse_link_errors(v, o) != 0) return -1;
    } else if (!strcmp(a, "--board")) {
      NEED_VALUE();
      if (!sgpu_link_model_known(v)) {
        fprintf(stderr, "sgpu-sim: unknown board '%s' (sim, icebreaker, ulx3s)\n", v);
        return -1;
      }
      o->board = v;
    } else if (!strcmp(a, "--frames-dir")) {
      NEED_VALUE();
      o->frames_dir = v;
    } else if (!strcmp(a, "--idle-ms")) {
      NEED_NUMBER(3600000);
      o->idle_ms = (uint32_t)n;
      o->idle_set = 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else {
      fprintf(stderr, "sgpu-sim: unknown option '%s' (see --help)\n", a);
      return -1;
    }
#undef NEED_NUMBER
#undef NEED_VALUE
  }
  if (o->screenshot && !o->window) {
    fprintf(stderr, "sgpu-sim: --screenshot needs --window\n");
    return -1;
  }
  if (o->tiny && !o->pattern) {
    fprintf(stderr, "sgpu-sim: --tiny needs --pattern\n");
    return -1;
  }
  if (o->listen && o->pty) {
    fprintf(stderr, "sgpu-sim: --listen and --pty exclude each other\n");
    return -1;
  }
  if (!o->listen && !o->pty &&
      (o->baud || o->latency_us || o->drop > 0 || o->corrupt > 0 || o->dup > 0)) {
    fprintf(stderr, "sgpu-sim: --baud, --latency-us and --link-errors need --listen or --pty\n");
    return -1;
  }
  if ((o->listen || o->pty) && (o->window || o->pattern || o->png || o->trace)) {
    fprintf(stderr, "sgpu-sim: --listen/--pty serve the link only (no --window, --pattern, --png, "
                    "--trace)\n");
    return -1;
  }
  if (o->idle_set && !o->listen) {
    fprintf(stderr, "sgpu-sim: --idle-ms needs --listen\n");
    return -1;
  }
  if (!o->idle_set) o->idle_ms = SRV_IDLE_MS_DEFAULT;
  if (!o->board) o->board = "sim";
  const int on_board = strcmp(o->board, "sim") != 0;
  if (on_board && !o->listen && !o->pty) {
    fprintf(stderr, "sgpu-sim: --board %s needs --listen or --pty\n", o->board);
    return -1;
  }
  const uint64_t board_baud = !strcmp(o->board, "ulx3s") ? SGPU_LINK_BAUD_ULX3S : SGPU_LINK_BAUD_ICEBREAKER;
  if (on_board && o->baud && o->baud != board_baud) {
    fprintf(stderr, "sgpu-sim: --baud: the %s's UART runs at %u baud only\n", o->board,
            (unsigned)board_baud);
    return -1;
  }
  if (o->frames_dir && !on_board) {
    fprintf(stderr, "sgpu-sim: --frames-dir needs --board icebreaker or ulx3s (the chip behind "
                    "the bridge, --board sim, has no video capture)\n");
    return -1;
  }
  if (!o->scale) o->scale = o->tiny ? 8 : 1;
  if (!o->window && !o->cycles && !o->frames) o->frames = 1;
  o->cfg.trace_path = o->trace;
  return 0;
}

/* The colour of test-pattern pixel (x, y) of a w x h frame, RGB888: eight
 * vertical colour bars over the top three quarters, a grey ramp below. */
void sgpu_sim_pattern_rgb(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t rgb[3]);
void sgpu_sim_pattern_rgb(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t rgb[3]) {
  if (y < h * 3 / 4) {
    static const uint8_t bars[8] = {7, 6, 3, 2, 5, 4, 1, 0}; /* bit 2 R, 1 G, 0 B */
    uint8_t c = bars[x * 8 / w];
    rgb[0] = (c & 4) ? 0xFF : 0;
    rgb[1] = (c & 2) ? 0xFF : 0;
    rgb[2] = (c & 1) ? 0xFF : 0;
  } else {
    uint8_t g = (uint8_t)(x * 32 / w * 8); /* 32 steps, exact in RGB565 */
    rgb[0] = rgb[1] = rgb[2] = g;
  }
}

static uint16_t rgb565(const uint8_t c[3]) {
  return (uint16_t)(((c[0] >> 3) << 11) | ((c[1] >> 2) << 5) | (c[2] >> 3));
}

/* Draw the pattern into GPU memory through the host port and show it. */
static int setup_pattern(sgpu_sim *sim, int tiny) {
  const uint32_t w = tiny ? SGPU_TIMING_TINY_H_ACTIVE : SGPU_TIMING_VGA_H_ACTIVE;
  const uint32_t h = tiny ? SGPU_TIMING_TINY_V_ACTIVE : SGPU_TIMING_VGA_V_ACTIVE;
  const uint32_t pitch = w * 2;
  uint16_t *line = malloc(pitch);
  if (!line) return -1;
  for (uint32_t y = 0; y < h; y++) {
    for (uint32_t x = 0; x < w; x++) {
      uint8_t c[3];
      sgpu_sim_pattern_rgb(x, y, w, h, c);
      line[x] = rgb565(c);
    }
    if (sgpu_sim_mem_write(sim, PATTERN_FB + y * pitch, line, pitch) != 0) {
      free(line);
      return -1;
    }
  }
  free(line);
  uint32_t ctl = (1u << SGPU_DISP_ENABLE_SHIFT) | (SGPU_HW_FORMAT_RGB565 << SGPU_DISP_FORMAT_SHIFT) |
                 ((tiny ? 1u : 0u) << SGPU_DISP_TINY_SHIFT);
  if (sgpu_sim_reg_write(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_BASE), PATTERN_FB) ||
      sgpu_sim_reg_write(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_PITCH), pitch) ||
      sgpu_sim_reg_write(sim, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL), ctl))
    return -1;
  return 0;
}

static int write_png_rgb(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb);
static int write_png(const char *path, const sgpu_sim_frame *f) {
  return write_png_rgb(path, f->width, f->height, f->rgb);
}

static int write_png_rgb(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    fprintf(stderr, "sgpu-sim: %s: %s\n", path, strerror(errno));
    return -1;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(fp);
    fprintf(stderr, "sgpu-sim: %s: PNG write failed\n", path);
    return -1;
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  if (fclose(fp) != 0) return -1;
  return 0;
}

/* ---------------------------------------------------------------- window */
/* The window's title from the counters of the last interval: `frames`
 * complete frames and `cycles` clock cycles of a clock of clock_hz were
 * simulated in `wall_us` microseconds of wall time.  "sgpu-sim: source 0,
 * F frames/s, R x real time" (R: simulated seconds per wall second). */
int sgpu_sim_window_title(char *buf, size_t size, uint64_t frames, uint64_t cycles, uint64_t wall_us,
                          uint64_t clock_hz);
int sgpu_sim_window_title(char *buf, size_t size, uint64_t frames, uint64_t cycles, uint64_t wall_us,
                          uint64_t clock_hz) {
  if (!wall_us || !clock_hz) return snprintf(buf, size, "sgpu-sim: source 0");
  const double secs = (double)wall_us / 1e6;
  const double ratio = (double)cycles / (double)clock_hz / secs;
  return snprintf(buf, size, "sgpu-sim: source 0, %.1f frames/s, %.*f x real time",
                  (double)frames / secs, ratio < 0.01 ? 4 : ratio < 1 ? 3 : 2, ratio);
}

typedef struct view {
  SDL_Window *win;
  int w, h; /* window size in pixels */
  int scale;
  char title[128];
  uint64_t t_us, cycle, frames; /* the title's interval began: wall time, counters */
} view;

/* wall time in microseconds (monotonic) */
static uint64_t wall_us(void);

/* Every half second of wall time: the title from the interval's counters. */
static void view_title(view *v, uint64_t cycle, uint64_t frames, int force) {
  const uint64_t now = wall_us();
  if (!v->t_us) {
    v->t_us = now;
    v->cycle = cycle;
    v->frames = frames;
    return;
  }
  if (!force && now - v->t_us < 500000u) return;
  if (now == v->t_us) return;
  sgpu_sim_window_title(v->title, sizeof v->title, frames - v->frames, cycle - v->cycle,
                        now - v->t_us, SGPU_NOMINAL_CLOCK_HZ);
  SDL_SetWindowTitle(v->win, v->title);
  v->t_us = now;
  v->cycle = cycle;
  v->frames = frames;
}

static int view_open(view *v, int scale, int fw, int fh) {
  const char *env_d = getenv("DISPLAY"), *env_wl = getenv("WAYLAND_DISPLAY"), *env_drv = getenv("SDL_VIDEODRIVER");
  if (!(env_d && *env_d) && !(env_wl && *env_wl) && !(env_drv && *env_drv)) {
    /* SDL would fall back to a driver that shows nothing (offscreen), after
     * its probes print their own complaints */
    fprintf(stderr, "sgpu-sim: --window: no display (DISPLAY and WAYLAND_DISPLAY are unset; "
                    "set SDL_VIDEODRIVER to use another SDL video driver)\n");
    return -1;
  }
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    const char *d = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    fprintf(stderr, "sgpu-sim: --window: no display (SDL: %s; DISPLAY %s%s%s, WAYLAND_DISPLAY %s%s%s)\n",
            SDL_GetError(), d ? "'" : "", d ? d : "unset", d ? "'" : "", wl ? "'" : "",
            wl ? wl : "unset", wl ? "'" : "");
    return -1;
  }
  /* a driver that shows nothing, taken only when asked for by name */
  const char *drv = SDL_GetCurrentVideoDriver(), *asked = getenv("SDL_VIDEODRIVER");
  if (drv && (!strcmp(drv, "dummy") || !strcmp(drv, "offscreen")) && !(asked && strstr(asked, drv))) {
    fprintf(stderr, "sgpu-sim: --window: no display (SDL chose its '%s' video driver, which shows "
                    "nothing)\n", drv);
    SDL_Quit();
    return -1;
  }
  v->scale = scale;
  v->w = fw * scale;
  v->h = fh * scale;
  v->win = SDL_CreateWindow("sgpu-sim: source 0", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                            v->w, v->h, 0);
  if (!v->win) {
    fprintf(stderr, "sgpu-sim: --window: cannot open a window (SDL: %s)\n", SDL_GetError());
    SDL_Quit();
    return -1;
  }
  return 0;
}

/* Show a frame, scaled by nearest neighbour (the window grows with it). */
static int view_show(view *v, const sgpu_sim_frame *f) {
  if (!f->width || !f->height) return 0;
  const int w = (int)f->width * v->scale, h = (int)f->height * v->scale;
  if (w != v->w || h != v->h) {
    SDL_SetWindowSize(v->win, w, h);
    v->w = w;
    v->h = h;
  }
  SDL_Surface *ws = SDL_GetWindowSurface(v->win);
  if (!ws) return -1;
  SDL_Surface *fs = SDL_CreateRGBSurfaceWithFormatFrom((void *)f->rgb, (int)f->width, (int)f->height,
                                                       24, (int)f->width * 3, SDL_PIXELFORMAT_RGB24);
  if (!fs) return -1;
  SDL_Rect dst = {0, 0, w, h};
  int r = SDL_BlitScaled(fs, NULL, ws, &dst);
  SDL_FreeSurface(fs);
  if (r == 0) r = SDL_UpdateWindowSurface(v->win);
  return r ? -1 : 0;
}

/* 1 when the user closed the window. */
static int view_poll(void) {
  SDL_Event e;
  while (SDL_PollEvent(&e))
    if (e.type == SDL_QUIT ||
        (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE))
      return 1;
  return 0;
}

static int view_screenshot(view *v, const char *path) {
  SDL_Surface *ws = SDL_GetWindowSurface(v->win);
  if (!ws || SDL_SaveBMP(ws, path) != 0) {
    fprintf(stderr, "sgpu-sim: screenshot %s: %s\n", path, SDL_GetError());
    return -1;
  }
  return 0;
}

static void view_close(view *v) {
  if (v->win) SDL_DestroyWindow(v->win);
  SDL_Quit();
}

/* ---------------------------------------------------------------- link server */
typedef struct fault {
  double drop, corrupt, dup;
  uint32_t rng;
  uint64_t dropped, corrupted, duplicated;
} fault;

static double frand(fault *f) {
  f->rng ^= f->rng << 13;
  f->rng ^= f->rng >> 17;
  f->rng ^= f->rng << 5;
  return (double)f->rng / 4294967296.0;
}

/* Apply byte faults to in[0..n) into out (room for 2n); returns the count. */
static size_t inject(fault *f, const uint8_t *in, size_t n, uint8_t *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = in[i];
    if (f->drop > 0 && frand(f) < f->drop) {
      f->dropped++;
      continue;
    }
    if (f->corrupt > 0 && frand(f) < f->corrupt) {
      b ^= (uint8_t)(1u + (uint32_t)(frand(f) * 255.0));
      f->corrupted++;
    }
    out[k++] = b;
    if (f->dup > 0 && frand(f) < f->dup) {
      out[k++] = b;
      f->duplicated++;
    }
  }
  return k;
}

/* Write all bytes to the client; -1 when it is gone. */
static int put_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w > 0) {
      p += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd q = {fd, POLLOUT, 0};
      if (poll(&q, 1, 5000) <= 0 || (q.revents & (POLLERR | POLLHUP | POLLNVAL))) return -1;
      continue;
    }
    return -1;
  }
  return 0;
}

static uint64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* --frames-dir: the board's frames as PNG files, each complete frame once. */
typedef struct frame_sink {
  const char *dir;
  uint64_t last;    /* number of the last frame written */
  uint64_t written;
  int failed;
} frame_sink;

static void sink_frames(const sgpu_link_model *lm, frame_sink *fs) {
  if (!fs->dir || fs->failed || !lm->ops->frame) return;
  uint64_t num;
  uint32_t w, h;
  const uint8_t *rgb;
  int ok;
  lm->ops->frame(lm->m, &num, &w, &h, &rgb, &ok);
  if (!num || num == fs->last || !w || !h) return;
  fs->last = num;
  char path[4096];
  snprintf(path, sizeof path, "%s/frame-%06" PRIu64 ".png", fs->dir, num);
  if (write_png_rgb(path, w, h, rgb) != 0) {
    fprintf(stderr, "sgpu-sim: --frames-dir: writing %s failed; no more frames are written\n", path);
    fs->failed = 1;
    return;
  }
  fs->written++;
}

/* --latency-us: the device's bytes held as an FTDI chip holds them, until
 * a USB packet's 62 bytes of data have gathered or its latency timer has
 * run out since the oldest waiting byte, in simulated cycles.  A host then
 * sees one answer a timer period late unless answers come back to back. */
#define FTDI_PACKET_DATA 62u
typedef struct ftdi_hold {
  uint64_t timer;            /* cycles of the latency timer, 0 = off */
  uint8_t buf[8192 + FTDI_PACKET_DATA];
  size_t n;
  uint64_t oldest;           /* cycle the oldest held byte arrived */
} ftdi_hold;

/* Cycles the model may run before the held bytes are due. */
static uint64_t hold_left(const ftdi_hold *h, uint64_t now, uint64_t chunk) {
  if (!h->timer || !h->n) return chunk;
  uint64_t due = h->oldest + h->timer;
  return due <= now ? 1 : due - now < chunk ? due - now : chunk;
}

/* Take k bytes that left the device at cycle `now`; pass on what is due.
 * -1 when the client is gone. */
static int hold_put(ftdi_hold *h, int fd, const uint8_t *p, size_t k, uint64_t now) {
  if (!h->timer) return k ? put_all(fd, p, k) : 0;
  while (k) {
    if (!h->n) h->oldest = now;
    size_t take = sizeof h->buf - h->n < k ? sizeof h->buf - h->n : k;
    memcpy(h->buf + h->n, p, take);
    h->n += take;
    p += take;
    k -= take;
    size_t full = h->n / FTDI_PACKET_DATA * FTDI_PACKET_DATA; /* whole packets go */
    if (full) {
      if (put_all(fd, h->buf, full) != 0) return -1;
      memmove(h->buf, h->buf + full, h->n - full);
      h->n -= full;
      h->oldest = now;
    }
  }
  if (h->n && now >= h->oldest + h->timer) {
    if (put_all(fd, h->buf, h->n) != 0) return -1;
    h->n = 0;
  }
  return 0;
}

/* ---------------------------------------------------------------- hostile clients
 * The server holds at most SRV_RX_BOUND bytes of a client's for the device:
 * the bridge's receive FIFO.  Past that it stops reading the socket, so a
 * flood waits in the kernel's socket buffers and TCP's flow control stops
 * the sender (nothing is dropped: a client within its window never meets
 * the bound, one that floods is closed by the idle rule below).
 *
 * Idle rule (--idle-ms, default SRV_IDLE_MS_DEFAULT): a connection whose
 * frames the device has not ACKed for that long in wall time is closed: one
 * that sends nothing, stops inside a frame (the bridge NAKs it TIMEOUT,
 * which is no ACK) or sends bytes that are no frames.  A program that
 * keeps the link open without using it that long loses it too.
 *
 * One program at a time: a connection that comes while another is served
 * is answered NAK IN_USE (the SEQ of its first frame) and closed. */
#define SRV_RX_BOUND SGPU_LINK_RX_FIFO_BYTES
#define SRV_REFUSED_MAX 8          /* refused connections kept until answered; more are closed */
#define SRV_REFUSED_HOLD_US 2000000u /* a refused connection's life at most */

typedef struct refused {
  int fd;          /* -1: free */
  uint64_t t0;     /* accepted, wall us */
  int sync;        /* its SYNC seen: the next byte is the SEQ */
  int answered;
} refused;

typedef struct server {
  const sgpu_link_model *lm;
  int lfd;                 /* listening socket; -1 with --pty */
  uint64_t idle_us;        /* 0: never closed for idleness */
  int quiet;
  uint64_t t_start;        /* wall us the server started */
  refused ref[SRV_REFUSED_MAX];
  uint64_t accepted, refusals, idle_closed;
  uint64_t rx_peak;        /* most host bytes queued for the device at once */
} server;

static double srv_ms(const server *S, uint64_t t) { return (double)(t - S->t_start) / 1000.0; }

/* CRC-32/MPEG-2 (docs/link-protocol.md) */
static uint32_t link_crc(const uint8_t *p, size_t n) {
  uint32_t c = SGPU_LINK_CRC_INIT;
  for (size_t i = 0; i < n; i++) {
    c ^= (uint32_t)p[i] << 24;
    for (int k = 0; k < 8; k++) c = (c & 0x80000000u) ? (c << 1) ^ SGPU_LINK_CRC_POLY : c << 1;
  }
  return c;
}

static void refuse_answer(server *S, refused *r, uint8_t seq) {
  uint8_t f[SGPU_LINK_RSP_HDR_BYTES + SGPU_LINK_CRC_BYTES] = {
      SGPU_LINK_SYNC, seq, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_IN_USE, 0, 0};
  uint32_t c = link_crc(f + 1, SGPU_LINK_RSP_HDR_BYTES - 1);
  for (int i = 0; i < 4; i++) f[SGPU_LINK_RSP_HDR_BYTES + i] = (uint8_t)(c >> (24 - 8 * i));
  ssize_t w = write(r->fd, f, sizeof f); /* 10 bytes into an empty socket buffer */
  (void)w;
  shutdown(r->fd, SHUT_WR);
  r->answered = 1;
  S->refusals++;
  if (!S->quiet)
    fprintf(stderr, "sgpu-sim: refused a connection at t=%.1f ms: device in use by another "
                    "connection (NAK IN_USE %.2f ms after it connected)\n",
            srv_ms(S, wall_us()), (double)(wall_us() - r->t0) / 1000.0);
}

static void refuse_add(server *S, int fd) {
  for (int i = 0; i < SRV_REFUSED_MAX; i++)
    if (S->ref[i].fd < 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      S->ref[i] = (refused){fd, wall_us(), 0, 0};
      return;
    }
  close(fd); /* too many waiting: closed unanswered */
}

/* A refused connection's bytes (revents from poll): answer its first
 * frame's SYNC SEQ, then drop what it sends until it closes. */
static void refuse_io(server *S, refused *r, short revents, uint64_t now) {
  if (revents & (POLLIN | POLLHUP | POLLERR)) {
    uint8_t buf[512];
    ssize_t n = read(r->fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      close(r->fd);
      r->fd = -1;
      return;
    }
    for (ssize_t i = 0; i < n && !r->answered; i++) {
      if (r->sync) refuse_answer(S, r, buf[i]);
      else if (buf[i] == SGPU_LINK_SYNC) r->sync = 1;
    }
  }
  if (now > r->t0 && now - r->t0 > SRV_REFUSED_HOLD_US) {
    close(r->fd);
    r->fd = -1;
  }
}

/* pollfds of the listening socket and the refused connections after q[0..n) */
static int srv_pollfds(const server *S, struct pollfd *q, int n, int *ref_idx) {
  if (S->lfd >= 0) q[n++] = (struct pollfd){S->lfd, POLLIN, 0};
  for (int i = 0; i < SRV_REFUSED_MAX; i++)
    if (S->ref[i].fd >= 0) {
      ref_idx[n] = i;
      q[n++] = (struct pollfd){S->ref[i].fd, POLLIN, 0};
    }
  return n;
}

static int srv_refused_pending(const server *S) {
  for (int i = 0; i < SRV_REFUSED_MAX; i++)
    if (S->ref[i].fd >= 0) return 1;
  return 0;
}

/* Follows the device's answers to count its ACKs (the idle rule's sign of
 * progress): SYNC SEQ KIND INFO COUNT(2) DATA CRC. */
typedef struct ack_track {
  uint32_t pos, need;
  uint16_t count;
} ack_track;

static uint64_t track_acks(ack_track *t, const uint8_t *p, size_t n) {
  uint64_t acks = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = p[i];
    if (t->pos == 0) {
      if (b == SGPU_LINK_SYNC) t->pos = 1;
      continue;
    }
    t->pos++;
    if (t->pos == 3) {
      if (b == SGPU_LINK_KIND_ACK) acks++;
      else if (b != SGPU_LINK_KIND_NAK && b != SGPU_LINK_KIND_EVENT) t->pos = 0;
    } else if (t->pos == 5) {
      t->count = b;
    } else if (t->pos == 6) {
      t->count = (uint16_t)(t->count | b << 8);
      t->need = SGPU_LINK_RSP_HDR_BYTES + 4u * (t->count > SGPU_LINK_MAX_WORDS ? 0 : t->count) +
                SGPU_LINK_CRC_BYTES;
    }
    if (t->pos >= 6 && t->pos >= t->need) t->pos = 0;
  }
  return acks;
}

/* Serve one client on fd until it goes away or is idle too long (returns
 * 1 then): its bytes enter the bridge, the bridge's bytes go back, the
 * clock runs all the while; meanwhile other connections are refused.  A
 * connection that comes once the client has closed its side (a program
 * that ended, the next one started) is not refused: it is left in *next
 * for the caller to serve.  pty: a hang-up means the terminal's other side
 * was closed. */
static int serve_client(server *S, int fd, fault *up, fault *down, frame_sink *fs,
                        uint32_t latency_us, int *next) {
  const sgpu_link_model *lm = S->lm;
  uint8_t in[4096], tmp[8192], out[4096];
  const uint64_t chunk = 1024;
  ftdi_hold hold = {(uint64_t)latency_us * lm->clock_hz / 1000000u, {0}, 0, 0};
  ack_track trk = {0, 0, 0};
  uint64_t progress = wall_us(); /* connected, or the device's last ACK to it */
  struct pollfd q[2 + SRV_REFUSED_MAX];
  int ref_idx[2 + SRV_REFUSED_MAX];
  for (;;) {
    q[0] = (struct pollfd){fd, POLLIN, 0};
    int nq = srv_pollfds(S, q, 1, ref_idx);
    int pr = poll(q, (nfds_t)nq, 0);
    uint64_t now = wall_us();
    if (pr > 0) {
      for (int i = 1; i < nq; i++) {
        if (q[i].fd == S->lfd) {
          if (q[i].revents & POLLIN) {
            int c = accept(S->lfd, NULL, NULL);
            if (c >= 0) {
              struct pollfd g = {fd, POLLRDHUP, 0};
              if (poll(&g, 1, 0) > 0 && (g.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
                *next = c; /* the client has gone: this one is the next */
                return 0;
              }
              refuse_add(S, c);
            }
          }
        } else if (q[i].revents) {
          refuse_io(S, &S->ref[ref_idx[i]], q[i].revents, now);
        }
      }
    }
    for (int i = 0; i < SRV_REFUSED_MAX; i++)
      if (S->ref[i].fd >= 0) refuse_io(S, &S->ref[i], 0, now);
    size_t queued = lm->ops->rx_queued(lm->m);
    if (queued > S->rx_peak) S->rx_peak = queued;
    if (pr > 0 && (q[0].revents & POLLIN)) {
      /* no more than the bound holds (a duplicating fault may double it) */
      size_t room = queued < SRV_RX_BOUND ? SRV_RX_BOUND - queued : 0;
      if (down->dup > 0 || up->dup > 0) room /= 2;
      if (room > sizeof in) room = sizeof in;
      if (room) {
        ssize_t n = read(fd, in, room);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return 0;
        if (n > 0) {
          size_t k = inject(up, in, (size_t)n, tmp);
          if (lm->ops->send_after(lm->m, tmp, k, 0) != 0) return 0; /* no silences kept: the bridge NAKs at once */
        }
      }
    } else if (pr > 0 && (q[0].revents & (POLLHUP | POLLERR | POLLNVAL))) {
      return 0;
    }
    size_t got = 0;
    lm->ops->run(lm->m, hold_left(&hold, lm->ops->cycle(lm->m), chunk), out, sizeof out, &got);
    sink_frames(lm, fs);
    if (got && track_acks(&trk, out, got)) progress = wall_us();
    size_t k = got ? inject(down, out, got, tmp) : 0;
    if (hold_put(&hold, fd, tmp, k, lm->ops->cycle(lm->m)) != 0) return 0;
    if (S->idle_us && now > progress && now - progress > S->idle_us) {
      S->idle_closed++;
      if (!S->quiet)
        fprintf(stderr, "sgpu-sim: closed a connection at t=%.1f ms: no ACK for %.1f ms "
                        "(--idle-ms %.0f)\n",
                srv_ms(S, now), (double)(now - progress) / 1000.0, (double)S->idle_us / 1000.0);
      return 1;
    }
  }
}

static int serve_link(const options *o) {
  signal(SIGPIPE, SIG_IGN);
  uint32_t cycles_per_byte = 0;
  if (o->baud && !strcmp(o->board, "sim")) {
    uint64_t cpb = (10ull * SGPU_NOMINAL_CLOCK_HZ + o->baud / 2) / o->baud;
    cycles_per_byte = cpb < SGPU_LSIM_MIN_CPB ? SGPU_LSIM_MIN_CPB : cpb > 1000000 ? 1000000 : (uint32_t)cpb;
  }
  if (o->frames_dir) {
    struct stat st;
    if (stat(o->frames_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
      fprintf(stderr, "sgpu-sim: --frames-dir '%s' is not a folder\n", o->frames_dir);
      return 2;
    }
  }
  sgpu_link_model lmodel;
  char lerr[256];
  const uint64_t t_boot = wall_us();
  if (sgpu_link_model_open(&lmodel, o->board, cycles_per_byte, lerr, sizeof lerr) != 0) {
    fprintf(stderr, "sgpu-sim: %s\n", lerr);
    return 1;
  }
  const sgpu_link_model *ls = &lmodel;
  if (!o->quiet && strcmp(o->board, "sim"))
    fprintf(stderr, "sgpu-sim: board %s booted: %" PRIu64 " cycles at %" PRIu64 " Hz in %.2f s, UART %u baud\n",
            ls->board, ls->boot_cycles, ls->clock_hz, (double)(wall_us() - t_boot) / 1e6,
            (unsigned)ls->baud);
  frame_sink fsink = {o->frames_dir, 0, 0, 0};
  fault up = {o->drop, o->corrupt, o->dup, o->err_seed, 0, 0, 0};
  fault down = {o->drop, o->corrupt, o->dup, o->err_seed * 2654435761u | 1u, 0, 0, 0};
  int rc = 0;
  server S;
  memset(&S, 0, sizeof S);
  S.lm = ls;
  S.lfd = -1;
  S.idle_us = o->listen ? (uint64_t)o->idle_ms * 1000u : 0;
  S.quiet = o->quiet;
  S.t_start = wall_us();
  for (int i = 0; i < SRV_REFUSED_MAX; i++) S.ref[i].fd = -1;
  if (o->pty) {
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
      fprintf(stderr, "sgpu-sim: --pty: cannot create a pseudo-terminal: %s\n", strerror(errno));
      sgpu_link_model_close(&lmodel);
      return 1;
    }
    const char *name = ptsname(m);
    /* raw on both sides until a client sets its own mode */
    int sl = open(name, O_RDWR | O_NOCTTY);
    if (sl >= 0) {
      struct termios t;
      if (tcgetattr(sl, &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(sl, TCSANOW, &t);
      }
      close(sl);
    }
    fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
    printf("serving on %s\n", name);
    fflush(stdout);
    for (;;) {
      struct pollfd q = {m, POLLIN, 0};
      poll(&q, 1, 20);
      if (q.revents & POLLHUP) { /* nobody has the terminal open: time stands still */
        usleep(20000);
        continue;
      }
      int none = -1;
      serve_client(&S, m, &up, &down, &fsink, o->latency_us, &none);
    }
  } else {
    const char *spec = o->listen;
    if (!strncmp(spec, "tcp:", 4)) spec += 4;
    char host[256] = "127.0.0.1";
    const char *colon = strrchr(spec, ':');
    const char *port = spec;
    if (colon) {
      size_t hl = (size_t)(colon - spec);
      if (hl == 0 || hl >= sizeof host) {
        fprintf(stderr, "sgpu-sim: --listen '%s': expected tcp:HOST:PORT\n", o->listen);
        sgpu_link_model_close(&lmodel);
        return 2;
      }
      memcpy(host, spec, hl);
      host[hl] = 0;
      port = colon + 1;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g) {
      fprintf(stderr, "sgpu-sim: --listen '%s': %s\n", o->listen, gai_strerror(g));
      sgpu_link_model_close(&lmodel);
      return 2;
    }
    int lfd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    int one = 1;
    if (lfd >= 0) setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, res->ai_addr, res->ai_addrlen) != 0 || listen(lfd, 4) != 0) {
      fprintf(stderr, "sgpu-sim: --listen '%s': %s\n", o->listen, strerror(errno));
      freeaddrinfo(res);
      sgpu_link_model_close(&lmodel);
      return 1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &sl);
    unsigned pn = sa.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&sa)->sin6_port)
                                           : ntohs(((struct sockaddr_in *)&sa)->sin_port);
    printf("listening on tcp:%s:%u\n", host, pn);
    fflush(stdout);
    S.lfd = lfd;
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    int next = -1; /* a connection accepted as the last client went */
    for (;;) {
      int c = next;
      next = -1;
      if (c >= 0) goto serve;
      /* no client: time stands still; refused connections still get their
       * answer and are closed */
      struct pollfd q[1 + SRV_REFUSED_MAX];
      int ref_idx[1 + SRV_REFUSED_MAX];
      int nq = srv_pollfds(&S, q, 0, ref_idx);
      int pr = poll(q, (nfds_t)nq, srv_refused_pending(&S) ? 20 : -1);
      if (pr < 0 && errno != EINTR) {
        fprintf(stderr, "sgpu-sim: poll: %s\n", strerror(errno));
        rc = 1;
        break;
      }
      uint64_t now = wall_us();
      for (int i = 1; i < nq; i++)
        if (q[i].revents) refuse_io(&S, &S.ref[ref_idx[i]], q[i].revents, now);
      for (int i = 0; i < SRV_REFUSED_MAX; i++)
        if (S.ref[i].fd >= 0) refuse_io(&S, &S.ref[i], 0, now);
      if (!(pr > 0 && (q[0].revents & POLLIN))) continue;
      c = accept(lfd, NULL, NULL);
      if (c < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) continue;
        fprintf(stderr, "sgpu-sim: accept: %s\n", strerror(errno));
        rc = 1;
        break;
      }
    serve:
      setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
      S.accepted++;
      S.rx_peak = 0;
      if (!o->quiet)
        fprintf(stderr, "sgpu-sim: client connected at t=%.1f ms\n", srv_ms(&S, wall_us()));
      serve_client(&S, c, &up, &down, &fsink, o->latency_us, &next);
      close(c);
      if (!o->quiet)
        fprintf(stderr, "sgpu-sim: client gone at cycle %" PRIu64 " (%" PRIu64 " frames, %" PRIu64
                        " naks, %" PRIu64 " cycles of kept silence; faults: %" PRIu64 " dropped, %" PRIu64
                        " corrupted, %" PRIu64 " duplicated; at most %" PRIu64 " bytes queued) at t=%.1f ms\n",
                ls->ops->cycle(ls->m), ls->ops->frames_ok(ls->m), ls->ops->frames_err(ls->m),
                ls->ops->quiet_cycles(ls->m),
                up.dropped + down.dropped, up.corrupted + down.corrupted,
                up.duplicated + down.duplicated, S.rx_peak, srv_ms(&S, wall_us()));
    }
    close(lfd);
  }
  sgpu_link_model_close(&lmodel);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  if (parse_args(argc, argv, &o) != 0) return 2;
  if (o.listen || o.pty) return serve_link(&o);
  sgpu_sim *sim = sgpu_sim_create(&o.cfg);
  if (!sim) {
    fprintf(stderr, "sgpu-sim: cannot create the model%s%s\n", o.trace ? " or open trace " : "",
            o.trace ? o.trace : "");
    return 1;
  }
  int rc = 0;
  if (o.pattern && setup_pattern(sim, o.tiny) != 0) {
    fprintf(stderr, "sgpu-sim: host port did not answer while drawing the pattern\n");
    sgpu_sim_destroy(sim);
    return 1;
  }
  view v = {0};
  if (o.window) {
    int fw = o.tiny ? SGPU_TIMING_TINY_H_ACTIVE : SGPU_TIMING_VGA_H_ACTIVE;
    int fh = o.tiny ? SGPU_TIMING_TINY_V_ACTIVE : SGPU_TIMING_VGA_V_ACTIVE;
    if (view_open(&v, o.scale, fw, fh) != 0) {
      sgpu_sim_destroy(sim);
      return 1;
    }
  }
  const uint64_t start = sgpu_sim_cycle(sim);
  uint64_t shown = 0, seen_frames = 0, first_frame = 0;
  sgpu_sim_frame f;
  int closed = 0;
  for (;;) {
    uint64_t ran = sgpu_sim_cycle(sim) - start;
    if (o.cycles && ran >= o.cycles) break;
    uint64_t chunk = 1024;
    if (o.cycles && o.cycles - ran < chunk) chunk = o.cycles - ran;
    sgpu_sim_run(sim, chunk, 0);
    sgpu_sim_last_frame(sim, 0, &f);
    if (f.frame_number && !first_frame) first_frame = f.frame_number;
    if (f.frame_number != shown) {
      shown = f.frame_number;
      seen_frames++;
      if (o.window && view_show(&v, &f) != 0) {
        fprintf(stderr, "sgpu-sim: window update failed: %s\n", SDL_GetError());
        rc = 1;
        break;
      }
    }
    if (o.window) view_title(&v, sgpu_sim_cycle(sim), seen_frames, 0);
    if (o.window && view_poll()) {
      closed = 1;
      break;
    }
    if (o.frames && seen_frames >= o.frames) break;
  }
  sgpu_sim_last_frame(sim, 0, &f);
  if (!o.quiet) {
    printf("cycles %" PRIu64 "\n", sgpu_sim_cycle(sim));
    printf("frames %" PRIu64 "\n", f.frame_number);
    if (f.frame_number)
      printf("source0 %ux%u h_total %u v_total %u hsync %u vsync_lines %u\n", f.width, f.height,
             f.h_total, f.v_total, f.hsync_width, f.vsync_lines);
    if (closed) printf("window closed\n");
    if (o.window) {
      if (!v.title[0]) view_title(&v, sgpu_sim_cycle(sim), seen_frames, 1);
      printf("window title: %s\n", v.title);
    }
  }
  if (rc == 0 && o.png) {
    if (!f.frame_number) {
      fprintf(stderr, "sgpu-sim: --png: no complete frame was captured\n");
      rc = 1;
    } else if (write_png(o.png, &f) != 0) {
      rc = 1;
    }
  }
  if (o.window) {
    if (rc == 0 && o.screenshot && view_screenshot(&v, o.screenshot) != 0) rc = 1;
    view_close(&v);
  }
  sgpu_sim_destroy(sim);
  return rc;
}
