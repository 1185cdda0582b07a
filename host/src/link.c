/* link.c — the host link client: sgpu_transport over a byte channel.
 *
 * docs/link-protocol.md, host side.  Every access becomes one or more
 * request frames, each with SEQ + 1, in a window: a version-3 device (a
 * receive FIFO) takes several WRITE frames in flight (go-back-N, cumulative
 * ACKs); READ and PING, a version-2 device and a noisy line get one frame
 * at a time.  Frames are sent again with the SAME SEQs after a NAK, a
 * timeout, or a broken answer, so a WRITE whose ACK was lost is answered
 * DUPLICATE (or OUT_OF_ORDER) by the bridge and applied once; a window is
 * renumbered only when the device's last SEQ shows none of it was applied.
 * A frame the device refuses for its address (NAK BAD_ADDR: outside GPU
 * memory or the register block) is never repeated: the call fails with
 * SGPU_ERROR_ADDRESS_REFUSED, the frames behind it are dropped (the device
 * took none of them: they follow the refused one's SEQ) and the link goes on
 * with new SEQs (a version-3 device's OUT_OF_ORDER NAK renumbers them).
 * EVENT frames raise the transport's interrupt line; a gap in
 * their counter, a rejected device->host frame, or a long quiet wait also
 * raise it, so a lost EVENT costs one extra INT_STATUS read, never a lost
 * fence.  Time (`now`) is wall time in nominal clock cycles.
 *
 * The link client is a transport (transport.h): it hands bytes, the
 * interrupt line and its own failures' reasons up through the ops and knows
 * nothing of the device above it.  Frame capture reads the framebuffer the
 * display scans out through these same ops (scanout.c).
 */
#include "link.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "link_frame.h"
#include "scanout.h"

#define LINK_TRIES_MIN 3u
#define LINK_TIMEOUT_DOUBLINGS 2u /* the answer timeout grows to 4 times its start */
#define LINK_GIVEUP_CAP 3u /* a frame is given up after this many give-up times in all */
#define LINK_QUIET_POLL_MS 200u /* a wait this long with no EVENT reads INT_STATUS once */
#define LINK_REJECTS_FREE 16u      /* NAKs in a row repeated at once */
#define LINK_REJECT_HOLD_MAX_MS 64u /* longest pause before repeating a NAKed frame */
/* On a noisy line (the burst shrunk) each request is followed by a header's
 * worth of zero bytes (a device between frames ignores them: not SYNC).  A
 * request that lost up to that many bytes on the way is completed by them
 * and NAKed (BAD_CRC) at once instead of waiting out a timeout; and when the
 * device hunted through the request's bytes (its header was damaged, NAKed
 * at once) and took a data byte for a SYNC, that false frame's header is
 * complete within the pad and NAKed, so the repeat finds the device hunting
 * instead of finishing a false header with the repeat's first bytes. */
#define LINK_PAD_BYTES (SGPU_LINK_REQ_HDR_BYTES - 1u)
/* round trip a byte under which a whole-answer other end needs no gap */
#define LINK_WHOLE_MS_PER_BYTE 0.02
/* Link versions taken: SGPU_LINK_VERSION_SINGLE (CRC-32 frames, one frame
 * in flight) and SGPU_LINK_VERSION (several WRITE frames in flight, a
 * receive FIFO). */
/* Frames in the window at most: far below half the SEQ space, so a SEQ's
 * place in it is never ambiguous (with one-word frames a 2048-byte FIFO's
 * budget would hold 98: the slots bound them) */
#define LINK_WINDOW_SLOTS 32u
/* Pipelined writes are cut so that this many fit in the window: a 64-word
 * frame (270 bytes) alone fills a 512-byte FIFO's budget of 242 */
#define LINK_WINDOW_FRAMES 3u
/* window=auto: one frame of the size not chosen is sent (alone) after this
 * many of the chosen size, so both round trips stay measured */
#define LINK_PROBE_FRAMES 32u

/* A request frame in the window (sent, or waiting for room to be sent). */
typedef struct sgpu_link_slot {
  uint8_t fr[SGPU_LINK_MAX_REQ_FRAME + LINK_PAD_BYTES];
  uint16_t n;       /* frame bytes, pad not included */
  uint16_t count;   /* data words */
  uint8_t cmd;
  uint8_t again;    /* sent in an earlier pass: sending it once more is a repeat */
  uint8_t alone;    /* sent at its first try with no other frame in flight */
  uint16_t wire;    /* bytes sent in this pass (the pad included); 0: not sent in it */
  uint32_t *rdata;  /* READ, PING: the answer's words go here */
  uint64_t sent_ns; /* when it was sent last */
} sgpu_link_slot;

typedef struct sgpu_link {
  sgpu_transport base;
  pthread_mutex_t mu;
  sgpu_link_chan chan;
  sgpu_link_options opt;
  uint8_t seq;            /* SEQ of the last frame sent */
  int dead;               /* the channel is gone or a frame got no answer: every op fails */
  char why[192];          /* why it is dead */
  int irq_pending;        /* an EVENT (or a possible lost one) not yet reported by irq() */
  int evt_seen;
  uint8_t evt_next;
  uint32_t burst;         /* words per frame now (shrinks after failures) */
  uint32_t max_words;     /* what the device reported */
  uint32_t good_run;      /* frames answered at the first try since the burst last changed */
  double srtt_ms, rttvar_ms; /* answer time estimate (first transmissions only) */
  double ms_per_byte;     /* the same per byte of request and answer: a long frame's share */
  int have_rtt;
  uint32_t backoff;       /* doublings of the answer timeout kept from frame to frame until the
                             next round trip is measured (Karn): an other end slower than the
                             floor is otherwise never measured, every frame repeated once */
  uint64_t t0_ns;         /* open time */
  uint64_t last_evt_ns;   /* last EVENT or quiet poll */
  sgpu_link_decoder dec;
  uint8_t rx[4096];
  size_t rx_n, rx_off;    /* bytes read from the channel, not yet decoded */
  uint64_t skipped_at_send; /* decoder's noise count when the last frame left */
  /* the window: w_n frames from w_head on, the oldest first; of them the
   * first w_sent were sent in this pass (w_bytes bytes), the first w_hi
   * in some pass (only those can be answered) */
  sgpu_link_slot win[LINK_WINDOW_SLOTS];
  uint32_t w_head, w_n, w_sent, w_hi, w_bytes;
  uint32_t version;       /* the device's link version */
  /* window=auto: round trips of WRITE frames sent alone at their first
   * try, of the pipelined size and of the full burst (0: none yet) */
  double rtt_pipe_ms, rtt_full_ms;
  uint32_t probe;         /* frames since the other size was last sent */
  int pipe_on;            /* the size chosen: pipelined (1) or full (0) */
  uint32_t fifo_bytes;    /* its receive FIFO (version 3), 0: one frame in flight */
  /* the oldest frame's tries, for the give-up rules: since when it is the
   * oldest, its last sign of life */
  uint64_t o_start, o_life;
  uint32_t o_tries, o_quiet, o_rejects;
  sgpu_link_stats st;
  uint64_t busy_ns;       /* time with a frame in flight */
  int opening;            /* the opening PING: received bytes are kept in open_cap */
  int old_version;        /* the device answered in link version 1 (CRC-16) */
  int in_use;             /* NAK IN_USE: sgpu-sim serves another connection */
  int refused;            /* the oldest frame was NAKed BAD_ADDR: it fails, not repeated */
  uint8_t open_cap[256];
  size_t open_cap_n;
  sgpu_scanout scan;      /* frame capture (its own mutex: it calls the ops) */
} sgpu_link;

