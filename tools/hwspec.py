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

# Each packet: opcode value, payload words, flag fields, the checks the
# command processor makes before the packet writes anything, and its meaning.
#
# A payload word is W(asm_name, doc, kind=..., ...):
#   kind "addr"  a byte address;          "len"  a length in bytes;
#        "u16"   must fit in 16 bits;     "source" a display source;
#        "value" any 32-bit value;        "rest" all remaining words (variable count);
#        "lines" two 16-bit halves (asm operands first/last);
#   fmt "hex"/"dec" (how the disassembler prints it), default (the operand is
#   optional in assembly and prints as name=value), max (assembler's bound),
#   names (symbolic values the assembler accepts).
# A flag field is F(name, lsb, width, asm_name, doc[, names][, alias]); in
# assembly a 1-bit flag is a keyword, a wider one NAME=VALUE.  Operands are
# written in assembly in the order: payload words, then flags.
#
# checks: the order in which the hardware tests a packet; the first that
# fails is the fault reported (the precedence).  The header checks come
# first for every packet: type (BAD_HEADER), opcode (ILLEGAL_OPCODE),
# reserved flag bits (BAD_HEADER), count (BAD_COUNT), then OVERRUN when the
# packet runs past the end of its buffer (the ring: past WPTR).  Then:
#   ("nesting",)                 NESTING when already MAX_IB_DEPTH buffers deep
#   ("privileged",)              PRIVILEGED inside an INDIRECT buffer
#   ("flag_max", flag, max)      BAD_PARAM when the flag field is above max
#   ("max", word, max)           BAD_PARAM when the word is above max
#   ("source", word)             BAD_PARAM when the word is not a source of the build
#   ("pitch", pitch, width, height)  BAD_PARAM when height > 1 and pitch < width
#   ("empty", width, height)     the packet does nothing (no further checks) when either is 0
#   ("align", word...)           MISALIGNED when any word is not a multiple of 4
#   ("range", addr, LEN)         OUT_OF_RANGE unless addr < memory size and addr + LEN <= memory size
#   ("window", addr, LEN)        CONTEXT_WINDOW inside an INDIRECT buffer of a non-null
#                                context unless [addr, addr + LEN) is inside its window
# LEN: a number of bytes, the name of a "len" word, "payload" (4 bytes per
# payload word after the first) or ("rect", pitch, width, height) =
# pitch * (height - 1) + width.  A check with when=WORD applies only when
# that word is not 0.
def W(asm, doc, kind="value", fmt="hex", default=None, max=None, names=None):
    return dict(asm=asm, doc=doc, kind=kind, fmt=fmt, default=default, max=max, names=names)


def F(name, lsb, width, asm, doc, names=None, alias=None):
    return dict(name=name, lsb=lsb, width=width, asm=asm, doc=doc, names=names, alias=alias)


def C(*args, when=None, access="WRITE", unit="CP"):
    """access, unit: a window check's in a VM context, where it is a page
    check (ACCESS_KINDS, FAULT_UNITS)."""
    return dict(check=args[0], args=args[1:], when=when, access=access, unit=unit)


def Op(name, value, payload, doc, flags=(), checks=(), min_count=None):
    """min_count given: variable payload count (the last payload word is "rest")."""
    return dict(name=name, value=value, payload=list(payload), doc=doc, flags=list(flags),
                checks=list(checks),
                count=None if min_count is not None else len(payload),
                min_count=min_count if min_count is not None else len(payload))


_WAIT_FUNC_NAMES = ["eq", "ne", "lt", "le", "gt", "ge", "geq_wrap"]
_INTERVAL_NAMES = ["immediate", "one", "two", "three", "four", "immediate_allow_tearing"]
_DIM = 65535  # MAX_BLIT_DIM

OPCODES = [
    Op("NOP", 0x00, [W("data", "ignored...", kind="rest")], "Padding. Its payload words are skipped.",
       min_count=0),
    Op("INDIRECT", 0x01,
       [W("addr", "address", kind="addr"), W("length", "length in bytes", kind="len", fmt="dec"),
        W("fence", "fence id of the submission", fmt="dec", default=0)],
       "Fetch and execute the buffer [address, address+length) by DMA. "
       "The fence id is reported as 'fence in flight' if the buffer faults.",
       flags=[F("SKIP", 0, 1, "skip", "NullRendering: the buffer is not fetched or executed")],
       checks=[C("nesting"), C("align", "addr", "length"), C("range", "addr", "length"),
               C("window", "addr", "length", access="FETCH")]),
    Op("FENCE", 0x02, [W("addr", "address", kind="addr"), W("value", "value", fmt="dec")],
       "Write value to address once every earlier write of this ring is in memory.",
       flags=[F("IRQ", 0, 1, "irq", "raise DMA_COMPLETED for this node once the value is visible")],
       checks=[C("align", "addr"), C("range", "addr", 4), C("window", "addr", 4)]),
    Op("WRITE_DATA", 0x03, [W("addr", "address", kind="addr"), W("data", "data...", kind="rest")],
       "Write the inline data words to consecutive words at address.",
       checks=[C("align", "addr"), C("range", "addr", "payload"), C("window", "addr", "payload")],
       min_count=2),
    Op("WAIT_MEM", 0x04,
       [W("addr", "address", kind="addr"), W("mask", "mask", default=0xFFFFFFFF),
        W("ref", "reference", fmt="dec", default=0)],
       "Poll the word at address until (word & mask) FUNC reference holds.",
       flags=[F("FUNC", 0, 3, "func", "compare function (WAIT_FUNC_*)", names=_WAIT_FUNC_NAMES)],
       checks=[C("flag_max", "FUNC", 6), C("align", "addr"), C("range", "addr", 4),
               C("window", "addr", 4, access="READ")]),
    Op("WAIT_VSYNC", 0x05, [W("source", "display source", kind="source", fmt="dec")],
       "Wait for the next start of vertical blanking of the source. On a disabled display it waits "
       "until the display is enabled (or the watchdog ends it).",
       checks=[C("source", "source")]),
    Op("WAIT_SCANLINE", 0x06,
       [W("source", "display source", kind="source", fmt="dec"),
        W("lines", "first line [15:0], last line [31:16]", kind="lines", fmt="dec")],
       "Wait while the source's beam is on a line in [first, last]. During vertical blanking the "
       "beam is on no line, so the wait ends by the next vblank. On a disabled display it waits "
       "until the display is enabled (or the watchdog ends it).",
       checks=[C("source", "source")]),
    Op("FILL", 0x07,
       [W("dst", "destination", kind="addr"), W("pitch", "pitch", kind="u16", fmt="dec"),
        W("width", "width in bytes", kind="u16", fmt="dec"), W("height", "height", kind="u16", fmt="dec"),
        W("pattern", "pattern")],
       "Fill a byte-granular rectangle with the 32-bit pattern (byte i of a row "
       "takes byte (address+i)%4 of the pattern).",
       checks=[C("max", "pitch", _DIM), C("max", "width", _DIM), C("max", "height", _DIM),
               C("pitch", "pitch", "width", "height"), C("empty", "width", "height"),
               C("range", "dst", ("rect", "pitch", "width", "height")),
               C("window", "dst", ("rect", "pitch", "width", "height"), unit="2D")]),
    Op("COPY", 0x08,
       [W("dst", "destination", kind="addr"), W("dst_pitch", "destination pitch", kind="u16", fmt="dec"),
        W("src", "source", kind="addr"), W("src_pitch", "source pitch", kind="u16", fmt="dec"),
        W("width", "width in bytes", kind="u16", fmt="dec"), W("height", "height", kind="u16", fmt="dec")],
       "Copy a byte-granular rectangle; overlapping rectangles copy as if through a temporary.",
       checks=[C("max", "dst_pitch", _DIM), C("max", "src_pitch", _DIM), C("max", "width", _DIM),
               C("max", "height", _DIM), C("pitch", "dst_pitch", "width", "height"),
               C("pitch", "src_pitch", "width", "height"), C("empty", "width", "height"),
               C("range", "dst", ("rect", "dst_pitch", "width", "height")),
               C("window", "dst", ("rect", "dst_pitch", "width", "height"), unit="2D"),
               C("range", "src", ("rect", "src_pitch", "width", "height")),
               C("window", "src", ("rect", "src_pitch", "width", "height"), access="READ", unit="2D")]),
    Op("FLIP", 0x09,
       [W("source", "display source", kind="source", fmt="dec"), W("addr", "address", kind="addr"),
        W("interval", "interval (FLIP_INTERVAL_*)", fmt="dec", default=1, max=5, names=_INTERVAL_NAMES)],
       "Make address the source's scanout buffer at vblank (or at once for IMMEDIATE).",
       flags=[F("NO_WAIT", 0, 1, "nowait", "queue the flip and go on (FlipWithNoWait)", alias="no_wait")],
       checks=[C("source", "source"), C("max", "interval", 5), C("align", "addr"),
               C("range", "addr", 4), C("window", "addr", 4, access="READ")]),
    Op("CONTEXT", 0x0A,
       [W("id", "context id (0 = null context)", fmt="dec"),
        W("base", "window base (VM: the page directory)", kind="addr"),
        W("size", "window size in bytes (VM: PAGE_BYTES)", kind="len")],
       "Switch context after draining. Only allowed in the ring itself. With VM (and a non-zero id, "
       "on a build with CAPS.VM) the context has its own GPU virtual address space: base is its page "
       "directory (bits [11:0] ignored) and every TLB entry of the ring is forgotten; without CAPS.VM "
       "the flag is ignored.",
       flags=[F("VM", 0, 1, "vm", "the context's addresses are virtual, translated through the page "
                                   "directory at base")],
       checks=[C("privileged"), C("align", "base", "size", when="id"),
               C("range", "base", "size", when="id")]),
    Op("TIMESTAMP", 0x0B, [W("addr", "address (two words: cycle counter low, high)", kind="addr")],
       "Write the 64-bit cycle counter once earlier writes are in memory: the count of the cycle "
       "the low word's write is accepted (that word's data follows the counter while it waits), "
       "its high word written next.",
       checks=[C("align", "addr"), C("range", "addr", 8), C("window", "addr", 8)]),
    Op("TLB_INVALIDATE", 0x0C, [],
       "Drain (the 2D engine too), then forget every translation the ring's MMU holds, so that page "
       "tables changed before it are walked again. Only allowed in the ring itself. A build without "
       "CAPS.VM runs it as a NOP.",
       checks=[C("privileged")]),
]

