/* sgpu.h — libsgpu, the host driver of the sgpu soft-GPU.
 *
 * The library plays the role of a WDDM kernel-mode display driver: it takes
 * submissions shaped like DXGKARG_SUBMITCOMMAND, validates every field and
 * every packet, turns them into ring packets, rings the doorbell and reports
 * fences, faults and vsyncs as events.
 *
 * Conventions (libusb style):
 *   - opaque handles (sgpu_device, sgpu_context), `sgpu_` prefix;
 *   - every function returning int returns 0 (or a count >= 0) on success and
 *     a negative sgpu_error code on failure; sgpu_strerror() names every code
 *     and sgpu_last_error() gives a one-line detail (offset, field, reason);
 *   - no global mutable state; each device is thread-safe (one mutex);
 *   - on error nothing reaches the hardware.
 *
 * Addresses: GPU addresses (segments 1 and 2) are the chip's 32-bit byte
 * addresses.  Segment 0 (host system memory, managed by the library) hands
 * out addresses at or above SGPU_HOST_ADDRESS_BASE; they are accepted by
 * sgpu_read/sgpu_write and as dma_buffer_physical_address with segment 0.
 *
 * Device URIs:
 *   NULL or "sim"            in-process Verilator model (default)
 *   "sim:OPT=V,OPT=V..."     options: latency=N (memory read latency, >= 1),
 *                            stall=P (0..100 % memory refusals), seed=N,
 *                            trace=FILE.vcd|FILE.fst, video=tiny|vga,
 *                            watchdog=CYCLES (0 disables)
 *   "tcp:HOST:PORT"          an sgpu-sim link server (sgpu-sim --listen)
 *   "serial:/dev/X[@BAUD]"   board over a UART (default 3000000 baud)
 *   "usb[:VID:PID[:SERIAL]][@BAUD]"  board over its FTDI chip (libftdi1 over
 *                            libusb-1.0); bare "usb" is the first board
 *                            attached; sgpu_list_boards() gives each one's
 *                            URI.  Refused with SGPU_ERROR_NOT_SUPPORTED by a
 *                            libsgpu built without libftdi1/libusb-1.0.
 *   "sgpud[:PATH]"           the device an sgpud server shares between programs, over
 *                            its Unix socket (default $XDG_RUNTIME_DIR/sgpud.sock, else
 *                            /run/sgpu/sgpud.sock): each program its own contexts,
 *                            allocations, fences and events (docs/sgpud.md); what would
 *                            change another program's work fails (NOT_OWNER; a program's
 *                            engine resets and the ban threshold: NOT_SUPPORTED)
 *   A link URI (tcp:, serial:, usb) may end in ",video=tiny|vga,watchdog=N":
 *   the open options sim: takes too (what the library programs at open);
 *   and in the link's own: ",window=auto|on|off" (several WRITE frames in
 *   flight on a version-3 device: auto measures whether that is faster),
 *   ",giveup=MS" (100..600000, default 1500: how long a frame may go
 *   without any sign of the device before the link counts as lost).
 */
#ifndef SGPU_H
#define SGPU_H

#include <stddef.h>
#include <stdint.h>

#include "sgpu_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ errors */
/* enum sgpu_error (SGPU_SUCCESS, SGPU_ERROR_*) is generated from the interface
 * spec into sgpu_hw.h: negative codes, each with its own message. */

/* Static one-line description of any code (library and assembler codes). */
const char *sgpu_strerror(int code);
/* Name of a hardware fault code (SGPU_FAULT_*, FAULT_REASON): "OUT_OF_RANGE", ...;
 * "UNKNOWN" for a code the interface does not define. */
const char *sgpu_fault_name(uint32_t fault);

/* Registers by name, as docs/interface.md lists them (case-insensitive):
 * the host offset of NAME for node or source `index` (0 for a global one).
 * SGPU_ERROR_INVALID_ADDRESS for an unknown name, INVALID_NODE/SOURCE for
 * an index out of range, INVALID_PARAM for an index on a global register. */
int sgpu_register_offset(const char *name, uint32_t index, uint32_t *offset);
/* 1 when NAME is a global register (no index). */
int sgpu_register_is_global(const char *name);
/* NAME or NAME@INDEX of a host register offset (buf holds the latter), NULL if none. */
const char *sgpu_register_name(uint32_t offset, char *buf, size_t size);

/* ------------------------------------------------------------ device */
typedef struct sgpu_device sgpu_device;
typedef struct sgpu_context sgpu_context;

int sgpu_open(const char *uri, sgpu_device **dev);
/* Same, and on failure a one-line reason in msg (NUL-terminated, truncated). */
int sgpu_open_detail(const char *uri, sgpu_device **dev, char *msg, size_t msg_size);
void sgpu_close(sgpu_device *dev);

/* One-line detail of the last error on this device in the calling thread
 * ("" if none): each thread has its own, so another thread's failure never
 * replaces it, nor does a failure on another device.  The text stays valid
 * until the next call on the device from the same thread. */
const char *sgpu_last_error(sgpu_device *dev);

/* Segments. */
#define SGPU_SEGMENT_SYSTEM 0u   /* host system memory, managed by the library */
#define SGPU_SEGMENT_LOCAL 1u    /* local video memory */
#define SGPU_SEGMENT_APERTURE 2u /* aperture */
#define SGPU_SEGMENT_COUNT 3u
/* Segment-0 addresses start here (above every 32-bit GPU address). */
#define SGPU_HOST_ADDRESS_BASE 0x100000000ull
#define SGPU_HOST_SEGMENT_SIZE 0x40000000ull /* 1 GiB of host address space */

typedef enum sgpu_format {
  SGPU_FORMAT_RGB565 = 0, /* 16 bits per pixel */
  SGPU_FORMAT_RGB332 = 1  /* 8 bits per pixel */
} sgpu_format;

typedef struct sgpu_display_mode {
  uint32_t width, height; /* framebuffer size in pixels; 0x0 = display off */
  uint32_t pitch;         /* bytes per framebuffer line (0 in set = packed, 4-aligned) */
  uint32_t format;        /* sgpu_format */
  uint32_t address;       /* GPU address of the framebuffer; get returns the one being
                             scanned out (a new address takes effect at the next vblank) */
  uint32_t enabled;       /* get: 1 when the display runs */
  uint32_t replication_x, replication_y; /* get: pixel replication chosen (1, 2, 4) */
  uint32_t timing_width, timing_height;  /* get: active size of the video timing */
  uint32_t refresh_mhz;   /* get: nominal refresh rate in milli-hertz */
} sgpu_display_mode;

