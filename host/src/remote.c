/* remote.c — the sgpud client (remote.h): the carried calls as requests to
 * the server over its Unix-domain socket, one at a time under the device
 * lock; the server's error code and text come back as this call's. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "remote.h"
#include "remote_proto.h"

typedef struct sgpu_remote {
  int fd;
  int broken; /* the connection failed: every later call is an I/O error */
  uint32_t program_id;
  char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} sgpu_remote;

int sgpu__remote_uri(const char *uri) {
  return uri && strncmp(uri, "sgpud", 5) == 0 && (uri[5] == 0 || uri[5] == ':' || uri[5] == ',');
}

/* ------------------------------------------------------------ bytes */
static int send_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

/* A request in one sendmsg (header, body, data) when the socket takes it
 * whole, as it does but for the largest WRITEs: the server never sees a
 * small request arrive in pieces; the rest, if any, follows. */
static int send_request(int fd, const sgpud_hdr *h, const void *req, size_t req_size,
                        const void *data, size_t data_size) {
  struct iovec iov[3] = {{(void *)h, sizeof *h}, {(void *)req, req_size}, {(void *)data, data_size}};
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = iov;
  m.msg_iovlen = 3;
  ssize_t k;
  do k = sendmsg(fd, &m, MSG_NOSIGNAL);
  while (k < 0 && errno == EINTR);
  if (k < 0) return -1;
  size_t sent = (size_t)k;
  for (int i = 0; i < 3; i++) { /* what did not go */
    if (sent >= iov[i].iov_len) {
      sent -= iov[i].iov_len;
      continue;
    }
    if (send_all(fd, (const uint8_t *)iov[i].iov_base + sent, iov[i].iov_len - sent)) return -1;
    sent = 0;
  }
  return 0;
}

