/* regs.c — register access: the core's (regs.h) and the public
 * sgpu_reg_read / sgpu_reg_write. */
#include "packet_check.h"
#include "regs.h"
#include "remote.h"

int sgpu__reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value) {
  int r = dev->tr->ops->reg_read(dev->tr, offset, value);
  if (r) return sgpu__fail(dev, r, "register read of offset 0x%03x failed", offset);
  return 0;
}

int sgpu__reg_write(sgpu_device *dev, uint32_t offset, uint32_t value) {
  int r = dev->tr->ops->reg_write(dev->tr, offset, value);
  if (r) return sgpu__fail(dev, r, "register write of offset 0x%03x failed", offset);
  return 0;
}

int sgpu__check_cfg_error(sgpu_device *dev, const char *what) {
  uint32_t e = 0, a = 0;
  int r = sgpu__reg_read(dev, SGPU_REG_CFG_ERROR, &e);
  if (r) return r;
  if (!e) return 0;
  sgpu__reg_read(dev, SGPU_REG_CFG_ERROR_ADDR, &a);
  sgpu__reg_write(dev, SGPU_REG_CFG_ERROR, e);
  return sgpu__fail(dev, SGPU_ERROR_IO, "%s: the chip rejected a write to register 0x%03x (CFG_ERROR 0x%x)",
                    what, a, e);
}

int sgpu_reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value) {
  if (!dev || !value) return SGPU_ERROR_INVALID_PARAM;
  if (offset & 3 || offset > 0xFFF)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS, "register offset 0x%x is not a word in 0..0xfff",
                      offset);
  if (dev->remote) return sgpu__remote_reg_read(dev, offset, value);
  sgpu__lock(dev);
  int r = sgpu__reg_read(dev, offset, value);
  sgpu__unlock(dev);
  return r;
}

int sgpu_reg_write(sgpu_device *dev, uint32_t offset, uint32_t value) {
  if (!dev) return SGPU_ERROR_INVALID_PARAM;
  if (offset & 3 || offset > 0xFFF)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS, "register offset 0x%x is not a word in 0..0xfff",
                      offset);
  char name[48];
  if (sgpu__reg_is_read_only(offset, name, sizeof name))
    return sgpu__fail(dev, SGPU_ERROR_READ_ONLY,
                      "register %s (offset 0x%03x) is read-only: the write of 0x%08x was not sent",
                      name, offset, value);
  /* through sgpud the server writes SCRATCH only (docs/sgpud.md) */
  if (dev->remote) return sgpu__remote_reg_write(dev, offset, value);
  sgpu__lock(dev);
  int r = sgpu__reg_write(dev, offset, value);
  sgpu__unlock(dev);
  return r;
}
