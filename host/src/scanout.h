/* scanout.h — frame capture by reading the framebuffer a display source
 * scans out (owned by scanout.c).  For a transport whose device cannot
 * stream its video (a link): it implements the transport's `frame` and
 * `run_until_frame` ops on top of its `reg_read`, `mem_read`, `run` and
 * `now`, rendering as the RTL's scanout does (pixfmt.h).  A transport-layer
 * helper: it knows the transport ops and the display registers, not the
 * device core. */
#ifndef SGPU_SCANOUT_H
#define SGPU_SCANOUT_H

#include <pthread.h>

#include "transport.h"

typedef struct sgpu_scanout {
  pthread_mutex_t mu;              /* the frames below (frame() may run beside a capture) */
  sgpu_tr_frame cap[SGPU_MAX_SOURCES];  /* each source's last frame (rgb NULL: none) */
  uint64_t count[SGPU_MAX_SOURCES];
  uint8_t *rgb[SGPU_MAX_SOURCES];  /* its pixels (cap[s].rgb points here) */
  size_t rgb_cap[SGPU_MAX_SOURCES];
  uint32_t *row;                   /* one framebuffer row as read */
  size_t row_cap;
} sgpu_scanout;

void sgpu__scanout_init(sgpu_scanout *s);
void sgpu__scanout_free(sgpu_scanout *s);
/* The `frame` op: the source's last frame rendered. */
int sgpu__scanout_frame(sgpu_scanout *s, uint32_t source, sgpu_tr_frame *frame);
/* The `run_until_frame` op: wait for the next vblank of an enabled display,
 * then read its registers and framebuffer through t's ops and render one
 * frame.  On a failure that is the device's (a display timing no chip has)
 * why gets the reason. */
int sgpu__scanout_capture(sgpu_scanout *s, sgpu_transport *t, uint32_t source, char *why,
                          size_t why_size);

#endif
