/* Targets and start grids of the presets (dlca_cl/recipe.h, doc/semantics.md
 * section 5): the checkerboard, the growth and colour images and the Game
 * of Life boards with their one-step successors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/builtin.h"
#include "recipe/image.h"

int dlca_preset_is_gol(const dlca_preset *p) { return p && !strcmp(p->name, "gol"); }

/* doc/semantics.md section 5: squares of 2 cells, cell (r, q) = (r/2 + q/2) mod 2.
 * The loss reads channel 0 only; the other channels stay 0. */
void dlca_target_checkerboard(int H, int W, int C, float *y) {
  for (int r = 0; r < H; r++)
    for (int q = 0; q < W; q++) y[((size_t)r * W + q) * C] = (float)((r / 2 + q / 2) % 2);
}

/* Alive where the image is opaque, or, if it has no alpha, where it is
 * bright: an emoji-style PNG and a white-on-black drawing both work. */
static void growth(const dlca__image *img, int C, float *y) {
  for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
    const float *px = img->rgba + i * 4;
    float v = img->has_alpha ? px[3] : 0.2126f * px[0] + 0.7152f * px[1] + 0.0722f * px[2];
    y[i * C] = v > 0.5f ? 1.0f : 0.0f;
  }
}

/* RGB into channels 0, 1, 2. Premultiplied by alpha: transparent pixels are
 * the zero state the colour preset starts from. */
static void colour(const dlca__image *img, int C, float *y) {
  for (size_t i = 0; i < (size_t)img->width * img->height; i++) {
    const float *px = img->rgba + i * 4;
    for (int k = 0; k < 3; k++) y[i * C + k] = px[k] * px[3];
  }
}

int dlca_preset_target(const dlca_preset *p, int C, const char *path, float **out) {
  if (!p || !out) return dlca__fail(DLCA_EINVAL, "dlca_preset_target: NULL argument");
  const int H = p->height, W = p->width;
  int is_growth = !strcmp(p->name, "growth"), is_colour = !strcmp(p->name, "colour");
  *out = NULL;
  if (dlca_preset_is_gol(p))
    return dlca__fail(DLCA_EINVAL, "the gol preset's targets are Life steps (dlca_gol_batch), not one grid");
  if (path && !is_growth && !is_colour)
    return dlca__fail(DLCA_EINVAL, "--target: the %s preset has a fixed target; --target is for growth and colour",
                      p->name);
  if (is_colour && C < 3)
    return dlca__fail(DLCA_EINVAL, "the colour preset needs 3 channels for RGB, the model has %d", C);
  if (C < 1) return dlca__fail(DLCA_EINVAL, "a target of %d channels", C);
  float *y = calloc((size_t)H * W * C, sizeof(float));
  if (!y) return dlca__fail(DLCA_ENOMEM, "out of memory for the target");
  if (!is_growth && !is_colour) {
    dlca_target_checkerboard(H, W, C, y);
    *out = y;
    return DLCA_OK;
  }
  dlca__image img;
  int rc = path ? dlca__image_load(path, &img) : (is_growth ? dlca__builtin_lizard(&img) : dlca__builtin_mushroom(&img));
  if (rc) {
    free(y);
    return path ? rc : dlca__fail(DLCA_ENOMEM, "out of memory for the built-in target");
  }
  if (img.width != W || img.height != H) {
    rc = dlca__fail(DLCA_EINVAL, "%s: %dx%d image, but the grid is %dx%d", path ? path : "built-in target", img.width,
                    img.height, W, H);
    dlca__image_free(&img);
    free(y);
    return rc;
  }
  (is_growth ? growth : colour)(&img, C, y);
  dlca__image_free(&img);
  *out = y;
  return DLCA_OK;
}

void dlca_target_random_bits(float *x, size_t n, uint64_t seed, uint32_t stream) {
  for (size_t i = 0; i < n; i++) x[i] = (float)(dlca_rng_u32(seed, stream, (uint32_t)i) >> 31);
}

void dlca_gol_order(uint64_t seed, int order[DLCA_GOL_BOARDS]) {
  for (int i = 0; i < DLCA_GOL_BOARDS; i++) order[i] = i;
  /* Fisher-Yates on the library's counter RNG; stream "GOL" keeps it apart
   * from the trainer's own draws with the same seed. The modulo bias of a
   * 32-bit draw over at most 512 values is below 2^-22 and harmless here. */
  for (int i = DLCA_GOL_BOARDS - 1; i > 0; i--) {
    int j = (int)(dlca_rng_u32(seed, 0x474F4Cu, (uint32_t)i) % (uint32_t)(i + 1));
    int t = order[i];
    order[i] = order[j], order[j] = t;
  }
}

/* doc/semantics.md section 5: one Life step on a 3x3 torus. Every cell of a
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

void dlca_gol_batch(const int order[DLCA_GOL_BOARDS], uint64_t epoch, int batch, float *x, float *y) {
  for (int b = 0; b < batch; b++) {
    uint64_t k = (epoch * (uint64_t)batch + (uint64_t)b) % DLCA_GOL_BOARDS;
    gol_board(order[k], x + 9 * b, y + 9 * b);
  }
}

void dlca_gol_all(float *x, float *y) {
  for (int i = 0; i < DLCA_GOL_BOARDS; i++) gol_board(i, x + 9 * i, y + 9 * i);
}

/* doc/semantics.md section 5: born with exactly 3 live neighbours, survives with
 * 2 or 3, coordinates wrapping round. */
void dlca_gol_step(int H, int W, const float *x, float *y) {
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
