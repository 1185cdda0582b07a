/* alloc.h — the segment allocator (owned by alloc.c): each segment's
 * blocks, sorted by address; segment 0's blocks carry their host memory. */
#ifndef SGPU_ALLOC_H
#define SGPU_ALLOC_H

#include "internal.h"

/* Allocate size bytes aligned to align (0: 4) in segment s; internal blocks
 * are the library's (sgpu_free refuses them). */
int sgpu__seg_alloc(sgpu_device *dev, uint32_t seg, uint32_t size, uint32_t align, int internal,
                    uint64_t *addr);
/* Insert block [addr, addr+size) at index i of seg's sorted list (growing
 * it); counts its word-rounded size as used.  host: segment 0's memory. */
int sgpu__seg_insert(sgpu_device *dev, sgpu_segment *seg, size_t i, uint64_t addr, uint32_t size,
                     int internal, uint8_t *host);
/* The segment-0 block that holds [addr, addr+size), or NULL. */
sgpu_block *sgpu__host_block(sgpu_device *dev, uint64_t addr, uint64_t size);
/* The first block the library reserved (internal) in segments 1/2 that
 * overlaps [addr, addr+size), or NULL. */
const sgpu_block *sgpu__reserved_block(const sgpu_device *dev, uint64_t addr, uint64_t size);
/* What a reserved block is: "node 0's ring", "the boot identity block"... */
void sgpu__block_name(const sgpu_device *dev, const sgpu_block *b, char *buf, size_t size);
/* The block of segment 1 or 2 allocated with sgpu_alloc (not the library's)
 * that holds [addr, addr+size), or NULL. */
sgpu_block *sgpu__gpu_block(sgpu_device *dev, uint64_t addr, uint64_t size);
/* Free a block the library reserved (internal) that starts at addr. */
void sgpu__seg_free_internal(sgpu_device *dev, uint64_t addr);
/* Free every block and list (closing the device). */
void sgpu__seg_free_all(sgpu_device *dev);

#endif
