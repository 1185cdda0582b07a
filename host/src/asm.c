/* asm.c — sgpu command-stream assembler and disassembler.
 *
 * The opcode and operand tables (names, payload words, flags, defaults,
 * bounds, symbolic values) are generated from tools/hwspec.py into
 * sgpu_hw_tables.h.  The disassembler checks each line it prints by assembling it
 * again and falls back to `.word` when that would not give the same words,
 * which makes asm(disasm(words)) == words hold for any input by construction.
 */
#include "sgpu_asm.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgpu_hw.h"

/* ------------------------------------------------------------------ tables */
/* The opcode and operand tables are generated from the interface spec
 * (tools/hwspec.py: payload words, flag fields, defaults, bounds, names). */
#define SGPU_HW_ASM_TABLES
#include "sgpu_hw_tables.h"

enum kind {
  K_WORD = SGPU_ASM_K_WORD,
  K_LO16 = SGPU_ASM_K_LO16,
  K_HI16 = SGPU_ASM_K_HI16,
  K_FLAG = SGPU_ASM_K_FLAG,
  K_FUNC = SGPU_ASM_K_FUNC,
  K_REST = SGPU_ASM_K_REST,
};
enum fmt { FMT_HEX = SGPU_ASM_FMT_HEX, FMT_DEC = SGPU_ASM_FMT_DEC };
typedef sgpu_hw_named_value named_value;
typedef sgpu_hw_asm_operand operand_spec;
typedef sgpu_hw_asm_opcode opcode_spec;
#define opcodes sgpu_hw_asm_opcodes

#define N(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(N(sgpu_hw_asm_opcodes) == SGPU_OP_COUNT_OF_OPCODES, "one assembler entry per opcode");

/* Lowest set bit of a flag field's mask: the field's shift. */
static uint32_t field_unit(uint32_t mask) { return mask & (~mask + 1u); }

#define MAX_PAYLOAD SGPU_PKT_COUNT_MASK

static const opcode_spec *opcode_by_value(uint32_t op) {
  for (size_t i = 0; i < N(opcodes); i++)
    if (opcodes[i].opcode == op) return &opcodes[i];
  return NULL;
}

