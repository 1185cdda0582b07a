/* demo.c — sgpu-demo: an animated scene on the in-process chip model.
 *
 * Each frame is drawn with FILL and COPY packets into the back one of two
 * 320x240 RGB565 framebuffers (pixel-replicated to 640x480 by the display),
 * then shown with a Flip submission (interval 1, taken at vsync).  One video
 * frame per picture: while the display emits video frame m (showing picture
 * k-1), the GPU draws picture k and its flip is taken in m's vertical
 * blanking, so m+1 shows picture k.  Every video frame is captured from the
 * video outputs (back-to-back sgpu_capture_frame calls return consecutive
 * frames) and written as PNG; all frames also go into an animated PNG (APNG,
 * written by the small encoder below on top of zlib), and a report of
 * fences, cycles, flips, underflows and frame checksums is printed and saved
 * as report.txt.
 *
 * With --vm the same scene is drawn from a VM context (CAPS.VM): the
 * framebuffers, the sprite sheet and two command buffers are mapped into
 * its address space, the packets and flips name virtual addresses, and the
 * frames must come out the same (tests/host/test_demo_vm.sh).
 *
 *   sgpu-demo --out DIR [--frames N] [--device URI] [--budget SECONDS] [--vm]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "sgpu.h"
#include "sgpu_asm.h"

#define FB_W 320u
#define FB_H 240u
#define FB_PITCH (FB_W * 2u)
#define FB_BYTES (FB_PITCH * FB_H)
#define SPRITE 32u
#define DEFAULT_FRAMES 32u
#define CMD_WORDS 3584u /* fits the library's 16 KiB staging area per node */
#define PAGE_ROUND(x) (((x) + SGPU_PAGE_BYTES - 1) / SGPU_PAGE_BYTES * SGPU_PAGE_BYTES)
#define CMD_BYTES_VM PAGE_ROUND(CMD_WORDS * 4u)

typedef struct demo {
  sgpu_device *dev;
  sgpu_context *ctx;
  uint32_t fb[2];  /* physical: the display's */
  uint32_t sheet; /* sprite sheet, SPRITE x SPRITE pixels, pitch SPRITE*2 */
  uint32_t gfb[2], gsheet; /* the addresses the packets name: virtual with --vm */
  /* --vm: nothing is staged, so two command buffers in GPU memory take
   * turns, each reused once the submission that last read it is done */
  int vm;
  uint64_t cmd_pa[2], cmd_va[2];
  uint32_t cmd_fence[2], slot;
  uint32_t fence;
  uint32_t cmd[CMD_WORDS];
  sgpu_cmdbuf cb;
  uint64_t submissions, packets;
  const char *err_what;
} demo;

/* ------------------------------------------------------------ helpers */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(demo *d, int rc, const char *what) {
  const char *detail = d && d->dev ? sgpu_last_error(d->dev) : "";
  fprintf(stderr, "sgpu-demo: %s: %s (%d)%s%s\n", what, sgpu_strerror(rc), rc, detail && *detail ? ": " : "",
          detail ? detail : "");
  return rc;
}

static uint16_t rgb(unsigned r, unsigned g, unsigned b) {
  return (uint16_t)(((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3));
}

static uint32_t pat(uint16_t c) { return (uint32_t)c | (uint32_t)c << 16; }

/* Triangle wave 0..n..0 with period 2n. */
static int tri(int x, int n) {
  x %= 2 * n;
  if (x < 0) x += 2 * n;
  return x < n ? x : 2 * n - x;
}

static int mkdirs(const char *path) {
  char buf[1024];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      buf[i] = c;
    }
  }
  return 0;
}

/* ------------------------------------------------------------ submission */

static int submit_words_vm(demo *d, const uint32_t *w, uint32_t bytes, uint32_t flags, uint32_t *fence_out) {
  uint32_t s = d->slot;
  d->slot ^= 1u;
  int rc;
  if (d->cmd_fence[s] && (rc = sgpu_wait_fence(d->dev, 0, d->cmd_fence[s], 2000)))
    return fail(d, rc, "waiting for a command buffer");
  if (bytes && (rc = sgpu_write(d->dev, d->cmd_pa[s], w, bytes))) return fail(d, rc, "filling the DMA buffer");
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = d->ctx;
  a.dma_buffer_virtual_address = d->cmd_va[s]; /* read through the context's tables */
  a.dma_buffer_size = CMD_BYTES_VM;
  a.dma_buffer_submission_end_offset = bytes;
  a.submission_fence_id = ++d->fence;
  a.flags.value = flags;
  if (flags & SGPU_SUBMIT_FLIP) a.flip_interval = SGPU_FLIP_INTERVAL_ONE;
  a.node_ordinal = 0;
  if ((rc = sgpu_submit_command(d->dev, &a))) return fail(d, rc, "submitting");
  d->cmd_fence[s] = d->fence;
  d->submissions++;
  if (fence_out) *fence_out = d->fence;
  return 0;
}

static int submit_words(demo *d, const uint32_t *w, uint32_t bytes, uint32_t flags, uint32_t *fence_out);

