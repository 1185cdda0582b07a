/* hwinfo.c — the generated interface tables (sgpu_hw_tables.h) and their
 * accessors: packets, fault names, error messages, registers. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The one file that holds the tables' data. */
#define SGPU_HW_TABLES_DATA
#include "packet_check.h"
#include "sgpu.h"

const char *sgpu_fault_name(uint32_t fault) {
  return fault < SGPU_FAULT_COUNT ? sgpu_hw_fault_names[fault] : "UNKNOWN";
}

const char *sgpu__error_message(int code) {
  for (size_t i = 0; i < sizeof sgpu_hw_errors / sizeof sgpu_hw_errors[0]; i++)
    if (sgpu_hw_errors[i].code == code) return sgpu_hw_errors[i].message;
  return NULL;
}

int sgpu__error_of_fault(uint32_t fault) {
  for (size_t i = 0; i < sizeof sgpu_hw_fault_errors / sizeof sgpu_hw_fault_errors[0]; i++)
    if (sgpu_hw_fault_errors[i].fault == fault) return sgpu_hw_fault_errors[i].code;
  return SGPU_ERROR_INVALID_PARAM;
}

int sgpu__reg_is_read_only(uint32_t offset, char *buf, size_t size) {
  const char *name = sgpu_register_name(offset, buf, size);
  if (!name) return 0;
  char base[48];
  snprintf(base, sizeof base, "%s", name);
  char *at = strchr(base, '@');
  if (at) *at = '\0';
  for (size_t k = 0; k < sizeof sgpu_hw_regs / sizeof sgpu_hw_regs[0]; k++)
    if (strcmp(sgpu_hw_regs[k].name, base) == 0 && strcmp(sgpu_hw_regs[k].access, "ro") == 0) {
      if (name != buf) snprintf(buf, size, "%s", name);
      return 1;
    }
  return 0;
}

int sgpu_register_offset(const char *name, uint32_t index, uint32_t *offset) {
  if (!name || !offset) return SGPU_ERROR_INVALID_PARAM;
  for (size_t k = 0; k < sizeof sgpu_hw_regs / sizeof sgpu_hw_regs[0]; k++) {
    const sgpu_hw_reg *r = &sgpu_hw_regs[k];
    if (strcasecmp(r->name, name) != 0) continue;
    if (r->group == 0) {
      if (index) return SGPU_ERROR_INVALID_PARAM;
      *offset = r->offset;
    } else if (r->group == 1) {
      if (index >= SGPU_MAX_NODES) return SGPU_ERROR_INVALID_NODE;
      *offset = SGPU_NODE_REG(index, r->offset);
    } else {
      if (index >= SGPU_MAX_SOURCES) return SGPU_ERROR_INVALID_SOURCE;
      *offset = SGPU_SOURCE_REG(index, r->offset);
    }
    return 0;
  }
  return SGPU_ERROR_INVALID_ADDRESS;
}

int sgpu_register_is_global(const char *name) {
  for (size_t k = 0; k < sizeof sgpu_hw_regs / sizeof sgpu_hw_regs[0]; k++)
    if (name && strcasecmp(sgpu_hw_regs[k].name, name) == 0) return sgpu_hw_regs[k].group == 0;
  return 0;
}

const char *sgpu_register_name(uint32_t offset, char *buf, size_t size) {
  for (size_t k = 0; k < sizeof sgpu_hw_regs / sizeof sgpu_hw_regs[0]; k++) {
    const sgpu_hw_reg *r = &sgpu_hw_regs[k];
    uint32_t base = sgpu_hw_reg_groups[r->group].base;
    uint32_t stride = sgpu_hw_reg_groups[r->group].stride;
    uint32_t count = sgpu_hw_reg_groups[r->group].count;
    if (r->group == 0) {
      if (r->offset == offset) return r->name;
    } else if (offset >= base && offset < base + count * stride && (offset - base) % stride == r->offset) {
      snprintf(buf, size, "%s@%u", r->name, (offset - base) / stride);
      return buf;
    }
  }
  return NULL;
}