static bool ieq(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  if (alen != blen) return false;
  for (size_t i = 0; i < alen; i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

static const opcode_spec *opcode_by_name(const char *s, size_t n) {
  for (size_t i = 0; i < N(opcodes); i++)
    if (ieq(s, n, opcodes[i].name)) return &opcodes[i];
  return NULL;
}

const char *sgpu_asm_opcode_name(uint32_t opcode) {
  const opcode_spec *o = opcode_by_value(opcode);
  return o ? o->name : NULL;
}

const char *sgpu_asm_strerror(int code) {
  switch (code) {
  case SGPU_ASM_OK: return "success";
  case SGPU_ASM_ERR_INVALID_ARG: return "invalid argument";
  case SGPU_ASM_ERR_NO_MEMORY: return "out of memory";
  case SGPU_ASM_ERR_SYNTAX: return "syntax error";
  case SGPU_ASM_ERR_UNKNOWN_MNEMONIC: return "unknown mnemonic";
  case SGPU_ASM_ERR_UNKNOWN_DIRECTIVE: return "unknown directive";
  case SGPU_ASM_ERR_BAD_NUMBER: return "bad number";
  case SGPU_ASM_ERR_MISSING_OPERAND: return "missing operand";
  case SGPU_ASM_ERR_EXTRA_OPERAND: return "too many operands";
  case SGPU_ASM_ERR_UNKNOWN_OPERAND: return "unknown operand name";
  case SGPU_ASM_ERR_DUPLICATE_OPERAND: return "operand given twice";
  case SGPU_ASM_ERR_RANGE: return "value out of range";
  case SGPU_ASM_ERR_UNDEFINED_SYMBOL: return "undefined symbol";
  case SGPU_ASM_ERR_DUPLICATE_SYMBOL: return "symbol defined twice";
  case SGPU_ASM_ERR_TOO_LARGE: return "input or output too large";
  case SGPU_ASM_ERR_DIV_ZERO: return "division by zero";
  case SGPU_ASM_ERR_TOO_DEEP: return "expression nested too deeply";
  default: return "unknown assembler error";
  }
}

/* ------------------------------------------------------------ symbol table */

typedef struct symbol {
  const char *name; /* points into the source text */
  size_t len;
  uint32_t value;
  unsigned line; /* where defined */
  int next;      /* hash chain, -1 = end */
} symbol;

typedef struct symtab {
  symbol *syms;
  size_t n, cap;
  int *buckets; /* NBUCKETS heads */
} symtab;
#define NBUCKETS 1024u

static unsigned hash_name(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h % NBUCKETS;
}

static symbol *sym_find(const symtab *t, const char *s, size_t n) {
  if (!t->buckets) return NULL;
  for (int i = t->buckets[hash_name(s, n)]; i >= 0; i = t->syms[i].next)
    if (t->syms[i].len == n && memcmp(t->syms[i].name, s, n) == 0) return &t->syms[i];
  return NULL;
}

static int sym_add(symtab *t, const char *s, size_t n, uint32_t value, unsigned line) {
  if (!t->buckets) {
    t->buckets = malloc(NBUCKETS * sizeof(int));
    if (!t->buckets) return SGPU_ASM_ERR_NO_MEMORY;
    for (unsigned i = 0; i < NBUCKETS; i++) t->buckets[i] = -1;
  }
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    symbol *p = realloc(t->syms, cap * sizeof(*p));
    if (!p) return SGPU_ASM_ERR_NO_MEMORY;
    t->syms = p;
    t->cap = cap;
  }
  unsigned b = hash_name(s, n);
  t->syms[t->n] = (symbol){s, n, value, line, t->buckets[b]};
  t->buckets[b] = (int)t->n;
  t->n++;
  return 0;
}

static void sym_free(symtab *t) {
  free(t->syms);
  free(t->buckets);
}

/* ------------------------------------------------------------------- lexer */

enum tok {
  T_END, T_IDENT, T_NUMBER, T_COMMA, T_EQ, T_COLON, T_LPAREN, T_RPAREN,
  T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_SHL, T_SHR, T_AND, T_OR, T_XOR, T_TILDE,
  T_BAD,
};

typedef struct token {
  int type;
  const char *s; /* start in the line */
  size_t n;
  uint64_t num;  /* T_NUMBER */
  unsigned col;  /* 1-based */
} token;

/* The assembler's working state for one call. */
typedef struct assembler {
  const char *file;
  unsigned line;
  const char *ls;   /* current line start */
  size_t ll;        /* current line length (comment stripped) */
  size_t pos;       /* lexer position in the line */
  token tok;        /* current token */
  int pass;         /* 1: sizes and labels, 2: values */
  bool unresolved;  /* pass 1: an expression used an undefined symbol */
  symtab syms;
  uint64_t loc;     /* address of the next word */
  uint32_t *out;
  size_t nout, cap;
  sgpu_asm_error *err;
  int code;         /* first error */
  unsigned depth;   /* nesting of the expression being parsed (parentheses, unary operators) */
} assembler;

static int fail(assembler *a, int code, unsigned col, const char *fmt, ...) {
  if (a->code) return a->code;
  a->code = code;
  if (a->err) {
    char what[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    a->err->code = code;
    a->err->line = a->line;
    a->err->column = col;
    if (a->line)
      snprintf(a->err->message, sizeof a->err->message, "%s:%u:%u: error: %s",
               a->file, a->line, col, what);
    else
      snprintf(a->err->message, sizeof a->err->message, "%s: error: %s", a->file, what);
  }
  return code;
}

static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

/* Printable form of a token for messages (bounded). */
static void tok_text(const token *t, char *buf, size_t size) {
  if (t->type == T_END) {
    snprintf(buf, size, "end of line");
    return;
  }
  size_t n = t->n > 40 ? 40 : t->n;
  snprintf(buf, size, "'%.*s%s'", (int)n, t->s, t->n > 40 ? "..." : "");
}

static int next(assembler *a) {
  const char *s = a->ls;
  size_t p = a->pos;
  while (p < a->ll && (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\f' || s[p] == '\v'))
    p++;
  token *t = &a->tok;
  t->s = s + p;
  t->col = (unsigned)p + 1;
  t->num = 0;
  if (p >= a->ll) {
    t->type = T_END;
    t->n = 0;
    a->pos = p;
    return 0;
  }
  char c = s[p];
  size_t start = p;
  if (is_ident_start(c)) {
    while (p < a->ll && is_ident_char(s[p])) p++;
    t->type = T_IDENT;
  } else if (c >= '0' && c <= '9') {
    /* Take the whole alphanumeric run, then check it. */
    while (p < a->ll && is_ident_char(s[p]) && s[p] != '.') p++;
    t->type = T_NUMBER;
    t->n = p - start;
    a->pos = p;
    const char *d = s + start;
    size_t n = t->n;
    unsigned radix = 10;
    if (n >= 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
      radix = 16;
      d += 2;
      n -= 2;
    } else if (n >= 2 && d[0] == '0' && (d[1] == 'b' || d[1] == 'B')) {
      radix = 2;
      d += 2;
      n -= 2;
    }
    if (n == 0)
      return fail(a, SGPU_ASM_ERR_BAD_NUMBER, t->col, "bad number '%.*s': no digits",
                  (int)t->n, t->s);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
      int dv = digit_value(d[i]);
      if ((unsigned)dv >= radix)
        return fail(a, SGPU_ASM_ERR_BAD_NUMBER, t->col, "bad number '%.*s'",
                    (int)(t->n > 40 ? 40 : t->n), t->s);
      if (v > (UINT64_MAX - (uint64_t)dv) / radix)
        return fail(a, SGPU_ASM_ERR_RANGE, t->col, "number '%.*s' out of range (over 64 bits)",
                    (int)(t->n > 40 ? 40 : t->n), t->s);
      v = v * radix + (uint64_t)dv;
    }
    t->num = v;
    return 0;
  } else {
    p++;
    switch (c) {
    case ',': t->type = T_COMMA; break;
    case '=': t->type = T_EQ; break;
    case ':': t->type = T_COLON; break;
    case '(': t->type = T_LPAREN; break;
    case ')': t->type = T_RPAREN; break;
    case '+': t->type = T_PLUS; break;
    case '-': t->type = T_MINUS; break;
    case '*': t->type = T_STAR; break;
    case '/': t->type = T_SLASH; break;
    case '%': t->type = T_PERCENT; break;
    case '&': t->type = T_AND; break;
    case '|': t->type = T_OR; break;
    case '^': t->type = T_XOR; break;
    case '~': t->type = T_TILDE; break;
    case '<':
    case '>':
      if (p < a->ll && s[p] == c) {
        p++;
        t->type = c == '<' ? T_SHL : T_SHR;
      } else {
        t->type = T_BAD;
      }
      break;
    default: t->type = T_BAD; break;
    }
  }
  t->n = p - start;
  a->pos = p;
  if (t->type == T_BAD) {
    unsigned char uc = (unsigned char)c;
    if (uc >= 0x20 && uc < 0x7f)
      return fail(a, SGPU_ASM_ERR_SYNTAX, t->col, "unexpected character '%c'", c);
    return fail(a, SGPU_ASM_ERR_SYNTAX, t->col, "unexpected byte 0x%02x", uc);
  }
  return 0;
}

/* Peek at the type of the token after the current one without consuming. */
static int peek_type(assembler *a) {
  size_t p = a->pos;
  while (p < a->ll && (a->ls[p] == ' ' || a->ls[p] == '\t' || a->ls[p] == '\r')) p++;
  if (p >= a->ll) return T_END;
  switch (a->ls[p]) {
  case '=': return T_EQ;
  case ':': return T_COLON;
  case ',': return T_COMMA;
  default: return T_BAD; /* anything else: not interesting to callers */
  }
}

/* ------------------------------------------------------------- expressions */

/* Values are int64 computed with wrap-around (no UB); the caller checks the
 * range of the result. */
static int expr(assembler *a, int64_t *v);

static int64_t wrap_add(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static int64_t wrap_sub(int64_t x, int64_t y) { return (int64_t)((uint64_t)x - (uint64_t)y); }
static int64_t wrap_mul(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

static int primary(assembler *a, int64_t *v) {
  token t = a->tok;
  int rc;
  switch (t.type) {
  case T_NUMBER:
    *v = (int64_t)t.num;
    return next(a);
  case T_IDENT: {
    symbol *s = sym_find(&a->syms, t.s, t.n);
    if (!s) {
      if (a->pass == 1) {
        a->unresolved = true;
        *v = 0;
      } else {
        return fail(a, SGPU_ASM_ERR_UNDEFINED_SYMBOL, t.col, "undefined symbol '%.*s'",
                    (int)(t.n > 60 ? 60 : t.n), t.s);
      }
    } else {
      *v = s->value;
    }
    return next(a);
  }
  case T_LPAREN:
  case T_MINUS:
  case T_TILDE:
  case T_PLUS:
    /* Each '(' and unary operator is one level of recursion: bounded, so
     * that no input can exhaust the stack. */
    if (a->depth >= SGPU_ASM_MAX_NESTING)
      return fail(a, SGPU_ASM_ERR_TOO_DEEP, t.col,
                  "expression nested too deeply (at most %u levels of parentheses and unary "
                  "operators)", SGPU_ASM_MAX_NESTING);
    a->depth++;
    if (t.type == T_LPAREN) {
      if ((rc = next(a)) || (rc = expr(a, v))) return rc;
      if (a->tok.type != T_RPAREN)
        return fail(a, SGPU_ASM_ERR_SYNTAX, a->tok.col, "expected ')'");
      rc = next(a);
    } else {
      if ((rc = next(a)) || (rc = primary(a, v))) return rc;
      if (t.type == T_MINUS) *v = wrap_sub(0, *v);
      else if (t.type == T_TILDE) *v = ~*v;
    }
    a->depth--;
    return rc;
  case T_END:
    return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, t.col, "missing operand: expected a value");
  default: {
    char buf[64];
    tok_text(&t, buf, sizeof buf);
    return fail(a, SGPU_ASM_ERR_SYNTAX, t.col, "expected a value, found %s", buf);
  }
  }
}

/* Binary operators by precedence level (C's order). */
static int binary(assembler *a, int level, int64_t *v) {
  int rc;
  if (level == 0) return primary(a, v);
  if ((rc = binary(a, level - 1, v))) return rc;
  for (;;) {
    int op = a->tok.type;
    bool ok;
    switch (level) {
    case 1: ok = op == T_STAR || op == T_SLASH || op == T_PERCENT; break;
    case 2: ok = op == T_PLUS || op == T_MINUS; break;
    case 3: ok = op == T_SHL || op == T_SHR; break;
    case 4: ok = op == T_AND; break;
    case 5: ok = op == T_XOR; break;
    default: ok = op == T_OR; break;
    }
    if (!ok) return 0;
    unsigned col = a->tok.col;
    int64_t r;
    if ((rc = next(a)) || (rc = binary(a, level - 1, &r))) return rc;
    switch (op) {
    case T_STAR: *v = wrap_mul(*v, r); break;
    case T_SLASH:
    case T_PERCENT:
      if (r == 0) {
        if (a->pass == 1 && a->unresolved) { *v = 0; break; }
        return fail(a, SGPU_ASM_ERR_DIV_ZERO, col, "division by zero");
      }
      if (r == -1) *v = op == T_SLASH ? wrap_sub(0, *v) : 0;
      else *v = op == T_SLASH ? *v / r : *v % r;
      break;
    case T_PLUS: *v = wrap_add(*v, r); break;
    case T_MINUS: *v = wrap_sub(*v, r); break;
    case T_SHL:
    case T_SHR:
      if (r < 0 || r > 63) {
        if (a->pass == 1 && a->unresolved) { *v = 0; break; }
        return fail(a, SGPU_ASM_ERR_RANGE, col, "shift count %lld out of range 0..63",
                    (long long)r);
      }
      *v = op == T_SHL ? (int64_t)((uint64_t)*v << r) : (int64_t)((uint64_t)*v >> r);
      break;
    case T_AND: *v &= r; break;
    case T_XOR: *v ^= r; break;
    default: *v |= r; break;
    }
  }
}

static int expr(assembler *a, int64_t *v) { return binary(a, 6, v); }

/* An expression whose value must fit in 32 bits (signed or unsigned). */
static int expr32(assembler *a, const char *what, uint32_t *out) {
  unsigned col = a->tok.col;
  int64_t v;
  bool before = a->unresolved;
  a->unresolved = false;
  int rc = expr(a, &v);
  bool unres = a->unresolved;
  a->unresolved = before || unres;
  if (rc) return rc;
  if (unres) v = 0;
  if (v < INT32_MIN || v > (int64_t)UINT32_MAX)
    return fail(a, SGPU_ASM_ERR_RANGE, col, "value %lld out of range for %s (32 bits)",
                (long long)v, what);
  *out = (uint32_t)v;
  return 0;
}

/* ----------------------------------------------------------------- output */

static int emit(assembler *a, uint32_t w) {
  if (a->pass == 1) {
    a->loc += 4;
    return 0;
  }
  if (a->nout == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 256;
    uint32_t *p = realloc(a->out, cap * sizeof(uint32_t));
    if (!p) return fail(a, SGPU_ASM_ERR_NO_MEMORY, 1, "out of memory");
    a->out = p;
    a->cap = cap;
  }
  a->out[a->nout++] = w;
  a->loc += 4;
  return 0;
}

static int check_size(assembler *a, size_t words_to_add, unsigned col) {
  if (a->pass == 2 && a->nout + words_to_add > SGPU_ASM_MAX_WORDS)
    return fail(a, SGPU_ASM_ERR_TOO_LARGE, col, "output over the limit (at most %u words)",
                SGPU_ASM_MAX_WORDS);
  if (words_to_add && a->loc + 4ull * words_to_add > (uint64_t)UINT32_MAX + 1)
    return fail(a, SGPU_ASM_ERR_RANGE, col, "code runs past the end of the 32-bit address space");
  return 0;
}

/* -------------------------------------------------------------- statements */

static int expect_end_or_comma(assembler *a) {
  if (a->tok.type == T_END || a->tok.type == T_COMMA) return 0;
  char buf[64];
  tok_text(&a->tok, buf, sizeof buf);
  return fail(a, SGPU_ASM_ERR_SYNTAX, a->tok.col, "expected ',' or end of line, found %s", buf);
}

/* Between operands: a ',' followed by another operand (none before the
 * first). */
static int operand_separator(assembler *a, bool *first) {
  if (*first) {
    *first = false;
    return 0;
  }
  if (a->tok.type != T_COMMA) return expect_end_or_comma(a);
  int rc = next(a);
  if (rc) return rc;
  if (a->tok.type == T_END)
    return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, a->tok.col, "missing operand after ','");
  return 0;
}


static int directive(assembler *a) {
  token d = a->tok;
  int rc;
  if ((rc = next(a))) return rc;
  if (ieq(d.s, d.n, ".word")) {
    if (a->tok.type == T_END)
      return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, a->tok.col, "missing operand: .word needs a value");
    for (;;) {
      uint32_t w;
      if ((rc = check_size(a, 1, a->tok.col)) || (rc = expr32(a, "a .word", &w))) return rc;
      if ((rc = expect_end_or_comma(a))) return rc;
      if ((rc = emit(a, w))) return rc;
      if (a->tok.type == T_END) return 0;
      if ((rc = next(a))) return rc;
    }
  }
  if (ieq(d.s, d.n, ".org")) {
    unsigned col = a->tok.col;
    uint32_t v;
    bool before = a->unresolved;
    a->unresolved = false;
    if ((rc = expr32(a, ".org", &v))) return rc;
    if (a->unresolved && a->pass == 1)
      return fail(a, SGPU_ASM_ERR_UNDEFINED_SYMBOL, col,
                  ".org uses a symbol that is not defined before it");
    a->unresolved = before;
    if (v & 3u) return fail(a, SGPU_ASM_ERR_RANGE, col, ".org address 0x%x is not 4-byte aligned", v);
    if (a->tok.type != T_END) return expect_end_or_comma(a) ? a->code
        : fail(a, SGPU_ASM_ERR_EXTRA_OPERAND, a->tok.col, "too many operands for .org");
    a->loc = v;
    return 0;
  }
  if (ieq(d.s, d.n, ".equ") || ieq(d.s, d.n, ".set")) {
    token name = a->tok;
    if (name.type == T_END)
      return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, name.col, "missing operand: %.*s needs a name",
                  (int)d.n, d.s);
    if (name.type != T_IDENT || name.s[0] == '.')
      return fail(a, SGPU_ASM_ERR_SYNTAX, name.col, "expected a symbol name after %.*s", (int)d.n, d.s);
    if ((rc = next(a))) return rc;
    if (a->tok.type != T_COMMA && a->tok.type != T_EQ)
      return fail(a, a->tok.type == T_END ? SGPU_ASM_ERR_MISSING_OPERAND : SGPU_ASM_ERR_SYNTAX,
                  a->tok.col, "expected ', VALUE' after the name in %.*s", (int)d.n, d.s);
    if ((rc = next(a))) return rc;
    unsigned col = a->tok.col;
    uint32_t v;
    bool before = a->unresolved;
    a->unresolved = false;
    if ((rc = expr32(a, "a symbol", &v))) return rc;
    if (a->unresolved && a->pass == 1)
      return fail(a, SGPU_ASM_ERR_UNDEFINED_SYMBOL, col,
                  "%.*s uses a symbol that is not defined before it", (int)d.n, d.s);
    a->unresolved = before;
    if (a->tok.type != T_END)
      return expect_end_or_comma(a) ? a->code
          : fail(a, SGPU_ASM_ERR_EXTRA_OPERAND, a->tok.col, "too many operands for %.*s", (int)d.n, d.s);
    if (a->pass == 1) {
      symbol *s = sym_find(&a->syms, name.s, name.n);
      if (s && s->line == 0)
        return fail(a, SGPU_ASM_ERR_DUPLICATE_SYMBOL, name.col, "symbol '%.*s' is a predefined symbol",
                    (int)name.n, name.s);
      if (s)
        return fail(a, SGPU_ASM_ERR_DUPLICATE_SYMBOL, name.col,
                    "symbol '%.*s' already defined on line %u", (int)name.n, name.s, s->line);
      if ((rc = sym_add(&a->syms, name.s, name.n, v, a->line)))
        return fail(a, rc, name.col, "out of memory");
    }
    return 0;
  }
  return fail(a, SGPU_ASM_ERR_UNKNOWN_DIRECTIVE, d.col, "unknown directive '%.*s'",
              (int)(d.n > 40 ? 40 : d.n), d.s);
}

static const operand_spec *find_operand(const opcode_spec *o, const char *s, size_t n) {
  for (size_t i = 0; i < o->nops; i++)
    if (ieq(s, n, o->ops[i].name) || (o->ops[i].alias && ieq(s, n, o->ops[i].alias)))
      return &o->ops[i];
  return NULL;
}

/* The value of operand `sp`: a named value or an expression. */
static int operand_value(assembler *a, const operand_spec *sp, uint32_t *v) {
  unsigned col = a->tok.col;
  if (sp->values && a->tok.type == T_IDENT && !sym_find(&a->syms, a->tok.s, a->tok.n)) {
    for (const named_value *nv = sp->values; nv->name; nv++)
      if (ieq(a->tok.s, a->tok.n, nv->name)) {
        *v = nv->value;
        return next(a);
      }
  }
  bool before = a->unresolved;
  a->unresolved = false;
  int rc = expr32(a, sp->name, v);
  bool unres = a->unresolved;
  a->unresolved = before || unres;
  if (rc) return rc;
  if (unres) return 0; /* pass 1: value not known yet */
  uint32_t max = sp->kind == K_LO16 || sp->kind == K_HI16 ? 0xFFFFu : sp->max;
  if (sp->kind == K_FLAG) max = 1;
  if (max && *v > max) {
    if (sp->values)
      return fail(a, SGPU_ASM_ERR_RANGE, col, "%s %lld out of range 0..%u (or a name such as '%s')",
                  sp->name, (long long)(int32_t)*v, max, sp->values[0].name);
    return fail(a, SGPU_ASM_ERR_RANGE, col, "%s %lld out of range 0..%u", sp->name,
                (long long)((*v & 0x80000000u) ? (int64_t)(int32_t)*v : (int64_t)*v), max);
  }
  return 0;
}

static int instruction(assembler *a, const opcode_spec *o) {
  token mn = a->tok;
  int rc;
  uint32_t payload[8] = {0};
  uint32_t flags = 0;
  unsigned given = 0;  /* bit i: ops[i] given */
  size_t next_pos = 0; /* next positional operand index into ops[] */
  size_t hdr = a->nout;
  _Static_assert(SGPU_OP_COPY_COUNT <= 8, "payload[] too small");

  if ((rc = next(a))) return rc;
  if ((rc = check_size(a, 1 + o->count, mn.col))) return rc;
  for (uint32_t i = 0; i <= o->count; i++)
    if ((rc = emit(a, 0))) return rc; /* header + payload, filled in below */
  for (size_t i = 0; i < o->nops; i++) {
    const operand_spec *sp = &o->ops[i];
    if (sp->optional && sp->kind == K_WORD) payload[sp->word] = sp->def;
    else if (sp->kind == K_FUNC) flags |= sp->def * field_unit(sp->bit);
  }

  bool first = true;
  while (a->tok.type != T_END) {
    if ((rc = operand_separator(a, &first))) return rc;
    token t = a->tok;
    const operand_spec *sp = NULL;
    if (t.type == T_IDENT) {
      int pk = peek_type(a);
      if (pk == T_EQ) {
        sp = find_operand(o, t.s, t.n);
        if (!sp)
          return fail(a, SGPU_ASM_ERR_UNKNOWN_OPERAND, t.col, "%s has no operand named '%.*s'",
                      o->name, (int)(t.n > 40 ? 40 : t.n), t.s);
        if ((rc = next(a)) || (rc = next(a))) return rc; /* name, '=' */
      } else if (pk == T_COMMA || pk == T_END) {
        const operand_spec *f = find_operand(o, t.s, t.n);
        if (f && f->kind == K_FLAG) {
          size_t idx = (size_t)(f - o->ops);
          if (given & (1u << idx))
            return fail(a, SGPU_ASM_ERR_DUPLICATE_OPERAND, t.col, "flag '%s' given twice", f->name);
          given |= 1u << idx;
          flags |= f->bit;
          if ((rc = next(a))) return rc;
          continue;
        }
      }
    }
    if (!sp) {
      /* Positional: the next operand that is not a flag and not given yet. */
      while (next_pos < o->nops &&
             (o->ops[next_pos].kind == K_FLAG || (given & (1u << next_pos))))
        next_pos++;
      if (next_pos >= o->nops)
        return fail(a, SGPU_ASM_ERR_EXTRA_OPERAND, t.col, "too many operands for %s", o->name);
      sp = &o->ops[next_pos];
    }
    size_t idx = (size_t)(sp - o->ops);
    if (given & (1u << idx))
      return fail(a, SGPU_ASM_ERR_DUPLICATE_OPERAND, t.col, "operand '%s' given twice", sp->name);
    given |= 1u << idx;
    uint32_t v;
    if ((rc = operand_value(a, sp, &v))) return rc;
    switch (sp->kind) {
    case K_WORD: payload[sp->word] = v; break;
    case K_LO16: payload[sp->word] = (payload[sp->word] & 0xFFFF0000u) | (v & 0xFFFFu); break;
    case K_HI16: payload[sp->word] = (payload[sp->word] & 0xFFFFu) | (v << 16); break;
    case K_FLAG: flags = v ? (flags | sp->bit) : (flags & ~sp->bit); break;
    case K_FUNC: flags = (flags & ~sp->bit) | ((v * field_unit(sp->bit)) & sp->bit); break;
    default: break;
    }
    if ((rc = expect_end_or_comma(a))) return rc;
  }
  for (size_t i = 0; i < o->nops; i++) {
    const operand_spec *sp = &o->ops[i];
    if (sp->optional || (given & (1u << i))) continue;
    return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, a->tok.col, "missing operand: %s needs %s",
                o->name, sp->name);
  }
  if (a->pass == 2) {
    for (uint32_t i = 0; i < o->count; i++) a->out[hdr + 1 + i] = payload[i];
    a->out[hdr] = SGPU_PKT_HEADER(o->opcode, o->count, flags);
  }
  return 0;
}