static int submit_words(demo *d, const uint32_t *w, uint32_t bytes, uint32_t flags, uint32_t *fence_out) {
  if (d->vm) return submit_words_vm(d, w, bytes, flags, fence_out);
  uint64_t host;
  int rc = sgpu_alloc(d->dev, SGPU_SEGMENT_SYSTEM, bytes ? bytes : 4, 4, &host);
  if (rc) return fail(d, rc, "allocating a DMA buffer in host memory");
  if (bytes && (rc = sgpu_write(d->dev, host, w, bytes))) return fail(d, rc, "filling the DMA buffer");
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = d->ctx;
  a.dma_buffer_segment_id = SGPU_SEGMENT_SYSTEM; /* staged into the aperture by the library */
  a.dma_buffer_physical_address = host;
  a.dma_buffer_size = bytes ? bytes : 4;
  a.dma_buffer_submission_end_offset = bytes;
  a.submission_fence_id = ++d->fence;
  a.flags.value = flags;
  if (flags & SGPU_SUBMIT_FLIP) a.flip_interval = SGPU_FLIP_INTERVAL_ONE;
  a.node_ordinal = 0;
  rc = sgpu_submit_command(d->dev, &a);
  /* The library copied the range into its staging area: the host buffer can go. */
  sgpu_free(d->dev, host);
  if (rc) return fail(d, rc, "submitting");
  d->submissions++;
  if (fence_out) *fence_out = d->fence;
  return 0;
}

/* Submit what the command buffer holds (if anything) and empty it. */
static int flush(demo *d) {
  int rc = sgpu_cmdbuf_error(&d->cb);
  if (rc) return fail(d, rc, "building a command buffer");
  uint32_t bytes = sgpu_cmdbuf_size(&d->cb);
  if (bytes == 0) return 0;
  rc = submit_words(d, d->cmd, bytes, 0, NULL);
  sgpu_cmdbuf_reset(&d->cb);
  return rc;
}

/* Make room for a packet of up to `words` words. */
static int room(demo *d, uint32_t words) {
  if (sgpu_cmdbuf_size(&d->cb) / 4 + words > CMD_WORDS) return flush(d);
  return 0;
}

static int fill_rect(demo *d, uint32_t fb, int x, int y, int w, int h, uint16_t color) {
  if (x < 0) { w += x; x = 0; }
  if (y < 0) { h += y; y = 0; }
  if (x + w > (int)FB_W) w = (int)FB_W - x;
  if (y + h > (int)FB_H) h = (int)FB_H - y;
  if (w <= 0 || h <= 0) return 0;
  int rc = room(d, 6);
  if (rc) return rc;
  d->packets++;
  return sgpu_cmd_fill(&d->cb, fb + (uint32_t)y * FB_PITCH + (uint32_t)x * 2, FB_PITCH, (uint32_t)w * 2,
                       (uint32_t)h, pat(color));
}

static int copy_rect(demo *d, uint32_t dst_fb, int dx, int dy, uint32_t src, uint32_t src_pitch, int w,
                     int h) {
  int sx = 0, sy = 0;
  if (dx < 0) { sx = -dx; w += dx; dx = 0; }
  if (dy < 0) { sy = -dy; h += dy; dy = 0; }
  if (dx + w > (int)FB_W) w = (int)FB_W - dx;
  if (dy + h > (int)FB_H) h = (int)FB_H - dy;
  if (w <= 0 || h <= 0) return 0;
  int rc = room(d, 7);
  if (rc) return rc;
  d->packets++;
  return sgpu_cmd_copy(&d->cb, dst_fb + (uint32_t)dy * FB_PITCH + (uint32_t)dx * 2, FB_PITCH,
                       src + (uint32_t)sy * src_pitch + (uint32_t)sx * 2, src_pitch, (uint32_t)w * 2,
                       (uint32_t)h);
}

/* ------------------------------------------------------------ the scene */