typedef struct sgpu_segment_info {
  uint64_t base;  /* first address of the segment */
  uint64_t size;  /* bytes */
  uint64_t free;  /* bytes not allocated (by the user or the library) */
} sgpu_segment_info;

typedef struct sgpu_info {
  char transport[16];                /* "sim", ... */
  uint32_t hw_version_major, hw_version_minor; /* VERSION register */
  uint32_t firmware_version;         /* boot firmware identity, as found at open or by the last
                                        successful sgpu_read_identity (0 = none published) */
  uint32_t caps;                     /* CAPS register */
  uint32_t node_count, source_count;
  uint32_t has_2d, has_display, has_preemption;
  uint32_t preemption_granularity;   /* SGPU_PREEMPTION_*: where sgpu_preempt stops a node */
  uint32_t has_perf_counters;        /* PERF_* registers count (CAPS.PERF) */
  uint32_t ib_depth;                 /* INDIRECT levels below the ring (CAPS.IB_DEPTH); deeper
                                        submissions are refused (SGPU_ERROR_PACKET_NESTING) */
  uint32_t mem_size;                 /* bytes of GPU memory */
  sgpu_segment_info segment[SGPU_SEGMENT_COUNT];
  sgpu_display_mode display_mode[SGPU_MAX_SOURCES]; /* current mode per source */
  uint32_t clock_hz;                 /* the system clock the CYCLE counter counts: the board's
                                        (SGPU_BOARD_*_CLOCK_HZ) when the boot identity block
                                        names one, else SGPU_NOMINAL_CLOCK_HZ (simulation) */
  uint32_t has_priority;             /* CAPS.PRIORITY: each node has a high-priority ring
                                        (sgpu_set_context_priority); 0: high-priority contexts
                                        share the normal ring */
  uint32_t has_time_slice;           /* CAPS.TIME_SLICE: each node has a second normal ring,
                                        the two take turns (sgpu_set_time_slice); 0: contexts
                                        of equal priority run in submission order */
  uint32_t has_vm;                   /* CAPS.VM: GPU virtual memory (sgpu_create_context_vm,
                                        sgpu_map); 0: physical contexts only */
} sgpu_info;

int sgpu_query_info(sgpu_device *dev, sgpu_info *info);

/* The identity block the boot firmware publishes (docs/firmware.md; layout
 * in docs/interface.md, "Boot identity block"). */
typedef struct sgpu_identity {
  uint32_t hw_version;     /* VERSION value the firmware was built for */
  uint32_t fw_version;     /* [31:16] major, [15:0] minor */
  uint32_t board;          /* SGPU_BOARD_* */
  char board_name[SGPU_IDENTITY_NAME_BYTES + 1]; /* NUL-terminated */
  uint32_t caps;           /* CAPS of the board's build */
  uint32_t mem_size;       /* bytes of GPU memory on the board */
  uint32_t fb_base, fb_width, fb_height; /* the power-on screen */
  uint32_t disp_control;   /* DISP_CONTROL the firmware set */
  uint32_t words[SGPU_IDENTITY_BYTES / 4]; /* the block as read */
} sgpu_identity;

/* Read the identity block at SGPU_IDENTITY_ADDR.  0 and *id filled when a
 * valid block is there (its range is then never allocated by the library);
 * SGPU_ERROR_NO_FIRMWARE when there is none (memory too small, or MAGIC,
 * LAYOUT, CHECK or DONE wrong). */
int sgpu_read_identity(sgpu_device *dev, sgpu_identity *id);
/* Check and decode the block's words (no device access). */
int sgpu_identity_decode(const uint32_t words[SGPU_IDENTITY_BYTES / 4], sgpu_identity *id);

/* ------------------------------------------------------------ boards on USB */
/* A board attached over USB that the usb transport can drive.  Boards are
 * recognised by their FTDI chip (iCEBreaker: FT2232H 0403:6010, interface B;
 * ULX3S: FT231X 0403:6015), so the name is a guess: another product with the
 * same chip is listed too. */
typedef struct sgpu_board {
  char name[16];         /* "icebreaker", "ulx3s" */
  char description[48];  /* "iCEBreaker (FT2232H, interface B)" */
  uint16_t vid, pid;     /* USB vendor and product ids */
  uint8_t interface;     /* FTDI interface carrying the link: 0 = A, 1 = B */
  uint8_t bus, address;  /* USB bus number and device address */
  uint8_t access;        /* 1 when it could be opened (0: no permission, or busy) */
  char serial[64];       /* USB serial number ("" if none or unreadable) */
  char product[64];      /* USB product string ("" if unreadable) */
  char uri[96];          /* device URI that opens this board: usb:VID:PID[:SERIAL] */
  uint32_t baud;         /* link rate the usb transport sets */
} sgpu_board;

/* The boards attached now: fills boards[0 .. min(count, max)) and returns
 * the count (0: none; msg then says "no boards found"), or a negative error
 * with a one-line reason in msg (may be NULL): SGPU_ERROR_NOT_SUPPORTED when
 * this libsgpu was built without USB support, SGPU_ERROR_IO when USB cannot
 * be listed. */
int sgpu_list_boards(sgpu_board *boards, size_t max, char *msg, size_t msg_size);

/* ------------------------------------------------------------ memory */
/* Allocate size bytes in a segment (alignment: power of two, 0 = 4). */
int sgpu_alloc(sgpu_device *dev, uint32_t segment_id, uint32_t size, uint32_t alignment,
               uint64_t *address);
int sgpu_free(sgpu_device *dev, uint64_t address);
/* Copy to/from GPU memory (segments 1/2) or a segment-0 host buffer.
 * sgpu_write refuses (SGPU_ERROR_RESERVED_ADDRESS, nothing written; the
 * area named in sgpu_last_error) a range that overlaps an area the library
 * reserved for itself: each node's ring, its rptr and fence words, its
 * staging area (segment 2), and the boot identity block when one was found
 * (sgpu_get_areas lists them).  Reading them is allowed. */
