/* display.c — display modes, frame capture, PNG output. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "regs.h"
#include "remote.h"

#define SGPU_CAPTURE_LINK_SECONDS 10u /* a frame capture's allowance for the transfer on a link */

static uint32_t sreg(uint32_t s, uint32_t r) { return SGPU_SOURCE_REG(s, r); }

static int rep_log2(uint32_t timing, uint32_t size, uint32_t *lg) {
  for (uint32_t l = 0; l <= 2; l++)
    if (size << l == timing) {
      *lg = l;
      return 0;
    }
  return -1;
}

int sgpu_set_display_mode(sgpu_device *dev, uint32_t source, const sgpu_display_mode *m) {
  if (!dev || !m) return SGPU_ERROR_INVALID_PARAM;
  if (source >= dev->sources)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_SOURCE, "display source %u does not exist (%u sources)",
                      source, dev->sources);
  if (dev->remote) return sgpu__remote_set_display_mode(dev, source, m);
  uint32_t tiny = dev->video_tiny ? 1u << SGPU_DISP_TINY_SHIFT : 0;
  if (m->width == 0 && m->height == 0) {
    sgpu__lock(dev);
    int r = sgpu__reg_write(dev, sreg(source, SGPU_SREG_DISP_CONTROL), tiny);
    sgpu__unlock(dev);
    return r;
  }
  uint32_t tw = dev->video_tiny ? SGPU_TIMING_TINY_H_ACTIVE : SGPU_TIMING_VGA_H_ACTIVE;
  uint32_t th = dev->video_tiny ? SGPU_TIMING_TINY_V_ACTIVE : SGPU_TIMING_VGA_V_ACTIVE;
  uint32_t hl, vl;
  if (m->format > SGPU_FORMAT_RGB332)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_MODE, "format %u is not RGB565 (0) or RGB332 (1)",
                      m->format);
  if (m->width > tw || rep_log2(tw, m->width, &hl) || m->height > th || rep_log2(th, m->height, &vl))
    return sgpu__fail(dev, SGPU_ERROR_INVALID_MODE,
                      "%ux%u does not fill the %ux%u timing by replication 1, 2 or 4", m->width,
                      m->height, tw, th);
  uint32_t bpp = m->format == SGPU_FORMAT_RGB565 ? 2 : 1;
  uint32_t minp = m->width * bpp;
  uint32_t pitch = m->pitch ? m->pitch : (minp + 3) & ~3u;
  if (pitch % SGPU_SREG_DISP_PITCH_ALIGN || pitch < minp || pitch > SGPU_MAX_BLIT_DIM)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_MODE,
                      "pitch %u must be 4-aligned, >= %u and <= %u", pitch, minp, SGPU_MAX_BLIT_DIM);
  if (m->address & 3 || (uint64_t)m->address + (uint64_t)pitch * m->height > dev->mem_size)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS,
                      "framebuffer 0x%x (%u bytes) is misaligned or leaves GPU memory", m->address,
                      pitch * m->height);
  uint32_t ctl = 1u << SGPU_DISP_ENABLE_SHIFT | m->format << SGPU_DISP_FORMAT_SHIFT |
                 hl << SGPU_DISP_HREP_SHIFT | vl << SGPU_DISP_VREP_SHIFT | tiny;
  sgpu__lock(dev);
  int r = sgpu__reg_write(dev, sreg(source, SGPU_SREG_DISP_PITCH), pitch);
  if (!r) r = sgpu__reg_write(dev, sreg(source, SGPU_SREG_DISP_BASE), m->address);
  if (!r) r = sgpu__reg_write(dev, sreg(source, SGPU_SREG_DISP_CONTROL), ctl);
  uint32_t e = 0, ea = 0;
  if (!r) r = sgpu__reg_read(dev, SGPU_REG_CFG_ERROR, &e);
  if (!r && e) {
    sgpu__reg_read(dev, SGPU_REG_CFG_ERROR_ADDR, &ea);
    sgpu__reg_write(dev, SGPU_REG_CFG_ERROR, e);
    r = sgpu__fail(dev, SGPU_ERROR_INVALID_MODE,
                   "the display rejected the write to register 0x%03x (CFG_ERROR 0x%x)", ea, e);
  }
  sgpu__unlock(dev);
  return r;
}

