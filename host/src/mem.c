/* mem.c — sgpu_read, sgpu_write and sgpu_write_raw: segment-0 allocations
 * in host memory, GPU memory through the transport (noted in the shadow);
 * sgpu_write refuses the areas the library reserved. */
#include <string.h>

#include "remote.h"
#include "alloc.h"
#include "shadow.h"

static int mem_access(sgpu_device *dev, uint64_t address, void *rdata, const void *wdata,
                      uint32_t size, int raw) {
  if (size == 0) return 0;
  if (address >= SGPU_HOST_ADDRESS_BASE) {
    sgpu_block *b = sgpu__host_block(dev, address, size);
    if (!b)
      return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS,
                        "host range 0x%llx+%u is not inside one segment-0 allocation",
                        (unsigned long long)address, size);
    if (rdata) memcpy(rdata, b->host + (address - b->addr), size);
    else memcpy(b->host + (address - b->addr), wdata, size);
    return 0;
  }
  if (address > dev->mem_size || size > dev->mem_size - address)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_ADDRESS,
                      "GPU range 0x%llx+%u leaves GPU memory (%u bytes)",
                      (unsigned long long)address, size, dev->mem_size);
  if (wdata && !raw) {
    /* The rings, the rptr/fence words, the staging areas and the identity
     * block are the library's: a write there would break its bookkeeping. */
    const sgpu_block *b = sgpu__reserved_block(dev, address, size);
    if (b) {
      char name[48];
      sgpu__block_name(dev, b, name, sizeof name);
      return sgpu__fail(dev, SGPU_ERROR_RESERVED_ADDRESS,
                        "GPU range 0x%llx+%u overlaps %s (0x%llx+%u), reserved by the library "
                        "(sgpu_write_raw writes it anyway)",
                        (unsigned long long)address, size, name, (unsigned long long)b->addr,
                        b->size);
    }
  }
  int r = rdata ? dev->tr->ops->mem_read(dev->tr, (uint32_t)address, rdata, size)
                : dev->tr->ops->mem_write(dev->tr, (uint32_t)address, wdata, size);
  if (r)
    return sgpu__fail(dev, r, "GPU memory %s of 0x%llx+%u failed", rdata ? "read" : "write",
                      (unsigned long long)address, size);
  sgpu__shadow_note(dev, (uint32_t)address, rdata ? rdata : wdata, size);
  return 0;
}

int sgpu_write(sgpu_device *dev, uint64_t address, const void *data, uint32_t size) {
  if (!dev || (!data && size)) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_write(dev, address, data, size, 0);
  sgpu__lock(dev);
  int r = mem_access(dev, address, NULL, data, size, 0);
  sgpu__unlock(dev);
  return r;
}

int sgpu_write_raw(sgpu_device *dev, uint64_t address, const void *data, uint32_t size) {
  if (!dev || (!data && size)) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_write(dev, address, data, size, 1);
  sgpu__lock(dev);
  int r = mem_access(dev, address, NULL, data, size, 1);
  sgpu__unlock(dev);
  return r;
}

int sgpu_read(sgpu_device *dev, uint64_t address, void *data, uint32_t size) {
  if (!dev || (!data && size)) return SGPU_ERROR_INVALID_PARAM;
  if (dev->remote) return sgpu__remote_read(dev, address, data, size);
  sgpu__lock(dev);
  int r = mem_access(dev, address, data, NULL, size, 0);
  sgpu__unlock(dev);
  return r;
}
