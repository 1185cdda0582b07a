"""The one source of truth for the sgpu hardware/software interface.

Everything the RTL and the host library must agree on is written here once:
packet header layout, opcodes and their payloads, fault codes, interrupt
bits, register offsets and their fields.  `tools/genhw.py` turns it into
`sgpu_hw.h` (C), `sgpu_hw.vh` (Verilog `define`s) and `docs/interface.md`.
Edit this file, never the generated ones.
"""

VERSION_MAJOR = 0
VERSION_MINOR = 1

# Identity register value: ASCII "SGPU".
MAGIC = 0x53475055

# ---------------------------------------------------------------- packets
# Header word: [31:30] type (must be 3), [29:16] count of payload words,
# [15:8] per-opcode flags, [7:0] opcode.  A zero word is never a valid
# header, so running into cleared memory faults instead of executing.
HEADER_FIELDS = [
    # name, lsb, width, doc
    ("OPCODE", 0, 8, "packet opcode"),
    ("FLAGS", 8, 8, "per-opcode flags"),
    ("COUNT", 16, 14, "number of payload words that follow the header"),
    ("TYPE", 30, 2, "packet type; must be 3"),
]
PACKET_TYPE = 3

# name, value, payload count (None = variable, with min), payload words, flags, doc
OPCODES = [
    ("NOP", 0x00, None, 0, ["ignored..."], [],
     "Padding. Its payload words are skipped."),
    ("INDIRECT", 0x01, 3, 3, ["address", "length in bytes", "fence id of the submission"],
     [("SKIP", 0, "NullRendering: the buffer is not fetched or executed")],
     "Fetch and execute the buffer [address, address+length) by DMA. "
     "The fence id is reported as 'fence in flight' if the buffer faults."),
    ("FENCE", 0x02, 2, 2, ["address", "value"],
     [("IRQ", 0, "raise DMA_COMPLETED for this node once the value is visible")],
     "Write value to address once every earlier write of this ring is in memory."),
    ("WRITE_DATA", 0x03, None, 2, ["address", "data..."], [],
     "Write the inline data words to consecutive words at address."),
    ("WAIT_MEM", 0x04, 3, 3, ["address", "mask", "reference"],
     [("FUNC", 0, "compare function, 3 bits (WAIT_FUNC_*)")],
     "Poll the word at address until (word & mask) FUNC reference holds."),
    ("WAIT_VSYNC", 0x05, 1, 1, ["display source"], [],
     "Wait for the next start of vertical blanking of the source."),
    ("WAIT_SCANLINE", 0x06, 2, 2, ["display source", "first line [15:0], last line [31:16]"], [],
     "Wait while the source's beam is on a line in [first, last]."),
    ("FILL", 0x07, 5, 5, ["destination", "pitch", "width in bytes", "height", "pattern"], [],
     "Fill a byte-granular rectangle with the 32-bit pattern (byte i of a row "
     "takes byte (address+i)%4 of the pattern)."),
    ("COPY", 0x08, 6, 6, ["destination", "destination pitch", "source", "source pitch",
                          "width in bytes", "height"], [],
     "Copy a byte-granular rectangle; overlapping rectangles copy as if through a temporary."),
    ("FLIP", 0x09, 3, 3, ["display source", "address", "interval (FLIP_INTERVAL_*)"],
     [("NO_WAIT", 0, "queue the flip and go on (FlipWithNoWait)")],
     "Make address the source's scanout buffer at vblank (or at once for IMMEDIATE)."),
    ("CONTEXT", 0x0A, 3, 3, ["context id (0 = null context)", "window base", "window size in bytes"], [],
     "Switch context after draining. Only allowed in the ring itself."),
    ("TIMESTAMP", 0x0B, 1, 1, ["address (two words: cycle counter low, high)"], [],
     "Write the 64-bit cycle counter once earlier writes are in memory."),
]

# WAIT_MEM compare functions (FLAGS[2:0]).  GEQ_WRAP compares 32-bit fence
# ids with wrap-around: (int32_t)(value - reference) >= 0.
WAIT_FUNCS = [
    ("EQ", 0), ("NE", 1), ("LT", 2), ("LE", 3), ("GT", 4), ("GE", 5), ("GEQ_WRAP", 6),
]

# D3DDDI_FLIPINTERVAL_TYPE
FLIP_INTERVALS = [
    ("IMMEDIATE", 0), ("ONE", 1), ("TWO", 2), ("THREE", 3), ("FOUR", 4),
    ("IMMEDIATE_ALLOW_TEARING", 5),
]

