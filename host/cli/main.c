/* main.c — `sgpu`, the command-line tool of the sgpu soft-GPU. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct command {
  const char *name;
  int (*run)(cli *c, int argc, char **argv);
  bool device; /* takes the common device set-up options */
  const char *summary;
  const char *help;
} command;

static const command commands[] = {
    {"info", cmd_info, true, "show the device: versions, nodes, sources, memory, display modes",
     "usage: sgpu [--device URI] [--json] info [SET-UP OPTIONS]\n"
     "\nQuery the device (sgpu_query_info) and print its transport, hardware and\n"
     "firmware versions, capabilities, memory segments and display modes, and\n"
     "which GPU addresses are whose (sgpu_get_areas): the areas the library\n"
     "reserved (each node's ring, rptr/fence words and staging area, the boot\n"
     "identity block), the user's (SCRATCH, and with --mode the framebuffers\n"
     "FB0 and FB1) and the free ones, with the symbols command files may use\n"
     "(--json: \"areas\" [{segment, kind, base, size, name}], \"symbols\").  On a\n"
     "link (tcp:, serial:, usb) also the link's counters for this session\n"
     "(sgpu_get_link_stats): frames sent and received, retransmissions, timeouts,\n"
     "NAKs, CRC errors, duplicate ACKs, bytes each way and bytes per second while\n"
     "a frame was in flight; --json puts them in a \"link\" object.  The\n"
     "preemption line says where sgpu_preempt stops a node: \"packet boundary\n"
     "(inside buffers and WAITs)\" with hardware preemption, or \"drains to the end\n"
     "of the running buffer\" on a board without it (the iCEBreaker); --json:\n"
     "\"preemption\" {granularity_code, granularity, text}.\n"},
    {"ping", cmd_ping, false, "round trips over the link: count, min/avg/max microseconds, lost",
     "usage: sgpu [--device URI] [--json] ping [--count N] [--timeout MS] [--interval MS]\n"
     "\nSend link PING frames one at a time (sgpu_ping; no retransmission) and print\n"
     "each round trip in microseconds of wall time, then the count, how many were\n"
     "answered and lost, and min/avg/max.  A ping is lost when no ACK comes within\n"
     "--timeout (or the device NAKs it: a damaged frame).  --json prints\n"
     "{device, transport, count, received, lost, min_us, avg_us, max_us, rtt_us[],\n"
     "timeout_ms}.  The in-process sim device has no link: ping says so and exits 3\n"
     "(ping a server instead: sgpu-sim --listen tcp:127.0.0.1:PORT, then\n"
     "--device tcp:127.0.0.1:PORT).  Exit 4 when no ping was answered.\n"
     "\noptions:\n"
     "  --count N         pings to send (default 10, at most 100000)\n"
     "  --timeout MS      wait for each answer (default 1000)\n"
     "  --interval MS     pause between pings (default 0)\n"},
    {"submit", cmd_submit, true, "submit command files, wait for their fences, print fences/cycles/events",
     "usage: sgpu [--device URI] [--json] submit [OPTIONS] FILE...\n"
     "\nSubmit each FILE (command-stream assembly text, or binary little-endian\n"
     "words: a .bin name or any non-text byte selects binary) as one DMA buffer\n"
     "with sgpu_submit_command(), wait for its fence and print the fence, the\n"
     "simulated cycles it took and the events it raised.  Several files are\n"
     "submitted in order with increasing fence ids.\n"
     "\noptions:\n"
     "  --node N          ring (node ordinal) to submit to (default 0)\n"
     "  --priority P      normal (default) or high: the context's priority; high\n"
     "                    goes to the node's high-priority ring, which runs before\n"
     "                    the normal one (a device without priority rings runs it\n"
     "                    in order on the normal ring)\n"
     "  --quantum CYCLES  the node's time slice (sgpu_set_time_slice), set before\n"
     "                    submitting: 1..16777215 spreads normal contexts over the\n"
     "                    node's two normal rings, which take turns; 0 turns it off\n"
     "                    (a device without time slices refuses it)\n"
     "  --fence ID        submission fence id of the first file (default 1)\n"
     "  --flags LIST      submit flags: comma-separated names (paging, present,\n"
     "                    redirected_present, null_rendering, flip, flip_with_no_wait,\n"
     "                    context_switch, resubmission, virtual_machine_data) or 0xNN\n"
     "  --interval N      flip interval 0..5 with --flags flip (default 1)\n"
     "  --segment S       where the buffer lives: 0 host memory staged by the library\n"
     "                    (default), 1 local video memory, 2 aperture; with 1 or 2,\n"
     "                    labels in the file are the buffer's GPU addresses\n"
     "  --timeout MS      simulated milliseconds to wait for each fence (default 200)\n"
     "  --no-wait         submit without waiting for the fences\n"
     "  --text, --binary  force the input format\n"
     "  (--source S selects the display source of a flip)\n"},
    {"asm", cmd_asm, false, "assemble command-stream text into binary words",
     "usage: sgpu [--device URI] asm [--base ADDR] [--mode WxH[:fmt]] [--source S] IN [-o OUT]\n"
     "\nAssemble IN ('-' = stdin) into little-endian 32-bit words written to OUT\n"
     "(default: IN with its extension replaced by .bin; '-' = stdout).  Errors\n"
     "name FILE:LINE:COLUMN.  --base is the GPU address of the first word for\n"
     "labels (default 0; a .org in the file overrides it).\n"
     "\nsymbols: the user's areas of GPU memory, with the addresses the device\n"
     "commands give them (`sgpu submit --mode WxH FILE`, same device and mode):\n"
     "  SCRATCH   4 KiB of local video memory for the command files\n"
     "  FB0, FB1  the two framebuffers of the mode (FB = FB0, the one scanned out)\n"
     "  FB_PITCH, FB_WIDTH, FB_HEIGHT, FB_BYTES  the mode's sizes; SOURCE (--source)\n"
     "The mode is --mode (default 320x240, RGB565); the addresses are those of\n"
     "--device (default sim: opened only to read its memory layout, nothing is\n"
     "sent; a build without the model then has none of these symbols).  `sgpu\n"
     "info --mode WxH` lists them with the free areas and the library's own.\n"
     "\nsyntax: one packet per line, `;` or `#` comments, `label:`, `.org ADDR`,\n"
     "`.word V, ...`, `.equ NAME, V`; numbers decimal, 0x hex or 0b binary;\n"
     "expressions with + - * / % << >> & | ^ ~ ( ), nested at most 64 deep.\n"
     "Packets:\n"
     "  nop [WORD, ...]                 indirect ADDR, LEN [, fence=ID] [, skip]\n"
     "  fence ADDR, VALUE [, irq]       write_data ADDR, WORD [, WORD ...]\n"
     "  wait_mem ADDR [, mask=M] [, ref=R] [, func=eq|ne|lt|le|gt|ge|geq_wrap]\n"
     "  wait_vsync SOURCE               wait_scanline SOURCE, FIRST, LAST\n"
     "  fill DST, PITCH, WIDTH_BYTES, HEIGHT, PATTERN\n"
     "  copy DST, DST_PITCH, SRC, SRC_PITCH, WIDTH_BYTES, HEIGHT\n"
     "  flip SOURCE, ADDR [, interval=0..5] [, nowait]\n"
     "  context ID, BASE, SIZE          timestamp ADDR\n"},
    {"disasm", cmd_disasm, false, "disassemble binary words into command-stream text",
     "usage: sgpu disasm [--base ADDR] [--addresses] IN [-o OUT]\n"
     "\nDisassemble the little-endian words of IN ('-' = stdin) to text on stdout\n"
     "(or OUT).  Assembling the text gives back exactly the same words; words\n"
     "that are not a well-formed packet come out as `.word`.  --addresses ends\n"
     "each line with a comment giving its address (from --base, default 0).\n"},
    {"flip", cmd_flip, true, "flip the display to a buffer at vsync and report when it took effect",
     "usage: sgpu [--device URI] [--json] flip [OPTIONS] [SET-UP OPTIONS]\n"
     "\nSubmit a Flip (or FlipWithNoWait) submission holding one FLIP packet, wait\n"
     "for its fence and print the scanout address, vblank and flip counters.\n"
     "Without --mode a 320x240 RGB565 mode is set first (fresh sim chip).\n"
     "\noptions:\n"
     "  --address ADDR    buffer to show (default FB1, the second framebuffer)\n"
     "  --interval N      0..5 (D3DDDI_FLIPINTERVAL_TYPE; default 1)\n"
     "  --nowait          FlipWithNoWait: queue the flip and go on\n"
     "  --node N          ring to submit to (default 0)\n"},
    {"fence", cmd_fence, true, "show the fence state of every node",
     "usage: sgpu [--device URI] [--json] fence [--node N] [SET-UP OPTIONS]\n"
     "\nPrint the last submitted and completed fence ids (64-bit), pending\n"
     "submissions and fault state of each node (or of --node N).  On a fresh sim\n"
     "chip use --run FILE to have something to show.\n"},
    {"events", cmd_events, true, "print events (DMA_COMPLETED, DMA_FAULTED, DMA_PREEMPTED, ENGINE_RESET, ...)",
     "usage: sgpu [--device URI] [--json] events [OPTIONS] [SET-UP OPTIONS]\n"
     "\nPrint the events the device raised (those of --run files included), one\n"
     "line each with its fields: DMA_COMPLETED (node, fence, flags), DMA_FAULTED\n"
     "(reason, address, header, the faulting packet), DMA_PREEMPTED (preemption\n"
     "fence, last completed fence, submissions preempted, latency), ENGINE_RESET\n"
     "(last aborted fence, guilty context, its guilty count, banned, innocent\n"
     "submissions resubmitted), DMA_DROPPED (the guilty context's submission, not\n"
     "run), CRTC_VSYNC.  --json: {events: [{type, cycle, node, fence, ...}], count}.\n"
     "On a device with priority rings each DMA event ends with the ring it came\n"
     "from: priority=normal or priority=high (--json: priority).\n"
     "A run opens the device for itself: `sgpu preempt` shows its own preemption.\n"
     "\noptions:\n"
     "  --wait MS         wait up to MS simulated milliseconds for each further event\n"
     "                    (default 0, or 100 with --vsync)\n"
     "  --count N         stop after N events\n"
     "  --vsync           enable CRTC_VSYNC events of --source (needs a display mode)\n"},
    {"preempt", cmd_preempt, true, "preempt a node (sgpu_preempt) and print its DMA_PREEMPTED event",
     "usage: sgpu [--device URI] [--json] preempt [OPTIONS] [SET-UP OPTIONS] [NODE [FENCE_ID]]\n"
     "\nStop node NODE (default 0) at its next preemption boundary with\n"
     "sgpu_preempt and print the DMA_PREEMPTED event: the preemption fence id,\n"
     "the last fence that completed, how many submissions were preempted and the\n"
     "cycles the node took to stop, with the other events of the run.  FENCE_ID\n"
     "is the preemption fence id (default: the node's last submitted fence + 1).\n"
     "Where it stops is the device's granularity (`sgpu info`): packet boundary\n"
     "(inside buffers and WAITs) with hardware preemption; a board without it\n"
     "(the iCEBreaker) drains to the end of the running buffer, and preempt says\n"
     "it drained.  --json prints {device, transport, node, preemption_fence,\n"
     "granularity, granularity_text, hardware_preemption, drained, events[],\n"
     "preempted {preemption_fence, last_completed_fence, preempted_count,\n"
     "latency_cycles, cycle}, resubmitted[], last_completed_fence, pending}.\n"
     "\nEach sgpu run opens the device for itself: opening it resets the nodes\n"
     "and closing it stops them, so what a run preempts is its own work: the\n"
     "--run files, submitted here without waiting (`sgpu submit` keeps no\n"
     "session: its work is done or stopped when it exits).  A preempted\n"
     "submission must be sent again with flags.resubmission, oldest first,\n"
     "before the node takes new work: --resubmit does that and waits for their\n"
     "fences (the one that was running resumes where it stopped).  A device\n"
     "shared through sgpud does not carry sgpu_preempt yet: preempt says so and\n"
     "exits 3.\n"
     "\noptions:\n"
     "  --node N          node to preempt (same as NODE)\n"
     "  --fence ID        preemption fence id (same as FENCE_ID)\n"
     "  --after CYCLES    let the chip run CYCLES cycles after the set-up first\n"
     "                    (default 0: preempt at once)\n"
     "  --resubmit        send the preempted --run files again with\n"
     "                    flags.resubmission and wait for their fences\n"
     "  --timeout MS      simulated milliseconds to wait for each (default 200)\n"},
    {"screenshot", cmd_screenshot, true, "capture a frame from the display as PNG",
     "usage: sgpu [--device URI] [--json] screenshot [SET-UP OPTIONS] OUT.png\n"
     "\nCapture the next complete frame the display emits (from the video outputs,\n"
     "as a monitor sees it) and write it as an RGB PNG.  Prints size, frame\n"
     "number, scanout address and a CRC-32 of the pixels.  With a fresh sim chip,\n"
     "draw first: e.g. `sgpu screenshot --mode 320x240 --run draw.s out.png`\n"
     "where draw.s uses FB0/FB_PITCH.  Without --mode and with the display off,\n"
     "a 320x240 mode is set.\n"},
    {"ring", cmd_ring, true, "decode the ring of a node from rptr to wptr",
     "usage: sgpu [--device URI] [--json] ring [OPTIONS] [SET-UP OPTIONS]\n"
     "\nRead the ring buffer of a node and disassemble the packets between the\n"
     "read pointer and the write pointer, with their addresses, like a ring dump\n"
     "tool.\n"
     "\noptions:\n"
     "  --node N          node (default 0)\n"
     "  --all             decode from the start of the ring to wptr instead\n"
     "                    (the history, as long as the ring has not wrapped)\n"
     "  --follow          also decode the buffers INDIRECT packets point to\n"
     "  --pending         submit the --run files without waiting, so that their\n"
     "                    ring entries may still be pending\n"},
    {"vm", cmd_vm, true, "list the GPU virtual memory mappings of each node's current context",
     "usage: sgpu [--device URI] [--json] vm [--node N | --root ADDR] [SET-UP OPTIONS]\n"
     "\nWalk the page directory of each node's current context (its VM_ROOT\n"
     "register), reading the directory and page tables from GPU memory as the\n"
     "hardware does, and print each run of mapped pages: virtual range ->\n"
     "physical range, access (rw, r) and page count.  A node whose context is\n"
     "physical (VM_ROOT 0) says so.  Needs a device with GPU virtual memory\n"
     "(CAPS.VM; `sgpu info` says whether it has it).\n"
     "\noptions:\n"
     "  --node N          only node N (an error when its context is physical)\n"
     "  --root ADDR       walk the page directory at ADDR (page-aligned) instead\n"},
    {"peek", cmd_peek, true, "read GPU memory or registers",
     "usage: sgpu [--device URI] [--json] peek [SET-UP OPTIONS] ADDR [N]\n"
     "\nRead N (default 1) 32-bit words at ADDR: a GPU memory byte address\n"
     "(4-byte aligned), a symbol of the set-up with an optional +OFFSET\n"
     "(SCRATCH, SCRATCH+8, FB0, FB1 with --mode: `sgpu info` lists them), or a\n"
     "register `reg:NAME`, `reg:NAME@INDEX` (INDEX = node\n"
     "of a node register, source of a display register) or `reg:0xOFFSET`.\n"
     "Register names are those of sgpu_hw.h without prefix: ID, VERSION, CAPS,\n"
     "MEM_SIZE, INT_STATUS, CYCLE_LO, SCRATCH, RING_RPTR, LAST_FENCE, STATUS,\n"
     "FAULT_REASON, DISP_BASE, DISP_VBLANK_COUNT, ...\n"},
    {"poke", cmd_poke, true, "write GPU memory or registers",
     "usage: sgpu [--device URI] [--json] poke [SET-UP OPTIONS] ADDR VALUE...\n"
     "\nWrite the 32-bit VALUEs to consecutive words at ADDR (as for peek) and\n"
     "print what reads back.  On the sim device the chip lives only for this run.\n"
     "poke is the raw path: it writes the areas the library reserved (rings,\n"
     "rptr/fence words, staging areas, the boot identity block: `sgpu info`\n"
     "lists them) with a warning line naming the area, and the registers the\n"
     "library programs (RING_*, RPTR_ADDR, CONTROL, WATCHDOG, INT_ENABLE) with\n"
     "a warning too.  A read-only register (ID, VERSION, CYCLE_LO, STATUS, ...)\n"
     "is refused (exit 3): the write would have no effect.\n"},
    {"top", cmd_top, true, "live hardware counters: busy, stalls, words, packets, fences, vblanks",
     "usage: sgpu [--device URI] [--json] top [OPTIONS] [SET-UP OPTIONS]\n"
     "\nSample the chip's counters every interval and show, per node, the busy and\n"
     "memory-stall share of the cycles, command words fetched and packets executed\n"
     "per second, fences completed per second and the last fence; per display\n"
     "source, vblanks per second, flips and scanout underflows; preemptions and\n"
     "engine resets per second (sgpu_stats' preempted and resets: the library\n"
     "counts them per open device, so they are this run's; --json:\n"
     "preemptions_per_second, resets_per_second, preemptions, resets).  On a\n"
     "terminal the screen is redrawn like top until --count samples (or Ctrl-C);\n"
     "otherwise one block is printed per sample; --json prints one sample as a\n"
     "JSON object.\n"
     "On a terminal `q` quits (so does Ctrl-C).  Intervals and rates are the\n"
     "chip's own time on every transport: the cycles its CYCLE counter\n"
     "(CYCLE_LO/CYCLE_HI) advanced, at its clock (`sgpu info`), so a link's\n"
     "model running slower than real time shows the same shares as sim.  --run\n"
     "files are submitted without waiting, so their work shows.  A build\n"
     "without performance counters (CAPS.PERF = 0) says so and shows the rest.\n"
     "\noptions:\n"
     "  --interval MS     sampling interval in milliseconds (default 100)\n"
     "  --count N         samples to take (default: 1 with --json or when not a\n"
     "                    terminal, else until interrupted)\n"},
    {"list", cmd_list, false, "list the boards attached over USB and the URI of each",
     "usage: sgpu [--json] list\n"
     "\nList the boards attached over USB that the usb transport can drive, one\n"
     "line each: board, VID:PID, FTDI interface, serial number, USB bus/address\n"
     "and the device URI to pass to --device (usb:VID:PID[:SERIAL]).  Boards are\n"
     "recognised by their FTDI chip (iCEBreaker: FT2232H 0403:6010, interface B;\n"
     "ULX3S: FT231X 0403:6015), so the board name is a guess: another device\n"
     "with the same chip is listed too.  A board that cannot be opened (no udev\n"
     "rules, see the README) is listed without its serial number.  With no board\n"
     "attached it prints \"no boards found\" on stderr and exits 0; --json prints\n"
     "{\"boards\": [...], \"count\": N}.  A build without libftdi1/libusb-1.0\n"
     "says so and exits 3.\n"},
    {"flash", cmd_flash, false, "program a board's bitstream with openFPGALoader",
     "usage: sgpu flash --board icebreaker|ulx3s [--file BITSTREAM] [--flash] [--dry-run]\n"
     "\nProgram the board attached over USB with openFPGALoader (Debian package\n"
     "openfpgaloader): the iCEBreaker's SPI flash (-b ice40_generic), the ULX3S's\n"
     "SRAM (-b ulx3s; --flash writes its flash instead).  The bitstream defaults\n"
     "to the one `make bitstream BOARD=...` writes (build/icebreaker/sgpu.bin,\n"
     "build/ulx3s/sgpu.bit), relative to the current directory.  Without a board\n"
     "attached it says so in one line and exits 3; every openFPGALoader call has a\n"
     "time limit.  A normal user needs the udev rules (README, \"Boards\").\n"
     "\noptions:\n"
     "  --board NAME      icebreaker or ulx3s (required)\n"
     "  --file PATH       bitstream to program\n"
     "  --flash           ULX3S: write the configuration flash (-f), not SRAM\n"
     "  --dry-run         print the openFPGALoader command and change nothing\n"},
};

