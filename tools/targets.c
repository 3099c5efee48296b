/* Targets and start grids of dlca-train's presets; see targets.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "image.h"
#include "targets.h"

int target_is_gol(const dlca_preset *p) { return !strcmp(p->name, "gol"); }

/* spec/dlca.md section 5: squares of 2 cells, cell (r, q) = (r/2 + q/2) mod 2.
 * The loss reads channel 0 only; the other channels stay 0. */
void target_checkerboard(int H, int W, int C, float *y) {
  for (int r = 0; r < H; r++)
    for (int q = 0; q < W; q++) y[((size_t)r * W + q) * C] = (float)((r / 2 + q / 2) % 2);
}

/* Alive where the image is opaque, or, if it has no alpha, where it is
 * bright: an emoji-style PNG and a white-on-black drawing both work. */
static void growth(const image *img, int C, float *y) {
  for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
    const float *px = img->rgba + i * 4;
    float v = img->has_alpha ? px[3] : 0.2126f * px[0] + 0.7152f * px[1] + 0.0722f * px[2];
    y[i * C] = v > 0.5f ? 1.0f : 0.0f;
  }
}

/* RGB into channels 0, 1, 2. Premultiplied by alpha: transparent pixels are
 * the zero state the colour preset starts from. */
static void colour(const image *img, int C, float *y) {
  for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
    const float *px = img->rgba + i * 4;
    for (int k = 0; k < 3; k++) y[i * C + k] = px[k] * px[3];
  }
}

int target_fixed(const dlca_preset *p, int C, const char *path, float **out, char *err, size_t n, int *is_input) {
  const int H = p->height, W = p->width;
  int is_growth = !strcmp(p->name, "growth"), is_colour = !strcmp(p->name, "colour");
  *out = NULL;
  *is_input = 1;
  if (path && !is_growth && !is_colour) {
    snprintf(err, n, "--target: the %s preset has a fixed target; --target is for growth and colour", p->name);
    return -1;
  }
  if (is_colour && C < 3) {
    snprintf(err, n, "the colour preset needs 3 channels for RGB, the model has %d", C);
    return -1;
  }
  float *y = calloc((size_t)H * W * C, sizeof(float));
  if (!y) {
    *is_input = 0;
    snprintf(err, n, "out of memory for the target");
    return -1;
  }
  if (!is_growth && !is_colour) {
    target_checkerboard(H, W, C, y);
    *out = y;
    return 0;
  }
  image img;
  char why[256];
  if (path ? image_load(path, &img, why, sizeof why, is_input)
           : (is_growth ? builtin_lizard(&img) : builtin_mushroom(&img))) {
    if (path) snprintf(err, n, "%s: %s", path, why);
    else *is_input = 0, snprintf(err, n, "out of memory for the built-in target");
    free(y);
    return -1;
  }
  if (img.width != W || img.height != H) {
    snprintf(err, n, "%s: %dx%d image, but the grid is %dx%d", path ? path : "built-in target", img.width,
             img.height, W, H);
    image_free(&img);
    free(y);
    return -1;
  }
  (is_growth ? growth : colour)(&img, C, y);
  image_free(&img);
  *out = y;
  return 0;
}

void random_bits(float *x, size_t n, uint64_t seed, uint32_t stream) {
  for (size_t i = 0; i < n; i++) x[i] = (float)(dlca_rng_u32(seed, stream, (uint32_t)i) >> 31);
}

void gol_order(uint64_t seed, int order[GOL_BOARDS]) {
  for (int i = 0; i < GOL_BOARDS; i++) order[i] = i;
  /* Fisher-Yates on the library's counter RNG; stream "GOL" keeps it apart
   * from the trainer's own draws with the same seed. The modulo bias of a
   * 32-bit draw over at most 512 values is below 2^-22 and harmless here. */
  for (int i = GOL_BOARDS - 1; i > 0; i--) {
    int j = (int)(dlca_rng_u32(seed, 0x474F4Cu, (uint32_t)i) % (uint32_t)(i + 1));
    int t = order[i];
    order[i] = order[j], order[j] = t;
  }
}

/* spec/dlca.md section 5: one Life step on a 3x3 torus. Every cell of a
 * 3x3 torus neighbours all 8 others, wrapped. */
static void gol_board(int index, float *x, float *y) {
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 3; q++) {
      int live = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dq = -1; dq <= 1; dq++)
          if (dr || dq) live += (index >> (((r + dr + 3) % 3) * 3 + (q + dq + 3) % 3)) & 1;
      int self = (index >> (r * 3 + q)) & 1;
      x[r * 3 + q] = (float)self;
      y[r * 3 + q] = (float)(live == 3 || (self && live == 2));
    }
}

void gol_batch(const int order[GOL_BOARDS], uint64_t epoch, int batch, float *x, float *y) {
  for (int b = 0; b < batch; b++) {
    uint64_t k = (epoch * (uint64_t)batch + (uint64_t)b) % GOL_BOARDS;
    gol_board(order[k], x + 9 * b, y + 9 * b);
  }
}

void gol_all(float *x, float *y) {
  for (int i = 0; i < GOL_BOARDS; i++) gol_board(i, x + 9 * i, y + 9 * i);
}

/* spec/dlca.md section 5: born with exactly 3 live neighbours, survives with
 * 2 or 3, coordinates wrapping round. */
void gol_step(int H, int W, const float *x, float *y) {
  for (int r = 0; r < H; r++)
    for (int q = 0; q < W; q++) {
      int live = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dq = -1; dq <= 1; dq++)
          if (dr || dq) live += x[(size_t)((r + dr + H) % H) * W + (q + dq + W) % W] >= 0.5f;
      int self = x[(size_t)r * W + q] >= 0.5f;
      y[(size_t)r * W + q] = (float)(live == 3 || (self && live == 2));
    }
}
