/* test_link_hostile.c — the library's link client against a hostile device.
 *
 * A device thread (tests/host/link_fake_dev.h behind a TCP socket on
 * 127.0.0.1) answers the library's frames correctly, then mangles the
 * answers as each test asks: random bytes between frames, bit flips (wrong
 * CRCs), truncated and dropped answers, ACKs with forged sequence numbers,
 * answers of the wrong kind or length, answers sent twice, an endless
 * stream of EVENT frames; or it never answers properly at all (only
 * garbage, silence, NAKs, wrong kinds, forged SEQs), or hangs up.
 *
 * What must hold, through the public API (sgpu_open on tcp:):
 *   - every call completes or fails with a specific error (SGPU_ERROR_IO,
 *     NO_DEVICE, TIMEOUT) and a one-line message, within a bounded time
 *     (HOSTILE_BOUND_S; a dead link fails the next call at once);
 *   - what a successful call returns is what the device holds: reads equal
 *     the device's memory and registers, writes land exactly once (the
 *     device counts the writes applied to SCRATCH, the doorbell stand-in);
 *   - no crash, leak or undefined behaviour (ASan/UBSan; valgrind too).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "host_test.h"
#include "link_fake_dev.h"

/* A call that fails gives up after the link's 1.5 s (plus the open's
 * retries); 10 s leaves room for a loaded machine and valgrind. */
#define HOSTILE_BOUND_S 10.0
#define MIXED_BYTES 8192u /* uploaded and read back under mixed hostility */

enum mode {
  M_CLEAN,      /* answers as a device does */
  M_MIXED,      /* every recoverable hostility, at random (the h->p_* rates) */
  M_GARBAGE,    /* random bytes only, never an answer */
  M_SILENT,     /* reads, never answers */
  M_NAK,        /* NAKs every frame (right SEQ) */
  M_WRONG_KIND, /* right SEQ, wrong kind or length (valid CRC) */
  M_FORGED,     /* ACKs of the right shape with other SEQs only */
  M_HANGUP,     /* closes the connection at the next frame */
  M_BAD_PING,   /* answers PING with another link version */
  M_V1,         /* a link version 1 device: NAKs every frame in CRC-16 frames */
};

typedef struct hostile {
  int lfd, port;
  pthread_t th;
  atomic_int mode;
  atomic_int flood;     /* send EVENT frames without end */
  atomic_int stop;
  pthread_mutex_t mu;   /* guards dev and the counters */
  fake_dev dev;
  uint64_t rng;
  /* M_MIXED rates, in 1/1000; p_req: of the chunks of request bytes, one
   * byte lost or one bit flipped on the way to the device */
  unsigned p_noise, p_forge, p_drop, p_corrupt, p_truncate, p_wrong, p_dup, p_req;
  /* the frame (its number in frames_in) lost before the device, and the
   * one whose answer is lost; 0: none */
  uint64_t lose_at, drop_at;
  /* what the thread did */
  uint64_t frames_in, answers_mangled, events_sent, forged_sent, noise_bytes, req_faults;
} hostile;

static uint32_t rnd(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return (uint32_t)(x >> 16);
}
static int chance(hostile *h, unsigned per_mille) { return rnd(&h->rng) % 1000 < per_mille; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Send everything or give up after 2 s (the client may be gone). */
static int send_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= (size_t)k;
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      struct pollfd q = {fd, POLLOUT, 0};
      if (poll(&q, 1, 2000) <= 0) return -1;
      continue;
    }
    return -1;
  }
  return 0;
}

static void send_noise(hostile *h, int fd, size_t n) {
  uint8_t b[256];
  if (n > sizeof b) n = sizeof b;
  for (size_t i = 0; i < n; i++) b[i] = (uint8_t)rnd(&h->rng);
  h->noise_bytes += n;
  send_all(fd, b, n);
}

/* An ACK shaped like the right answer (same count) but for another SEQ,
 * carrying garbage.  Not for the SEQ after rq's either: rq may be a repeat
 * the client sent before its first answer came, and the client may already
 * wait for that next SEQ, where a garbage ACK with a good CRC would be a
 * lie no protocol can tell from the truth. */
static void send_forged(hostile *h, int fd, const fake_req *rq) {
  uint32_t junk[SGPU_LINK_MAX_WORDS];
  for (unsigned i = 0; i < SGPU_LINK_MAX_WORDS; i++) junk[i] = rnd(&h->rng) ^ 0xDEAD0000u;
  uint16_t count = rq->cmd == SGPU_LINK_CMD_READ ? rq->count : rq->cmd == SGPU_LINK_CMD_PING ? 1 : 0;
  uint8_t seq = (uint8_t)(rq->seq + 2 + rnd(&h->rng) % 254); /* never rq->seq or rq->seq + 1 */
  /* with several frames in flight, none the client may wait for (a window
   * holds at most 32 frames) */
  if (h->dev.version >= 3) seq = (uint8_t)(rq->seq + 64 + rnd(&h->rng) % 128);
  uint8_t b[SGPU_LINK_MAX_RSP_FRAME];
  size_t n = fake_answer(seq, SGPU_LINK_KIND_ACK, 0, junk, count, b, sizeof b);
  h->forged_sent++;
  send_all(fd, b, n);
}

