/* diff_gen.c — random workloads for the differential test; see diff_gen.h. */
#include "diff_gen.h"

#include <stdlib.h>
#include <string.h>

#include "sgpu_asm.h"
#include "sgpu_hw.h"

typedef struct gctx {
  uint64_t rng;
  const dg_limits *lim;
  dg_work *w;
  uint32_t ib_cursor, ts_cursor;
  int windowed;       /* the window the generator assumes for IB packets */
  uint32_t wb, we;
  uint32_t fence_val, sub_fence;
  int seg_display;    /* this segment used a valid display packet */
  int never_ok;       /* waits that never end may be generated */
  /* VM: the page-table entries of the span's pages in each address space
   * as they are while the packets being generated run, and the space the
   * segment's CONTEXT selects */
  int vm;
  uint32_t vctx;
  uint32_t pte[2][(DG_SPAN_END - DG_SPAN_BASE) / SGPU_PAGE_BYTES];
  uint32_t pde1[2];
} gctx;

/* Offset of the workload being generated (DG_SECOND_OFF for a second node's). */
static uint32_t g_off;
#define O(x) ((x) + g_off)

static uint32_t rnd(gctx *g) {
  g->rng ^= g->rng >> 12;
  g->rng ^= g->rng << 25;
  g->rng ^= g->rng >> 27;
  return (uint32_t)((g->rng * 0x2545F4914F6CDD1Dull) >> 32);
}
static uint32_t rr(gctx *g, uint32_t n) { return n ? rnd(g) % n : 0; }
static int chance(gctx *g, uint32_t pct) { return rr(g, 100) < pct; }

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q && n) {
    fprintf(stderr, "diff_gen: out of memory\n");
    abort();
  }
  return q;
}

static uint32_t *add(dg_list *l, uint32_t nw) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->p = xrealloc(l->p, l->cap * sizeof *l->p);
  }
  dg_pkt *p = &l->p[l->n++];
  memset(p, 0, sizeof *p);
  p->nw = nw;
  p->w = xrealloc(NULL, nw * sizeof *p->w);
  return p->w;
}

static uint32_t hdr(uint32_t op, uint32_t count, uint32_t flags) { return SGPU_PKT_HEADER(op, count, flags); }

/* VM: do [a, a + len) of the span lie in pages the current space maps
 * writable? (Outside the span: no.) */
static int vm_writable(const gctx *g, uint32_t a, uint32_t len) {
  if (a < O(DG_SPAN_BASE) || a + len > O(DG_SPAN_END) || len == 0) return len == 0;
  for (uint32_t pg = (a - O(DG_SPAN_BASE)) / SGPU_PAGE_BYTES; pg <= (a + len - 1 - O(DG_SPAN_BASE)) / SGPU_PAGE_BYTES;
       pg++)
    if ((g->pte[g->vctx][pg] & (SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK)) !=
        (SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK))
      return 0;
  return 1;
}

static uint32_t pick_once(gctx *g, uint32_t level, uint32_t lo, uint32_t hi, uint32_t len);

/* A 4-aligned address for len bytes in [lo, hi), inside the assumed window
 * when the packet is in an IB (level >= 1) and the window leaves room; in a
 * VM workload mostly in pages mapped writable (the faults come mostly from
 * the hostile packets). */
static uint32_t pick(gctx *g, uint32_t level, uint32_t lo, uint32_t hi, uint32_t len) {
  uint32_t a = pick_once(g, level, lo, hi, len);
  for (int t = 0; g->vm && t < 8 && !vm_writable(g, a, len) && chance(g, 90); t++) a = pick_once(g, level, lo, hi, len);
  return a;
}

static uint32_t pick_once(gctx *g, uint32_t level, uint32_t lo, uint32_t hi, uint32_t len) {
  if (level >= 1 && g->windowed) {
    uint32_t l2 = lo > g->wb ? lo : g->wb, h2 = hi < g->we ? hi : g->we;
    if (h2 > l2 && h2 - l2 >= len + 4) {
      lo = l2;
      hi = h2;
    }
  }
  if (hi - lo < len + 4) return lo;
  return lo + 4 * rr(g, (hi - lo - len) / 4 + 1);
}

static dg_list *new_list(void) {
  dg_list *l = xrealloc(NULL, sizeof *l);
  memset(l, 0, sizeof *l);
  return l;
}

/* ------------------------------------------------------------ packets */
static void g_write_data(gctx *g, dg_list *l, uint32_t level, uint32_t maxw) {
  uint32_t n = 1 + rr(g, chance(g, 5) ? 64 : 12);
  if (chance(g, 2)) n = 100 + rr(g, 600); /* longer than any fetch buffer */
  if (n > maxw) n = maxw;
  uint32_t *w = add(l, 2 + n);
  w[0] = hdr(SGPU_OP_WRITE_DATA, 1 + n, 0);
  w[1] = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), 4 * n);
  for (uint32_t i = 0; i < n; i++) w[2 + i] = rnd(g);
}

static void g_fence(gctx *g, dg_list *l, uint32_t level, int irq) {
  uint32_t *w = add(l, 3);
  w[0] = hdr(SGPU_OP_FENCE, 2, irq ? SGPU_FENCE_FLAG_IRQ : 0);
  w[1] = pick(g, level, O(DG_FENCE_BASE), O(DG_FENCE_END), 4);
  w[2] = ++g->fence_val;
}

static int wait_true(uint32_t v, uint32_t ref, uint32_t func) {
  switch (func) {
  case 0: return v == ref;
  case 1: return v != ref;
  case 2: return v < ref;
  case 3: return v <= ref;
  case 4: return v > ref;
  case 5: return v >= ref;
  case 6: return (int32_t)(v - ref) >= 0;
  default: return 0;
  }
}

static void g_wait_mem(gctx *g, dg_list *l, uint32_t level, int allow_never) {
  uint32_t mode = rr(g, 100);
  uint32_t func = rr(g, 7), mask = chance(g, 50) ? 0xFFFFFFFFu : rnd(g), ref = rnd(g), a;
  if (mode < 65 || (mode < 75 && allow_never)) {
    /* write a word, then wait on it: satisfied, or (never) never */
    int want = mode < 65;
    uint32_t v = chance(g, 20) ? 0x80000000u + rr(g, 8) - 4 : rnd(g);
    a = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), 4);
    uint32_t *w = add(l, 3);
    w[0] = hdr(SGPU_OP_WRITE_DATA, 2, 0);
    w[1] = a;
    w[2] = v;
    uint32_t x = v & mask;
    int ok = 0;
    for (int t = 0; t < 16 && !ok; t++) {
      func = rr(g, 7);
      uint32_t d = rr(g, 3) == 0 ? 0 : rr(g, 1000);
      ref = rr(g, 2) ? x + d : x - d;
      if (chance(g, 10)) ref = x ^ 0x80000000u;
      ok = wait_true(x, ref, func) == want;
    }
    if (!ok) {
      func = want ? SGPU_WAIT_FUNC_EQ : SGPU_WAIT_FUNC_NE;
      ref = x;
    }
  } else {
    a = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), 4);
    if (!allow_never) { /* random, but make it hold */
      mask = 0;
      ref = 0;
      func = rr(g, 2) ? SGPU_WAIT_FUNC_GE : SGPU_WAIT_FUNC_EQ;
    }
  }
  uint32_t *w = add(l, 4);
  w[0] = hdr(SGPU_OP_WAIT_MEM, 3, func);
  w[1] = a;
  w[2] = mask;
  w[3] = ref;
}

