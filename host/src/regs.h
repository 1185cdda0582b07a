/* regs.h — register access for the device core (owned by regs.c): through
 * the transport, a failure worded in the device's error text. */
#ifndef SGPU_REGS_H
#define SGPU_REGS_H

#include "internal.h"

int sgpu__reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value);
int sgpu__reg_write(sgpu_device *dev, uint32_t offset, uint32_t value);
/* After writes to configuration registers: 0, or SGPU_ERROR_IO (CFG_ERROR
 * cleared) naming the register the chip rejected; `what` says when. */
int sgpu__check_cfg_error(sgpu_device *dev, const char *what);

#endif