/* The right SEQ, but not an answer the request can take. */
static void send_wrong_kind(hostile *h, int fd, const fake_req *rq) {
  uint32_t junk[SGPU_LINK_MAX_WORDS];
  for (unsigned i = 0; i < SGPU_LINK_MAX_WORDS; i++) junk[i] = rnd(&h->rng) ^ 0xBAD00000u;
  uint16_t right = rq->cmd == SGPU_LINK_CMD_READ ? rq->count : rq->cmd == SGPU_LINK_CMD_PING ? 1 : 0;
  uint8_t b[SGPU_LINK_MAX_RSP_FRAME];
  size_t n;
  switch (rnd(&h->rng) % 3) {
    case 0: /* an EVENT numbered like the request */
      n = fake_answer(rq->seq, SGPU_LINK_KIND_EVENT, 0, junk, 1, b, sizeof b);
      break;
    case 1: /* an ACK of the wrong length */
      n = fake_answer(rq->seq, SGPU_LINK_KIND_ACK, 0, junk,
                      (uint16_t)(right == SGPU_LINK_MAX_WORDS ? right - 1 : right + 1), b, sizeof b);
      break;
    default: /* a NAK (the request was executed all the same): BAD_CRC, BAD_LENGTH, BAD_CMD
              * or TIMEOUT, after which the client repeats it (not BAD_ADDR: the client takes
              * that as final, the call fails ADDRESS_REFUSED, test_bad_address) */
      n = fake_answer(rq->seq, SGPU_LINK_KIND_NAK, (uint8_t)(1 + rnd(&h->rng) % 4), NULL, 0, b,
                      sizeof b);
      break;
  }
  send_all(fd, b, n);
}

/* What the device sends for one executed frame, by mode.  Returns -1 to
 * hang up. */
static int respond(hostile *h, int fd, int mode, const fake_req *rq, uint8_t *ans, size_t n) {
  switch (mode) {
    case M_SILENT:
    case M_GARBAGE:
      return 0;
    case M_HANGUP:
      return -1;
    case M_NAK: {
      uint8_t b[16];
      size_t k = fake_answer(rq->seq, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_BAD_CRC, NULL, 0, b, sizeof b);
      send_all(fd, b, k);
      return 0;
    }
    case M_WRONG_KIND:
      send_wrong_kind(h, fd, rq);
      return 0;
    case M_FORGED:
      send_forged(h, fd, rq);
      send_forged(h, fd, rq);
      return 0;
    case M_V1: {
      /* what a version-1 bridge answers to a version-2 frame: its CRC-16
       * (CCITT-FALSE, written here from its definition) does not check, so
       * NAK BAD_CRC, 8 bytes, with a CRC-16 of its own */
      uint8_t b[8] = {SGPU_LINK_SYNC, rq->seq, SGPU_LINK_KIND_NAK, SGPU_LINK_NAK_BAD_CRC, 0, 0, 0, 0};
      uint16_t c = 0xFFFF;
      for (int i = 1; i < 6; i++) {
        c ^= (uint16_t)(b[i] << 8);
        for (int k = 0; k < 8; k++) c = (c & 0x8000u) ? (uint16_t)((c << 1) ^ 0x1021u) : (uint16_t)(c << 1);
      }
      b[6] = (uint8_t)(c >> 8);
      b[7] = (uint8_t)c;
      send_all(fd, b, sizeof b);
      return 0;
    }
    case M_BAD_PING:
      if (rq->cmd == SGPU_LINK_CMD_PING) {
        uint32_t info = 9u | SGPU_LINK_MAX_WORDS << 8; /* a version no library speaks yet */
        uint8_t b[32];
        size_t k = fake_answer(rq->seq, SGPU_LINK_KIND_ACK, 0, &info, 1, b, sizeof b);
        send_all(fd, b, k);
        return 0;
      }
      break;
    case M_MIXED: {
      if (chance(h, h->p_noise)) send_noise(h, fd, 1 + rnd(&h->rng) % 48);
      if (chance(h, h->p_forge)) send_forged(h, fd, rq);
      unsigned r = rnd(&h->rng) % 1000, edge = 0;
      if (r < (edge += h->p_drop)) {
        h->answers_mangled++;
        return 0;
      }
      if (r < (edge += h->p_corrupt)) {
        uint8_t c[SGPU_LINK_MAX_RSP_FRAME];
        memcpy(c, ans, n);
        size_t bit = rnd(&h->rng) % (8 * n);
        c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        h->answers_mangled++;
        send_all(fd, c, n);
        return 0;
      }
      if (r < (edge += h->p_truncate)) {
        h->answers_mangled++;
        send_all(fd, ans, 1 + rnd(&h->rng) % (n - 1));
        return 0;
      }
      if (r < (edge += h->p_wrong)) {
        h->answers_mangled++;
        send_wrong_kind(h, fd, rq);
        return 0;
      }
      send_all(fd, ans, n);
      if (chance(h, h->p_dup)) send_all(fd, ans, n);
      return 0;
    }
    default:
      break;
  }
  send_all(fd, ans, n);
  return 0;
}