static void rect_dims(gctx *g, uint32_t *width, uint32_t *height, uint32_t *pitch, uint32_t maxw) {
  uint32_t wd = chance(g, 3) ? 0 : chance(g, 60) ? 1 + rr(g, 64) : 65 + rr(g, 336);
  if (wd > maxw) wd = maxw;
  uint32_t h = chance(g, 3) ? 0 : 1 + rr(g, chance(g, 20) ? 24 : 6);
  uint32_t p = wd + (chance(g, 30) ? 0 : rr(g, 96));
  if (h == 1 && chance(g, 20)) p = rr(g, wd + 1); /* pitch below width is fine for one row */
  *width = wd;
  *height = h;
  *pitch = p;
}

static void g_fill(gctx *g, dg_list *l, uint32_t level, uint32_t maxw) {
  uint32_t wd, h, p;
  rect_dims(g, &wd, &h, &p, maxw);
  uint32_t len = h ? p * (h - 1) + wd : wd;
  uint32_t *w = add(l, 6);
  w[0] = hdr(SGPU_OP_FILL, 5, 0);
  w[1] = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), len + 4) + rr(g, 4);
  w[2] = p;
  w[3] = wd;
  w[4] = h;
  w[5] = rnd(g);
}

static void g_copy(gctx *g, dg_list *l, uint32_t level, uint32_t maxw) {
  uint32_t wd, h, dp;
  rect_dims(g, &wd, &h, &dp, maxw);
  uint32_t sp = h > 1 ? wd + (chance(g, 40) ? 0 : rr(g, 96)) : rr(g, wd + 64);
  if (chance(g, 40)) sp = dp;
  uint32_t dlen = h ? dp * (h - 1) + wd : wd, slen = h ? sp * (h - 1) + wd : wd;
  uint32_t dst = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), dlen + 4) + rr(g, 4), src;
  if (chance(g, 50)) { /* overlapping */
    int32_t delta = (int32_t)rr(g, 2 * 64 + 1) - 64;
    if (chance(g, 30)) delta = (rr(g, 2) ? (int32_t)dp : -(int32_t)dp) + (int32_t)rr(g, 5) - 2;
    src = (uint32_t)((int32_t)dst + delta);
    if (src < O(DG_DATA_BASE) || src + slen + 4 > O(DG_DATA_END)) src = dst;
  } else {
    src = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), slen + 4) + rr(g, 4);
  }
  uint32_t *w = add(l, 7);
  w[0] = hdr(SGPU_OP_COPY, 6, 0);
  w[1] = dst;
  w[2] = dp;
  w[3] = src;
  w[4] = sp;
  w[5] = wd;
  w[6] = h;
}

static void g_timestamp(gctx *g, dg_list *l, uint32_t level) {
  (void)level;
  uint32_t *w = add(l, 2);
  w[0] = hdr(SGPU_OP_TIMESTAMP, 1, 0);
  if (g->ts_cursor + 8 > O(DG_TS_END)) g->ts_cursor = O(DG_TS_BASE); /* reuse (rare) */
  w[1] = g->ts_cursor;
  g->ts_cursor += 8;
}

static void g_nop(gctx *g, dg_list *l) {
  uint32_t n = chance(g, 3) ? 64 + rr(g, 400) : rr(g, 6);
  uint32_t *w = add(l, 1 + n);
  w[0] = hdr(SGPU_OP_NOP, n, 0);
  for (uint32_t i = 0; i < n; i++) w[1 + i] = rnd(g);
}

static void g_display(gctx *g, dg_list *l, uint32_t level) {
  uint32_t src = rr(g, g->lim->sources ? g->lim->sources : 1), k = rr(g, 100);
  g->seg_display = 1;
  if (k < 30) {
    uint32_t *w = add(l, 2);
    w[0] = hdr(SGPU_OP_WAIT_VSYNC, 1, 0);
    w[1] = src;
  } else if (k < 55) {
    uint32_t first = rr(g, 48), last = first + rr(g, 12);
    if (chance(g, 8)) { /* covers every line: never ends */
      first = 0;
      last = 0xFFFF;
    } else if (chance(g, 8)) {
      last = first ? first - 1 : 0; /* empty or one line */
    }
    uint32_t *w = add(l, 3);
    w[0] = hdr(SGPU_OP_WAIT_SCANLINE, 2, 0);
    w[1] = src;
    w[2] = first | (last << 16);
  } else {
    static const uint8_t iv[20] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 5, 5, 5};
    uint32_t *w = add(l, 4);
    w[0] = hdr(SGPU_OP_FLIP, 3, chance(g, 40) ? SGPU_FLIP_FLAG_NO_WAIT : 0);
    w[1] = src;
    w[2] = pick(g, level, O(DG_FB_BASE), O(DG_SPAN_END), 4);
    w[3] = iv[rr(g, 20)];
  }
}