int sgpu_get_display_mode(sgpu_device *dev, uint32_t source, sgpu_display_mode *m) {
  if (!dev || !m) return SGPU_ERROR_INVALID_PARAM;
  if (source >= dev->sources)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_SOURCE, "display source %u does not exist (%u sources)",
                      source, dev->sources);
  if (dev->remote) return sgpu__remote_get_display_mode(dev, source, m);
  uint32_t ctl = 0, base = 0, pitch = 0, timing = 0;
  sgpu__lock(dev);
  int r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_CONTROL), &ctl);
  if (!r) r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_BASE), &base);
  if (!r) r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_PITCH), &pitch);
  if (!r) r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_TIMING), &timing);
  sgpu__unlock(dev);
  if (r) return r;
  memset(m, 0, sizeof *m);
  uint32_t is_tiny = (ctl >> SGPU_DISP_TINY_SHIFT) & 1u;
  m->timing_width = sgpu_disp_timing_width(timing);
  m->timing_height = sgpu_disp_timing_height(timing);
  if (!m->timing_width || !m->timing_height) { /* register not implemented: derive */
    m->timing_width = is_tiny ? SGPU_TIMING_TINY_H_ACTIVE : SGPU_TIMING_VGA_H_ACTIVE;
    m->timing_height = is_tiny ? SGPU_TIMING_TINY_V_ACTIVE : SGPU_TIMING_VGA_V_ACTIVE;
  }
  m->replication_x = 1u << ((ctl >> SGPU_DISP_HREP_SHIFT) & 3u);
  m->replication_y = 1u << ((ctl >> SGPU_DISP_VREP_SHIFT) & 3u);
  m->enabled = (ctl >> SGPU_DISP_ENABLE_SHIFT) & 1u;
  m->format = (ctl >> SGPU_DISP_FORMAT_SHIFT) & 1u;
  m->width = m->timing_width / m->replication_x;
  m->height = m->timing_height / m->replication_y;
  m->pitch = pitch;
  m->address = base;
  uint64_t total = is_tiny ? (uint64_t)SGPU_TIMING_TINY_H_TOTAL * SGPU_TIMING_TINY_V_TOTAL
                           : (uint64_t)SGPU_TIMING_VGA_H_TOTAL * SGPU_TIMING_VGA_V_TOTAL;
  m->refresh_mhz = (uint32_t)((uint64_t)SGPU_NOMINAL_CLOCK_HZ * 1000u / total);
  return 0;
}

/* Advance time until the source's capture completes a frame, at most
 * max_cycles.  Transports without run_until_frame are polled in small steps
 * (so the return is at most `step` cycles late). */
static int run_to_frame_end(sgpu_device *dev, uint32_t source, uint64_t max_cycles,
                            uint64_t frame_number, uint64_t period) {
  const sgpu_transport_ops *ops = dev->tr->ops;
  if (ops->run_until_frame) return ops->run_until_frame(dev->tr, source, max_cycles);
  uint64_t end = ops->now(dev->tr) + max_cycles;
  uint64_t step = period / 64 ? period / 64 : 1;
  for (;;) {
    sgpu_tr_frame f;
    memset(&f, 0, sizeof f);
    int r = ops->frame(dev->tr, source, &f);
    if (r) return r;
    if (f.frame_number != frame_number) return 0;
    uint64_t now = ops->now(dev->tr);
    if (now >= end) return 0;
    if ((r = ops->run(dev->tr, end - now < step ? end - now : step, 0))) return r;
  }
}

/* Frames run from one vsync start to the next.  The capture returns in the
 * cycle after the vsync that ends the frame; DISP_BASE read then is the
 * address the following frame scans out (flips latch at vblank start, before
 * that vsync), so it is kept for the next capture. */
