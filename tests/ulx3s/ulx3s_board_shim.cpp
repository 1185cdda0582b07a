// ulx3s_board_shim.cpp — the board_sim_* calls of tests/board/board_sim.h
// that tests/board/board_link.c makes, on the ULX3S simulation (the handle
// is ulx3s_sim_board()).  A member of its own in $(ULX3S_VL_LIB): the ULX3S
// tests pull it in through board_link.o, while sgpu-sim, which links the
// iCEBreaker's board_sim.o as well, takes these names from there.

#include "board_sim.h"
#include "ulx3s_sim.h"

// The part of tests/board/board_sim.h that tests/board/board_link.c uses,
// on this board (ulx3s_sim_board gives the handle).
namespace {
ulx3s_sim *U(board_sim *b) { return reinterpret_cast<ulx3s_sim *>(b); }
const ulx3s_sim *UC(const board_sim *b) { return reinterpret_cast<const ulx3s_sim *>(b); }
}  // namespace
extern "C" {
void board_sim_run(board_sim *b, uint64_t cycles) { ulx3s_sim_run(U(b), cycles); }
uint64_t board_sim_cycle(const board_sim *b) { return ulx3s_sim_cycle(UC(b)); }
uint64_t board_sim_reset_release(const board_sim *b) { return ulx3s_sim_reset_release(UC(b)); }
void board_sim_uart_send(board_sim *b, const void *data, size_t n) { ulx3s_sim_uart_send(U(b), data, n); }
size_t board_sim_uart_recv(board_sim *b, uint8_t *data, size_t max) { return ulx3s_sim_uart_recv(U(b), data, max); }
}  // extern "C"