/* A packet that faults (or may: the model decides). */
static void g_invalid(gctx *g, dg_list *l, uint32_t level) {
  const uint32_t mem = g->lim->mem_bytes;
  uint32_t k = rr(g, 12), *w;
  switch (k) {
  case 0: { /* ILLEGAL_OPCODE */
    uint32_t n = rr(g, 4);
    w = add(l, 1 + n);
    w[0] = hdr(SGPU_OP_COUNT_OF_OPCODES + rr(g, 256 - SGPU_OP_COUNT_OF_OPCODES), n, 0);
    for (uint32_t i = 0; i < n; i++) w[1 + i] = rnd(g);
    break;
  }
  case 1: /* BAD_HEADER: type */
    w = add(l, 1);
    w[0] = (rnd(g) & 0x3FFFFFFFu) | (rr(g, 3) << 30);
    break;
  case 2: { /* BAD_HEADER: reserved flag bits */
    static const uint8_t ops[] = {SGPU_OP_NOP, SGPU_OP_FENCE, SGPU_OP_WRITE_DATA, SGPU_OP_TIMESTAMP, SGPU_OP_INDIRECT};
    uint32_t op = ops[rr(g, 5)];
    uint32_t cnt = op == SGPU_OP_NOP ? 0 : op == SGPU_OP_FENCE ? 2 : op == SGPU_OP_WRITE_DATA ? 2 : op == SGPU_OP_TIMESTAMP ? 1 : 3;
    w = add(l, 1 + cnt);
    w[0] = hdr(op, cnt, 2u << rr(g, 7));
    for (uint32_t i = 0; i < cnt; i++) w[1 + i] = O(DG_DATA_BASE);
    break;
  }
  case 3: { /* BAD_COUNT */
    static const uint8_t ops[] = {SGPU_OP_FENCE, SGPU_OP_WRITE_DATA, SGPU_OP_TIMESTAMP, SGPU_OP_FILL, SGPU_OP_INDIRECT, SGPU_OP_WAIT_MEM};
    uint32_t op = ops[rr(g, 6)];
    uint32_t cnt = op == SGPU_OP_WRITE_DATA ? rr(g, 2) : op == SGPU_OP_TIMESTAMP ? 2 + rr(g, 2) : op == SGPU_OP_FENCE ? (rr(g, 2) ? 1 : 3) : rr(g, 3);
    w = add(l, 1 + cnt);
    w[0] = hdr(op, cnt, 0);
    for (uint32_t i = 0; i < cnt; i++) w[1 + i] = O(DG_DATA_BASE);
    break;
  }
  case 4: { /* MISALIGNED */
    uint32_t v = rr(g, 4);
    uint32_t a = pick(g, level, O(DG_DATA_BASE), O(DG_DATA_END), 16) + 1 + rr(g, 3);
    if (v == 0) {
      w = add(l, 3);
      w[0] = hdr(SGPU_OP_WRITE_DATA, 2, 0);
      w[1] = a;
      w[2] = rnd(g);
    } else if (v == 1) {
      w = add(l, 3);
      w[0] = hdr(SGPU_OP_FENCE, 2, 0);
      w[1] = a;
      w[2] = rnd(g);
    } else if (v == 2) {
      w = add(l, 2);
      w[0] = hdr(SGPU_OP_TIMESTAMP, 1, 0);
      w[1] = a;
    } else {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_INDIRECT, 3, 0);
      w[1] = rr(g, 2) ? O(DG_IB_BASE) + 2 : O(DG_IB_BASE);
      w[2] = w[1] == O(DG_IB_BASE) ? 6 : 8;
      w[3] = rr(g, 100);
    }
    break;
  }
  case 5: { /* OUT_OF_RANGE */
    uint32_t v = rr(g, 4);
    uint32_t far = rr(g, 2) ? mem - 4 * rr(g, 2) : (rr(g, 2) ? 0xFFFFFFF0u : mem + 4 * rr(g, 1024));
    if (v == 0) {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_WRITE_DATA, 3, 0);
      w[1] = far;
      w[2] = rnd(g);
      w[3] = rnd(g);
    } else if (v == 1) {
      w = add(l, 3);
      w[0] = hdr(SGPU_OP_FENCE, 2, 0);
      w[1] = far == mem - 4 ? mem : far;
      w[2] = rnd(g);
    } else if (v == 2) {
      w = add(l, 6);
      w[0] = hdr(SGPU_OP_FILL, 5, 0);
      w[1] = mem - 64 + rr(g, 64);
      w[2] = 64;
      w[3] = 8 + rr(g, 56);
      w[4] = 2;
      w[5] = rnd(g);
    } else {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_INDIRECT, 3, 0);
      w[1] = mem - 8;
      w[2] = 64;
      w[3] = 7;
    }
    break;
  }
  case 6: { /* CONTEXT_WINDOW (only faults in a windowed IB); the address stays
             * in the data or framebuffer area, where any write is compared as
             * memory, in case the packet runs in another context */
    uint32_t a;
    if (g->windowed && g->wb >= O(DG_DATA_BASE) + 64 && rr(g, 2)) a = g->wb - 4 * (1 + rr(g, 8));
    else if (g->windowed && g->we >= O(DG_DATA_BASE) + 4 && g->we + 8 <= O(DG_SPAN_END)) a = g->we - 4 * rr(g, 2);
    else a = O(DG_DATA_BASE) + 4 * rr(g, 256);
    w = add(l, 4);
    w[0] = hdr(SGPU_OP_WRITE_DATA, 3, 0);
    w[1] = a;
    w[2] = rnd(g);
    w[3] = rnd(g);
    break;
  }
  case 7: /* NESTING: a chain deeper than MAX_IB_DEPTH is built by the caller; here a literal one */
  case 8: { /* BAD_PARAM */
    uint32_t v = rr(g, 6);
    if (k == 7 && level >= SGPU_MAX_IB_DEPTH) v = 6;
    if (v == 0) {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_WAIT_MEM, 3, 7);
      w[1] = O(DG_DATA_BASE);
      w[2] = 0;
      w[3] = 0;
    } else if (v == 1) {
      w = add(l, 2);
      w[0] = hdr(SGPU_OP_WAIT_VSYNC, 1, 0);
      w[1] = g->lim->sources + rr(g, 3);
    } else if (v == 2) {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_FLIP, 3, 0);
      w[1] = 0;
      w[2] = O(DG_FB_BASE);
      w[3] = 6 + rr(g, 10);
    } else if (v == 3) {
      w = add(l, 6);
      w[0] = hdr(SGPU_OP_FILL, 5, 0);
      w[1] = O(DG_DATA_BASE);
      w[2] = 8;
      w[3] = 16;
      w[4] = 2 + rr(g, 3);
      w[5] = 0;
    } else if (v == 4) {
      w = add(l, 7);
      w[0] = hdr(SGPU_OP_COPY, 6, 0);
      w[1] = O(DG_DATA_BASE);
      w[2] = 70000;
      w[3] = O(DG_DATA_BASE) + 4096;
      w[4] = 64;
      w[5] = 16;
      w[6] = 1;
    } else if (v == 5) {
      w = add(l, 3);
      w[0] = hdr(SGPU_OP_WAIT_SCANLINE, 2, 0);
      w[1] = g->lim->sources + rr(g, 100);
      w[2] = 0;
    } else {
      w = add(l, 4);
      w[0] = hdr(SGPU_OP_INDIRECT, 3, 0);
      w[1] = O(DG_IB_BASE);
      w[2] = 8;
      w[3] = 0;
    }
    break;
  }
  case 9: /* PRIVILEGED (in an IB); at ring level a misaligned window */
    w = add(l, 4);
    w[0] = hdr(SGPU_OP_CONTEXT, 3, 0);
    w[1] = 1 + rr(g, 5);
    w[2] = level ? O(DG_SPAN_BASE) : O(DG_SPAN_BASE) + 2;
    w[3] = 0x1000;
    break;
  case 10: { /* BAD_PARAM / MISALIGNED / OUT_OF_RANGE of a CONTEXT at ring level; ILLEGAL elsewhere */
    w = add(l, 4);
    w[0] = hdr(SGPU_OP_CONTEXT, 3, 0);
    w[1] = 1 + rr(g, 5);
    w[2] = rr(g, 2) ? mem - 0x1000 : O(DG_SPAN_BASE);
    w[3] = rr(g, 2) ? 0x2000 : 0x1002;
    break;
  }
  default: /* random word soup */
    w = add(l, 1);
    w[0] = rnd(g);
    break;
  }
}

static uint32_t ib_len_bytes(const dg_pkt *p);
static void free_list(dg_list *l);

static uint32_t list_words(const dg_list *l) {
  uint32_t n = 0;
  for (size_t i = 0; i < l->n; i++) n += l->p[i].nw;
  return n;
}

static void g_list(gctx *g, dg_list *l, uint32_t level, uint32_t npk);
static void vm_rewrite(gctx *g, dg_list *l);