int sgpu_write(sgpu_device *dev, uint64_t address, const void *data, uint32_t size);
int sgpu_read(sgpu_device *dev, uint64_t address, void *data, uint32_t size);
/* sgpu_write without that check, for tools (`sgpu poke`): it overrides what
 * the library keeps there (a ring packet, a fence word...) and can break
 * submissions in flight. */
int sgpu_write_raw(sgpu_device *dev, uint64_t address, const void *data, uint32_t size);

/* The GPU memory of segments 1 and 2, cut into areas in address order: the
 * ranges the library reserved (named), those allocated with sgpu_alloc, and
 * the free ones between them (what sgpu_alloc hands out next).  Fills
 * areas[0 .. min(count, max)) and returns the count (>= 0). */
typedef enum sgpu_area_kind {
  SGPU_AREA_FREE = 0,      /* not allocated: sgpu_alloc may hand it out */
  SGPU_AREA_ALLOCATED = 1, /* allocated by the user (sgpu_alloc) */
  SGPU_AREA_RESERVED = 2   /* the library's: sgpu_write refuses it */
} sgpu_area_kind;
typedef struct sgpu_area {
  uint32_t segment;  /* SGPU_SEGMENT_LOCAL or SGPU_SEGMENT_APERTURE */
  uint32_t kind;     /* sgpu_area_kind */
  uint64_t base, size;
  char name[48];     /* RESERVED: "node 0's ring", "node 0's rptr and fence words",
                        "node 0's staging area", "the boot identity block"; else "" */
} sgpu_area;
int sgpu_get_areas(sgpu_device *dev, sgpu_area *areas, size_t max);

/* Raw register access (offset as in sgpu_hw.h, e.g. SGPU_REG_ID) for tools:
 * any register, the ones the library programs included.  A write to a
 * read-only register (access "ro" in docs/interface.md: ID, VERSION, CAPS,
 * CYCLE_LO, RING_RPTR, STATUS...) is not sent and returns
 * SGPU_ERROR_READ_ONLY (the chip would ignore it and flag CFG_ERROR). */
int sgpu_reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value);
int sgpu_reg_write(sgpu_device *dev, uint32_t offset, uint32_t value);

/* ------------------------------------------------------------ contexts */
/* A context runs on one node; its window is the whole GPU memory. */
int sgpu_create_context(sgpu_device *dev, uint32_t node_ordinal, sgpu_context **ctx);
/* A context whose indirect buffers may only touch [window_base, +window_size). */
int sgpu_create_context_windowed(sgpu_device *dev, uint32_t node_ordinal, uint32_t window_base,
                                 uint32_t window_size, sgpu_context **ctx);
void sgpu_destroy_context(sgpu_context *ctx);

/* GPU virtual memory (docs/vm.md; a device with CAPS.VM: sgpu_info.has_vm).
 *
 * sgpu_create_context_vm makes a context with its own 32-bit GPU virtual
 * address space, empty at first: a page directory (and, on demand, page
 * tables) in GPU memory the library reserves (sgpu_get_areas lists them;
 * no context can map them, sgpu_write refuses them).  Its command buffers'
 * addresses are virtual; every access is translated and checked by the
 * hardware (page faults: SGPU_FAULT_PAGE_NOT_PRESENT, _PAGE_PROTECTION).
 * SGPU_ERROR_NOT_SUPPORTED without CAPS.VM and through sgpud.
 *
 * sgpu_map maps [address, address + size) of one allocation of segment 1
 * or 2 (sgpu_alloc; page-aligned address and size, else
 * SGPU_ERROR_PAGE_ALIGNMENT) into the context with SGPU_MAP_READ and/or
 * SGPU_MAP_WRITE (WRITE implies readable) and returns the virtual address
 * the library chose in *gpu_va: a run of free pages inside
 * [SGPU_PAGE_BYTES, mem_size), never page 0 (SGPU_ERROR_OUT_OF_VA_SPACE when
 * none is large enough).  An allocation may be mapped into several contexts,
 * and several times into one.  New mappings take effect at once, even for
 * work already queued.  Refused: a physical context (NOT_VM_CONTEXT), a
 * range that is not inside one allocation (NOT_ALLOCATED), access 0 or
 * unknown bits (INVALID_PARAM).
 *
 * sgpu_unmap removes whole mapped pages [gpu_va, gpu_va + size) (any of them
 * not mapped: SGPU_ERROR_NOT_MAPPED, nothing changed).  It is refused with
 * SGPU_ERROR_BUSY while the context has submissions not completed (queued,
 * running or preempted): they were validated against the mappings they
 * would lose; wait for its fences first.  The library then makes the
 * hardware forget the pages: a ring whose current context it is gets a
 * TLB_INVALIDATE (or, without ring room, the context's next submission a
 * CONTEXT again), so the old addresses fault from its next work on.
 *
 * sgpu_free of an allocation still mapped in a VM context is refused
 * (SGPU_ERROR_BUSY, the number of mappings named): unmap it first.
 * sgpu_destroy_context of a VM context drops its mappings; its tables go
 * back to the free memory unless it still has work queued (then they stay
 * reserved until sgpu_close, so that work never walks reused memory). */
#define SGPU_MAP_READ 0x1u
#define SGPU_MAP_WRITE 0x2u /* implies READ */
int sgpu_create_context_vm(sgpu_device *dev, uint32_t node_ordinal, sgpu_context **ctx);
int sgpu_map(sgpu_context *ctx, uint64_t address, uint64_t size, uint32_t access, uint64_t *gpu_va);
int sgpu_unmap(sgpu_context *ctx, uint64_t gpu_va, uint64_t size);
/* 1 for a context made by sgpu_create_context_vm */
int sgpu_context_is_vm(const sgpu_context *ctx);
uint32_t sgpu_context_id(const sgpu_context *ctx);   /* hardware id (>= 1) */
uint32_t sgpu_context_node(const sgpu_context *ctx);

