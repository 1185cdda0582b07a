/* packet_check.c — whether and why a packet faults, from the checks
 * generated out of tools/hwspec.py (see packet_check.h). */
#include <stdarg.h>
#include <stdio.h>

/* The decisions are generated straight-line code (sgpu_hw_failing_check);
 * this file adds the header checks and the messages. */
#define SGPU_HW_CHECK_CODE
#include "packet_check.h"

uint32_t sgpu__vm_translate(const sgpu_pkt_vm *vm, uint32_t va, uint32_t access, uint64_t *pa) {
  uint64_t wrap = vm->mem_size - 1;
  uint32_t pde = vm->read_word(vm->mem, (vm->root + 4ull * (va / SGPU_PAGE_BYTES / SGPU_PT_ENTRIES)) & wrap);
  if (!(pde & SGPU_PDE_VALID_MASK)) return SGPU_FAULT_PAGE_NOT_PRESENT;
  uint32_t pte = vm->read_word(vm->mem, ((pde & SGPU_PDE_TABLE_MASK) +
                                         4ull * (va / SGPU_PAGE_BYTES % SGPU_PT_ENTRIES)) & wrap);
  if (!(pte & SGPU_PTE_VALID_MASK)) return SGPU_FAULT_PAGE_NOT_PRESENT;
  if (access == SGPU_HW_ACCESS_WRITE && !(pte & SGPU_PTE_WRITABLE_MASK)) return SGPU_FAULT_PAGE_PROTECTION;
  if (pa) *pa = ((pte & SGPU_PTE_FRAME_MASK) | (va % SGPU_PAGE_BYTES)) & wrap;
  return SGPU_FAULT_NONE;
}

/* The page check of a window check in a VM context (sgpu_hw_failing_check
 * calls it): every page of [va, va + len), in order. */
static int sgpu_hw_page_fails(struct sgpu_pkt_vm *vm, uint64_t va, uint64_t len, uint32_t access,
                              uint32_t unit) {
  for (uint64_t a = va; a < va + len; a = (a / SGPU_PAGE_BYTES + 1) * SGPU_PAGE_BYTES) {
    uint32_t f = sgpu__vm_translate(vm, (uint32_t)a, access, NULL);
    if (f != SGPU_FAULT_NONE) {
      vm->fault_va = (uint32_t)a;
      vm->fault_access = SGPU_FIELD_PUT(FAULT_ACCESS_ACCESS, access) | SGPU_FIELD_PUT(FAULT_ACCESS_UNIT, unit);
      vm->fault_reason = f;
      return 1;
    }
  }
  return 0;
}