static void serve_conn(hostile *h, int fd) {
  uint8_t in[4096], ans[SGPU_LINK_MAX_RSP_FRAME];
  for (;;) {
    if (atomic_load(&h->stop)) return;
    int mode = atomic_load(&h->mode), flood = atomic_load(&h->flood);
    struct pollfd q = {fd, POLLIN, 0};
    int pr = poll(&q, 1, flood || mode == M_GARBAGE ? 1 : 20);
    if (pr < 0 && errno != EINTR) return;
    if (pr > 0) {
      ssize_t k = recv(fd, in, sizeof in, 0);
      if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) return;
      if (mode == M_MIXED && k > 1 && chance(h, h->p_req)) { /* a byte lost or damaged */
        size_t at = rnd(&h->rng) % (size_t)k;
        if (rnd(&h->rng) & 1) {
          memmove(in + at, in + at + 1, (size_t)k - at - 1);
          k--;
        } else {
          in[at] ^= (uint8_t)(1u << rnd(&h->rng) % 8);
        }
        h->req_faults++;
      }
      size_t off = 0;
      while (k > 0 && off < (size_t)k) {
        size_t used = 0, n = 0;
        fake_req rq;
        pthread_mutex_lock(&h->mu);
        if (h->lose_at && h->frames_in + 1 == h->lose_at) h->dev.lose_next = 1;
        int got = fake_feed(&h->dev, in + off, (size_t)k - off, &used, ans, sizeof ans, &n, &rq);
        if (got) h->frames_in++;
        if (got && h->drop_at == h->frames_in) n = 0; /* its answer is lost */
        int rc = got && n ? respond(h, fd, mode, &rq, ans, n) : 0;
        pthread_mutex_unlock(&h->mu);
        off += used;
        if (rc < 0) return;
      }
    }
    pthread_mutex_lock(&h->mu);
    if (flood) { /* as many EVENTs as the socket takes, without waiting */
      for (int i = 0; i < 8; i++) {
        uint8_t e[16];
        size_t n = fake_event(&h->dev, e, sizeof e);
        if (send(fd, e, n, MSG_NOSIGNAL | MSG_DONTWAIT) <= 0) break;
        h->events_sent++;
      }
    }
    if (mode == M_GARBAGE) {
      uint8_t b[64];
      for (size_t i = 0; i < sizeof b; i++) b[i] = (uint8_t)rnd(&h->rng);
      if (send(fd, b, sizeof b, MSG_NOSIGNAL | MSG_DONTWAIT) > 0) h->noise_bytes += sizeof b;
    }
    pthread_mutex_unlock(&h->mu);
  }
}

static void *serve(void *arg) {
  hostile *h = arg;
  while (!atomic_load(&h->stop)) {
    struct pollfd q = {h->lfd, POLLIN, 0};
    if (poll(&q, 1, 20) <= 0) continue;
    int fd = accept(h->lfd, NULL, NULL);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve_conn(h, fd);
    close(fd);
  }
  return NULL;
}

