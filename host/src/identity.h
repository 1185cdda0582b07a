/* identity.h — the boot identity block (owned by identity.c). */
#ifndef SGPU_IDENTITY_H
#define SGPU_IDENTITY_H

#include "internal.h"

/* Read and check the boot identity block, keep its range out of the
 * allocator; SGPU_ERROR_NO_FIRMWARE when there is none (id may be NULL). */
int sgpu__identity_probe(sgpu_device *dev, sgpu_identity *id);
/* The system clock of a board named in an identity block (SGPU_BOARD_*):
 * the rate its CYCLE counter counts at; SGPU_NOMINAL_CLOCK_HZ for none. */
uint32_t sgpu__board_clock_hz(uint32_t board);

#endif