static uint32_t fail(uint32_t fault, char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static uint32_t fail(uint32_t fault, char *why, size_t why_size, const char *fmt, ...) {
  if (why && why_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
  }
  return fault;
}

uint32_t sgpu__check_header(uint32_t h, uint64_t avail_words, char *why, size_t why_size) {
  uint32_t op = SGPU_PKT_GET(OPCODE, h), fl = SGPU_PKT_GET(FLAGS, h), cnt = SGPU_PKT_GET(COUNT, h);
  if (SGPU_PKT_GET(TYPE, h) != SGPU_PKT_TYPE3)
    return fail(SGPU_FAULT_BAD_HEADER, why, why_size, "header 0x%08x has type %u, not %u", h,
                SGPU_PKT_GET(TYPE, h), SGPU_PKT_TYPE3);
  if (op >= SGPU_OP_COUNT_OF_OPCODES)
    return fail(SGPU_FAULT_ILLEGAL_OPCODE, why, why_size, "opcode 0x%02x is not defined", op);
  const sgpu_hw_op *o = &sgpu_hw_ops[op];
  if (fl & ~(uint32_t)o->flag_mask)
    return fail(SGPU_FAULT_BAD_HEADER, why, why_size, "%s: reserved flag bits 0x%02x set", o->name,
                fl & ~(uint32_t)o->flag_mask);
  if (o->variable ? cnt < o->count : cnt != o->count)
    return fail(SGPU_FAULT_BAD_COUNT, why, why_size, "%s: payload count %u, expected %s%u", o->name,
                cnt, o->variable ? "at least " : "", o->count);
  if ((uint64_t)cnt + 1 > avail_words)
    return fail(SGPU_FAULT_OVERRUN, why, why_size,
                "%s: %u payload words run past the end of the buffer (%llu left)", o->name, cnt,
                (unsigned long long)(avail_words ? avail_words - 1 : 0));
  return SGPU_FAULT_NONE;
}

/* Length in bytes of the range a range/window check covers. */
static uint64_t check_len(const sgpu_hw_check *c, const uint32_t *p, uint32_t cnt) {
  switch (c->len) {
  case SGPU_LEN_CONST: return c->k;
  case SGPU_LEN_WORD: return p[c->word[1]];
  case SGPU_LEN_PAYLOAD: return 4ull * (cnt - 1);
  case SGPU_LEN_RECT: return (uint64_t)p[c->word[1]] * (p[c->word[3]] - 1) + p[c->word[2]];
  default: return 0;
  }
}

/* The one-line reason of a check that failed (the generated code decided). */
static void describe(const sgpu_pkt_env *env, const sgpu_hw_op *o, const sgpu_hw_check *c,
                     const uint32_t *pkt, char *why, size_t why_size) {
  const uint32_t *p = pkt + 1;
  /* a check on no payload word (PRIVILEGED) reads none: TLB_INVALIDATE has no payload */
  const int has_word = c->nwords > 0;
  uint32_t cnt = SGPU_PKT_GET(COUNT, pkt[0]), v0 = has_word ? p[c->word[0]] : 0;
  const char *w0 = has_word ? o->words[c->word[0]].asm_name : "";
  switch (c->kind) {
  case SGPU_CHECK_NESTING:
    if (sgpu__ib_depth(env->ib_depth) < SGPU_MAX_IB_DEPTH)
      fail(0, why, why_size, "%s would nest %u buffers deep (this device nests at most %u: CAPS.IB_DEPTH)",
           o->name, env->level + 1, sgpu__ib_depth(env->ib_depth));
    else
      fail(0, why, why_size, "%s would nest %u buffers deep (at most %u)", o->name, env->level + 1,
           SGPU_MAX_IB_DEPTH);
    break;
  case SGPU_CHECK_PRIVILEGED:
    fail(0, why, why_size, "%s is only allowed in the ring itself", o->name);
    break;
  case SGPU_CHECK_FLAG_MAX: {
    uint32_t shift = c->k & 0xFF;
    const sgpu_hw_flag *f = &o->flags[0];
    for (uint32_t k = 0; k < o->nflags; k++)
      if (o->flags[k].lsb == shift) f = &o->flags[k];
    fail(0, why, why_size, "%s: %s %u is not 0..%u", o->name, f->asm_name,
         (SGPU_PKT_GET(FLAGS, pkt[0]) >> shift) & ((1u << f->width) - 1), c->k >> 8);
    break;
  }
  case SGPU_CHECK_MAX:
    fail(0, why, why_size, "%s: %s %u is above %u", o->name, w0, v0, c->k);
    break;
  case SGPU_CHECK_SOURCE:
    fail(0, why, why_size, "%s: display source %u does not exist (%u sources)", o->name, v0,
         env->sources);
    break;
  case SGPU_CHECK_PITCH:
    fail(0, why, why_size, "%s: %s %u is below the width %u (height %u)", o->name, w0, v0,
         p[c->word[1]], p[c->word[2]]);
    break;
  case SGPU_CHECK_ALIGN: {
    uint32_t k = 0;
    while (k + 1 < c->nwords && !(p[c->word[k]] & 3u)) k++;
    fail(0, why, why_size, "%s: %s 0x%x is not 4-byte aligned", o->name,
         o->words[c->word[k]].asm_name, p[c->word[k]]);
    break;
  }
  case SGPU_CHECK_RANGE:
    fail(0, why, why_size, "%s: %s range 0x%x+%llu is outside GPU memory (%llu bytes)", o->name, w0,
         v0, (unsigned long long)check_len(c, p, cnt), (unsigned long long)env->mem_size);
    break;
  case SGPU_CHECK_WINDOW:
    fail(0, why, why_size, "%s: %s range 0x%x+%llu is outside the context window [0x%llx, 0x%llx)",
         o->name, w0, v0, (unsigned long long)check_len(c, p, cnt),
         (unsigned long long)env->win_base, (unsigned long long)env->win_end);
    break;
  default:
    fail(0, why, why_size, "%s: check %u failed", o->name, c->kind);
    break;
  }
}

uint32_t sgpu__check_payload(const sgpu_pkt_env *env, const uint32_t *pkt, char *why,
                             size_t why_size) {
  uint32_t op = SGPU_PKT_GET(OPCODE, pkt[0]);
  if (op >= SGPU_OP_COUNT_OF_OPCODES)
    return fail(SGPU_FAULT_ILLEGAL_OPCODE, why, why_size, "opcode 0x%02x is not defined", op);
  int i = sgpu_hw_failing_check(op, SGPU_PKT_GET(FLAGS, pkt[0]), SGPU_PKT_GET(COUNT, pkt[0]), pkt + 1,
                                env->level, sgpu__ib_depth(env->ib_depth), env->windowed, env->mem_size,
                                env->sources, env->win_base,
                                env->win_end, env->vm);
  if (i == 0) return SGPU_FAULT_NONE;
  const sgpu_hw_op *o = &sgpu_hw_ops[op];
  const sgpu_hw_check *c = &o->checks[i - 1];
  if (c->kind == SGPU_CHECK_WINDOW && env->vm) {
    static const char *const kinds[] = {"fetch", "read", "write", "?"};
    sgpu_pkt_vm *vm = env->vm;
    return fail(vm->fault_reason, why, why_size, "%s: %s of %s 0x%x: page 0x%x %s", o->name,
                kinds[SGPU_FIELD_GET(FAULT_ACCESS_ACCESS, vm->fault_access)],
                o->words[c->word[0]].asm_name, pkt[1 + c->word[0]], vm->fault_va & ~(SGPU_PAGE_BYTES - 1),
                vm->fault_reason == SGPU_FAULT_PAGE_PROTECTION ? "is mapped read-only"
                                                               : "is not mapped in the context");
  }
  if (why && why_size) describe(env, o, c, pkt, why, why_size);
  return c->fault;
}

uint32_t sgpu__check_packet(const sgpu_pkt_env *env, const uint32_t *pkt, uint64_t avail_words,
                            char *why, size_t why_size) {
  if (avail_words == 0) return fail(SGPU_FAULT_OVERRUN, why, why_size, "no header word left");
  uint32_t f = sgpu__check_header(pkt[0], avail_words, why, why_size);
  return f != SGPU_FAULT_NONE ? f : sgpu__check_payload(env, pkt, why, why_size);
}
