/* vm.c — GPU virtual memory (vm.h): a VM context's page directory and page
 * tables, kept in GPU memory the library reserves and mirrored in host
 * memory (validation walks the mirror, the hardware the GPU copy; they are
 * written together), the context's mappings and its VA allocator, and the
 * public sgpu_map / sgpu_unmap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "remote.h"
#include "ring.h"
#include "shadow.h"
#include "vm.h"

/* [va, va + size) -> [pa, pa + size) of the allocation at block_addr */
typedef struct sgpu_vm_map {
  uint64_t va, size, pa;
  uint32_t access; /* SGPU_MAP_* as asked */
} sgpu_vm_map;

struct sgpu_vm {
  uint32_t dir_pa;
  uint32_t npde;                          /* directory entries the hardware reads */
  uint32_t dir[SGPU_PT_ENTRIES];          /* host copy of the directory */
  uint32_t *table[SGPU_PT_ENTRIES];       /* host copies of the tables (NULL: none) */
  sgpu_vm_map *maps;                      /* sorted by va, not overlapping */
  size_t count, cap;
  uint32_t tramp_pa;                      /* its resume trampoline's page (0: none yet) */
};

#define PAGE SGPU_PAGE_BYTES
#define SPAN ((uint64_t)SGPU_PT_ENTRIES * SGPU_PAGE_BYTES) /* bytes one table maps */

/* Write n words of a table or the directory to GPU memory, through the
 * shadow (validation reads GPU memory from it). */
static int put_words(sgpu_device *dev, uint32_t pa, const uint32_t *w, uint32_t n) {
  int r = dev->tr->ops->mem_write(dev->tr, pa, w, 4 * n);
  if (r) return sgpu__fail(dev, r, "writing page-table words at 0x%x failed (transport)", pa);
  sgpu__shadow_note(dev, pa, w, 4 * n);
  return 0;
}

/* A zeroed page of reserved GPU memory (a directory or a table). */
static int new_page(sgpu_device *dev, uint32_t *pa) {
  uint64_t a = 0;
  int r = sgpu__seg_alloc(dev, SGPU_SEGMENT_LOCAL, PAGE, PAGE, 1, &a);
  if (r) return r;
  static const uint32_t zero[SGPU_PT_ENTRIES];
  if ((r = put_words(dev, (uint32_t)a, zero, SGPU_PT_ENTRIES))) {
    sgpu__seg_free_internal(dev, a);
    return r;
  }
  *pa = (uint32_t)a;
  return 0;
}

int sgpu__vm_new(sgpu_device *dev, sgpu_context *c) {
  struct sgpu_vm *vm = calloc(1, sizeof *vm);
  if (!vm) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for an address space");
  int r = new_page(dev, &vm->dir_pa);
  if (r) {
    free(vm);
    return r;
  }
  /* the range check keeps VAs below mem_size: only these entries are read */
  uint64_t n = (dev->mem_size + SPAN - 1) / SPAN;
  vm->npde = n ? (uint32_t)n : 1;
  c->vm = vm;
  c->off_path |= SGPU__CTX_VM;
  return 0;
}

/* Queued, running or preempted submissions of context id on the node's rings. */
static int has_work(sgpu_device *dev, uint32_t node, uint32_t id) {
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, node, ring);
  for (uint32_t j = 0; j < k; j++) {
    sgpu_node *nd = &dev->node[ring[j]];
    sgpu__retire(dev, ring[j]);
    const sgpu_pending *p;
    for (size_t i = 0; (p = sgpu__ring_at(nd, i)); i++)
      if (p->owner == id && !p->dropped) return 1;
    for (size_t i = 0; i < nd->pre_count; i++)
      if (nd->pre[i].owner == id) return 1;
  }
  return 0;
}

static void drop_map_ref(sgpu_device *dev, uint64_t pa) {
  sgpu_block *b = sgpu__gpu_block(dev, pa, 1);
  if (b && b->maps) b->maps--;
}

