/* link_frame.h — frame codec of the host link (docs/link-protocol.md).
 *
 * Pure functions, no I/O, no allocation, no global state: the serial, usb
 * and tcp transports share it.  The host encodes request frames (WRITE,
 * READ, PING) and decodes the device's answers and events (ACK, NAK, EVENT)
 * with an incremental decoder fed byte by byte or by chunks of any size.
 *
 * Every constant comes from sgpu_hw.h (SGPU_LINK_*), generated from the
 * LINK_* section of tools/hwspec.py.
 */
#ifndef SGPU_LINK_FRAME_H
#define SGPU_LINK_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu_hw.h"

/* Largest frames each way (a full burst of SGPU_LINK_MAX_WORDS words). */
#define SGPU_LINK_MAX_REQ_FRAME \
  (SGPU_LINK_REQ_HDR_BYTES + 4u * SGPU_LINK_MAX_WORDS + SGPU_LINK_CRC_BYTES)
#define SGPU_LINK_MAX_RSP_FRAME \
  (SGPU_LINK_RSP_HDR_BYTES + 4u * SGPU_LINK_MAX_WORDS + SGPU_LINK_CRC_BYTES)

/* Results.  A range of their own (the library's sgpu_error codes stop above
 * -200 and the assembler's are -200..-299); a transport maps a link failure
 * to SGPU_ERROR_IO. */
enum sgpu_link_status {
  SGPU_LINK_NEED_MORE = 0, /* decoder: every byte consumed, no frame finished */
  SGPU_LINK_FRAME = 1,     /* decoder: a valid frame is in *frame */
  /* encoder */
  SGPU_LINK_ERR_INVALID_ARG = -300, /* NULL pointer (or NULL data with words) */
  SGPU_LINK_ERR_NO_SPACE = -301,    /* output buffer smaller than the frame */
  SGPU_LINK_ERR_BAD_CMD = -302,     /* CMD not WRITE/READ/PING, or KIND not ACK/NAK/EVENT */
  SGPU_LINK_ERR_BAD_FLAGS = -303,   /* reserved FLAGS bits, or flags a command has no use for */
  SGPU_LINK_ERR_BAD_ADDR = -304,    /* READ/WRITE address not 4-byte aligned */
  /* decoder rejections (the frame is dropped, the decoder resynchronises on
   * the next SYNC after the rejected frame's own SYNC) */
  SGPU_LINK_ERR_BAD_CRC = -310,    /* CRC mismatch */
  SGPU_LINK_ERR_BAD_LENGTH = -311, /* COUNT above SGPU_LINK_MAX_WORDS (encoder: READ/WRITE
                                      COUNT 0 or above it, PING COUNT not 0) */
  SGPU_LINK_ERR_BAD_COUNT = -312,  /* COUNT not allowed for the kind (NAK with data,
                                      EVENT without exactly one word) */
  SGPU_LINK_ERR_BAD_KIND = -313,   /* KIND not ACK, NAK or EVENT */
  SGPU_LINK_ERR_BAD_INFO = -314,   /* INFO invalid for the kind (reserved ACK bits, unknown
                                      NAK reason, EVENT INFO not 0); CRC was good */
  SGPU_LINK_ERR_TRUNCATED = -315,  /* the line went quiet inside a frame */
};

/* Static one-line text of any sgpu_link_status value. */
const char *sgpu_link_strerror(int code);
/* Name of a NAK reason ("BAD_CRC"), or NULL when it is not defined. */
const char *sgpu_link_nak_name(uint32_t reason);

/* CRC-32/MPEG-2 (poly SGPU_LINK_CRC_POLY 0x04C11DB7, init SGPU_LINK_CRC_INIT
 * 0xFFFFFFFF, MSB first, no reflection, no final xor), continued from `crc`
 * over `len` bytes.  sgpu_link_crc32(SGPU_LINK_CRC_INIT, "123456789", 9) ==
 * 0x0376E6E7; a frame checked together with its CRC (sent high byte first)
 * leaves 0. */
uint32_t sgpu_link_crc32(uint32_t crc, const void *data, size_t len);

/* 1 when the n bytes hold an ACK or NAK of link version 1 (CRC-16/CCITT-FALSE,
 * at most one data word: what a version-1 device answers to a PING), so a
 * client can say why such a device does not answer. */
int sgpu_link_v1_answer(const uint8_t *p, size_t n);

