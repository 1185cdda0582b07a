// tb_sgpu_mmu with the verdicts of virtual requests from flip-flops
// (sgpu_mmu REG_LOOKUP = 1, the ULX3S's writer port).
`define TB_MMU_REG_LOOKUP
`include "tb_sgpu_mmu.v"
