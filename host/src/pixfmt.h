/* pixfmt.h — the display's pixel formats expanded to RGB888, the one place
 * that does it: as the RTL's scanout does, by bit replication (an 8-bit
 * channel is its n bits repeated: RGB565's red r5 -> r5 r5[4:2]; RGB332's
 * two blue bits times 0x55).  Header only, with no dependency but
 * <stdint.h>, so that the tests that predict a frame (tests/chip,
 * tests/board, tests/ulx3s) use these same functions. */
#ifndef SGPU_PIXFMT_H
#define SGPU_PIXFMT_H

#include <stdint.h>

/* DISP_CONTROL.FORMAT: 0 RGB565 (2 bytes a pixel, little-endian), 1 RGB332. */
#define SGPU_PIXFMT_RGB565 0u
#define SGPU_PIXFMT_RGB332 1u

/* 0xRRGGBB of an RGB565 pixel. */
static inline uint32_t sgpu__rgb565_to_888(uint16_t p) {
  uint32_t r = p >> 11, g = (p >> 5) & 63u, b = p & 31u;
  return ((r << 3) | (r >> 2)) << 16 | ((g << 2) | (g >> 4)) << 8 | ((b << 3) | (b >> 2));
}

/* 0xRRGGBB of an RGB332 pixel. */
static inline uint32_t sgpu__rgb332_to_888(uint8_t p) {
  uint32_t r = p >> 5, g = (p >> 2) & 7u, b = p & 3u;
  return ((r << 5) | (r << 2) | (r >> 1)) << 16 | ((g << 5) | (g << 2) | (g >> 1)) << 8 | (b * 0x55u);
}

/* 0xRRGGBB of the pixel of `format` at byte pointer px. */
static inline uint32_t sgpu__pixel_to_888(uint32_t format, const uint8_t *px) {
  return format == SGPU_PIXFMT_RGB332 ? sgpu__rgb332_to_888(px[0])
                                      : sgpu__rgb565_to_888((uint16_t)(px[0] | px[1] << 8));
}

/* 0xRRGGBB as three bytes R, G, B. */
static inline void sgpu__rgb888_bytes(uint32_t rgb, uint8_t out[3]) {
  out[0] = (uint8_t)(rgb >> 16);
  out[1] = (uint8_t)(rgb >> 8);
  out[2] = (uint8_t)rgb;
}

/* One framebuffer row as the display shows it: `width` RGB888 pixels (3
 * bytes each) from pixels of `format`, each shown 1 << hrep times. */
static inline void sgpu__pixfmt_row(uint32_t format, const uint8_t *row, uint32_t hrep,
                                    uint32_t width, uint8_t *out) {
  uint32_t bpp = format == SGPU_PIXFMT_RGB332 ? 1u : 2u;
  for (uint32_t x = 0; x < width; x++)
    sgpu__rgb888_bytes(sgpu__pixel_to_888(format, row + bpp * (x >> hrep)), out + 3 * x);
}

#endif