/* ------------------------------------------------------------ requests */
typedef struct sgpu_link_request {
  uint8_t seq;          /* sequence number */
  uint8_t cmd;          /* SGPU_LINK_CMD_* */
  uint8_t flags;        /* SGPU_LINK_FLAG_* (BYTE_DISABLE WRITE only; NO_INCR READ/WRITE) */
  uint16_t count;       /* words: 1..SGPU_LINK_MAX_WORDS for READ/WRITE, 0 for PING */
  uint32_t address;     /* host-port byte address (bit 31 = register space) */
  const uint32_t *data; /* WRITE: `count` words; ignored otherwise */
} sgpu_link_request;

/* Bytes of the frame for a request (0 when the command or count is invalid). */
size_t sgpu_link_request_size(const sgpu_link_request *req);

/* Encode a request into out[0..out_size).  Returns the number of bytes
 * written (> 0) or a negative sgpu_link_status; on error nothing useful is
 * in out.  Only frames the device accepts are produced. */
int sgpu_link_encode_request(const sgpu_link_request *req, uint8_t *out, size_t out_size);

/* Give an encoded request frame of n bytes another SEQ (its CRC follows).
 * 0, or SGPU_LINK_ERR_INVALID_ARG when n is shorter than any request. */
int sgpu_link_request_reseq(uint8_t *frame, size_t n, uint8_t seq);

/* ------------------------------------------------------------ answers */
typedef struct sgpu_link_frame {
  uint8_t seq;   /* request SEQ (ACK, NAK) or event counter (EVENT) */
  uint8_t kind;  /* SGPU_LINK_KIND_* */
  uint8_t info;  /* ACK: SGPU_LINK_ACK_DUPLICATE; NAK: SGPU_LINK_NAK_*; EVENT: 0 */
  uint16_t count; /* data words */
  uint32_t data[SGPU_LINK_MAX_WORDS];
} sgpu_link_frame;

/* Encode a device->host frame (what the device, or a simulation server,
 * sends).  Returns bytes written or a negative sgpu_link_status.  The
 * frame's fields must be valid for its kind, as the decoder checks them. */
int sgpu_link_encode_answer(const sgpu_link_frame *frame, uint8_t *out, size_t out_size);

/* Incremental decoder of device->host frames.  Fixed size, no allocation:
 * it holds at most one frame's bytes.  Treat the fields as private. */
typedef struct sgpu_link_decoder {
  uint8_t buf[SGPU_LINK_MAX_RSP_FRAME]; /* buf[0] is SYNC when n > 0 */
  size_t n;                             /* bytes held */
  size_t parsed;                        /* of them, bytes already examined */
  size_t need;                          /* frame length once the header is known, else 0 */
  uint64_t skipped;                     /* bytes dropped outside frames (noise) */
  uint64_t frames, rejected;            /* counts of results */
} sgpu_link_decoder;

void sgpu_link_decoder_init(sgpu_link_decoder *d);

/* Feed up to len bytes (data may be NULL when len is 0).  Bytes held from a
 * rejected frame are examined first, then the new ones.  Stops at the first
 * frame that completes or is rejected:
 *   SGPU_LINK_FRAME       *frame holds it;
 *   SGPU_LINK_ERR_*       the frame was rejected for that reason (the bytes
 *                         after its SYNC are rescanned by the next calls);
 *   SGPU_LINK_NEED_MORE   every byte was consumed.
 * *consumed (may be NULL) is the number of bytes of `data` taken; call again
 * with the rest (and with len 0 after a rejection, until NEED_MORE, to drain
 * frames found inside the rejected bytes).  Invalid arguments give
 * SGPU_LINK_ERR_INVALID_ARG. */
int sgpu_link_decode(sgpu_link_decoder *d, const uint8_t *data, size_t len, size_t *consumed,
                     sgpu_link_frame *frame);

/* The line has been quiet for SGPU_LINK_GAP_TIMEOUT_US.  A partial frame is
 * dropped: returns SGPU_LINK_ERR_TRUNCATED (and its bytes after the SYNC are
 * rescanned by the next sgpu_link_decode calls), or 0 when no frame was in
 * progress. */
int sgpu_link_decoder_gap(sgpu_link_decoder *d);

/* Bytes the decoder holds (0: between frames, nothing pending). */
size_t sgpu_link_decoder_pending(const sgpu_link_decoder *d);

#endif
