/* remote_proto.h — the sgpud protocol (docs/sgpud.md): what the library's
 * client (remote.c) and the server (host/sgpud) send each other over the
 * server's Unix-domain socket.
 *
 * API-level calls, not registers: the server owns the device and its rings
 * and runs the library in-process; the client sends one request at a time
 * and waits for its answer.  Every message is a header (sgpud_hdr: the
 * bytes that follow it, and the op) and a body: the op's fixed struct, then
 * for READ answers, WRITE requests and error answers a variable tail.  Host
 * byte order and the host's struct layout (a Unix socket never leaves the
 * machine; HELLO carries the protocol version and the structs' sizes so a
 * mismatched pair refuses to talk).  Every struct below is made of 32- and
 * 64-bit fields in an order without padding. */
#ifndef SGPU_REMOTE_PROTO_H
#define SGPU_REMOTE_PROTO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sgpu.h"

#define SGPUD_PROTO_VERSION 3u
/* Largest body of any message: a READ/WRITE carries at most this much data
 * (the client cuts larger transfers into pieces). */
#define SGPUD_MAX_DATA (256u * 1024u)
#define SGPUD_MAX_BODY (SGPUD_MAX_DATA + 256u)
#define SGPUD_MAX_TEXT 511u /* error text in an answer (no NUL) */
#define SGPUD_NAME_BYTES 32u
#define SGPUD_REPLY 0x80000000u

enum sgpud_op {
  SGPUD_OP_HELLO = 1,
  SGPUD_OP_QUERY_INFO = 2,
  SGPUD_OP_ALLOC = 3,
  SGPUD_OP_FREE = 4,
  SGPUD_OP_READ = 5,
  SGPUD_OP_WRITE = 6,
  SGPUD_OP_CREATE_CONTEXT = 7,
  SGPUD_OP_DESTROY_CONTEXT = 8,
  SGPUD_OP_SUBMIT = 9,
  SGPUD_OP_WAIT_FENCE = 10,
  SGPUD_OP_WAIT_IDLE = 11,
  SGPUD_OP_GET_FENCE = 12,
  SGPUD_OP_NEXT_EVENT = 13,
  SGPUD_OP_GET_STATS = 14,
  SGPUD_OP_GET_CYCLES = 15,
  SGPUD_OP_LIST_PROGRAMS = 16,
  SGPUD_OP_VALIDATE = 17,
  SGPUD_OP_GET_AREAS = 18,     /* sgpud_u32 most wanted -> sgpud_list_ans, then sgpu_area each */
  SGPUD_OP_GET_RING_INFO = 19, /* sgpud_u32 node -> sgpu_ring_info */
  SGPUD_OP_REG_READ = 20,      /* sgpud_u32 offset -> sgpud_u32 value */
  SGPUD_OP_REG_WRITE = 21,     /* sgpud_reg_req -> — (SCRATCH only) */
  SGPUD_OP_WRITE_RAW = 22,     /* as WRITE: the program's own allocations only */
  SGPUD_OP_GET_DISPLAY = 23,   /* sgpud_u32 source -> sgpu_display_mode */
  SGPUD_OP_SET_DISPLAY = 24,   /* sgpud_display_req -> — (a source no other program shows) */
  SGPUD_OP_CAPTURE = 25,       /* sgpud_u32 source -> sgpud_frame_ans; pixels by FRAME_READ */
  SGPUD_OP_FRAME_READ = 26,    /* sgpud_frame_read_req -> the bytes of the last capture */
  SGPUD_OP_ENABLE_VSYNC = 27,  /* sgpud_u32 source, reserved: enable -> — (this program's) */
  SGPUD_OP_READ_IDENTITY = 28, /* — -> sgpu_identity */
  SGPUD_OP_LINK_STATS = 29,    /* — -> sgpu_link_stats (the server's link) */
  SGPUD_OP_PING = 30,          /* sgpud_u32 timeout_ms -> sgpud_u32 rtt_us */
  SGPUD_OP_RUN_CYCLES = 31,    /* sgpud_addr cycles (<= SGPUD_MAX_RUN_CYCLES) -> — */
  SGPUD_OP_CREATE_CONTEXT_VM = 32, /* sgpud_u32 node -> sgpud_context_ans (window 0+0) */
  SGPUD_OP_MAP = 33,               /* sgpud_map_req -> sgpud_addr va */
  SGPUD_OP_UNMAP = 34,             /* sgpud_map_req (address: the va) -> — */
  SGPUD_OP_COUNT
};

typedef struct sgpud_hdr {
  uint32_t size; /* bytes after the header, <= SGPUD_MAX_BODY */
  uint32_t op;   /* sgpud_op; | SGPUD_REPLY in an answer */
} sgpud_hdr;

/* Every answer's body starts with this; status < 0: an sgpu_error, and the
 * rest of the body is the error text (sgpu_last_error on the client). */
typedef struct sgpud_status {
  int32_t status;
  uint32_t reserved;
} sgpud_status;

typedef struct sgpud_hello_req {
  uint32_t version; /* SGPUD_PROTO_VERSION */
  uint32_t pid;     /* the program's (the server takes the socket's peer pid) */
  uint32_t info_size, event_size, stats_size, submit_size; /* struct sizes: layout check */
  char name[SGPUD_NAME_BYTES]; /* program name, NUL-padded */
} sgpud_hello_req;
typedef struct sgpud_hello_ans {
  uint32_t version;
  uint32_t program_id; /* the server's number for this connection */
  uint32_t nodes, sources, mem_size, reserved;
} sgpud_hello_ans;

