/* ulx3s_client.h — what the library-client tests of the ULX3S image share
 * (test_ulx3s_vm, test_ulx3s_sched): it starts `sgpu-sim --board ulx3s`
 * (sim/sgpu_board_lsim.cpp on this folder's board model) in the background,
 * opens it with libsgpu (the build without the in-process model) over tcp:,
 * and stops it on the first failed check.  Every word then crosses the
 * board's UART, boot feeder, host bridge, the chip and the SDRAM controller.
 * Header-only. */
#ifndef SGPU_ULX3S_CLIENT_H
#define SGPU_ULX3S_CLIENT_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sgpu.h"

static pid_t ulx3s_server = -1;

static void ulx3s_stop_server(void) {
  if (ulx3s_server > 0) {
    kill(ulx3s_server, SIGTERM);
    waitpid(ulx3s_server, NULL, 0);
    ulx3s_server = -1;
  }
}

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ulx3s_stop_server();                                 \
      exit(1);                                             \
    }                                                      \
  } while (0)
/* a library call that must succeed */
#define OK(dev, call)                                                                          \
  do {                                                                                         \
    int e_ = (call);                                                                           \
    CHECK(e_ == 0, "%s: %s (%s)", #call, sgpu_strerror(e_), (dev) ? sgpu_last_error(dev) : ""); \
  } while (0)

static double ulx3s_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* sgpu-sim --board ulx3s --listen tcp:127.0.0.1:0 in the background, opened:
 * its first line ("listening on tcp:HOST:PORT") is the device's URI. */
static sgpu_device *ulx3s_open(const char *sim) {
  int p[2];
  CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
  ulx3s_server = fork();
  CHECK(ulx3s_server >= 0, "fork: %s", strerror(errno));
  if (ulx3s_server == 0) {
    dup2(p[1], 1);
    close(p[0]);
    close(p[1]);
    execl(sim, sim, "--board", "ulx3s", "--listen", "tcp:127.0.0.1:0", (char *)NULL);
    fprintf(stderr, "%s: %s\n", sim, strerror(errno));
    _exit(127);
  }
  close(p[1]);
  char line[256];
  size_t len = 0;
  while (len + 1 < sizeof line) {
    ssize_t r = read(p[0], line + len, 1);
    if (r <= 0 || line[len] == '\n') break;
    len++;
  }
  line[len] = 0;
  close(p[0]); /* the server's later lines: none on stdout */
  const char *tag = "listening on ";
  CHECK(strncmp(line, tag, strlen(tag)) == 0, "%s did not start: '%s'", sim, line);
  /* a minute to give up: the board model runs 0.25 to 0.4 M cycles a
   * second and a 64-word READ takes 28,000 of them (tests/link/link_lib.sh) */
  char uri[300], why[256] = "";
  snprintf(uri, sizeof uri, "%s,giveup=60000", line + strlen(tag));
  sgpu_device *dev = NULL;
  int e = sgpu_open_detail(uri, &dev, why, sizeof why);
  CHECK(e == 0, "sgpu_open(%s): %s: %s", uri, sgpu_strerror(e), why);
  return dev;
}

static uint64_t ulx3s_alloc(sgpu_device *dev, uint64_t bytes) {
  uint64_t a = 0;
  OK(dev, sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, bytes, SGPU_PAGE_BYTES, &a));
  return a;
}

/* cb's words written at physical address cpa, then submitted from c with
 * fence id fence: from virtual address cva in c's tables (a VM context; the
 * page mapped there), or with cva 0 from cpa in GPU memory.  Returns
 * sgpu_submit_command's code. */
static int ulx3s_submit(sgpu_device *dev, sgpu_context *c, uint64_t cpa, uint64_t cva, const sgpu_cmdbuf *cb,
                        uint32_t fence) {
  OK(dev, sgpu_write(dev, cpa, cb->words, sgpu_cmdbuf_size(cb)));
  sgpu_submit_command_args a;
  memset(&a, 0, sizeof a);
  a.context = c;
  if (cva) {
    a.dma_buffer_virtual_address = cva;
    a.dma_buffer_size = SGPU_PAGE_BYTES;
  } else {
    a.dma_buffer_segment_id = SGPU_SEGMENT_LOCAL;
    a.dma_buffer_physical_address = cpa;
    a.dma_buffer_size = sgpu_cmdbuf_size(cb);
  }
  a.dma_buffer_submission_end_offset = sgpu_cmdbuf_size(cb);
  a.submission_fence_id = fence;
  a.node_ordinal = sgpu_context_node(c);
  return sgpu_submit_command(dev, &a);
}

#endif
