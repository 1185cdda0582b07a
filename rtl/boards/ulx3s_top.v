// ulx3s_top: sgpu on the ULX3S (ECP5 LFE5U-85F by default; 12F/25F/45F).
//
//  - clocks: the 25 MHz oscillator into one EHXPLLL, VCO 750 MHz:
//    CLKOP 125 MHz (/6, the PLL's feedback) serialises TMDS at 5x the pixel
//    clock, CLKOS 25 MHz (/30) is the pixel clock (640x480 at 59.5 Hz;
//    VESA wants 25.175, and 25.175 x 5 is out of reach of a 25 MHz input:
//    the PLL's phase detector needs at least 3.125 MHz), CLKOS2 the system
//    clock (/SYS_DIV: 25 gives 30 MHz.  Why: nextpnr closes the chip at
//    40 to 46 MHz on the -6 part (the path from a ring FIFO's block RAM
//    through the command processor's fetch logic into the next block
//    RAM's address), so 1.15 x 30 = 34.5 MHz leaves room across seeds, and
//    30 MHz is exactly 10 clocks per UART bit at 3 Mbaud; 35.71 MHz (/21)
//    failed seed 1 at 40.3 against 41.1).  Three domains,
//    crossed only by synchronisers and asynchronous FIFOs
//    (sgpu_display_2c inside the chip, sgpu_dvi_tx here).
//  - power-on reset: held until the PLL locks, then 2^16 system cycles;
//    FIRE1 resets the chip while pressed; the pixel and serial domains
//    leave reset through their own synchronisers
//  - sgpu_top with 2 nodes (graphics and copy), 1 source, the per-node
//    performance counters, the display's pixel side on the pixel clock
//  - GPU memory: with SDRAM = 1 (the default) the board's 32 MB SDR SDRAM
//    through sgpu_sdram on the system clock (CL 3 at 30 MHz, BURST 2,
//    COL_BITS 9: 32 MB on the 256 Mbit and the 512 Mbit parts alike), the
//    SDRAM clocked by the inverse of the system clock (an ODDRX1F on
//    sdram_clk): half a cycle of setup and hold on every pin; the chip may
//    have MEM_RDQ (16) reads outstanding, enough for a scanout burst at the
//    bus rate (9..11 cycles from request to data with the register slices
//    around the memory port, a read every 2 cycles) behind the 6 requests
//    the slice and the controller's queue may hold.
//    With SDRAM = 0, MEM_BYTES of block RAM instead (sgpu_sram; the SDRAM
//    pins idle: CKE low, deselected).
//  - the host link (sgpu_host_bridge) on the FT231X UART at BAUD (default
//    SGPU_LINK_BAUD_ULX3S, 3 Mbaud, the FT231X's highest; 8N1), behind the
//    boot ROM (sgpu_boot: the power-on screen and the identity block of
//    ROM_FILE, built by firmware/firmware.mk for this memory size)
//  - DVI on the GPDI connector: sgpu_dvi_tx's four lanes (blue, green, red,
//    clock), two bits per serial clock through ODDRX1F cells onto gpdi_dp
//    (LVCMOS33D: the paired pin carries the complement)
//  - LEDs 0..7: idle, busy, fault, link activity (blinks on each host
//    frame), heartbeat, booting, PLL locked, TMDS underflow (sticky)
// Vendor primitives are used under `ifdef SYNTHESIS (yosys defines it).
// Lint and simulators see a plain-logic stand-in with the same behaviour at
// the pins; there the three clocks come from extra inputs (a simulator
// cannot run a PLL), which synthesis does not have.
`include "sgpu_hw.vh"

module ulx3s_top #(
  parameter integer BAUD      = `SGPU_LINK_BAUD_ULX3S,
  parameter integer SYS_DIV   = 25,       // system clock = 750 MHz / SYS_DIV
  parameter integer SDRAM     = 1,        // 1: GPU memory on the SDRAM; 0: block RAM
  parameter integer MEM_BYTES = 33554432, // GPU memory (power of two; the SDRAM's 32 MB)
  parameter         ROM_FILE  = "build/firmware/boot_ulx3s.hex"
) (
  input  wire       clk_25m_i,     // ulx3s_v20.lpf clk_25mhz
  input  wire       btn_fire1_i,   // FIRE1, active high: reset
  input  wire       uart_rx_i,     // ftdi_txd: from the FT231X
  output wire       uart_tx_o,     // ftdi_rxd: to the FT231X
  output wire [7:0] led_o,
  output wire [3:0] gpdi_dp_o,     // TMDS lanes: blue, green, red, clock
  output wire       wifi_gpio0_o,  // ESP32 GPIO0 held high: the ESP32 boots normally
  // SDRAM (ulx3s_v20.lpf sdram_*)
  output wire        sdram_clk_o,
  output wire        sdram_cke_o,
  output wire        sdram_csn_o,
  output wire        sdram_rasn_o,
  output wire        sdram_casn_o,
  output wire        sdram_wen_o,
  output wire [1:0]  sdram_ba_o,
  output wire [12:0] sdram_a_o,
  output wire [1:0]  sdram_dqm_o,
`ifdef SYNTHESIS
  inout  wire [15:0] sdram_d_io
`else
  // simulation: DQ as its two directions (the board model resolves them)
  output wire [15:0] sdram_d_sim_o,
  output wire        sdram_d_oe_sim_o,
  input  wire [15:0] sdram_d_sim_i,
  input  wire        clk_sys_sim_i, // simulation only: the PLL's three clocks
  input  wire        clk_pix_sim_i,
  input  wire        clk_ser_sim_i
`endif
);
  // Parameter preconditions: a violated one instantiates a missing module
  // named after it, which stops elaboration in every tool.
  // MEM_BYTES: GPU addresses wrap at a power of two.
  generate if (!(MEM_BYTES > 0 && (MEM_BYTES & (MEM_BYTES - 1)) == 0)) begin : g_bad_mem_bytes
    sgpu_precondition_failed_MEM_BYTES_power_of_two u_fail ();
  end endgenerate

  localparam integer VCO_HZ = 750000000;
  localparam integer CLK_HZ = VCO_HZ / SYS_DIV;
  localparam integer CLKS_PER_BIT = (CLK_HZ + BAUD / 2) / BAUD;
  localparam integer GAP_CYCLES = (CLK_HZ / 1000) * (`SGPU_LINK_GAP_TIMEOUT_US / 1000);
  localparam integer AW = $clog2(MEM_BYTES);

  // ------------------------------------------------------------ clocks
  wire clk_sys;      // system: command processors, 2D engine, memory, link
  wire clk_pix;      // pixel: 25 MHz
  wire clk_ser;      // TMDS serialiser: 125 MHz
  wire pll_lock;

