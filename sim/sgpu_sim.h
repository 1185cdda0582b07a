/* sgpu_sim.h — plain C ABI of the Verilator model of the whole sgpu chip.
 *
 * libsgpu's `sim` transport links this.  Every register and memory access
 * goes through the RTL's own host port (sgpu_top's host_req/host_rsp), never
 * around it; the backdoor calls at the end exist for tests that must look at
 * memory without disturbing the chip.  No global state: each sgpu_sim is an
 * independent chip.  Not thread-safe per instance (the library serialises).
 */
#ifndef SGPU_SIM_H
#define SGPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgpu_sim sgpu_sim;

typedef struct sgpu_sim_config {
  uint32_t mem_latency;   /* read latency in cycles, >= 1; 1 = zero-wait (default 0 means 1) */
  uint32_t stall_percent; /* 0..100: chance per cycle that memory refuses a request */
  uint32_t seed;          /* seed of the stall injection */
  const char *trace_path; /* VCD (.vcd) or FST (.fst) waveform file; NULL = no tracing */
} sgpu_sim_config;

/* Create and reset a chip.  NULL config = defaults.  NULL on failure. */
sgpu_sim *sgpu_sim_create(const sgpu_sim_config *config);
void sgpu_sim_destroy(sgpu_sim *sim);

/* Build parameters of the model. */
uint32_t sgpu_sim_nodes(const sgpu_sim *sim);
uint32_t sgpu_sim_sources(const sgpu_sim *sim);
uint32_t sgpu_sim_mem_bytes(const sgpu_sim *sim);
/* Pixel clocks per system clock cycle, *num / *den: 1/1 for the one-clock
 * model (libsgpu_sim), 201/96 (25.125 MHz : 12 MHz, the iCEBreaker's clocks)
 * for the two-clock one (libsgpu_sim_2c, PIX_CDC = 1).  A frame of H x V
 * pixel clocks lasts H * V * den / num system cycles. */
void sgpu_sim_pixel_ratio(const sgpu_sim *sim, uint32_t *num, uint32_t *den);

/* Host-port accesses; each advances simulated time by the cycles it takes.
 * Return 0, or -1 when the host port did not answer within 100000 cycles. */
int sgpu_sim_reg_read(sgpu_sim *sim, uint32_t offset, uint32_t *value);
int sgpu_sim_reg_write(sgpu_sim *sim, uint32_t offset, uint32_t value);
/* Any address and length; partial words use byte strobes.  -2 when the range
 * leaves GPU memory. */
int sgpu_sim_mem_read(sgpu_sim *sim, uint32_t address, void *data, uint32_t size);
int sgpu_sim_mem_write(sgpu_sim *sim, uint32_t address, const void *data, uint32_t size);

/* Run up to max_cycles clock cycles; with stop_on_irq, stop as soon as irq_o
 * is high (checked after each cycle).  Returns the cycles run. */
uint64_t sgpu_sim_run(sgpu_sim *sim, uint64_t max_cycles, int stop_on_irq);
uint64_t sgpu_sim_cycle(const sgpu_sim *sim); /* cycles since create */
int sgpu_sim_irq(const sgpu_sim *sim);

/* Frame capture from the RTL's own video outputs (rgb, hsync, vsync, de),
 * what a monitor would see.  A frame runs from one vsync start to the next. */
typedef struct sgpu_sim_frame {
  uint32_t width, height;   /* data-enable pixels per line, lines with data-enable */
  const uint8_t *rgb;       /* width*height*3 bytes, RGB888; valid until the next run */
  uint64_t frame_number;    /* 1 for the first complete frame; 0 = none yet */
  uint64_t start_cycle;     /* cycle of the vsync that began it */
  uint32_t h_total, v_total;             /* pixel clocks per line, lines per frame */
  uint32_t hsync_width, vsync_lines;     /* measured sync pulse widths */
} sgpu_sim_frame;
/* The most recent complete frame of a source.  Returns 0, -1 for a bad source. */
int sgpu_sim_last_frame(sgpu_sim *sim, uint32_t source, sgpu_sim_frame *frame);
/* Run until the frame capture of `source` completes a frame (the cycle in
 * which the vsync that ends it starts), or max_cycles have run.  Returns the
 * cycles run; sgpu_sim_last_frame() then gives that frame.  Runs nothing for a
 * bad source. */
uint64_t sgpu_sim_run_until_frame(sgpu_sim *sim, uint32_t source, uint64_t max_cycles);

/* Memory request log at the external memory port, for cycle measurements.
 * Off by default; enabling clears it.  Keeps the newest `capacity` entries. */
typedef struct sgpu_sim_mem_event {
  uint64_t cycle;    /* cycle in which the request was accepted */
  uint32_t address;
  uint32_t data;     /* write data, or read data once returned */
  uint8_t write;
  uint8_t strobe;
} sgpu_sim_mem_event;
void sgpu_sim_mem_log_enable(sgpu_sim *sim, size_t capacity);
size_t sgpu_sim_mem_log(const sgpu_sim *sim, const sgpu_sim_mem_event **events);
/* Cycle in which the last host-port write was accepted (doorbell timing). */
uint64_t sgpu_sim_last_host_write_cycle(const sgpu_sim *sim);

/* MMU counters (GPU virtual memory): per kind of MMU, summed over the
 * chip's instances, from the cycle they were enabled.  A translation is a
 * virtual request accepted (always by a TLB hit: a miss walks first, then
 * looks the request up again); a probe is a page check's; a walk is a TLB
 * miss, reading the directory entry (unless the MMU kept it) and the table
 * entry; walk_cycles counts the cycles MMUs spent walking (waiting for their
 * port's reads in flight included).  Only the plain library's fast model has
 * them (sim/sgpu_sim_mmu.vlt): elsewhere, and with a trace, enable returns
 * -1.  With SGPU_SIM_MMU_STATS=<file> in the environment, every chip counts
 * from its creation and appends one line per kind to <file> when destroyed
 * ("mmu fetch translations N probes N walks N dir_reads N table_reads N
 * walk_cycles N"; kinds fetch, writer, 2d). */
enum { SGPU_SIM_MMU_FETCH = 0, SGPU_SIM_MMU_WRITER = 1, SGPU_SIM_MMU_2D = 2, SGPU_SIM_MMU_KINDS = 3 };
typedef struct sgpu_sim_mmu_stats {
  uint64_t translations, probes, walks, dir_reads, table_reads, walk_cycles;
} sgpu_sim_mmu_stats;
int sgpu_sim_mmu_stats_enable(sgpu_sim *sim); /* 0 (counters cleared), or -1 */
int sgpu_sim_mmu_stats_get(const sgpu_sim *sim, uint32_t kind, sgpu_sim_mmu_stats *stats); /* 0, or -1 */

/* Backdoor for tests: the memory model's array, no simulated time passes. */
int sgpu_sim_backdoor_read(sgpu_sim *sim, uint32_t address, void *data, uint32_t size);
int sgpu_sim_backdoor_write(sgpu_sim *sim, uint32_t address, const void *data, uint32_t size);

#ifdef __cplusplus
}
#endif
#endif