# Limits the hardware enforces.
LIMITS = [
    ("MAX_IB_DEPTH", 2, "INDIRECT nesting levels below the ring (ring -> IB -> IB)"),
    ("MAX_BLIT_DIM", 65535, "largest FILL/COPY width in bytes, height and pitch"),
    ("MAX_NODES", 4, "most rings a build can have"),
    ("MAX_SOURCES", 2, "most display sources a build can have"),
]

# ---------------------------------------------------------------- faults
FAULTS = [
    ("NONE", 0, "no fault"),
    ("ILLEGAL_OPCODE", 1, "opcode not defined"),
    ("BAD_HEADER", 2, "packet type is not 3, or reserved flag bits set"),
    ("BAD_COUNT", 3, "payload count wrong for the opcode"),
    ("OVERRUN", 4, "packet runs past the end of its buffer"),
    ("MISALIGNED", 5, "address or length not 4-byte aligned"),
    ("OUT_OF_RANGE", 6, "address range outside GPU memory"),
    ("CONTEXT_WINDOW", 7, "access outside the current context's window"),
    ("NESTING", 8, "INDIRECT buffers nested deeper than MAX_IB_DEPTH"),
    ("TIMEOUT", 9, "watchdog: no progress for WATCHDOG cycles"),
    ("BAD_PARAM", 10, "parameter out of range (source, interval, compare function, pitch)"),
    ("PRIVILEGED", 11, "CONTEXT packet outside the ring"),
    ("UNSUPPORTED", 12, "packet not implemented by this build"),
]

# ---------------------------------------------------------------- interrupts
# INT_STATUS / INT_ENABLE bit groups; bit = base + node (or source).
INTERRUPTS = [
    ("DMA_COMPLETED", 0, "a FENCE with IRQ of node n became visible"),
    ("DMA_FAULTED", 8, "node n stopped on a fault (reason in its FAULT_* registers)"),
    ("DMA_PREEMPTED", 16, "node n was preempted"),
    ("CRTC_VSYNC", 24, "source s entered vertical blanking"),
    ("CFG_ERROR", 31, "a register write was rejected (see CFG_ERROR)"),
]

# ---------------------------------------------------------------- registers
# Host address space: bit 31 clear = GPU memory (byte address), bit 31 set =
# registers (offset below).  All registers are 32 bits, word aligned.
REG_SPACE_BIT = 31

# name, offset, access, doc
GLOBAL_REGS = [
    ("ID", 0x000, "ro", "magic 0x53475055 ('SGPU')"),
    ("VERSION", 0x004, "ro", "[31:16] major, [15:0] minor"),
    ("CAPS", 0x008, "ro", "[3:0] nodes, [7:4] sources, [8] 2D engine, [9] display, [10] preemption"),
    ("MEM_SIZE", 0x00C, "ro", "bytes of GPU memory"),
    ("INT_STATUS", 0x010, "w1c", "pending interrupts (bit groups in INTERRUPTS)"),
    ("INT_ENABLE", 0x014, "rw", "interrupt mask for the irq output"),
    ("CFG_ERROR", 0x018, "w1c", "rejected register writes: [0] ring size not a power of two or out of range, "
                                "[1] misaligned address, [2] pointer out of range, [3] unknown bits set, "
                                "[4] value out of range, [5] ring base/size written while the ring is enabled. "
                                "A write to a read-only or unmapped offset sets [3]; a write the "
                                "display rejects sets [4]. Rejected writes change nothing."),
    ("CFG_ERROR_ADDR", 0x01C, "ro", "offset of the last rejected register write"),
    ("CYCLE_LO", 0x020, "ro", "cycle counter, low word (reading it latches CYCLE_HI)"),
    ("CYCLE_HI", 0x024, "ro", "cycle counter, high word latched by the last CYCLE_LO read"),
    ("SEG1_BASE", 0x028, "ro", "base of segment 1 (local video memory)"),
    ("SEG1_SIZE", 0x02C, "ro", "size of segment 1"),
    ("SEG2_BASE", 0x030, "ro", "base of segment 2 (aperture)"),
    ("SEG2_SIZE", 0x034, "ro", "size of segment 2"),
    ("SCRATCH", 0x038, "rw", "free for software (link tests)"),
]

CFG_ERRORS = [
    ("RING_SIZE", 0), ("MISALIGNED", 1), ("POINTER_RANGE", 2), ("UNKNOWN_BITS", 3), ("VALUE_RANGE", 4),
    ("WHILE_ENABLED", 5),
]

