/* link_chan.c — byte channels under the link client: a TCP connection and a
 * serial port (termios2 raw mode, exclusive open, any baud rate).
 *
 * termios2 (asm/termbits.h) cannot share a file with <termios.h>, so the
 * serial port is set up only through TCGETS2/TCSETS2 with BOTHER: standard
 * and non-standard rates alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <asm/termbits.h>

#include "link.h"

typedef struct fd_chan {
  int fd;
  int is_sock;
  char what[96]; /* "tcp:HOST:PORT" / "serial:/dev/X" for messages */
} fd_chan;

static int fd_send(void *ctx, const uint8_t *data, size_t len, char *why, size_t why_size) {
  fd_chan *c = ctx;
  while (len) {
    ssize_t n = c->is_sock ? send(c->fd, data, len, MSG_NOSIGNAL) : write(c->fd, data, len);
    if (n > 0) {
      data += n;
      len -= (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd p = {c->fd, POLLOUT, 0};
      int pr = poll(&p, 1, 2000);
      if (pr > 0 && !(p.revents & (POLLERR | POLLHUP | POLLNVAL))) continue;
      snprintf(why, why_size, "%s: the device does not take bytes (%s)", c->what,
               pr == 0 ? "blocked for 2 s" : "hung up");
      return -1;
    }
    snprintf(why, why_size, "%s: write failed: %s", c->what, n < 0 ? strerror(errno) : "0 bytes");
    return -1;
  }
  return 0;
}

static long fd_recv(void *ctx, uint8_t *buf, size_t cap, int timeout_ms, char *why,
                    size_t why_size) {
  fd_chan *c = ctx;
  struct pollfd p = {c->fd, POLLIN, 0};
  for (;;) {
    int pr = poll(&p, 1, timeout_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) {
      snprintf(why, why_size, "%s: poll failed: %s", c->what, strerror(errno));
      return -1;
    }
    if (pr == 0) return 0;
    break;
  }
  ssize_t n = c->is_sock ? recv(c->fd, buf, cap, 0) : read(c->fd, buf, cap);
  if (n > 0) return (long)n;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
  if (n == 0)
    snprintf(why, why_size, "%s: the device closed the connection", c->what);
  else
    snprintf(why, why_size, "%s: read failed: %s (unplugged?)", c->what, strerror(errno));
  return -1;
}

static void fd_close(void *ctx) {
  fd_chan *c = ctx;
  if (c->fd >= 0) close(c->fd);
  free(c);
}

int sgpu_link_chan_tcp(const char *host, uint32_t port, sgpu_link_chan *chan, char *msg,
                       size_t msg_size) {
  char ps[16];
  snprintf(ps, sizeof ps, "%u", port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  int g = getaddrinfo(host, ps, &hints, &res);
  if (g) {
    snprintf(msg, msg_size, "tcp:%s:%u: host not found: %s", host, port, gai_strerror(g));
    return SGPU_ERROR_NO_DEVICE;
  }
  int fd = -1, err = 0;
  for (struct addrinfo *a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    err = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    snprintf(msg, msg_size, "tcp:%s:%u: cannot connect: %s (is sgpu-sim --listen running?)", host,
             port, strerror(err));
    return SGPU_ERROR_NO_DEVICE;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fd_chan *c = calloc(1, sizeof *c);
  if (!c) {
    close(fd);
    snprintf(msg, msg_size, "out of memory for the tcp channel");
    return SGPU_ERROR_NO_MEM;
  }
  c->fd = fd;
  c->is_sock = 1;
  snprintf(c->what, sizeof c->what, "tcp:%s:%u", host, port);
  chan->ctx = c;
  chan->send = fd_send;
  chan->recv = fd_recv;
  chan->close = fd_close;
  return 0;
}

int sgpu_link_chan_serial(const char *path, uint32_t baud, sgpu_link_chan *chan, char *msg,
                          size_t msg_size) {
  int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(msg, msg_size, "serial:%s: cannot open: %s", path, strerror(errno));
    return errno == ENOENT ? SGPU_ERROR_NO_DEVICE : SGPU_ERROR_IO;
  }
  struct termios2 t;
  if (ioctl(fd, TCGETS2, &t) != 0) {
    snprintf(msg, msg_size, "serial:%s: not a terminal: %s", path, strerror(errno));
    close(fd);
    return SGPU_ERROR_IO;
  }
  if (ioctl(fd, TIOCEXCL) != 0) {
    snprintf(msg, msg_size, "serial:%s: cannot get exclusive access: %s", path, strerror(errno));
    close(fd);
    return SGPU_ERROR_IO;
  }
  /* raw mode (what cfmakeraw does), 8N1, receiver on, no modem control */
  t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
                           IXOFF | IXANY);
  t.c_oflag &= ~(tcflag_t)OPOST;
  t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | CBAUD | (CBAUD << IBSHIFT));
  t.c_cflag |= CS8 | CREAD | CLOCAL | BOTHER | (BOTHER << IBSHIFT);
  t.c_ispeed = t.c_ospeed = baud;
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  if (ioctl(fd, TCSETS2, &t) != 0) {
    snprintf(msg, msg_size, "serial:%s: cannot set %u baud raw mode: %s", path, baud,
             strerror(errno));
    close(fd);
    return SGPU_ERROR_IO;
  }
  ioctl(fd, TCFLSH, TCIOFLUSH);
  fd_chan *c = calloc(1, sizeof *c);
  if (!c) {
    close(fd);
    snprintf(msg, msg_size, "out of memory for the serial channel");
    return SGPU_ERROR_NO_MEM;
  }
  c->fd = fd;
  snprintf(c->what, sizeof c->what, "serial:%s", path);
  chan->ctx = c;
  chan->send = fd_send;
  chan->recv = fd_recv;
  chan->close = fd_close;
  return 0;
}