void sgpu__vm_release(sgpu_device *dev, sgpu_context *c) {
  struct sgpu_vm *vm = c->vm;
  if (!vm) return;
  for (size_t i = 0; i < vm->count; i++) drop_map_ref(dev, vm->maps[i].pa);
  /* queued work still walks the tables: they stay reserved (freed at close) */
  if (!has_work(dev, c->node, c->id)) {
    for (uint32_t i = 0; i < SGPU_PT_ENTRIES; i++)
      if (vm->table[i]) sgpu__seg_free_internal(dev, vm->dir[i] & SGPU_PDE_TABLE_MASK);
    sgpu__seg_free_internal(dev, vm->dir_pa);
    if (vm->tramp_pa) sgpu__seg_free_internal(dev, vm->tramp_pa);
  }
  for (uint32_t i = 0; i < SGPU_PT_ENTRIES; i++) free(vm->table[i]);
  free(vm->maps);
  free(vm);
  c->vm = NULL;
}

uint32_t sgpu__vm_root(const sgpu_context *c) { return c->vm->dir_pa; }

static int set_ptes(sgpu_device *dev, struct sgpu_vm *vm, uint64_t va, uint64_t size, uint32_t pte);

/* The top page of every VM context's space, which sgpu_map never hands
 * out: a resumed submission's trampoline runs from there. */
static uint32_t tramp_va(const sgpu_device *dev) { return dev->mem_size - PAGE; }

int sgpu__vm_tramp(sgpu_device *dev, sgpu_context *c, const uint32_t *words, uint32_t bytes, uint32_t *va) {
  struct sgpu_vm *vm = c->vm;
  int r;
  if (bytes > PAGE) return sgpu__fail(dev, SGPU_ERROR_IO, "a resume trampoline of %u bytes", bytes);
  if (!vm->tramp_pa) {
    uint32_t pa = 0;
    if ((r = new_page(dev, &pa))) return r;
    uint32_t pte = pa | SGPU_PTE_VALID_MASK | SGPU_FIELD_PUT(PTE_SEGMENT, SGPU_SEGMENT_LOCAL);
    if ((r = set_ptes(dev, vm, tramp_va(dev), PAGE, pte))) {
      set_ptes(dev, vm, tramp_va(dev), PAGE, 0);
      sgpu__seg_free_internal(dev, pa);
      return r;
    }
    vm->tramp_pa = pa; /* read-only, mapped for good: a valid entry needs no TLB_INVALIDATE */
  }
  if ((r = put_words(dev, vm->tramp_pa, words, bytes / 4)))
    return sgpu__fail(dev, r, "writing context %u's resume trampoline failed", c->id);
  *va = tramp_va(dev);
  return 0;
}

/* The packet checker's read_word: the host copy of the directory and tables
 * (a valid entry never points anywhere else). */
static uint32_t read_word(void *mem, uint64_t pa) {
  const struct sgpu_vm *vm = mem;
  if (pa >= vm->dir_pa && pa < (uint64_t)vm->dir_pa + PAGE) return vm->dir[(pa - vm->dir_pa) / 4];
  for (uint32_t i = 0; i < vm->npde; i++) {
    uint64_t t = vm->dir[i] & SGPU_PDE_TABLE_MASK;
    if (vm->table[i] && pa >= t && pa < t + PAGE) return vm->table[i][(pa - t) / 4];
  }
  return 0;
}

void sgpu__vm_env(const sgpu_context *c, sgpu_pkt_vm *vm) {
  memset(vm, 0, sizeof *vm);
  vm->root = c->vm->dir_pa;
  vm->mem_size = c->dev->mem_size;
  vm->read_word = read_word;
  vm->mem = c->vm;
}