/* Variable packets (nop, write_data): fixed operands before the K_REST words
 * are emitted as they come; this wrapper reserves their slots. */
static int variable_instruction(assembler *a, const opcode_spec *o) {
  /* Reserve the fixed words (rest->word of them) after the header by
   * emitting them as placeholders, then the rest words follow. */
  const operand_spec *rest = NULL;
  for (size_t i = 0; i < o->nops; i++)
    if (o->ops[i].kind == K_REST) rest = &o->ops[i];
  token mn = a->tok;
  int rc;
  size_t hdr = a->nout;
  uint32_t fixed[4] = {0};
  unsigned given = 0;
  size_t nrest = 0;
  if ((rc = next(a))) return rc;
  if ((rc = check_size(a, 1 + rest->word, mn.col)) || (rc = emit(a, 0))) return rc;
  for (unsigned i = 0; i < rest->word; i++)
    if ((rc = emit(a, 0))) return rc;
  bool first = true;
  size_t pos = 0;
  while (a->tok.type != T_END) {
    if ((rc = operand_separator(a, &first))) return rc;
    token t = a->tok;
    const operand_spec *sp = NULL;
    if (t.type == T_IDENT && peek_type(a) == T_EQ) {
      sp = find_operand(o, t.s, t.n);
      if (!sp || sp->kind == K_REST)
        return fail(a, SGPU_ASM_ERR_UNKNOWN_OPERAND, t.col, "%s has no operand named '%.*s'",
                    o->name, (int)(t.n > 40 ? 40 : t.n), t.s);
      if ((rc = next(a)) || (rc = next(a))) return rc;
    } else {
      while (pos < o->nops && o->ops[pos].kind != K_REST && (given & (1u << pos))) pos++;
      sp = &o->ops[pos];
    }
    size_t idx = (size_t)(sp - o->ops);
    uint32_t v;
    if (sp->kind == K_REST) {
      if (rest->word + nrest >= MAX_PAYLOAD)
        return fail(a, SGPU_ASM_ERR_RANGE, t.col, "too many words in one %s packet (at most %u)",
                    o->name, (unsigned)MAX_PAYLOAD);
      if ((rc = check_size(a, 1, t.col)) || (rc = expr32(a, sp->name, &v))) return rc;
      if ((rc = expect_end_or_comma(a)) || (rc = emit(a, v))) return rc;
      nrest++;
      given |= 1u << idx;
      continue;
    }
    if (given & (1u << idx))
      return fail(a, SGPU_ASM_ERR_DUPLICATE_OPERAND, t.col, "operand '%s' given twice", sp->name);
    if (nrest)
      return fail(a, SGPU_ASM_ERR_SYNTAX, t.col, "operand '%s' must come before the data words",
                  sp->name);
    given |= 1u << idx;
    if ((rc = operand_value(a, sp, &v)) || (rc = expect_end_or_comma(a))) return rc;
    fixed[sp->word] = v;
  }
  for (size_t i = 0; i < o->nops; i++) {
    const operand_spec *sp = &o->ops[i];
    if (given & (1u << i)) continue;
    if (sp->kind == K_REST && o->count <= sp->word) continue;
    return fail(a, SGPU_ASM_ERR_MISSING_OPERAND, a->tok.col, "missing operand: %s needs %s%s%s",
                o->name, sp->kind == K_REST ? "at least one " : "", sp->name, sp->kind == K_REST ? " word" : "");
  }
  if (a->pass == 2) {
    for (unsigned i = 0; i < rest->word; i++) a->out[hdr + 1 + i] = fixed[i];
    a->out[hdr] = SGPU_PKT_HEADER(o->opcode, rest->word + nrest, 0);
  }
  return 0;
}