/* Context priority.  On a device with CAPS.PRIORITY (sgpu_info.has_priority)
 * each node has two rings: a HIGH context's submissions go to the node's
 * high-priority ring, which the node runs before its normal ring (the
 * normal ring holds at its next packet or poll boundary, inside a FILL or
 * COPY too, and goes on where it held once the high ring is dry; no host
 * work).  Without CAPS.PRIORITY HIGH is accepted and the context shares the
 * normal ring: its work runs in order with everyone else's.
 *
 * Fences: submission_fence_id stays one increasing sequence per node across
 * both rings (the usual order checks apply to the node); each ring writes
 * its own fence word.  So a high submission's fence may complete before a
 * lower normal one: sgpu_wait_fence(dev, node, id) returns when the
 * submission that carried id is done, whichever ring it went to, without
 * waiting for the other ring; an id no submission carried is done once a
 * ring of the node has passed it or the node is idle.  Events carry their
 * ring (sgpu_event.priority) and that ring's last completed fence id.
 *
 * NORMAL is the default.  Any value other than SGPU_PRIORITY_NORMAL and
 * SGPU_PRIORITY_HIGH is refused (SGPU_ERROR_INVALID_PARAM), and so is a
 * change of ring while the context has submissions not yet completed or
 * preempted ones not sent again (SGPU_ERROR_BUSY: its work would no longer
 * run in order); wait for its fences first.  Through sgpud HIGH is refused
 * (SGPU_ERROR_NOT_SUPPORTED: the server keeps a node's fences in one order). */
#define SGPU_PRIORITY_NORMAL 0u
#define SGPU_PRIORITY_HIGH 1u
int sgpu_set_context_priority(sgpu_context *ctx, uint32_t priority);
uint32_t sgpu_context_priority(const sgpu_context *ctx);

/* Time slices between contexts of equal priority.  On a device with
 * CAPS.TIME_SLICE (sgpu_info.has_time_slice; it implies CAPS.PRIORITY) each
 * node has a second normal-priority ring, and its two normal rings take
 * turns: once one has run quantum_cycles cycles while the other has work,
 * it holds at its next packet or poll boundary (inside a FILL or COPY too)
 * and the other runs.  The high-priority ring still goes before both.
 *
 * sgpu_set_time_slice sets node node_ordinal's quantum (the QUANTUM register
 * of both normal rings, 0..0xFFFFFF cycles).  0, the default after open,
 * turns slicing off: every NORMAL context of the node uses its first normal
 * ring, all in submission order, as on a chip without time slices.  With a
 * quantum, the node's NORMAL contexts are spread over its two rings by
 * context id (sgpu_context_id): odd ids on the first normal ring, even ids
 * on the second.  Contexts on one ring run in submission order; work on the
 * other ring may overtake it.  Fences stay one increasing sequence per node
 * over all three rings, each ring completing in order (as for the high ring,
 * see above): sgpu_wait_fence returns once the submission that carried the
 * id is done, and sgpu_get_fence's completed is the highest id at or below
 * which everything of the node is done.  Events of both normal rings say
 * SGPU_PRIORITY_NORMAL.
 *
 * Refused: a node that does not exist (SGPU_ERROR_INVALID_NODE); a quantum
 * above 0xFFFFFF (SGPU_ERROR_INVALID_PARAM); a device without
 * CAPS.TIME_SLICE (SGPU_ERROR_NOT_SUPPORTED: one normal ring per node);
 * turning slicing on or off while the node has submissions queued or
 * preempted on any of its rings (SGPU_ERROR_BUSY: the contexts' rings would
 * change under queued work; wait for its fences first); and through sgpud
 * (SGPU_ERROR_NOT_SUPPORTED).  sgpu_time_slice returns the node's quantum
 * (0: off, or a bad device or node). */
int sgpu_set_time_slice(sgpu_device *dev, uint32_t node_ordinal, uint32_t quantum_cycles);
uint32_t sgpu_time_slice(const sgpu_device *dev, uint32_t node_ordinal);

/* ------------------------------------------------------------ submission */
/* D3DDDI_FLIPINTERVAL_TYPE */
typedef enum sgpu_flip_interval {
  SGPU_FLIP_INTERVAL_IMMEDIATE = 0,
  SGPU_FLIP_INTERVAL_ONE = 1,
  SGPU_FLIP_INTERVAL_TWO = 2,
  SGPU_FLIP_INTERVAL_THREE = 3,
  SGPU_FLIP_INTERVAL_FOUR = 4,
  SGPU_FLIP_INTERVAL_IMMEDIATE_ALLOW_TEARING = 5
} sgpu_flip_interval;

/* DXGK_SUBMITCOMMANDFLAGS: bit positions exactly as in d3dkmddi.h. */
typedef union sgpu_submit_flags {
  struct {
    uint32_t paging : 1;               /* 0x001 */
    uint32_t present : 1;              /* 0x002 */
    uint32_t redirected_present : 1;   /* 0x004 */
    uint32_t null_rendering : 1;       /* 0x008 */
    uint32_t flip : 1;                 /* 0x010 */
    uint32_t flip_with_no_wait : 1;    /* 0x020 */
    uint32_t context_switch : 1;       /* 0x040 */
    uint32_t resubmission : 1;         /* 0x080 */
    uint32_t virtual_machine_data : 1; /* 0x100 */
    uint32_t reserved : 23;
  };
  uint32_t value;
} sgpu_submit_flags;

#define SGPU_SUBMIT_PAGING 0x001u
#define SGPU_SUBMIT_PRESENT 0x002u
#define SGPU_SUBMIT_REDIRECTED_PRESENT 0x004u
#define SGPU_SUBMIT_NULL_RENDERING 0x008u
#define SGPU_SUBMIT_FLIP 0x010u
#define SGPU_SUBMIT_FLIP_WITH_NO_WAIT 0x020u
#define SGPU_SUBMIT_CONTEXT_SWITCH 0x040u
#define SGPU_SUBMIT_RESUBMISSION 0x080u
#define SGPU_SUBMIT_VIRTUAL_MACHINE_DATA 0x100u
#define SGPU_SUBMIT_RESERVED_MASK 0xFFFFFE00u

