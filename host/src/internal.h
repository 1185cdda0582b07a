/* internal.h — libsgpu internals shared by the library's source files. */
#ifndef SGPU_INTERNAL_H
#define SGPU_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "sgpu.h"

/* ------------------------------------------------------------ transport */
typedef struct sgpu_transport sgpu_transport;

typedef struct sgpu_tr_frame {
  uint32_t width, height;
  const uint8_t *rgb;
  uint64_t frame_number, start_cycle;
  uint32_t h_total, v_total;
  /* set by a transport that knows which buffer the frame shows (a link
   * reads DISP_BASE and renders that buffer) */
  uint32_t scanout_address;
  int scanout_valid;
} sgpu_tr_frame;

/* Every op returns 0 or a negative sgpu_error.  The library never calls one
 * op from inside another (the callgrind figure subtracts their inclusive
 * cost); their names all start with sgpu_tr_. */
typedef struct sgpu_transport_ops {
  const char *name;
  int (*reg_read)(sgpu_transport *t, uint32_t offset, uint32_t *value);
  int (*reg_write)(sgpu_transport *t, uint32_t offset, uint32_t value);
  int (*mem_read)(sgpu_transport *t, uint32_t address, void *data, uint32_t size);
  int (*mem_write)(sgpu_transport *t, uint32_t address, const void *data, uint32_t size);
  /* Advance time by up to max_cycles; with stop_on_irq stop once irq is up. */
  int (*run)(sgpu_transport *t, uint64_t max_cycles, int stop_on_irq);
  int (*irq)(sgpu_transport *t); /* 1 when the interrupt line is up */
  uint64_t (*now)(sgpu_transport *t);
  int (*frame)(sgpu_transport *t, uint32_t source, sgpu_tr_frame *frame);
  void (*close)(sgpu_transport *t);
  /* Advance time until the source's frame capture completes a frame (or
   * max_cycles pass).  Optional: NULL means the library polls `frame`. */
  int (*run_until_frame)(sgpu_transport *t, uint32_t source, uint64_t max_cycles);
  /* The transport's own reason for its last failure ("" or NULL: none).
   * Optional: the library appends it to the messages of failed calls. */
  const char *(*why)(sgpu_transport *t);
  /* 1: `now` is wall time (a link: the device runs on its own, and every
   * access is a round trip); 0: simulated time that only runs when asked. */
  int wall_clock;
} sgpu_transport_ops;

struct sgpu_transport {
  const sgpu_transport_ops *ops;
};

typedef struct sgpu_open_options {
  int video_tiny;        /* video=tiny */
  int video_set;         /* video= given */
  uint32_t watchdog;     /* watchdog= (cycles) */
  int watchdog_set;
  int link_window;       /* window=auto|on|off (link URIs): SGPU_LINK_WINDOW_* */
  uint32_t link_giveup_ms; /* giveup=MS (link URIs); 0: the link's default */
} sgpu_open_options;

/* Parse the URI and open its transport.  msg gets a one-line reason. */
int sgpu_transport_open(const char *uri, sgpu_transport **tr, sgpu_open_options *opts, char *msg,
                        size_t msg_size);

/* ------------------------------------------------------------ allocator */
typedef struct sgpu_block {
  uint64_t addr;
  uint32_t size;
  uint32_t internal; /* owned by the library; sgpu_free refuses it */
  uint8_t *host;     /* segment 0: the host memory */
} sgpu_block;

typedef struct sgpu_segment {
  uint64_t base, size;
  sgpu_block *blocks; /* sorted by address */
  size_t count, cap;
  uint64_t used;
} sgpu_segment;

/* ------------------------------------------------------------ submissions */
typedef struct sgpu_pending {
  uint64_t fence64;
  uint32_t fence32;
  uint32_t flags;
  void *priv;
  uint32_t priv_size;
  uint32_t staged;    /* 1 if it holds staging space */
  uint32_t stage_end; /* staging head after its allocation */
} sgpu_pending;

typedef struct sgpu_node {
  uint32_t ring_base, ring_size, wptr, rptr_cache;
  uint32_t ctrl_addr;  /* rptr writeback word; fence word at +4 */
  uint32_t rptr_addr, fence_addr;
  uint32_t stage_base, stage_size, stage_head, stage_tail, stage_live;
  uint64_t submitted64, completed64;
  uint32_t cur_ctx_id, ctx_known;
  sgpu_pending *q;
  size_t q_head, q_count, q_cap;
  int faulted;
} sgpu_node;

#define SGPU_CONTEXT_MAGIC 0x43545854u /* "CTXT" */

struct sgpu_context {
  uint32_t magic;
  sgpu_device *dev;
  uint32_t node, id, win_base, win_size;
};

#define SGPU_EVENT_QUEUE_MAX 65536u
#define SGPU_RING_BYTES 4096u
#define SGPU_STAGE_BYTES 16384u
#define SGPU_DEFAULT_WATCHDOG 8000000u
#define SGPU_CYCLES_PER_MS (SGPU_NOMINAL_CLOCK_HZ / 1000u)

/* Frame-capture state of a source: the last frame sgpu_capture_frame returned
 * and the DISP_BASE read as its successor began (the successor's scanout). */
typedef struct sgpu_capture_state {
  uint64_t frame_number; /* 0 = nothing captured yet */
  uint32_t next_base;
} sgpu_capture_state;

/* identity.c: read and check the boot identity block, keep its range out of
 * the allocator; SGPU_ERROR_NO_FIRMWARE when there is none (id may be NULL). */
