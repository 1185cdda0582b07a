/* flash.c — `sgpu flash`: program a board's bitstream with openFPGALoader.
 *
 * One place knows how each board is programmed: `make flash` runs this
 * command too.  openFPGALoader (Debian package openfpgaloader) does the
 * work; every call of it has a time limit, so a missing board or a stuck
 * programmer ends in a one-line error, never a hang. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define FLASH_DETECT_SECONDS 20
#define FLASH_PROGRAM_SECONDS 300

typedef struct board {
  const char *name;
  const char *loader_board; /* openFPGALoader -b */
  const char *bitstream;    /* default file, from the top of the repository */
  bool sram_default;        /* programs SRAM unless --flash (then -f) */
} board;

static const board boards[] = {
    /* The iCEBreaker's FT2232H reaches the SPI flash; SRAM needs jumpers. */
    {"icebreaker", "ice40_generic", "build/icebreaker/sgpu.bin", false},
    /* The ULX3S loads SRAM over JTAG by default; -f writes its flash. */
    {"ulx3s", "ulx3s", "build/ulx3s/sgpu.bit", true},
};

static const board *find_board(const char *name) {
  for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++)
    if (strcmp(boards[i].name, name) == 0) return &boards[i];
  return NULL;
}

/* Run argv with a time limit; quiet: output to /dev/null.  Returns the exit
 * status, 127 when the program is missing, -1 on a time-out. */
static int run_limited(char *const argv[], int seconds, bool quiet) {
  pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    if (quiet) {
      int fd = open("/dev/null", O_WRONLY);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
    }
    execvp(argv[0], argv);
    _exit(errno == ENOENT ? 127 : 126);
  }
  struct timespec t0, now, nap = {0, 20 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (r < 0 && errno != EINTR) return -2;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - t0.tv_sec >= seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    nanosleep(&nap, NULL);
  }
}

int cmd_flash(cli *c, int argc, char **argv) {
  const char *board_name = NULL, *file = NULL;
  bool dry = false, to_flash = false;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int m;
    if ((m = cli_opt(c, argc, argv, &i, "--board", &v))) {
      if (m < 0) return EXIT_USAGE;
      board_name = v;
    } else if ((m = cli_opt(c, argc, argv, &i, "--file", &v))) {
      if (m < 0) return EXIT_USAGE;
      file = v;
    } else if ((m = cli_opt(c, argc, argv, &i, "--dry-run", NULL))) {
      if (m < 0) return EXIT_USAGE;
      dry = true;
    } else if ((m = cli_opt(c, argc, argv, &i, "--flash", NULL))) {
      if (m < 0) return EXIT_USAGE;
      to_flash = true;
    } else {
      return cli_usage_unknown(c, argv[i]);
    }
  }
  if (!board_name) return cli_fail(c, EXIT_USAGE, "flash needs --board icebreaker|ulx3s");
  const board *b = find_board(board_name);
  if (!b) return cli_fail(c, EXIT_USAGE, "unknown board '%s' (icebreaker, ulx3s)", board_name);
  if (to_flash && !b->sram_default)
    return cli_fail(c, EXIT_USAGE, "--flash: the %s is always programmed through its flash", b->name);
  if (!file) file = b->bitstream;

  char *prog[8];
  int n = 0;
  prog[n++] = "openFPGALoader";
  prog[n++] = "-b";
  prog[n++] = (char *)b->loader_board;
  if (to_flash) prog[n++] = "-f";
  prog[n++] = (char *)file;
  prog[n] = NULL;

  if (dry) {
    for (int k = 0; k < n; k++) fprintf(c->out, "%s%s", k ? " " : "", prog[k]);
    fputc('\n', c->out);
    return EXIT_OK;
  }
  struct stat st;
  if (stat(file, &st) != 0 || st.st_size == 0)
    return cli_fail(c, EXIT_INPUT, "%s does not exist; run 'make bitstream BOARD=%s' first", file,
                    b->name);
  char *detect[] = {"openFPGALoader", "-b", (char *)b->loader_board, "--detect", NULL};
  int r = run_limited(detect, FLASH_DETECT_SECONDS, true);
  if (r == 127)
    return cli_fail(c, EXIT_DEVICE, "openFPGALoader is not installed (Debian package openfpgaloader)");
  if (r != 0)
    return cli_fail(c, EXIT_DEVICE,
                    "no %s found (openFPGALoader -b %s --detect %s: board not attached or no USB "
                    "access; see the udev rules in the README)",
                    b->name, b->loader_board, r == -1 ? "timed out" : "failed");
  fprintf(stderr, "sgpu flash: programming %s with %s\n", b->name, file);
  r = run_limited(prog, FLASH_PROGRAM_SECONDS, false);
  if (r != 0)
    return cli_fail(c, EXIT_DEVICE, "programming the %s %s", b->name,
                    r == -1 ? "timed out" : "failed (see openFPGALoader's messages above)");
  return EXIT_OK;
}