static int statement_line(assembler *a) {
  int rc;
  if ((rc = next(a))) return rc;
  /* Labels. */
  while (a->tok.type == T_IDENT && peek_type(a) == T_COLON) {
    token l = a->tok;
    if (l.s[0] == '.')
      return fail(a, SGPU_ASM_ERR_SYNTAX, l.col, "a label cannot start with '.'");
    if (a->pass == 1) {
      if (opcode_by_name(l.s, l.n))
        return fail(a, SGPU_ASM_ERR_SYNTAX, l.col, "'%.*s' is a mnemonic, not a label name",
                    (int)l.n, l.s);
      symbol *s = sym_find(&a->syms, l.s, l.n);
      if (s && s->line == 0)
        return fail(a, SGPU_ASM_ERR_DUPLICATE_SYMBOL, l.col, "label '%.*s' is a predefined symbol",
                    (int)(l.n > 60 ? 60 : l.n), l.s);
      if (s)
        return fail(a, SGPU_ASM_ERR_DUPLICATE_SYMBOL, l.col,
                    "label '%.*s' already defined on line %u", (int)(l.n > 60 ? 60 : l.n), l.s,
                    s->line);
      if (a->loc > UINT32_MAX)
        return fail(a, SGPU_ASM_ERR_RANGE, l.col, "label past the end of the address space");
      if ((rc = sym_add(&a->syms, l.s, l.n, (uint32_t)a->loc, a->line)))
        return fail(a, rc, l.col, "out of memory");
    }
    if ((rc = next(a)) || (rc = next(a))) return rc;
  }
  if (a->tok.type == T_END) return 0;
  if (a->tok.type != T_IDENT) {
    char buf[64];
    tok_text(&a->tok, buf, sizeof buf);
    return fail(a, SGPU_ASM_ERR_SYNTAX, a->tok.col, "expected a mnemonic, directive or label, found %s",
                buf);
  }
  if (a->tok.s[0] == '.') return directive(a);
  const opcode_spec *o = opcode_by_name(a->tok.s, a->tok.n);
  if (!o)
    return fail(a, SGPU_ASM_ERR_UNKNOWN_MNEMONIC, a->tok.col, "unknown mnemonic '%.*s'",
                (int)(a->tok.n > 40 ? 40 : a->tok.n), a->tok.s);
  return o->variable ? variable_instruction(a, o) : instruction(a, o);
}