NODE_BASE = 0x100
NODE_STRIDE = 0x80
NODE_REGS = [
    ("RING_BASE", 0x00, "rw", "ring base, byte address: 64-byte aligned (else CFG_ERROR[1]) and inside "
                              "memory (else [4]); writable only while disabled (else [5]). Enabling checks "
                              "it is aligned to RING_SIZE ([1]) and the ring fits in memory ([4]). An "
                              "accepted write sets RPTR = WPTR = 0"),
    ("RING_SIZE", 0x04, "rw", "ring size in bytes: a power of two from 64 to 1 MiB (else CFG_ERROR[0]); "
                              "writable only while disabled (else [5]); an accepted write sets RPTR = WPTR = 0"),
    ("RING_WPTR", 0x08, "rw", "doorbell: write pointer, byte offset in the ring, 4-byte aligned (else "
                              "CFG_ERROR[1]), < RING_SIZE (else [2]). A packet reaching past WPTR is an OVERRUN fault"),
    ("RING_RPTR", 0x0C, "ro", "read pointer, byte offset in the ring of the next packet not yet "
                              "completed (an INDIRECT completes when its buffer is entered)"),
    ("RPTR_ADDR", 0x10, "rw", "where RING_RPTR is written back after each ring packet; [0] enable, "
                              "[1] must be 0 (else CFG_ERROR[3]), [31:2] word address inside memory (else [4])"),
    ("CONTROL", 0x14, "rw", "[0] ENABLE, [1] RESET (self-clearing: stop all memory traffic and drop "
                            "reads in flight, clear the fault, IB stack and context (null), RPTR = WPTR = 0; "
                            "ENABLE keeps its value, the ENABLE bit of a RESET write is ignored). Other "
                            "bits set: CFG_ERROR[3]. A fault stops the engine until RESET"),
    ("STATUS", 0x18, "ro", "[0] BUSY, [1] FAULTED, [2] WAITING (in a WAIT_* packet), [3] ENABLED, "
                           "[7:4] IB depth"),
    ("FAULT_REASON", 0x1C, "ro", "FAULT_* code of the last fault"),
    ("FAULT_ADDR", 0x20, "ro", "byte address of the faulting packet's header (0 when not faulted)"),
    ("FAULT_OPCODE", 0x24, "ro", "header word of the faulting packet (0 when not faulted)"),
    ("FAULT_FENCE", 0x28, "ro", "fence id in flight: that of the last ring-level INDIRECT (the "
                              "submission), including a faulting one (0 when not faulted)"),
    ("WATCHDOG", 0x2C, "rw", "cycles without progress (a packet completing or a command word fetched) "
                           "while busy before a TIMEOUT fault; 0 disables. 24 bits: a value above 0xFFFFFF is "
                           "rejected (CFG_ERROR[4])"),
    ("LAST_FENCE", 0x30, "ro", "value of the last FENCE this node wrote"),
    ("PERF_BUSY", 0x34, "ro", "cycles the node was busy"),
    ("PERF_STALL", 0x38, "ro", "cycles the node waited on memory"),
    ("PERF_WORDS", 0x3C, "ro", "command words fetched"),
    ("PERF_PACKETS", 0x40, "ro", "packets executed"),
    ("CONTEXT_ID", 0x44, "ro", "current context id (0 = null context)"),
    ("WINDOW_BASE", 0x48, "ro", "current context window base"),
    ("WINDOW_SIZE", 0x4C, "ro", "current context window size"),
    ("CUR_ADDR", 0x50, "ro", "address of the packet being executed"),
]

NODE_CONTROL_BITS = [("ENABLE", 0), ("RESET", 1)]
NODE_STATUS_BITS = [("BUSY", 0), ("FAULTED", 1), ("WAITING", 2), ("ENABLED", 3)]

SOURCE_BASE = 0x400
SOURCE_STRIDE = 0x40
SOURCE_REGS = [
    ("DISP_CONTROL", 0x00, "rw", "[0] ENABLE, [1] FORMAT (0 RGB565, 1 RGB332), [3:2] horizontal "
                                  "replication log2, [5:4] vertical replication log2, [6] TINY timing; "
                                  "[5:0] take effect at the next vblank, a change of [6] restarts the "
                                  "timing at the start of vblank"),
    ("DISP_BASE", 0x04, "rw", "current scanout address, 4-byte aligned, inside GPU memory (a host write "
                               "takes effect at the next vblank; reads return the address in use)"),
    ("DISP_PITCH", 0x08, "rw", "framebuffer pitch in bytes, 4-byte aligned, < 65536 (takes effect at the next vblank)"),
    ("DISP_PENDING", 0x0C, "ro", "[31:2] pending flip address, [0] pending valid"),
    ("DISP_VBLANK_COUNT", 0x10, "ro", "vblanks since reset"),
    ("DISP_SCANLINE", 0x14, "ro", "[15:0] current line (0 = first active line), [16] in vblank"),
    ("DISP_UNDERFLOW", 0x18, "ro", "[7:0] pixels shown before their row was fetched completely (saturates at 255)"),
    ("DISP_TIMING", 0x1C, "ro", "[15:0] active width, [31:16] active height of the current timing"),
    ("DISP_FLIP_COUNT", 0x20, "ro", "[15:0] flips taken (wraps)"),
]