static void g_indirect(gctx *g, dg_list *l, uint32_t level, uint32_t fence_id) {
  uint32_t *w = add(l, 4);
  dg_pkt *p = &l->p[l->n - 1];
  int skip = chance(g, 12);
  w[0] = hdr(SGPU_OP_INDIRECT, 3, skip ? SGPU_INDIRECT_FLAG_SKIP : 0);
  w[3] = fence_id;
  p->ib = new_list();
  if (level < SGPU_MAX_IB_DEPTH || chance(g, 50))
    g_list(g, p->ib, level + 1, 1 + rr(g, level == 0 ? 12 : 6));
  if (g->vm && p->ib->n && chance(g, 30)) vm_rewrite(g, p->ib);
  uint32_t nw = list_words(p->ib);
  p->ib_addr = (g->ib_cursor + 4 * rr(g, 8)) & ~3u;
  if (p->ib_addr + 4 * nw + 64 > O(DG_IB_END)) p->ib_addr = O(DG_IB_BASE); /* (never with these sizes) */
  g->ib_cursor = p->ib_addr + 4 * nw;
  if (p->ib->n && chance(g, 5)) {
    uint32_t last = p->ib->p[p->ib->n - 1].nw;
    if (last > 1) p->ib_cut = 1 + rr(g, last - 1);
  } else if (chance(g, 3)) { /* an empty buffer */
    free_list(p->ib);
    p->ib->n = 0;
  }
  /* placeholders; dg_layout patches them */
  w[1] = p->ib_addr;
  w[2] = 4 * nw;
}

static void g_one(gctx *g, dg_list *l, uint32_t level, uint32_t maxw) {
  uint32_t k = rr(g, 100);
  if (k < 18) g_write_data(g, l, level, maxw > 2 ? maxw - 2 : 1);
  else if (k < 26) g_fence(g, l, level, chance(g, 30));
  else if (k < 32) g_nop(g, l);
  else if (k < 40) g_wait_mem(g, l, level, g->never_ok && chance(g, g->w->display ? 15 : 40));
  else if (k < 51) g_fill(g, l, level, 4096);
  else if (k < 62) g_copy(g, l, level, 4096);
  else if (k < 67) g_timestamp(g, l, level);
  else if (k < 76 && level >= 1) {
    if (level < SGPU_MAX_IB_DEPTH || chance(g, 30)) g_indirect(g, l, level, rr(g, 1000));
    else g_nop(g, l);
  } else if (k < 84 && g->w->display) g_display(g, l, level);
  else if (k < 91) g_invalid(g, l, level);
  else g_write_data(g, l, level, 4);
}

static void g_list(gctx *g, dg_list *l, uint32_t level, uint32_t npk) {
  for (uint32_t i = 0; i < npk; i++) {
    g_one(g, l, level, 4096);
    /* a faulting packet usually ends the buffer's useful life; keep going anyway */
  }
}

/* A context window: usually from below the next IB to (near) the span's end,
 * sometimes a narrow one anywhere in the span. */
static void pick_window(gctx *g, uint32_t *base_out, uint32_t *end_out) {
  uint32_t base, end;
  if (chance(g, 12)) {
    base = O(DG_SPAN_BASE) + 4 * rr(g, (O(DG_SPAN_END) - O(DG_SPAN_BASE)) / 4);
    end = base + 4 * (chance(g, 10) ? 0 : 1 + rr(g, 2048)); /* size 0: nothing is inside */
    if (end > O(DG_SPAN_END)) end = O(DG_SPAN_END);
  } else {
    uint32_t cur = g->ib_cursor & ~0xFFFu;
    base = cur - (chance(g, 50) ? 0 : 0x1000u * rr(g, (cur - O(DG_SPAN_BASE)) / 0x1000 + 1));
    if (chance(g, 30)) base += 4 * rr(g, 1024);
    if (base > g->ib_cursor) base = g->ib_cursor & ~3u;
    end = chance(g, 60) ? O(DG_SPAN_END) : O(DG_DATA_BASE) + 4 * rr(g, (O(DG_SPAN_END) - O(DG_DATA_BASE)) / 4 + 1);
  }
  *base_out = base;
  *end_out = end;
}

/* ------------------------------------------------------------ VM */
/* The span's pages by what they hold (page index from DG_SPAN_BASE). */
#define SPAN_PAGES ((DG_SPAN_END - DG_SPAN_BASE) / SGPU_PAGE_BYTES)
#define PG_FENCE ((DG_FENCE_BASE - DG_SPAN_BASE) / SGPU_PAGE_BYTES)
#define PG_TS ((DG_TS_BASE - DG_SPAN_BASE) / SGPU_PAGE_BYTES)
#define PG_DATA ((DG_DATA_BASE - DG_SPAN_BASE) / SGPU_PAGE_BYTES)
#define PG_FB ((DG_FB_BASE - DG_SPAN_BASE) / SGPU_PAGE_BYTES)
/* Virtual addresses from here to the end of memory are never mapped (the
 * tables' own physical addresses among them). */
#define VA_UNMAPPED 0x00400000u

static void vm_put(dg_vm_write **l, size_t *n, uint32_t addr, uint32_t v) {
  *l = xrealloc(*l, (*n + 1) * sizeof **l);
  (*l)[(*n)++] = (dg_vm_write){addr, v};
}

/* Physical address of the entry of span page pg in space c. */
static uint32_t pte_addr(const dg_work *w, uint32_t c, uint32_t pg) {
  return w->pd[c] + SGPU_PAGE_BYTES + 4 * ((O(DG_SPAN_BASE) / SGPU_PAGE_BYTES + pg) % SGPU_PT_ENTRIES);
}

static uint32_t frame(uint32_t pg) { return O(DG_SPAN_BASE) + pg * SGPU_PAGE_BYTES; }

static int is_valid(uint32_t pte) { return (pte & SGPU_PTE_VALID_MASK) != 0; }
static int is_rw(uint32_t pte) { return is_valid(pte) && (pte & SGPU_PTE_WRITABLE_MASK); }

/* A random entry for frame page fpg: data pages mostly writable, flip
 * targets mostly read-only; some unmapped (the frame bits stay: only
 * VALID counts). */
static uint32_t vm_entry(gctx *g, uint32_t fpg, int data) {
  const uint32_t k = rr(g, 100), f = frame(fpg) | (rr(g, 4) << SGPU_PTE_SEGMENT_SHIFT);
  if (k < 5) return f;
  if (k < 10) return f | SGPU_PTE_VALID_MASK | (data ? 0 : SGPU_PTE_WRITABLE_MASK);
  return f | SGPU_PTE_VALID_MASK | (data ? SGPU_PTE_WRITABLE_MASK : 0);
}