# Fault raised by each kind of check.
CHECK_FAULTS = {
    "nesting": "NESTING", "privileged": "PRIVILEGED", "flag_max": "BAD_PARAM", "max": "BAD_PARAM",
    "source": "BAD_PARAM", "pitch": "BAD_PARAM", "empty": "NONE", "align": "MISALIGNED",
    "range": "OUT_OF_RANGE", "window": "CONTEXT_WINDOW",
}

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

# ---------------------------------------------------------------- virtual memory
# A VM context's 32-bit GPU virtual address space: two levels, 4 KiB pages.
# The page directory (PAGE_BYTES, PAGE_BYTES-aligned, physical) holds
# PT_ENTRIES directory entries indexed by VA[31:22]; each valid one points
# at a page table (PAGE_BYTES, physical) of PT_ENTRIES page-table entries
# indexed by VA[21:12]; a valid page-table entry gives the physical page.
# The hardware reads directory entries only for addresses inside GPU memory
# (the range check comes first), so a build with MEM_SIZE bytes reads the
# first MEM_SIZE / (PT_ENTRIES * PAGE_BYTES) of them (at least one).
PAGE_BYTES = 4096
PT_ENTRIES = 1024
# entry fields: name, lsb, width, meaning
PDE_FIELDS = [
    ("VALID", 0, 1, "the page table exists"),
    ("TABLE", 12, 20, "physical address of the page table >> 12"),
]
PTE_FIELDS = [
    ("VALID", 0, 1, "the page is mapped (readable, and fetchable)"),
    ("WRITABLE", 1, 1, "writes allowed (else PAGE_PROTECTION)"),
    ("SEGMENT", 2, 2, "the segment the page lies in (1 local video memory, 2 aperture); kept for the "
                      "driver, the translation does not use it"),
    ("FRAME", 12, 20, "physical address of the page >> 12"),
]
# A page fault's access kind and unit (FAULT_ACCESS, sgpu_event).
ACCESS_KINDS = [("FETCH", 0, "a command fetch (INDIRECT buffer)"), ("READ", 1, "a read (WAIT_MEM, COPY source, FLIP)"),
                ("WRITE", 2, "a write (FENCE, WRITE_DATA, TIMESTAMP, FILL, COPY destination)")]
FAULT_UNITS = [("CP", 0, "the command processor"), ("2D", 1, "the 2D engine (FILL, COPY)")]

# Limits the hardware enforces.
LIMITS = [
    ("MAX_IB_DEPTH", 2, "INDIRECT nesting levels below the ring (ring -> IB -> IB)"),
    ("MAX_BLIT_DIM", 65535, "largest FILL/COPY width in bytes, height and pitch"),
    ("MAX_NODES", 6, "most rings (node register blocks) a build can have"),
    ("MAX_SOURCES", 2, "most display sources a build can have"),
    ("RING_SIZE_MIN", 64, "smallest ring in bytes, and RING_SIZE after reset"),
]
LIMIT_VALUES = {name: value for name, value, doc in LIMITS}

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
    ("PRIVILEGED", 11, "CONTEXT or TLB_INVALIDATE packet outside the ring"),
    ("UNSUPPORTED", 12, "packet not implemented by this build"),
    ("PAGE_NOT_PRESENT", 13, "VM context: a page of the access has no valid directory or table entry "
                             "(FAULT_VA, FAULT_ACCESS say which)"),
    ("PAGE_PROTECTION", 14, "VM context: a write to a page whose entry is not WRITABLE "
                            "(FAULT_VA, FAULT_ACCESS say which)"),
]

