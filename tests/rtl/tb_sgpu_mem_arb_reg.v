// tb_sgpu_mem_arb on the registered grant (sgpu_mem_arb REG_GRANT = 1, the
// ULX3S's arbiter).
`define TB_ARB_REG_GRANT
`include "tb_sgpu_mem_arb.v"
