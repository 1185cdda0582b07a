/* cmd_vm.c — `sgpu vm`: the mappings of a VM context, read from GPU memory
 * the way the hardware walks them (the page directory each node's VM_ROOT
 * names, or one given with --root), merged into runs; and the translation
 * `sgpu ring --follow` uses for a VM context's INDIRECT. */
#include <stdlib.h>

#include "cli.h"

/* One run of pages: [va, va + size) -> [pa, pa + size). */
typedef struct vm_run {
  uint32_t va, pa, size, writable;
} vm_run;

typedef struct vm_runs {
  vm_run *r;
  size_t n, cap;
} vm_runs;

static int add_page(vm_runs *rs, uint32_t va, uint32_t pa, uint32_t writable) {
  vm_run *last = rs->n ? &rs->r[rs->n - 1] : NULL;
  if (last && last->va + last->size == va && last->pa + last->size == pa && last->writable == writable) {
    last->size += SGPU_PAGE_BYTES;
    return 0;
  }
  if (rs->n == rs->cap) {
    size_t ncap = rs->cap ? rs->cap * 2 : 16;
    vm_run *nr = realloc(rs->r, ncap * sizeof *nr);
    if (!nr) return -1;
    rs->r = nr, rs->cap = ncap;
  }
  rs->r[rs->n++] = (vm_run){va, pa, SGPU_PAGE_BYTES, writable};
  return 0;
}

/* Directory entries the hardware reads: VAs stay below the memory size. */
static uint32_t dir_entries(uint32_t mem_size) {
  uint64_t span = (uint64_t)SGPU_PT_ENTRIES * SGPU_PAGE_BYTES, n = (mem_size + span - 1) / span;
  return n ? (uint32_t)n : 1;
}

static int walk_root(cli *c, uint32_t root, uint32_t mem_size, vm_runs *rs) {
  uint32_t nd = dir_entries(mem_size), dir[SGPU_PT_ENTRIES], *pt = malloc(SGPU_PAGE_BYTES);
  if (!pt) return cli_fail(c, EXIT_DEVICE, "out of memory");
  int rc = sgpu_read(c->dev, root, dir, nd * 4);
  for (uint32_t d = 0; !rc && d < nd; d++) {
    if (!(dir[d] & SGPU_PDE_VALID_MASK)) continue;
    uint32_t t = dir[d] & SGPU_PDE_TABLE_MASK & (mem_size - 1);
    if ((rc = sgpu_read(c->dev, t, pt, SGPU_PAGE_BYTES))) break;
    for (uint32_t k = 0; k < SGPU_PT_ENTRIES; k++) {
      uint64_t va = ((uint64_t)d * SGPU_PT_ENTRIES + k) * SGPU_PAGE_BYTES;
      if (va >= mem_size) break;
      if (!(pt[k] & SGPU_PTE_VALID_MASK)) continue;
      if (add_page(rs, (uint32_t)va, pt[k] & SGPU_PTE_FRAME_MASK & (mem_size - 1),
                   (pt[k] & SGPU_PTE_WRITABLE_MASK) != 0)) {
        free(pt);
        return cli_fail(c, EXIT_DEVICE, "out of memory");
      }
    }
  }
  free(pt);
  return rc ? cli_lib_fail(c, rc, "reading the page tables") : 0;
}

int cli_vm_translate(cli *c, uint32_t root, uint32_t va, uint32_t *pa) {
  sgpu_info in;
  if (sgpu_query_info(c->dev, &in) || va >= in.mem_size) return -1;
  uint32_t pde = 0, pte = 0;
  if (sgpu_read(c->dev, root + 4ull * (va / SGPU_PAGE_BYTES / SGPU_PT_ENTRIES), &pde, 4) ||
      !(pde & SGPU_PDE_VALID_MASK))
    return -1;
  uint64_t t = (pde & SGPU_PDE_TABLE_MASK & (in.mem_size - 1)) + 4ull * (va / SGPU_PAGE_BYTES % SGPU_PT_ENTRIES);
  if (sgpu_read(c->dev, t, &pte, 4) || !(pte & SGPU_PTE_VALID_MASK)) return -1;
  *pa = ((pte & SGPU_PTE_FRAME_MASK) | (va % SGPU_PAGE_BYTES)) & (in.mem_size - 1);
  return 0;
}

