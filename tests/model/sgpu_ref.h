/* sgpu_ref.h — reference model of the sgpu command processor: an executable
 * specification of docs/interface.md, written from the interface contract and
 * not from the RTL.
 *
 * What it models, per node: the ring (RING_BASE / RING_SIZE, the RING_WPTR
 * doorbell, RING_RPTR and its write-back to RPTR_ADDR after each ring packet),
 * INDIRECT buffers nested up to SGPU_MAX_IB_DEPTH (SKIP = not fetched), the
 * memory effect of every packet, WAIT_MEM / WAIT_SCANLINE outcomes, CONTEXT
 * windows, faults with the FAULT_* registers (reason, header address, header
 * word, fence in flight), the DMA_COMPLETED / DMA_FAULTED interrupt bits, and
 * per display source the flips at frame granularity.
 *
 * Whether (and why) a packet faults is not decided here: the model calls the
 * library's packet checker (host/src/packet_check.h), the same code the
 * validator uses.
 *
 * Time.  The model has no clock.  A doorbell runs the node at once until its
 * ring is empty, it faults, or it reaches a wait that can never end:
 *   a WAIT_MEM whose condition is false when reached (the model assumes no
 *   other agent writes the word while the node waits: nodes of one test do
 *   not share memory they wait on).
 * With WATCHDOG != 0 such a wait ends in a TIMEOUT fault at the wait packet;
 * with WATCHDOG == 0 the node stays waiting (STATUS.WAITING) until RESET.
 * Every other wait ends; WAIT_SCANLINE too, whatever its range: the beam is
 * on a line (DISP_SCANLINE[15:0], 0 = first active line) only outside
 * vertical blanking (DISP_SCANLINE[16]), so the wait ends by the next vblank.  Display waits advance a per-source vblank counter
 * that is a lower bound of the vblanks the chip must have seen.
 *
 * Points the interface text leaves open, and what the model takes:
 *   - reset values: every register 0 except RING_SIZE = 64;
 *   - CONTROL.RESET clears what it lists (fault, IB stack, context, RPTR and
 *     WPTR), not the fence in flight, nor LAST_FENCE;
 *   - the fence in flight is set by a ring-level INDIRECT whose header passed
 *     (so that its fence word exists), before its payload checks;
 *   - RPTR is written back after each completed ring packet, for an INDIRECT
 *     when its buffer is entered (never for a faulting packet or at RESET);
 *   - a null context (id 0) has the whole memory as window; WINDOW_BASE and
 *     WINDOW_SIZE then read 0 and the memory size.
 *   - preemption: a WAIT_MEM whose condition holds when reached ends at its
 *     first poll, so it is no boundary inside the WAIT; an INDIRECT of length
 *     0 enters no buffer (no level-1 boundary); the save words a level leaves
 *     meaningless are chip-defined; RESET clears STATUS.PREEMPTED.
 *
 * Chip-defined values.  TIMESTAMP writes the cycle counter, which the model
 * cannot know: it marks those 8 bytes chip-defined (sgpu_ref_chip_defined) and
 * logs the address; a later write makes bytes defined again, COPY carries the
 * mark along.  Comparisons check chip-defined words as a nondecreasing
 * sequence in program order instead of exact values.  A WAIT_MEM that reads a
 * chip-defined byte has no defined outcome: the model counts it in
 * sgpu_ref_stats.indeterminate (a generator must avoid it) and treats the
 * wait as satisfied.
 *
 * Virtual memory (sgpu_ref_set_vm, docs/vm.md).  A CONTEXT with a non-zero id and the
 * VM flag makes a VM context: the ring-level INDIRECT's buffer and every
 * access at level >= 1 (fetch, FENCE, WRITE_DATA, TIMESTAMP, WAIT_MEM, FILL,
 * COPY, FLIP's address) go through the page tables at its base, walked by
 * the checker's sgpu__vm_translate, whose page checks replace the window
 * checks.  The model has no TLB: it reads the tables when it checks and
 * accesses, which is what the chip does as long as a TLB_INVALIDATE (or a
 * CONTEXT) follows every unmap or write-protection.  The logs (fences,
 * timestamps, flips) and write counts hold physical addresses.  A COPY
 * reads its whole source (translated) before it writes, so mappings that
 * alias one frame at two addresses of the same COPY have no defined result
 * on the chip: generators keep a context's mapping one-to-one.
 *
 * Flips.  FLIP with interval 1..4 is taken at the first vblank at least
 * `interval` vblanks after the previous flip of that source and after the
 * flip was queued; IMMEDIATE (0) and IMMEDIATE_ALLOW_TEARING (5) are taken at
 * once.  A waiting FLIP holds the node until taken; NO_WAIT queues it; a FLIP
 * while one is queued first waits for the queued one.  RESET of a node does
 * not cancel a queued flip.  sgpu_ref_display_settle() takes the queued flips
 * (the state after enough frames have passed).
 */