static hostile *hostile_start(int mode, uint32_t seed) {
  hostile *h = calloc(1, sizeof *h);
  assert_non_null(h);
  fake_init(&h->dev, seed);
  h->rng = 0x9E3779B97F4A7C15ull ^ seed;
  atomic_init(&h->mode, mode);
  atomic_init(&h->flood, 0);
  atomic_init(&h->stop, 0);
  pthread_mutex_init(&h->mu, NULL);
  h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(h->lfd >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(bind(h->lfd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(h->lfd, 4), 0);
  socklen_t al = sizeof a;
  assert_int_equal(getsockname(h->lfd, (struct sockaddr *)&a, &al), 0);
  h->port = ntohs(a.sin_port);
  assert_int_equal(pthread_create(&h->th, NULL, serve, h), 0);
  return h;
}

static void hostile_stop(hostile *h) {
  atomic_store(&h->stop, 1);
  pthread_join(h->th, NULL);
  close(h->lfd);
  pthread_mutex_destroy(&h->mu);
  free(h);
}

static void uri_of(const hostile *h, char *uri, size_t size) {
  snprintf(uri, size, "tcp:127.0.0.1:%d", h->port);
}

/* A failing call's result: the code wanted, a one-line message, in time. */
static void check_failure(sgpu_device *dev, int r, int want, double t0, const char *what) {
  double dt = now_s() - t0;
  const char *m = dev ? sgpu_last_error(dev) : "";
  fprintf(stderr, "%s: %d (%s) after %.3f s: %s\n", what, r, sgpu_strerror(r), dt, m);
  assert_int_equal(r, want);
  assert_true(dt < HOSTILE_BOUND_S);
  if (dev) {
    assert_true(m[0] != 0);
    assert_null(strchr(m, '\n'));
  }
}

static uint32_t dev_word(hostile *h, uint32_t addr) {
  pthread_mutex_lock(&h->mu);
  uint32_t v = h->dev.mem[addr / 4];
  pthread_mutex_unlock(&h->mu);
  return v;
}

/* ---------------------------------------------------------------- recoverable */
/* M_MIXED's answer faults, each in 1/1000 */
static void answer_faults(hostile *h, unsigned noise, unsigned forge, unsigned drop, unsigned corrupt,
                          unsigned truncate, unsigned wrong, unsigned dup) {
  h->p_noise = noise;
  h->p_forge = forge;
  h->p_drop = drop;
  h->p_corrupt = corrupt;
  h->p_truncate = truncate;
  h->p_wrong = wrong;
  h->p_dup = dup;
}

/* Every recoverable hostility at once, plus an endless EVENT stream: every
 * call succeeds, and returns what the device holds. */
static void mixed_run(uint32_t seed, int flood) {
  hostile *h = hostile_start(M_MIXED, seed);
  /* one answer in six is lost or unusable, one in ten has noise before it */
  answer_faults(h, 100, 100, 30, 50, 40, 40, 60);
  atomic_store(&h->flood, flood);
  char uri[64], msg[256];
  uri_of(h, uri, sizeof uri);
  sgpu_device *dev = NULL;
  double t0 = now_s();
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  if (r) fprintf(stderr, "open: %s\n", msg);
  assert_int_equal(r, 0);
  assert_true(now_s() - t0 < HOSTILE_BOUND_S);
  double worst = now_s() - t0;

  /* 150 doorbell writes: each applied exactly once, in order */
  pthread_mutex_lock(&h->mu);
  uint64_t before = h->dev.scratch_writes;
  pthread_mutex_unlock(&h->mu);
  for (uint32_t i = 0; i < 150; i++) {
    t0 = now_s();
    assert_int_equal(sgpu_reg_write(dev, SGPU_REG_SCRATCH, 0x5C000000u + i), 0);
    if (now_s() - t0 > worst) worst = now_s() - t0;
    if (i % 16 == 0) {
      uint32_t v = 0;
      assert_int_equal(sgpu_reg_read(dev, SGPU_REG_SCRATCH, &v), 0);
      assert_int_equal(v, 0x5C000000u + i);
    }
  }
  pthread_mutex_lock(&h->mu);
  uint64_t applied = h->dev.scratch_writes - before;
  uint32_t last = h->dev.reg[SGPU_REG_SCRATCH / 4];
  pthread_mutex_unlock(&h->mu);
  assert_int_equal(applied, 150);
  assert_int_equal(last, 0x5C000000u + 149);

  /* registers read right */
  for (int i = 0; i < 40; i++) {
    uint32_t id = 0, ms = 0;
    assert_int_equal(sgpu_reg_read(dev, SGPU_REG_ID, &id), 0);
    assert_int_equal(sgpu_reg_read(dev, SGPU_REG_MEM_SIZE, &ms), 0);
    assert_int_equal(id, SGPU_HW_MAGIC);
    assert_int_equal(ms, FAKE_MEM_BYTES);
  }

  /* memory the host never wrote reads as the device holds it */
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, MIXED_BYTES, 16, &a), 0);
  uint8_t *got = malloc(MIXED_BYTES), *want = malloc(MIXED_BYTES);
  assert_non_null(got);
  assert_non_null(want);
  t0 = now_s();
  assert_int_equal(sgpu_read(dev, a, got, MIXED_BYTES), 0);
  if (now_s() - t0 > worst) worst = now_s() - t0;
  for (uint32_t i = 0; i < MIXED_BYTES / 4; i++) {
    uint32_t w = dev_word(h, (uint32_t)a + 4 * i);
    memcpy(want + 4 * i, &w, 4);
  }
  assert_memory_equal(got, want, MIXED_BYTES);

  /* an upload (odd start and length: partial words too) lands and reads back */
  uint64_t rs = seed | 1;
  for (uint32_t i = 0; i < MIXED_BYTES; i++) want[i] = (uint8_t)rnd(&rs);
  t0 = now_s();
  assert_int_equal(sgpu_write(dev, a + 3, want + 3, MIXED_BYTES - 8), 0);
  if (now_s() - t0 > worst) worst = now_s() - t0;
  memset(got, 0, MIXED_BYTES);
  assert_int_equal(sgpu_read(dev, a + 3, got + 3, MIXED_BYTES - 8), 0);
  assert_memory_equal(got + 3, want + 3, MIXED_BYTES - 8);
  for (uint32_t i = 1; i < MIXED_BYTES / 4 - 2; i++) { /* whole words inside the range */
    uint32_t w = dev_word(h, (uint32_t)a + 4 * i);
    assert_memory_equal(&w, want + 4 * i, 4);
  }

  /* waiting for an event that never comes ends in time even under EVENT floods */
  sgpu_event ev;
  t0 = now_s();
  r = sgpu_next_event(dev, &ev, 300);
  check_failure(dev, r, SGPU_ERROR_TIMEOUT, t0, "next_event");

  pthread_mutex_lock(&h->mu);
  fprintf(stderr,
          "seed %u flood %d: %llu frames in, %llu answers mangled, %llu forged ACKs, %llu noise "
          "bytes, %llu EVENTs, %llu duplicate writes acknowledged, slowest call %.3f s\n",
          seed, flood, (unsigned long long)h->frames_in, (unsigned long long)h->answers_mangled,
          (unsigned long long)h->forged_sent, (unsigned long long)h->noise_bytes,
          (unsigned long long)h->events_sent, (unsigned long long)h->dev.writes_duplicate, worst);
  assert_true(h->answers_mangled > 20);
  assert_true(h->forged_sent > 20 && h->noise_bytes > 500);
  assert_true(h->dev.writes_duplicate > 0); /* repeats reached the device and were not applied */
  if (flood) assert_true(h->events_sent > 100);
  pthread_mutex_unlock(&h->mu);
  assert_true(worst < HOSTILE_BOUND_S);
  /* a version-2 device: one frame at a time, as before version 3 */
  sgpu_link_stats st;
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  assert_int_equal(st.version, 2);
  assert_int_equal(st.window_bytes, 0);
  assert_int_equal(st.in_flight_max, 1);
  free(got);
  free(want);
  sgpu_close(dev);
  hostile_stop(h);
}

static void test_mixed(void **state) {
  (void)state;
  mixed_run(1, 0);
}
static void test_mixed_event_flood(void **state) {
  (void)state;
  mixed_run(2, 1);
}

/* ---------------------------------------------------------------- hopeless */
/* A device that never answers properly: the open fails in bounded time. */
static void open_fails(int mode, int want) {
  hostile *h = hostile_start(mode, 7);
  char uri[64], msg[256] = "";
  uri_of(h, uri, sizeof uri);
  sgpu_device *dev = NULL;
  double t0 = now_s();
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  double dt = now_s() - t0;
  fprintf(stderr, "open against mode %d: %d (%s) after %.3f s: %s\n", mode, r, sgpu_strerror(r),
          dt, msg);
  assert_int_equal(r, want);
  assert_null(dev);
  assert_true(dt < HOSTILE_BOUND_S);
  assert_true(msg[0] && !strchr(msg, '\n'));
  pthread_mutex_lock(&h->mu);
  fprintf(stderr, "  device saw %llu frames\n", (unsigned long long)h->frames_in);
  pthread_mutex_unlock(&h->mu);
  hostile_stop(h);
}

