/* cmd_ring.c — `sgpu ring`: the packets of a node's ring between rptr and
 * wptr, disassembled, optionally following INDIRECT buffers. */
#include <stdlib.h>

#include "cli.h"

static int read_words(cli *c, uint64_t addr, uint32_t *w, size_t n) {
  int rc = sgpu_read(c->dev, addr, w, (uint32_t)(n * 4));
  if (rc) return cli_lib_fail(c, rc, "reading GPU memory");
  return 0;
}

/* A VM context's buffer [va, va + len) read page by page through the
 * directory at root: 0, or -1 when a page is not mapped or unreadable. */
static int read_virtual(cli *c, uint32_t root, uint32_t va, uint32_t *b, uint32_t len) {
  for (uint32_t off = 0; off < len;) {
    uint32_t pa = 0, a = va + off, n = SGPU_PAGE_BYTES - a % SGPU_PAGE_BYTES;
    if (n > len - off) n = len - off;
    if (cli_vm_translate(c, root, a, &pa) || sgpu_read(c->dev, pa, (uint8_t *)b + off, n)) return -1;
    off += n;
  }
  return 0;
}

/* Decode n words at GPU address `addr` (from `w`); with `follow`, recurse into
 * INDIRECT targets (depth-limited).  *vm_root: the page directory of the
 * context in force (0: physical), from the ring's CONTEXT packets: a VM
 * context's INDIRECT addresses are virtual ("va"), read through it. */
static int decode_span(cli *c, json *j, const uint32_t *w, size_t n, uint32_t ring_base, uint32_t ring_size,
                       uint32_t start_off, bool ring, bool follow, int depth, uint32_t *vm_root) {
  size_t i = 0;
  while (i < n) {
    char line[512];
    int used = sgpu_disasm_one(w + i, n - i, line, sizeof line);
    if (used < 1) return cli_fail(c, EXIT_DEVICE, "disassembly failed");
    uint32_t h0 = w[i];
    if (ring && used == 4 && SGPU_PKT_GET(OPCODE, h0) == SGPU_OP_CONTEXT)
      *vm_root = w[i + 1] && (SGPU_PKT_GET(FLAGS, h0) & SGPU_CONTEXT_FLAG_VM) ? w[i + 2] & ~(SGPU_PAGE_BYTES - 1) : 0;
    bool virt = *vm_root && used == 4 && SGPU_PKT_GET(OPCODE, h0) == SGPU_OP_INDIRECT;
    uint32_t addr = ring ? ring_base + (uint32_t)((start_off + 4 * i) & (ring_size - 1))
                         : start_off + (uint32_t)(4 * i);
    if (j) {
      json_obj(j, NULL);
      json_u64(j, "address", addr);
      json_u64(j, "depth", (uint64_t)depth);
      json_arr(j, "words");
      for (int k = 0; k < used; k++) json_u64(j, NULL, w[i + (size_t)k]);
      json_end_arr(j);
      json_str(j, "text", line);
      if (virt) json_bool(j, "virtual", true);
      json_end_obj(j);
    } else if (virt) {
      fprintf(c->out, "%*s0x%08x:  %s   ; va 0x%08x (VM context, directory 0x%08x)\n", 2 * depth, "", addr,
              line, w[i + 1], *vm_root);
    } else {
      fprintf(c->out, "%*s0x%08x:  %s\n", 2 * depth, "", addr, line);
    }
    uint32_t h = w[i];
    if (follow && depth < (int)SGPU_MAX_IB_DEPTH && used == 4 &&
        SGPU_PKT_GET(OPCODE, h) == SGPU_OP_INDIRECT && !(SGPU_PKT_GET(FLAGS, h) & SGPU_INDIRECT_FLAG_SKIP)) {
      uint32_t ib = w[i + 1], len = w[i + 2];
      if (len % 4 == 0 && len <= 65536 && !(ib & 3u)) {
        uint32_t *b = malloc(len ? len : 4);
        if (!b) return cli_fail(c, EXIT_DEVICE, "out of memory");
        if ((virt ? read_virtual(c, *vm_root, ib, b, len) : sgpu_read(c->dev, ib, b, len)) == 0) {
          int rc = decode_span(c, j, b, len / 4, 0, 0, ib, false, follow, depth + 1, vm_root);
          if (rc) {
            free(b);
            return rc;
          }
        } else if (!j) {
          fprintf(c->out, "%*s(buffer 0x%08x+%u not readable)\n", 2 * depth + 2, "", ib, len);
        }
        free(b);
      }
    }
    i += (size_t)used;
  }
  return 0;
}