# ---------------------------------------------------------------- library error codes
# The library's negative return codes: name (SGPU_ERROR_<name>), value, what
# it means in the header, and the message sgpu_strerror() gives.  The
# PACKET_* codes are the faults validation finds before the hardware would.
ERRORS = [
    ('SUCCESS', 0, '',
     'success'),
    # general
    ('INVALID_PARAM', -1, 'NULL pointer or argument out of range',
     'invalid parameter (NULL pointer or value out of range)'),
    ('NO_MEM', -2, 'host memory allocation failed',
     'out of host memory'),
    ('INVALID_URI', -3, 'device URI malformed or unknown option',
     'invalid device URI'),
    ('NOT_SUPPORTED', -4, 'transport or feature not built yet',
     'not supported (transport or feature not built yet)'),
    ('IO', -5, 'transport failed (no answer, link error)',
     'transport I/O error (device did not answer)'),
    ('NO_DEVICE', -6, 'no sgpu there: board not attached, server not listening, wrong ID register',
     'no sgpu device found (none attached or listening, or bad ID register)'),
    ('TIMEOUT', -7, 'timeout elapsed (simulated time on sim)',
     'timed out'),
    ('INVALID_SEGMENT', -8, 'segment id not 0, 1 or 2',
     'invalid segment id (must be 0, 1 or 2)'),
    ('OUT_OF_GPU_MEMORY', -9, 'no free range of that size in the segment',
     'not enough free memory in the segment'),
    ('INVALID_ADDRESS', -10, 'address range not inside a segment/allocation',
     'address range outside the segment or allocation'),
    ('INVALID_ALIGNMENT', -11, 'alignment not a power of two (or too large)',
     'alignment is not a power of two'),
    ('NOT_ALLOCATED', -12, 'sgpu_free of an address that is not allocated',
     'address was not allocated by sgpu_alloc'),
    ('INVALID_NODE', -13, 'node ordinal >= number of nodes',
     'node ordinal out of range'),
    ('INVALID_SOURCE', -14, 'display source >= number of sources',
     'display source out of range'),
    ('INVALID_MODE', -15, 'display mode not possible (size, format, pitch)',
     'display mode not supported'),
    ('INVALID_CONTEXT', -16, 'NULL or foreign context handle',
     'invalid context handle'),
    ('INVALID_WINDOW', -17, 'context window outside GPU memory or misaligned',
     'context window outside GPU memory or misaligned'),
    ('NODE_FAULTED', -18, 'node stopped on a fault; sgpu_reset_from_timeout()',
     'node is stopped on a fault (call sgpu_reset_from_timeout)'),
    ('FENCE_NOT_SUBMITTED', -19, 'wait for a fence id never submitted',
     'fence id was never submitted on that node'),
    ('DISPLAY_DISABLED', -20, 'capture from a source whose display is off',
     'display source is disabled'),
    ('CMDBUF_OVERFLOW', -21, 'command-buffer builder ran out of capacity',
     'command buffer capacity exceeded'),
    ('CMDBUF_PARAM', -22, "builder argument out of its field's range",
     'command buffer packet argument does not fit its field'),
    ('PNG', -23, 'PNG file could not be written',
     'PNG file could not be written'),
    ('BUSY', -24, 'context still has work, or resource in use',
     'resource busy'),
    ('NO_FIRMWARE', -25, 'no valid boot identity block in GPU memory',
     'no boot firmware identity on the device'),
    ('RESERVED_ADDRESS', -26, 'sgpu_write over an area the library reserved (a ring, the rptr/fence '
     'words, a staging area, the boot identity block); sgpu_write_raw writes it anyway',
     'address range overlaps an area the library reserved (ring, fence words, staging, identity)'),
    ('READ_ONLY', -27, 'sgpu_reg_write to a read-only register: nothing was sent',
     'register is read-only: the write had no effect'),
    ('ADDRESS_REFUSED', -28, 'the device refused a link frame addressed outside its GPU memory or '
     'register block (NAK BAD_ADDR): nothing of it was applied',
     'the device refused the address (outside its GPU memory or register block): nothing was applied'),
    ('CONTEXT_BANNED', -30, 'the context was guilty of too many engine resets (sgpu_set_ban_threshold); '
     'its submissions are refused, other contexts go on',
     'context is banned after repeated hangs or faults'),
    ('NOT_OWNER', -35, 'through sgpud: the address range, allocation or context belongs to another '
     'program (or to the server); nothing was read, written or freed',
     'not owned by this program: the range or handle belongs to another program on sgpud'),
    ('PREEMPTED', -36, 'the node holds preempted submissions (sgpu_preempt): they go back first, '
     'resubmitted in order with flags.resubmission; or the fence waited for belongs to one of them',
     'the node holds preempted submissions: resubmit them first, in order, with flags.resubmission'),
    ('NOT_MAPPED', -38, 'sgpu_unmap of a range that is not wholly mapped, or a VM submission whose DMA '
     'buffer is not mapped in its context: nothing was changed or queued',
     'address range is not mapped in the context'),
    ('ALREADY_MAPPED', -39, 'sgpu_map onto virtual addresses the context has already mapped',
     'virtual address range already mapped in the context'),
    ('NOT_VM_CONTEXT', -31, 'sgpu_map / sgpu_unmap on a context made by sgpu_create_context (physical '
     'addresses and a window, no address space of its own)',
     'not a VM context (made by sgpu_create_context_vm)'),
    ('OUT_OF_VA_SPACE', -32, 'sgpu_map: the VM context has no free run of virtual pages that large '
     'inside [PAGE_BYTES, MEM_SIZE)',
     'out of GPU virtual address space in the context'),
    ('PAGE_ALIGNMENT', -33, 'sgpu_map / sgpu_unmap: an address or size that is not a multiple of '
     'SGPU_PAGE_BYTES (or a size of 0)',
     'address or size is not a whole number of GPU pages (SGPU_PAGE_BYTES)'),
    ('NOT_PREEMPTED', -37, 'flags.resubmission on a submission that does not match the node\'s next '
     'preempted one (fence id, length, buffer address): nothing was queued',
     'resubmission does not match a preempted submission (fence id, length, buffer)'),
    # sgpu_submit_command field rules, one code per rule
    ('SUBMIT_NULL_CONTEXT', -40, 'context NULL without Paging',
     'submit: context is NULL without the Paging flag'),
    ('SUBMIT_SEGMENT_ID', -41, 'dma_buffer_segment_id not 0/1/2',
     'submit: dma_buffer_segment_id is not 0, 1 or 2'),
    ('SUBMIT_BUFFER_ADDRESS', -42, 'buffer [address, +size) not in that segment',
     'submit: DMA buffer address/size not inside the given segment'),
    ('SUBMIT_OFFSET_RANGE', -43, 'start/end offset beyond dma_buffer_size',
     'submit: submission offsets beyond dma_buffer_size'),
    ('SUBMIT_OFFSET_ALIGN', -44, 'start/end offset/address not 4-byte aligned',
     'submit: DMA buffer address or offsets not 4-byte aligned'),
    ('SUBMIT_OFFSET_ORDER', -45, 'start offset > end offset',
     'submit: submission start offset after end offset'),
    ('SUBMIT_PRIVATE_DATA_RANGE', -46, 'private data slice outside its buffer / NULL',
     'submit: private data slice outside its buffer (or NULL buffer)'),
    ('SUBMIT_PRIVATE_DATA_START', -47, 'private start offset != 0 without Paging',
     'submit: private data start offset must be 0 unless Paging'),
    ('SUBMIT_SOURCE_WITHOUT_FLIP', -48, 'vidpn_source_id != 0 without Flip flags',
     'submit: vidpn_source_id set without Flip/FlipWithNoWait'),
    ('SUBMIT_SOURCE_RANGE', -49, 'vidpn_source_id >= number of sources',
     'submit: vidpn_source_id >= number of sources'),
    ('SUBMIT_INTERVAL_RANGE', -50, 'flip_interval > 5',
     'submit: flip_interval is not 0..5'),
    ('SUBMIT_INTERVAL_WITHOUT_FLIP', -51, 'flip_interval != 0 without Flip',
     'submit: flip_interval set without Flip'),
    ('SUBMIT_RESERVED_FLAGS', -52, 'reserved flag bits set',
     'submit: reserved flag bits are set'),
    ('SUBMIT_FLAG_CONFLICT', -53, 'Flip+FlipWithNoWait, ContextSwitch+flip',
     'submit: conflicting flags'),
    ('SUBMIT_ENGINE_ORDINAL', -54, 'engine_ordinal != 0',
     'submit: engine_ordinal must be 0'),
    ('SUBMIT_VIRTUAL_ADDRESS', -55, 'dma_buffer_virtual_address != 0 for a physical context (or on a '
     'device without CAPS.VM)',
     'submit: dma_buffer_virtual_address must be 0 for a physical context'),
    ('SUBMIT_NODE_RANGE', -56, 'node_ordinal >= number of nodes',
     'submit: node_ordinal >= number of nodes'),
    ('SUBMIT_NODE_MISMATCH', -57, "node_ordinal != the context's node",
     "submit: node_ordinal differs from the context's node"),
    ('SUBMIT_CONTEXT_SWITCH_LENGTH', -58, 'ContextSwitch with a non-empty range',
     'submit: ContextSwitch needs a zero-length submission range'),
    ('SUBMIT_FENCE_ORDER', -59, 'submission_fence_id does not advance',
     'submit: submission_fence_id does not advance'),
    ('SUBMIT_FLIP_MISSING', -60, 'Flip submission without a FLIP packet',
     'submit: flip submission contains no FLIP packet'),
    ('SUBMIT_FLIP_MISMATCH', -61, 'FLIP packet disagrees with source/interval/no-wait',
     'submit: FLIP packet disagrees with vidpn_source_id/flip_interval/no-wait'),
    ('SUBMIT_UNEXPECTED_FLIP', -62, 'FLIP packet in a non-flip submission',
     'submit: FLIP packet in a non-flip submission'),
    ('SUBMIT_TOO_LARGE', -63, 'segment-0 range larger than the staging area',
     'submit: segment-0 range larger than the staging area'),
    ('SUBMIT_CONTEXT_DEVICE', -64, 'context belongs to another device',
     'submit: context belongs to another device'),
    # packet walk: what the hardware would fault on (FAULT_* of sgpu_hw.h)
    # sgpu_validate_submit_command rules
    ('VALIDATE_CONTEXT_COUNT', -100, 'context_count 0 or > SGPU_MAX_BROADCAST_CONTEXT',
     'validate: context_count is not 1..64'),
    ('VALIDATE_CONTEXT_HANDLE', -101, 'NULL or foreign handle in context[]',
     'validate: NULL or foreign context handle'),
    ('VALIDATE_RESERVED_FLAGS', -102, 'reserved validate flag bits set',
     'validate: reserved flag bits are set'),
    ('VALIDATE_COMMAND_RANGE', -103, 'commands + command_length not in GPU memory',
     'validate: command buffer outside GPU memory'),
    ('VALIDATE_COMMAND_ALIGN', -104, 'commands or command_length not 4-aligned',
     'validate: command buffer address/length not 4-aligned'),
    ('VALIDATE_PRIVATE_DATA', -105, 'private_driver_data NULL with a size',
     'validate: private_driver_data is NULL but has a size'),
    ('VALIDATE_UMD_PRIVATE_SIZE', -106, 'umd_private_data_size > private_driver_data_size',
     'validate: umd_private_data_size > private_driver_data_size'),
    ('VALIDATE_FENCE_PASSED', -107, 'hw_queue_progress_fence_id already passed',
     'validate: hw_queue_progress_fence_id has already passed (buffer ran before)'),
]
# Validation's error for each fault it can predict: SGPU_ERROR_PACKET_<fault>.
PACKET_ERRORS = [
    ("ILLEGAL_OPCODE", -80, "packet: illegal opcode"),
    ("BAD_HEADER", -81, "packet: bad header (type or reserved flag bits)"),
    ("BAD_COUNT", -82, "packet: wrong payload count for the opcode"),
    ("OVERRUN", -83, "packet: runs past the end of its buffer"),
    ("MISALIGNED", -84, "packet: address or length not 4-byte aligned"),
    ("OUT_OF_RANGE", -85, "packet: address range outside GPU memory"),
    ("CONTEXT_WINDOW", -86, "packet: access outside the context's window"),
    ("NESTING", -87, "packet: INDIRECT nested too deep"),
    ("BAD_PARAM", -88, "packet: parameter out of range"),
    ("PRIVILEGED", -89, "packet: CONTEXT or TLB_INVALIDATE packet outside the ring"),
    ("PAGE_NOT_PRESENT", -90, "packet: access to a page the context has not mapped"),
    ("PAGE_PROTECTION", -91, "packet: write to a page the context mapped read-only"),
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
# The register block: offsets 0 .. REG_BLOCK_BYTES - 1 (sgpu_top decodes
# offset bits [11:0]).  A link READ/WRITE in register space must stay inside
# it (else NAK BAD_ADDR); an unmapped offset inside it reads 0 and a write
# there sets CFG_ERROR[3].
REG_BLOCK_BYTES = 0x1000


CFG_ERRORS = [
    ("RING_SIZE", 0), ("MISALIGNED", 1), ("POINTER_RANGE", 2), ("UNKNOWN_BITS", 3), ("VALUE_RANGE", 4),
    ("WHILE_ENABLED", 5),
]


# A register: Reg(name, offset, access, doc, width=, reset=, checks=, readback=).
#   access  "ro" read-only, "rw" read-write, "w1c" write one to clear,
#           "strobe" a write acts and is not kept (per field: see REG_FIELDS);
#   width   bits that can read non-zero (the others read 0);
#   reset   value after reset: a number, or a string naming what a build
#           decides it from (its parameters, the memory size);
#   checks  the write checks in the order the hardware makes them; the first
#           that fails rejects the write with its CFG_ERROR bit (CFG_ERRORS)
#           and the write changes nothing:
#             ("locked", ERR)          the block is locked: the node enabled or busy
#             ("align", n, ERR)        the value is not a multiple of n (a power of two)
#             ("reserved", ERR)        a bit outside the register's fields (or width) is set
#             ("max", v, ERR)          the value is above v
#             ("pow2", lo, hi, ERR)    the value is not a power of two in [lo, hi]
#             ("strobe", FIELD)        the strobe field is set: it acts, the write is not kept
#             ("cond", NAME, ERR, doc) a condition of the block's state (the RTL gives it
#                                      as <block>_c_<NAME>, e.g. nreg_c_past_mem)
#   readback "written": reads back exactly the last accepted write (or the
#           reset value); the chip answers such reads from its register
#           mirror.  "state": reads the block's state.
def Reg(name, offset, access, doc, width=32, reset=0, checks=(), readback="state"):
    return dict(name=name, offset=offset, access=access, doc=doc, width=width, reset=reset,
                checks=list(checks), readback=readback)


def range_text(r):
    """The legal writes of a register, in words (the docs' column)."""
    if r["access"] == "w1c":
        return "any: a 1 clears that bit"
    bits = dict(CFG_ERRORS)
    t = []
    for c in r["checks"]:
        k = c[0]
        if k == "locked":
            w = "only while the node is disabled and idle"
        elif k == "align":
            w = f"multiple of {c[1]}"
        elif k == "reserved":
            w = "only defined bits"
        elif k == "max":
            w = f"<= 0x{c[1]:X}"
        elif k == "pow2":
            w = f"power of two {c[1]}..0x{c[2]:X}"
        elif k == "cond":
            w = c[3]
        else:
            continue
        t.append(f"{w} (else CFG_ERROR[{bits[c[2] if k == 'cond' else c[-1]]}])")
    return "; ".join(t) or "any"


_GLOBAL = "build"   # reset value set by the build's parameters
GLOBAL_REGS = [
    Reg("ID", 0x000, "ro", "magic 0x53475055 ('SGPU')", reset=MAGIC),
    Reg("VERSION", 0x004, "ro", "[31:16] major, [15:0] minor", reset=(VERSION_MAJOR << 16) | VERSION_MINOR),
    Reg("CAPS", 0x008, "ro", "[3:0] nodes, [7:4] sources, [8] 2D engine, [9] display, [10] preemption, "
                             "[11] performance counters, [15:12] INDIRECT levels below the ring, "
                             "[16] a high-priority ring per node, [17] two normal rings per node, time-sliced",
        width=18, reset=_GLOBAL),
    Reg("MEM_SIZE", 0x00C, "ro", "bytes of GPU memory", reset=_GLOBAL),
    Reg("INT_STATUS", 0x010, "w1c", "pending interrupts (bit groups in INTERRUPTS)"),
    Reg("INT_ENABLE", 0x014, "rw", "interrupt mask for the irq output (bits of absent nodes and sources "
                                   "read 0)"),
    Reg("CFG_ERROR", 0x018, "w1c", "rejected register writes: [0] ring size not a power of two or out of range, "
                                   "[1] misaligned address, [2] pointer out of range, [3] unknown bits set, "
                                   "[4] value out of range, [5] ring base/size/RPTR_ADDR written while the node is enabled or busy. "
                                   "A write to a read-only or unmapped offset of the global or node blocks sets [3] "
                                   "(the display source blocks ignore one and set nothing); a write the "
                                   "display rejects sets [4]. Rejected writes change nothing.",
        width=len(CFG_ERRORS)),
    Reg("CFG_ERROR_ADDR", 0x01C, "ro", "offset of the last rejected register write", width=12),
    Reg("CYCLE_LO", 0x020, "ro", "cycle counter, low word (reading it latches CYCLE_HI)"),
    Reg("CYCLE_HI", 0x024, "ro", "cycle counter, high word latched by the last CYCLE_LO read"),
    Reg("SEG1_BASE", 0x028, "ro", "base of segment 1 (local video memory)"),
    Reg("SEG1_SIZE", 0x02C, "ro", "size of segment 1", reset="MEM_SIZE / 2"),
    Reg("SEG2_BASE", 0x030, "ro", "base of segment 2 (aperture)", reset="MEM_SIZE / 2"),
    Reg("SEG2_SIZE", 0x034, "ro", "size of segment 2", reset="MEM_SIZE / 2"),
    Reg("SCRATCH", 0x038, "rw", "free for software (link tests)", readback="written"),
]

REG_RESET_NOTE = ("The reset column gives each register's value after reset; \"build\" is set by the "
                  "build's parameters (CAPS, MEM_SIZE).")

NODE_BASE = 0x100
NODE_STRIDE = 0x80
_RING_MAX = 1 << 20
_LOCKED = ("locked", "WHILE_ENABLED")
_IN_MEM = ("cond", "past_mem", "VALUE_RANGE", "inside memory")
NODE_REGS = [
    Reg("RING_BASE", 0x00, "rw", "ring base, byte address: 64-byte aligned (else CFG_ERROR[1]) and inside "
                                 "memory (else [4]); writable only while disabled and idle, STATUS.BUSY = 0 (else [5]). Enabling checks "
                                 "it is aligned to RING_SIZE ([1]) and the ring fits in memory ([4]). An "
                                 "accepted write sets RPTR = WPTR = 0",
        checks=[_LOCKED, ("align", 64, "MISALIGNED"), _IN_MEM], readback="written"),
    Reg("RING_SIZE", 0x04, "rw", "ring size in bytes: a power of two from 64 to 1 MiB (else CFG_ERROR[0]); "
                                 "writable only while disabled and idle, STATUS.BUSY = 0 (else [5]); an accepted write sets RPTR = WPTR = 0",
        width=21, reset=64, checks=[_LOCKED, ("pow2", 64, _RING_MAX, "RING_SIZE")], readback="written"),
    Reg("RING_WPTR", 0x08, "rw", "doorbell: write pointer, byte offset in the ring, 4-byte aligned (else "
                                 "CFG_ERROR[1]), < RING_SIZE (else [2]). A packet reaching past WPTR is an OVERRUN fault",
        width=20, checks=[("align", 4, "MISALIGNED"), ("cond", "past_ring", "POINTER_RANGE", "< RING_SIZE")]),
    Reg("RING_RPTR", 0x0C, "ro", "read pointer, byte offset in the ring of the next packet not yet "
                                 "completed (an INDIRECT completes when its buffer is entered)", width=20),
    Reg("RPTR_ADDR", 0x10, "rw", "where RING_RPTR is written back after each ring packet; [0] enable, "
                                 "[1] must be 0 (else CFG_ERROR[3]), [31:2] word address inside memory (else [4]); "
                                 "writable only while disabled and idle, STATUS.BUSY = 0 (else [5])",
        checks=[_LOCKED, ("reserved", "UNKNOWN_BITS"), _IN_MEM], readback="written"),
    Reg("CONTROL", 0x14, "rw", "[0] ENABLE, [1] RESET (self-clearing: stop all memory traffic and drop "
                               "reads in flight, clear the fault, IB stack and context (null), RPTR = WPTR = 0; "
                               "ENABLE keeps its value, the ENABLE bit of a RESET write is ignored). Other "
                               "bits set: CFG_ERROR[3]. A fault stops the engine until RESET",
        width=1, checks=[("reserved", "UNKNOWN_BITS"), ("strobe", "RESET"),
                         ("cond", "enable_misaligned", "MISALIGNED", "enabling: RING_BASE aligned to RING_SIZE"),
                         ("cond", "enable_past_mem", "VALUE_RANGE", "enabling: the ring inside memory")],
        readback="written"),
    Reg("STATUS", 0x18, "ro", "[0] BUSY, [1] FAULTED, [2] WAITING (in a WAIT_* packet), [3] ENABLED, "
                              "[7:4] IB depth, [8] PREEMPTED", width=9),
    Reg("FAULT_REASON", 0x1C, "ro", "FAULT_* code of the last fault", width=4),
    Reg("FAULT_ADDR", 0x20, "ro", "byte address of the faulting packet's header (0 when not faulted); "
        "a virtual address when the packet is in a VM context's buffer"),
    Reg("FAULT_OPCODE", 0x24, "ro", "header word of the faulting packet (0 when not faulted)"),
    Reg("FAULT_FENCE", 0x28, "ro", "fence id in flight: that of the last ring-level INDIRECT (the "
                                   "submission), including a faulting one (0 when not faulted). CONTROL.RESET "
                                   "does not clear the fence in flight: a fault before the next ring INDIRECT "
                                   "reports the previous one"),
    Reg("WATCHDOG", 0x2C, "rw", "cycles without progress (a packet completing or a command word fetched) "
                                "while busy before a TIMEOUT fault; 0 disables. 24 bits: a value above 0xFFFFFF is "
                                "rejected (CFG_ERROR[4]). Progress is the node's own: a FILL or COPY waiting for "
                                "the 2D engine while another node's blit holds it, or a node starved by scanout, "
                                "makes none, so set it above the longest blit any node may run",
        width=24, checks=[("max", 0xFFFFFF, "VALUE_RANGE")], readback="written"),
    Reg("LAST_FENCE", 0x30, "ro", "value of the last FENCE this node wrote"),
    Reg("PERF_BUSY", 0x34, "ro", "cycles the node was busy"),
    Reg("PERF_STALL", 0x38, "ro", "cycles the node waited on memory"),
    Reg("PERF_WORDS", 0x3C, "ro", "command words fetched"),
    Reg("PERF_PACKETS", 0x40, "ro", "packets executed"),
    Reg("CONTEXT_ID", 0x44, "ro", "current context id (0 = null context)"),
    Reg("WINDOW_BASE", 0x48, "ro", "current context window base (a VM context: its page directory, as "
        "CONTEXT gave it)"),
    Reg("WINDOW_SIZE", 0x4C, "ro", "current context window size (a VM context: the size CONTEXT gave, "
        "not checked)", reset="MEM_SIZE"),
    Reg("CUR_ADDR", 0x50, "ro", "address of the packet being executed"),
    Reg("SAVE_ADDR", 0x54, "rw", "where a preemption writes the node's resume state (SAVE_WORDS, "
                                 "SAVE_BYTES): 4-byte aligned (else CFG_ERROR[1]), inside memory (else [4]). "
                                 "The library points it at the node's save area and keeps what it finds "
                                 "there with the preempted submission",
        checks=[("align", 4, "MISALIGNED"), _IN_MEM], readback="written"),
    Reg("PREEMPT", 0x58, "rw", "a write requests preemption with the written value as the preemption "
                               "fence id: the node stops at its next boundary (between packets, inside "
                               "an INDIRECT buffer too, inside WAIT_MEM / WAIT_VSYNC / WAIT_SCANLINE, or "
                               "inside a FILL or COPY after a chunk: see RECT in the save area), "
                               "writes its resume state to SAVE_ADDR with the id last, sets "
                               "STATUS.PREEMPTED and raises DMA_PREEMPTED; an idle node does so at once. "
                               "It stays stopped until CONTROL.RESET. A write to a faulted node, or while "
                               "a preemption is pending or taken, is ignored; a board without "
                               "CAPS.PREEMPTION ignores it. "
                               "Reads back the last value written", readback="written"),
    Reg("QUANTUM", 0x5C, "rw", "time slice of a normal-priority ring (CAPS.TIME_SLICE): once this ring has "
                               "run QUANTUM cycles while the node's other normal ring has work, it holds at "
                               "its next boundary (as for the high ring) and the other runs; 0: no time "
                               "slices, the ring runs until it is dry. Ignored on a high ring and without "
                               "CAPS.TIME_SLICE. 24 bits: a value above 0xFFFFFF is rejected (CFG_ERROR[4])",
        width=24, checks=[("max", 0xFFFFFF, "VALUE_RANGE")], readback="written"),
    Reg("FAULT_VA", 0x60, "ro", "a page fault (PAGE_NOT_PRESENT, PAGE_PROTECTION): the virtual address "
                                "of the first byte of the access in the page that faulted (0 otherwise)"),
    Reg("FAULT_ACCESS", 0x64, "ro", "a page fault: [1:0] the access (ACCESS_*: fetch, read, write), "
                                    "[3:2] the unit whose access it is (UNIT_*: command processor, 2D "
                                    "engine); 0 otherwise", width=4),
    Reg("VM_ROOT", 0x68, "ro", "page directory of the current context (its CONTEXT's base, bits [11:0] "
                               "clear); 0 for a physical context and without CAPS.VM"),
]

# The resume state a preemption writes at SAVE_ADDR, in this order (the
# preemption fence id last, so that it landing means the rest is there).
# name, word index, meaning.  Addresses are byte addresses; a level's
# "next" is the header of the first packet still to run there (a WAIT that
# was cut runs again from its header: only its polling is repeated; a FILL
# or COPY cut at a row boundary is named by its header too, with RECT).
SAVE_WORDS = [
    ("RING_NEXT", 0, "byte offset in the ring of the next ring packet still to run (RING_RPTR; a ring "
                     "INDIRECT completes when its buffer is entered)"),
    ("LEVEL", 1, "[1:0] INDIRECT level at the stop (0: between ring packets), [8] stopped inside a WAIT, "
               "[9] stopped inside a FILL or COPY (RECT says which rows are left)"),
    ("IB1_NEXT", 2, "level 1: address of the next packet (meaningful when LEVEL >= 1)"),
    ("IB1_END", 3, "level 1: end of its buffer"),
    ("IB2_NEXT", 4, "level 2: address of the next packet (meaningful when LEVEL = 2)"),
    ("IB2_END", 5, "level 2: end of its buffer"),
    ("RECT", 6, "a FILL or COPY cut (LEVEL[9]): the whole rows it left: [15:0] the first, counted "
              "from the rectangle's top row, [31:16] how many (maybe 0); they run after RECT_PART's"),
    ("RECT_PART", 7, "a cut FILL or COPY: the part of a row it left, run first: [15:0] first byte, "
                     "[31:16] end byte (exclusive), offsets in the row"),
    ("RECT_ROW", 8, "[15:0] the row of RECT_PART, counted from the top row; [16] RECT_PART is valid "
                    "(0: no part of a row is left)"),
    ("PREEMPT_FENCE", 9, "the preemption fence id written to PREEMPT: written last"),
]
SAVE_BYTES = 4 * len(SAVE_WORDS)

# Register fields: register -> [(field, lsb, width, access, legal range or meaning)].
# access: that of the register, or "strobe" (a write of 1 acts, reads 0).
# Generated as SGPU_<REG>_<FIELD>_SHIFT / _MASK (C) and _LSB / _W (Verilog);
# the RTL packs and the library decodes these registers with them.
REG_FIELDS = {
    "VERSION": [("MINOR", 0, 16, "ro", "0..65535"), ("MAJOR", 16, 16, "ro", "0..65535")],
    "CAPS": [("NODES", 0, 4, "ro", "1..MAX_NODES"), ("SOURCES", 4, 4, "ro", "0..MAX_SOURCES"),
             ("BLIT", 8, 1, "ro", "2D engine present"), ("DISPLAY", 9, 1, "ro", "display present"),
             ("PREEMPTION", 10, 1, "ro", "preemption supported"),
             ("PERF", 11, 1, "ro", "PERF_* counters present (else they read 0)"),
             ("IB_DEPTH", 12, 4, "ro", "1..MAX_IB_DEPTH: INDIRECT levels the command processor nests below "
                                       "the ring; an INDIRECT deeper faults NESTING and the library refuses it"),
             ("PRIORITY", 16, 1, "ro", "1: each node n also has a high-priority ring, the node register block "
                                       "NODES + n, which the node runs before its normal ring"),
             ("TIME_SLICE", 17, 1, "ro", "1: each node n also has a second normal-priority ring, the node register "
                                         "block 2 x NODES + n; the node's two normal rings take turns, each holding "
                                         "at its next boundary after QUANTUM cycles while the other has work"),
             ("VM", 18, 1, "ro", "1: GPU virtual memory: CONTEXT's VM flag, page tables walked through "
                                 "a TLB, TLB_INVALIDATE, page faults")],
    "CONTROL": [("ENABLE", 0, 1, "rw", "0/1"), ("RESET", 1, 1, "strobe", "write 1: reset the node (self-clearing)")],
    "STATUS": [("BUSY", 0, 1, "ro", "0/1"), ("FAULTED", 1, 1, "ro", "0/1"), ("WAITING", 2, 1, "ro", "0/1"),
               ("ENABLED", 3, 1, "ro", "0/1"), ("IB_DEPTH", 4, 4, "ro", f"0..{LIMIT_VALUES['MAX_IB_DEPTH']}"),
               ("PREEMPTED", 8, 1, "ro", "0/1: stopped by a preemption, its state saved (until CONTROL.RESET)")],
    "RPTR_ADDR": [("ENABLE", 0, 1, "rw", "0/1"), ("ADDR", 2, 30, "rw", "word address inside memory")],
    "FAULT_ACCESS": [("ACCESS", 0, 2, "ro", "ACCESS_*"), ("UNIT", 2, 2, "ro", "UNIT_*")],
    "DISP_CONTROL": [("ENABLE", 0, 1, "rw", "0/1"), ("FORMAT", 1, 1, "rw", "FORMATS"),
                     ("HREP", 2, 2, "rw", "0..3 (log2)"), ("VREP", 4, 2, "rw", "0..3 (log2)"),
                     ("TINY", 6, 1, "rw", "0/1")],
    "DISP_PENDING": [("VALID", 0, 1, "ro", "0/1"), ("ADDR", 2, 30, "ro", "pending flip address >> 2")],
    "DISP_SCANLINE": [("LINE", 0, 16, "ro", "0 = first active line"), ("IN_VBLANK", 16, 1, "ro", "0/1")],
    "DISP_TIMING": [("WIDTH", 0, 16, "ro", "active pixels per line"), ("HEIGHT", 16, 16, "ro", "active lines")],
}
NODE_CONTROL_BITS = [(f[0], f[1]) for f in REG_FIELDS["CONTROL"]]
NODE_STATUS_BITS = [(f[0], f[1]) for f in REG_FIELDS["STATUS"] if f[2] == 1]

SOURCE_BASE = 0x400
SOURCE_STRIDE = 0x40
SOURCE_REGS = [
    Reg("DISP_CONTROL", 0x00, "rw", "[0] ENABLE, [1] FORMAT (0 RGB565, 1 RGB332), [3:2] horizontal "
                                    "replication log2, [5:4] vertical replication log2, [6] TINY timing; "
                                    "[5:0] take effect at the next vblank, a change of [6] restarts the "
                                    "timing at the start of vblank",
        width=7, checks=[("reserved", "VALUE_RANGE")], readback="written"),
    Reg("DISP_BASE", 0x04, "rw", "current scanout address, 4-byte aligned, inside GPU memory (a host write "
                                 "takes effect at the next vblank; reads return the address in use)",
        checks=[("align", 4, "VALUE_RANGE"), _IN_MEM]),
    Reg("DISP_PITCH", 0x08, "rw", "framebuffer pitch in bytes, 4-byte aligned, < 65536 (takes effect at the next vblank)",
        width=16, checks=[("align", 4, "VALUE_RANGE"), ("max", 0xFFFF, "VALUE_RANGE")], readback="written"),
    Reg("DISP_PENDING", 0x0C, "ro", "[31:2] pending flip address, [0] pending valid"),
    Reg("DISP_VBLANK_COUNT", 0x10, "ro", "vblanks since reset"),
    Reg("DISP_SCANLINE", 0x14, "ro", "[15:0] current line (0 = first active line), [16] in vblank", width=17),
    Reg("DISP_UNDERFLOW", 0x18, "ro", "[7:0] pixels shown before their row was fetched completely (saturates at 255)",
        width=8),
    Reg("DISP_TIMING", 0x1C, "ro", "[15:0] active width, [31:16] active height of the current timing",
        reset="VGA timing"),
    Reg("DISP_FLIP_COUNT", 0x20, "ro", "[15:0] flips taken (wraps)", width=16),
]

DISP_CONTROL_BITS = [(f[0], f[1]) for f in REG_FIELDS["DISP_CONTROL"]]
FORMATS = [("RGB565", 0), ("RGB332", 1)]

# The register blocks: prefix of the RTL names (<prefix>_...), registers,
# base and stride (None: one block at offset 0), how many, address bits.
REG_BLOCKS = [
    ("global", "greg", GLOBAL_REGS, 0, None, 1),
    ("node", "nreg", NODE_REGS, NODE_BASE, NODE_STRIDE, LIMIT_VALUES["MAX_NODES"]),
    ("source", "sreg", SOURCE_REGS, SOURCE_BASE, SOURCE_STRIDE, LIMIT_VALUES["MAX_SOURCES"]),
]


def reg_fields(r):
    """The fields of a register: REG_FIELDS', or one field of its width."""
    return REG_FIELDS.get(r["name"], [("VALUE", 0, r["width"], r["access"], "")])


def reg_mask(r):
    """The bits a write may set (the defined fields)."""
    m = 0
    for f, lsb, w, acc, rng in reg_fields(r):
        m |= ((1 << w) - 1) << lsb
    return m


# Display timings: name, h (active, front porch, sync, back porch),
# v (active, front porch, sync, back porch), sync polarity (0 negative),
# nominal pixel clock in Hz.
TIMINGS = [
    ("VGA", (640, 16, 96, 48), (480, 10, 2, 33), 0, 25175000),
    ("TINY", (64, 4, 8, 4), (48, 2, 2, 4), 0, 25175000),
]

# DISP_TIMING resets to the VGA timing's active size.
_VGA = next(t for t in TIMINGS if t[0] == "VGA")
next(r for r in SOURCE_REGS if r["name"] == "DISP_TIMING")["reset"] = (_VGA[2][0] << 16) | _VGA[1][0]

# Nominal system clock of the simulation (one pixel per cycle).
NOMINAL_CLOCK_HZ = 25175000


# ---------------------------------------------------------------- host link
# Framing of the host bridge over a byte stream (UART on the boards, TCP to
# sgpu-sim).  docs/link-protocol.md describes the frames; all multi-byte
# fields are little-endian except the CRC, which is sent high byte first.
LINK_VERSION = 3             # 3: receive FIFO, frames in flight; 2: CRC-32; 1: CRC-16
LINK_VERSION_SINGLE = 2      # a bridge without a receive FIFO: version 2's rules, one frame in flight
LINK_SYNC = 0xA5
LINK_MAX_WORDS = 64          # most data words in one write or read burst
LINK_REQ_HDR_BYTES = 10      # SYNC SEQ CMD FLAGS COUNT[2] ADDR[4]
LINK_RSP_HDR_BYTES = 6       # SYNC SEQ KIND INFO COUNT[2]
LINK_CRC_BYTES = 4
# CRC-32/MPEG-2: polynomial 0x04C11DB7, initial value 0xFFFFFFFF, not
# reflected, no final xor (check value of "123456789": 0x0376E6E7); covers
# every byte after SYNC.  A frame checked together with its CRC (high byte
# first) leaves a residue of 0.
LINK_CRC_POLY = 0x04C11DB7
LINK_CRC_INIT = 0xFFFFFFFF
# A gap this long inside a frame aborts it (nak TIMEOUT); a host should wait
# for an answer at least LINK_ACK_TIMEOUT_US plus the frame's transfer time.
LINK_GAP_TIMEOUT_US = 5000
LINK_ACK_TIMEOUT_US = 20000
LINK_BAUD_ICEBREAKER = 3000000   # 12 MHz system clock: exactly 4 clocks per bit
LINK_BAUD_ULX3S = 3000000        # the FT231X's highest rate

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
    ("BAD_ADDR", 5, "READ/WRITE: ADDR not 4-byte aligned, or a word of the burst outside GPU memory "
                    "(ADDR[31] clear: ADDR + 4 * COUNT > MEM_SIZE) or the register block (ADDR[31] set: "
                    "offset ADDR[30:0] + 4 * COUNT > REG_BLOCK_BYTES); with NO_INCR one word, at ADDR"),
    ("OUT_OF_ORDER", 6, "a WRITE whose SEQ is neither the last executed SEQ + 1 nor the last; "
                        "one data word: [7:0] the last executed SEQ"),
    ("IN_USE", 7, "never sent by a bridge: sgpu-sim's link server answers a connection's "
                  "first frame so while another connection has the device, then closes it"),
]
# request FLAGS byte
LINK_FLAGS = [
    ("BYTE_DISABLE", 0, 4, "WRITE: bytes of every word NOT written (0 = whole words)"),
    ("NO_INCR", 4, 1, "READ/WRITE: ADDR stays fixed instead of advancing by 4"),
]
LINK_FLAGS_RESERVED_MASK = 0xE0
# ACK INFO byte
LINK_ACK_DUPLICATE = 0x01    # a retransmitted WRITE: acknowledged, not applied again
# The device queues received bytes in a FIFO of this many bytes while it
# executes a frame, so a host may have this many request bytes unanswered
# (several WRITE frames in flight: seven of the largest).  The bridge's
# default, used by sgpu-sim's chip and every board (BOARD_FEATURES); a build
# without one says 0 in its PING.  LINK_RX_FIFO_UNIT: the unit of the PING
# info word's field.
LINK_RX_FIFO_BYTES = 2048
LINK_RX_FIFO_UNIT = 16
# PING ACK info word: [7:0] LINK_VERSION, [15:8] LINK_MAX_WORDS,
# [23:16] LINK_RX_FIFO_BYTES / LINK_RX_FIFO_UNIT (0: no FIFO, one frame in
# flight), [31:24] 0