int sgpu__identity_probe(sgpu_device *dev, sgpu_identity *id);
/* The system clock of a board named in an identity block (SGPU_BOARD_*):
 * the rate its CYCLE counter counts at; SGPU_NOMINAL_CLOCK_HZ for none. */
uint32_t sgpu__board_clock_hz(uint32_t board);

/* shadow.c: the library's write-through copy of GPU memory. */
typedef struct sgpu_shadow {
  uint8_t *bytes;   /* mem_size bytes, allocated on first use */
  uint32_t *known;  /* one bit per word: bytes holds what the memory holds */
} sgpu_shadow;

struct sgpu_device {
  pthread_mutex_t lock;
  sgpu_transport *tr;
  char err[512];
  uint32_t nodes, sources, mem_size, caps, version;
  uint32_t fw_version; /* the boot identity block's, read at open (0: none) */
  uint32_t clock_hz;   /* what the CYCLE counter counts: the board's system clock
                          named by the boot identity block, else SGPU_NOMINAL_CLOCK_HZ */
  uint32_t watchdog;
  int video_tiny;
  sgpu_segment seg[SGPU_SEGMENT_COUNT];
  sgpu_node node[SGPU_MAX_NODES];
  sgpu_event *evq;
  size_t ev_head, ev_count, ev_cap;
  uint32_t int_enable;
  uint32_t next_ctx_id;
  sgpu_stats stats;
  sgpu_capture_state capture[SGPU_MAX_SOURCES];
  sgpu_shadow shadow;
};

/* device.c */
int sgpu__fail(sgpu_device *dev, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sgpu__reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value);
int sgpu__reg_write(sgpu_device *dev, uint32_t offset, uint32_t value);
int sgpu__seg_alloc(sgpu_device *dev, uint32_t seg, uint32_t size, uint32_t align, int internal,
                    uint64_t *addr);
/* Insert block [addr, addr+size) at index i of seg's sorted list (growing
 * it); counts its word-rounded size as used.  host: segment 0's memory. */
int sgpu__seg_insert(sgpu_device *dev, sgpu_segment *seg, size_t i, uint64_t addr, uint32_t size,
                     int internal, uint8_t *host);
sgpu_block *sgpu__host_block(sgpu_device *dev, uint64_t addr, uint64_t size);
int sgpu__program_node(sgpu_device *dev, uint32_t n);
static inline void sgpu__lock(sgpu_device *dev) { pthread_mutex_lock(&dev->lock); }
static inline void sgpu__unlock(sgpu_device *dev) { pthread_mutex_unlock(&dev->lock); }

/* shadow.c */
void sgpu__shadow_note(sgpu_device *dev, uint32_t address, const void *data, uint32_t size);
/* Whole words at a word-aligned address, from the shadow where known, else
 * read from the device first; *view points into the shadow and stays valid
 * until the next write or read through the library. */
int sgpu__shadow_view(sgpu_device *dev, uint32_t address, uint32_t size, const uint32_t **view);
void sgpu__shadow_free(sgpu_device *dev);

/* events.c */
int sgpu__service_irq(sgpu_device *dev);
void sgpu__push_event(sgpu_device *dev, const sgpu_event *ev);
sgpu_event sgpu__event_of(sgpu_event_type type, uint32_t node, uint64_t cycle, const sgpu_pending *p);
/* 1: done, 0: not yet, < 0: an error code. */
typedef int (*sgpu_wait_pred)(sgpu_device *dev, const void *arg);
int sgpu__wait_until(sgpu_device *dev, uint64_t cycles, sgpu_wait_pred pred, const void *arg,
                     int unlock);

/* ring.c: a node's ring, its staging area and its queue of pending submissions. */
typedef struct sgpu_ring_job {
  uint32_t ctx_id, win_base, win_size; /* the context it runs in (0: none) */
  const uint32_t *host_words;          /* segment-0 DMA buffer to stage, or NULL */
  uint32_t ib_addr;                    /* else the buffer's device address */
  uint32_t len;                        /* bytes of DMA buffer (0: a fence alone) */
  int skip;                            /* NullRendering: fetch nothing */
  uint32_t fence;
  uint32_t flags;                      /* for its events: the submission's flags */
  void *priv;                          /* and private data */
  uint32_t priv_size;
} sgpu_ring_job;
int sgpu__ring_submit(sgpu_device *dev, uint32_t n, const sgpu_ring_job *job);
/* A circular queue of count items of size bytes from *head, doubled (64 the
 * first time) into new storage with its items at the front in order: the
 * new storage (the old one freed), or NULL out of memory (all unchanged). */
void *sgpu__queue_grow(void *items, size_t size, size_t *head, size_t count, size_t *cap);
int sgpu__retire(sgpu_device *dev, uint32_t n);
const sgpu_pending *sgpu__ring_oldest(sgpu_node *nd);
const sgpu_pending *sgpu__ring_find(sgpu_node *nd, uint32_t fence32);
void sgpu__ring_pop(sgpu_node *nd);
void sgpu__ring_reset(sgpu_node *nd);

/* submit.c: the packet walker shared by submit and validate. */
typedef struct sgpu_walk {
  sgpu_device *dev;
  int windowed;         /* a non-null context: its window applies */
  uint64_t win_base, win_end;
  int flip_mode;        /* 0 no FLIP allowed, 1 Flip, 2 FlipWithNoWait, 3 anything */
  uint32_t source, interval;
  uint32_t flips;
} sgpu_walk;
int sgpu__walk(sgpu_walk *w, const uint32_t *words, uint32_t nwords, uint64_t report_base,
               const char *what, uint32_t level);

#endif