static int run_pass(assembler *a, const char *text, size_t len, uint32_t base) {
  a->loc = base;
  a->line = 0;
  size_t p = 0;
  while (p < len || (p == len && a->line == 0 && len == 0)) {
    if (len == 0) break;
    size_t e = p;
    while (e < len && text[e] != '\n') e++;
    a->line++;
    a->ls = text + p;
    /* Strip the comment. */
    size_t ll = 0;
    while (p + ll < e && text[p + ll] != ';' && text[p + ll] != '#') ll++;
    a->ll = ll;
    a->pos = 0;
    int rc = statement_line(a);
    if (rc) return rc;
    if (a->tok.type != T_END) {
      char buf[64];
      tok_text(&a->tok, buf, sizeof buf);
      return fail(a, SGPU_ASM_ERR_SYNTAX, a->tok.col, "unexpected %s", buf);
    }
    p = e + 1;
  }
  return 0;
}

int sgpu_asm_assemble(const char *text, size_t len, const char *filename, uint32_t base,
                      uint32_t **words, size_t *count, sgpu_asm_error *err) {
  sgpu_asm_options o = {base, NULL, 0};
  return sgpu_asm_assemble_ex(text, len, filename, &o, words, count, err);
}

static bool valid_symbol_name(const char *s) {
  if (!s || !is_ident_start(s[0]) || s[0] == '.') return false;
  for (size_t i = 1; s[i]; i++)
    if (!is_ident_char(s[i])) return false;
  return true;
}

