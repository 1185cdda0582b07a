/* list.c — `sgpu list`: the boards attached over USB (sgpu_list_boards). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LIST_MAX 64

int cmd_list(cli *c, int argc, char **argv) {
  if (argc > 1) return cli_usage_unknown(c, argv[1]);
  sgpu_board *b = calloc(LIST_MAX, sizeof *b);
  if (!b) return cli_fail(c, EXIT_DEVICE, "out of memory");
  char msg[256];
  int n = sgpu_list_boards(b, LIST_MAX, msg, sizeof msg);
  if (n < 0) {
    free(b);
    return cli_fail(c, EXIT_DEVICE, "%s (%s, %d)", msg, sgpu_strerror(n), n);
  }
  size_t shown = (size_t)n < LIST_MAX ? (size_t)n : LIST_MAX;
  if (c->json) {
    json j;
    json_begin(&j, c->out);
    json_obj(&j, NULL);
    json_arr(&j, "boards");
    for (size_t i = 0; i < shown; i++) {
      char id[8];
      json_obj(&j, NULL);
      json_str(&j, "name", b[i].name);
      json_str(&j, "description", b[i].description);
      snprintf(id, sizeof id, "%04x", b[i].vid);
      json_str(&j, "vid", id);
      snprintf(id, sizeof id, "%04x", b[i].pid);
      json_str(&j, "pid", id);
      json_str(&j, "interface", b[i].interface ? "B" : "A");
      json_str(&j, "serial", b[i].serial);
      json_str(&j, "product", b[i].product);
      json_u64(&j, "bus", b[i].bus);
      json_u64(&j, "address", b[i].address);
      json_bool(&j, "access", b[i].access != 0);
      json_u64(&j, "baud", b[i].baud);
      json_str(&j, "uri", b[i].uri);
      json_end_obj(&j);
    }
    json_end_arr(&j);
    json_u64(&j, "count", (uint64_t)n);
    json_end_obj(&j);
    json_finish(&j);
  } else if (shown) {
    fprintf(c->out, "%-11s %-9s %-2s %-16s %-7s %s\n", "BOARD", "VID:PID", "IF", "SERIAL",
            "BUS/ADR", "URI (for --device)");
    for (size_t i = 0; i < shown; i++) {
      fprintf(c->out, "%-11s %04x:%04x %-2s %-16s %03u/%03u %s", b[i].name, b[i].vid, b[i].pid,
              b[i].interface ? "B" : "A", b[i].serial[0] ? b[i].serial : "-", b[i].bus,
              b[i].address, b[i].uri);
      if (b[i].product[0]) fprintf(c->out, "  \"%s\"", b[i].product);
      if (!b[i].access) fputs("  (no access: install the udev rules, see the README)", c->out);
      fputc('\n', c->out);
    }
    if ((size_t)n > shown) fprintf(c->out, "(%d more not shown)\n", n - (int)shown);
  }
  if (n == 0) fprintf(stderr, "%s list: no boards found\n", c->prog);
  free(b);
  return EXIT_OK;
}