static void test_open_garbage(void **state) {
  (void)state;
  open_fails(M_GARBAGE, SGPU_ERROR_IO);
}
static void test_open_silent(void **state) {
  (void)state;
  open_fails(M_SILENT, SGPU_ERROR_IO);
}
static void test_open_nak(void **state) {
  (void)state;
  open_fails(M_NAK, SGPU_ERROR_IO);
}
static void test_open_forged(void **state) {
  (void)state;
  open_fails(M_FORGED, SGPU_ERROR_IO);
}
static void test_open_bad_ping(void **state) {
  (void)state;
  open_fails(M_BAD_PING, SGPU_ERROR_NO_DEVICE);
}
/* A link version 1 device (CRC-16): refused with a message that says so. */
static void test_open_v1(void **state) {
  (void)state;
  hostile *h = hostile_start(M_V1, 7);
  char uri[64], msg[256] = "";
  uri_of(h, uri, sizeof uri);
  sgpu_device *dev = NULL;
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  fprintf(stderr, "open against a version 1 device: %d: %s\n", r, msg);
  assert_int_equal(r, SGPU_ERROR_NO_DEVICE);
  assert_null(dev);
  assert_non_null(strstr(msg, "link version 1"));
  assert_true(!strchr(msg, '\n'));
  pthread_mutex_lock(&h->mu);
  uint64_t frames = h->frames_in;
  pthread_mutex_unlock(&h->mu);
  assert_true(frames >= 1 && frames <= 2); /* refused at its first answer, no repeats */
  hostile_stop(h);
}

/* A device that turns hostile after the open: the call in progress fails
 * in bounded time with SGPU_ERROR_IO, the next one at once, and a buffer
 * of a failed read is never read past its end (ASan). */
static void turns(int mode, int flood) {
  hostile *h = hostile_start(M_CLEAN, 11);
  char uri[64], msg[256];
  uri_of(h, uri, sizeof uri);
  sgpu_device *dev = NULL;
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  assert_int_equal(r, 0);
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_read(dev, SGPU_REG_ID, &v), 0);
  atomic_store(&h->mode, mode);
  atomic_store(&h->flood, flood);
  uint8_t *buf = malloc(4096);
  assert_non_null(buf);
  double t0 = now_s();
  r = sgpu_read(dev, 0x1000, buf, 4096);
  char what[48];
  snprintf(what, sizeof what, "read, device now in mode %d", mode);
  check_failure(dev, r, SGPU_ERROR_IO, t0, what);
  t0 = now_s();
  r = sgpu_reg_write(dev, SGPU_REG_SCRATCH, 1);
  check_failure(dev, r, SGPU_ERROR_IO, t0, "the next call");
  assert_true(now_s() - t0 < 0.5); /* the link is dead: no new wait */
  free(buf);
  t0 = now_s();
  sgpu_close(dev); /* its register writes fail at once too */
  assert_true(now_s() - t0 < 0.5);
  hostile_stop(h);
}

static void test_turns_garbage(void **state) {
  (void)state;
  turns(M_GARBAGE, 0);
}
static void test_turns_silent_with_events(void **state) {
  (void)state;
  turns(M_SILENT, 1);
}
static void test_turns_wrong_kind(void **state) {
  (void)state;
  turns(M_WRONG_KIND, 0);
}
static void test_turns_forged(void **state) {
  (void)state;
  turns(M_FORGED, 1);
}
static void test_turns_nak(void **state) {
  (void)state;
  turns(M_NAK, 0);
}
static void test_hangup(void **state) {
  (void)state;
  turns(M_HANGUP, 0);
}

/* A display timing no chip has: frame capture fails instead of allocating
 * gigabytes or reading for hours. */
static void test_capture_bad_timing(void **state) {
  (void)state;
  hostile *h = hostile_start(M_CLEAN, 13);
  pthread_mutex_lock(&h->mu);
  h->dev.reg[SGPU_SOURCE_REG(0, SGPU_SREG_DISP_CONTROL) / 4] = 1u << SGPU_DISP_ENABLE_SHIFT;
  h->dev.reg[SGPU_SOURCE_REG(0, SGPU_SREG_DISP_TIMING) / 4] = 0xFFFFFFFFu;
  pthread_mutex_unlock(&h->mu);
  char uri[64], msg[256];
  uri_of(h, uri, sizeof uri);
  sgpu_device *dev = NULL;
  assert_int_equal(sgpu_open_detail(uri, &dev, msg, sizeof msg), 0);
  sgpu_frame f;
  double t0 = now_s();
  int r = sgpu_capture_frame(dev, 0, &f);
  check_failure(dev, r, SGPU_ERROR_IO, t0, "capture with timing 65535x65535");
  assert_non_null(strstr(sgpu_last_error(dev), "65535x65535"));
  assert_null(f.pixels);
  /* the link is still usable */
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_read(dev, SGPU_REG_ID, &v), 0);
  assert_int_equal(v, SGPU_HW_MAGIC);
  sgpu_close(dev);
  hostile_stop(h);
}

/* ---------------------------------------------------------------- version 3 */
/* A version-3 device (a receive FIFO, WRITEs applied in SEQ order only):
 * the client pipelines its writes.  What must hold besides the above:
 * every word of an upload written exactly once and the frames in order,
 * the doorbell values in order, and more than one frame in flight. */
#define WINDOW_BYTES (32u * 1024u)

static hostile *v3_start(int mode, uint32_t seed) {
  hostile *h = hostile_start(mode, seed);
  pthread_mutex_lock(&h->mu);
  h->dev.version = 3;
  pthread_mutex_unlock(&h->mu);
  return h;
}

/* window=on: the tests below are about the window's rules, so it is kept
 * open even where window=auto would find one full frame at a time faster
 * (here, with no wire, it would) */
static sgpu_device *open_ok(hostile *h) {
  char uri[80], msg[256];
  uri_of(h, uri, sizeof uri);
  strcat(uri, ",window=on");
  sgpu_device *dev = NULL;
  int r = sgpu_open_detail(uri, &dev, msg, sizeof msg);
  if (r) fprintf(stderr, "open: %s\n", msg);
  assert_int_equal(r, 0);
  return dev;
}

/* Upload `n` bytes of a pattern at `a` (whole words), and check the device
 * took each word once, the frames in order, and holds the pattern. */
