/* sgpu_asm.h — sgpu command-stream assembler and disassembler (part of libsgpu).
 *
 * Text <-> 32-bit command words, round-trip exact:
 *   - sgpu_asm_assemble(sgpu_disasm(words)) == words for ANY word sequence
 *     (words that do not form a well-formed packet come out as `.word`);
 *   - sgpu_disasm(sgpu_asm_assemble(text)) reassembles to identical words.
 *
 * Syntax (one statement per line; `;` or `#` start a comment):
 *
 *     label:                          ; a label is the address of the next word
 *     .org 0x1000                     ; the next word lives at GPU address 0x1000
 *     .equ FB0, 0x40000               ; a named constant (also `.set`)
 *     .word 0xc0000000, 1, 2          ; raw words
 *     nop [WORD, ...]                 ; padding; operands are its payload words
 *     indirect ADDR, LENGTH [, fence=ID] [, skip]
 *     fence ADDR, VALUE [, irq]
 *     write_data ADDR, WORD [, WORD ...]
 *     wait_mem ADDR [, mask=M] [, ref=R] [, func=eq|ne|lt|le|gt|ge|geq_wrap]
 *     wait_vsync SOURCE
 *     wait_scanline SOURCE, FIRST, LAST
 *     fill DST, PITCH, WIDTH_BYTES, HEIGHT, PATTERN
 *     copy DST, DST_PITCH, SRC, SRC_PITCH, WIDTH_BYTES, HEIGHT
 *     flip SOURCE, ADDR [, interval=0..5|immediate|one|..] [, nowait]
 *     context ID, BASE, SIZE
 *     timestamp ADDR
 *
 * Every operand may also be written by name (`fill dst=0x40000, pitch=640, ...`);
 * optional operands have defaults (fence=0, mask=0xffffffff, ref=0, func=eq,
 * interval=1).  Numbers are decimal, 0x hex or 0b binary; expressions combine
 * numbers, labels and .equ names with + - * / % << >> & | ^ ~ and parentheses.
 * Mnemonics, directives, flags and value names are case-insensitive; labels
 * are case-sensitive.  A bare word equal to a flag of the packet (skip, irq,
 * nowait) is that flag, not a label.  A value must fit its field (32 bits —
 * negative numbers down to -2^31 are stored as two's complement —, 16 bits
 * for scanlines, SGPU_MAX_BLIT_DIM for blit sizes, SGPU_MAX_SOURCES for
 * display sources, 0..5 for flip intervals).
 *
 * No global state; every function is thread-safe.
 */
#ifndef SGPU_ASM_H
#define SGPU_ASM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes (negative, distinct; a range of their own so they never collide
 * with the library's sgpu_strerror() codes). */
enum sgpu_asm_status {
  SGPU_ASM_OK = 0,
  SGPU_ASM_ERR_INVALID_ARG = -200,      /* NULL pointer or bad argument to the API */
  SGPU_ASM_ERR_NO_MEMORY = -201,        /* out of memory */
  SGPU_ASM_ERR_SYNTAX = -202,           /* unexpected character or token */
  SGPU_ASM_ERR_UNKNOWN_MNEMONIC = -203, /* not an opcode name */
  SGPU_ASM_ERR_UNKNOWN_DIRECTIVE = -204,/* not .org/.word/.equ/.set */
  SGPU_ASM_ERR_BAD_NUMBER = -205,       /* malformed numeric literal */
  SGPU_ASM_ERR_MISSING_OPERAND = -206,  /* a required operand is absent */
  SGPU_ASM_ERR_EXTRA_OPERAND = -207,    /* more operands than the packet has */
  SGPU_ASM_ERR_UNKNOWN_OPERAND = -208,  /* name=value with a name the packet lacks */
  SGPU_ASM_ERR_DUPLICATE_OPERAND = -209,/* an operand given twice */
  SGPU_ASM_ERR_RANGE = -210,            /* value does not fit its field */
  SGPU_ASM_ERR_UNDEFINED_SYMBOL = -211, /* label or .equ name never defined */
  SGPU_ASM_ERR_DUPLICATE_SYMBOL = -212, /* label or .equ name defined twice */
  SGPU_ASM_ERR_TOO_LARGE = -213,        /* input or output over the size limit */
  SGPU_ASM_ERR_DIV_ZERO = -214,         /* division or modulo by zero in an expression */
  SGPU_ASM_ERR_TOO_DEEP = -215,         /* expression nested deeper than SGPU_ASM_MAX_NESTING */
};

