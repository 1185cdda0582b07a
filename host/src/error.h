/* error.h — error codes' text and each device's error text (owned by
 * error.c; the bottom of the device core: every other core file uses it).
 *
 * The text of a failed call is kept per device and per thread: a slot for
 * each thread that had a call fail on the device, found by pthread_self()
 * in a list under the list's own mutex.  Only its thread writes a slot, and
 * a slot never moves or goes away before the device is closed, so the
 * pointer sgpu_last_error returns stays valid until that thread's next call
 * on the device, whatever other threads do meanwhile (sgpu.h). */
#ifndef SGPU_ERROR_H
#define SGPU_ERROR_H

#include <pthread.h>

#include "sgpu.h"

#define SGPU_ERROR_TEXT_BYTES 512u

typedef struct sgpu_error_slot {
  struct sgpu_error_slot *next;
  pthread_t thread;
  char text[SGPU_ERROR_TEXT_BYTES];
} sgpu_error_slot;

typedef struct sgpu_errors {
  pthread_mutex_t mu;     /* the list, not the texts */
  sgpu_error_slot *slots; /* one per thread that failed a call on the device */
  /* Used by every thread when no slot could be allocated (out of host
   * memory): the text is then shared. */
  sgpu_error_slot spare;
} sgpu_errors;

void sgpu__errors_init(sgpu_errors *e);
void sgpu__errors_free(sgpu_errors *e);

/* Set the calling thread's error text of dev (when dev is not NULL) and
 * return code.  For SGPU_ERROR_IO the transport's own reason is appended. */
int sgpu__fail(sgpu_device *dev, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Empty the calling thread's error text of dev. */
void sgpu__clear_error(sgpu_device *dev);

#endif