static int recv_all(int fd, void *p, size_t n) {
  uint8_t *b = p;
  while (n) {
    ssize_t k = recv(fd, b, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k == 0 ? -2 : -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

static int broken(sgpu_device *dev, const char *what, int err) {
  sgpu_remote *rm = dev->remote;
  rm->broken = 1;
  return sgpu__fail(dev, SGPU_ERROR_IO, "sgpud at %s: %s%s%s", rm->path, what, err ? ": " : "",
                    err ? strerror(err) : "");
}

/* One round trip: header + req + data out; status + ans (exactly ans_size)
 * + up to rdata_max bytes of tail (its length in *rdata_len) back.  Called
 * with the device lock held. */
static int call(sgpu_device *dev, uint32_t op, const void *req, size_t req_size, const void *data,
                size_t data_size, void *ans, size_t ans_size, void *rdata, size_t rdata_max,
                size_t *rdata_len) {
  sgpu_remote *rm = dev->remote;
  if (rm->broken)
    return sgpu__fail(dev, SGPU_ERROR_IO, "sgpud at %s: the connection was lost earlier", rm->path);
  sgpud_hdr h = {(uint32_t)(req_size + data_size), op};
  if (send_request(rm->fd, &h, req, req_size, data, data_size))
    return broken(dev, "sending a request failed", errno);
  int k;
  if ((k = recv_all(rm->fd, &h, sizeof h)))
    return broken(dev, k == -2 ? "the server closed the connection" : "receiving an answer failed",
                  k == -2 ? 0 : errno);
  sgpud_status st;
  if (h.op != (op | SGPUD_REPLY) || h.size < sizeof st || h.size > SGPUD_MAX_BODY)
    return broken(dev, "malformed answer", 0);
  if (recv_all(rm->fd, &st, sizeof st)) return broken(dev, "answer cut short", 0);
  size_t left = h.size - sizeof st;
  if (st.status < 0) {
    char text[SGPUD_MAX_TEXT + 1];
    if (left > SGPUD_MAX_TEXT || recv_all(rm->fd, text, left))
      return broken(dev, "malformed error answer", 0);
    text[left] = 0;
    return sgpu__fail(dev, st.status, "%s", text);
  }
  if (left < ans_size || left - ans_size > rdata_max) return broken(dev, "answer of the wrong size", 0);
  if ((ans_size && recv_all(rm->fd, ans, ans_size)) ||
      (left > ans_size && recv_all(rm->fd, rdata, left - ans_size)))
    return broken(dev, "answer cut short", 0);
  if (rdata_len) *rdata_len = left - ans_size;
  return st.status;
}

/* ------------------------------------------------------------ open / close */
int sgpu__remote_open(sgpu_device *dev, const char *uri, char *msg, size_t msg_size) {
  sgpu_remote *rm = calloc(1, sizeof *rm);
  if (!rm) {
    if (msg && msg_size) snprintf(msg, msg_size, "out of host memory");
    return SGPU_ERROR_NO_MEM;
  }
  rm->fd = -1;
  dev->remote = rm;
  const char *p = uri[5] == ':' ? uri + 6 : uri + 5;
  /* ",OPT=V..." after the path: the open options of the other URIs
   * (video=, watchdog=) belong to the server's device, opened by the server:
   * they are accepted and have no effect here. */
  size_t plen = strcspn(p, ",");
  for (const char *o = p + plen; *o == ',';) {
    o++;
    size_t n = strcspn(o, ",");
    if (!((n > 6 && !strncmp(o, "video=", 6)) || (n > 9 && !strncmp(o, "watchdog=", 9)))) {
      if (msg && msg_size)
        snprintf(msg, msg_size, "URI '%.80s': option '%.*s' is not video= or watchdog= (sgpud)",
                 uri, (int)n, o);
      return SGPU_ERROR_INVALID_URI;
    }
    o += n;
  }
  int r = 0;
  if (!plen) {
    if (sgpud_default_path(rm->path, sizeof rm->path)) r = SGPU_ERROR_INVALID_URI;
  } else if (plen >= sizeof rm->path) {
    r = SGPU_ERROR_INVALID_URI;
  } else {
    memcpy(rm->path, p, plen);
    rm->path[plen] = 0;
  }
  if (r) {
    if (msg && msg_size) snprintf(msg, msg_size, "URI '%.60s': socket path too long", uri);
    return r;
  }
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  memcpy(sa.sun_path, rm->path, strlen(rm->path));
  rm->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (rm->fd < 0 || connect(rm->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    if (msg && msg_size)
      snprintf(msg, msg_size, "no sgpud answers at %s: %s", rm->path, strerror(errno));
    return SGPU_ERROR_NO_DEVICE;
  }
  sgpud_hello_req hq;
  memset(&hq, 0, sizeof hq);
  hq.version = SGPUD_PROTO_VERSION;
  hq.pid = (uint32_t)getpid();
  hq.info_size = sizeof(sgpu_info);
  hq.event_size = sizeof(sgpud_event);
  hq.stats_size = sizeof(sgpu_stats);
  hq.submit_size = sizeof(sgpud_submit_req);
  FILE *f = fopen("/proc/self/comm", "r");
  if (f) {
    if (fgets(hq.name, sizeof hq.name, f)) hq.name[strcspn(hq.name, "\n")] = 0;
    fclose(f);
  }
  sgpud_hello_ans ha;
  r = call(dev, SGPUD_OP_HELLO, &hq, sizeof hq, NULL, 0, &ha, sizeof ha, NULL, 0, NULL);
  if (r) {
    if (msg && msg_size) snprintf(msg, msg_size, "%s", sgpu_last_error(dev));
    return r;
  }
  rm->program_id = ha.program_id;
  dev->nodes = ha.nodes;
  dev->sources = ha.sources;
  dev->mem_size = ha.mem_size;
  return 0;
}

void sgpu__remote_close(sgpu_device *dev) {
  if (!dev->remote) return;
  if (dev->remote->fd >= 0) close(dev->remote->fd);
  free(dev->remote);
  dev->remote = NULL;
}

/* ------------------------------------------------------------ calls */
#define LOCKED(expr)        \
  do {                      \
    sgpu__lock(dev);        \
    int r_ = (expr);        \
    sgpu__unlock(dev);      \
    return r_;              \
  } while (0)

int sgpu__remote_query_info(sgpu_device *dev, sgpu_info *info) {
  LOCKED(call(dev, SGPUD_OP_QUERY_INFO, NULL, 0, NULL, 0, info, sizeof *info, NULL, 0, NULL));
}

int sgpu__remote_alloc(sgpu_device *dev, uint32_t segment, uint32_t size, uint32_t alignment,
                       uint64_t *address) {
  sgpud_alloc_req q = {segment, size, alignment, 0};
  sgpud_addr a = {0};
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_ALLOC, &q, sizeof q, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  sgpu__unlock(dev);
  if (!r) *address = a.address;
  return r;
}

int sgpu__remote_free(sgpu_device *dev, uint64_t address) {
  sgpud_addr q = {address};
  LOCKED(call(dev, SGPUD_OP_FREE, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* Reads and writes go in pieces of at most SGPUD_MAX_DATA; each piece names
 * the whole range, which the server checks first, so a refused transfer
 * is refused at its first piece with nothing done. */
int sgpu__remote_read(sgpu_device *dev, uint64_t address, void *data, uint32_t size) {
  sgpu__lock(dev);
  int r = 0;
  for (uint32_t off = 0; off < size && !r;) {
    uint32_t n = size - off > SGPUD_MAX_DATA ? SGPUD_MAX_DATA : size - off;
    sgpud_mem_req q = {address + off, n, 0, address, size};
    size_t got = 0;
    r = call(dev, SGPUD_OP_READ, &q, sizeof q, NULL, 0, NULL, 0, (uint8_t *)data + off, n, &got);
    if (!r && got != n) r = broken(dev, "short read answer", 0);
    off += n;
  }
  sgpu__unlock(dev);
  return r;
}

/* WRITE, or WRITE_RAW (sgpu_write_raw: the server takes it only inside the
 * program's own allocations, where it is a plain write). */
int sgpu__remote_write(sgpu_device *dev, uint64_t address, const void *data, uint32_t size, int raw) {
  uint32_t op = raw ? SGPUD_OP_WRITE_RAW : SGPUD_OP_WRITE;
  sgpu__lock(dev);
  int r = 0;
  for (uint32_t off = 0; off < size && !r;) {
    uint32_t n = size - off > SGPUD_MAX_DATA ? SGPUD_MAX_DATA : size - off;
    sgpud_mem_req q = {address + off, n, 0, address, size};
    r = call(dev, op, &q, sizeof q, (const uint8_t *)data + off, n, NULL, 0, NULL, 0, NULL);
    off += n;
  }
  sgpu__unlock(dev);
  return r;
}

/* A context the server made (CREATE_CONTEXT or CREATE_CONTEXT_VM), as a
 * handle of this device. */
static int remote_new_context(sgpu_device *dev, uint32_t op, const void *q, size_t q_size, int vm,
                              sgpu_context **ctx) {
  sgpu_context *c = calloc(1, sizeof *c);
  if (!c) return sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a context");
  sgpud_context_ans a;
  sgpu__lock(dev);
  int r = call(dev, op, q, q_size, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  if (r) {
    sgpu__unlock(dev);
    free(c);
    return r;
  }
  c->magic = SGPU_CONTEXT_MAGIC;
  c->dev = dev;
  c->id = a.id;
  c->node = a.node;
  c->win_base = a.window_base;
  c->win_size = a.window_size;
  if (vm) c->off_path |= SGPU__CTX_VM; /* its tables are the server's */
  c->next = dev->contexts;
  if (c->next) c->next->prev = c;
  dev->contexts = c;
  sgpu__unlock(dev);
  *ctx = c;
  return 0;
}

int sgpu__remote_create_context(sgpu_device *dev, uint32_t node, uint32_t window_base,
                                uint32_t window_size, int windowed, sgpu_context **ctx) {
  sgpud_context_req q = {node, window_base, window_size, windowed ? 1u : 0u};
  return remote_new_context(dev, SGPUD_OP_CREATE_CONTEXT, &q, sizeof q, 0, ctx);
}

int sgpu__remote_create_context_vm(sgpu_device *dev, uint32_t node, sgpu_context **ctx) {
  sgpud_u32 q = {node, 0};
  return remote_new_context(dev, SGPUD_OP_CREATE_CONTEXT_VM, &q, sizeof q, 1, ctx);
}

int sgpu__remote_map(sgpu_context *ctx, uint64_t address, uint64_t size, uint32_t access,
                     uint64_t *gpu_va) {
  sgpu_device *dev = ctx->dev;
  sgpud_map_req q = {ctx->id, access, address, size};
  sgpud_addr a = {0};
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_MAP, &q, sizeof q, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  sgpu__unlock(dev);
  if (!r) *gpu_va = a.address;
  return r;
}

int sgpu__remote_unmap(sgpu_context *ctx, uint64_t gpu_va, uint64_t size) {
  sgpu_device *dev = ctx->dev;
  sgpud_map_req q = {ctx->id, 0, gpu_va, size};
  LOCKED(call(dev, SGPUD_OP_UNMAP, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* Unlinks and frees ctx (a live context of a remote device). */
void sgpu__remote_destroy_context(sgpu_context *ctx) {
  sgpu_device *dev = ctx->dev;
  sgpud_u32 q = {ctx->id, 0};
  sgpu__lock(dev);
  call(dev, SGPUD_OP_DESTROY_CONTEXT, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL);
  if (ctx->prev) ctx->prev->next = ctx->next;
  else dev->contexts = ctx->next;
  if (ctx->next) ctx->next->prev = ctx->prev;
  sgpu__unlock(dev);
  ctx->magic = 0;
  free(ctx);
}

int sgpu__remote_submit(sgpu_device *dev, const sgpu_submit_command_args *a) {
  const sgpu_context *c = a->context;
  if (c && c->magic != SGPU_CONTEXT_MAGIC)
    return sgpu__fail(dev, SGPU_ERROR_INVALID_CONTEXT, "context handle %p is not a live context",
                      (const void *)c);
  if (c && c->dev != dev)
    return sgpu__fail(dev, SGPU_ERROR_SUBMIT_CONTEXT_DEVICE, "context %u belongs to another device",
                      c->id);
  sgpud_submit_req q;
  memset(&q, 0, sizeof q);
  q.context_id = c ? c->id : 0;
  q.dma_buffer_segment_id = a->dma_buffer_segment_id;
  q.dma_buffer_physical_address = a->dma_buffer_physical_address;
  q.dma_buffer_size = a->dma_buffer_size;
  q.dma_buffer_submission_start_offset = a->dma_buffer_submission_start_offset;
  q.dma_buffer_submission_end_offset = a->dma_buffer_submission_end_offset;
  q.dma_buffer_private_data = (uint64_t)(uintptr_t)a->dma_buffer_private_data;
  q.dma_buffer_private_data_size = a->dma_buffer_private_data_size;
  q.dma_buffer_private_data_submission_start_offset =
      a->dma_buffer_private_data_submission_start_offset;
  q.dma_buffer_private_data_submission_end_offset = a->dma_buffer_private_data_submission_end_offset;
  q.submission_fence_id = a->submission_fence_id;
  q.vidpn_source_id = a->vidpn_source_id;
  q.flip_interval = a->flip_interval;
  q.flags = a->flags.value;
  q.engine_ordinal = a->engine_ordinal;
  q.dma_buffer_virtual_address = a->dma_buffer_virtual_address;
  q.node_ordinal = a->node_ordinal;
  LOCKED(call(dev, SGPUD_OP_SUBMIT, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* Waits go in slices of at most WAIT_SLICE_MS of device time, the device
 * lock released between them: another thread of the program can submit,
 * read or wait meanwhile, as in-process (where a wait releases the lock
 * while time advances).  The server answers a slice at once when the wait
 * is over; a TIMEOUT of the whole is worded as in-process. */
#define WAIT_SLICE_MS 1u

static int sliced(sgpu_device *dev, uint32_t op, sgpud_wait_req q, void *ans, size_t ans_size) {
  uint32_t left = q.timeout_ms;
  for (;;) {
    q.timeout_ms = left < WAIT_SLICE_MS ? left : WAIT_SLICE_MS;
    sgpu__lock(dev);
    int r = call(dev, op, &q, sizeof q, NULL, 0, ans, ans_size, NULL, 0, NULL);
    sgpu__unlock(dev);
    if (r != SGPU_ERROR_TIMEOUT || left == q.timeout_ms) return r;
    left -= q.timeout_ms;
    sched_yield(); /* let a thread blocked on the lock have it */
  }
}

int sgpu__remote_wait_fence(sgpu_device *dev, uint32_t node, uint32_t fence, uint32_t timeout_ms) {
  sgpud_wait_req q = {node, fence, timeout_ms, 0};
  int r = sliced(dev, SGPUD_OP_WAIT_FENCE, q, NULL, 0);
  if (r == SGPU_ERROR_TIMEOUT)
    sgpu__fail(dev, r, "fence %u on node %u not reached within %u ms (%llu cycles)", fence, node,
               timeout_ms, (unsigned long long)timeout_ms * SGPU_CYCLES_PER_MS);
  return r;
}

int sgpu__remote_wait_idle(sgpu_device *dev, uint32_t timeout_ms) {
  sgpud_wait_req q = {0, 0, timeout_ms, 0};
  int r = sliced(dev, SGPUD_OP_WAIT_IDLE, q, NULL, 0);
  if (r == SGPU_ERROR_TIMEOUT) sgpu__fail(dev, r, "work still pending after %u ms", timeout_ms);
  return r;
}

int sgpu__remote_get_fence(sgpu_device *dev, uint32_t node, sgpu_fence_info *info) {
  sgpud_u32 q = {node, 0};
  LOCKED(call(dev, SGPUD_OP_GET_FENCE, &q, sizeof q, NULL, 0, info, sizeof *info, NULL, 0, NULL));
}

int sgpu__remote_next_event(sgpu_device *dev, sgpu_event *ev, uint32_t timeout_ms) {
  sgpud_wait_req q = {0, 0, timeout_ms, 0};
  sgpud_event w;
  int r = sliced(dev, SGPUD_OP_NEXT_EVENT, q, &w, sizeof w);
  if (r == SGPU_ERROR_TIMEOUT) sgpu__fail(dev, r, "no event within %u ms", timeout_ms);
  if (r) return r;
  memset(ev, 0, sizeof *ev);
  ev->type = w.type;
  ev->node_ordinal = w.node_ordinal;
  ev->fence_id = w.fence_id;
  ev->fence_id64 = w.fence_id64;
  ev->last_completed_fence_id = w.last_completed_fence_id;
  ev->flags = w.flags;
  ev->fault_reason = w.fault_reason;
  ev->fault_address = w.fault_address;
  ev->fault_opcode = w.fault_opcode;
  ev->source_id = w.source_id;
  ev->scanout_address = w.scanout_address;
  ev->vblank_count = w.vblank_count;
  ev->cycle = w.cycle;
  ev->private_data = (void *)(uintptr_t)w.private_data; /* the program's own pointer */
  ev->private_data_size = w.private_data_size;
  ev->context_id = w.context_id;
  ev->guilty_count = w.guilty_count;
  ev->banned = w.banned;
  ev->resubmitted = w.resubmitted;
  ev->priority = w.priority;
  ev->fault_va = w.fault_va;
  ev->fault_access = w.fault_access;
  ev->fault_unit = w.fault_unit;
  return 0;
}

int sgpu__remote_get_stats(sgpu_device *dev, sgpu_stats *stats) {
  LOCKED(call(dev, SGPUD_OP_GET_STATS, NULL, 0, NULL, 0, stats, sizeof *stats, NULL, 0, NULL));
}

int sgpu__remote_get_cycles(sgpu_device *dev, uint64_t *cycles) {
  sgpud_addr a = {0};
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_GET_CYCLES, NULL, 0, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  sgpu__unlock(dev);
  if (!r) *cycles = a.address;
  return r;
}

/* A list answer: at most max items of item_size bytes (capped at cap);
 * returns how many the server has (the caller got min(that, max)). */
static int call_list(sgpu_device *dev, uint32_t op, size_t cap, void *items, size_t max,
                     size_t item_size, const char *what) {
  if (max > cap) max = cap;
  sgpud_u32 q = {(uint32_t)max, 0};
  sgpud_list_ans a = {0, 0};
  size_t got = 0;
  sgpu__lock(dev);
  int r = call(dev, op, &q, sizeof q, NULL, 0, &a, sizeof a, items, max * item_size, &got);
  if (!r && got % item_size) r = broken(dev, what, 0);
  sgpu__unlock(dev);
  return r ? r : a.count > INT32_MAX ? INT32_MAX : (int)a.count;
}

int sgpu__remote_list_programs(sgpu_device *dev, sgpu_program_info *programs, size_t max) {
  return call_list(dev, SGPUD_OP_LIST_PROGRAMS, SGPUD_MAX_PROGRAMS_LISTED, programs, max,
                   sizeof *programs, "malformed program list");
}

int sgpu__remote_get_areas(sgpu_device *dev, sgpu_area *areas, size_t max) {
  return call_list(dev, SGPUD_OP_GET_AREAS, SGPUD_MAX_AREAS_LISTED, areas, max, sizeof *areas,
                   "malformed area list");
}

int sgpu__remote_get_ring_info(sgpu_device *dev, uint32_t node, sgpu_ring_info *info) {
  sgpud_u32 q = {node, 0};
  LOCKED(call(dev, SGPUD_OP_GET_RING_INFO, &q, sizeof q, NULL, 0, info, sizeof *info, NULL, 0,
              NULL));
}

int sgpu__remote_reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value) {
  sgpud_u32 q = {offset, 0}, a = {0, 0};
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_REG_READ, &q, sizeof q, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  sgpu__unlock(dev);
  if (!r) *value = a.value;
  return r;
}

int sgpu__remote_reg_write(sgpu_device *dev, uint32_t offset, uint32_t value) {
  sgpud_reg_req q = {offset, value};
  LOCKED(call(dev, SGPUD_OP_REG_WRITE, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

int sgpu__remote_validate(sgpu_device *dev, const sgpu_validate_submit_command_args *a) {
  sgpud_validate_req q;
  memset(&q, 0, sizeof q);
  q.commands = a->commands;
  q.hw_queue_progress_fence_id = a->hw_queue_progress_fence_id;
  q.command_length = a->command_length;
  q.flags = a->flags.value;
  q.context_count = a->context_count;
  for (uint32_t i = 0; i < a->context_count && i < 64; i++) q.context_id[i] = a->context[i]->id;
  LOCKED(call(dev, SGPUD_OP_VALIDATE, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* ------------------------------------------------------------ display */
int sgpu__remote_get_display_mode(sgpu_device *dev, uint32_t source, sgpu_display_mode *m) {
  sgpud_u32 q = {source, 0};
  LOCKED(call(dev, SGPUD_OP_GET_DISPLAY, &q, sizeof q, NULL, 0, m, sizeof *m, NULL, 0, NULL));
}

int sgpu__remote_set_display_mode(sgpu_device *dev, uint32_t source, const sgpu_display_mode *m) {
  sgpud_display_req q;
  memset(&q, 0, sizeof q);
  q.source = source;
  q.mode = *m;
  LOCKED(call(dev, SGPUD_OP_SET_DISPLAY, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* The frame's description, then its pixels in pieces: all under the lock,
 * so another thread's capture cannot replace the server's copy meanwhile. */
int sgpu__remote_capture_frame(sgpu_device *dev, uint32_t source, sgpu_frame *frame) {
  sgpud_u32 q = {source, 0};
  sgpud_frame_ans a;
  memset(&a, 0, sizeof a);
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_CAPTURE, &q, sizeof q, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  uint64_t bytes = (uint64_t)a.width * a.height * 3;
  if (!r && bytes > (uint64_t)SGPU_TIMING_VGA_H_ACTIVE * SGPU_TIMING_VGA_V_ACTIVE * 3)
    r = broken(dev, "malformed frame answer", 0);
  uint8_t *px = NULL;
  if (!r && !(px = malloc(bytes ? (size_t)bytes : 1)))
    r = sgpu__fail(dev, SGPU_ERROR_NO_MEM, "out of host memory for a %ux%u frame", a.width,
                   a.height);
  for (uint32_t off = 0; !r && off < bytes;) {
    uint32_t n = bytes - off > SGPUD_MAX_DATA ? SGPUD_MAX_DATA : (uint32_t)(bytes - off);
    sgpud_frame_read_req fq = {off, n};
    size_t got = 0;
    r = call(dev, SGPUD_OP_FRAME_READ, &fq, sizeof fq, NULL, 0, NULL, 0, px + off, n, &got);
    if (!r && got != n) r = broken(dev, "short frame answer", 0);
    off += n;
  }
  sgpu__unlock(dev);
  if (r) {
    free(px);
    return r;
  }
  frame->pixels = px;
  frame->width = a.width;
  frame->height = a.height;
  frame->source = a.source;
  frame->scanout_address = a.scanout_address;
  frame->frame_number = a.frame_number;
  frame->start_cycle = a.start_cycle;
  return 0;
}

int sgpu__remote_enable_vsync(sgpu_device *dev, uint32_t source, int enable) {
  sgpud_u32 q = {source, enable ? 1u : 0u};
  LOCKED(call(dev, SGPUD_OP_ENABLE_VSYNC, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL));
}

/* ------------------------------------------------------------ device-wide queries */
int sgpu__remote_read_identity(sgpu_device *dev, sgpu_identity *id) {
  LOCKED(call(dev, SGPUD_OP_READ_IDENTITY, NULL, 0, NULL, 0, id, sizeof *id, NULL, 0, NULL));
}

int sgpu__remote_get_link_stats(sgpu_device *dev, sgpu_link_stats *stats) {
  LOCKED(call(dev, SGPUD_OP_LINK_STATS, NULL, 0, NULL, 0, stats, sizeof *stats, NULL, 0, NULL));
}

int sgpu__remote_ping(sgpu_device *dev, uint32_t timeout_ms, uint32_t *rtt_us) {
  sgpud_u32 q = {timeout_ms, 0}, a = {0, 0};
  sgpu__lock(dev);
  int r = call(dev, SGPUD_OP_PING, &q, sizeof q, NULL, 0, &a, sizeof a, NULL, 0, NULL);
  sgpu__unlock(dev);
  if (!r) *rtt_us = a.value;
  return r;
}

/* In pieces of at most SGPUD_MAX_RUN_CYCLES, the lock released between
 * them (as the waits are): the run is exact, the chip is shared. */
int sgpu__remote_run_cycles(sgpu_device *dev, uint64_t cycles) {
  do {
    sgpud_addr q = {cycles < SGPUD_MAX_RUN_CYCLES ? cycles : SGPUD_MAX_RUN_CYCLES};
    sgpu__lock(dev);
    int r = call(dev, SGPUD_OP_RUN_CYCLES, &q, sizeof q, NULL, 0, NULL, 0, NULL, 0, NULL);
    sgpu__unlock(dev);
    if (r) return r;
    cycles -= q.address;
    if (cycles) sched_yield();
  } while (cycles);
  return 0;
}

/* The calls a program of a shared device may not make, and why. */
int sgpu__remote_refused(sgpu_device *dev, const char *fn) {
  const char *why = "it is not carried by sgpud";
  if (!strcmp(fn, "sgpu_reset_engine") || !strcmp(fn, "sgpu_reset_from_timeout"))
    why = "the node runs other programs' work too; the server resets a faulted node itself, at "
          "once (the program whose work faulted gets its DMA_FAULTED, DMA_DROPPED and "
          "ENGINE_RESET events)";
  else if (!strcmp(fn, "sgpu_set_ban_threshold"))
    why = "the ban threshold is the server's device's, the same for every program";
  else if (!strcmp(fn, "sgpu_set_context_priority"))
    why = "the server keeps each node's programs' fences in one order, which a high-priority "
          "ring completing ahead of the normal one would break; contexts through sgpud are "
          "normal priority";
  else if (!strcmp(fn, "sgpu_set_time_slice"))
    why = "the server keeps each node's programs' fences in one order, which a second normal "
          "ring completing ahead of the first would break; its nodes keep quantum 0";
  else if (!strcmp(fn, "sgpu_preempt"))
    why = "the node runs other programs' work too, which a preemption would stop and leave for "
          "them to send again";
  return sgpu__fail(dev, SGPU_ERROR_NOT_SUPPORTED, "%s is refused through sgpud: %s", fn, why);
}