int sgpu__vm_fetch(sgpu_device *dev, const sgpu_context *c, uint64_t va, uint32_t len,
                   const char *what, uint32_t **words) {
  *words = NULL;
  if (va >= dev->mem_size || len > dev->mem_size - va)
    return sgpu__fail(dev, SGPU_ERROR_NOT_MAPPED,
                      "%s 0x%llx+%u lies outside the context's address space [0, 0x%x)", what,
                      (unsigned long long)va, len, dev->mem_size);
  sgpu_pkt_vm env;
  sgpu__vm_env(c, &env);
  uint32_t *out = malloc(len ? len : 4);
  if (!out) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a %u-byte buffer", len);
  for (uint64_t a = va; a < va + len;) {
    uint64_t pa = 0, next = (a / PAGE + 1) * PAGE;
    uint32_t n = (uint32_t)((next < va + len ? next : va + len) - a);
    if (sgpu__vm_translate(&env, (uint32_t)a, SGPU_HW_ACCESS_FETCH, &pa) != SGPU_FAULT_NONE) {
      free(out);
      return sgpu__fail(dev, SGPU_ERROR_NOT_MAPPED,
                        "%s 0x%llx+%u: page 0x%llx is not mapped in context %u", what,
                        (unsigned long long)va, len, (unsigned long long)(a & ~(uint64_t)(PAGE - 1)),
                        c->id);
    }
    const uint32_t *view;
    int r = sgpu__shadow_view(dev, (uint32_t)pa, n, &view);
    if (r) {
      free(out);
      return sgpu__fail(dev, r, "reading %s at 0x%llx (physical 0x%llx) failed", what,
                        (unsigned long long)a, (unsigned long long)pa);
    }
    memcpy((uint8_t *)out + (a - va), view, n);
    a += n;
  }
  *words = out;
  return 0;
}

/* ------------------------------------------------------------ public */
/* 0: ctx is a VM context of this process's device; 1: a context of an
 * sgpud device (the server checks the rest); < 0 the error. */
static int vm_context(sgpu_context *ctx, sgpu_device **devp) {
  if (!ctx || ctx->magic != SGPU_CONTEXT_MAGIC || !ctx->dev) return SGPU_ERROR_INVALID_CONTEXT;
  *devp = ctx->dev;
  if (ctx->dev->remote) return 1;
  if (!ctx->vm)
    return sgpu__fail(ctx->dev, SGPU_ERROR_NOT_VM_CONTEXT,
                      "context %u has physical addresses (sgpu_create_context): map into a context "
                      "made by sgpu_create_context_vm",
                      ctx->id);
  return 0;
}

int sgpu_context_is_vm(const sgpu_context *ctx) {
  return ctx && ctx->magic == SGPU_CONTEXT_MAGIC && (ctx->off_path & SGPU__CTX_VM) ? 1 : 0;
}

/* The first run of size free bytes of VA at or above PAGE below mem_size. */
static int find_va(const struct sgpu_vm *vm, uint64_t mem_size, uint64_t size, uint64_t *va,
                   size_t *index) {
  uint64_t cur = PAGE;
  for (size_t i = 0;; i++) {
    uint64_t limit = i < vm->count ? vm->maps[i].va : mem_size - PAGE; /* the top page: tramp_va */
    if (limit >= cur && limit - cur >= size) {
      *va = cur;
      *index = i;
      return 1;
    }
    if (i == vm->count) return 0;
    cur = vm->maps[i].va + vm->maps[i].size;
  }
}

/* Set the entries of [va, va + size) to pte + page offset (pte 0: clear),
 * tables made as needed, in the host copy and in GPU memory. */
static int set_ptes(sgpu_device *dev, struct sgpu_vm *vm, uint64_t va, uint64_t size, uint32_t pte) {
  for (uint64_t a = va; a < va + size;) {
    uint32_t d = (uint32_t)(a / SPAN), first = (uint32_t)(a / PAGE % SGPU_PT_ENTRIES);
    uint64_t end = (d + 1) * SPAN < va + size ? (d + 1) * SPAN : va + size;
    uint32_t n = (uint32_t)((end - a) / PAGE);
    if (!vm->table[d]) {
      if (!pte) { a = end; continue; }
      uint32_t *t = calloc(SGPU_PT_ENTRIES, 4), tpa = 0;
      if (!t) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a page table");
      int r = new_page(dev, &tpa);
      if (r) { free(t); return r; }
      vm->table[d] = t;
      vm->dir[d] = tpa | SGPU_PDE_VALID_MASK;
      if ((r = put_words(dev, vm->dir_pa + 4 * d, &vm->dir[d], 1))) return r;
    }
    for (uint32_t k = 0; k < n; k++)
      vm->table[d][first + k] = pte ? pte + (uint32_t)((a - va) + (uint64_t)k * PAGE) : 0;
    int r = put_words(dev, (vm->dir[d] & SGPU_PDE_TABLE_MASK) + 4 * first, &vm->table[d][first], n);
    if (r) return r;
    a = end;
  }
  return 0;
}

