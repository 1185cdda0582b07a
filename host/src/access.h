/* access.h — a context's memory access check (owned by device.c, called
 * by submit.c's packet walk): for sgpud, which lets a program's command
 * buffers reach only its own allocations.  The walk calls it for every
 * memory range a packet of a submission on the context reads or writes
 * (after the packet passed the hardware's own checks); a non-zero answer
 * refuses the submission with SGPU_ERROR_NOT_OWNER and the text the check
 * wrote in why.  Contexts have none unless it is set. */
#ifndef SGPU_ACCESS_H
#define SGPU_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu.h"

typedef int (*sgpu_access_fn)(void *user, uint64_t address, uint64_t size, int write, char *why,
                              size_t why_size);

void sgpu__context_set_access(sgpu_context *ctx, sgpu_access_fn fn, void *user);

#endif