# ---------------------------------------------------------------- boot identity
# The boot firmware (firmware/, docs/firmware.md) publishes this block in GPU
# memory with WRITE_DATA, then writes its DONE word with the boot FENCE (so
# DONE lands once everything before it is in memory).  The address is fixed:
# the last 64 bytes of 128 KiB, the smallest board memory, so it is the same
# on every board.  A block is valid when MAGIC, LAYOUT, CHECK and DONE hold;
# the host library then keeps the range out of its allocations
# (sgpu_read_identity() reads it, `sgpu info` shows it).
IDENTITY_ADDR = 0x1FFC0
IDENTITY_BYTES = 64
IDENTITY_MAGIC = 0x57464753      # ASCII "SGFW" in memory order
IDENTITY_LAYOUT_VERSION = 1
IDENTITY_DONE = 0x454E4F44       # ASCII "DONE" in memory order
IDENTITY_NAME_BYTES = 16
# name, word index, meaning
IDENTITY_WORDS = [
    ("MAGIC", 0, "IDENTITY_MAGIC, ASCII 'SGFW'"),
    ("LAYOUT", 1, "[15:0] bytes of the block (64), [31:16] layout version (1)"),
    ("HW_VERSION", 2, "VERSION register value the firmware was built for"),
    ("FW_VERSION", 3, "firmware version: [31:16] major, [15:0] minor"),
    ("BOARD", 4, "board id (BOARDS)"),
    ("CAPS", 5, "CAPS of the board's build"),
    ("MEM_SIZE", 6, "bytes of GPU memory on the board"),
    ("FB_BASE", 7, "address of the power-on screen's framebuffer"),
    ("FB_SIZE", 8, "power-on screen: [15:0] width, [31:16] height in framebuffer pixels"),
    ("DISP_CONTROL", 9, "DISP_CONTROL value the firmware set on source 0"),
    ("NAME", 10, "words 10..13: board name, ASCII, NUL padded (16 bytes)"),
    ("CHECK", 14, "XOR of words 0..13"),
    ("DONE", 15, "IDENTITY_DONE ('DONE'), written last by the boot FENCE"),
]
# Boards the firmware is built for: name, id, system clock in Hz (what the
# CYCLE counter counts: the simulation's nominal clock, the iCEBreaker's
# 12 MHz oscillator, the ULX3S PLL's 30 MHz; docs/boards.md), what it is.
BOARDS = [
    ("NONE", 0, NOMINAL_CLOCK_HZ, "no board: simulation"),
    ("ICEBREAKER", 1, 12000000, "iCEBreaker (iCE40UP5K, 128 KiB SPRAM)"),
    ("ULX3S", 2, 30000000, "ULX3S (ECP5)"),
]