static void upload_once(hostile *h, sgpu_device *dev, uint32_t a, uint32_t n, uint32_t seed) {
  uint8_t *want = malloc(n), *got = malloc(n);
  assert_non_null(want);
  assert_non_null(got);
  uint64_t rs = seed | 1;
  for (uint32_t i = 0; i < n; i++) want[i] = (uint8_t)rnd(&rs);
  pthread_mutex_lock(&h->mu);
  memset(h->dev.mem_applied + a / 4, 0, n / 4);
  h->dev.mem_last_end = 0;
  h->dev.mem_order_breaks = 0;
  pthread_mutex_unlock(&h->mu);
  double t0 = now_s();
  int r = sgpu_write(dev, a, want, n);
  if (r) fprintf(stderr, "upload: %s\n", sgpu_last_error(dev));
  assert_int_equal(r, 0);
  assert_true(now_s() - t0 < HOSTILE_BOUND_S);
  pthread_mutex_lock(&h->mu);
  uint32_t once = 0;
  for (uint32_t i = 0; i < n / 4; i++) once += h->dev.mem_applied[a / 4 + i] == 1;
  uint64_t breaks = h->dev.mem_order_breaks;
  int same = memcmp(h->dev.mem + a / 4, want, n) == 0;
  pthread_mutex_unlock(&h->mu);
  assert_int_equal(once, n / 4); /* each word applied exactly once */
  assert_int_equal(breaks, 0);   /* and in order */
  assert_true(same);
  r = sgpu_read(dev, a, got, n);
  if (r) fprintf(stderr, "read back: %s\n", sgpu_last_error(dev));
  assert_int_equal(r, 0);
  assert_memory_equal(got, want, n);
  free(want);
  free(got);
}

/* A clean line: several frames in flight, none repeated. */
static void test_window_clean(void **state) {
  (void)state;
  hostile *h = v3_start(M_CLEAN, 21);
  sgpu_device *dev = open_ok(h);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 5);
  sgpu_link_stats st;
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  fprintf(stderr, "version %u, window %u bytes, most frames in flight %u, %llu frames, %llu repeats\n",
          st.version, st.window_bytes, st.in_flight_max, (unsigned long long)st.frames_sent,
          (unsigned long long)st.retransmissions);
  assert_int_equal(st.version, 3);
  assert_int_equal(st.window_bytes, SGPU_LINK_RX_FIFO_BYTES - SGPU_LINK_MAX_REQ_FRAME);
  assert_true(st.in_flight_max >= 3);
  assert_int_equal(st.retransmissions, 0);
  assert_int_equal(st.out_of_order + st.renumbered + st.timeouts, 0);
  sgpu_close(dev);
  /* window=off: one frame at a time on the same device */
  char uri[80], msg[256];
  uri_of(h, uri, sizeof uri);
  strcat(uri, ",window=off");
  assert_int_equal(sgpu_open_detail(uri, &dev, msg, sizeof msg), 0);
  upload_once(h, dev, (uint32_t)a, 4096, 7);
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  assert_int_equal(st.version, 3);
  assert_int_equal(st.window_bytes, 0);
  assert_int_equal(st.in_flight_max, 1);
  sgpu_close(dev);
  /* window=auto (the default): it measures both frame sizes, then keeps to
   * the one that carries more; with no wire and no latency that is one
   * full frame at a time (a pipelined 32 KiB would be 512 frames) */
  uri_of(h, uri, sizeof uri);
  assert_int_equal(sgpu_open_detail(uri, &dev, msg, sizeof msg), 0);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 8);
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  fprintf(stderr, "window=auto: %llu frames, most in flight %u\n", (unsigned long long)st.frames_sent,
          st.in_flight_max);
  assert_int_equal(st.window_bytes, SGPU_LINK_RX_FIFO_BYTES - SGPU_LINK_MAX_REQ_FRAME);
  assert_true(st.in_flight_max >= 2); /* the first frames measure the pipelined size */
  assert_true(st.frames_sent < 400);
  sgpu_close(dev);
  hostile_stop(h);
}

/* Faults both ways (requests lose a byte or a bit, answers are dropped,
 * damaged, truncated, doubled, wrong, forged far from the window): the
 * go-back-N repeats reach a device that has applied some of them, and
 * still each write lands once, in order. */
static void window_mixed(uint32_t seed) {
  hostile *h = v3_start(M_MIXED, seed);
  /* rare enough that the line is clean (32 good frames) often, so the
   * window opens again between faults */
  answer_faults(h, 10, 10, 2, 2, 2, 2, 10);
  /* per chunk of request bytes: with a 2048-byte FIFO the window holds six
   * full frames, and a chunk is several of them */
  h->p_req = 20;
  sgpu_device *dev = open_ok(h);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  for (uint32_t k = 0; k < 4; k++) upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, seed * 7 + k);
  /* doorbells: each once, in order */
  pthread_mutex_lock(&h->mu);
  uint64_t before = h->dev.scratch_writes, skips = h->dev.scratch_skips;
  pthread_mutex_unlock(&h->mu);
  for (uint32_t i = 0; i < 150; i++) {
    assert_int_equal(sgpu_reg_write(dev, SGPU_REG_SCRATCH, 0x5C000000u + i), 0);
    if (i % 16 == 0) {
      uint32_t v = 0;
      assert_int_equal(sgpu_reg_read(dev, SGPU_REG_SCRATCH, &v), 0);
      assert_int_equal(v, 0x5C000000u + i);
    }
  }
  sgpu_link_stats st;
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  pthread_mutex_lock(&h->mu);
  fprintf(stderr,
          "seed %u: %llu frames in, %llu request faults, %llu answers mangled, %llu OUT_OF_ORDER, "
          "%llu duplicates; client: %u most in flight, %llu repeats, %llu timeouts, %llu "
          "OUT_OF_ORDER, %llu renumbered\n",
          seed, (unsigned long long)h->frames_in, (unsigned long long)h->req_faults,
          (unsigned long long)h->answers_mangled, (unsigned long long)h->dev.out_of_order,
          (unsigned long long)h->dev.writes_duplicate, st.in_flight_max,
          (unsigned long long)st.retransmissions, (unsigned long long)st.timeouts,
          (unsigned long long)st.out_of_order, (unsigned long long)st.renumbered);
  assert_int_equal(h->dev.scratch_writes - before, 150);
  assert_int_equal(h->dev.scratch_skips, skips);
  assert_true(h->req_faults > 5 && h->answers_mangled > 5);
  assert_true(h->dev.writes_duplicate > 0); /* repeats of applied frames were not applied */
  pthread_mutex_unlock(&h->mu);
  assert_true(st.in_flight_max >= 3);
  sgpu_close(dev);
  hostile_stop(h);
}