static const command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static void usage(FILE *f) {
  fputs("usage: sgpu [--device URI] [--json] COMMAND [ARGS]\n"
        "       sgpu COMMAND --help\n"
        "\nThe command-line tool of the sgpu soft-GPU (libsgpu).\n"
        "\ncommands:\n",
        f);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
  fputs("\noptions:\n"
        "  --device URI, -d URI  device (default \"sim\"): sim, sim:video=tiny,latency=N,...,\n"
        "                        tcp:HOST:PORT, serial:/dev/ttyUSBn[@BAUD],\n"
        "                        usb[:VID:PID[:SERIAL]][@BAUD] (see `sgpu list`)\n"
        "  --json                machine-readable output: one JSON object on stdout\n"
        "                        (on failure {\"error\": MESSAGE, \"exit\": CODE})\n"
        "  --help, -h            this text; `sgpu COMMAND --help` for a command\n"
        "  --version             print the version\n"
        "\nEach run with the sim device starts a fresh chip: device commands take\n"
        "--mode, --source and --run FILE to set up state first (see their --help).\n"
        "\nexit codes:\n"
        "  0  success\n"
        "  1  usage: bad command line (unknown command or option, bad number or URI)\n"
        "  2  bad input file: unreadable, bad assembly (FILE:LINE:COLUMN named), bad binary\n"
        "  3  device error: cannot open the device, transport or library failure\n"
        "  4  GPU fault or timeout: a submission faulted or its fence did not arrive\n"
        "  5  submission rejected by the library's validation (the submission rules in sgpu.h)\n",
        f);
}