# What each board's image carries.  One table: the board tops take these
# values as parameters (rtl/boards/<board>_top.v reads
# `SGPU_BOARD_<BOARD>_<PARAM>), the boot firmware publishes the CAPS they make
# (tools/mkboot.c), and the docs list them.  What a board cannot carry (the
# UP5K's logic cells; on the ULX3S the high-priority rings, whose second
# command processors and 2D engine leave the system clock too little margin:
# docs/boards.md) is left out here, by parameter, and the
# library learns it from CAPS (or the link's PING) and refuses work that needs
# it before anything reaches the hardware.
# parameter, CAPS field it sets (None: not in CAPS), meaning
BOARD_PARAMS = [
    ("NODES", "NODES", "command-processor nodes"),
    ("SOURCES", "SOURCES", "display sources"),
    ("PERF", "PERF", "per-node PERF_* counters (0: they read 0)"),
    ("IB_DEPTH", "IB_DEPTH", "INDIRECT levels below the ring (deeper: fault NESTING, refused by the library)"),
    ("PREEMPTION", "PREEMPTION", "preemption inside a buffer (PREEMPT, SAVE_ADDR); 0: PREEMPT is ignored "
                                 "and the library drains to the end of the running buffer instead"),
    ("PRIORITY", "PRIORITY", "a high-priority ring per node (node block NODES + n): while it has work the "
                             "normal ring holds at its next boundary; 0: high-priority contexts share the normal ring"),
    ("TIME_SLICE", "TIME_SLICE", "a second normal-priority ring per node (node block 2 x NODES + n, needs PRIORITY): "
                                 "the two normal rings take turns by QUANTUM; 0: contexts of equal priority share "
                                 "one ring and run in submission order"),
    ("VM", "VM", "GPU virtual memory (an MMU with a TLB and page walker per ring port); 0: contexts have "
                 "physical windows only, sgpu_create_context_vm and a DMA buffer virtual address are refused"),
    ("RX_FIFO_BYTES", None, "host bridge receive FIFO in bytes (0: none, link version "
                            "LINK_VERSION_SINGLE; the PING info word says it)"),
]
# board (a BOARDS name) -> {parameter: value}; every BOARD_PARAMS entry set
BOARD_FEATURES = {
    "ICEBREAKER": {"NODES": 1, "SOURCES": 1, "PERF": 0, "IB_DEPTH": 1, "PREEMPTION": 0, "PRIORITY": 0, "TIME_SLICE": 0,
                   "VM": 0, "RX_FIFO_BYTES": LINK_RX_FIFO_BYTES},
    "ULX3S": {"NODES": 1, "SOURCES": 1, "PERF": 1, "IB_DEPTH": LIMIT_VALUES["MAX_IB_DEPTH"],
              "PREEMPTION": 1, "PRIORITY": 1, "TIME_SLICE": 1, "VM": 1,
              "RX_FIFO_BYTES": LINK_RX_FIFO_BYTES},
}