#ifndef SGPU_REF_H
#define SGPU_REF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sgpu_hw.h"

typedef struct sgpu_ref sgpu_ref;

typedef struct sgpu_ref_config {
  uint32_t mem_bytes;       /* GPU memory, a power of two */
  uint32_t nodes;           /* 1..SGPU_MAX_NODES */
  uint32_t sources;         /* 0..SGPU_MAX_SOURCES */
  uint32_t ib_depth;        /* INDIRECT levels below the ring (CAPS.IB_DEPTH); 0: SGPU_MAX_IB_DEPTH */
} sgpu_ref_config;

/* A fault as the FAULT_* registers report it. */
typedef struct sgpu_ref_fault {
  uint32_t node;
  uint32_t reason;  /* SGPU_FAULT_* */
  uint32_t addr;    /* byte address of the faulting packet's header (virtual in a VM context's buffer) */
  uint32_t header;  /* the header word */
  uint32_t fence;   /* fence in flight: that of the last ring-level INDIRECT */
  uint32_t va, access; /* FAULT_VA, FAULT_ACCESS (0 unless PAGE_NOT_PRESENT / PAGE_PROTECTION) */
} sgpu_ref_fault;

/* A FENCE write, in program order. */
typedef struct sgpu_ref_fence {
  uint32_t node, addr, value, irq;
} sgpu_ref_fence;

/* A flip taken by a display source. */
typedef struct sgpu_ref_flip {
  uint32_t node, source, addr, interval, no_wait;
  int64_t vblank; /* shown from this vblank on (lower bound, counted from sgpu_ref_create) */
} sgpu_ref_flip;

typedef struct sgpu_ref_stats {
  uint64_t packets[SGPU_OP_COUNT_OF_OPCODES + 1]; /* packets reached, by opcode; [COUNT] = undefined opcodes */
  uint64_t faults[SGPU_FAULT_COUNT];              /* faults by reason */
  uint64_t indeterminate;                         /* WAIT_MEM on chip-defined bytes */
  uint64_t ib_entered;                            /* INDIRECT buffers executed */
  uint64_t ib_skipped;                            /* INDIRECT with SKIP */
  uint64_t max_depth;                             /* deepest IB level executed */
  uint64_t preempted;                             /* preemptions taken */
} sgpu_ref_stats;

sgpu_ref *sgpu_ref_create(const sgpu_ref_config *config);
/* The build has CAPS.VM (call it before the first packet runs): CONTEXT's
 * VM flag makes VM contexts.  Without it (the default) the flag is ignored
 * and TLB_INVALIDATE is a NOP.  (A setter, not a config field: the
 * config's positional initialisers in the board tests stay valid.) */
void sgpu_ref_set_vm(sgpu_ref *ref, int vm);
void sgpu_ref_destroy(sgpu_ref *ref);

/* Memory: the model's image, mem_bytes long (direct access allowed). */
uint8_t *sgpu_ref_memory(sgpu_ref *ref);
/* Nonzero for bytes whose value is chip-defined (TIMESTAMP), NULL = none yet. */
const uint8_t *sgpu_ref_chip_defined(const sgpu_ref *ref);
/* Per memory word (index = address / 4): how many times a node wrote it
 * (each packet write, FILL / COPY row, RPTR write-back and save area write
 * counts once for every word it touches, up to 65535; backdoor copies do
 * not count).  The
 * chip's memory log must show as many writes: a packet that ran twice, or
 * not at all, shows there even when the values written are the same. */