static void finish_json(cli *c, char **bufp, size_t *lenp, int rc) {
  if (!c->json) return;
  fflush(c->out);
  char *buf = bufp ? *bufp : NULL;
  size_t len = *lenp;
  if (c->json_error) {
    json j;
    json_begin(&j, stdout);
    json_obj(&j, NULL);
    json_str(&j, "error", c->json_message);
    json_i64(&j, "exit", c->json_exit);
    json_end_obj(&j);
    json_finish(&j);
  } else if (len) {
    fwrite(buf, 1, len, stdout);
  } else {
    printf("{\"exit\":%d}\n", rc);
  }
  fflush(stdout);
}

/* A usage error before the command runs: its line on stderr and, with
 * --json, the {"error", "exit"} object on stdout like any other failure. */
static int early_fail(cli *c, int code) {
  if (code && c->json && c->json_error) finish_json(c, NULL, &(size_t){0}, code);
  return code;
}

int main(int argc, char **argv) {
  cli c;
  memset(&c, 0, sizeof c);
  c.prog = "sgpu";
  c.out = stdout;
  /* --json anywhere (before a "--") asks for JSON, usage errors included. */
  for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
    if (strcmp(argv[k], "--json") == 0) c.json = true;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v;
    int m;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return EXIT_OK;
    }
    if (strcmp(a, "--version") == 0) {
      if (c.json)
        printf("{\"version\":\"%u.%u\",\"hw_interface\":\"%u.%u\"}\n", SGPU_HW_VERSION_MAJOR,
               SGPU_HW_VERSION_MINOR, SGPU_HW_VERSION_MAJOR, SGPU_HW_VERSION_MINOR);
      else
        printf("sgpu %u.%u (hardware interface %u.%u)\n", SGPU_HW_VERSION_MAJOR,
               SGPU_HW_VERSION_MINOR, SGPU_HW_VERSION_MAJOR, SGPU_HW_VERSION_MINOR);
      return EXIT_OK;
    }
    if (strcmp(a, "--json") == 0) {
      c.json = true;
      continue;
    }
    if (strcmp(a, "-d") == 0) {
      if (i + 1 >= argc) return early_fail(&c, cli_fail(&c, EXIT_USAGE, "-d needs a device URI"));
      c.uri = argv[++i];
      continue;
    }
    if ((m = cli_opt(&c, argc, argv, &i, "--device", &v))) {
      if (m < 0) return early_fail(&c, EXIT_USAGE);
      c.uri = v;
      continue;
    }
    if (a[0] == '-')
      return early_fail(&c, cli_fail(&c, EXIT_USAGE, "unknown option '%s' (see sgpu --help)", a));
    break;
  }
  if (i >= argc) return early_fail(&c, cli_fail(&c, EXIT_USAGE, "no command given (see sgpu --help)"));
  const command *cmd = find_command(argv[i]);
  if (!cmd)
    return early_fail(&c, cli_fail(&c, EXIT_USAGE, "unknown command '%s' (see sgpu --help)", argv[i]));
  c.cmd = cmd->name;
  int cargc = argc - i;
  char **cargv = argv + i;
  /* --json is accepted after the command too. */
  for (int k = 1; k < cargc;) {
    if (strcmp(cargv[k], "--") == 0) break;
    if (strcmp(cargv[k], "--json") == 0) {
      c.json = true;
      memmove(&cargv[k], &cargv[k + 1], (size_t)(cargc - k - 1) * sizeof *cargv);
      cargc--;
      continue;
    }
    k++;
  }
  for (int k = 1; k < cargc; k++) {
    if (strcmp(cargv[k], "--") == 0) break;
    if (strcmp(cargv[k], "--help") == 0 || strcmp(cargv[k], "-h") == 0) {
      fputs(cmd->help, stdout);
      if (cmd->device) {
        fputc('\n', stdout);
        fputs(cli_common_help(), stdout);
      }
      return EXIT_OK;
    }
  }
  char *buf = NULL;
  size_t len = 0;
  if (c.json) {
    c.out = open_memstream(&buf, &len);
    if (!c.out) {
      fprintf(stderr, "sgpu: out of memory\n");
      return EXIT_DEVICE;
    }
  }
  int rc = cmd->run(&c, cargc, cargv);
  cli_close(&c);
  finish_json(&c, &buf, &len, rc);
  if (c.json) {
    fclose(c.out);
    free(buf);
  } else {
    fflush(stdout);
  }
  return rc;
}
