/* evq.h — the device's event queue and the circular queues' growth (owned
 * by evq.c).  Below the ring and the interrupt service, which both push
 * events. */
#ifndef SGPU_EVQ_H
#define SGPU_EVQ_H

#include "internal.h"

/* A circular queue of count items of size bytes from *head, doubled (64 the
 * first time) into new storage with its items at the front in order: the
 * new storage (the old one freed), or NULL out of memory (all unchanged). */
void *sgpu__queue_grow(void *items, size_t size, size_t *head, size_t count, size_t *cap);
/* Queue an event (the oldest is dropped, and counted lost, when full). */
void sgpu__push_event(sgpu_device *dev, const sgpu_event *ev);
/* A cleared event of one kind, stamped with the ring's node and priority
 * (ring NULL: no node, a vsync) and the cycle, and with the fence, flags and
 * private data of submission p when there is one. */
sgpu_event sgpu__event_of(sgpu_event_type type, const sgpu_node *ring, uint64_t cycle,
                          const sgpu_pending *p);
/* Take the oldest event: 1, or 0 when there is none. */
int sgpu__pop_event(sgpu_device *dev, sgpu_event *ev);
void sgpu__evq_free(sgpu_device *dev);

#endif