`ifdef SYNTHESIS
  // Loop filter settings as Project Trellis's ecppll picks them for a
  // 25 MHz input and a 125 MHz feedback output; equal CPHASE values align the outputs (the phase does not matter
  // here: every crossing is asynchronous).
  (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *)
  (* MFG_ENABLE_FILTEROPAMP = "1" *) (* MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"),
    .DPHASE_SOURCE("DISABLED"),
    .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"),
    .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"),
    .CLKI_DIV(1), .FEEDBK_PATH("CLKOP"), .CLKFB_DIV(5),       // 25 x 5 = 125 at CLKOP
    .CLKOP_ENABLE("ENABLED"),  .CLKOP_DIV(6),        .CLKOP_CPHASE(2),  .CLKOP_FPHASE(0),
    .CLKOS_ENABLE("ENABLED"),  .CLKOS_DIV(30),       .CLKOS_CPHASE(2),  .CLKOS_FPHASE(0),
    .CLKOS2_ENABLE("ENABLED"), .CLKOS2_DIV(SYS_DIV), .CLKOS2_CPHASE(2), .CLKOS2_FPHASE(0)
  ) u_pll (
    .CLKI(clk_25m_i), .CLKFB(clk_ser),
    .CLKOP(clk_ser), .CLKOS(clk_pix), .CLKOS2(clk_sys), .CLKOS3(), .CLKINTFB(),
    .RST(1'b0), .STDBY(1'b0),
    .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),
    .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0),
    .ENCLKOP(1'b0), .ENCLKOS(1'b0), .ENCLKOS2(1'b0), .ENCLKOS3(1'b0),
    .LOCK(pll_lock), .INTLOCK(), .REFCLK()
  );
`else
  assign clk_sys = clk_sys_sim_i;
  assign clk_pix = clk_pix_sim_i;
  assign clk_ser = clk_ser_sim_i;
  assign pll_lock = 1'b1;
  wire unused_sim_ok = &{1'b0, clk_25m_i};
`endif

  // ------------------------------------------------------------ reset
  // FPGA flip-flops start at 0 after configuration.
  reg [1:0]  btn_sync_q = 2'b00;
  reg [16:0] por_q = 17'd0;
  always @(posedge clk_sys) begin
    btn_sync_q <= {btn_sync_q[0], btn_fire1_i};
    if (!pll_lock || btn_sync_q[1]) por_q <= 17'd0;
    else if (!por_q[16])            por_q <= por_q + 1'b1;
  end
  wire rst_n = por_q[16];
  wire pix_rst_n, ser_rst_n;
  sgpu_cdc_rst u_pix_rst (.clk_i(clk_pix), .rst_ni(rst_n), .rst_no(pix_rst_n));
  sgpu_cdc_rst u_ser_rst (.clk_i(clk_ser), .rst_ni(rst_n), .rst_no(ser_rst_n));

  // ------------------------------------------------------------ chip
  wire        h_req_valid, h_req_ready, h_req_write;
  wire [31:0] h_req_addr, h_req_wdata;
  wire [3:0]  h_req_wstrb;
  wire        h_rsp_valid;
  wire [31:0] h_rsp_rdata;
  wire [7:0]  vid_r, vid_g, vid_b;
  wire        vid_hsync, vid_vsync, vid_de;
  wire        irq, gpu_busy, gpu_fault;

  // Register slices on both sides of the chip's memory port.  The host
  // port: the path from the bridge's buffer through the chip's host port and
  // arbiter into the memory request is cut by a two-entry FIFO (registered
  // valid, data and ready) and a register on the response.  The memory
  // port gets the same, for either memory: the ECP5's block RAM (SDRAM = 0)
  // has a slow clock-to-output (5.8 ns at speed 6) and a large array spreads
  // over the die (a read then takes three cycles and MEM_RDQ 4 keeps it
  // busy); the SDRAM controller sits by its pins at the die's edge, and
  // with GPU virtual memory (VM 1: a TLB compare in front of the arbiter on
  // every ring and 2D engine port) the path from its request queue's
  // "not full" through the arbiter into a command processor, and from the
  // arbiter into the queue, was 77 % routing and failed 34.5 MHz (32.89 MHz,
  // seed 1).  The slice sits after the arbiter, so the order in which the
  // chip's masters were granted (the only memory order the chip promises)
  // is kept; it costs a read two cycles of latency.  With them MEM_RDQ is
  // 16 for the SDRAM: at 8 reads in flight (which covered 7 cycles of
  // latency and the 4 requests of the controller's queue) the scanout lost
  // its row under a full-screen FILL (test_ulx3s_sdram: the frame after the
  // FLIP black from row 5): the slice and the controller's queue hold up to
  // 6 requests ahead of a scanout read, and a read takes 2 cycles more.
  localparam integer RDQ = (SDRAM != 0) ? 16 : 4;

  wire        g_req_valid, g_req_ready, g_req_write;
  wire [31:0] g_req_addr, g_req_wdata;
  wire [3:0]  g_req_wstrb;
  wire        g_rsp_valid;
  wire [31:0] g_rsp_rdata;
  wire        c_req_valid, c_req_ready, c_req_write;
  wire [31:0] c_req_addr, c_req_wdata;
  wire [3:0]  c_req_wstrb;
  wire        c_rsp_valid;
  wire [31:0] c_rsp_rdata;
  reg         h_rsp_valid_q;
  reg  [31:0] h_rsp_rdata_q;
  wire [1:0]  h_slice_cnt;

  sgpu_fifo #(.WIDTH(69), .DEPTH(2)) u_host_slice (
    .clk_i(clk_sys), .rst_ni(rst_n), .clr_i(1'b0),
    .in_valid_i(h_req_valid), .in_ready_o(h_req_ready),
    .in_data_i({h_req_write, h_req_addr, h_req_wdata, h_req_wstrb}),
    .out_valid_o(g_req_valid), .out_ready_i(g_req_ready),
    .out_data_o({g_req_write, g_req_addr, g_req_wdata, g_req_wstrb}),
    .count_o(h_slice_cnt));

  always @(posedge clk_sys or negedge rst_n) begin
    if (!rst_n) h_rsp_valid_q <= 1'b0;
    else        h_rsp_valid_q <= g_rsp_valid;
  end
  always @(posedge clk_sys) h_rsp_rdata_q <= g_rsp_rdata;
  assign h_rsp_valid = h_rsp_valid_q;
  assign h_rsp_rdata = h_rsp_rdata_q;

  sgpu_top #(.NODES(`SGPU_BOARD_ULX3S_NODES), .SOURCES(`SGPU_BOARD_ULX3S_SOURCES),
             .MEM_BYTES(MEM_BYTES), .MEM_RDQ(RDQ), .PERF(`SGPU_BOARD_ULX3S_PERF),
             .IB_DEPTH(`SGPU_BOARD_ULX3S_IB_DEPTH), .PREEMPTION(`SGPU_BOARD_ULX3S_PREEMPTION),
             .PRIORITY(`SGPU_BOARD_ULX3S_PRIORITY), .TIME_SLICE(`SGPU_BOARD_ULX3S_TIME_SLICE), .VM(`SGPU_BOARD_ULX3S_VM), .PIX_CDC(1),
             .ARB_REG_GRANT(1), .HOST_REG_STAGE(1)) u_gpu (
    .clk_i(clk_sys), .rst_ni(rst_n), .pix_en_i(1'b0),
    .pix_clk_i(clk_pix), .pix_rst_ni(pix_rst_n),
    .host_req_valid_i(g_req_valid), .host_req_ready_o(g_req_ready),
    .host_req_write_i(g_req_write), .host_req_addr_i(g_req_addr),
    .host_req_wdata_i(g_req_wdata), .host_req_wstrb_i(g_req_wstrb),
    .host_rsp_valid_o(g_rsp_valid), .host_rsp_rdata_o(g_rsp_rdata),
    .mem_req_valid_o(c_req_valid), .mem_req_ready_i(c_req_ready),
    .mem_req_write_o(c_req_write), .mem_req_addr_o(c_req_addr),
    .mem_req_wdata_o(c_req_wdata), .mem_req_wstrb_o(c_req_wstrb),
    .mem_rsp_valid_i(c_rsp_valid), .mem_rsp_rdata_i(c_rsp_rdata),
    .vid_r_o(vid_r), .vid_g_o(vid_g), .vid_b_o(vid_b),
    .vid_hsync_o(vid_hsync), .vid_vsync_o(vid_vsync), .vid_de_o(vid_de),
    .irq_o(irq), .busy_o(gpu_busy), .fault_o(gpu_fault),
    /* verilator lint_off PINCONNECTEMPTY */ .cycle_o() /* verilator lint_on PINCONNECTEMPTY */);

  // ------------------------------------------------------------ memory
  wire        m_req_valid, m_req_ready, m_req_write;
  wire [31:0] m_req_addr, m_req_wdata;
  wire [3:0]  m_req_wstrb;
  wire        m_rsp_valid;
  wire [31:0] m_rsp_rdata;
  reg         m_rsp_valid_q;
  reg  [31:0] m_rsp_rdata_q;
  wire [1:0]  m_slice_cnt;   // (unused: the FIFO's fill)

  sgpu_fifo #(.WIDTH(69), .DEPTH(2)) u_mem_slice (
    .clk_i(clk_sys), .rst_ni(rst_n), .clr_i(1'b0),
    .in_valid_i(c_req_valid), .in_ready_o(c_req_ready),
    .in_data_i({c_req_write, c_req_addr, c_req_wdata, c_req_wstrb}),
    .out_valid_o(m_req_valid), .out_ready_i(m_req_ready),
    .out_data_o({m_req_write, m_req_addr, m_req_wdata, m_req_wstrb}),
    .count_o(m_slice_cnt));
  always @(posedge clk_sys or negedge rst_n) begin
    if (!rst_n) m_rsp_valid_q <= 1'b0;
    else        m_rsp_valid_q <= m_rsp_valid;
  end
  always @(posedge clk_sys) m_rsp_rdata_q <= m_rsp_rdata;
  assign c_rsp_valid = m_rsp_valid_q;
  assign c_rsp_rdata = m_rsp_rdata_q;

  wire [15:0] sd_dq_o, sd_dq_i;
  wire        sd_dq_oe, sd_clk;

  generate
    if (SDRAM != 0) begin : g_sdram
      // The ULX3S's SDRAM: AS4C32M16SB-7 class (4 banks, 8192 rows; a
      // 256 Mbit part has 512 columns, so COL_BITS 9: the full 32 MB of
      // either part the boards carry).  CL 3 on the SDRAM, forwarded
      // inverted (CLK_INV): commands leave on clk_sys's rising edge and
      // are sampled half a cycle later; beat i of a READ is valid at the
      // SDRAM's pins from 2.5 cycles + tAC (5.4 ns) after the command left
      // to 3.5 cycles + tOH, and is captured on the rising edge 3 cycles
      // after: about 11 ns of setup and 19 ns of hold at 30 MHz, and as
      // much on the command and write pins.
      sgpu_sdram #(.CLK_MHZ((CLK_HZ + 999999) / 1000000), .CL(3), .CLK_INV(1), .BURST(2),
                   .COL_BITS(9), .ROW_BITS(13)) u_mem (
        .clk_i(clk_sys), .rst_ni(rst_n),
        .req_valid_i(m_req_valid), .req_ready_o(m_req_ready), .req_write_i(m_req_write),
        .req_addr_i(m_req_addr), .req_wdata_i(m_req_wdata), .req_wstrb_i(m_req_wstrb),
        .rsp_valid_o(m_rsp_valid), .rsp_rdata_o(m_rsp_rdata),
        .sdram_clk_o(sd_clk), .sdram_cke_o(sdram_cke_o), .sdram_csn_o(sdram_csn_o),
        .sdram_rasn_o(sdram_rasn_o), .sdram_casn_o(sdram_casn_o), .sdram_wen_o(sdram_wen_o),
        .sdram_ba_o(sdram_ba_o), .sdram_a_o(sdram_a_o), .sdram_dqm_o(sdram_dqm_o),
        .sdram_dq_o(sd_dq_o), .sdram_dq_oe_o(sd_dq_oe), .sdram_dq_i(sd_dq_i));
    end else begin : g_bram
      sgpu_sram #(.BYTES(MEM_BYTES)) u_mem (
        .clk_i(clk_sys), .rst_ni(rst_n),
        .req_valid_i(m_req_valid), .req_ready_o(m_req_ready), .req_write_i(m_req_write),
        .req_addr_i(m_req_addr), .req_wdata_i(m_req_wdata), .req_wstrb_i(m_req_wstrb),
        .rsp_valid_o(m_rsp_valid), .rsp_rdata_o(m_rsp_rdata));

      // the SDRAM idles: clock low, CKE low, deselected, DQ not driven
      assign sd_clk = 1'b0;
      assign {sdram_cke_o, sdram_csn_o, sdram_rasn_o, sdram_casn_o, sdram_wen_o} = 5'b01111;
      assign sdram_ba_o  = 2'd0;
      assign sdram_a_o   = 13'd0;
      assign sdram_dqm_o = 2'b11;
      assign sd_dq_o     = 16'd0;
      assign sd_dq_oe    = 1'b0;
      wire unused_bram = &{1'b0, sd_dq_i};
    end
  endgenerate

  // SDRAM clock and DQ pins.  sdram_clk is the inverse of clk_sys (ODDRX1F:
  // D0 leaves while SCLK is high, D1 while it is low); the DQ tristate is
  // inferred on the inout (yosys maps it onto the bidirectional I/O).
`ifdef SYNTHESIS
  ODDRX1F u_sdram_clk (.SCLK(clk_sys), .RST(1'b0), .D0(1'b0), .D1((SDRAM != 0) ? 1'b1 : 1'b0),
                       .Q(sdram_clk_o));
  assign sdram_d_io = sd_dq_oe ? sd_dq_o : 16'bz;
  assign sd_dq_i    = sdram_d_io;
`else
  assign sdram_clk_o      = (SDRAM != 0) ? ~clk_sys : 1'b0;
  assign sdram_d_sim_o    = sd_dq_o;
  assign sdram_d_oe_sim_o = sd_dq_oe;
  assign sd_dq_i          = sdram_d_sim_i;
`endif
  wire unused_sd = &{1'b0, sd_clk};

  // ------------------------------------------------------------ host link
  wire       rx_valid, rx_ferr;
  wire [7:0] rx_data;
  wire       tx_valid, tx_ready;
  wire [7:0] tx_data;
  wire       frame_ok, frame_err;
  wire       tx_busy;

  sgpu_uart_rx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_urx (
    .clk_i(clk_sys), .rst_ni(rst_n), .rx_i(uart_rx_i),
    .valid_o(rx_valid), .data_o(rx_data), .frame_err_o(rx_ferr));

  // the boot ROM's feeder between the UART and the bridge: while booting
  // it sends the ROM's frames and drops the bridge's answers
  wire       b_rx_valid, b_tx_ready, u_tx_valid, booting;
  wire [7:0] b_rx_data;
  sgpu_boot #(.ROM_FILE(ROM_FILE)) u_boot (
    .clk_i(clk_sys), .rst_ni(rst_n),
    .uart_valid_i(rx_valid), .uart_data_i(rx_data),
    .rx_valid_o(b_rx_valid), .rx_data_o(b_rx_data),
    .tx_valid_i(tx_valid), .tx_ready_o(b_tx_ready),
    .utx_valid_o(u_tx_valid), .utx_ready_i(tx_ready),
    .booting_o(booting));

  sgpu_host_bridge #(.TIMEOUT_CYCLES(GAP_CYCLES), .AW(AW),
                     .RX_FIFO_BYTES(`SGPU_BOARD_ULX3S_RX_FIFO_BYTES)) u_bridge (
    .clk_i(clk_sys), .rst_ni(rst_n),
    .rx_valid_i(b_rx_valid), .rx_data_i(b_rx_data),
    .tx_valid_o(tx_valid), .tx_ready_i(b_tx_ready), .tx_data_o(tx_data),
    .host_req_valid_o(h_req_valid), .host_req_ready_i(h_req_ready),
    .host_req_write_o(h_req_write), .host_req_addr_o(h_req_addr),
    .host_req_wdata_o(h_req_wdata), .host_req_wstrb_o(h_req_wstrb),
    .host_rsp_valid_i(h_rsp_valid), .host_rsp_rdata_i(h_rsp_rdata),
    .irq_i(irq), .frame_ok_o(frame_ok), .frame_err_o(frame_err));

  sgpu_uart_tx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_utx (
    .clk_i(clk_sys), .rst_ni(rst_n), .valid_i(u_tx_valid), .ready_o(tx_ready),
    .data_i(tx_data), .tx_o(uart_tx_o), .busy_o(tx_busy));

  // ------------------------------------------------------------ DVI
  wire [3:0] ser_d0, ser_d1;
  wire       tmds_under;
  sgpu_dvi_tx u_dvi (
    .pix_clk_i(clk_pix), .pix_rst_ni(pix_rst_n),
    .de_i(vid_de), .r_i(vid_r), .g_i(vid_g), .b_i(vid_b),
    .hsync_i(vid_hsync), .vsync_i(vid_vsync),
    .ser_clk_i(clk_ser), .ser_rst_ni(ser_rst_n),
    .d0_o(ser_d0), .d1_o(ser_d1), .underflow_o(tmds_under));

`ifdef SYNTHESIS
  genvar gi;
  generate
    for (gi = 0; gi < 4; gi = gi + 1) begin : g_tmds_io
      // D0 leaves while SCLK is high, D1 while it is low
      ODDRX1F u_oddr (.SCLK(clk_ser), .RST(1'b0), .D0(ser_d0[gi]), .D1(ser_d1[gi]),
                      .Q(gpdi_dp_o[gi]));
    end
  endgenerate
`else
  assign gpdi_dp_o = clk_ser ? ser_d0 : ser_d1;
`endif

  // ------------------------------------------------------------ LEDs
  // Link activity: on for 1..2 ticks after each host frame (a tick when bit
  // 21 of the heartbeat counter falls: every 2^22 cycles, 140 ms at 30 MHz).
  reg [25:0] beat_q;
  reg        tick_q;
  reg [1:0]  blink_q;
  wire       tick = tick_q && !beat_q[21];
  always @(posedge clk_sys or negedge rst_n) begin
    if (!rst_n) begin
      beat_q  <= 26'd0;
      tick_q  <= 1'b0;
      blink_q <= 2'd0;
    end else begin
      beat_q <= beat_q + 1'b1;
      tick_q <= beat_q[21];
      if (frame_ok || frame_err || rx_ferr) blink_q <= 2'd2;
      else if (tick && blink_q != 2'd0)     blink_q <= blink_q - 1'b1;
    end
  end
  wire idle = !gpu_busy && !gpu_fault;
  assign led_o = {tmds_under, pll_lock, booting, beat_q[25], blink_q != 2'd0,
                  gpu_fault, gpu_busy, idle};
  assign wifi_gpio0_o = 1'b1;

  wire unused_ok = &{1'b0, tx_busy, h_slice_cnt, m_slice_cnt};

endmodule