/* DXGKARG_SUBMITCOMMAND, field by field (snake_case, same order).
 *   context          NULL only with flags.paging (then node_ordinal picks the ring)
 *   dma_buffer_segment_id        0 host memory (staged into the aperture),
 *                                1 local video memory, 2 aperture
 *   dma_buffer_physical_address  start of the whole buffer (even if start offset > 0)
 *   dma_buffer_size              whole buffer; offsets inside it, 4-aligned, start <= end
 *   dma_buffer_submission_*_offset  only [start, end) is executed
 *   dma_buffer_private_data*     opaque; the slice [start, end) is returned with the
 *                                submission's completion/fault event (pointer into
 *                                the caller's memory: keep it alive until then);
 *                                start offset must be 0 unless Paging
 *   submission_fence_id          written to the node's fence word when done;
 *                                must advance (wrap-around compare) per node
 *   vidpn_source_id              only with Flip / FlipWithNoWait; < sources
 *   flip_interval                sgpu_flip_interval; only with Flip
 *   engine_ordinal               reserved, must be 0
 *   dma_buffer_virtual_address   a physical context: must be 0 (SUBMIT_VIRTUAL_ADDRESS).
 *                                A VM context (sgpu_create_context_vm): the start of the
 *                                whole buffer in the context's address space (as
 *                                dma_buffer_physical_address otherwise; the offsets apply to
 *                                it); every page of [va + start, va + end) must be mapped
 *                                there, else SGPU_ERROR_NOT_MAPPED naming the address and
 *                                nothing is queued.  dma_buffer_segment_id and
 *                                dma_buffer_physical_address are then not used (the pages
 *                                are found through the context's tables; nothing is staged),
 *                                the packets' addresses are virtual and checked page by page
 *                                (SGPU_ERROR_PACKET_PAGE_NOT_PRESENT / _PAGE_PROTECTION); the
 *                                ring gets CONTEXT(VM, its page directory) when it switches to
 *                                the context and INDIRECT(the virtual address)
 *   node_ordinal                 < nodes, equal to the context's node */
typedef struct sgpu_submit_command_args {
  sgpu_context *context;
  uint32_t dma_buffer_segment_id;
  uint64_t dma_buffer_physical_address;
  uint32_t dma_buffer_size;
  uint32_t dma_buffer_submission_start_offset;
  uint32_t dma_buffer_submission_end_offset;
  void *dma_buffer_private_data;
  uint32_t dma_buffer_private_data_size;
  uint32_t dma_buffer_private_data_submission_start_offset;
  uint32_t dma_buffer_private_data_submission_end_offset;
  uint32_t submission_fence_id;
  uint32_t vidpn_source_id;
  uint32_t flip_interval;
  sgpu_submit_flags flags;
  uint32_t engine_ordinal;
  uint64_t dma_buffer_virtual_address;
  uint32_t node_ordinal;
} sgpu_submit_command_args;

/* Validate, stage (a segment-0 buffer is copied into the node's staging
 * area), write CONTEXT/INDIRECT/FENCE to the node's ring and ring its
 * doorbell; the fence's interrupt later retires it as a DMA_COMPLETED event.
 * Step by step, with the ring's layout and where each reserved word lives:
 * docs/driver.md. */
int sgpu_submit_command(sgpu_device *dev, const sgpu_submit_command_args *args);

/* Both sgpu_submit_command and sgpu_validate_submit_command check every packet
 * (nested INDIRECT buffers included) exactly as the hardware will, with the
 * same checks in the same order (docs/interface.md, "Checks and their
 * precedence"), so what they accept does not fault on the chip.  They read
 * command buffers in GPU memory from the library's own copy of what it wrote
 * with sgpu_write (or read with sgpu_read); only words it never saw are read
 * back from the device (counted in sgpu_stats.readback_bytes).  A buffer the
 * GPU itself rewrote after the library wrote it: sgpu_read it first. */

/* DXGKARG_VALIDATESUBMITCOMMAND */
#define SGPU_MAX_BROADCAST_CONTEXT 64u

typedef union sgpu_validate_submit_command_flags {
  struct {
    uint32_t hardware_queue_submission : 1;
    uint32_t reserved : 31;
  };
  uint32_t value;
} sgpu_validate_submit_command_flags;

typedef struct sgpu_validate_submit_command_args {
  uint64_t commands;        /* GPU address of the command buffer (for a VM context: its virtual
                               address there, every page mapped, else SGPU_ERROR_NOT_MAPPED) */
  uint32_t command_length;  /* bytes */
  sgpu_validate_submit_command_flags flags;
  uint32_t context_count;   /* 1..SGPU_MAX_BROADCAST_CONTEXT */
  sgpu_context *context[SGPU_MAX_BROADCAST_CONTEXT];
  void *private_driver_data;
  uint32_t private_driver_data_size;
  uint32_t umd_private_data_size;      /* <= private_driver_data_size */
  uint64_t hw_queue_progress_fence_id; /* 0 = none; else must not have passed on the node */
} sgpu_validate_submit_command_args;

int sgpu_validate_submit_command(sgpu_device *dev, const sgpu_validate_submit_command_args *args);

/* ------------------------------------------------------------ fences, events */
/* Wait until submission_fence_id `fence_id` of the node has completed.
 * With priority rings (sgpu_set_context_priority) that is the submission
 * that carried it, on whichever ring it went to, without waiting for the
 * other ring; an id no submission carried is done once a ring of the node
 * passed it or the node is idle.
 * Timeouts count simulated time at SGPU_NOMINAL_CLOCK_HZ on sim. */
int sgpu_wait_fence(sgpu_device *dev, uint32_t node_ordinal, uint32_t fence_id, uint32_t timeout_ms);
/* Wait until every submission on every node has completed (or faulted). */
int sgpu_wait_idle(sgpu_device *dev, uint32_t timeout_ms);

typedef struct sgpu_fence_info {
  uint64_t submitted; /* last submitted fence id, extended to 64 bits */
  uint64_t completed; /* last completed fence id, extended to 64 bits: every submission of
                         the node at or below it is done (both rings with priority rings) */
  uint32_t pending;   /* submissions not yet completed (both rings) */
  uint32_t faulted;   /* 1 when the node (either ring) stopped on a fault */
} sgpu_fence_info;
int sgpu_get_fence(sgpu_device *dev, uint32_t node_ordinal, sgpu_fence_info *info);

