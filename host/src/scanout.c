/* scanout.c — frame capture by framebuffer readback (scanout.h).
 *
 * As the in-process model runs to the end of a frame, a capture first waits
 * for the next vblank of an enabled display (at most SCANOUT_VBLANK_MS of
 * the transport's time), so that what a host wrote before (a mode, a base:
 * they take effect at a vblank) is what it reads.  Then DISP_BASE,
 * DISP_PITCH, DISP_CONTROL and DISP_TIMING say what the display shows, and
 * each framebuffer row is read once and rendered with its pixel and line
 * replication. */
#include "scanout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pixfmt.h"

#define SCANOUT_MAX 2048u        /* largest display timing side a capture believes */
#define SCANOUT_VBLANK_MS 3000u  /* longest wait for the vblank before a capture (a VGA
                                    frame is 0.5 to 1 s of wall time in sgpu-sim) */
#define SCANOUT_POLL_MS 5u       /* between two reads of VBLANK_COUNT while waiting */
#define CYCLES_PER_MS (SGPU_NOMINAL_CLOCK_HZ / 1000u)

void sgpu__scanout_init(sgpu_scanout *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
}

void sgpu__scanout_free(sgpu_scanout *s) {
  for (uint32_t i = 0; i < SGPU_MAX_SOURCES; i++) free(s->rgb[i]);
  free(s->row);
  pthread_mutex_destroy(&s->mu);
}

int sgpu__scanout_frame(sgpu_scanout *s, uint32_t source, sgpu_tr_frame *frame) {
  if (source >= SGPU_MAX_SOURCES) return SGPU_ERROR_INVALID_SOURCE;
  pthread_mutex_lock(&s->mu);
  *frame = s->cap[source];
  pthread_mutex_unlock(&s->mu);
  return 0;
}

static uint32_t sreg(uint32_t s, uint32_t r) { return SGPU_SOURCE_REG(s, r); }

/* Until the source's VBLANK_COUNT moves (or the wait's limit). */
static int wait_vblank(sgpu_transport *t, uint32_t source) {
  const sgpu_transport_ops *ops = t->ops;
  uint64_t until = ops->now(t) + (uint64_t)SCANOUT_VBLANK_MS * CYCLES_PER_MS;
  uint32_t vb0 = 0, vb;
  int r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_VBLANK_COUNT), &vb0);
  for (vb = vb0; !r && vb == vb0;) {
    uint64_t now = ops->now(t);
    if (now >= until) break;
    uint64_t step = (uint64_t)SCANOUT_POLL_MS * CYCLES_PER_MS;
    r = ops->run(t, until - now < step ? until - now : step, 0);
    if (!r) r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_VBLANK_COUNT), &vb);
  }
  return r;
}

/* p with room for n bytes (of *cap): grown, or NULL out of memory (p kept). */
static void *reserve(void *p, size_t *cap, size_t n) {
  if (n <= *cap) return p;
  void *q = realloc(p, n);
  if (q) *cap = n;
  return q;
}

int sgpu__scanout_capture(sgpu_scanout *s, sgpu_transport *t, uint32_t source, char *why,
                          size_t why_size) {
  if (source >= SGPU_MAX_SOURCES) return SGPU_ERROR_INVALID_SOURCE;
  const sgpu_transport_ops *ops = t->ops;
  uint32_t ctl = 0, base = 0, pitch = 0, timing = 0;
  int r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_CONTROL), &ctl);
  if (!r && (ctl & SGPU_DISP_CONTROL_ENABLE_MASK)) {
    r = wait_vblank(t, source);
    if (!r) r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_CONTROL), &ctl);
  }
  if (!r) r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_BASE), &base);
  if (!r) r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_PITCH), &pitch);
  if (!r) r = ops->reg_read(t, sreg(source, SGPU_SREG_DISP_TIMING), &timing);
  if (r) return r;
  uint32_t w = sgpu_disp_timing_width(timing), h = sgpu_disp_timing_height(timing);
  if (w == 0 || h == 0 || w > SCANOUT_MAX || h > SCANOUT_MAX) {
    /* not a timing this chip has: a broken or hostile device */
    if (why) snprintf(why, why_size, "the device reports a %ux%u display timing (1..%u each)", w, h,
                      SCANOUT_MAX);
    return SGPU_ERROR_IO;
  }
  uint32_t format = (ctl >> SGPU_DISP_FORMAT_SHIFT) & 1, hrep = (ctl >> SGPU_DISP_HREP_SHIFT) & 3,
           vrep = (ctl >> SGPU_DISP_VREP_SHIFT) & 3;
  uint32_t fw = (w + (1u << hrep) - 1) >> hrep, fh = (h + (1u << vrep) - 1) >> vrep;
  uint32_t row_bytes = format == SGPU_PIXFMT_RGB332 ? fw : 2 * fw;
  pthread_mutex_lock(&s->mu);
  s->cap[source].rgb = NULL; /* its pixels change now: no frame until this capture completes */
  uint8_t *px = reserve(s->rgb[source], &s->rgb_cap[source], (size_t)w * h * 3);
  if (px) s->rgb[source] = px;
  pthread_mutex_unlock(&s->mu);
  uint32_t *row = px ? reserve(s->row, &s->row_cap, (size_t)row_bytes + 8) : NULL;
  if (row) s->row = row;
  if (!px || !row) return SGPU_ERROR_NO_MEM;
  uint8_t *rgb = s->rgb[source];
  for (uint32_t fy = 0; fy < fh; fy++) {
    if ((r = ops->mem_read(t, base + fy * pitch, s->row, row_bytes))) return r;
    for (uint32_t y = fy << vrep; y < ((fy + 1) << vrep) && y < h; y++)
      sgpu__pixfmt_row(format, (const uint8_t *)s->row, hrep, w, rgb + (size_t)y * w * 3);
  }
  uint64_t now = ops->now(t);
  pthread_mutex_lock(&s->mu);
  sgpu_tr_frame *f = &s->cap[source];
  f->width = w;
  f->height = h;
  f->rgb = rgb;
  f->frame_number = ++s->count[source];
  f->start_cycle = now;
  f->h_total = 0;
  f->v_total = 0;
  f->scanout_address = base;
  f->scanout_valid = 1;
  pthread_mutex_unlock(&s->mu);
  return 0;
}
