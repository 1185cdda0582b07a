/* events.h — the interrupt service and the wait for a condition (owned by
 * events.c, which also has the public waits, events and reset). */
#ifndef SGPU_EVENTS_H
#define SGPU_EVENTS_H

#include "internal.h"

/* Read and clear INT_STATUS: retire, fault, preemption and vsync events. */
int sgpu__service_irq(sgpu_device *dev);
/* 1: done, 0: not yet, < 0: an error code. */
typedef int (*sgpu_wait_pred)(sgpu_device *dev, const void *arg);
/* Advance time until pred() holds, servicing interrupts, up to `cycles`
 * (SGPU_ERROR_TIMEOUT).  Called with the device lock held; with `unlock`
 * the lock is released while time advances. */
int sgpu__wait_until(sgpu_device *dev, uint64_t cycles, sgpu_wait_pred pred, const void *arg,
                     int unlock);

#endif