typedef enum sgpu_event_type {
  SGPU_EVENT_NONE = 0,
  SGPU_EVENT_DMA_COMPLETED = 1, /* a submission's fence was written */
  SGPU_EVENT_DMA_PREEMPTED = 2, /* the node was preempted */
  SGPU_EVENT_DMA_FAULTED = 3,   /* the node stopped on a fault */
  SGPU_EVENT_CRTC_VSYNC = 4,    /* a source entered vertical blanking */
  SGPU_EVENT_DMA_DROPPED = 5,   /* a submission of the guilty context, not run (engine reset) */
  SGPU_EVENT_ENGINE_RESET = 6   /* a node was reset; context_id names the guilty context */
} sgpu_event_type;

typedef struct sgpu_event {
  uint32_t type;            /* sgpu_event_type */
  uint32_t node_ordinal;    /* DMA events */
  uint32_t fence_id;        /* completed / faulted (in flight) / preemption fence */
  uint64_t fence_id64;      /* the same, extended to 64 bits */
  uint32_t last_completed_fence_id; /* PREEMPTED / FAULTED: last fence that completed */
  uint32_t flags;           /* the submission's flags value */
  /* DMA_FAULTED */
  uint32_t fault_reason;    /* SGPU_FAULT_* */
  uint32_t fault_address;   /* address of the faulting packet header (in a VM context's
                               buffer: its virtual address) */
  uint32_t fault_opcode;    /* the faulting header word */
  /* CRTC_VSYNC */
  uint32_t source_id;
  uint32_t scanout_address; /* address being scanned out */
  uint64_t vblank_count;
  /* all */
  uint64_t cycle;           /* simulated cycle when the library saw it */
  void *private_data;       /* the submission's private-data slice (or NULL) */
  uint32_t private_data_size;
  /* ENGINE_RESET (fence_id: the last aborted fence; 0 context_id: nothing was
   * running, or the running submission had no context) */
  uint32_t context_id;      /* sgpu_context_id() of the guilty context (DMA_DROPPED: whose
                               submission it was) */
  uint32_t guilty_count;    /* times that context has now been found guilty */
  uint32_t banned;          /* 1: it reached the ban threshold with this reset */
  uint32_t resubmitted;     /* innocent submissions put back on the ring */
  /* DMA_PREEMPTED */
  uint32_t preempted_count; /* submissions preempted, to be sent again with flags.resubmission */
  uint32_t latency_cycles;  /* device cycles from the request to the node stopped, its state saved */
  /* DMA events: the ring they came from, SGPU_PRIORITY_NORMAL or _HIGH
   * (last_completed_fence_id is that ring's) */
  uint32_t priority;
  /* DMA_FAULTED with fault_reason SGPU_FAULT_PAGE_NOT_PRESENT / _PAGE_PROTECTION (a VM
   * context; FAULT_VA, FAULT_ACCESS): the virtual address of the access's first byte in
   * the page that faulted, the access (SGPU_ACCESS_*) and the unit (SGPU_UNIT_*) */
  uint64_t fault_va;
  uint32_t fault_access;
  uint32_t fault_unit;
} sgpu_event;
#define SGPU_ACCESS_FETCH SGPU_HW_ACCESS_FETCH /* command fetch (an INDIRECT buffer) */
#define SGPU_ACCESS_READ SGPU_HW_ACCESS_READ   /* WAIT_MEM, COPY source, FLIP */
#define SGPU_ACCESS_WRITE SGPU_HW_ACCESS_WRITE /* FENCE, WRITE_DATA, TIMESTAMP, FILL, COPY dst */
#define SGPU_UNIT_CP SGPU_HW_UNIT_CP           /* the command processor */
#define SGPU_UNIT_2D SGPU_HW_UNIT_2D           /* the 2D engine (FILL, COPY) */

/* Next event, waiting up to timeout_ms (0 = poll).  SGPU_ERROR_TIMEOUT when none. */
int sgpu_next_event(sgpu_device *dev, sgpu_event *ev, uint32_t timeout_ms);
/* CRTC_VSYNC events are off by default (one per frame); turn them on/off. */
int sgpu_enable_vsync_events(sgpu_device *dev, uint32_t source, int enable);

/* Timeout detection and recovery (DxgkDdiResetEngine, DxgkDdiResetFromTimeout;
 * docs/recovery.md).
 *
 * sgpu_reset_engine resets one node and nothing else: CONTROL.RESET stops its
 * memory traffic at once, the submission that was running is aborted and its
 * context found guilty, and the node's ring is rebuilt from the library's
 * queue:
 *   - every queued submission of the guilty context is aborted too (one
 *     DMA_DROPPED event each); its fence id still passes in order (the ring
 *     gets a bare FENCE for it), so sgpu_wait_fence on it returns, and the
 *     work itself must be submitted again under a new fence id;
 *   - every other submission (innocent: it had not started, a ring runs in
 *     order) goes back on the ring exactly once, automatically, with its
 *     fence id, its flags plus flags.resubmission, and its staged copy;
 *   - one ENGINE_RESET event names the guilty context.
 * *last_aborted_fence_id (may be NULL) receives the last fence id aborted, or
 * the last completed one when nothing was running.  Returns the number of
 * innocent submissions put back.  A context found guilty sgpu_set_ban_threshold
 * times is banned: its later submissions fail with SGPU_ERROR_CONTEXT_BANNED.
 *
 * With priority rings both rings of the node are reset and rebuilt, each from
 * its own queue: the running submission is the oldest of the ring that faulted,
 * else of the high-priority ring when it has work, else of the normal ring;
 * the innocent work goes back once on its own ring; the ENGINE_RESET event
 * comes from the running ring (its priority and last completed fence).
 *
 * sgpu_reset_from_timeout does the same for every node that faulted (a
 * watchdog TIMEOUT is a fault) or still has work pending, and returns the
 * total number of innocent submissions it put back (0 when only guilty work
 * was queued). */
int sgpu_reset_engine(sgpu_device *dev, uint32_t node_ordinal, uint32_t *last_aborted_fence_id);
int sgpu_reset_from_timeout(sgpu_device *dev);
#define SGPU_DEFAULT_BAN_THRESHOLD 3u
/* Times a context may be found guilty before it is banned (0: never). */
int sgpu_set_ban_threshold(sgpu_device *dev, uint32_t guilty_count);
uint32_t sgpu_context_guilty_count(const sgpu_context *ctx);

