/* packet_check.h — the one place that decides whether, and why, a packet
 * faults.  The library's validator and the reference model of the command
 * processor (tests/model) both call it, so they cannot disagree; the random
 * differential test holds the RTL to the same answers.
 *
 * The checks and their precedence (which fault wins when several apply) come
 * from tools/hwspec.py through the generated tables in sgpu_hw_tables.h. */
#ifndef SGPU_PACKET_CHECK_H
#define SGPU_PACKET_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu_hw_tables.h"

/* A VM context's address space, as the hardware walks it (CONTEXT's VM
 * flag on a CAPS.VM device).  Its page checks take the places of the window
 * checks in the precedence (the ring's INDIRECT is checked too: its buffer
 * is fetched in the context): every page from that of the first byte to
 * that of the last, in order, must have a VALID directory and table entry
 * (else PAGE_NOT_PRESENT) and, for a write, a WRITABLE one (else
 * PAGE_PROTECTION).  A fault records the address of the access's first
 * byte in that page and the access kind and unit. */
typedef struct sgpu_pkt_vm {
  uint32_t root;      /* page directory: CONTEXT's base with bits [11:0] clear */
  uint64_t mem_size;  /* physical addresses wrap at this (a power of two) */
  /* the 32-bit word at physical address pa (4-byte aligned, < mem_size) */
  uint32_t (*read_word)(void *mem, uint64_t pa);
  void *mem;
  /* set by a page fault (else left alone): as FAULT_VA and FAULT_ACCESS */
  uint32_t fault_va, fault_access, fault_reason;
} sgpu_pkt_vm;

/* Where a packet executes. */
typedef struct sgpu_pkt_env {
  uint64_t mem_size;  /* bytes of GPU memory (a power of two) */
  uint32_t sources;   /* display sources of the build */
  uint32_t level;     /* 0: the ring itself, 1..SGPU_MAX_IB_DEPTH: inside an INDIRECT buffer */
  /* The current context's window [win_base, win_end).  It applies only to
   * packets inside an INDIRECT buffer (level >= 1) of a non-null context. */
  int windowed;
  uint64_t win_base, win_end;
  /* INDIRECT levels the build nests below the ring (CAPS.IB_DEPTH); 0 means
   * SGPU_MAX_IB_DEPTH.  An INDIRECT at this level faults NESTING. */
  uint32_t ib_depth;
  /* a VM context's tables (then windowed is ignored); NULL: physical */
  sgpu_pkt_vm *vm;
} sgpu_pkt_env;

/* Translates the virtual address va of a VM context for an access of kind
 * access (SGPU_HW_ACCESS_*): SGPU_FAULT_NONE and *pa, or the page fault
 * (PAGE_NOT_PRESENT, PAGE_PROTECTION) it raises. */
uint32_t sgpu__vm_translate(const sgpu_pkt_vm *vm, uint32_t va, uint32_t access, uint64_t *pa);

/* Header checks: type, opcode, flags, count and overrun, in that order.
 * avail_words counts the words from the header (included) to the end of the
 * buffer that holds it (the ring: up to WPTR).  Returns SGPU_FAULT_NONE (0)
 * or the fault; why (may be NULL) gets a one-line reason. */
uint32_t sgpu__check_header(uint32_t header, uint64_t avail_words, char *why, size_t why_size);

/* The INDIRECT levels a CAPS.IB_DEPTH value allows (0, from a build before
 * the field: SGPU_MAX_IB_DEPTH). */
static inline uint32_t sgpu__ib_depth(uint32_t caps_ib_depth) {
  return caps_ib_depth && caps_ib_depth < SGPU_MAX_IB_DEPTH ? caps_ib_depth : SGPU_MAX_IB_DEPTH;
}

/* Payload checks of a packet whose header passed: pkt[0] is the header,
 * pkt[1..count] its payload.  Returns SGPU_FAULT_NONE or the fault, in the
 * precedence the interface spec gives; why gets a one-line reason. */
uint32_t sgpu__check_payload(const sgpu_pkt_env *env, const uint32_t *pkt, char *why,
                             size_t why_size);

/* Both, for a packet of which avail_words words are readable at pkt. */
uint32_t sgpu__check_packet(const sgpu_pkt_env *env, const uint32_t *pkt, uint64_t avail_words,
                            char *why, size_t why_size);

/* sgpu_strerror()'s message of a library code, NULL when it is none. */
const char *sgpu__error_message(int code);
/* SGPU_ERROR_PACKET_<fault> for a fault validation predicts. */
int sgpu__error_of_fault(uint32_t fault);
/* 1 when the register at host offset `offset` is read-only ("ro" in the
 * interface's register table), its NAME or NAME@INDEX in buf. */
int sgpu__reg_is_read_only(uint32_t offset, char *buf, size_t size);

/* Is [addr, addr + len) inside memory of mem_size bytes?  An address at or
 * past the end is outside even with len 0 (the hardware's rule). */
static inline int sgpu__range_ok(uint64_t mem_size, uint64_t addr, uint64_t len) {
  return addr < mem_size && addr + len <= mem_size;
}

#endif