static const char *const glyph_sgpu[4][7] = {
    {".####", "#....", "#....", ".###.", "....#", "....#", "####."},
    {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".###."},
    {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."},
    {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
};
static const char *const glyph_digit[10][5] = {
    {"###", "#.#", "#.#", "#.#", "###"}, {".#.", "##.", ".#.", ".#.", "###"},
    {"###", "..#", "###", "#..", "###"}, {"###", "..#", "###", "..#", "###"},
    {"#.#", "#.#", "###", "..#", "..#"}, {"###", "#..", "###", "..#", "###"},
    {"###", "#..", "###", "#.#", "###"}, {"###", "..#", "..#", "..#", "..#"},
    {"###", "#.#", "###", "#.#", "###"}, {"###", "#.#", "###", "..#", "###"},
};

/* Draw a bitmap glyph: each run of '#' in a row becomes one FILL. */
static int glyph(demo *d, uint32_t fb, const char *const *rows, int nrows, int x, int y, int scale,
                 uint16_t color) {
  for (int r = 0; r < nrows; r++) {
    const char *s = rows[r];
    for (int c = 0; s[c];) {
      if (s[c] != '#') { c++; continue; }
      int e = c;
      while (s[e] == '#') e++;
      int rc = fill_rect(d, fb, x + c * scale, y + r * scale, (e - c) * scale, scale, color);
      if (rc) return rc;
      c = e;
    }
  }
  return 0;
}

static uint16_t sky_color(int i) {
  /* From deep blue at the top to warm orange at the horizon. */
  int r = 20 + i * 14, g = 30 + i * 8, b = 120 - i * 5;
  if (r > 255) r = 255;
  if (b < 20) b = 20;
  return rgb((unsigned)r, (unsigned)g, (unsigned)b);
}

static int draw_frame(demo *d, uint32_t fb, int t) {
  int rc;
  /* Sky: 10 bands of 16 lines, colours drifting slowly. */
  for (int i = 0; i < 10; i++)
    if ((rc = fill_rect(d, fb, 0, 12 + i * 16, (int)FB_W, 16, sky_color((i + tri(t / 6, 3)) % 13))))
      return rc;
  /* Sun: horizontal spans of a disc, moving across the sky. */
  int sx = 20 + (t * 5) % 300, sy = 40 + tri(t * 2, 30);
  static const int span[] = {5, 8, 10, 11, 12, 12, 12, 12, 11, 10, 8, 5};
  for (int r = 0; r < 12; r++)
    if ((rc = fill_rect(d, fb, sx - span[r], sy - 12 + 2 * r, 2 * span[r], 2, rgb(255, 230, 90)))) return rc;
  /* Ground with two rows of scrolling checker tiles. */
  if ((rc = fill_rect(d, fb, 0, 172, (int)FB_W, 68, rgb(30, 90, 40)))) return rc;
  for (int row = 0; row < 2; row++) {
    int off = (t * (row ? 6 : 3)) % 32;
    for (int x = -off; x < (int)FB_W; x += 32)
      if ((rc = fill_rect(d, fb, x, 180 + row * 28, 16, 12, row ? rgb(60, 150, 70) : rgb(90, 60, 30))))
        return rc;
  }
  /* Equalizer bars. */
  for (int b = 0; b < 20; b++) {
    int h = 4 + tri(t * 3 + b * 7, 28);
    if ((rc = fill_rect(d, fb, 4 + b * 16, 170 - h, 10, h, rgb((unsigned)(b * 12), 200, 255 - (unsigned)(b * 10)))))
      return rc;
  }
  /* Bouncing sprites copied from the sprite sheet. */
  for (int s = 0; s < 5; s++) {
    int x = tri(s * 53 + t * (3 + s), (int)(FB_W - SPRITE));
    int y = 14 + tri(s * 31 + t * (2 + (s % 3)), (int)(FB_H - SPRITE - 16));
    if ((rc = copy_rect(d, fb, x, y, d->gsheet, SPRITE * 2, (int)SPRITE, (int)SPRITE))) return rc;
  }
  /* Title with a drop shadow, bobbing. */
  int ty = 60 + tri(t, 8);
  for (int g = 0; g < 4; g++) {
    if ((rc = glyph(d, fb, glyph_sgpu[g], 7, 84 + g * 40 + 3, ty + 3, 6, rgb(10, 10, 30)))) return rc;
    if ((rc = glyph(d, fb, glyph_sgpu[g], 7, 84 + g * 40, ty, 6, rgb(250, 250, 250)))) return rc;
  }
  /* Ticker strip at the top: scrolls left by 8 pixels per two frames with an
   * overlapping COPY inside the back buffer (which holds frame t-2), then the
   * new column is filled in.  Frames 0 and 1 draw it whole. */
  static const uint16_t tick[4] = {0xF800, 0x07E0, 0x001F, 0xFFE0};
  if (t < 2) {
    for (int x = 0; x < (int)FB_W; x += 4) {
      int cell = (x + 4 * t) / 16;
      if ((rc = fill_rect(d, fb, x, 0, 4, 12, (x + 4 * t) % 16 < 12 ? tick[cell % 4] : 0))) return rc;
    }
  } else {
    if ((rc = copy_rect(d, fb, 0, 0, fb + 8 * 2, FB_PITCH, (int)FB_W - 8, 12))) return rc;
    for (int x = (int)FB_W - 8; x < (int)FB_W; x += 4) {
      int cell = (x + 4 * t) / 16;
      if ((rc = fill_rect(d, fb, x, 0, 4, 12, (x + 4 * t) % 16 < 12 ? tick[cell % 4] : 0))) return rc;
    }
  }
  /* Frame counter, bottom right. */
  char num[8];
  snprintf(num, sizeof num, "%03d", t % 1000);
  if ((rc = fill_rect(d, fb, 270, 218, 46, 20, rgb(0, 0, 0)))) return rc;
  for (int k = 0; k < 3; k++)
    if ((rc = glyph(d, fb, glyph_digit[num[k] - '0'], 5, 274 + k * 14, 221, 3, rgb(120, 255, 120)))) return rc;
  return 0;
}

/* The one-time set-up stream, in the project's command-stream assembly:
 * clear both framebuffers and draw the sprite on the sheet. */
static const char setup_asm[] =
    "; sgpu-demo set-up: clear the framebuffers, draw the sprite sheet\n"
    "    fill FB0, 640, 640, 240, 0\n"
    "    fill FB1, 640, 640, 240, 0\n"
    "    fill SHEET, 64, 64, 32, 0x18e318e3          ; dark frame\n"
    "    fill SHEET + 2*64 + 4, 64, 56, 28, 0xfd20fd20 ; orange body\n"
    "    fill SHEET + 6*64 + 12, 64, 40, 20, 0xffe0ffe0 ; yellow core\n"
    "    fill SHEET + 10*64 + 24, 64, 16, 12, 0xf800f800 ; red heart\n"
    "    fill SHEET + 4*64 + 8, 64, 8, 4, 0xffffffff   ; highlight\n"
    "    fence SCRATCH, 0x600d, irq                    ; marker the demo checks\n";

/* ------------------------------------------------------------ APNG */

typedef struct apng {
  uint32_t width, height;
  uint8_t **data; /* zlib streams of each frame */
  unsigned long *size;
  uint16_t *delay_num, *delay_den;
  size_t n, cap;
} apng;

static int apng_add(apng *a, const uint8_t *rgb888, uint32_t src_w, uint32_t src_h, uint32_t step,
                    uint16_t delay_num, uint16_t delay_den) {
  uint32_t w = src_w / step, h = src_h / step;
  if (a->n == 0) {
    a->width = w;
    a->height = h;
  } else if (w != a->width || h != a->height) {
    return -1;
  }
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    uint8_t **d = realloc(a->data, cap * sizeof *d);
    if (!d) return -1;
    a->data = d;
    unsigned long *s = realloc(a->size, cap * sizeof *s);
    if (!s) return -1;
    a->size = s;
    uint16_t *dn = realloc(a->delay_num, cap * sizeof *dn);
    if (!dn) return -1;
    a->delay_num = dn;
    uint16_t *dd = realloc(a->delay_den, cap * sizeof *dd);
    if (!dd) return -1;
    a->delay_den = dd;
    a->cap = cap;
  }
  /* Scanlines with filter type 1 (Sub): flat areas become runs of zeros. */
  size_t row = (size_t)w * 3 + 1;
  uint8_t *raw = malloc(row * h);
  if (!raw) return -1;
  for (uint32_t y = 0; y < h; y++) {
    uint8_t *o = raw + (size_t)y * row;
    const uint8_t *s = rgb888 + (size_t)y * step * src_w * 3;
    o[0] = 1;
    for (uint32_t x = 0; x < w; x++)
      for (int c = 0; c < 3; c++) {
        uint8_t v = s[(size_t)x * step * 3 + (size_t)c];
        uint8_t left = x ? s[(size_t)(x - 1) * step * 3 + (size_t)c] : 0;
        o[1 + (size_t)x * 3 + (size_t)c] = (uint8_t)(v - left);
      }
  }
  uLongf clen = compressBound((uLong)(row * h));
  uint8_t *z = malloc(clen);
  if (!z) {
    free(raw);
    return -1;
  }
  int zr = compress2(z, &clen, raw, (uLong)(row * h), 6);
  free(raw);
  if (zr != Z_OK) {
    free(z);
    return -1;
  }
  a->data[a->n] = z;
  a->size[a->n] = clen;
  a->delay_num[a->n] = delay_num;
  a->delay_den[a->n] = delay_den;
  a->n++;
  return 0;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static int chunk(FILE *f, const char *type, const uint8_t *pre, size_t npre, const uint8_t *data, size_t n) {
  uint8_t hdr[8];
  put32(hdr, (uint32_t)(npre + n));
  memcpy(hdr + 4, type, 4);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, hdr + 4, 4);
  if (npre) crc = crc32(crc, pre, (uInt)npre);
  if (n) crc = crc32(crc, data, (uInt)n);
  uint8_t tail[4];
  put32(tail, (uint32_t)crc);
  if (fwrite(hdr, 1, 8, f) != 8) return -1;
  if (npre && fwrite(pre, 1, npre, f) != npre) return -1;
  if (n && fwrite(data, 1, n, f) != n) return -1;
  return fwrite(tail, 1, 4, f) == 4 ? 0 : -1;
}

static int apng_write(const apng *a, const char *path) {
  if (a->n == 0) return -1;
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  int bad = fwrite(sig, 1, 8, f) != 8;
  uint8_t ihdr[13];
  put32(ihdr, a->width);
  put32(ihdr + 4, a->height);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 2;  /* RGB */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* adaptive filtering */
  ihdr[12] = 0; /* no interlace */
  bad |= chunk(f, "IHDR", NULL, 0, ihdr, 13);
  uint8_t actl[8];
  put32(actl, (uint32_t)a->n);
  put32(actl + 4, 0); /* loop forever */
  bad |= chunk(f, "acTL", NULL, 0, actl, 8);
  uint32_t seq = 0;
  for (size_t i = 0; i < a->n && !bad; i++) {
    uint8_t fctl[26];
    put32(fctl, seq++);
    put32(fctl + 4, a->width);
    put32(fctl + 8, a->height);
    put32(fctl + 12, 0);
    put32(fctl + 16, 0);
    fctl[20] = (uint8_t)(a->delay_num[i] >> 8);
    fctl[21] = (uint8_t)a->delay_num[i];
    fctl[22] = (uint8_t)(a->delay_den[i] >> 8);
    fctl[23] = (uint8_t)a->delay_den[i];
    fctl[24] = 0; /* dispose: none */
    fctl[25] = 0; /* blend: source */
    bad |= chunk(f, "fcTL", NULL, 0, fctl, 26);
    if (i == 0) {
      bad |= chunk(f, "IDAT", NULL, 0, a->data[i], a->size[i]);
    } else {
      uint8_t s[4];
      put32(s, seq++);
      bad |= chunk(f, "fdAT", s, 4, a->data[i], a->size[i]);
    }
  }
  bad |= chunk(f, "IEND", NULL, 0, NULL, 0);
  bad |= fclose(f) != 0;
  return bad ? -1 : 0;
}

static void apng_free(apng *a) {
  for (size_t i = 0; i < a->n; i++) free(a->data[i]);
  free(a->data);
  free(a->size);
  free(a->delay_num);
  free(a->delay_den);
}

/* ------------------------------------------------------------ main */

typedef struct frame_rec {
  uint64_t number, start_cycle, cycles;
  uint32_t crc, scanout, fence;
} frame_rec;

static void usage(FILE *f) {
  fprintf(f,
          "usage: sgpu-demo [--out DIR] [--frames N] [--device URI] [--budget SECONDS] [--vm]\n"
          "\nDraw an animated scene with FILL/COPY into two 320x240 RGB565 framebuffers,\n"
          "flip between them at vsync, capture every shown frame from the display and\n"
          "write DIR/frame_NNN.png, DIR/demo.png (animated PNG) and DIR/report.txt.\n"
          "\n  --out DIR        output directory (default build/demo)\n"
          "  --frames N       frames to render (default %u)\n"
          "  --device URI     device (default sim)\n"
          "  --budget SECONDS stop early (with a note) when the wall-clock time would\n"
          "                   exceed this (default 55; 0 = no limit)\n"
          "  --vm             draw from a VM context (GPU virtual memory, CAPS.VM): the\n"
          "                   buffers mapped, every packet address virtual\n",
          DEFAULT_FRAMES);
}

static int run(demo *d, const char *out, uint32_t frames, double budget, const char *uri);

int main(int argc, char **argv) {
  const char *out = "build/demo", *uri = NULL;
  int vm = 0;
  uint32_t frames = DEFAULT_FRAMES;
  double budget = 55;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--vm")) {
      vm = 1;
    } else if (!strcmp(a, "--out") && v) {
      out = v;
      i++;
    } else if (!strcmp(a, "--device") && v) {
      uri = v;
      i++;
    } else if (!strcmp(a, "--frames") && v) {
      char *e;
      unsigned long n = strtoul(v, &e, 0);
      if (*e || n == 0 || n > 10000) {
        fprintf(stderr, "sgpu-demo: bad --frames '%s' (1..10000)\n", v);
        return 1;
      }
      frames = (uint32_t)n;
      i++;
    } else if (!strcmp(a, "--budget") && v) {
      char *e;
      budget = strtod(v, &e);
      if (*e || budget < 0) {
        fprintf(stderr, "sgpu-demo: bad --budget '%s'\n", v);
        return 1;
      }
      i++;
    } else {
      fprintf(stderr, "sgpu-demo: unknown or incomplete option '%s' (see sgpu-demo --help)\n", a);
      return 1;
    }
  }
  demo *d = calloc(1, sizeof *d);
  if (!d) return 3;
  d->vm = vm;
  int rc = run(d, out, frames, budget, uri);
  if (d->ctx) sgpu_destroy_context(d->ctx);
  if (d->dev) sgpu_close(d->dev);
  free(d);
  return rc ? (rc > 0 ? rc : 3) : 0;
}

