/* evq.c — the device's event queue (evq.h). */
#include <stdlib.h>
#include <string.h>

#include "evq.h"

void *sgpu__queue_grow(void *items, size_t size, size_t *head, size_t count, size_t *cap) {
  size_t ncap = *cap ? *cap * 2 : 64;
  uint8_t *nq = malloc(ncap * size), *old = items;
  if (!nq) return NULL;
  for (size_t i = 0; i < count; i++) memcpy(nq + i * size, old + ((*head + i) % *cap) * size, size);
  free(old);
  *cap = ncap;
  *head = 0;
  return nq;
}

void sgpu__push_event(sgpu_device *dev, const sgpu_event *ev) {
  if (dev->ev_count == dev->ev_cap) {
    if (dev->ev_cap >= SGPU_EVENT_QUEUE_MAX) { /* full: drop the oldest */
      dev->ev_head = (dev->ev_head + 1) % dev->ev_cap;
      dev->ev_count--;
      dev->stats.events_lost++;
    } else {
      sgpu_event *nq = sgpu__queue_grow(dev->evq, sizeof *dev->evq, &dev->ev_head, dev->ev_count,
                                        &dev->ev_cap);
      if (!nq) {
        dev->stats.events_lost++;
        return;
      }
      dev->evq = nq;
    }
  }
  dev->evq[(dev->ev_head + dev->ev_count) % dev->ev_cap] = *ev;
  dev->ev_count++;
}

sgpu_event sgpu__event_of(sgpu_event_type type, const sgpu_node *ring, uint64_t cycle,
                          const sgpu_pending *p) {
  sgpu_event ev;
  memset(&ev, 0, sizeof ev);
  ev.type = type;
  if (ring) {
    ev.node_ordinal = ring->node;
    ev.priority = ring->priority;
  }
  ev.cycle = cycle;
  if (p) {
    ev.fence_id = p->fence32;
    ev.fence_id64 = p->fence64;
    ev.flags = p->flags;
    ev.private_data = p->priv;
    ev.private_data_size = p->priv_size;
  }
  return ev;
}

int sgpu__pop_event(sgpu_device *dev, sgpu_event *ev) {
  if (!dev->ev_count) return 0;
  *ev = dev->evq[dev->ev_head];
  dev->ev_head = (dev->ev_head + 1) % dev->ev_cap;
  dev->ev_count--;
  return 1;
}

void sgpu__evq_free(sgpu_device *dev) {
  free(dev->evq);
  dev->evq = NULL;
  dev->ev_head = dev->ev_count = dev->ev_cap = 0;
}