int sgpu_asm_assemble_ex(const char *text, size_t len, const char *filename,
                         const sgpu_asm_options *options, uint32_t **words, size_t *count,
                         sgpu_asm_error *err) {
  static const sgpu_asm_options none = {0, NULL, 0};
  if (!options) options = &none;
  uint32_t base = options->base;
  if (err) memset(err, 0, sizeof *err);
  assembler a;
  memset(&a, 0, sizeof a);
  a.file = filename ? filename : "<input>";
  a.err = err;
  if ((!text && len) || !words || !count) {
    a.line = 0;
    return fail(&a, SGPU_ASM_ERR_INVALID_ARG, 0, "invalid argument to sgpu_asm_assemble");
  }
  if (len > SGPU_ASM_MAX_TEXT)
    return fail(&a, SGPU_ASM_ERR_TOO_LARGE, 0, "input of %zu bytes is over the limit (at most %u bytes)",
                len, SGPU_ASM_MAX_TEXT);
  if (base & 3u)
    return fail(&a, SGPU_ASM_ERR_RANGE, 0, "base address 0x%x is not 4-byte aligned", base);
  int rc;
  if (options->symbol_count && !options->symbols) {
    a.line = 0;
    return fail(&a, SGPU_ASM_ERR_INVALID_ARG, 0, "symbol_count without symbols");
  }
  for (size_t i = 0; i < options->symbol_count; i++) {
    const char *nm = options->symbols[i].name;
    if (!valid_symbol_name(nm)) {
      sym_free(&a.syms);
      return fail(&a, SGPU_ASM_ERR_INVALID_ARG, 0, "predefined symbol name '%s' is not valid",
                  nm ? nm : "(null)");
    }
    if (sym_find(&a.syms, nm, strlen(nm))) {
      sym_free(&a.syms);
      return fail(&a, SGPU_ASM_ERR_DUPLICATE_SYMBOL, 0, "predefined symbol '%s' given twice", nm);
    }
    if ((rc = sym_add(&a.syms, nm, strlen(nm), options->symbols[i].value, 0))) {
      sym_free(&a.syms);
      return fail(&a, rc, 0, "out of memory");
    }
  }
  a.pass = 1;
  rc = run_pass(&a, text, len, base);
  if (!rc) {
    a.pass = 2;
    rc = run_pass(&a, text, len, base);
  }
  if (!rc && a.nout > SGPU_ASM_MAX_WORDS)
    rc = fail(&a, SGPU_ASM_ERR_TOO_LARGE, 0, "output of %zu words is over the limit (at most %u words)",
              a.nout, SGPU_ASM_MAX_WORDS);
  sym_free(&a.syms);
  if (rc) {
    free(a.out);
    return rc;
  }
  if (!a.out) { /* empty output: return a valid pointer anyway */
    a.out = malloc(sizeof(uint32_t));
    if (!a.out) return fail(&a, SGPU_ASM_ERR_NO_MEMORY, 0, "out of memory");
  }
  *words = a.out;
  *count = a.nout;
  return 0;
}