/* Preemption (DxgkDdiPreemptCommand; docs/preemption.md).
 *
 * sgpu_preempt stops node node_ordinal at its next boundary: between
 * packets, inside INDIRECT buffers too, or inside a WAIT_MEM, WAIT_VSYNC or
 * WAIT_SCANLINE (sgpu_info.preemption_granularity says which boundaries a
 * device has: a board without CAPS.PREEMPTION drains to the end of the
 * running buffer instead).  The node writes its resume state to its save
 * area, the preemption fence id last; the library then resets the node and
 * raises one DMA_PREEMPTED event (fence_id: the preemption fence id,
 * last_completed_fence_id, preempted_count).  With nothing running it does
 * so at once.  Every submission not completed is preempted: it runs no
 * further, sgpu_wait_fence on it fails with SGPU_ERROR_PREEMPTED, and the
 * node takes new work only once each has been sent again, oldest first,
 * with flags.resubmission and the same arguments (fence id, buffer, range,
 * context).  The one that was running resumes where it stopped: what ran
 * before the stop does not run again (a WAIT cut short polls again), what
 * came after runs once.  A resubmission that does not match the node's next
 * preempted submission fails with SGPU_ERROR_NOT_PREEMPTED.  With priority
 * rings both rings of the node are preempted, each keeping its own preempted
 * submissions (a resubmission matches the next one of its context's ring);
 * the normal ring's DMA_PREEMPTED event comes always, the high ring's (its
 * priority, count and last completed fence) when it had work. */
int sgpu_preempt(sgpu_device *dev, uint32_t node_ordinal, uint32_t preemption_fence_id);
/* sgpu_info.preemption_granularity, after D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY */
#define SGPU_PREEMPTION_DMA_BUFFER_BOUNDARY 100u /* drains to the end of the running buffer */
#define SGPU_PREEMPTION_PACKET_BOUNDARY 200u     /* between packets in any buffer, inside WAITs */
int sgpu_context_banned(const sgpu_context *ctx);

typedef struct sgpu_stats {
  uint64_t submissions, paging, present, redirected_present, null_rendering, flip,
      flip_with_no_wait, context_switch, resubmission, virtual_machine_data;
  uint64_t completed, faulted, preempted, dropped, vsyncs;
  uint64_t staged_bytes;     /* segment-0 bytes copied into the aperture */
  uint64_t context_switches; /* CONTEXT packets the library wrote */
  uint64_t ring_waits;       /* times a submission waited for ring/staging room */
  uint64_t events_lost;      /* events dropped because the queue was full */
  uint64_t resets;
  /* bytes validation had to read back from GPU memory because the library
   * never wrote or read them (it keeps a copy of what it did) */
  uint64_t readback_bytes;
} sgpu_stats;
int sgpu_get_stats(sgpu_device *dev, sgpu_stats *stats);

/* ------------------------------------------------------------ sharing (sgpud) */
/* A program using a device shared through sgpud (docs/sgpud.md). */
typedef struct sgpu_program_info {
  uint32_t id;          /* the server's number for its connection */
  uint32_t pid;         /* its process id (the socket's peer) */
  char name[32];        /* its name, as it said at the open */
  uint32_t contexts;    /* live contexts */
  uint32_t allocations; /* live allocations (all segments) */
  uint64_t memory;      /* bytes of them */
  uint64_t submissions; /* accepted since it connected */
  uint64_t completed;   /* of them, completed */
  uint32_t queued;      /* submitted, not yet completed */
  uint32_t self;        /* 1: the calling program */
  uint32_t gone;        /* 1: disconnected; its queued work drains, then its memory is freed */
  uint32_t reserved;
} sgpu_program_info;

/* The programs connected to the sgpud server of dev: fills
 * programs[0 .. min(count, max)) and returns the count (>= 1: the caller is
 * one).  SGPU_ERROR_NOT_SUPPORTED when dev is not opened through sgpud. */
int sgpu_list_programs(sgpu_device *dev, sgpu_program_info *programs, size_t max);

/* ------------------------------------------------------------ link */
/* Counters of a device on a link transport (tcp:, serial:, usb), kept per
 * device since it was opened (docs/link-protocol.md). */
typedef struct sgpu_link_stats {
  uint64_t frames_sent;      /* request frames, retransmissions included */
  uint64_t frames_received;  /* valid frames from the device: answers and events */
  uint64_t retransmissions;  /* frames sent again after a NAK, a timeout or an unusable answer */
  uint64_t timeouts;         /* frames whose answer did not come in time */
  uint64_t naks;             /* NAK answers (the device refused a frame; it had no effect) */
  uint64_t crc_errors;       /* damaged frames: requests the device NAKed as BAD_CRC plus
                                device->host frames with a bad CRC */
  uint64_t rejected;         /* device->host frames the library refused (CRC, truncated, bad
                                header) */
  uint64_t duplicates;       /* ACKs marked DUPLICATE: a repeated WRITE the device had already
                                applied, not applied again */
  uint64_t events, events_missed; /* EVENT frames, and gaps in their counter */
  uint64_t bytes_sent, bytes_received;     /* bytes on the wire each way */
  uint64_t payload_sent, payload_received; /* data words' bytes written / read (once each) */
  uint64_t pings;            /* sgpu_ping calls, and of them those with no answer */
  uint64_t pings_lost;
  uint64_t elapsed_us;       /* since the open */
  uint64_t busy_us;          /* of it, time with a frame in flight (sending, waiting) */
  uint32_t rtt_us;           /* smoothed round trip of frames answered at the first try */
  uint32_t max_words;        /* largest burst the device takes (its PING answer) */
  uint32_t burst_words;      /* burst used now (halves on a noisy line, grows back) */
  uint32_t baud;             /* wire rate assumed (serial:, usb); 0 on tcp: */
  uint32_t version;          /* link version the device speaks (its PING answer) */
  uint32_t window_bytes;     /* request bytes the host may have unanswered (version 3: the
                                device's receive FIFO less one largest frame); 0: one frame */
  uint32_t in_flight_max;    /* most request frames unanswered at once so far */
  uint64_t out_of_order;     /* NAKs OUT_OF_ORDER: a frame before it was lost (version 3) */
  uint64_t renumbered;       /* windows given new SEQs: the device had applied none of them */
  uint64_t refused;          /* frames NAKed BAD_ADDR (outside GPU memory or the register
                                block): not repeated, the call failed SGPU_ERROR_ADDRESS_REFUSED */
} sgpu_link_stats;