static void vm_shuffle(gctx *g, uint32_t *a, uint32_t n) {
  for (uint32_t i = n; i > 1; i--) {
    const uint32_t j = rr(g, i), t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

/* The address spaces and their first tables. */
static void vm_setup(gctx *g, dg_work *w) {
  w->vm = g->vm = 1;
  w->nctx = 1 + chance(g, 50);
  for (uint32_t c = 0; c < w->nctx; c++) {
    w->pd[c] = dg_pt_area(w) + c * 3 * SGPU_PAGE_BYTES;
    uint32_t perm[SPAN_PAGES];
    for (uint32_t pg = 0; pg < SPAN_PAGES; pg++) perm[pg] = pg;
    vm_shuffle(g, perm + PG_DATA, PG_FB - PG_DATA);
    vm_shuffle(g, perm + PG_FB, SPAN_PAGES - PG_FB);
    for (uint32_t pg = 0; pg < SPAN_PAGES; pg++) {
      uint32_t e;
      if (pg < PG_FENCE) e = frame(pg) | SGPU_PTE_VALID_MASK; /* buffers: read-only */
      else if (pg < PG_DATA) e = frame(pg) | SGPU_PTE_VALID_MASK | SGPU_PTE_WRITABLE_MASK;
      else e = vm_entry(g, perm[pg], pg < PG_FB);
      g->pte[c][pg] = e;
      vm_put(&w->pt_init, &w->npt_init, pte_addr(w, c, pg), e);
    }
    const uint32_t pt1 = w->pd[c] + 2 * SGPU_PAGE_BYTES;
    g->pde1[c] = chance(g, 30) ? pt1 | SGPU_PDE_VALID_MASK : 0;
    vm_put(&w->pt_init, &w->npt_init, w->pd[c], (w->pd[c] + SGPU_PAGE_BYTES) | SGPU_PDE_VALID_MASK);
    vm_put(&w->pt_init, &w->npt_init, w->pd[c] + 4, g->pde1[c]);
    /* entries that are not VALID but name frames: nothing may use them */
    for (int i = 0; i < 4; i++)
      vm_put(&w->pt_init, &w->npt_init, pt1 + 4 * rr(g, SGPU_PT_ENTRIES), frame(PG_DATA + rr(g, PG_FB - PG_DATA)) | 2u);
  }
}

/* The host changes space c's tables: entries of data or flip pages
 * mapped, unmapped, made read-only or writable, two pages' frames
 * swapped (each space stays one-to-one), directory entry 1 turned on or
 * off.  Returns 1 unless every change maps a page that was not mapped
 * (the only change a TLB holding valid entries needs no invalidation
 * for). */
static int vm_change(gctx *g, dg_work *w, dg_seg *s) {
  const uint32_t c = chance(g, 80) ? g->vctx : rr(g, w->nctx);
  int inval = 0;
  for (uint32_t n = 1 + rr(g, 4); n--;) {
    const uint32_t pg = PG_DATA + rr(g, SPAN_PAGES - PG_DATA), old = g->pte[c][pg];
    const uint32_t k = rr(g, 100);
    if (!is_valid(old)) {
      g->pte[c][pg] = old | SGPU_PTE_VALID_MASK | (chance(g, 50) ? SGPU_PTE_WRITABLE_MASK : 0);
    } else if (k < 30) {
      g->pte[c][pg] = old & ~SGPU_PTE_VALID_MASK;
      inval = 1;
    } else if (k < 60) {
      g->pte[c][pg] = old ^ SGPU_PTE_WRITABLE_MASK;
      inval = 1;
    } else {
      const uint32_t lo = pg < PG_FB ? PG_DATA : PG_FB, hi = pg < PG_FB ? PG_FB : SPAN_PAGES;
      const uint32_t pg2 = lo + rr(g, hi - lo), o2 = g->pte[c][pg2];
      g->pte[c][pg] = (old & ~SGPU_PTE_FRAME_MASK) | (o2 & SGPU_PTE_FRAME_MASK);
      g->pte[c][pg2] = (o2 & ~SGPU_PTE_FRAME_MASK) | (old & SGPU_PTE_FRAME_MASK);
      vm_put(&s->chg, &s->nchg, pte_addr(w, c, pg2), g->pte[c][pg2]);
      inval = 1;
    }
    vm_put(&s->chg, &s->nchg, pte_addr(w, c, pg), g->pte[c][pg]);
  }
  if (chance(g, 10)) {
    inval |= g->pde1[c] != 0;
    g->pde1[c] = g->pde1[c] ? 0 : (w->pd[c] + 2 * SGPU_PAGE_BYTES) | SGPU_PDE_VALID_MASK;
    vm_put(&s->chg, &s->nchg, w->pd[c] + 4, g->pde1[c]);
  }
  return inval;
}

/* A virtual address where an access faults in the current space: never
 * mapped (the tables' physical addresses, the ring's), a span page left
 * unmapped, or (write) one mapped read-only; sometimes a few bytes before
 * such a page, so that the access starts in a good one. */
static uint32_t vm_bad_va(gctx *g, int write) {
  uint32_t bad[SPAN_PAGES], nbad = 0;
  for (uint32_t pg = 0; pg < SPAN_PAGES; pg++)
    if (write ? !is_rw(g->pte[g->vctx][pg]) : !is_valid(g->pte[g->vctx][pg])) bad[nbad++] = pg;
  const uint32_t k = rr(g, 100);
  if (k < 15) return dg_pt_area(g->w) + 4 * rr(g, DG_PT_BYTES / 4); /* the tables, as virtual addresses */
  if (k < 25 || !nbad) return k < 20 ? VA_UNMAPPED + 4 * rr(g, 0x1000) : DG_RING_AREA + 4 * rr(g, 0x4000);
  const uint32_t pg = bad[rr(g, nbad)], a = frame(pg) + 4 * rr(g, SGPU_PAGE_BYTES / 4);
  if (chance(g, 30) && pg && (write ? is_rw(g->pte[g->vctx][pg - 1]) : is_valid(g->pte[g->vctx][pg - 1])))
    return frame(pg) - 4 * (1 + rr(g, 4)); /* starts in the page before */
  return a;
}

/* Hostile packets written over some of buffer l's packets after it was
 * generated (a buffer rewritten after validation): writes to unmapped and
 * read-only pages and to the page tables, reads and fetches of unmapped
 * pages, TLB_INVALIDATE outside the ring.  The model says how each ends;
 * the chip must not reach a byte the space does not map writable. */
static void vm_rewrite(gctx *g, dg_list *l) {
  int done = 0;
  for (uint32_t t = 1 + rr(g, 2); t--;) {
    dg_pkt *p = &l->p[rr(g, (uint32_t)l->n)];
    if (p->ib) continue;
    uint32_t h[8], n = 0;
    switch (rr(g, 9)) {
    case 0: /* WRITE_DATA */
      h[0] = hdr(SGPU_OP_WRITE_DATA, 3, 0);
      h[1] = vm_bad_va(g, 1) & ~3u;
      h[2] = rnd(g);
      h[3] = rnd(g);
      n = 4;
      break;
    case 1: { /* FILL, one to three rows */
      const uint32_t wd = 4 + rr(g, 200), ht = 1 + rr(g, 3);
      h[0] = hdr(SGPU_OP_FILL, 5, 0);
      h[1] = vm_bad_va(g, 1) - rr(g, 64);
      h[2] = wd + rr(g, 64);
      h[3] = wd;
      h[4] = ht;
      h[5] = rnd(g);
      n = 6;
      break;
    }
    case 2: /* FENCE */
      h[0] = hdr(SGPU_OP_FENCE, 2, 0);
      h[1] = vm_bad_va(g, 1) & ~3u;
      h[2] = rnd(g);
      n = 3;
      break;
    case 3: { /* COPY: from a page not mapped, or to one not writable */
      const int rd = chance(g, 50);
      const uint32_t wd = 4 + rr(g, 100), good = O(DG_DATA_BASE) + 4 * rr(g, 0x100);
      h[0] = hdr(SGPU_OP_COPY, 6, 0);
      h[1] = rd ? good : vm_bad_va(g, 1);
      h[2] = wd;
      h[3] = rd ? vm_bad_va(g, 0) : good;
      h[4] = wd;
      h[5] = wd;
      h[6] = 1 + rr(g, 2);
      n = 7;
      break;
    }
    case 4: /* INDIRECT into unmapped pages */
      h[0] = hdr(SGPU_OP_INDIRECT, 3, 0);
      h[1] = vm_bad_va(g, 0) & ~3u;
      h[2] = 4 * (1 + rr(g, 16));
      h[3] = rr(g, 1000);
      n = 4;
      break;
    case 5:
      h[0] = hdr(SGPU_OP_TLB_INVALIDATE, 0, 0);
      n = 1;
      break;
    case 6: /* WAIT_MEM on a page that is not mapped: the read faults before any wait */
      h[0] = hdr(SGPU_OP_WAIT_MEM, 3, SGPU_WAIT_FUNC_EQ);
      h[1] = vm_bad_va(g, 0) & ~3u;
      h[2] = 0;
      h[3] = 0;
      n = 4;
      break;
    case 7:
      h[0] = hdr(SGPU_OP_TIMESTAMP, 1, 0);
      h[1] = vm_bad_va(g, 1) & ~3u;
      n = 2;
      break;
    default: /* FLIP of a never-mapped address: faults before it could wait */
      h[0] = hdr(SGPU_OP_FLIP, 3, 0);
      h[1] = 0;
      h[2] = VA_UNMAPPED + 4 * rr(g, 0x100000);
      h[3] = SGPU_HW_FLIP_INTERVAL_IMMEDIATE;
      n = g->lim->sources ? 4 : 0;
      break;
    }
    if (!n || n > p->nw) continue;
    memcpy(p->w, h, 4 * n);
    if (p->nw > n) { /* the rest of the old packet's words: a NOP over them */
      p->w[n] = hdr(SGPU_OP_NOP, p->nw - n - 1, 0);
    }
    done = 1;
  }
  g->w->rewritten += (uint32_t)done;
}

/* A VM segment: CONTEXT with the VM flag, the INDIRECTs (buffers at
 * their virtual addresses; sometimes one into pages not mapped), maybe a
 * table change between two of them (the runner stops there) followed by
 * TLB_INVALIDATE, the closing FENCE (physical).  No other ring packets:
 * they would write physical memory. */
static void g_segment_vm(gctx *g, dg_seg *s, uint32_t budget) {
  dg_list *l = &s->ring;
  dg_work *w = g->w;
  g->seg_display = 0;
  g->windowed = 0;
  budget -= 3 + 4; /* the closing FENCE, the CONTEXT */
  g->vctx = rr(g, w->nctx);
  uint32_t *c = add(l, 4);
  c[0] = hdr(SGPU_OP_CONTEXT, 3, SGPU_CONTEXT_FLAG_VM);
  c[1] = 1 + g->vctx + 2 * rr(g, 100);
  c[2] = w->pd[g->vctx] + (chance(g, 20) ? 4 * rr(g, SGPU_PAGE_BYTES / 4) : 0); /* bits [11:0] ignored */
  c[3] = SGPU_PAGE_BYTES;
  if (chance(g, 10) && budget >= 1) {
    add(l, 1)[0] = hdr(SGPU_OP_TLB_INVALIDATE, 0, 0);
    budget--;
  }
  const uint32_t nib = 1 + rr(g, 3), at = nib >= 2 && chance(g, 60) ? 1 + rr(g, nib - 1) : 0;
  for (uint32_t i = 0; i < nib; i++) {
    if (at && i == at && budget >= 5) {
      s->chg_at = l->n;
      if (vm_change(g, w, s) || chance(g, 30)) {
        add(l, 1)[0] = hdr(SGPU_OP_TLB_INVALIDATE, 0, 0);
        budget--;
      }
    }
    if (budget < 4) break;
    if (chance(g, 4)) { /* the submission's buffer itself is not mapped */
      uint32_t *x = add(l, 4);
      x[0] = hdr(SGPU_OP_INDIRECT, 3, 0);
      x[1] = vm_bad_va(g, 0) & ~3u;
      x[2] = 4 * (1 + rr(g, 32));
      x[3] = ++g->sub_fence;
    } else {
      g_indirect(g, l, 0, ++g->sub_fence);
    }
    budget -= 4;
  }
  g_fence(g, l, 0, chance(g, 30));
  s->watchdog = w->display ? 60000 : 3000;
}

/* Ring-level packets of a segment, within `budget` words. */
static void g_segment(gctx *g, dg_seg *s, uint32_t budget) {
  dg_list *l = &s->ring;
  g->seg_display = 0;
  budget -= 3; /* the closing FENCE */
  if (chance(g, 85)) {
    uint32_t *w = add(l, 4);
    w[0] = hdr(SGPU_OP_CONTEXT, 3, 0);
    if (chance(g, 40)) {
      w[1] = 0;
      w[2] = chance(g, 80) ? 0 : rnd(g);
      w[3] = chance(g, 80) ? 0 : rnd(g);
      g->windowed = 0;
    } else {
      uint32_t base, end;
      pick_window(g, &base, &end);
      w[1] = 1 + rr(g, 1000);
      w[2] = base;
      w[3] = end - base;
      g->windowed = 1;
      g->wb = base;
      g->we = end;
    }
    budget -= 4;
  }
  uint32_t nib = 1 + rr(g, 3);
  for (uint32_t i = 0; i < nib; i++) {
    if (chance(g, 25)) { /* a packet directly in the ring */
      dg_list tmp = {0};
      g_one(g, &tmp, 0, budget > 8 ? budget - 8 : 1);
      if (tmp.n && list_words(&tmp) + 4 <= budget) {
        for (size_t k = 0; k < tmp.n; k++) {
          if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 16;
            l->p = xrealloc(l->p, l->cap * sizeof *l->p);
          }
          l->p[l->n++] = tmp.p[k];
          budget -= tmp.p[k].nw;
        }
        free(tmp.p);
      } else {
        for (size_t k = 0; k < tmp.n; k++) {
          free(tmp.p[k].w);
          if (tmp.p[k].ib) {
            dg_list *c = tmp.p[k].ib;
            /* a ring-level g_one never builds INDIRECTs, but be safe */
            free(c->p);
            free(c);
          }
        }
        free(tmp.p);
      }
    }
    if (budget < 4) break;
    g_indirect(g, l, 0, ++g->sub_fence);
    budget -= 4;
  }
  g_fence(g, l, 0, chance(g, 30));
  if (chance(g, 3)) s->cut = 1 + rr(g, 2);
  /* the displays take memory first: with them on, the node may wait for memory for a frame */
  s->watchdog = g->w->display ? 60000 : 3000;
}

static void generate(dg_work *w, uint32_t seed, const dg_limits *lim, uint32_t off, int display_ok, int vm) {
  memset(w, 0, sizeof *w);
  g_off = off;
  w->off = off;
  gctx g = {0};
  g.rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed * 0xD1B54A32D192ED03ull);
  if (!g.rng) g.rng = 1;
  for (int i = 0; i < 4; i++) rnd(&g);
  g.lim = lim;
  g.w = w;
  g.ib_cursor = O(DG_IB_BASE);
  g.ts_cursor = O(DG_TS_BASE);
  g.fence_val = rnd(&g) & 0x00FFFFFFu;
  g.sub_fence = rr(&g, 1000);
  g.never_ok = 1;
  w->seed = seed;
  w->node = rr(&g, 2);
  w->ring_size = 64u << rr(&g, 7);
  if (w->ring_size < 256 && chance(&g, 50)) w->ring_size = 256;
  w->ring_base = dg_ring_area(w) + w->ring_size * rr(&g, 0x10000 / w->ring_size);
  w->rptr_addr = chance(&g, 60) ? (dg_rptr_area(w) + 4 * rr(&g, 64)) | 1u : 0;
  w->stall = chance(&g, 30) ? 0 : 1 + rr(&g, 60);
  w->latency = 1 + rr(&g, 4);
  w->sim_seed = rnd(&g);
  w->display = lim->sources && chance(&g, 20) && display_ok;
  if (w->display && w->stall > 40) w->stall = 40;
  if (!w->display && chance(&g, 6)) { /* a very slow memory now and then */
    w->stall = 70 + rr(&g, 21);
    w->latency = 1 + rr(&g, 8);
  }
  w->data_seed = rnd(&g);
  w->nseg = 2 + rr(&g, 5);
  w->seg = xrealloc(NULL, w->nseg * sizeof *w->seg);
  memset(w->seg, 0, w->nseg * sizeof *w->seg);
  if (vm) vm_setup(&g, w);
  for (size_t i = 0; i < w->nseg; i++) {
    if (vm) g_segment_vm(&g, &w->seg[i], w->ring_size / 4 - 1);
    else g_segment(&g, &w->seg[i], w->ring_size / 4 - 1);
  }
}