/* PAGE_ALIGNMENT unless address and size are non-zero whole pages. */
static int whole_pages(sgpu_device *dev, const char *what, uint64_t address, uint64_t size) {
  if ((address | size) % PAGE == 0 && size) return 0;
  return sgpu__fail(dev, SGPU_ERROR_PAGE_ALIGNMENT,
                    "%s 0x%llx size 0x%llx: both must be non-zero multiples of %u bytes (the page)", what,
                    (unsigned long long)address, (unsigned long long)size, PAGE);
}

int sgpu_map(sgpu_context *ctx, uint64_t address, uint64_t size, uint32_t access, uint64_t *gpu_va) {
  sgpu_device *dev = NULL;
  int r = vm_context(ctx, &dev);
  if (r < 0) return r;
  if (!gpu_va) return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM, "gpu_va is NULL");
  if (r) return sgpu__remote_map(ctx, address, size, access, gpu_va);
  if (!access || (access & ~(SGPU_MAP_READ | SGPU_MAP_WRITE)))
    return sgpu__fail(dev, SGPU_ERROR_INVALID_PARAM,
                      "access 0x%x: give SGPU_MAP_READ and/or SGPU_MAP_WRITE, nothing else", access);
  if ((r = whole_pages(dev, "address", address, size))) return r;
  sgpu__lock(dev);
  struct sgpu_vm *vm = ctx->vm;
  sgpu_block *b = sgpu__gpu_block(dev, address, size);
  uint64_t va = 0;
  size_t at = 0;
  if (!b)
    r = sgpu__fail(dev, SGPU_ERROR_NOT_ALLOCATED,
                   "0x%llx+0x%llx is not inside one allocation of segment 1 or 2 (sgpu_alloc)",
                   (unsigned long long)address, (unsigned long long)size);
  else if (!find_va(vm, dev->mem_size, size, &va, &at))
    r = sgpu__fail(dev, SGPU_ERROR_OUT_OF_VA_SPACE,
                   "context %u has no free run of 0x%llx bytes of virtual addresses in [0x%x, 0x%x)",
                   ctx->id, (unsigned long long)size, PAGE, dev->mem_size);
  else if (vm->count == vm->cap) {
    size_t ncap = vm->cap ? vm->cap * 2 : 8;
    sgpu_vm_map *nm = realloc(vm->maps, ncap * sizeof *nm);
    if (!nm) r = sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a mapping");
    else vm->maps = nm, vm->cap = ncap;
  }
  if (!r) {
    uint32_t seg = address >= dev->seg[SGPU_SEGMENT_APERTURE].base &&
                           address < dev->seg[SGPU_SEGMENT_APERTURE].base + dev->seg[SGPU_SEGMENT_APERTURE].size
                       ? SGPU_SEGMENT_APERTURE : SGPU_SEGMENT_LOCAL;
    uint32_t pte = (uint32_t)address | SGPU_PTE_VALID_MASK | SGPU_FIELD_PUT(PTE_SEGMENT, seg) |
                   (access & SGPU_MAP_WRITE ? SGPU_PTE_WRITABLE_MASK : 0);
    r = set_ptes(dev, vm, va, size, pte);
    if (r) set_ptes(dev, vm, va, size, 0); /* the pages written so far go again */
  }
  if (!r) {
    memmove(&vm->maps[at + 1], &vm->maps[at], (vm->count - at) * sizeof *vm->maps);
    vm->maps[at] = (sgpu_vm_map){va, size, address, access};
    vm->count++;
    /* found again: a new page table may have moved the allocator's blocks */
    sgpu_block *nb = sgpu__gpu_block(dev, address, size);
    if (nb) nb->maps++;
    *gpu_va = va;
  }
  sgpu__unlock(dev);
  return r;
}

