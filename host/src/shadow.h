/* shadow.h — the library's write-through copy of GPU memory (owned by
 * shadow.c). */
#ifndef SGPU_SHADOW_H
#define SGPU_SHADOW_H

#include "internal.h"

/* Bytes the library wrote to (or read from) GPU memory. */
void sgpu__shadow_note(sgpu_device *dev, uint32_t address, const void *data, uint32_t size);
/* Whole words at a word-aligned address, from the shadow where known, else
 * read from the device first; *view points into the shadow and stays valid
 * until the next write or read through the library. */
int sgpu__shadow_view(sgpu_device *dev, uint32_t address, uint32_t size, const uint32_t **view);
void sgpu__shadow_free(sgpu_device *dev);

#endif