DISP_CONTROL_BITS = [("ENABLE", 0), ("FORMAT", 1), ("HREP", 2), ("VREP", 4), ("TINY", 6)]
FORMATS = [("RGB565", 0), ("RGB332", 1)]

# Display timings: name, h (active, front porch, sync, back porch),
# v (active, front porch, sync, back porch), sync polarity (0 negative),
# nominal pixel clock in Hz.
TIMINGS = [
    ("VGA", (640, 16, 96, 48), (480, 10, 2, 33), 0, 25175000),
    ("TINY", (64, 4, 8, 4), (48, 2, 2, 4), 0, 25175000),
]

# Nominal system clock of the simulation (one pixel per cycle).
NOMINAL_CLOCK_HZ = 25175000


# ---------------------------------------------------------------- host link
# Framing of the host bridge over a byte stream (UART on the boards, TCP to
# sgpu-sim).  docs/link-protocol.md describes the frames; all multi-byte
# fields are little-endian except the CRC, which is sent high byte first.
LINK_VERSION = 1
LINK_SYNC = 0xA5
LINK_MAX_WORDS = 64          # most data words in one write or read burst
LINK_REQ_HDR_BYTES = 10      # SYNC SEQ CMD FLAGS COUNT[2] ADDR[4]
LINK_RSP_HDR_BYTES = 6       # SYNC SEQ KIND INFO COUNT[2]
LINK_CRC_BYTES = 2
# CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, not
# reflected, no final xor; covers every byte after SYNC.  A frame checked
# together with its CRC (high byte first) leaves a residue of 0.
LINK_CRC_POLY = 0x1021
LINK_CRC_INIT = 0xFFFF
# A gap this long inside a frame aborts it (nak TIMEOUT); a host should wait
# for an answer at least LINK_ACK_TIMEOUT_US plus the frame's transfer time.
LINK_GAP_TIMEOUT_US = 5000
LINK_ACK_TIMEOUT_US = 20000
LINK_BAUD_ICEBREAKER = 1000000

# name, value, doc
LINK_CMDS = [
    ("WRITE", 0x01, "write COUNT words from ADDR (data follows the header)"),
    ("READ", 0x02, "read COUNT words from ADDR (answered by an ACK carrying them)"),
    ("PING", 0x03, "COUNT 0; sets the sequence; ACK carries one info word"),
]
LINK_KINDS = [
    ("ACK", 0x81, "frame executed (or a duplicate acknowledged again); read data follows"),
    ("NAK", 0x82, "frame rejected, nothing applied; INFO holds the reason"),
    ("EVENT", 0x83, "unsolicited: irq rose; SEQ counts events, one data word = INT_STATUS"),
]
LINK_NAKS = [
    ("BAD_CRC", 1, "CRC mismatch"),
    ("BAD_LENGTH", 2, "COUNT 0 or above LINK_MAX_WORDS for READ/WRITE, or not 0 for PING"),
    ("BAD_CMD", 3, "unknown CMD or reserved FLAGS bits set"),
    ("TIMEOUT", 4, "the frame stopped for longer than LINK_GAP_TIMEOUT_US"),
    ("BAD_ADDR", 5, "ADDR not 4-byte aligned"),
]
# request FLAGS byte
LINK_FLAGS = [
    ("BYTE_DISABLE", 0, 4, "WRITE: bytes of every word NOT written (0 = whole words)"),
    ("NO_INCR", 4, 1, "READ/WRITE: ADDR stays fixed instead of advancing by 4"),
]
LINK_FLAGS_RESERVED_MASK = 0xE0
# ACK INFO byte
LINK_ACK_DUPLICATE = 0x01    # a retransmitted WRITE: acknowledged, not applied again
# PING ACK info word: [7:0] LINK_VERSION, [15:8] LINK_MAX_WORDS, [31:16] 0