int sgpu_unmap(sgpu_context *ctx, uint64_t gpu_va, uint64_t size) {
  sgpu_device *dev = NULL;
  int r = vm_context(ctx, &dev);
  if (r < 0) return r;
  if (r) return sgpu__remote_unmap(ctx, gpu_va, size);
  if ((r = whole_pages(dev, "va", gpu_va, size))) return r;
  sgpu__lock(dev);
  struct sgpu_vm *vm = ctx->vm;
  uint64_t end = gpu_va + size;
  /* every page mapped: the mappings overlapping the range cover it without gaps */
  uint64_t cur = gpu_va;
  for (size_t i = 0; i < vm->count && cur < end; i++) {
    const sgpu_vm_map *m = &vm->maps[i];
    if (m->va + m->size <= cur) continue;
    if (m->va > cur) break;
    cur = m->va + m->size;
  }
  if (cur < end || end < gpu_va) {
    r = sgpu__fail(dev, SGPU_ERROR_NOT_MAPPED,
                   "context %u: page 0x%llx of 0x%llx+0x%llx is not mapped; nothing was unmapped",
                   ctx->id, (unsigned long long)(cur < end ? cur : gpu_va), (unsigned long long)gpu_va,
                   (unsigned long long)size);
    goto out;
  }
  if (has_work(dev, ctx->node, ctx->id)) {
    r = sgpu__fail(dev, SGPU_ERROR_BUSY,
                   "context %u still has submissions queued or running: they were validated with "
                   "these pages mapped; wait for its fences, then unmap",
                   ctx->id);
    goto out;
  }
  /* the records first (a split may need room), then the entries */
  for (size_t i = 0; i < vm->count;) {
    sgpu_vm_map *m = &vm->maps[i];
    uint64_t ms = m->va, me = m->va + m->size;
    if (me <= gpu_va || ms >= end) { i++; continue; }
    if (ms < gpu_va && me > end) { /* the middle goes: two records */
      if (vm->count == vm->cap) {
        size_t ncap = vm->cap * 2;
        sgpu_vm_map *nm = realloc(vm->maps, ncap * sizeof *nm);
        if (!nm) { r = sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a mapping"); goto out; }
        vm->maps = nm, vm->cap = ncap, m = &vm->maps[i];
      }
      memmove(&vm->maps[i + 1], &vm->maps[i], (vm->count - i) * sizeof *vm->maps);
      vm->count++;
      sgpu_vm_map *tail = &vm->maps[i + 1];
      tail->va = end;
      tail->pa = m->pa + (end - ms);
      tail->size = me - end;
      m->size = gpu_va - ms;
      sgpu_block *b = sgpu__gpu_block(dev, m->pa, 1);
      if (b) b->maps++;
      i += 2;
    } else if (ms < gpu_va) { /* its tail goes */
      m->size = gpu_va - ms;
      i++;
    } else if (me > end) { /* its head goes */
      m->pa += end - ms;
      m->va = end;
      m->size = me - end;
      i++;
    } else { /* all of it */
      drop_map_ref(dev, m->pa);
      memmove(&vm->maps[i], &vm->maps[i + 1], (vm->count - i - 1) * sizeof *vm->maps);
      vm->count--;
    }
  }
  if ((r = set_ptes(dev, vm, gpu_va, size, 0))) goto out;
  /* the hardware forgets the pages before the context's next work */
  uint32_t ring[SGPU__NODE_RINGS_MAX], k = sgpu__node_rings(dev, ctx->node, ring);
  for (uint32_t j = 0; j < k && !r; j++) r = sgpu__ring_invalidate(dev, ring[j], ctx->id);
out:
  sgpu__unlock(dev);
  return r;
}