int sgpu_capture_frame(sgpu_device *dev, uint32_t source, sgpu_frame *frame) {
  if (!dev || !frame) return SGPU_ERROR_INVALID_PARAM;
  memset(frame, 0, sizeof *frame);
  if (source >= dev->sources)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_SOURCE, "display source %u does not exist (%u sources)",
                      source, dev->sources);
  if (dev->remote) return sgpu__remote_capture_frame(dev, source, frame);
  sgpu__lock(dev);
  const sgpu_transport_ops *ops = dev->tr->ops;
  sgpu_capture_state *cs = &dev->capture[source];
  uint64_t start = ops->now(dev->tr);
  uint32_t ctl = 0;
  int r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_CONTROL), &ctl);
  if (r) goto out;
  if (!(ctl & (1u << SGPU_DISP_ENABLE_SHIFT))) {
    cs->frame_number = 0;
    r = sgpu__fail(dev, SGPU_ERROR_DISPLAY_DISABLED, "display source %u is not enabled", source);
    goto out;
  }
  int tiny = (ctl >> SGPU_DISP_TINY_SHIFT) & 1;
  uint64_t period = tiny ? (uint64_t)SGPU_TIMING_TINY_H_TOTAL * SGPU_TIMING_TINY_V_TOTAL
                         : (uint64_t)SGPU_TIMING_VGA_H_TOTAL * SGPU_TIMING_VGA_V_TOTAL;
  uint64_t deadline = start + period * 3 + 1000;
  /* On a link the capture reads the framebuffer over the wire: allow for
   * that transfer (a link that fails ends the call at once anyway). */
  if (ops->wall_clock) deadline += (uint64_t)SGPU_CAPTURE_LINK_SECONDS * SGPU_NOMINAL_CLOCK_HZ;
  sgpu_tr_frame f;
  memset(&f, 0, sizeof f);
  if ((r = ops->frame(dev->tr, source, &f))) {
    r = sgpu__fail(dev, r, "frame capture of source %u failed", source);
    goto out;
  }
  /* The successor of the frame returned last is still being emitted: it is
   * the one to return (back-to-back captures see consecutive frames).
   * Otherwise: the first frame that starts after this call. */
  int successor = cs->frame_number && f.frame_number == cs->frame_number;
  uint32_t base = successor ? cs->next_base : 0;
  int have_base = successor;
  for (;;) {
    uint64_t before = f.frame_number;
    uint64_t now = ops->now(dev->tr);
    if (now >= deadline) {
      r = sgpu__fail(dev, SGPU_ERROR_TIMEOUT,
                     "source %u emitted no complete frame within %llu cycles", source,
                     (unsigned long long)(now - start));
      goto out;
    }
    if ((r = run_to_frame_end(dev, source, deadline - now, before, period))) {
      r = sgpu__fail(dev, r, "running source %u to the end of a frame failed", source);
      goto out;
    }
    memset(&f, 0, sizeof f);
    if ((r = ops->frame(dev->tr, source, &f))) {
      r = sgpu__fail(dev, r, "frame capture of source %u failed", source);
      goto out;
    }
    if (f.frame_number == before) continue; /* deadline check above */
    if (f.rgb && (successor || f.start_cycle >= start)) break;
    /* A frame that began before the call ended: the next one starts now. */
    if ((r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_BASE), &base))) goto out;
    have_base = 1;
    successor = 1; /* the frame now beginning is the one to return */
  }
  size_t bytes = (size_t)f.width * f.height * 3;
  frame->pixels = malloc(bytes ? bytes : 1);
  if (!frame->pixels) {
    r = sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a %ux%u frame", f.width, f.height);
    goto out;
  }
  memcpy(frame->pixels, f.rgb, bytes);
  frame->width = f.width;
  frame->height = f.height;
  frame->source = source;
  frame->frame_number = f.frame_number;
  frame->start_cycle = f.start_cycle;
  uint32_t next = 0;
  r = sgpu__reg_read(dev, sreg(source, SGPU_SREG_DISP_BASE), &next);
  if (r) {
    free(frame->pixels);
    memset(frame, 0, sizeof *frame);
    goto out;
  }
  frame->scanout_address = f.scanout_valid ? f.scanout_address : have_base ? base : next;
  cs->frame_number = f.frame_number;
  cs->next_base = next;
out:
  if (r) cs->frame_number = 0;
  sgpu__unlock(dev);
  return r;
}

void sgpu_frame_release(sgpu_frame *frame) {
  if (!frame) return;
  free(frame->pixels);
  frame->pixels = NULL;
}

int sgpu_write_png(const sgpu_frame *frame, const char *path) {
  if (!frame || !path || !frame->pixels || !frame->width || !frame->height)
    return SGPU_ERROR_INVALID_PARAM;
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = frame->width;
  img.height = frame->height;
  img.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&img, path, 0, frame->pixels, (png_int_32)(frame->width * 3), NULL)) {
    png_image_free(&img);
    return SGPU_ERROR_PNG;
  }
  return 0;
}
