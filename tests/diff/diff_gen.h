/* diff_gen.h — random command-stream workloads for the differential test
 * (tests/diff/sgpu_diff.c): a workload is a list of ring segments (one
 * doorbell each); a segment is a list of ring packets; an INDIRECT packet may
 * own a generated buffer (a list of packets, placed at a fixed address).
 * The structure is a tree so that the shrinker can drop packets and lay the
 * rest out again. */
#ifndef DIFF_GEN_H
#define DIFF_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Memory map of a workload (GPU byte addresses). */
#define DG_RING_AREA 0x00010000u /* rings: RING_SIZE-aligned inside 64 KiB */
#define DG_RPTR_AREA 0x00020000u /* RPTR write-back words */
#define DG_SPAN_BASE 0x00100000u /* everything a context window may cover */
#define DG_IB_BASE 0x00100000u   /* INDIRECT buffers (only the test writes them) */
#define DG_IB_END 0x00140000u
#define DG_FENCE_BASE 0x00140000u /* FENCE targets (only FENCE writes here) */
#define DG_FENCE_END 0x00141000u
#define DG_TS_BASE 0x00141000u /* TIMESTAMP targets (each used once) */
#define DG_TS_END 0x00142000u
#define DG_DATA_BASE 0x00142000u /* WRITE_DATA / FILL / COPY / WAIT_MEM */
#define DG_DATA_END 0x00152000u
#define DG_FB_BASE 0x00152000u /* flip targets (the display reads them) */
#define DG_SPAN_END 0x00160000u
#define DG_SAVE_AREA 0x00028000u /* preemption (sgpu_diff): save area at +0, trampoline buffer at +0x40 */
/* A second node's workload runs at the same time in memory of its own: its
 * span is DG_SECOND_OFF higher, its ring area and RPTR words elsewhere; a
 * third one's (three rings of one node) DG_THIRD_OFF higher. */
#define DG_SECOND_OFF 0x00100000u
#define DG_THIRD_OFF 0x00200000u
/* A VM workload's page tables (physical; no context maps them): two
 * address spaces of three pages each (directory, tables for directory
 * entries 0 and 1). */
#define DG_PT_AREA 0x00700000u
#define DG_PT_BYTES 0x6000u

typedef struct dg_list dg_list;

typedef struct dg_pkt {
  uint32_t *w;   /* header + payload as generated (INDIRECT to a child: address/length patched) */
  uint32_t nw;
  dg_list *ib;   /* generated buffer of this INDIRECT, or NULL */
  uint32_t ib_addr;
  uint32_t ib_cut; /* words cut off the end of the buffer's length (OVERRUN inside it) */
} dg_pkt;

struct dg_list {
  dg_pkt *p;
  size_t n, cap;
};

/* A word of a VM workload's page tables written by the host. */
typedef struct dg_vm_write {
  uint32_t addr, value;
} dg_vm_write;

typedef struct dg_seg {
  dg_list ring;
  /* VM: the host changes the page tables (chg) after the ring packets
   * before index chg_at have run (the runner waits for the node to stop
   * there); 0 changes: one doorbell as usual */
  dg_vm_write *chg;
  size_t nchg;
  size_t chg_at;
  uint32_t cut;      /* words of the last ring packet beyond WPTR (ring-level OVERRUN) */
  uint32_t watchdog; /* WATCHDOG for this segment */
  uint32_t start;    /* ring offset it was put at by the last run (for listings) */
} dg_seg;