int cmd_ring(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = 0;
  bool all = false, follow = false, pending = false;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (cli_opt_u32(c, argc, argv, &i, "--node", &node, &rc)) {
      if (rc) return rc;
    } else if (cli_opt(c, argc, argv, &i, "--all", NULL) > 0) {
      all = true;
    } else if (cli_opt(c, argc, argv, &i, "--follow", NULL) > 0) {
      follow = true;
    } else if (cli_opt(c, argc, argv, &i, "--pending", NULL) > 0) {
      pending = true;
    } else {
      return cli_unexpected_arg(c, argv[i]);
    }
  }
  if ((rc = cli_start_device(c, false, !pending))) return rc;
  sgpu_ring_info ri;
  if ((rc = sgpu_get_ring_info(c->dev, node, &ri))) return cli_lib_fail(c, rc, "reading the ring state");
  if (ri.size == 0 || (ri.size & (ri.size - 1)) || ri.rptr >= ri.size || ri.wptr >= ri.size)
    return cli_fail(c, EXIT_DEVICE, "node %u ring not set up (base 0x%x size %u rptr %u wptr %u)", node,
                    ri.base, ri.size, ri.rptr, ri.wptr);
  uint32_t from = all ? 0 : ri.rptr;
  uint32_t bytes = (ri.wptr - from) & (ri.size - 1);
  uint32_t *ringw = malloc(ri.size);
  if (!ringw) return cli_fail(c, EXIT_DEVICE, "out of memory");
  if ((rc = read_words(c, ri.base, ringw, ri.size / 4))) {
    free(ringw);
    return rc;
  }
  uint32_t *span = malloc(bytes ? bytes : 4);
  if (!span) {
    free(ringw);
    return cli_fail(c, EXIT_DEVICE, "out of memory");
  }
  for (uint32_t k = 0; k < bytes / 4; k++) span[k] = ringw[((from / 4) + k) & (ri.size / 4 - 1)];
  free(ringw);
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_u64(&j, "node", node);
    json_u64(&j, "base", ri.base);
    json_u64(&j, "size", ri.size);
    json_u64(&j, "rptr", ri.rptr);
    json_u64(&j, "wptr", ri.wptr);
    json_u64(&j, "status", ri.status);
    json_u64(&j, "from", from);
    json_arr(&j, "packets");
  } else {
    fprintf(c->out, "node %u ring: base 0x%08x size %u rptr 0x%x wptr 0x%x status 0x%x%s%s\n", node, ri.base,
            ri.size, ri.rptr, ri.wptr, ri.status, ri.status & SGPU_STATUS_BUSY ? " BUSY" : "",
            ri.status & SGPU_STATUS_FAULTED ? " FAULTED" : "");
    if (bytes == 0) fprintf(c->out, "(empty: nothing between 0x%x and wptr; --all shows the history)\n", from);
  }
  /* the context in force at rptr: the node's (VM_ROOT; 0 without CAPS.VM) */
  uint32_t vm_root = 0, off = 0;
  if (!all && sgpu_register_offset("VM_ROOT", node, &off) == 0) sgpu_reg_read(c->dev, off, &vm_root);
  rc = decode_span(c, c->json ? &j : NULL, span, bytes / 4, ri.base, ri.size, from, true, follow, 0, &vm_root);
  free(span);
  if (rc) return rc;
  if (c->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  return 0;
}