void dg_generate(dg_work *w, uint32_t seed, const dg_limits *lim) { generate(w, seed, lim, 0, 1, 0); }

void dg_generate_vm(dg_work *w, uint32_t seed, const dg_limits *lim) {
  generate(w, seed * 0xB5297A4Du + 0x68E31DA4u, lim, 0, 1, 1);
  w->seed = seed;
}

void dg_generate_second(dg_work *w, uint32_t seed, const dg_limits *lim, uint32_t node) {
  /* no display packets: flips of two nodes on one source would race */
  generate(w, seed * 0x9E3779B1u + 0x7F4A7C15u, lim, DG_SECOND_OFF, 0, 0);
  w->seed = seed;
  w->node = node;
  g_off = 0;
}

void dg_generate_third(dg_work *w, uint32_t seed, const dg_limits *lim, uint32_t node) {
  generate(w, seed * 0x85EBCA77u + 0x27D4EB2Fu, lim, DG_THIRD_OFF, 0, 0);
  w->seed = seed;
  w->node = node;
  g_off = 0;
}

void dg_generate_buffer(dg_work *w, uint32_t seed, const dg_limits *lim) {
  memset(w, 0, sizeof *w);
  g_off = 0;
  gctx g = {0};
  g.rng = 0x5851F42D4C957F2Dull ^ ((uint64_t)seed * 0xD1B54A32D192ED03ull);
  for (int i = 0; i < 4; i++) rnd(&g);
  g.lim = lim;
  g.w = w;
  g.ib_cursor = O(DG_IB_BASE) + 4 * rr(&g, 0x8000);
  g.ts_cursor = O(DG_TS_BASE);
  g.never_ok = 0;
  w->seed = seed;
  w->node = rr(&g, 2);
  w->nseg = 1;
  w->seg = xrealloc(NULL, sizeof *w->seg);
  memset(w->seg, 0, sizeof *w->seg);
  dg_list *l = &w->seg[0].ring;
  uint32_t *c = add(l, 4);
  c[0] = hdr(SGPU_OP_CONTEXT, 3, 0);
  if (chance(&g, 50)) {
    uint32_t base, end;
    pick_window(&g, &base, &end);
    if (end == base) end += 4; /* the library's contexts have non-empty windows */
    c[1] = 1;
    c[2] = base;
    c[3] = end - base;
    g.windowed = 1;
    g.wb = base;
    g.we = end;
  } else {
    c[1] = c[2] = c[3] = 0;
  }
  g_indirect(&g, l, 0, 1 + rr(&g, 1000));
  dg_pkt *ind = &l->p[l->n - 1];
  ind->w[0] &= ~((uint32_t)SGPU_INDIRECT_FLAG_SKIP << SGPU_PKT_FLAGS_SHIFT);
  if (ind->ib->n && !ind->ib_cut && chance(&g, 8)) {
    uint32_t last = ind->ib->p[ind->ib->n - 1].nw;
    if (last > 1) ind->ib_cut = 1 + rr(&g, last - 1);
  }
}