/* Where and why assembly failed.  `message` is one line, no newline:
 * "FILE:LINE:COLUMN: error: WHAT" (FILE is the name given, "<input>" if NULL). */
typedef struct sgpu_asm_error {
  int code;        /* one of sgpu_asm_status */
  unsigned line;   /* 1-based; 0 when not tied to a line */
  unsigned column; /* 1-based */
  char message[320];
} sgpu_asm_error;

/* Largest input text and output stream the assembler accepts (inclusive:
 * exactly SGPU_ASM_MAX_TEXT bytes are accepted, one more is not). */
#define SGPU_ASM_MAX_TEXT (64u * 1024u * 1024u)
#define SGPU_ASM_MAX_WORDS (16u * 1024u * 1024u)
/* Deepest nesting of an expression: parentheses and unary operators (- ~ +)
 * together, e.g. `((1))` and `-(1)` are 2 levels.  A deeper one is refused
 * with SGPU_ASM_ERR_TOO_DEEP (the parser recurses once per level, so the
 * limit bounds its stack use whatever the input). */
#define SGPU_ASM_MAX_NESTING 64u

/* Assemble `len` bytes of text (need not be NUL-terminated).  `base` is the
 * GPU address of the first word unless a `.org` says otherwise; labels take
 * addresses from it.  On success *words (malloc'd, free() it) and *count are
 * set and 0 returned.  On failure a negative sgpu_asm_status is returned,
 * *err (if not NULL) says where and why, and *words / *count are untouched. */
int sgpu_asm_assemble(const char *text, size_t len, const char *filename, uint32_t base,
                      uint32_t **words, size_t *count, sgpu_asm_error *err);

/* Predefined symbols and base for sgpu_asm_assemble_ex() (the CLI defines
 * FB0, FB1, SCRATCH... this way).  Names must be valid symbol names. */
typedef struct sgpu_asm_symbol {
  const char *name;
  uint32_t value;
} sgpu_asm_symbol;

typedef struct sgpu_asm_options {
  uint32_t base;                  /* as `base` above */
  const sgpu_asm_symbol *symbols; /* may be NULL when symbol_count is 0 */
  size_t symbol_count;
} sgpu_asm_options;

/* sgpu_asm_assemble with predefined symbols (NULL options = base 0, none).
 * A label or .equ of the same name is a SGPU_ASM_ERR_DUPLICATE_SYMBOL. */
int sgpu_asm_assemble_ex(const char *text, size_t len, const char *filename,
                         const sgpu_asm_options *options, uint32_t **words, size_t *count,
                         sgpu_asm_error *err);

/* Disassembly options (bit mask). */
#define SGPU_DISASM_ADDRESSES 0x1u /* end each line with "; 0xADDRESS" (comment) */
#define SGPU_DISASM_ORG 0x2u       /* start with ".org BASE" */

/* Disassemble `count` words to text, one packet per line, each ending in
 * '\n'.  *text is malloc'd and NUL-terminated (free() it); *len excludes the
 * NUL.  `base` is the address of words[0] (used by the options above).
 * Returns 0 or SGPU_ASM_ERR_INVALID_ARG / SGPU_ASM_ERR_NO_MEMORY /
 * SGPU_ASM_ERR_TOO_LARGE, or SGPU_ASM_ERR_RANGE when the words would run past
 * the 32-bit address space from base (the assembler refuses such code). */
int sgpu_disasm(const uint32_t *words, size_t count, uint32_t base, unsigned flags,
                char **text, size_t *len);

/* Decode the packet at words[0] (of `count` available) into one line in buf
 * (NUL-terminated, no newline; truncated to size).  Returns the number of
 * words the line covers (>= 1), or a negative sgpu_asm_status.  A line for
 * a well-formed packet is its mnemonic form; otherwise `.word 0x...`. */
int sgpu_disasm_one(const uint32_t *words, size_t count, char *buf, size_t size);

/* Name of an opcode value ("fill"), or NULL when it is not defined. */
const char *sgpu_asm_opcode_name(uint32_t opcode);

/* Static text for an sgpu_asm_status code. */
const char *sgpu_asm_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