typedef struct sgpud_alloc_req {
  uint32_t segment, size, alignment, reserved;
} sgpud_alloc_req;
typedef struct sgpud_addr {
  uint64_t address;
} sgpud_addr;

/* READ: answered by the data.  WRITE: the data follows.  [check_address,
 * +check_size) is the whole transfer the piece belongs to: the server checks
 * ownership of all of it, so a refused transfer changes nothing. */
typedef struct sgpud_mem_req {
  uint64_t address;
  uint32_t size, reserved;
  uint64_t check_address, check_size;
} sgpud_mem_req;

typedef struct sgpud_context_req {
  uint32_t node, window_base, window_size, windowed; /* windowed 0: whole memory */
} sgpud_context_req;
typedef struct sgpud_context_ans {
  uint32_t id, node, window_base, window_size;
} sgpud_context_ans;
/* sgpu_map (address: of the program's allocation) and sgpu_unmap
 * (address: the virtual address) in one of the program's VM contexts. */
typedef struct sgpud_map_req {
  uint32_t context_id, access;
  uint64_t address, size;
} sgpud_map_req;
typedef struct sgpud_u32 {
  uint32_t value, reserved;
} sgpud_u32;

/* sgpu_submit_command_args with the context as its id (0: NULL) and the
 * private-data pointer as a number the server hands back in events. */
typedef struct sgpud_submit_req {
  uint64_t dma_buffer_physical_address;
  uint64_t dma_buffer_private_data;
  uint64_t dma_buffer_virtual_address;
  uint32_t context_id;
  uint32_t dma_buffer_segment_id;
  uint32_t dma_buffer_size;
  uint32_t dma_buffer_submission_start_offset;
  uint32_t dma_buffer_submission_end_offset;
  uint32_t dma_buffer_private_data_size;
  uint32_t dma_buffer_private_data_submission_start_offset;
  uint32_t dma_buffer_private_data_submission_end_offset;
  uint32_t submission_fence_id;
  uint32_t vidpn_source_id;
  uint32_t flip_interval;
  uint32_t flags;
  uint32_t engine_ordinal;
  uint32_t node_ordinal;
} sgpud_submit_req;

typedef struct sgpud_wait_req {
  uint32_t node, fence, timeout_ms, reserved;
} sgpud_wait_req;

/* LIST_PROGRAMS: the request is an sgpud_u32 (most entries wanted), the
 * answer this, then min(count, wanted) sgpu_program_info. */
typedef struct sgpud_list_ans {
  uint32_t count, reserved;
} sgpud_list_ans;
#define SGPUD_MAX_PROGRAMS_LISTED (SGPUD_MAX_DATA / 128u)

typedef struct sgpud_reg_req {
  uint32_t offset, value;
} sgpud_reg_req;
#define SGPUD_MAX_AREAS_LISTED (SGPUD_MAX_DATA / 128u)

/* SET_DISPLAY: the source and sgpu_set_display_mode's mode. */
typedef struct sgpud_display_req {
  uint32_t source, reserved;
  sgpu_display_mode mode;
} sgpud_display_req;

/* CAPTURE: the frame without its pixels; they stay with the server (one
 * frame per program, until its next capture) and come by FRAME_READ, in
 * pieces of at most SGPUD_MAX_DATA. */
typedef struct sgpud_frame_ans {
  uint64_t frame_number, start_cycle;
  uint32_t width, height, source, scanout_address;
} sgpud_frame_ans;
typedef struct sgpud_frame_read_req {
  uint32_t offset, size;
} sgpud_frame_read_req;

/* RUN_CYCLES: the most one request asks (the client cuts a longer run in
 * pieces, the device lock released between them, as its waits). */
#define SGPUD_MAX_RUN_CYCLES ((uint64_t)SGPU_NOMINAL_CLOCK_HZ / 1000u)

/* sgpu_validate_submit_command's arguments past the checks the client makes
 * itself (flags, contexts, private data sizes, alignment, range): the
 * contexts by id. */
typedef struct sgpud_validate_req {
  uint64_t commands, hw_queue_progress_fence_id;
  uint32_t command_length, flags, context_count, reserved;
  uint32_t context_id[64];
} sgpud_validate_req;

/* sgpu_event with private_data as a number. */
typedef struct sgpud_event {
  uint64_t fence_id64, vblank_count, cycle, private_data, fault_va;
  uint32_t type, node_ordinal, fence_id, last_completed_fence_id, flags;
  uint32_t fault_reason, fault_address, fault_opcode, source_id, scanout_address;
  uint32_t private_data_size, context_id, guilty_count, banned, resubmitted, priority;
  uint32_t fault_access, fault_unit;
} sgpud_event;

/* The default socket: $XDG_RUNTIME_DIR/sgpud.sock, else /run/sgpu/sgpud.sock
 * (the system service's).  0, or -1 when the path does not fit. */
static inline int sgpud_default_path(char *buf, size_t size) {
  const char *x = getenv("XDG_RUNTIME_DIR");
  int n = x && *x ? snprintf(buf, size, "%s/sgpud.sock", x)
                  : snprintf(buf, size, "/run/sgpu/sgpud.sock");
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

#endif