uint32_t dg_ib_len(const dg_pkt *p) { return ib_len_bytes(p); }

static void free_list(dg_list *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->p[i].w);
    if (l->p[i].ib) {
      free_list(l->p[i].ib);
      free(l->p[i].ib);
    }
  }
  free(l->p);
  l->p = NULL;
  l->n = l->cap = 0;
}

void dg_free(dg_work *w) {
  for (size_t i = 0; i < w->nseg; i++) {
    free_list(&w->seg[i].ring);
    free(w->seg[i].chg);
  }
  free(w->seg);
  free(w->pt_init);
  w->seg = NULL;
  w->pt_init = NULL;
  w->nseg = w->npt_init = 0;
}

static dg_vm_write *clone_writes(const dg_vm_write *a, size_t n) {
  if (!n) return NULL;
  dg_vm_write *c = xrealloc(NULL, n * sizeof *c);
  memcpy(c, a, n * sizeof *c);
  return c;
}

static void clone_list(dg_list *dst, const dg_list *src) {
  dst->n = dst->cap = src->n;
  dst->p = xrealloc(NULL, (src->n ? src->n : 1) * sizeof *dst->p);
  for (size_t i = 0; i < src->n; i++) {
    dst->p[i] = src->p[i];
    dst->p[i].w = xrealloc(NULL, src->p[i].nw * sizeof(uint32_t));
    memcpy(dst->p[i].w, src->p[i].w, src->p[i].nw * sizeof(uint32_t));
    if (src->p[i].ib) {
      dst->p[i].ib = new_list();
      clone_list(dst->p[i].ib, src->p[i].ib);
    }
  }
}