/* ---------------------------------------------------------- disassembler */

typedef struct strbuf {
  char *s;
  size_t n, cap;
  bool oom;
} strbuf;

static void sb_vprintf(strbuf *b, const char *fmt, va_list ap) {
  if (b->oom) return;
  va_list ap2;
  va_copy(ap2, ap);
  int need = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (need < 0) { b->oom = true; return; }
  if (b->n + (size_t)need + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + (size_t)need + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) { b->oom = true; return; }
    b->s = p;
    b->cap = cap;
  }
  vsnprintf(b->s + b->n, (size_t)need + 1, fmt, ap);
  b->n += (size_t)need;
}

static void sb_printf(strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(b, fmt, ap);
  va_end(ap);
}

static void put_value(strbuf *b, uint32_t v, int fmt) {
  if (fmt == FMT_HEX) sb_printf(b, "0x%x", v);
  else sb_printf(b, "%u", v);
}

/* Write the mnemonic form of the packet at w[0] (header valid, count words
 * available).  Returns false when the header is not one the assembler makes. */
static bool decode_packet(const uint32_t *w, size_t avail, strbuf *b, size_t *used) {
  uint32_t h = w[0];
  if (SGPU_PKT_GET(TYPE, h) != SGPU_PKT_TYPE3) return false;
  const opcode_spec *o = opcode_by_value(SGPU_PKT_GET(OPCODE, h));
  if (!o) return false;
  uint32_t count = SGPU_PKT_GET(COUNT, h);
  if (o->variable ? count < o->count : count != o->count) return false;
  if ((size_t)count + 1 > avail) return false;
  uint32_t flags = SGPU_PKT_GET(FLAGS, h);
  uint32_t known = 0;
  for (size_t i = 0; i < o->nops; i++)
    if (o->ops[i].kind == K_FLAG || o->ops[i].kind == K_FUNC) known |= o->ops[i].bit;
  if (flags & ~known) return false;
  const uint32_t *p = w + 1;
  sb_printf(b, "%s", o->name);
  bool first = true;
  for (size_t i = 0; i < o->nops; i++) {
    const operand_spec *sp = &o->ops[i];
    uint32_t v = 0;
    switch (sp->kind) {
    case K_WORD: v = p[sp->word]; break;
    case K_LO16: v = p[sp->word] & 0xFFFFu; break;
    case K_HI16: v = p[sp->word] >> 16; break;
    case K_FLAG:
      if (flags & sp->bit) {
        sb_printf(b, "%s%s", first ? " " : ", ", sp->name);
        first = false;
      }
      continue;
    case K_FUNC: v = (flags & sp->bit) / field_unit(sp->bit); break;
    case K_REST:
      for (uint32_t k = sp->word; k < count; k++) {
        sb_printf(b, "%s0x%x", first ? " " : ", ", p[k]);
        first = false;
      }
      continue;
    }
    sb_printf(b, "%s", first ? " " : ", ");
    first = false;
    if (sp->optional) sb_printf(b, "%s=", sp->name);
    const char *vname = NULL;
    if (sp->kind == K_FUNC && sp->values)
      for (const named_value *nv = sp->values; nv->name; nv++)
        if (nv->value == v) vname = nv->name;
    if (vname) sb_printf(b, "%s", vname);
    else put_value(b, v, sp->fmt);
  }
  *used = (size_t)count + 1;
  return true;
}