static int drain_events(demo *d, uint64_t *completed, uint64_t *vsyncs, uint64_t *faults) {
  sgpu_event ev;
  while (sgpu_next_event(d->dev, &ev, 0) == 0) {
    if (ev.type == SGPU_EVENT_DMA_COMPLETED) (*completed)++;
    else if (ev.type == SGPU_EVENT_CRTC_VSYNC) (*vsyncs)++;
    else if (ev.type == SGPU_EVENT_DMA_FAULTED || ev.type == SGPU_EVENT_DMA_DROPPED) {
      (*faults)++;
      fprintf(stderr, "sgpu-demo: GPU fault on node %u: reason %u at 0x%08x (fence %u)\n", ev.node_ordinal,
              ev.fault_reason, ev.fault_address, ev.fence_id);
    }
  }
  return *faults ? -1 : 0;
}

static int run(demo *d, const char *out, uint32_t frames, double budget, const char *uri) {
  double t_start = now_s();
  if (mkdirs(out)) {
    fprintf(stderr, "sgpu-demo: cannot create '%s': %s\n", out, strerror(errno));
    return 2;
  }
  int rc = sgpu_open(uri, &d->dev);
  if (rc) return fail(d, rc, "opening the device");
  sgpu_info info;
  if ((rc = sgpu_query_info(d->dev, &info))) return fail(d, rc, "querying the device");
  if (!info.has_display || !info.has_2d) {
    fprintf(stderr, "sgpu-demo: the device has no %s\n", info.has_display ? "2D engine" : "display");
    return 3;
  }
  printf("sgpu-demo: device %s, hw %u.%u, %u nodes, %u sources, %u bytes of GPU memory\n", info.transport,
         info.hw_version_major, info.hw_version_minor, info.node_count, info.source_count, info.mem_size);
  if (d->vm) {
    if (!info.has_vm) {
      fprintf(stderr, "sgpu-demo: --vm: the device has no GPU virtual memory (CAPS.VM = 0)\n");
      return 3;
    }
    rc = sgpu_create_context_vm(d->dev, 0, &d->ctx);
  } else {
    rc = sgpu_create_context(d->dev, 0, &d->ctx);
  }
  if (rc) return fail(d, rc, "creating a context");
  /* with --vm every buffer is whole pages, so that it can be mapped */
  uint32_t fb_alloc = d->vm ? PAGE_ROUND(FB_BYTES) : FB_BYTES;
  uint32_t sheet_alloc = d->vm ? PAGE_ROUND(SPRITE * SPRITE * 2) : SPRITE * SPRITE * 2;
  uint64_t a, va;
  for (int k = 0; k < 2; k++) {
    if ((rc = sgpu_alloc(d->dev, SGPU_SEGMENT_LOCAL, fb_alloc, 4096, &a))) return fail(d, rc, "allocating a framebuffer");
    d->fb[k] = d->gfb[k] = (uint32_t)a;
  }
  if ((rc = sgpu_alloc(d->dev, SGPU_SEGMENT_LOCAL, sheet_alloc, d->vm ? 4096 : 256, &a)))
    return fail(d, rc, "allocating the sprite sheet");
  d->sheet = d->gsheet = (uint32_t)a;
  uint64_t scratch;
  if ((rc = sgpu_alloc(d->dev, SGPU_SEGMENT_LOCAL, 4096, 4096, &scratch))) return fail(d, rc, "allocating scratch memory");
  uint32_t gscratch = (uint32_t)scratch;
  if (d->vm) {
    for (int k = 0; k < 2; k++) {
      if ((rc = sgpu_map(d->ctx, d->fb[k], fb_alloc, SGPU_MAP_WRITE, &va))) return fail(d, rc, "mapping a framebuffer");
      d->gfb[k] = (uint32_t)va;
      if ((rc = sgpu_alloc(d->dev, SGPU_SEGMENT_LOCAL, CMD_BYTES_VM, 4096, &d->cmd_pa[k])) ||
          (rc = sgpu_map(d->ctx, d->cmd_pa[k], CMD_BYTES_VM, SGPU_MAP_READ, &d->cmd_va[k])))
        return fail(d, rc, "making a command buffer");
    }
    if ((rc = sgpu_map(d->ctx, d->sheet, sheet_alloc, SGPU_MAP_WRITE, &va))) return fail(d, rc, "mapping the sheet");
    d->gsheet = (uint32_t)va;
    if ((rc = sgpu_map(d->ctx, scratch, 4096, SGPU_MAP_WRITE, &va))) return fail(d, rc, "mapping scratch memory");
    gscratch = (uint32_t)va;
    printf("sgpu-demo: VM context: framebuffers at va 0x%x, 0x%x, sheet at va 0x%x\n", d->gfb[0], d->gfb[1],
           d->gsheet);
  }
  sgpu_cmdbuf_init(&d->cb, d->cmd, sizeof d->cmd);

  /* Set-up stream, assembled from text. */
  const sgpu_asm_symbol syms[] = {{"FB0", d->gfb[0]}, {"FB1", d->gfb[1]}, {"SHEET", d->gsheet},
                                  {"SCRATCH", gscratch}};
  sgpu_asm_options ao = {0, syms, sizeof syms / sizeof syms[0]};
  uint32_t *setup = NULL;
  size_t nsetup = 0;
  sgpu_asm_error ae;
  rc = sgpu_asm_assemble_ex(setup_asm, sizeof setup_asm - 1, "demo-setup.s", &ao, &setup, &nsetup, &ae);
  if (rc) {
    fprintf(stderr, "sgpu-demo: %s\n", ae.message);
    return 2;
  }
  uint32_t fence;
  rc = submit_words(d, setup, (uint32_t)(nsetup * 4), 0, &fence);
  free(setup);
  if (rc) return rc;
  if ((rc = sgpu_wait_fence(d->dev, 0, fence, 1000))) return fail(d, rc, "waiting for the set-up");
  uint32_t marker = 0;
  sgpu_read(d->dev, scratch, &marker, 4);
  if (marker != 0x600d) {
    fprintf(stderr, "sgpu-demo: the set-up stream's FENCE wrote 0x%x, not 0x600d\n", marker);
    return 4;
  }

  sgpu_display_mode m;
  memset(&m, 0, sizeof m);
  m.width = FB_W;
  m.height = FB_H;
  m.pitch = FB_PITCH;
  m.format = SGPU_FORMAT_RGB565;
  m.address = d->fb[0];
  if ((rc = sgpu_set_display_mode(d->dev, 0, &m))) return fail(d, rc, "setting the display mode");
  sgpu_get_display_mode(d->dev, 0, &m);
  printf("sgpu-demo: display %ux%u RGB565 replicated %ux%u to %ux%u at %u.%03u Hz; %u frames -> %s\n", m.width,
         m.height, m.replication_x, m.replication_y, m.timing_width, m.timing_height, m.refresh_mhz / 1000,
         m.refresh_mhz % 1000, frames, out);
  sgpu_enable_vsync_events(d->dev, 0, 1);

  uint32_t flips0 = 0, under0 = 0;
  sgpu_reg_read(d->dev, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_FLIP_COUNT), &flips0);
  frame_rec *rec = calloc(frames, sizeof *rec);
  apng an;
  memset(&an, 0, sizeof an);
  if (!rec) return 3;
  uint64_t completed = 0, vsyncs = 0, faults = 0, cyc0 = 0, cyc_prev = 0, cyc = 0;
  uint64_t cyc_min = UINT64_MAX, cyc_max = 0;
  uint32_t done = 0;
  bool stopped_early = false;
  double t_loop = now_s();
  uint64_t cyc_loop0 = 0, cyc_loop1 = 0;
  sgpu_get_cycles(d->dev, &cyc_loop0);
  /* Synchronise with the display: from here on each capture returns the
   * next video frame, one frame period after the previous one. */
  sgpu_frame fr;
  if ((rc = sgpu_capture_frame(d->dev, 0, &fr))) {
    free(rec);
    return fail(d, rc, "capturing the first frame");
  }
  uint64_t video0 = fr.frame_number;
  sgpu_frame_release(&fr);
  /* Iteration k: draw picture k and queue its flip (the GPU holds the flip
   * until vblank), then capture the frame being emitted, which shows
   * picture k-1 (iteration 0's shows the set-up's cleared buffer: skipped). */
  for (uint32_t k = 0; k <= frames; k++) {
    if (k < frames) {
      uint32_t back = d->gfb[(k + 1) % 2]; /* FB0 is on screen at the start */
      if ((rc = draw_frame(d, back, (int)k)) || (rc = flush(d))) break;
      uint32_t words[4];
      sgpu_cmdbuf fcb;
      sgpu_cmdbuf_init(&fcb, words, sizeof words);
      sgpu_cmd_flip(&fcb, 0, back, SGPU_FLIP_INTERVAL_ONE, 0);
      if ((rc = submit_words(d, words, sgpu_cmdbuf_size(&fcb), SGPU_SUBMIT_FLIP, &fence))) break;
      rec[k].fence = fence; /* the flip fence of picture k */
    }
    if ((rc = sgpu_capture_frame(d->dev, 0, &fr))) {
      fail(d, rc, "capturing a frame");
      break;
    }
    sgpu_get_cycles(d->dev, &cyc); /* before the event reads, so the periods are exact */
    if (drain_events(d, &completed, &vsyncs, &faults)) {
      sgpu_frame_release(&fr);
      rc = 4;
      break;
    }
    if (k == 0) {
      video0 = fr.frame_number;
      cyc0 = cyc_prev = cyc;
      sgpu_frame_release(&fr);
      continue;
    }
    uint32_t i = k - 1;
    frame_rec *r = &rec[i];
    r->number = fr.frame_number;
    r->start_cycle = fr.start_cycle;
    r->cycles = cyc - cyc_prev;
    cyc_prev = cyc;
    if (r->cycles < cyc_min) cyc_min = r->cycles;
    if (r->cycles > cyc_max) cyc_max = r->cycles;
    r->scanout = fr.scanout_address;
    r->crc = (uint32_t)crc32(0L, fr.pixels, (uInt)((size_t)fr.width * fr.height * 3));
    char path[1200];
    snprintf(path, sizeof path, "%s/frame_%03u.png", out, i);
    rc = sgpu_write_png(&fr, path);
    if (rc) {
      fail(d, rc, path);
      sgpu_frame_release(&fr);
      break;
    }
    uint64_t shown = i ? fr.frame_number - rec[i - 1].number : 1;
    if (shown == 0 || shown > 60) shown = 1;
    /* The capture is 640x480 of a 2x2-replicated 320x240 buffer: keep 320x240. */
    uint32_t step = fr.width == 2 * FB_W && fr.height == 2 * FB_H ? 2 : 1;
    if (apng_add(&an, fr.pixels, fr.width, fr.height, step, (uint16_t)(shown * 1001), 60000)) {
      fprintf(stderr, "sgpu-demo: APNG encoding failed\n");
      sgpu_frame_release(&fr);
      rc = 3;
      break;
    }
    sgpu_frame_release(&fr);
    done = i + 1;
    double el = now_s() - t_start;
    printf("frame %3u/%u: video frame %llu, scanout 0x%08x, fence %u, %llu cycles, crc32 %08x, %.1f s\n", done,
           frames, (unsigned long long)r->number, r->scanout, r->fence, (unsigned long long)r->cycles, r->crc, el);
    fflush(stdout);
    double per = (now_s() - t_loop) / (k + 1);
    if (budget > 0 && done < frames && el + per * 1.5 > budget) {
      printf("sgpu-demo: stopping after %u frames to stay within the %.0f s budget\n", done, budget);
      stopped_early = true;
      break;
    }
  }
  double wall = now_s() - t_loop;
  sgpu_get_cycles(d->dev, &cyc_loop1);
  double speed = wall > 0 ? (double)(cyc_loop1 - cyc_loop0) / wall : 0.0;
  if (rc) {
    free(rec);
    apng_free(&an);
    return rc > 0 ? rc : 4;
  }
  /* Figures over the recorded frames: from the end of the skipped first
   * frame of the loop to the end of the last recorded one. */
  uint64_t total = cyc_prev - cyc0;
  uint64_t video_frames = done ? rec[done - 1].number - video0 : 0;
  /* A stop by the budget can leave the last picture's flip queued. */
  if ((rc = sgpu_wait_idle(d->dev, 1000))) {
    free(rec);
    apng_free(&an);
    return fail(d, rc, "waiting for the last submissions");
  }
  uint32_t flips1 = 0, vbl = 0, packets = 0;
  sgpu_reg_read(d->dev, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_FLIP_COUNT), &flips1);
  sgpu_reg_read(d->dev, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_UNDERFLOW), &under0);
  sgpu_reg_read(d->dev, SGPU_SOURCE_REG(0, SGPU_SREG_DISP_VBLANK_COUNT), &vbl);
  sgpu_reg_read(d->dev, SGPU_NODE_REG(0, SGPU_NREG_PERF_PACKETS), &packets);
  sgpu_fence_info fi;
  memset(&fi, 0, sizeof fi);
  sgpu_get_fence(d->dev, 0, &fi);
  drain_events(d, &completed, &vsyncs, &faults);

  char apath[1200];
  snprintf(apath, sizeof apath, "%s/demo.png", out);
  if (apng_write(&an, apath)) {
    fprintf(stderr, "sgpu-demo: cannot write '%s'\n", apath);
    free(rec);
    apng_free(&an);
    return 2;
  }
  /* Report. */
  char rpath[1200];
  snprintf(rpath, sizeof rpath, "%s/report.txt", out);
  FILE *rf = fopen(rpath, "w");
  if (!rf) {
    fprintf(stderr, "sgpu-demo: cannot write '%s': %s\n", rpath, strerror(errno));
    free(rec);
    apng_free(&an);
    return 2;
  }
  size_t distinct = 0;
  for (uint32_t i = 0; i < done; i++) {
    bool seen = false;
    for (uint32_t k = 0; k < i; k++)
      if (rec[k].crc == rec[i].crc) seen = true;
    if (!seen) distinct++;
  }
  for (int pass = 0; pass < 2; pass++) {
    FILE *f = pass ? rf : stdout;
    fprintf(f, "sgpu-demo report\n");
    fprintf(f, "frames rendered:        %u of %u%s\n", done, frames, stopped_early ? " (stopped by the time budget)" : "");
    fprintf(f, "submissions:            %llu (draw %llu packets, %u packets executed by node 0)\n",
            (unsigned long long)d->submissions, (unsigned long long)d->packets, packets);
    fprintf(f, "fences:                 last submitted %llu, last completed %llu, DMA_COMPLETED events %llu\n",
            (unsigned long long)fi.submitted, (unsigned long long)fi.completed, (unsigned long long)completed);
    fprintf(f, "flips:                  %u taken (DISP_FLIP_COUNT), %llu CRTC_VSYNC events, %u vblanks\n",
            flips1 - flips0, (unsigned long long)vsyncs, vbl);
    fprintf(f, "scanout underflows:     %u\n", under0);
    fprintf(f, "GPU faults:             %llu\n", (unsigned long long)faults);
    fprintf(f, "simulated cycles:       %llu (%.2f s of GPU time at %u Hz), %llu per frame (min %llu, max %llu)\n",
            (unsigned long long)total, (double)total / info.clock_hz, info.clock_hz,
            (unsigned long long)(done ? total / done : 0), (unsigned long long)(done ? cyc_min : 0),
            (unsigned long long)cyc_max);
    fprintf(f, "video frames:           %llu for %u captured frames (%.2f per frame; frame period %llu cycles)\n",
            (unsigned long long)video_frames, done, done ? (double)video_frames / done : 0.0,
            (unsigned long long)((uint64_t)SGPU_TIMING_VGA_H_TOTAL * SGPU_TIMING_VGA_V_TOTAL));
    fprintf(f, "model speed:            %.0f cycles/s of wall-clock time (%.1f s for the frames)\n",
            speed, wall);
    fprintf(f, "distinct frames:        %zu of %u\n", distinct, done);
    fprintf(f, "outputs:                %s/frame_000.png .. frame_%03u.png, %s (APNG, %zu frames)\n", out,
            done ? done - 1 : 0, apath, an.n);
    fprintf(f, "frame  video#  start_cycle   cycles   scanout     fence  crc32\n");
    for (uint32_t i = 0; i < done; i++)
      fprintf(f, "%5u  %6llu  %11llu  %7llu  0x%08x  %5u  %08x\n", i, (unsigned long long)rec[i].number,
              (unsigned long long)rec[i].start_cycle, (unsigned long long)rec[i].cycles, rec[i].scanout,
              rec[i].fence, rec[i].crc);
  }
  fclose(rf);
  printf("FIGURE demo cycles per frame: %llu\n", (unsigned long long)(done ? total / done : 0));
  printf("FIGURE demo video frames per captured frame: %.2f\n", done ? (double)video_frames / done : 0.0);
  printf("FIGURE demo fences: %llu submitted, %llu completed\n", (unsigned long long)fi.submitted,
         (unsigned long long)fi.completed);
  printf("FIGURE demo flips: %u taken for %u frames\n", flips1 - flips0, done);
  printf("FIGURE demo scanout underflows: %u\n", under0);
  printf("FIGURE demo model speed: %.0f cycles/s\n", speed);
  printf("FIGURE demo wall time: %.1f s for %u frames\n", now_s() - t_start, done);
  free(rec);
  apng_free(&an);
  if (under0 || faults) return 4;
  return 0;
}