dg_work *dg_clone(const dg_work *w) {
  dg_work *c = xrealloc(NULL, sizeof *c);
  *c = *w;
  c->seg = xrealloc(NULL, (w->nseg ? w->nseg : 1) * sizeof *c->seg);
  for (size_t i = 0; i < w->nseg; i++) {
    c->seg[i] = w->seg[i];
    clone_list(&c->seg[i].ring, &w->seg[i].ring);
    c->seg[i].chg = clone_writes(w->seg[i].chg, w->seg[i].nchg);
  }
  c->pt_init = clone_writes(w->pt_init, w->npt_init);
  return c;
}

/* ------------------------------------------------------------ layout */
static uint32_t ib_len_bytes(const dg_pkt *p) {
  uint32_t nw = list_words(p->ib), cut = p->ib_cut;
  if (p->ib->n) {
    uint32_t last = p->ib->p[p->ib->n - 1].nw;
    if (cut >= last) cut = last - 1;
  } else {
    cut = 0;
  }
  return 4 * (nw - cut);
}

size_t dg_layout(const dg_list *l, uint32_t **out) {
  size_t n = list_words(l), k = 0;
  uint32_t *w = xrealloc(NULL, (n ? n : 1) * sizeof *w);
  for (size_t i = 0; i < l->n; i++) {
    const dg_pkt *p = &l->p[i];
    memcpy(w + k, p->w, p->nw * sizeof *w);
    if (p->ib) {
      w[k + 1] = p->ib_addr;
      w[k + 2] = ib_len_bytes(p);
    }
    k += p->nw;
  }
  *out = w;
  return n;
}

static void each_ib(const dg_list *l, void (*fn)(void *, uint32_t, const uint32_t *, size_t), void *ctx) {
  for (size_t i = 0; i < l->n; i++) {
    const dg_pkt *p = &l->p[i];
    if (!p->ib) continue;
    uint32_t *w;
    size_t n = dg_layout(p->ib, &w);
    fn(ctx, p->ib_addr, w, n);
    free(w);
    each_ib(p->ib, fn, ctx);
  }
}

void dg_for_each_ib(const dg_work *w, void (*fn)(void *, uint32_t, const uint32_t *, size_t), void *ctx) {
  for (size_t i = 0; i < w->nseg; i++) each_ib(&w->seg[i].ring, fn, ctx);
}

void dg_data_image(const dg_work *w, uint8_t *out) {
  uint64_t s = 0x243F6A8885A308D3ull ^ w->data_seed;
  for (uint32_t i = 0; i < DG_DATA_END - DG_DATA_BASE; i += 4) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t v = (uint32_t)(s >> 32);
    memcpy(out + i, &v, 4);
  }
}

/* ------------------------------------------------------------ shrinking */
static size_t count_list(const dg_list *l) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++) n += 1 + (l->p[i].ib ? count_list(l->p[i].ib) : 0);
  return n;
}

size_t dg_count(const dg_work *w) {
  size_t n = 0;
  for (size_t i = 0; i < w->nseg; i++) n += count_list(&w->seg[i].ring);
  return n;
}

/* Remove the k-th packet of l (preorder); returns 1 when done, else
 * subtracts what l holds from *k. */
static int remove_list(dg_list *l, size_t *k) {
  for (size_t i = 0; i < l->n; i++) {
    if (*k == 0) {
      dg_pkt *p = &l->p[i];
      free(p->w);
      if (p->ib) {
        free_list(p->ib);
        free(p->ib);
      }
      memmove(p, p + 1, (l->n - i - 1) * sizeof *p);
      l->n--;
      return 1;
    }
    (*k)--;
    if (l->p[i].ib && remove_list(l->p[i].ib, k)) return 1;
  }
  return 0;
}

void dg_remove(dg_work *w, size_t k) {
  for (size_t i = 0; i < w->nseg; i++)
    if (remove_list(&w->seg[i].ring, &k)) return;
}

/* ------------------------------------------------------------ listing */
static void print_words(const uint32_t *w, size_t n, uint32_t base, int ring, uint32_t ring_size, FILE *out) {
  size_t i = 0;
  while (i < n) {
    char line[512];
    int k = sgpu_disasm_one(w + i, n - i, line, sizeof line);
    if (k < 1) {
      snprintf(line, sizeof line, ".word 0x%08x", w[i]);
      k = 1;
    }
    uint32_t a = ring ? base : base + 4 * (uint32_t)i;
    fprintf(out, "    %-60s ; 0x%08x\n", line, a);
    if (ring) base = (base & ~(ring_size - 1)) | ((base + 4 * (uint32_t)k) & (ring_size - 1));
    i += (size_t)k;
  }
}

static void print_ibs(const dg_list *l, FILE *out) {
  for (size_t i = 0; i < l->n; i++) {
    const dg_pkt *p = &l->p[i];
    if (!p->ib) continue;
    uint32_t *w;
    size_t n = dg_layout(p->ib, &w);
    fprintf(out, "  .org 0x%08x  ; INDIRECT buffer, %u bytes executed%s\n", p->ib_addr, ib_len_bytes(p),
            (p->w[0] >> 8) & SGPU_INDIRECT_FLAG_SKIP ? " (skipped)" : "");
    print_words(w, n, p->ib_addr, 0, 0, out);
    free(w);
    print_ibs(p->ib, out);
  }
}

void dg_print(const dg_work *w, FILE *out) {
  fprintf(out, "; seed %u: node %u, ring 0x%08x size %u, RPTR_ADDR 0x%08x, memory stall %u%% latency %u seed %u%s\n",
          w->seed, w->node, w->ring_base, w->ring_size, w->rptr_addr, w->stall, w->latency, w->sim_seed,
          w->display ? ", displays on (TINY timing)" : "");
  if (w->vm)
    fprintf(out, "; VM: %u address spaces, directories at 0x%08x 0x%08x, %u buffers rewritten with hostile packets\n",
            w->nctx, w->pd[0], w->nctx > 1 ? w->pd[1] : 0, w->rewritten);
  for (size_t s = 0; s < w->nseg; s++) {
    const dg_seg *sg = &w->seg[s];
    if (!sg->ring.n) continue;
    uint32_t *words;
    size_t n = dg_layout(&sg->ring, &words);
    fprintf(out, "; segment %zu: ring packets at RING_BASE+0x%x, WATCHDOG %u%s\n", s, sg->start, sg->watchdog,
            sg->cut ? ", WPTR stops short of the last packet (OVERRUN)" : "");
    print_words(words, n, w->ring_base + sg->start, 1, w->ring_size, out);
    free(words);
    if (sg->nchg) {
      fprintf(out, "; the host changes the page tables after ring packet %zu:", sg->chg_at);
      for (size_t i = 0; i < sg->nchg; i++) fprintf(out, " [0x%08x]=0x%08x", sg->chg[i].addr, sg->chg[i].value);
      fprintf(out, "\n");
    }
    print_ibs(&sg->ring, out);
  }
}