const uint16_t *sgpu_ref_write_counts(const sgpu_ref *ref);
/* Backdoor copies; -1 when the range leaves memory. */
int sgpu_ref_mem_write(sgpu_ref *ref, uint32_t addr, const void *data, uint32_t size);
int sgpu_ref_mem_read(const sgpu_ref *ref, uint32_t addr, void *data, uint32_t size);

/* Registers at the chip's offsets (SGPU_REG_*, SGPU_NODE_REG(), SGPU_SOURCE_REG()).
 * Modelled: INT_STATUS (w1c), INT_ENABLE, MEM_SIZE, CFG_ERROR (w1c) for the
 * node registers' rules; per node RING_BASE, RING_SIZE, RING_WPTR, RING_RPTR,
 * RPTR_ADDR, CONTROL, STATUS, FAULT_*, WATCHDOG, LAST_FENCE, CONTEXT_ID,
 * WINDOW_BASE, WINDOW_SIZE, SAVE_ADDR, PREEMPT, FAULT_VA, FAULT_ACCESS, VM_ROOT; per source DISP_BASE, DISP_PENDING and
 * DISP_FLIP_COUNT.  A host write of DISP_BASE takes effect at once in the model.
 * Return 0, or -1 for an offset the model does not define (nothing changes).
 * A RING_WPTR write (doorbell) to an enabled, unfaulted node runs it. */
int sgpu_ref_reg_write(sgpu_ref *ref, uint32_t offset, uint32_t value);
int sgpu_ref_reg_read(sgpu_ref *ref, uint32_t offset, uint32_t *value);

/* Preemption.  SAVE_ADDR and PREEMPT are registers of the model (PREEMPT
 * only keeps the preemption fence id it is given).  The model has no clock,
 * so it cannot tell at which boundary a request arrives: the caller says it.
 * sgpu_ref_preempt_at arms node n to stop at the boundary that `save` (the
 * first SGPU_SAVE_PREEMPT_FENCE words of a save area, as the chip wrote them)
 * describes.  Boundaries (docs/interface.md, PREEMPT): before each packet
 * header at any level, the end of an INDIRECT buffer that was entered (its
 * NEXT = END), the empty ring, and inside a WAIT that waits (WAIT_VSYNC,
 * WAIT_SCANLINE, a WAIT_MEM whose condition is false: LEVEL[8], the WAIT's
 * own header is NEXT).  Only the words LEVEL makes meaningful are compared:
 * RING_NEXT and LEVEL; IB1_* from level 1 on; IB2_* at level 2.  When the
 * node, running (now if it is idle, else from the next doorbell), reaches
 * that boundary, it writes the save area (the words the level does not use
 * are marked chip-defined, the preemption fence id last), sets
 * STATUS.PREEMPTED and INT_STATUS.DMA_PREEMPTED and stops until RESET.  If it
 * faults or goes idle before, the request is still armed (the caller sees
 * STATUS.PREEMPTED = 0: the chip stopped where the model never passes).
 * Returns -1 for a faulted or preempted node (the request is ignored) and for
 * a node stuck in a wait with WATCHDOG 0 (not modelled). */
int sgpu_ref_preempt_at(sgpu_ref *ref, uint32_t node, const uint32_t *save);

/* Take every queued flip (as after enough vblanks). */
void sgpu_ref_display_settle(sgpu_ref *ref);
/* Lower bound of the vblanks source s has gone through since create. */
int64_t sgpu_ref_vblanks(const sgpu_ref *ref, uint32_t source);

/* Logs, in program order since create. */
size_t sgpu_ref_faults(const sgpu_ref *ref, const sgpu_ref_fault **faults);
size_t sgpu_ref_fences(const sgpu_ref *ref, const sgpu_ref_fence **fences);
size_t sgpu_ref_timestamps(const sgpu_ref *ref, const uint32_t **addrs);
size_t sgpu_ref_flips(const sgpu_ref *ref, const sgpu_ref_flip **flips);
const sgpu_ref_stats *sgpu_ref_get_stats(const sgpu_ref *ref);

/* Print every packet the model executes (address, words, outcome); NULL = off. */
void sgpu_ref_trace(sgpu_ref *ref, FILE *out);

/* Names for messages ("FILL", "OUT_OF_RANGE"); "?" when unknown. */
const char *sgpu_ref_opcode_name(uint32_t opcode);
const char *sgpu_ref_fault_name(uint32_t reason);

#endif
