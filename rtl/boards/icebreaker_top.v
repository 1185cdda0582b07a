// icebreaker_top: sgpu on the iCEBreaker (iCE40UP5K-SG48).
//
//  - two clock domains: the system (command processor, 2D engine, memory,
//    host link) on the 12 MHz oscillator, passed through the PLL's pad
//    buffer (PLLOUTGLOBALA); the pixel side of the display (timing, line
//    buffer read port, output registers) on the PLL's 25.125 MHz output
//    (PLLOUTGLOBALB; DIVR 0, DIVF 66, DIVQ 5: 12 * 67 / 32; VGA 640x480@60
//    wants 25.175).  sgpu_display_2c crosses between them by construction.
//  - power-on reset: held until the PLL locks, then 2^11 system cycles; the
//    user button (BTN_N) resets the chip too; the pixel domain leaves reset
//    through its own synchroniser
//  - sgpu_top with 1 node, 1 source, 128 KiB of GPU memory in the four
//    SPRAMs (sgpu_sram)
//  - the host link (sgpu_host_bridge, docs/link-protocol.md) on the FT2232H
//    channel B UART at BAUD (default SGPU_LINK_BAUD_ICEBREAKER, 3 Mbaud:
//    4 system clocks per bit; 8N1)
//  - the boot ROM (sgpu_boot, docs/firmware.md): after reset it plays the
//    frames of build/firmware/boot_icebreaker.hex into the bridge (the
//    power-on screen, the identity block), then connects the UART
//  - the 12-bit DVI Pmod on PMOD1A/1B: the top 4 bits of each colour, syncs
//    and DE from I/O-cell flip-flops; the pixel clock leaves through a DDR
//    I/O cell inverted, so it rises in the middle of each data bit
//  - LEDs: on the main board red = fault, green = idle; on the snap-off
//    board (PMOD2) LED1 = idle, LED2 = busy, LED3 = fault, LED4 = link
//    activity (blinks on each host frame), LED5 = heartbeat
// Vendor primitives are used under `ifdef SYNTHESIS (yosys defines it).
// Lint and simulators see a plain-logic stand-in with the same behaviour at
// the pins; there the pixel clock comes from the extra input clk_pix_sim_i
// (a simulator cannot run a PLL), which synthesis does not have.
`include "sgpu_hw.vh"

module icebreaker_top #(
  parameter integer BAUD = `SGPU_LINK_BAUD_ICEBREAKER   // UART rate (build-time choice)
) (
  input  wire       clk_12m_i,     // pin 35
  input  wire       btn_ni,        // user button, active low
  input  wire       uart_rx_i,     // from the FTDI (its TXD)
  output wire       uart_tx_o,     // to the FTDI (its RXD)
  output wire       led_red_no,    // fault
  output wire       led_green_no,  // idle
  output wire [5:1] led_o,         // snap-off board: idle, busy, fault, link, heartbeat
  output wire [3:0] dvi_r_o,
  output wire [3:0] dvi_g_o,
  output wire [3:0] dvi_b_o,
  output wire       dvi_hsync_o,
  output wire       dvi_vsync_o,
  output wire       dvi_de_o,
  output wire       dvi_clk_o
`ifndef SYNTHESIS
  ,
  input  wire       clk_pix_sim_i  // simulation only: the PLL's pixel clock
`endif
);

  localparam integer CLK_HZ = 12000000;
  localparam integer MEM_BYTES = 131072;
  localparam integer CLKS_PER_BIT = (CLK_HZ + BAUD / 2) / BAUD;
  localparam integer GAP_CYCLES = (CLK_HZ / 1000) * (`SGPU_LINK_GAP_TIMEOUT_US / 1000);

  // ------------------------------------------------------------ clocks
  wire clk;          // system: the 12 MHz oscillator
  wire clk_pix;      // pixel: 25.125 MHz
  wire pll_lock;

`ifdef SYNTHESIS
  SB_PLL40_2_PAD #(
    .FEEDBACK_PATH("SIMPLE"),
    .DIVR(4'b0000),
    .DIVF(7'b1000010),
    .DIVQ(3'b101),
    .FILTER_RANGE(3'b001)
  ) u_pll (
    .PACKAGEPIN(clk_12m_i),
    .PLLOUTCOREA(),
    .PLLOUTGLOBALA(clk),
    .PLLOUTCOREB(),
    .PLLOUTGLOBALB(clk_pix),
    .EXTFEEDBACK(1'b0),
    .DYNAMICDELAY(8'd0),
    .LOCK(pll_lock),
    .BYPASS(1'b0),
    .RESETB(1'b1),
    .LATCHINPUTVALUE(1'b0),
    .SDO(),
    .SDI(1'b0),
    .SCLK(1'b0)
  );
`else
  assign clk = clk_12m_i;
  assign clk_pix = clk_pix_sim_i;
  assign pll_lock = 1'b1;
`endif

  // ------------------------------------------------------------ reset
  // FPGA flip-flops start at 0 after configuration.  The power-on counter
  // restarts from 0 while the PLL is unlocked or the button is held, and
  // the chip leaves reset once it has counted 2^11 cycles.  The LEDs'
  // heartbeat comes from the chip's cycle counter (in DSP blocks), not
  // from logic cells here.
  reg [1:0]  btn_sync_q = 2'b00;
  reg [11:0] por_q = 12'd0;
  reg        por_done_q = 1'b0;
  always @(posedge clk) begin
    btn_sync_q <= {btn_sync_q[0], btn_ni};
    if (!pll_lock || !btn_sync_q[1]) begin
      por_q <= 12'd0;
      por_done_q <= 1'b0;
    end else begin
      por_q <= por_q + 1'b1;
      if (por_q[11]) por_done_q <= 1'b1;
    end
  end
  wire rst_n = por_done_q;
  wire pix_rst_n;
  sgpu_cdc_rst u_pix_rst (.clk_i(clk_pix), .rst_ni(rst_n), .rst_no(pix_rst_n));

  // ------------------------------------------------------------ chip
  wire        h_req_valid, h_req_ready, h_req_write;
  wire [31:0] h_req_addr, h_req_wdata;
  wire [3:0]  h_req_wstrb;
  wire        h_rsp_valid;
  wire [31:0] h_rsp_rdata;
  wire        m_req_valid, m_req_ready, m_req_write;
  wire [31:0] m_req_addr, m_req_wdata;
  wire [3:0]  m_req_wstrb;
  wire        m_rsp_valid;
  wire [31:0] m_rsp_rdata;
  wire [7:0]  vid_r, vid_g, vid_b;
  wire        vid_hsync, vid_vsync, vid_de;
  wire        irq, gpu_busy, gpu_fault;
  wire [31:0] cyc_lo;   // the chip's CYCLE_LO: cycles since the reset's release

  // SPRAM answers every read in the next cycle: two reads in flight at most.
  // What the image carries is the interface's table of board features
  // (docs/boards.md): PERF 0, the per-node PERF_* counters left out (they
  // read 0 here; ~250 cells) and IB_DEPTH 1, one INDIRECT level below the
  // ring (CAPS.IB_DEPTH; the library refuses deeper nesting), so the design
  // keeps its margin in the UP5K's 5280 logic cells.
  sgpu_top #(.NODES(`SGPU_BOARD_ICEBREAKER_NODES), .SOURCES(`SGPU_BOARD_ICEBREAKER_SOURCES),
             .MEM_BYTES(MEM_BYTES), .MEM_RDQ(2), .PERF(`SGPU_BOARD_ICEBREAKER_PERF),
             .IB_DEPTH(`SGPU_BOARD_ICEBREAKER_IB_DEPTH), .PREEMPTION(`SGPU_BOARD_ICEBREAKER_PREEMPTION),
             .PRIORITY(`SGPU_BOARD_ICEBREAKER_PRIORITY), .TIME_SLICE(`SGPU_BOARD_ICEBREAKER_TIME_SLICE), .VM(`SGPU_BOARD_ICEBREAKER_VM), .PIX_CDC(1)) u_gpu (
    .clk_i(clk), .rst_ni(rst_n), .pix_en_i(1'b0),
    .pix_clk_i(clk_pix), .pix_rst_ni(pix_rst_n),
    .host_req_valid_i(h_req_valid), .host_req_ready_o(h_req_ready),
    .host_req_write_i(h_req_write), .host_req_addr_i(h_req_addr),
    .host_req_wdata_i(h_req_wdata), .host_req_wstrb_i(h_req_wstrb),
    .host_rsp_valid_o(h_rsp_valid), .host_rsp_rdata_o(h_rsp_rdata),
    .mem_req_valid_o(m_req_valid), .mem_req_ready_i(m_req_ready),
    .mem_req_write_o(m_req_write), .mem_req_addr_o(m_req_addr),
    .mem_req_wdata_o(m_req_wdata), .mem_req_wstrb_o(m_req_wstrb),
    .mem_rsp_valid_i(m_rsp_valid), .mem_rsp_rdata_i(m_rsp_rdata),
    .vid_r_o(vid_r), .vid_g_o(vid_g), .vid_b_o(vid_b),
    .vid_hsync_o(vid_hsync), .vid_vsync_o(vid_vsync), .vid_de_o(vid_de),
    .irq_o(irq), .busy_o(gpu_busy), .fault_o(gpu_fault), .cycle_o(cyc_lo));

  sgpu_sram #(.BYTES(MEM_BYTES)) u_mem (
    .clk_i(clk), .rst_ni(rst_n),
    .req_valid_i(m_req_valid), .req_ready_o(m_req_ready), .req_write_i(m_req_write),
    .req_addr_i(m_req_addr), .req_wdata_i(m_req_wdata), .req_wstrb_i(m_req_wstrb),
    .rsp_valid_o(m_rsp_valid), .rsp_rdata_o(m_rsp_rdata));

  // ------------------------------------------------------------ host link
  wire       rx_valid, rx_ferr;
  wire [7:0] rx_data;
  wire       tx_valid, tx_ready;
  wire [7:0] tx_data;
  wire       frame_ok, frame_err;
  wire       tx_busy;

  sgpu_uart_rx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_urx (
    .clk_i(clk), .rst_ni(rst_n), .rx_i(uart_rx_i),
    .valid_o(rx_valid), .data_o(rx_data), .frame_err_o(rx_ferr));

  // the boot ROM's feeder between the UART and the bridge: while booting
  // it sends the ROM's frames and drops the bridge's answers
  wire       b_rx_valid, b_tx_ready, u_tx_valid, booting;
  wire [7:0] b_rx_data;
  sgpu_boot u_boot (
    .clk_i(clk), .rst_ni(rst_n),
    .uart_valid_i(rx_valid), .uart_data_i(rx_data),
    .rx_valid_o(b_rx_valid), .rx_data_o(b_rx_data),
    .tx_valid_i(tx_valid), .tx_ready_o(b_tx_ready),
    .utx_valid_o(u_tx_valid), .utx_ready_i(tx_ready),
    .booting_o(booting));

  // The receive FIFO (link version 3: several frames in flight; its PING
  // says the size) as the board table gives it (docs/boards.md: its cost).
  sgpu_host_bridge #(.TIMEOUT_CYCLES(GAP_CYCLES), .AW($clog2(MEM_BYTES)),
                     .RX_FIFO_BYTES(`SGPU_BOARD_ICEBREAKER_RX_FIFO_BYTES)) u_bridge (
    .clk_i(clk), .rst_ni(rst_n),
    .rx_valid_i(b_rx_valid), .rx_data_i(b_rx_data),
    .tx_valid_o(tx_valid), .tx_ready_i(b_tx_ready), .tx_data_o(tx_data),
    .host_req_valid_o(h_req_valid), .host_req_ready_i(h_req_ready),
    .host_req_write_o(h_req_write), .host_req_addr_o(h_req_addr),
    .host_req_wdata_o(h_req_wdata), .host_req_wstrb_o(h_req_wstrb),
    .host_rsp_valid_i(h_rsp_valid), .host_rsp_rdata_i(h_rsp_rdata),
    .irq_i(irq), .frame_ok_o(frame_ok), .frame_err_o(frame_err));

  sgpu_uart_tx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_utx (
    .clk_i(clk), .rst_ni(rst_n), .valid_i(u_tx_valid), .ready_o(tx_ready),
    .data_i(tx_data), .tx_o(uart_tx_o), .busy_o(tx_busy));

  // ------------------------------------------------------------ LEDs
  // Link activity: on for 1..2 ticks of the cycle counter after each host
  // frame (a tick when bit 19 falls: every 2^20 cycles = 87 ms).
  reg        tick_q;
  reg [1:0]  blink_q;
  wire       tick = tick_q && !cyc_lo[19];
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      tick_q  <= 1'b0;
      blink_q <= 2'd0;
    end else begin
      tick_q <= cyc_lo[19];
      if (frame_ok || frame_err || rx_ferr) blink_q <= 2'd2;
      else if (tick && blink_q != 2'd0)     blink_q <= blink_q - 1'b1;
    end
  end
  wire idle = !gpu_busy && !gpu_fault;
  assign led_red_no   = !gpu_fault;
  assign led_green_no = !idle;
  assign led_o        = {cyc_lo[23], blink_q != 2'd0, gpu_fault, gpu_busy, idle};

  // ------------------------------------------------------------ DVI Pmod
  wire [14:0] vid_out = {vid_r[7:4], vid_g[7:4], vid_b[7:4], vid_hsync, vid_vsync, vid_de};
  wire [14:0] vid_pin;

`ifdef SYNTHESIS
  genvar gi;
  generate
    for (gi = 0; gi < 15; gi = gi + 1) begin : g_vid_io
      SB_IO #(
        .PIN_TYPE(6'b0101_01)          // registered output, simple input
      ) u_io (
        .PACKAGE_PIN(vid_pin[gi]),
        .OUTPUT_CLK(clk_pix),
        .CLOCK_ENABLE(1'b1),
        .D_OUT_0(vid_out[gi])
      );
    end
  endgenerate
  SB_IO #(
    .PIN_TYPE(6'b0100_01)              // DDR output
  ) u_clk_io (
    .PACKAGE_PIN(dvi_clk_o),
    .OUTPUT_CLK(clk_pix),
    .CLOCK_ENABLE(1'b1),
    .D_OUT_0(1'b0),                    // driven after the rising edge
    .D_OUT_1(1'b1)                     // driven after the falling edge
  );
`else
  reg [14:0] vid_q;
  always @(posedge clk_pix or negedge pix_rst_n) begin
    if (!pix_rst_n) vid_q <= 15'd0;
    else            vid_q <= vid_out;
  end
  assign vid_pin = vid_q;
  assign dvi_clk_o = !clk_pix;
`endif

  // 4 bits per colour reach the Pmod
  wire unused_ok = &{1'b0, vid_r[3:0], vid_g[3:0], vid_b[3:0], tx_busy, booting,
                     cyc_lo[31:24], cyc_lo[22:20], cyc_lo[18:0]};

  assign {dvi_r_o, dvi_g_o, dvi_b_o, dvi_hsync_o, dvi_vsync_o, dvi_de_o} = vid_pin;

endmodule