static void test_window_mixed(void **state) {
  (void)state;
  window_mixed(31);
}
static void test_window_mixed2(void **state) {
  (void)state;
  window_mixed(32);
}

/* A frame lost on a clean line: the frames behind it are NAKed
 * OUT_OF_ORDER, and the client sends again from the lost one at once
 * instead of waiting for a timeout. */
static void test_window_out_of_order(void **state) {
  (void)state;
  hostile *h = v3_start(M_CLEAN, 23);
  sgpu_device *dev = open_ok(h);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  pthread_mutex_lock(&h->mu);
  h->lose_at = h->frames_in + 40;
  pthread_mutex_unlock(&h->mu);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 9);
  sgpu_link_stats st;
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  pthread_mutex_lock(&h->mu);
  uint64_t ooo = h->dev.out_of_order;
  pthread_mutex_unlock(&h->mu);
  fprintf(stderr, "one frame lost: %llu OUT_OF_ORDER sent, client %llu seen, %llu repeats, %llu timeouts\n",
          (unsigned long long)ooo, (unsigned long long)st.out_of_order,
          (unsigned long long)st.retransmissions, (unsigned long long)st.timeouts);
  assert_true(ooo >= 1);
  assert_true(st.out_of_order >= 1);
  /* (no test of timeouts: after a failure the line is noisy, whose floor
   * on tcp: is 1 ms, which a loaded machine may exceed) */
  assert_int_equal(st.renumbered, 0);
  assert_true(st.retransmissions >= 1);
  /* an ACK lost and the next frame lost: the OUT_OF_ORDER NAKs behind
   * carry the SEQ of the frame whose ACK was lost, which retires it (it
   * must not be sent again as a new frame: renumbering it would apply it
   * twice) */
  pthread_mutex_lock(&h->mu);
  h->drop_at = h->frames_in + 40;
  h->lose_at = h->frames_in + 41;
  pthread_mutex_unlock(&h->mu);
  sgpu_link_stats s0;
  assert_int_equal(sgpu_get_link_stats(dev, &s0), 0);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 10);
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  assert_true(st.out_of_order > s0.out_of_order);
  assert_int_equal(st.renumbered, 0);
  sgpu_close(dev);
  hostile_stop(h);
}

/* A device whose bridge takes less memory than its MEM_SIZE says: the
 * library's own range check passes and the device refuses the frames past
 * its end (NAK BAD_ADDR).  Such a call fails SGPU_ERROR_ADDRESS_REFUSED
 * without repeating the frame, nothing of a refused frame (or of the frames
 * behind it in the window) is applied, and the link goes on. */
static void test_bad_address(void **state) {
  (void)state;
  hostile *h = v3_start(M_CLEAN, 27);
  sgpu_device *dev = open_ok(h);
  const uint32_t lim = FAKE_MEM_BYTES / 2, n = 16384;
  uint8_t *buf = malloc(n), *got = malloc(n);
  uint32_t *before = malloc(FAKE_MEM_BYTES);
  assert_non_null(buf);
  assert_non_null(got);
  assert_non_null(before);
  uint64_t rs = 27;
  for (uint32_t i = 0; i < n; i++) buf[i] = (uint8_t)rnd(&rs);
  pthread_mutex_lock(&h->mu);
  h->dev.mem_limit = lim;
  memcpy(before, h->dev.mem, FAKE_MEM_BYTES);
  memset(h->dev.mem_applied, 0, sizeof h->dev.mem_applied);
  uint64_t applied0 = h->dev.writes_applied;
  pthread_mutex_unlock(&h->mu);
  sgpu_link_stats s0, s1;
  assert_int_equal(sgpu_get_link_stats(dev, &s0), 0);

  /* wholly past the end: refused, not repeated, nothing applied */
  int r = sgpu_write_raw(dev, lim + 256, buf, 1024); /* raw: the staging area may be there */
  assert_int_equal(r, SGPU_ERROR_ADDRESS_REFUSED);
  fprintf(stderr, "refused: %s\n", sgpu_last_error(dev));
  assert_non_null(strstr(sgpu_last_error(dev), "NAK BAD_ADDR"));
  assert_string_equal(sgpu_strerror(SGPU_ERROR_ADDRESS_REFUSED),
                      "the device refused the address (outside its GPU memory or register block): "
                      "nothing was applied");
  assert_int_equal(sgpu_get_link_stats(dev, &s1), 0);
  assert_int_equal(s1.retransmissions, s0.retransmissions);
  assert_int_equal(s1.refused, s0.refused + 1);
  pthread_mutex_lock(&h->mu);
  assert_int_equal(h->dev.writes_applied, applied0);
  assert_memory_equal(h->dev.mem, before, FAKE_MEM_BYTES);
  pthread_mutex_unlock(&h->mu);

  /* a read past it: refused too */
  assert_int_equal(sgpu_read(dev, lim, got, 64), SGPU_ERROR_ADDRESS_REFUSED);

  /* straddling the end, several frames in flight: the words below the end
   * are written once each, none at or above it */
  r = sgpu_write_raw(dev, lim - n / 2, buf, n);
  assert_int_equal(r, SGPU_ERROR_ADDRESS_REFUSED);
  pthread_mutex_lock(&h->mu);
  for (uint32_t i = 0; i < n / 8; i++)
    assert_int_equal(h->dev.mem_applied[(lim - n / 2) / 4 + i], 1);
  assert_memory_equal((uint8_t *)h->dev.mem + lim - n / 2, buf, n / 2);
  assert_memory_equal((uint8_t *)h->dev.mem + lim, (uint8_t *)before + lim, FAKE_MEM_BYTES - lim);
  for (uint32_t i = lim / 4; i < FAKE_MEM_BYTES / 4; i++) assert_int_equal(h->dev.mem_applied[i], 0);
  pthread_mutex_unlock(&h->mu);

  /* the link goes on: an upload below the end lands once, in order */
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  assert_true(a + WINDOW_BYTES <= lim);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 12);
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_read(dev, SGPU_REG_ID, &v), 0);
  assert_int_equal(v, SGPU_HW_MAGIC);
  assert_int_equal(sgpu_get_link_stats(dev, &s1), 0);
  assert_int_equal(s1.refused, s0.refused + 3);
  free(buf);
  free(got);
  free(before);
  sgpu_close(dev);
  hostile_stop(h);
}

