// sgpu_mmu: random traffic (virtual and physical reads and writes, probes,
// flushes, page tables rewritten with a flush) against a memory that
// refuses and answers late at random, each verdict compared with a walk of
// the tables made here.  Checked: a probe's verdict and translation, every
// write lands at the translated address (the whole memory compared with a
// reference at the end), every read returns the reference's word in order
// (a refused one 0), a refused access reaches no memory, after a refusal
// every virtual access is refused until the next flush.  Then the walk's
// latency: the cycles a TLB miss adds with one-cycle memory (directory and
// table entry read, or the table entry only under the last directory entry).
// tb_sgpu_mmu_lookup.v runs it with the verdicts from flip-flops
// (REG_LOOKUP = 1, the ULX3S's writer port): a hit costs a cycle more.
`timescale 1ns/1ps
`include "sgpu_hw.vh"
`ifdef TB_MMU_REG_LOOKUP
module tb_sgpu_mmu_lookup;
  localparam REG_LOOKUP = 1;
`else
module tb_sgpu_mmu;
  localparam REG_LOOKUP = 0;
`endif
  localparam AW = 16, WORDS = 1 << (AW - 2);
  reg clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  reg  [31:12] root;
  reg          flush;
  reg          uv, uw, uvirt, uprobe;
  reg  [31:0]  uaddr, uwdata;
  wire         uready, ursp;
  wire [31:0]  urdata;
  wire         dv, dw;
  wire [31:0]  da, dd;
  wire [3:0]   ds;
  reg          dready, drsp;
  reg  [31:0]  drdata;
  wire         done, fault, prot, dead;
  wire [31:0]  pa;

  sgpu_mmu #(.TLB_ENTRIES(4), .AW(AW), .REG_LOOKUP(REG_LOOKUP)) dut (
    .clk_i(clk), .rst_ni(rst_n), .root_i(root), .flush_i(flush),
    .up_valid_i(uv), .up_ready_o(uready), .up_write_i(uw), .up_virt_i(uvirt), .up_probe_i(uprobe),
    .up_addr_i(uaddr), .up_wdata_i(uwdata), .up_wstrb_i(4'hF),
    .up_rsp_valid_o(ursp), .up_rsp_rdata_o(urdata),
    .dn_valid_o(dv), .dn_ready_i(dready), .dn_write_o(dw), .dn_addr_o(da), .dn_wdata_o(dd), .dn_wstrb_o(ds),
    .dn_rsp_valid_i(drsp), .dn_rsp_rdata_i(drdata),
    .done_o(done), .fault_o(fault), .fault_prot_o(prot), .pa_o(pa), .dead_o(dead));

  integer seed;
  `include "tb_random.vh"

  // ---- memory model: random ready, in-order responses after 1..4 cycles
  reg [31:0] mem  [0:WORDS-1];
  reg [31:0] rmem [0:WORDS-1];   // the reference
  reg [31:0] q_data [0:63];
  integer    q_due [0:63];
  integer    q_head, q_tail, cyc, last_due, rdy_pct, lat_max;
  always @(posedge clk) begin
    cyc <= cyc + 1;
    drsp <= 1'b0;
    if (dv && dready) begin
      if (dw) mem[da[AW-1:2]] <= dd;
      else begin
        q_data[q_tail % 64] = mem[da[AW-1:2]];
        last_due = (cyc + 1 + $unsigned(tb_random(0)) % lat_max > last_due) ?
                   cyc + 1 + $unsigned(tb_random(0)) % lat_max : last_due + 1;
        q_due[q_tail % 64] = last_due;
        q_tail = q_tail + 1;
      end
    end
    if (q_head != q_tail && q_due[q_head % 64] <= cyc) begin
      drsp <= 1'b1; drdata <= q_data[q_head % 64]; q_head = q_head + 1;
    end
    dready <= ($unsigned(tb_random(0)) % 100) < rdy_pct;
  end

  // ---- the reference walk
  reg        r_fault, r_prot;
  reg [31:0] r_pa;
  task walk(input [31:0] va, input wr);
    reg [31:0] pde, pte;
    begin
      pde = rmem[(({root, 12'd0} + 4 * (va >> 22)) & ((1 << AW) - 1)) >> 2];
      pte = rmem[(({pde[31:12], 12'd0} + 4 * ((va >> 12) & 1023)) & ((1 << AW) - 1)) >> 2];
      r_fault = 1'b0; r_prot = 1'b0; r_pa = 32'd0;
      if (!pde[`SGPU_PDE_VALID_LSB] || !pte[`SGPU_PTE_VALID_LSB]) r_fault = 1'b1;
      else if (wr && !pte[`SGPU_PTE_WRITABLE_LSB]) begin r_fault = 1'b1; r_prot = 1'b1; end
      r_pa = ({pte[31:12], 12'd0} | (va & 32'hFFF)) & ((1 << AW) - 1);
    end
  endtask

  // Tables: directory at page 1; entries 0..3 -> tables at pages 2, 3, none, 2.
  // Page-table entries 0..7 of each table: random frames among pages 8..15.
  task new_tables;
    integer t, e;
    reg [31:0] v;
    begin
      for (e = 0; e < 1024; e = e + 1) begin
        rmem[(32'h1000 >> 2) + e] = 32'd0;
        rmem[(32'h2000 >> 2) + e] = 32'd0;
        rmem[(32'h3000 >> 2) + e] = 32'd0;
      end
      rmem[(32'h1000 >> 2) + 0] = 32'h2001;
      rmem[(32'h1000 >> 2) + 1] = 32'h3001;
      rmem[(32'h1000 >> 2) + 3] = 32'h2001;
      for (t = 2; t <= 3; t = t + 1)
        for (e = 0; e < 8; e = e + 1) begin
          v = (8 + $unsigned(tb_random(0)) % 8) << 12;
          if ($unsigned(tb_random(0)) % 5 != 0) v[`SGPU_PTE_VALID_LSB] = 1'b1;
          if ($unsigned(tb_random(0)) % 3 != 0) v[`SGPU_PTE_WRITABLE_LSB] = 1'b1;
          rmem[(t << 10) + e] = v;
        end
      for (e = 1024; e < 4 * 1024; e = e + 1) mem[e] = rmem[e];
    end
  endtask

  // ---- checks at acceptance and at responses
  reg [31:0] e_data [0:255];
  integer    e_head, e_tail, n_acc, n_fault, n_probe, n_rd, n_wr, n_phys, n_flush, n_tab, k, i;
  reg        m_dead;      // the reference's "refused since the last flush"
  reg        taken;       // the master's request was accepted at the last edge
  always @(posedge clk) if (rst_n) begin
    if (ursp) begin
      if (e_head == e_tail) $fatal(1, "tb_sgpu_mmu: a response with no read accepted");
      if (urdata !== e_data[e_head % 256])
        $fatal(1, "tb_sgpu_mmu: read data 0x%08x, expected 0x%08x", urdata, e_data[e_head % 256]);
      e_head = e_head + 1;
    end
    if (uv && uready) begin
      taken = 1'b1;
      n_acc = n_acc + 1;
      if (uvirt) begin
        walk(uaddr, uw);
        if (!done) $fatal(1, "tb_sgpu_mmu: virtual request accepted without done_o");
        if (fault !== (r_fault || m_dead))
          $fatal(1, "tb_sgpu_mmu: va 0x%08x %s%s: fault %b, expected %b (dead %b)", uaddr, uprobe ? "probe " : "",
                 uw ? "write" : "read", fault, r_fault || m_dead, m_dead);
        if (fault && !m_dead && prot !== r_prot) $fatal(1, "tb_sgpu_mmu: va 0x%08x: protection %b, expected %b",
                                                         uaddr, prot, r_prot);
        if (uprobe && !fault && pa !== r_pa) $fatal(1, "tb_sgpu_mmu: probe 0x%08x: pa 0x%08x, expected 0x%08x",
                                                    uaddr, pa, r_pa);
        if (!uprobe && !fault) begin
          if (!(dv && dready && da == r_pa && dw == uw))
            $fatal(1, "tb_sgpu_mmu: va 0x%08x not sent to 0x%08x (dn %b %b 0x%08x)", uaddr, r_pa, dv, dready, da);
        end
        if (fault && dv && dready && !dead && dut.st_q == 3'd0)
          $fatal(1, "tb_sgpu_mmu: a refused access reached memory");
        if (uprobe) n_probe = n_probe + 1;
        if (fault) n_fault = n_fault + 1;
        if (fault && !uprobe) m_dead = 1'b1;
        if (!uprobe) begin
          if (uw && !fault) rmem[r_pa[AW-1:2]] = uwdata;
          if (!uw) begin e_data[e_tail % 256] = fault ? 32'd0 : rmem[r_pa[AW-1:2]]; e_tail = e_tail + 1; end
        end
      end else begin
        n_phys = n_phys + 1;
        if (!(dv && dready && da == uaddr)) $fatal(1, "tb_sgpu_mmu: physical request not passed through");
        if (uw) rmem[uaddr[AW-1:2]] = uwdata;
        else begin e_data[e_tail % 256] = rmem[uaddr[AW-1:2]]; e_tail = e_tail + 1; end
      end
      if (uw) n_wr = n_wr + 1; else n_rd = n_rd + 1;
    end
    if (flush) m_dead = 1'b0;
  end

  // ---- the master: one request at a time, held until accepted
  task new_req;
    reg [31:0] r;
    begin
      r = $unsigned(tb_random(0)) % 100;
      uvirt = (r >= 15); uprobe = (r >= 15 && r < 30); uw = tb_random(0);
      if (uvirt) uaddr = {8'd0, 2'd0, 2'd0, 4'd0, 4'd0, 12'd0} |
                         (($unsigned(tb_random(0)) % 4) << 22) | (($unsigned(tb_random(0)) % 9) << 12) |
                         ($unsigned(tb_random(0)) % 4096 & 32'hFFC);
      else uaddr = 32'h8000 | ($unsigned(tb_random(0)) % 32768 & 32'h7FFC);
      uwdata = tb_random(0);
      uv = 1'b1;
    end
  endtask

  integer t0, walk_cycles, hit_cycles, walk2_cycles;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 7;
    cyc = 0; q_head = 0; q_tail = 0; last_due = 0; e_head = 0; e_tail = 0; rdy_pct = 70; lat_max = 4;
    taken = 1'b0;
    n_acc = 0; n_fault = 0; n_probe = 0; n_rd = 0; n_wr = 0; n_phys = 0; n_flush = 0; n_tab = 0; m_dead = 1'b0;
    uv = 0; uw = 0; uvirt = 0; uprobe = 0; uaddr = 0; uwdata = 0; flush = 0; root = 20'h00001;
    dready = 0; drsp = 0; drdata = 0;
    for (i = 0; i < WORDS; i = i + 1) begin rmem[i] = tb_random(0); mem[i] = rmem[i]; end
    new_tables;
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    for (k = 0; k < 60000; k = k + 1) begin
      @(negedge clk);
      if (taken) begin uv = 1'b0; taken = 1'b0; end   // accepted at the last edge (checked there)
      flush = 1'b0;
      if (!uv && $unsigned(tb_random(0)) % 100 < (dead ? 30 : 1)) begin flush = 1'b1; n_flush = n_flush + 1; end
      // new tables (with a flush) only while no walk runs
      if (!uv && dut.st_q == 3'd0 && $unsigned(tb_random(0)) % 1000 < 3) begin
        new_tables; flush = 1'b1; n_tab = n_tab + 1;
      end
      if (!uv && $unsigned(tb_random(0)) % 100 < 80) new_req;
    end
    @(negedge clk);
    if (taken) begin uv = 1'b0; taken = 1'b0; end
    // drain
    while (uv) begin @(negedge clk); if (taken) begin uv = 1'b0; taken = 1'b0; end end
    flush = 1'b0;
    repeat (40) @(posedge clk);
    if (e_head != e_tail) $fatal(1, "tb_sgpu_mmu: %0d reads never answered", e_tail - e_head);
    for (i = 0; i < WORDS; i = i + 1)
      if (mem[i] !== rmem[i]) $fatal(1, "tb_sgpu_mmu: memory word 0x%04x is 0x%08x, expected 0x%08x", 4 * i, mem[i], rmem[i]);
    $display("tb_sgpu_mmu: %0d accepted (%0d reads, %0d writes, %0d physical, %0d probes, %0d refused), %0d flushes, %0d table sets",
             n_acc, n_rd, n_wr, n_phys, n_probe, n_fault, n_flush, n_tab);
    if (n_fault < 100 || n_probe < 100 || n_phys < 100 || n_tab < 3) $fatal(1, "tb_sgpu_mmu: too little coverage");

    // ---- the walk's latency with one-cycle memory, always ready
    rdy_pct = 100; lat_max = 1;
    @(negedge clk); flush = 1'b1; @(negedge clk); flush = 1'b0;
    rmem[(32'h2000 >> 2) + 5] = 32'h0000_9003; mem[(32'h2000 >> 2) + 5] = 32'h0000_9003;
    rmem[(32'h2000 >> 2) + 6] = 32'h0000_A003; mem[(32'h2000 >> 2) + 6] = 32'h0000_A003;
    repeat (4) @(posedge clk);
    @(negedge clk); uvirt = 1; uprobe = 0; uw = 0; uaddr = 32'h0000_5010; uv = 1; t0 = cyc;
    @(posedge clk); #1; while (!taken) begin @(posedge clk); #1; end
    walk_cycles = cyc - t0;
    @(negedge clk); taken = 1'b0; uaddr = 32'h0000_5014; t0 = cyc;
    @(posedge clk); #1; while (!taken) begin @(posedge clk); #1; end
    hit_cycles = cyc - t0;
    // another page under the same directory entry: its table entry only
    @(negedge clk); taken = 1'b0; uaddr = 32'h0000_6010; t0 = cyc;
    @(posedge clk); #1; while (!taken) begin @(posedge clk); #1; end
    walk2_cycles = cyc - t0;
    @(negedge clk); uv = 0; taken = 1'b0;
    repeat (8) @(posedge clk);
    $display("FIGURE mmu_miss_cycles %0d", walk_cycles - hit_cycles);
    $display("FIGURE mmu_miss_same_directory_entry_cycles %0d", walk2_cycles - hit_cycles);
    $display("FIGURE mmu_hit_cycles %0d", hit_cycles);
    // a hit: accepted in the cycle it is presented, or the next with REG_LOOKUP
    if (hit_cycles != 1 + REG_LOOKUP) $fatal(1, "tb_sgpu_mmu: a hit took %0d cycles, expected %0d", hit_cycles, 1 + REG_LOOKUP);
    $display("PASS tb_sgpu_mmu%s", REG_LOOKUP ? "_lookup" : "");
    $finish;
  end
endmodule