/* The link counters.  SGPU_ERROR_NOT_SUPPORTED when the device is not on a
 * link (sim: the model is in-process, there is no link). */
int sgpu_get_link_stats(sgpu_device *dev, sgpu_link_stats *stats);

/* One link round trip: a PING frame sent once (no retransmission) and its
 * ACK.  0 and *rtt_us (wall time, microseconds) when the answer came within
 * timeout_ms (1..60000); SGPU_ERROR_TIMEOUT when it did not (lost: counted
 * in pings_lost; the device may still be receiving it); SGPU_ERROR_IO when
 * the link is down; SGPU_ERROR_NOT_SUPPORTED on sim (no link);
 * SGPU_ERROR_INVALID_PARAM for a NULL pointer or a timeout out of range. */
int sgpu_ping(sgpu_device *dev, uint32_t timeout_ms, uint32_t *rtt_us);

/* Ring state of a node (its normal ring), for ring dumps. */
typedef struct sgpu_ring_info {
  uint32_t base, size, rptr, wptr; /* rptr from the hardware, wptr as written */
  uint32_t rptr_address, fence_address;
  uint32_t status;                 /* STATUS register */
} sgpu_ring_info;
int sgpu_get_ring_info(sgpu_device *dev, uint32_t node_ordinal, sgpu_ring_info *info);

/* Simulated cycles since the chip was created (sim), or the CYCLE counter. */
int sgpu_get_cycles(sgpu_device *dev, uint64_t *cycles);
/* Let the device run for `cycles` cycles (servicing interrupts). */
int sgpu_run_cycles(sgpu_device *dev, uint64_t cycles);

/* ------------------------------------------------------------ display */
int sgpu_set_display_mode(sgpu_device *dev, uint32_t source, const sgpu_display_mode *mode);
int sgpu_get_display_mode(sgpu_device *dev, uint32_t source, sgpu_display_mode *mode);

typedef struct sgpu_frame {
  uint32_t width, height;   /* pixels emitted (the timing's active area) */
  uint8_t *pixels;          /* width*height*3 bytes RGB888, library-allocated */
  uint32_t source;
  uint32_t scanout_address; /* DISP_BASE while the frame was scanned out */
  uint64_t frame_number;    /* 1 = first complete frame since the chip started */
  uint64_t start_cycle;     /* cycle of the vsync that began the frame */
} sgpu_frame;

/* Run until the next frame that starts after this call has been emitted
 * completely and return it, in the cycle after the vsync that ends it.
 * A frame runs from one vsync start to the next.  When the previous capture of
 * this source returned frame n and frame n+1 has not completed yet, frame n+1
 * is the one returned: back-to-back captures give consecutive frame numbers,
 * one frame period (800*525 cycles, 80*56 in video=tiny) apart.  (A flip
 * takes effect at vblank start, near the end of a frame, so it shows from the
 * frame after the one being emitted when its fence is signalled.)
 * scanout_address is DISP_BASE as the frame began.  Free with
 * sgpu_frame_release(). */
int sgpu_capture_frame(sgpu_device *dev, uint32_t source, sgpu_frame *frame);
void sgpu_frame_release(sgpu_frame *frame);
/* Write a frame as an RGB PNG file. */
int sgpu_write_png(const sgpu_frame *frame, const char *path);

/* ------------------------------------------------------------ command buffers */
/* Builds packets into caller memory.  Overflow (or an argument that does not
 * fit its field) is sticky: the packet is not written, later calls do nothing,
 * and every call returns the error; nothing is ever written past capacity.
 * Treat the fields as private. */
typedef struct sgpu_cmdbuf {
  uint32_t *words;
  uint32_t capacity; /* words */
  uint32_t used;     /* words */
  int error;         /* sticky error (0 = none) */
} sgpu_cmdbuf;

/* memory must be 4-byte aligned; capacity in bytes (rounded down to words). */
int sgpu_cmdbuf_init(sgpu_cmdbuf *cb, void *memory, uint32_t capacity);
uint32_t sgpu_cmdbuf_size(const sgpu_cmdbuf *cb); /* bytes written */
int sgpu_cmdbuf_error(const sgpu_cmdbuf *cb);
void sgpu_cmdbuf_reset(sgpu_cmdbuf *cb);          /* empty it, clear the error */

int sgpu_cmd_nop(sgpu_cmdbuf *cb, uint32_t payload_words);
int sgpu_cmd_indirect(sgpu_cmdbuf *cb, uint32_t address, uint32_t length, uint32_t fence_id,
                      int skip);
int sgpu_cmd_fence(sgpu_cmdbuf *cb, uint32_t address, uint32_t value, int irq);
int sgpu_cmd_write_data(sgpu_cmdbuf *cb, uint32_t address, const uint32_t *data, uint32_t count);
int sgpu_cmd_wait_mem(sgpu_cmdbuf *cb, uint32_t address, uint32_t mask, uint32_t reference,
                      uint32_t func);
int sgpu_cmd_wait_vsync(sgpu_cmdbuf *cb, uint32_t source);
int sgpu_cmd_wait_scanline(sgpu_cmdbuf *cb, uint32_t source, uint32_t first, uint32_t last);
int sgpu_cmd_fill(sgpu_cmdbuf *cb, uint32_t dst, uint32_t pitch, uint32_t width_bytes,
                  uint32_t height, uint32_t pattern32);
int sgpu_cmd_copy(sgpu_cmdbuf *cb, uint32_t dst, uint32_t dst_pitch, uint32_t src,
                  uint32_t src_pitch, uint32_t width_bytes, uint32_t height);
int sgpu_cmd_flip(sgpu_cmdbuf *cb, uint32_t source, uint32_t address, uint32_t interval,
                  int no_wait);
int sgpu_cmd_context(sgpu_cmdbuf *cb, uint32_t context_id, uint32_t window_base,
                     uint32_t window_size);
int sgpu_cmd_timestamp(sgpu_cmdbuf *cb, uint32_t address);

#ifdef __cplusplus
}
#endif
#endif