static const sgpu_transport_ops link_ops_tcp;
static const sgpu_transport_ops link_ops_serial;
const char *sgpu__link_error(sgpu_transport *tr);
static const sgpu_transport_ops link_ops_usb;

static sgpu_link *L_of(sgpu_transport *t) { return (sgpu_link *)t; }

static uint64_t mono_ns(const sgpu_link *L) {
  if (L->opt.clock_ns) return L->opt.clock_ns(L->opt.clock_ctx);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(sgpu_link *L, const char *fmt, const char *arg) {
  if (L->dead) return;
  L->dead = 1;
  snprintf(L->why, sizeof L->why, fmt, arg);
}

/* ------------------------------------------------------------ receiving */
static void on_event(sgpu_link *L, const sgpu_link_frame *f) {
  L->st.events++;
  if (L->evt_seen && f->seq != L->evt_next) L->st.events_missed++;
  L->evt_seen = 1;
  L->evt_next = (uint8_t)(f->seq + 1);
  L->irq_pending = 1;
  L->last_evt_ns = mono_ns(L);
}

/* Read from the channel for up to timeout_ms.  -1: channel gone; 0: nothing
 * (the line was quiet); 1: bytes buffered. */
static int fill(sgpu_link *L, int timeout_ms) {
  char why[160] = "";
  long n = L->chan.recv(L->chan.ctx, L->rx + L->rx_n, sizeof L->rx - L->rx_n, timeout_ms, why,
                        sizeof why);
  if (n < 0) {
    die(L, "%s", why[0] ? why : "the link closed");
    return -1;
  }
  if (n == 0) {
    /* quiet: a partial frame will not be completed */
    if (sgpu_link_decoder_gap(&L->dec) < 0) {
      L->st.rejected++;
      L->irq_pending = 1;
    }
    return 0;
  }
  if (L->opening) { /* the last bytes, to recognise an older device's answers */
    size_t k = (size_t)n < sizeof L->open_cap ? (size_t)n : sizeof L->open_cap;
    if (L->open_cap_n + k > sizeof L->open_cap) {
      size_t drop = L->open_cap_n + k - sizeof L->open_cap;
      memmove(L->open_cap, L->open_cap + drop, L->open_cap_n - drop);
      L->open_cap_n -= drop;
    }
    memcpy(L->open_cap + L->open_cap_n, L->rx + L->rx_n + (size_t)n - k, k);
    L->open_cap_n += k;
  }
  L->rx_n += (size_t)n;
  L->st.bytes_received += (uint64_t)n;
  return 1;
}

/* ------------------------------------------------------------ timing */
/* A noisy line: the burst shrank after failed tries.  There the client pads
 * its requests, repeats after a damaged answer once the line is quiet for
 * gap_ms, and its answer timeout's floor is ack_noisy_ms; on a clean line
 * none of that (no pad, the floor ack_min_ms), so a slow moment of the
 * other end does not cost a spurious repeat and halve the burst. */
static int noisy(const sgpu_link *L) { return L->burst < L->max_words; }
/* The short noisy-line floor and gap (tcp: to sgpu-sim) are for an other
 * end that answers fast: a smoothed round trip under an eighth of the
 * clean-line floor.  A slow one (a board-level model under load, whose
 * answer bytes trickle in with gaps of milliseconds of wall time) keeps
 * the clean line's floor and the protocol's gap, or its slow answers are
 * taken for damaged ones and repeated until the device is buried in them. */
static int fast_other_end(const sgpu_link *L) {
  return L->have_rtt && L->srtt_ms * 8 < (double)L->opt.ack_min_ms;
}

static uint32_t ack_timeout_ms(const sgpu_link *L, size_t req_bytes, size_t rsp_bytes) {
  double t = noisy(L) && fast_other_end(L) ? L->opt.ack_noisy_ms : L->opt.ack_min_ms;
  if (L->have_rtt) {
    double est = L->srtt_ms + 4 * L->rttvar_ms;
    if (est * 2 > t) t = est * 2;
    /* answers measured on short frames say little about a long one when
     * the line is slow (a simulated UART: sgpu-sim --baud): scale by size */
    double by_size = L->ms_per_byte * (double)(req_bytes + rsp_bytes) * 2;
    if (by_size > t) t = by_size;
  }
  if (L->opt.bytes_per_sec)
    t += 1000.0 * (double)(req_bytes + rsp_bytes) / L->opt.bytes_per_sec;
  if (t > L->opt.giveup_ms / 4) t = L->opt.giveup_ms / 4;
  return (uint32_t)t + 1;
}

static void note_rtt(sgpu_link *L, double ms, size_t bytes) {
  double per_byte = ms / (double)(bytes ? bytes : 1);
  L->backoff = 0;
  if (!L->have_rtt) {
    L->srtt_ms = ms;
    L->rttvar_ms = ms / 2;
    L->ms_per_byte = per_byte;
    L->have_rtt = 1;
  } else {
    double d = ms - L->srtt_ms;
    L->rttvar_ms += ((d < 0 ? -d : d) - L->rttvar_ms) / 4;
    L->srtt_ms += d / 8;
    L->ms_per_byte += (per_byte - L->ms_per_byte) / 8;
  }
}

/* ------------------------------------------------------------ the window */
static sgpu_link_slot *slot_at(sgpu_link *L, uint32_t i) {
  return &L->win[(L->w_head + i) % LINK_WINDOW_SLOTS];
}

/* Data words the ACK of a frame carries. */
static uint32_t ack_words(const sgpu_link_slot *s) {
  return s->cmd == SGPU_LINK_CMD_READ ? s->count : s->cmd == SGPU_LINK_CMD_PING ? 1u : 0u;
}

static size_t rsp_bytes_of(const sgpu_link_slot *s) {
  return SGPU_LINK_RSP_HDR_BYTES + SGPU_LINK_CRC_BYTES + 4u * ack_words(s);
}

/* The oldest frame is a new one: its tries and give-up times start now. */
static void oldest_reset(sgpu_link *L) {
  L->o_start = L->o_life = mono_ns(L);
  L->o_tries = L->w_sent ? 1u : 0u;
  L->o_quiet = L->o_rejects = 0;
}

static void note_size_rtt(sgpu_link *L, uint32_t words, double ms);

/* The device has done the k oldest frames (ans: the answer to the last of
 * them, or NULL when an OUT_OF_ORDER NAK told so). */
static void win_retire(sgpu_link *L, uint32_t k, const sgpu_link_frame *ans) {
  uint64_t now = mono_ns(L);
  for (uint32_t i = 0; i < k; i++) {
    sgpu_link_slot *s = slot_at(L, 0);
    if (ans && i + 1 == k) {
      if (ans->info & SGPU_LINK_ACK_DUPLICATE) L->st.duplicates++;
      if (s->rdata && ans->count) memcpy(s->rdata, ans->data, 4u * ans->count);
      if (s->cmd == SGPU_LINK_CMD_READ) L->st.payload_received += 4u * s->count;
    }
    if (!s->again) { /* answered at its first try */
      /* a frame that waited behind others says nothing about the round trip */
      if (s->alone && s->wire) {
        double ms = (double)(now - s->sent_ns) / 1e6;
        note_rtt(L, ms, s->n + rsp_bytes_of(s));
        if (s->cmd == SGPU_LINK_CMD_WRITE) note_size_rtt(L, s->count, ms);
      }
      if (++L->good_run >= 32 && L->burst < L->max_words) {
        L->burst = L->burst * 2 > L->max_words ? L->max_words : L->burst * 2;
        L->good_run = 0;
      }
    }
    L->w_bytes -= s->wire;
    L->w_head = (L->w_head + 1) % LINK_WINDOW_SLOTS;
    L->w_n--;
    L->w_hi--;
    if (L->w_sent) L->w_sent--;
  }
  oldest_reset(L);
}

/* The window emptied without answers (a failure, or a single-try PING). */
static void win_clear(sgpu_link *L) { L->w_n = L->w_sent = L->w_hi = L->w_bytes = 0; }

/* Send the window again from its oldest frame (go-back-N). */
static void win_back(sgpu_link *L) {
  for (uint32_t i = 0; i < L->w_sent; i++) {
    sgpu_link_slot *s = slot_at(L, i);
    s->again = 1;
    s->wire = 0;
  }
  L->w_sent = 0;
  L->w_bytes = 0;
}

/* No frame of the window can have been applied (the device's last SEQ is
 * outside it: a lost single-try PING, a reset): number it on from there. */
static void win_renumber(sgpu_link *L, uint8_t last) {
  win_back(L);
  for (uint32_t i = 0; i < L->w_n; i++) {
    sgpu_link_slot *s = slot_at(L, i);
    sgpu_link_request_reseq(s->fr, s->n, (uint8_t)(last + 1 + i));
  }
  L->seq = (uint8_t)(last + L->w_n);
  L->w_hi = 0;
  L->st.renumbered++;
}

/* Decode what is buffered.  While `waiting`, answers are applied to the
 * window: returns 1 when some of its frames were answered (retired), else
 * 0 with *nak set when it must be sent again from its oldest frame: 1 a
 * NAK or an answer its frame cannot take, 2 a device->host frame the
 * decoder rejected (maybe the answer, damaged: repeat without waiting for a
 * timeout), 3 an OUT_OF_ORDER NAK (what it says is applied already: frames
 * retired or renumbered).  Otherwise answers are stale and dropped. */
static int drain(sgpu_link *L, int waiting, int *nak) {
  sgpu_link_frame f;
  for (;;) {
    size_t used = 0;
    int r = sgpu_link_decode(&L->dec, L->rx + L->rx_off, L->rx_n - L->rx_off, &used, &f);
    L->rx_off += used;
    if (r == SGPU_LINK_NEED_MORE) {
      L->rx_off = L->rx_n = 0;
      return 0;
    }
    if (r < 0) { /* noise or a broken frame: maybe an EVENT was in it */
      L->st.rejected++;
      if (r == SGPU_LINK_ERR_BAD_CRC) L->st.crc_errors++;
      L->irq_pending = 1;
      if (waiting) *nak = 2;
      continue;
    }
    L->st.frames_received++;
    if (f.kind == SGPU_LINK_KIND_EVENT) {
      on_event(L, &f);
      continue;
    }
    if (f.kind == SGPU_LINK_KIND_NAK) {
      L->st.naks++;
      if (f.info == SGPU_LINK_NAK_BAD_CRC) L->st.crc_errors++;
      /* sgpu-sim's server has another client: no repeat will be taken */
      if (f.info == SGPU_LINK_NAK_IN_USE) L->in_use = 1;
    }
    if (!waiting || !L->w_n) continue; /* a stale answer */
    sgpu_link_slot *h = slot_at(L, 0);
    uint32_t d = (uint8_t)(f.seq - h->fr[1]); /* the answered frame's place in the window */
    /* an answer to a frame sent in an earlier pass, not to its repeat: the
     * window was sent again after a failure before it came */
    int stale = d >= L->w_sent && d < L->w_hi;
    if (f.kind == SGPU_LINK_KIND_NAK && f.info == SGPU_LINK_NAK_OUT_OF_ORDER &&
        h->cmd == SGPU_LINK_CMD_WRITE) {
      L->st.out_of_order++;
      /* its SEQ passed the device's CRC: a frame not in flight in this pass
       * (sent before a go-back or a renumbering) makes it stale */
      stale = d >= L->w_sent;
      uint32_t done = (uint8_t)(f.data[0] - h->fr[1] + 1); /* frames up to the device's SEQ */
      if (done >= 1 && done <= L->w_hi) {
        win_retire(L, done, NULL);
        if (stale) return 1;
      } else if (done != 0) {
        /* The device's SEQ is not the one before the window nor in it: no
         * frame of the window was applied, none can be (each needs its
         * predecessor's SEQ to be the device's). */
        if (stale) continue;
        win_renumber(L, (uint8_t)f.data[0]);
      } else if (stale) {
        continue;
      }
      *nak = 3;
      return 0;
    }
    if (f.kind == SGPU_LINK_KIND_NAK) {
      /* The oldest frame refused for its address, in this pass: its CRC
       * was good, so the device saw the address sent, and a repeat would
       * be refused again (a BAD_ADDR naming a later frame is repeated as
       * any NAK: the ones before it may not have been taken). */
      if (f.info == SGPU_LINK_NAK_BAD_ADDR && d == 0 && !stale && h->cmd != SGPU_LINK_CMD_PING) {
        L->refused = 1;
        *nak = 4;
        return 0;
      }
      /* Whatever SEQ it names (a corrupted header gives a stale one), the
       * window is sent again: a repeat is always safe. */
      if (!stale) *nak = 1;
      continue;
    }
    if (d >= L->w_hi) continue; /* ACK of an earlier frame, or of none sent */
    if (f.count != ack_words(slot_at(L, d))) {
      if (!stale) *nak = 1;
      continue;
    }
    win_retire(L, d + 1, &f);
    return 1;
  }
}

/* Take what comes in for `ms` (not past `limit`): EVENTs are delivered,
 * answers dropped.  -1 when the channel is gone. */
static int hold_off(sgpu_link *L, uint32_t ms, uint64_t limit) {
  uint64_t end = mono_ns(L) + (uint64_t)ms * 1000000u;
  if (end > limit) end = limit;
  for (;;) {
    int nak = 0;
    drain(L, 0, &nak);
    uint64_t now = mono_ns(L);
    if (now >= end) return 0;
    if (fill(L, (int)((end - now + 999999u) / 1000000u)) < 0) return -1;
  }
}

/* Answers already received cannot be a new window's: drop them (events
 * still count), and the bytes of a frame begun but not finished too (a
 * broken header may hide frames the decoder would rescan later), so a stale
 * or forged ACK that arrived early is never taken for the answer to a SEQ
 * not yet sent.  A partial EVENT among them is looked for by an INT_STATUS
 * read, as for any lost EVENT. */
static void drop_stale(sgpu_link *L) {
  if (L->rx_off < L->rx_n || sgpu_link_decoder_pending(&L->dec)) {
    int nak = 0;
    drain(L, 0, &nak);
    if (sgpu_link_decoder_pending(&L->dec)) {
      sgpu_link_decoder_init(&L->dec);
      L->st.rejected++;
      L->irq_pending = 1;
    }
  }
}

/* Bytes of a WRITE frame of `words` data words. */
static uint32_t write_frame_bytes(uint32_t words) {
  return SGPU_LINK_REQ_HDR_BYTES + 4u * words + SGPU_LINK_CRC_BYTES;
}

/* Request bytes the window may hold unanswered (the frames and their pads):
 * a version-3 device's receive FIFO less one largest frame.  0: one frame
 * at a time (version 2, or a FIFO no larger than a frame). */
static uint32_t win_budget(const sgpu_link *L) {
  uint32_t largest = write_frame_bytes(L->max_words);
  return L->fifo_bytes > largest ? L->fifo_bytes - largest : 0;
}

/* Words of a pipelined WRITE frame: LINK_WINDOW_FRAMES of them fit in the
 * window's budget; 0 when there is no window. */
static uint32_t pipe_words(const sgpu_link *L) {
  uint32_t fit = win_budget(L) / LINK_WINDOW_FRAMES, hdr = write_frame_bytes(0);
  return fit >= hdr + 4u ? (fit - hdr) / 4u : 0u;
}

static void note_size_rtt(sgpu_link *L, uint32_t words, double ms) {
  double *r = words == pipe_words(L) ? &L->rtt_pipe_ms : words == L->max_words ? &L->rtt_full_ms : NULL;
  if (r) *r = *r ? *r + (ms - *r) / 8 : ms;
}

/* window=auto: payload per unit of time of pipelined frames over that of
 * one full frame at a time.  A full frame carries 4 * max_words bytes a
 * round trip; the window's frames 4 * pw each, as many as fit, a round
 * trip of one of them apart, or the wire time of them all when that is
 * longer (no latency to hide).  The wire time a byte is what the full
 * frame's longer round trip says.  With a 512-byte FIFO at 3 Mbaud the
 * window wins while an answer's fixed delay is between about 0.15 and
 * 1.7 ms (an FT2232H's 1 ms latency timer); below, the full frame's
 * smaller overhead wins, above, its 256 bytes a round trip against the
 * window's 192. */
static double pipe_gain(const sgpu_link *L, uint32_t pw) {
  uint32_t pb = write_frame_bytes(pw), fb = write_frame_bytes(L->max_words);
  uint32_t k = win_budget(L) / pb;
  double per_byte = (L->rtt_full_ms - L->rtt_pipe_ms) / (double)(fb - pb);
  double cycle = (double)(k * pb) * (per_byte > 0 ? per_byte : 0);
  if (cycle < L->rtt_pipe_ms) cycle = L->rtt_pipe_ms;
  return (double)(k * 4u * pw) / cycle / ((double)(4u * L->max_words) / L->rtt_full_ms);
}

/* Send the frames of the window not sent in this pass, as far as the
 * window allows: the oldest always; more only on a clean line, within the
 * budget (a noisy line keeps one frame in flight, as stop-and-wait did).
 * -1 (the link is dead) when the channel fails. */
static int win_send(sgpu_link *L) {
  while (L->w_sent < L->w_n) {
    sgpu_link_slot *s = slot_at(L, L->w_sent);
    size_t n = s->n;
    if (noisy(L)) { /* host rule 5 */
      memset(s->fr + n, 0, LINK_PAD_BYTES);
      n += LINK_PAD_BYTES;
    }
    if (L->w_sent && (noisy(L) || L->w_bytes + n > win_budget(L))) break;
    char why[160] = "";
    L->skipped_at_send = L->dec.skipped;
    if (L->chan.send(L->chan.ctx, s->fr, n, why, sizeof why) != 0) {
      die(L, "%s", why[0] ? why : "sending to the device failed");
      return -1;
    }
    L->st.frames_sent++;
    L->st.bytes_sent += (uint64_t)n;
    if (s->again) L->st.retransmissions++;
    else if (s->cmd == SGPU_LINK_CMD_WRITE && !s->wire) L->st.payload_sent += 4u * s->count;
    if (!L->w_sent) L->o_tries++;
    s->alone = !L->w_sent && !s->again;
    s->sent_ns = mono_ns(L);
    s->wire = (uint16_t)n;
    L->w_bytes += (uint32_t)n;
    if (++L->w_sent > L->w_hi) L->w_hi = L->w_sent;
    if (L->w_sent > L->st.in_flight_max) L->st.in_flight_max = L->w_sent;
  }
  return 0;
}

/* Wait until `deadline` for answers: 1 when frames of the window were
 * answered, 0 with *nak set when it must be sent again, 0 when nothing
 * came, -1 when the channel is gone. */
static int await_answer(sgpu_link *L, uint64_t deadline, uint64_t gap_ms, int *nak) {
  for (;;) {
    if (drain(L, 1, nak)) return 1;
    if (*nak) return 0;
    uint64_t now = mono_ns(L);
    if (now >= deadline) return 0;
    uint64_t wait_ms = (deadline - now + 999999u) / 1000000u;
    /* Bytes came that made no frame (noise: a damaged answer's SYNC) or a
     * frame begun and not finished (its bytes lost): once the line is quiet
     * for the partial-frame gap, that was the answer, damaged.  Repeat at
     * once rather than wait for the timeout. */
    int broken = noisy(L) &&
                 (sgpu_link_decoder_pending(&L->dec) || L->dec.skipped != L->skipped_at_send);
    if (broken && wait_ms > gap_ms) wait_ms = gap_ms;
    int f = fill(L, (int)wait_ms);
    if (f < 0) return -1;
    if (f == 0 && broken && mono_ns(L) < deadline) {
      /* fill dropped the partial frame; frames in its bytes still count */
      if (drain(L, 1, nak)) return 1;
      if (sgpu_link_decoder_pending(&L->dec)) {
        sgpu_link_decoder_init(&L->dec);
        L->st.rejected++;
        L->irq_pending = 1;
      }
      L->skipped_at_send = L->dec.skipped;
      *nak = 2;
      return 0;
    }
  }
}

/* When the oldest frame is given up: giveup_ms after its last sign of
 * life, LINK_GIVEUP_CAP times that after it became the oldest at most. */
static uint64_t giveup_time(const sgpu_link *L) {
  const uint64_t giveup_ns = (uint64_t)L->opt.giveup_ms * 1000000u;
  uint64_t cap_at = L->o_start + LINK_GIVEUP_CAP * giveup_ns;
  return L->o_life + giveup_ns < cap_at ? L->o_life + giveup_ns : cap_at;
}

/* One round of the window: send what it allows, wait for the oldest
 * frame's answer, and on a NAK, a timeout or a broken answer send it again
 * from the oldest frame (with the same SEQs: the device answers a WRITE it
 * has applied DUPLICATE, or OUT_OF_ORDER, and never applies it twice).
 * Sets L->dead when the oldest frame is given up. */
static int win_step(sgpu_link *L) {
  /* Give-up time: giveup_ms without a sign of the device (a NAK, or an
   * answer to the oldest frame it cannot use), or LINK_GIVEUP_CAP times
   * that in all.  A noisy line NAKs often and keeps the frame going; a
   * device that is gone or silent is given up after giveup_ms; one that
   * NAKs everything after the cap. */
  uint64_t giveup_at = giveup_time(L);
  uint64_t now = mono_ns(L);
  if (!L->w_sent && L->o_tries >= LINK_TRIES_MIN && now >= giveup_at) {
    char what[128];
    if (L->o_life == L->o_start)
      snprintf(what, sizeof what, "no answer from the device after %u tries in %u ms", L->o_tries,
               (unsigned)((now - L->o_start) / 1000000u));
    else
      snprintf(what, sizeof what, "the device refused the frame %u times in %u ms", L->o_tries,
               (unsigned)((now - L->o_start) / 1000000u));
    die(L, "%s (link lost?)", what);
    return SGPU_ERROR_IO;
  }
  if (win_send(L) < 0) return SGPU_ERROR_IO;
  sgpu_link_slot *h = slot_at(L, 0);
  /* A timeout doubles the wait, twice at most: a device draining a frame
   * with a bad header NAKs only after the line has been quiet for the gap
   * timeout (5 ms, a quarter of the shortest wait), and a device slower
   * than its answers so far gets time; more would leave too few repeats
   * before the give-up time on a line that loses answers too.  Until a
   * round trip is measured again the doublings carry over to the next
   * frames.  The wait runs from when the frame was sent or became the
   * oldest. */
  uint32_t doublings = L->o_quiet > L->backoff ? L->o_quiet : L->backoff;
  uint64_t wait_ms = (uint64_t)ack_timeout_ms(L, h->n, rsp_bytes_of(h))
                     << (doublings < LINK_TIMEOUT_DOUBLINGS ? doublings : LINK_TIMEOUT_DOUBLINGS);
  if (wait_ms > L->opt.giveup_ms / 2) wait_ms = L->opt.giveup_ms / 2;
  uint64_t ref = h->sent_ns > L->o_start ? h->sent_ns : L->o_start;
  uint64_t deadline = ref + wait_ms * 1000000u;
  /* once the minimum tries are out, no wait runs past the give-up time */
  if (L->o_tries >= LINK_TRIES_MIN && deadline > giveup_at) deadline = giveup_at > ref ? giveup_at : ref;
  /* the gap that ends a broken answer: gap_ms, or a quarter of this
   * try's timeout on a slow device (a board model's bytes come slowly) */
  uint64_t gap_ms = L->opt.gap_ms;
  if (!fast_other_end(L) && gap_ms < SGPU_LINK_GAP_TIMEOUT_US / 1000u) gap_ms = SGPU_LINK_GAP_TIMEOUT_US / 1000u;
  if (wait_ms / 4 > gap_ms) gap_ms = wait_ms / 4;
  /* An other end that hands each answer over whole (sgpu-sim's chip over
   * tcp:) and fast: nothing more of a broken answer is coming, so no gap
   * (through 1 % faults each way the gap's 1 ms waits were a third of the
   * wall time of a MiB's upload).  Fast means under 20 us of round trip a
   * byte: sgpu-sim's chip takes 2 cycles a byte, 3 to 10 us here; a board
   * model behind the same tcp: trickles its answers out of its UART, 40
   * or 100 cycles a byte, 44 us and more at its best here, and keeps the
   * gap. */
  if (L->opt.whole_answers && fast_other_end(L) && L->ms_per_byte < LINK_WHOLE_MS_PER_BYTE) gap_ms = 0;
  int nak = 0;
  int got = await_answer(L, deadline, gap_ms, &nak);
  if (got < 0) return SGPU_ERROR_IO;
  if (got) return 0;
  if (L->refused) {
    /* Nothing of the refused frame was applied, nor of those behind it
     * (each needs the SEQ before it executed).  The SEQs go on from the
     * last one sent, not from the refused frame's: a version-3 device
     * answers the next frame OUT_OF_ORDER with its last SEQ and the window
     * is renumbered from there, which stays right even if a device lied
     * (executed the frame and NAKed it): reusing the refused SEQ would then
     * have the next frame taken as its DUPLICATE and never applied.  The
     * link is not dead; win_drain empties the window. */
    uint32_t addr = (uint32_t)h->fr[6] | (uint32_t)h->fr[7] << 8 | (uint32_t)h->fr[8] << 16 |
                    (uint32_t)h->fr[9] << 24;
    L->refused = 0;
    L->st.refused++;
    snprintf(L->why, sizeof L->why,
             "the device refused %s of %u word%s at 0x%08x (NAK BAD_ADDR: outside its GPU memory "
             "or register block), nothing of it applied",
             h->cmd == SGPU_LINK_CMD_WRITE ? "a WRITE" : "a READ", h->count, h->count == 1 ? "" : "s",
             addr);
    return SGPU_ERROR_ADDRESS_REFUSED;
  }
  if (L->in_use) {
    die(L, "%s", "device in use by another connection (NAK IN_USE)");
    return SGPU_ERROR_BUSY;
  }
  if (!nak && L->opening && sgpu_link_v1_answer(L->open_cap, L->open_cap_n)) {
    /* a device of link version 1 (CRC-16) answers in frames this
     * client rejects: no repeat will ever be understood */
    L->old_version = 1;
    die(L, "%s", "the device answers in link version 1 frames (CRC-16)");
    return SGPU_ERROR_IO;
  }
  if (!nak) {
    L->st.timeouts++;
    L->o_quiet++;
    if (L->backoff < LINK_TIMEOUT_DOUBLINGS) L->backoff++;
  }
  /* a failed try: smaller frames from the next one on (a noisy line) */
  L->good_run = 0;
  if (L->burst > 4) L->burst /= 2;
  win_back(L);
  /* NAKs (or unusable answers) one after the other are answered at once
   * by a repeat at first; past a few, each repeat waits twice as long (up
   * to LINK_REJECT_HOLD_MAX_MS), so a device stuck NAKing is not flooded
   * with frames until the give-up time. */
  if (nak) {
    L->o_life = mono_ns(L);
    giveup_at = giveup_time(L);
    L->o_rejects++;
    if (L->o_rejects > LINK_REJECTS_FREE) {
      uint32_t k = L->o_rejects - LINK_REJECTS_FREE - 1;
      uint32_t hold = k >= 6 ? LINK_REJECT_HOLD_MAX_MS : 1u << k;
      if (hold > LINK_REJECT_HOLD_MAX_MS) hold = LINK_REJECT_HOLD_MAX_MS;
      if (hold_off(L, hold, giveup_at) < 0) return SGPU_ERROR_IO;
    }
  }
  return 0;
}

/* Run the window until it holds at most `keep` frames.  On failure the
 * link is dead and the window emptied. */
static int win_drain(sgpu_link *L, uint32_t keep) {
  int r = 0;
  while (!r && L->w_n > keep) r = L->dead ? SGPU_ERROR_IO : win_step(L);
  if (r) win_clear(L);
  return r;
}

/* Put a request with the next SEQ into the window and send what the window
 * allows.  A READ or PING waits for the window to empty first (it must see
 * the writes before it and is sent alone); rdata then receives its words.
 * A full window first waits for room. */
static int win_push(sgpu_link *L, uint8_t cmd, uint8_t flags, uint16_t count, uint32_t addr,
                    const uint32_t *wdata, uint32_t *rdata) {
  if (L->dead) return SGPU_ERROR_IO;
  int r = win_drain(L, cmd == SGPU_LINK_CMD_WRITE ? LINK_WINDOW_SLOTS - 1 : 0);
  if (r) return r;
  if (!L->w_n) {
    L->why[0] = 0; /* a reason left by a failure that did not end the link */
    drop_stale(L);
  }
  sgpu_link_slot *s = slot_at(L, L->w_n);
  sgpu_link_request req = {(uint8_t)(L->seq + 1), cmd, flags, count, addr, wdata};
  int n = sgpu_link_encode_request(&req, s->fr, SGPU_LINK_MAX_REQ_FRAME);
  if (n <= 0) {
    die(L, "internal error: request not encodable (%s)", sgpu_link_strerror(n));
    return SGPU_ERROR_IO;
  }
  L->seq = req.seq;
  s->n = (uint16_t)n;
  s->cmd = cmd;
  s->count = count;
  s->rdata = rdata;
  s->again = s->wire = 0;
  if (!L->w_n++) oldest_reset(L);
  return win_send(L) < 0 ? SGPU_ERROR_IO : 0;
}

/* A request and its answer: pushed, and the window run until it is empty
 * (every write before it and the request itself answered); its time
 * counted as busy. */
static int transact(sgpu_link *L, uint8_t cmd, uint8_t flags, uint16_t count, uint32_t addr,
                    const uint32_t *wdata, uint32_t *rdata) {
  uint64_t t0 = mono_ns(L);
  int r = win_push(L, cmd, flags, count, addr, wdata, rdata);
  if (!r) r = win_drain(L, 0);
  L->busy_ns += mono_ns(L) - t0;
  return r;
}

/* ------------------------------------------------------------ transport ops */
static uint32_t reg_addr(uint32_t offset) { return SGPU_REG_SPACE | offset; }

static int sgpu_tr_link_reg_read(sgpu_transport *t, uint32_t offset, uint32_t *value) {
  sgpu_link *L = L_of(t);
  pthread_mutex_lock(&L->mu);
  int r = transact(L, SGPU_LINK_CMD_READ, 0, 1, reg_addr(offset), NULL, value);
  pthread_mutex_unlock(&L->mu);
  return r;
}

static int sgpu_tr_link_reg_write(sgpu_transport *t, uint32_t offset, uint32_t value) {
  sgpu_link *L = L_of(t);
  pthread_mutex_lock(&L->mu);
  int r = transact(L, SGPU_LINK_CMD_WRITE, 0, 1, reg_addr(offset), &value, NULL);
  pthread_mutex_unlock(&L->mu);
  return r;
}

/* Words per WRITE frame now.  One frame in flight (version 2, a noisy
 * line, window=off): the burst.  With the window, frames that fit
 * LINK_WINDOW_FRAMES times in its budget; window=auto chooses between the
 * two by the round trips measured (pipe_gain), and changes its choice only
 * for a gain of a tenth: the round trips of a simulation behind tcp: are
 * wall time and move with the machine's load. */
static uint32_t write_words(sgpu_link *L) {
  uint32_t pw = pipe_words(L), w = L->burst;
  if (!pw || noisy(L) || pw >= w) return w;
  if (L->opt.window == SGPU_LINK_WINDOW_ON || !L->rtt_pipe_ms) return pw;
  if (!L->rtt_full_ms) return w;
  double g = pipe_gain(L, pw);
  if (g > 1.1) L->pipe_on = 1;
  if (g < 1 / 1.1) L->pipe_on = 0;
  int pipe = L->pipe_on;
  if (++L->probe >= LINK_PROBE_FRAMES) { /* keep the other size measured */
    L->probe = 0;
    pipe = !pipe;
  }
  return pipe ? pw : w;
}

static int mem_read_locked(sgpu_link *L, uint32_t address, void *data, uint32_t size) {
  uint8_t *out = data;
  uint32_t a = address & ~3u, end = address + size;
  uint32_t words[SGPU_LINK_MAX_WORDS];
  while (a < end) {
    uint32_t nw = (end - a + 3) / 4;
    if (nw > L->burst) nw = L->burst;
    int r = transact(L, SGPU_LINK_CMD_READ, 0, (uint16_t)nw, a, NULL, words);
    if (r) return r;
    uint32_t lo = a < address ? address : a, hi = a + 4 * nw > end ? end : a + 4 * nw;
    memcpy(out + (lo - address), (uint8_t *)words + (lo - a), hi - lo);
    a += 4 * nw;
  }
  return 0;
}

static int sgpu_tr_link_mem_read(sgpu_transport *t, uint32_t address, void *data, uint32_t size) {
  sgpu_link *L = L_of(t);
  pthread_mutex_lock(&L->mu);
  int r = mem_read_locked(L, address, data, size);
  pthread_mutex_unlock(&L->mu);
  return r;
}

static int sgpu_tr_link_mem_write(sgpu_transport *t, uint32_t address, const void *data,
                                  uint32_t size) {
  sgpu_link *L = L_of(t);
  const uint8_t *in = data;
  uint32_t words[SGPU_LINK_MAX_WORDS];
  int r = 0;
  pthread_mutex_lock(&L->mu);
  uint64_t t0 = mono_ns(L);
  uint32_t a = address, end = address + size;
  while (a < end && !r) {
    if ((a & 3) || end - a < 4) {
      /* a partial word: one frame with the other bytes disabled */
      uint32_t w = a & ~3u, lo = a - w, hi = end - w > 4 ? 4 : end - w;
      uint8_t b[4] = {0, 0, 0, 0}, dis = 0;
      for (uint32_t i = 0; i < 4; i++)
        if (i < lo || i >= hi) dis |= (uint8_t)(1u << i);
      memcpy(b + lo, in + (a - address), hi - lo);
      memcpy(&words[0], b, 4);
      r = win_push(L, SGPU_LINK_CMD_WRITE, (uint8_t)(dis << SGPU_LINK_FLAG_BYTE_DISABLE_SHIFT), 1,
                   w, words, NULL);
      a = w + hi;
      continue;
    }
    uint32_t nw = (end - a) / 4, ww = write_words(L);
    if (nw > ww) nw = ww;
    memcpy(words, in + (a - address), 4 * nw);
    r = win_push(L, SGPU_LINK_CMD_WRITE, 0, (uint16_t)nw, a, words, NULL);
    a += 4 * nw;
  }
  if (!r) r = win_drain(L, 0); /* a write call returns once all of it is applied */
  L->busy_ns += mono_ns(L) - t0;
  pthread_mutex_unlock(&L->mu);
  return r;
}

static uint64_t now_cycles(const sgpu_link *L) {
  return (mono_ns(L) - L->t0_ns) * (uint64_t)(SGPU_NOMINAL_CLOCK_HZ / 1000u) / 1000000u;
}

static uint64_t sgpu_tr_link_now(sgpu_transport *t) { return now_cycles(L_of(t)); }

/* Wait up to max_cycles of wall time, taking EVENTs as they come. */
static int sgpu_tr_link_run(sgpu_transport *t, uint64_t max_cycles, int stop_on_irq) {
  sgpu_link *L = L_of(t);
  pthread_mutex_lock(&L->mu);
  uint64_t start = mono_ns(L);
  uint64_t end = start + max_cycles * 1000000u / (SGPU_NOMINAL_CLOCK_HZ / 1000u);
  int r = 0;
  for (;;) {
    int nak = 0;
    drain(L, 0, &nak);
    if (L->dead) {
      L->irq_pending = 1; /* the caller's interrupt service finds the link error */
      r = SGPU_ERROR_IO;
      break;
    }
    if (stop_on_irq && L->irq_pending) break;
    uint64_t now = mono_ns(L);
    if (now >= end) break;
    if (stop_on_irq && (now - L->last_evt_ns) / 1000000u >= LINK_QUIET_POLL_MS) {
      L->irq_pending = 1; /* a long wait: look at INT_STATUS in case an EVENT was lost */
      L->last_evt_ns = now;
      break;
    }
    uint64_t left = (end - now + 999999u) / 1000000u;
    if (left > 50) left = 50;
    if (fill(L, (int)left) < 0) continue;
  }
  pthread_mutex_unlock(&L->mu);
  return r;
}

static int sgpu_tr_link_irq(sgpu_transport *t) {
  sgpu_link *L = L_of(t);
  pthread_mutex_lock(&L->mu);
  int p = L->irq_pending || L->dead;
  L->irq_pending = 0;
  pthread_mutex_unlock(&L->mu);
  return p;
}

/* ------------------------------------------------------------ frame capture */
static int sgpu_tr_link_frame(sgpu_transport *t, uint32_t source, sgpu_tr_frame *frame) {
  return sgpu__scanout_frame(&L_of(t)->scan, source, frame);
}

/* Read the framebuffer the source scans out now and render it: one frame
 * (scanout.c, through the ops above; not under the link's mutex). */
static int sgpu_tr_link_run_until_frame(sgpu_transport *t, uint32_t source, uint64_t max_cycles) {
  (void)max_cycles;
  sgpu_link *L = L_of(t);
  char why[sizeof L->why] = "";
  int r = sgpu__scanout_capture(&L->scan, t, source, why, sizeof why);
  if (r && why[0]) {
    pthread_mutex_lock(&L->mu);
    if (!L->dead) snprintf(L->why, sizeof L->why, "%s", why);
    pthread_mutex_unlock(&L->mu);
  }
  return r;
}

static void sgpu_tr_link_close(sgpu_transport *t) {
  sgpu_link *L = L_of(t);
  if (L->chan.close) L->chan.close(L->chan.ctx);
  pthread_mutex_destroy(&L->mu);
  sgpu__scanout_free(&L->scan);
  free(L);
}

#define LINK_OPS(nm)                                                                          \
  {                                                                                           \
    nm, sgpu_tr_link_reg_read, sgpu_tr_link_reg_write, sgpu_tr_link_mem_read,                 \
        sgpu_tr_link_mem_write, sgpu_tr_link_run, sgpu_tr_link_irq, sgpu_tr_link_now,         \
        sgpu_tr_link_frame, sgpu_tr_link_close, sgpu_tr_link_run_until_frame,                 \
        sgpu__link_error, 1                                                                   \
  }
static const sgpu_transport_ops link_ops_tcp = LINK_OPS("tcp");
static const sgpu_transport_ops link_ops_serial = LINK_OPS("serial");
static const sgpu_transport_ops link_ops_usb = LINK_OPS("usb");
static const sgpu_transport_ops link_ops_other = LINK_OPS("link");

static int is_link(const sgpu_transport *t) {
  return t && (t->ops == &link_ops_tcp || t->ops == &link_ops_serial || t->ops == &link_ops_usb ||
               t->ops == &link_ops_other);
}

int sgpu__link_stats(sgpu_transport *tr, sgpu_link_stats *stats) {
  if (!is_link(tr) || !stats) return SGPU_ERROR_NOT_SUPPORTED;
  sgpu_link *L = L_of(tr);
  pthread_mutex_lock(&L->mu);
  *stats = L->st;
  stats->elapsed_us = (mono_ns(L) - L->t0_ns) / 1000u;
  stats->busy_us = L->busy_ns / 1000u;
  stats->rtt_us = L->have_rtt ? (uint32_t)(L->srtt_ms * 1000.0 + 0.5) : 0;
  stats->max_words = L->max_words;
  stats->burst_words = L->burst;
  stats->baud = L->opt.bytes_per_sec * 10u;
  stats->version = L->version;
  stats->window_bytes = win_budget(L);
  pthread_mutex_unlock(&L->mu);
  return 0;
}

static int ping_locked(sgpu_link *L, uint32_t timeout_ms, uint64_t *rtt_ns) {
  uint32_t info = 0;
  if (win_push(L, SGPU_LINK_CMD_PING, 0, 0, 0, NULL, &info)) return SGPU_ERROR_IO;
  sgpu_link_slot *s = slot_at(L, 0);
  s->alone = 0; /* the round trip it measures is the caller's, not the timeouts' */
  uint64_t sent = s->sent_ns, deadline = sent + (uint64_t)timeout_ms * 1000000u;
  L->st.pings++;
  int nak = 0;
  int got = await_answer(L, deadline, timeout_ms, &nak);
  /* sent once: answered or not, it leaves the window (if the device did
   * not take it, the next WRITE's OUT_OF_ORDER NAK renumbers the window) */
  win_clear(L);
  if (got < 0) return SGPU_ERROR_IO;
  if (got) {
    *rtt_ns = mono_ns(L) - sent;
    return 0;
  }
  if (!nak) L->st.timeouts++;
  L->st.pings_lost++;
  snprintf(L->why, sizeof L->why, "%s",
           nak == 2 ? "the PING's answer was damaged"
           : nak    ? "the device refused the PING (NAK) or answered it unusably"
                    : "no answer to the PING");
  return SGPU_ERROR_TIMEOUT;
}

int sgpu__link_ping(sgpu_transport *tr, uint32_t timeout_ms, uint64_t *rtt_ns, char *why,
                    size_t why_size) {
  if (!is_link(tr)) return SGPU_ERROR_NOT_SUPPORTED;
  sgpu_link *L = L_of(tr);
  pthread_mutex_lock(&L->mu);
  uint64_t t0 = mono_ns(L);
  int r = ping_locked(L, timeout_ms, rtt_ns);
  L->busy_ns += mono_ns(L) - t0;
  if (r && why) snprintf(why, why_size, "%s", L->why);
  pthread_mutex_unlock(&L->mu);
  return r;
}

/* ------------------------------------------------------------ open */
int sgpu_link_open(const char *name, const sgpu_link_chan *chan, const sgpu_link_options *opts,
                   sgpu_transport **tr, char *msg, size_t msg_size) {
  sgpu_link *L = calloc(1, sizeof *L);
  if (!L) {
    if (chan->close) chan->close(chan->ctx);
    if (msg) snprintf(msg, msg_size, "out of memory creating the %s link", name);
    return SGPU_ERROR_NO_MEM;
  }
  L->base.ops = !strcmp(name, "tcp")      ? &link_ops_tcp
                : !strcmp(name, "serial") ? &link_ops_serial
                : !strcmp(name, "usb")    ? &link_ops_usb
                                          : &link_ops_other;
  pthread_mutex_init(&L->mu, NULL);
  sgpu__scanout_init(&L->scan);
  L->chan = *chan;
  if (opts) L->opt = *opts;
  if (!L->opt.giveup_ms) L->opt.giveup_ms = SGPU_LINK_GIVEUP_DEFAULT_MS;
  if (!L->opt.ack_min_ms) L->opt.ack_min_ms = SGPU_LINK_ACK_TIMEOUT_US / 1000u;
  if (!L->opt.gap_ms) L->opt.gap_ms = SGPU_LINK_GAP_TIMEOUT_US / 1000u;
  if (!L->opt.ack_noisy_ms) L->opt.ack_noisy_ms = L->opt.ack_min_ms;
  L->burst = 1;
  L->max_words = 1;
  L->t0_ns = L->last_evt_ns = mono_ns(L);
  L->seq = (uint8_t)(L->t0_ns >> 10); /* any start: the PING sets the device's SEQ */
  sgpu_link_decoder_init(&L->dec);
  /* Whatever the device still sends from an earlier session is dropped. */
  while (fill(L, 0) > 0) {
    int nak = 0;
    drain(L, 0, &nak);
  }
  uint32_t info = 0;
  L->opening = 1;
  L->open_cap_n = 0;
  int r = L->dead ? SGPU_ERROR_IO : transact(L, SGPU_LINK_CMD_PING, 0, 0, 0, NULL, &info);
  L->opening = 0;
  if (r && L->old_version) {
    if (msg)
      snprintf(msg, msg_size,
               "%s: the device speaks link version 1 (CRC-16 frames), this library %u or %u "
               "(CRC-32): the device's bitstream or sgpu-sim is older than this library",
               name, SGPU_LINK_VERSION_SINGLE, SGPU_LINK_VERSION);
    sgpu_tr_link_close(&L->base);
    return SGPU_ERROR_NO_DEVICE;
  }
  uint32_t ver = info & 0xFFu;
  if (r == 0 && (ver < SGPU_LINK_VERSION_SINGLE || ver > SGPU_LINK_VERSION)) {
    if (msg) snprintf(msg, msg_size, "%s: the device speaks link version %u, this library %u or %u",
                      name, ver, SGPU_LINK_VERSION_SINGLE, SGPU_LINK_VERSION);
    sgpu_tr_link_close(&L->base);
    return SGPU_ERROR_NO_DEVICE;
  }
  if (r && L->in_use) {
    if (msg)
      snprintf(msg, msg_size,
               "%s: device in use by another connection (sgpu-sim serves one program at a time; "
               "try again when it has finished)", name);
    sgpu_tr_link_close(&L->base);
    return SGPU_ERROR_BUSY;
  }
  if (r) {
    if (msg) snprintf(msg, msg_size, "%s: no answer to the link PING: %s", name, L->why);
    sgpu_tr_link_close(&L->base);
    return r;
  }
  uint32_t mw = (info >> 8) & 0xFFu;
  L->max_words = mw == 0 || mw > SGPU_LINK_MAX_WORDS ? 1 : mw;
  L->burst = L->max_words;
  L->version = ver;
  if (ver >= SGPU_LINK_VERSION && L->opt.window != SGPU_LINK_WINDOW_OFF) L->fifo_bytes = ((info >> 16) & 0xFFu) * SGPU_LINK_RX_FIFO_UNIT;
  L->irq_pending = 1; /* look at INT_STATUS once */
  *tr = &L->base;
  return 0;
}

/* Reason a link transport failed (for messages); "" when it has not. */
const char *sgpu__link_error(sgpu_transport *tr) {
  if (!is_link(tr)) return "";
  return L_of(tr)->why;
}
