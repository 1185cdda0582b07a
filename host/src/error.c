/* error.c — sgpu_strerror, and each device's error text per thread
 * (error.h).  Uses only the generated tables (hwinfo.c) and the
 * assembler's messages when it is linked in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "packet_check.h"

/* Provided by asm.c (the assembler) when it is linked in. */
extern const char *sgpu_asm_strerror(int code) __attribute__((weak));

const char *sgpu_strerror(int code) {
  const char *m = sgpu__error_message(code);
  if (m) return m;
  if (code <= -200 && code > -300) {
    if (sgpu_asm_strerror) return sgpu_asm_strerror(code);
    return "assembler error";
  }
  return "unknown error code";
}

void sgpu__errors_init(sgpu_errors *e) {
  memset(e, 0, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
}

void sgpu__errors_free(sgpu_errors *e) {
  for (sgpu_error_slot *s = e->slots, *next; s; s = next) {
    next = s->next;
    free(s);
  }
  e->slots = NULL;
  pthread_mutex_destroy(&e->mu);
}

/* The calling thread's slot; with create, made when it has none (the
 * shared spare when out of memory); NULL when it has none. */
static sgpu_error_slot *slot_of(sgpu_errors *e, int create) {
  pthread_t self = pthread_self();
  pthread_mutex_lock(&e->mu);
  sgpu_error_slot *s = e->slots;
  while (s && !pthread_equal(s->thread, self)) s = s->next;
  if (!s && create) {
    s = calloc(1, sizeof *s);
    if (s) {
      s->thread = self;
      s->next = e->slots;
      e->slots = s;
    } else {
      s = &e->spare;
    }
  }
  pthread_mutex_unlock(&e->mu);
  return s;
}

int sgpu__fail(sgpu_device *dev, int code, const char *fmt, ...) {
  if (!dev) return code;
  sgpu_error_slot *s = slot_of(&dev->errors, 1);
  char *text = s->text;
  const size_t size = sizeof s->text;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(text, size, fmt, ap);
  va_end(ap);
  /* A transport failure: say what the transport saw. */
  const char *why = (code == SGPU_ERROR_IO || code == SGPU_ERROR_ADDRESS_REFUSED) && dev->tr && dev->tr->ops->why
                        ? dev->tr->ops->why(dev->tr)
                        : NULL;
  if (why && *why && n >= 0 && (size_t)n < size && !strstr(text, why))
    snprintf(text + n, size - (size_t)n, ": %s", why);
  return code;
}

void sgpu__clear_error(sgpu_device *dev) {
  sgpu_error_slot *s = dev ? slot_of(&dev->errors, 0) : NULL;
  if (s) s->text[0] = 0;
}

const char *sgpu_last_error(sgpu_device *dev) {
  if (!dev) return "no device";
  sgpu_error_slot *s = slot_of(&dev->errors, 0);
  return s ? s->text : "";
}
