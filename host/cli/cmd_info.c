/* cmd_info.c — `sgpu info`: the device's versions, capabilities, memory
 * segments and display modes (the link's counters come from linkcmd.c). */
#include <string.h>

#include "cli.h"

/* The areas of GPU memory (sgpu_get_areas), the set-up's named. */
#define MAX_AREAS 256

static const char *kind_name(uint32_t k) {
  return k == SGPU_AREA_FREE ? "free" : k == SGPU_AREA_RESERVED ? "reserved" : "allocated";
}

/* Name of an allocated area: the set-up symbol at its address, or "". */
static const char *user_area_name(const cli *c, const sgpu_area *a) {
  if (a->kind != SGPU_AREA_ALLOCATED) return a->name;
  if (c->scratch && a->base == c->scratch) return "SCRATCH";
  if (c->fb_bytes && a->base == c->fb[0]) return "FB0";
  if (c->fb_bytes && a->base == c->fb[1]) return "FB1";
  return "";
}

static const char *format_name(uint32_t f) {
  return f == SGPU_FORMAT_RGB332 ? "RGB332" : f == SGPU_FORMAT_RGB565 ? "RGB565" : "?";
}

int cmd_info(cli *c, int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (cli_common_opt(c, argc, argv, &i, &rc)) {
      if (rc) return rc;
      continue;
    }
    return cli_unexpected_arg(c, argv[i]);
  }
  if ((rc = cli_start_device(c, false, true))) return rc;
  sgpu_info in;
  if ((rc = sgpu_query_info(c->dev, &in))) return cli_lib_fail(c, rc, "querying the device");
  static const char *const seg_names[] = {"system", "local", "aperture"};
  sgpu_identity id;
  int have_id = sgpu_read_identity(c->dev, &id) == 0;
  static sgpu_area areas[MAX_AREAS];
  int na = sgpu_get_areas(c->dev, areas, MAX_AREAS);
  int shared = !strcmp(in.transport, "sgpud");
  if (na < 0) return cli_lib_fail(c, na, "listing the memory areas");
  static sgpu_program_info progs[MAX_AREAS];
  int np = shared ? sgpu_list_programs(c->dev, progs, MAX_AREAS) : 0;
  if (np < 0) return cli_lib_fail(c, np, "listing the programs");
  if (np > MAX_AREAS) np = MAX_AREAS;
  if (na > MAX_AREAS) na = MAX_AREAS;
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_str(&j, "transport", in.transport);
    json_str(&j, "device", c->uri ? c->uri : "sim");
    json_u64(&j, "hw_version_major", in.hw_version_major);
    json_u64(&j, "hw_version_minor", in.hw_version_minor);
    json_u64(&j, "firmware_version", in.firmware_version);
    if (have_id) {
      json_obj(&j, "firmware");
      json_u64(&j, "version_major", id.fw_version >> 16);
      json_u64(&j, "version_minor", id.fw_version & 0xFFFFu);
      json_u64(&j, "board_id", id.board);
      json_str(&j, "board", id.board_name);
      json_u64(&j, "hw_version", id.hw_version);
      json_u64(&j, "caps", id.caps);
      json_u64(&j, "mem_size", id.mem_size);
      json_u64(&j, "screen_address", id.fb_base);
      json_u64(&j, "screen_width", id.fb_width);
      json_u64(&j, "screen_height", id.fb_height);
      json_end_obj(&j);
    }
    json_u64(&j, "caps", in.caps);
    json_u64(&j, "node_count", in.node_count);
    json_u64(&j, "source_count", in.source_count);
    json_bool(&j, "has_2d", in.has_2d);
    json_bool(&j, "has_display", in.has_display);
    json_bool(&j, "has_preemption", in.has_preemption);
    json_bool(&j, "has_priority", in.has_priority);
    json_bool(&j, "has_time_slice", in.has_time_slice);
    json_bool(&j, "has_vm", in.has_vm);
    json_obj(&j, "preemption");
    json_u64(&j, "granularity_code", in.preemption_granularity);
    json_str(&j, "granularity", cli_granularity_name(in.preemption_granularity));
    json_str(&j, "text", cli_granularity_text(in.preemption_granularity));
    json_end_obj(&j);
    json_u64(&j, "mem_size", in.mem_size);
    json_u64(&j, "clock_hz", in.clock_hz);
    json_arr(&j, "segments");
    for (unsigned s = 0; s < SGPU_SEGMENT_COUNT; s++) {
      json_obj(&j, NULL);
      json_u64(&j, "id", s);
      json_str(&j, "name", seg_names[s]);
      json_u64(&j, "base", in.segment[s].base);
      json_u64(&j, "size", in.segment[s].size);
      json_u64(&j, "free", in.segment[s].free);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    json_arr(&j, "areas");
    for (int k = 0; k < na; k++) {
      json_obj(&j, NULL);
      json_u64(&j, "segment", areas[k].segment);
      json_str(&j, "kind", kind_name(areas[k].kind));
      json_u64(&j, "base", areas[k].base);
      json_u64(&j, "size", areas[k].size);
      json_str(&j, "name", user_area_name(c, &areas[k]));
      json_end_obj(&j);
    }
    json_end_arr(&j);
    json_obj(&j, "symbols");
    for (size_t k = 0; k < c->nsyms; k++) json_u64(&j, c->syms[k].name, c->syms[k].value);
    json_end_obj(&j);
    json_arr(&j, "display_modes");
    for (unsigned s = 0; s < in.source_count && s < SGPU_MAX_SOURCES; s++) {
      const sgpu_display_mode *m = &in.display_mode[s];
      json_obj(&j, NULL);
      json_u64(&j, "source", s);
      json_bool(&j, "enabled", m->enabled);
      json_u64(&j, "width", m->width);
      json_u64(&j, "height", m->height);
      json_u64(&j, "pitch", m->pitch);
      json_str(&j, "format", format_name(m->format));
      json_u64(&j, "address", m->address);
      json_u64(&j, "timing_width", m->timing_width);
      json_u64(&j, "timing_height", m->timing_height);
      json_u64(&j, "refresh_mhz", m->refresh_mhz);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    if (shared) {
      json_arr(&j, "programs");
      for (int k = 0; k < np; k++) {
        json_obj(&j, NULL);
        json_u64(&j, "id", progs[k].id);
        json_u64(&j, "pid", progs[k].pid);
        json_str(&j, "name", progs[k].name);
        json_u64(&j, "contexts", progs[k].contexts);
        json_u64(&j, "allocations", progs[k].allocations);
        json_u64(&j, "memory", progs[k].memory);
        json_u64(&j, "submissions", progs[k].submissions);
        json_u64(&j, "completed", progs[k].completed);
        json_u64(&j, "queued", progs[k].queued);
        json_bool(&j, "self", progs[k].self != 0);
        json_bool(&j, "gone", progs[k].gone != 0);
        json_end_obj(&j);
      }
      json_end_arr(&j);
    }
    cli_link_info(c, &j);
    json_end_obj(&j);
    json_finish(&j);
    return 0;
  }
  FILE *f = c->out;
  fprintf(f, "device:      %s (transport %s)\n", c->uri ? c->uri : "sim", in.transport);
  fprintf(f, "hardware:    version %u.%u, caps 0x%08x\n", in.hw_version_major, in.hw_version_minor,
          in.caps);
  if (have_id)
    fprintf(f, "firmware:    sgpu boot %u.%u, board %s, built for hardware %u.%u, caps 0x%08x, %u KiB, "
               "screen %ux%u at 0x%x\n",
            id.fw_version >> 16, id.fw_version & 0xFFFFu, id.board_name[0] ? id.board_name : "?",
            sgpu_version_major(id.hw_version), sgpu_version_minor(id.hw_version), id.caps, id.mem_size / 1024, id.fb_width,
            id.fb_height, id.fb_base);
  else fprintf(f, "firmware:    none (no boot firmware on this device)\n");
  fprintf(f, "nodes:       %u\nsources:     %u\n", in.node_count, in.source_count);
  fprintf(f, "engines:     2D %s, display %s, preemption %s\n", in.has_2d ? "yes" : "no",
          in.has_display ? "yes" : "no", in.has_preemption ? "yes" : "no");
  fprintf(f, "preemption:  %s\n", cli_granularity_text(in.preemption_granularity));
  fprintf(f, "priority rings: %s\n",
          in.has_priority ? "yes" : "no — high-priority contexts share the normal ring");
  fprintf(f, "time slices: %s\n",
          in.has_time_slice ? "two normal rings per node (quantum set per node with sgpu_set_time_slice "
                              "or submit --quantum; 0 = off)"
                            : "none — contexts of equal priority run in submission order");
  fprintf(f, "virtual memory: %s\n",
          in.has_vm ? "yes — VM contexts with their own page tables (sgpu_create_context_vm, `sgpu vm`)"
                    : "no — contexts use physical addresses and windows (CAPS.VM = 0)");
  fprintf(f, "memory:      %u bytes\n", in.mem_size);
  for (unsigned s = 0; s < SGPU_SEGMENT_COUNT; s++)
    fprintf(f, "segment %u:   %-8s base 0x%llx size %llu free %llu\n", s, seg_names[s],
            (unsigned long long)in.segment[s].base, (unsigned long long)in.segment[s].size,
            (unsigned long long)in.segment[s].free);
  if (shared) {
    fprintf(f, "programs:    %d connected to the sgpud server\n", np);
    for (int k = 0; k < np; k++)
      fprintf(f, "  %u: pid %u %-16s %u contexts, %u allocations (%llu bytes), %llu submissions, "
                 "%u queued%s%s\n",
              progs[k].id, progs[k].pid, progs[k].name, progs[k].contexts, progs[k].allocations,
              (unsigned long long)progs[k].memory, (unsigned long long)progs[k].submissions,
              progs[k].queued, progs[k].self ? " (this sgpu)" : "",
              progs[k].gone ? " (gone: its work drains)" : "");
  }
  if (shared)
    fprintf(f, "areas:       GPU memory of segments 1 and 2 on the shared device: the library's\n"
               "             (reserved), the allocations of every program connected, free\n");
  else fprintf(f, "areas:       GPU memory of segments 1 and 2: the library's (reserved: sgpu_write\n"
             "             refuses them), yours (the set-up's SCRATCH and framebuffers), free\n");
  for (int k = 0; k < na; k++) {
    const sgpu_area *a = &areas[k];
    const char *nm = user_area_name(c, a);
    fprintf(f, "  0x%08llx-0x%08llx %9llu  %s%s%s\n", (unsigned long long)a->base,
            (unsigned long long)(a->base + a->size - 1), (unsigned long long)a->size, kind_name(a->kind),
            *nm ? ": " : "", nm);
  }
  fprintf(f, "symbols:    ");
  for (size_t k = 0; k < c->nsyms; k++) {
    const char *nm = c->syms[k].name;
    bool addr = strcmp(nm, "SCRATCH") == 0 || strcmp(nm, "FB") == 0 || strcmp(nm, "FB0") == 0 ||
                strcmp(nm, "FB1") == 0;
    fprintf(f, addr ? " %s=0x%x" : " %s=%u", nm, c->syms[k].value);
  }
  fprintf(f, "\n             (command files use them; FB0/FB1 with --mode, see sgpu asm --help)\n");
  for (unsigned s = 0; s < in.source_count && s < SGPU_MAX_SOURCES; s++) {
    const sgpu_display_mode *m = &in.display_mode[s];
    if (!m->enabled) {
      fprintf(f, "display %u:   off\n", s);
      continue;
    }
    fprintf(f, "display %u:   %ux%u %s pitch %u at 0x%08x, timing %ux%u, replication %ux%u, %u.%03u Hz",
            s, m->width, m->height, format_name(m->format), m->pitch, m->address, m->timing_width,
            m->timing_height, m->replication_x, m->replication_y, m->refresh_mhz / 1000,
            m->refresh_mhz % 1000);
    /* A mode the set-up just wrote takes its address at the next vblank. */
    if (c->fb_bytes && s == c->source && m->address != c->fb[0])
      fprintf(f, " (FB0 0x%x from the next vblank)", c->fb[0]);
    fprintf(f, "\n");
  }
  fprintf(f, "clock:       %u Hz (%s)\n", in.clock_hz,
          in.clock_hz == SGPU_NOMINAL_CLOCK_HZ ? "nominal: no board named by the firmware"
                                               : "the board's system clock, named by its firmware");
  cli_link_info(c, NULL);
  return 0;
}