typedef struct dg_work {
  uint32_t seed;
  uint32_t off;          /* 0, or DG_SECOND_OFF: every span address is this much higher */
  uint32_t node;
  uint32_t ring_base, ring_size;
  uint32_t rptr_addr;    /* RPTR_ADDR register value (bit 0 = enable) */
  uint32_t stall, latency, sim_seed;
  int display;           /* valid display packets used (the displays run) */
  dg_seg *seg;
  size_t nseg;
  uint32_t data_seed;    /* initial contents of the data region */
  /* VM (dg_generate_vm): every segment starts with a CONTEXT with the VM
   * flag, on one of nctx address spaces whose directories are at pd[]; the
   * virtual addresses are the span's (IB pages mapped to themselves
   * read-only, the FENCE and TIMESTAMP pages to themselves, the data and
   * flip pages shuffled among themselves, one-to-one in each space, some
   * unmapped or read-only); the tables start as pt_init (DG_PT_AREA +
   * slot * DG_PT_BYTES, the rest 0) and change between doorbells */
  int vm;
  uint32_t nctx, pd[2];
  dg_vm_write *pt_init;
  size_t npt_init;
  uint32_t rewritten;    /* packets of its buffers overwritten with hostile ones after generation */
} dg_work;

typedef struct dg_limits {
  uint32_t mem_bytes, sources;
} dg_limits;

void dg_generate(dg_work *w, uint32_t seed, const dg_limits *lim);
/* The workload of a second node running at the same time as seed's
 * (disjoint memory, no valid display packets). */
void dg_generate_second(dg_work *w, uint32_t seed, const dg_limits *lim, uint32_t node);
/* The third workload at the same time (disjoint memory from both, no valid
 * display packets), on ring `node`. */
void dg_generate_third(dg_work *w, uint32_t seed, const dg_limits *lim, uint32_t node);
/* Which of the three memory slots a workload uses (0, 1 second, 2 third). */
static inline uint32_t dg_slot(const dg_work *w) { return w->off / DG_SECOND_OFF; }
/* Where a workload's ring and RPTR write-back words live (64 KiB, 256 bytes). */
static inline uint32_t dg_ring_area(const dg_work *w) { return DG_RING_AREA + 0x20000u * dg_slot(w); }
static inline uint32_t dg_rptr_area(const dg_work *w) { return DG_RPTR_AREA + 0x100u * dg_slot(w); }
/* Where a preemption of the workload's node saves its state (256 bytes). */
static inline uint32_t dg_save_area(const dg_work *w) { return DG_SAVE_AREA + 0x100u * dg_slot(w); }
/* A VM workload (no preemption, no other ring beside it). */
void dg_generate_vm(dg_work *w, uint32_t seed, const dg_limits *lim);
/* Where a VM workload's tables live. */
static inline uint32_t dg_pt_area(const dg_work *w) { return DG_PT_AREA + DG_PT_BYTES * dg_slot(w); }
/* One command buffer for validation: segment 0 holds CONTEXT (id 1 and a
 * window, or the null context) and an INDIRECT that owns the buffer.  No
 * waits that never end and no display packets that could wait (what
 * validation cannot predict); faulting packets as in dg_generate. */
void dg_generate_buffer(dg_work *w, uint32_t seed, const dg_limits *lim);
/* Bytes an INDIRECT with a generated buffer executes (its length word). */
uint32_t dg_ib_len(const dg_pkt *p);
void dg_free(dg_work *w);
dg_work *dg_clone(const dg_work *w);

/* Lay a buffer out: its words (children patched) into *out (malloc'd). */
size_t dg_layout(const dg_list *l, uint32_t **out);
/* Call fn for every generated buffer (address, words, count), depth first. */
void dg_for_each_ib(const dg_work *w, void (*fn)(void *ctx, uint32_t addr, const uint32_t *words, size_t n),
                    void *ctx);
/* Initial contents of the data region (DG_DATA_END - DG_DATA_BASE bytes). */
void dg_data_image(const dg_work *w, uint8_t *out);

/* Number of packets in the whole tree, and removal of the k-th (preorder;
 * removing an INDIRECT removes its buffer). */
size_t dg_count(const dg_work *w);
void dg_remove(dg_work *w, size_t k);

/* Assembler listing of the workload (README / docs/interface.md syntax). */
void dg_print(const dg_work *w, FILE *out);

#endif