/* An answer lost in the middle of a window: the next ACK covers its frame
 * (cumulative), so nothing is sent again. */
static void test_window_cumulative_ack(void **state) {
  (void)state;
  hostile *h = v3_start(M_CLEAN, 25);
  sgpu_device *dev = open_ok(h);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  pthread_mutex_lock(&h->mu);
  h->drop_at = h->frames_in + 40;
  pthread_mutex_unlock(&h->mu);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 11);
  sgpu_link_stats st;
  assert_int_equal(sgpu_get_link_stats(dev, &st), 0);
  assert_int_equal(st.retransmissions, 0);
  assert_int_equal(st.timeouts, 0);
  sgpu_close(dev);
  hostile_stop(h);
}

/* A single-try PING lost: the device's last SEQ is the one before the
 * PING, outside the next window, so the client learns from the first
 * OUT_OF_ORDER that none of the window was applied and renumbers it.  A
 * PING whose answer alone was lost moved the device on: no renumbering. */
static void lost_ping(int answer_only) {
  hostile *h = v3_start(M_CLEAN, 27);
  sgpu_device *dev = open_ok(h);
  uint64_t a = 0;
  assert_int_equal(sgpu_alloc(dev, SGPU_SEGMENT_LOCAL, WINDOW_BYTES, 16, &a), 0);
  upload_once(h, dev, (uint32_t)a, 4096, 13);
  pthread_mutex_lock(&h->mu);
  if (answer_only)
    h->drop_at = h->frames_in + 1;
  else
    h->lose_at = h->frames_in + 1;
  pthread_mutex_unlock(&h->mu);
  uint32_t rtt = 0;
  assert_int_equal(sgpu_ping(dev, 50, &rtt), SGPU_ERROR_TIMEOUT);
  sgpu_link_stats s0, s1;
  assert_int_equal(sgpu_get_link_stats(dev, &s0), 0);
  upload_once(h, dev, (uint32_t)a, WINDOW_BYTES, 15);
  assert_int_equal(sgpu_get_link_stats(dev, &s1), 0);
  fprintf(stderr, "PING %s lost: %llu renumbered, %llu OUT_OF_ORDER, %llu timeouts after it\n",
          answer_only ? "answer" : "request", (unsigned long long)(s1.renumbered - s0.renumbered),
          (unsigned long long)(s1.out_of_order - s0.out_of_order),
          (unsigned long long)(s1.timeouts - s0.timeouts));
  assert_int_equal(s1.pings_lost, 1);
  assert_int_equal(s1.renumbered - s0.renumbered, answer_only ? 0 : 1);
  /* and a register read sees it all */
  uint32_t v = 0;
  assert_int_equal(sgpu_reg_read(dev, SGPU_REG_ID, &v), 0);
  assert_int_equal(v, SGPU_HW_MAGIC);
  sgpu_close(dev);
  hostile_stop(h);
}

static void test_window_lost_ping(void **state) {
  (void)state;
  lost_ping(0);
}
static void test_window_lost_ping_answer(void **state) {
  (void)state;
  lost_ping(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mixed),
      cmocka_unit_test(test_mixed_event_flood),
      cmocka_unit_test(test_open_garbage),
      cmocka_unit_test(test_open_silent),
      cmocka_unit_test(test_open_nak),
      cmocka_unit_test(test_open_forged),
      cmocka_unit_test(test_open_bad_ping),
      cmocka_unit_test(test_open_v1),
      cmocka_unit_test(test_turns_garbage),
      cmocka_unit_test(test_turns_silent_with_events),
      cmocka_unit_test(test_turns_wrong_kind),
      cmocka_unit_test(test_turns_forged),
      cmocka_unit_test(test_turns_nak),
      cmocka_unit_test(test_hangup),
      cmocka_unit_test(test_capture_bad_timing),
      cmocka_unit_test(test_window_clean),
      cmocka_unit_test(test_window_mixed),
      cmocka_unit_test(test_window_mixed2),
      cmocka_unit_test(test_window_out_of_order),
      cmocka_unit_test(test_window_cumulative_ack),
      cmocka_unit_test(test_bad_address),
      cmocka_unit_test(test_window_lost_ping),
      cmocka_unit_test(test_window_lost_ping_answer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