static void print_runs(cli *c, json *j, const vm_runs *rs) {
  for (size_t i = 0; i < rs->n; i++) {
    const vm_run *r = &rs->r[i];
    if (j) {
      json_obj(j, NULL);
      json_u64(j, "va", r->va);
      json_u64(j, "pa", r->pa);
      json_u64(j, "size", r->size);
      json_str(j, "access", r->writable ? "rw" : "r");
      json_end_obj(j);
    } else {
      fprintf(c->out, "  va 0x%08x-0x%08x -> pa 0x%08x-0x%08x  %s  %u page%s\n", r->va, r->va + r->size - 1,
              r->pa, r->pa + r->size - 1, r->writable ? "rw" : "r ", r->size / SGPU_PAGE_BYTES,
              r->size == SGPU_PAGE_BYTES ? "" : "s");
    }
  }
  if (!j && !rs->n) fprintf(c->out, "  (nothing mapped)\n");
}

int cmd_vm(cli *c, int argc, char **argv) {
  int rc = 0;
  uint32_t node = 0, root = 0;
  bool one_node = false, have_root = false;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    if (cli_opt_u32(c, argc, argv, &i, "--node", &node, &rc)) {
      if (rc) return rc;
      one_node = true;
    } else if (cli_opt_u32(c, argc, argv, &i, "--root", &root, &rc)) {
      if (rc) return rc;
      have_root = true;
    } else {
      return cli_unexpected_arg(c, argv[i]);
    }
  }
  if (have_root && one_node) return cli_fail(c, EXIT_USAGE, "--root and --node exclude each other");
  if ((rc = cli_start_device(c, false, true))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  if (!in.has_vm)
    return cli_fail(c, EXIT_DEVICE, "the device has no GPU virtual memory (CAPS.VM = 0): every context is "
                                    "physical, there are no page tables to show");
  if (have_root && (root % SGPU_PAGE_BYTES || root >= in.mem_size))
    return cli_fail(c, EXIT_USAGE, "--root 0x%x is not a page-aligned address of GPU memory (%u bytes)", root,
                    in.mem_size);
  if (one_node && node >= in.node_count)
    return cli_fail(c, EXIT_USAGE, "--node %u: the device has %u nodes", node, in.node_count);
  json j;
  if (c->json) {
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_arr(&j, "spaces");
  }
  uint32_t first = one_node ? node : 0, last = have_root ? 0 : one_node ? node : in.node_count - 1;
  for (uint32_t n = first; n <= last; n++) {
    uint32_t r = root;
    if (!have_root) {
      uint32_t off = 0;
      if ((rc = sgpu_register_offset("VM_ROOT", n, &off)) || (rc = sgpu_reg_read(c->dev, off, &r)))
        return cli_lib_fail(c, rc, "reading VM_ROOT");
      if (!r && one_node)
        return cli_fail(c, EXIT_DEVICE, "node %u's current context is physical (VM_ROOT 0): no page tables; "
                                        "--root ADDR walks a given page directory", n);
    }
    vm_runs rs = {NULL, 0, 0};
    if (r && (rc = walk_root(c, r, in.mem_size, &rs))) {
      free(rs.r);
      return rc;
    }
    if (c->json) {
      json_obj(&j, NULL);
      if (!have_root) json_u64(&j, "node", n);
      json_u64(&j, "root", r);
      json_bool(&j, "physical", r == 0);
      json_arr(&j, "mappings");
      print_runs(c, &j, &rs);
      json_end_arr(&j);
      json_end_obj(&j);
    } else if (!r) {
      fprintf(c->out, "node %u: physical context (VM_ROOT 0)\n", n);
    } else {
      if (have_root) fprintf(c->out, "page directory 0x%08x:\n", r);
      else fprintf(c->out, "node %u: page directory 0x%08x\n", n, r);
      print_runs(c, NULL, &rs);
    }
    free(rs.r);
  }
  if (c->json) {
    json_end_arr(&j);
    json_end_obj(&j);
    json_finish(&j);
  }
  return 0;
}