/* Decode one line: either a packet (returns its word count, *packet = true)
 * or one word that is not the start of a well-formed packet (returns 1). */
static size_t disasm_unit(const uint32_t *w, size_t avail, strbuf *line, bool *packet) {
  size_t used = 0;
  size_t mark = line->n;
  *packet = false;
  if (decode_packet(w, avail, line, &used) && !line->oom) {
    /* Check: assembling the line must give back the same words. */
    uint32_t *re = NULL;
    size_t nre = 0;
    int rc = sgpu_asm_assemble(line->s + mark, line->n - mark, NULL, 0, &re, &nre, NULL);
    bool same = rc == 0 && nre == used && memcmp(re, w, used * sizeof(uint32_t)) == 0;
    free(re);
    if (rc == SGPU_ASM_ERR_NO_MEMORY) line->oom = true;
    if (same) {
      *packet = true;
      return used;
    }
  }
  line->n = mark;
  if (line->s) line->s[mark] = '\0';
  return 1;
}

int sgpu_disasm_one(const uint32_t *words, size_t count, char *buf, size_t size) {
  if (!words || count == 0 || !buf || size == 0) return SGPU_ASM_ERR_INVALID_ARG;
  strbuf b = {0};
  bool packet;
  size_t used = disasm_unit(words, count, &b, &packet);
  if (!packet) sb_printf(&b, ".word 0x%08x", words[0]);
  if (b.oom) {
    free(b.s);
    return SGPU_ASM_ERR_NO_MEMORY;
  }
  snprintf(buf, size, "%s", b.s);
  free(b.s);
  return (int)used;
}

#define WORDS_PER_DOT_WORD 4

int sgpu_disasm(const uint32_t *words, size_t count, uint32_t base, unsigned flags,
                char **text, size_t *len) {
  if ((!words && count) || !text || !len) return SGPU_ASM_ERR_INVALID_ARG;
  if (count > SGPU_ASM_MAX_WORDS) return SGPU_ASM_ERR_TOO_LARGE;
  /* The words must fit below 4 GiB from base, as the assembler requires. */
  if (count > (0x100000000ull - base) / 4) return SGPU_ASM_ERR_RANGE;
  strbuf b = {0};
  if (flags & SGPU_DISASM_ORG) sb_printf(&b, ".org 0x%x\n", base);
  size_t i = 0;
  size_t raw = 0; /* .word values on the current line */
  uint32_t raw_addr = 0;
  while (i < count && !b.oom) {
    size_t mark = b.n;
    bool packet;
    size_t used;
    used = disasm_unit(words + i, count - i, &b, &packet);
    if (packet) {
      if (raw) {
        /* Close the pending .word line first: move the packet text after it. */
        size_t plen = b.n - mark;
        char *tmp = malloc(plen + 1);
        if (!tmp) { b.oom = true; break; }
        memcpy(tmp, b.s + mark, plen);
        tmp[plen] = '\0';
        b.n = mark;
        if (flags & SGPU_DISASM_ADDRESSES) sb_printf(&b, "  ; 0x%08x", raw_addr);
        sb_printf(&b, "\n%s", tmp);
        free(tmp);
        raw = 0;
      }
      if (flags & SGPU_DISASM_ADDRESSES)
        sb_printf(&b, "  ; 0x%08x", (uint32_t)(base + 4u * (uint32_t)i));
      sb_printf(&b, "\n");
      i += used;
      continue;
    }
    if (raw == 0) {
      raw_addr = (uint32_t)(base + 4u * (uint32_t)i);
      sb_printf(&b, ".word 0x%08x", words[i]);
    } else {
      sb_printf(&b, ", 0x%08x", words[i]);
    }
    raw++;
    i++;
    if (raw == WORDS_PER_DOT_WORD) {
      if (flags & SGPU_DISASM_ADDRESSES) sb_printf(&b, "  ; 0x%08x", raw_addr);
      sb_printf(&b, "\n");
      raw = 0;
    }
  }
  if (raw) {
    if (flags & SGPU_DISASM_ADDRESSES) sb_printf(&b, "  ; 0x%08x", raw_addr);
    sb_printf(&b, "\n");
  }
  if (!b.s) sb_printf(&b, "%s", "");
  if (b.oom) {
    free(b.s);
    return SGPU_ASM_ERR_NO_MEMORY;
  }
  *text = b.s;
  *len = b.n;
  return 0;
}
