/* vm.h — a VM context's GPU virtual address space (owned by vm.c): its
 * page directory and tables in reserved GPU memory with the library's host
 * copy of them, its mappings, and the translation validation uses. */
#ifndef SGPU_VM_H
#define SGPU_VM_H

#include "internal.h"
#include "packet_check.h"

/* A new, empty address space for context c (a zeroed page directory in
 * reserved GPU memory); c->vm and c->off_path are set. */
int sgpu__vm_new(sgpu_device *dev, sgpu_context *c);
/* Drop c's mappings and its tables (kept reserved while the context still
 * has work queued: that work may still walk them). */
void sgpu__vm_release(sgpu_device *dev, sgpu_context *c);
/* The page directory's physical address. */
uint32_t sgpu__vm_root(const sgpu_context *c);
/* Write a resumed submission's trampoline (bytes: at most a page) into c's
 * trampoline page, mapped read-only at the top page of its space on first
 * use; *va: where the ring's INDIRECT finds it. */
int sgpu__vm_tramp(sgpu_device *dev, sgpu_context *c, const uint32_t *words, uint32_t bytes, uint32_t *va);
/* The packet checker's view of c's tables (read through the host copy). */
void sgpu__vm_env(const sgpu_context *c, sgpu_pkt_vm *vm);
/* The words of [va, va + len) in c, as a command fetch reads them: every
 * page mapped, else SGPU_ERROR_NOT_MAPPED (what names the buffer in the
 * message); *words is malloc'd, the caller frees it. */
int sgpu__vm_fetch(sgpu_device *dev, const sgpu_context *c, uint64_t va, uint32_t len,
                   const char *what, uint32_t **words);

#endif
