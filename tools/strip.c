/* Rollout pictures; see strip.h. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "outfile.h"
#include "strip.h"

#define GAP 2       /* grey pixels between frames */
#define WIDE_GAP 8  /* before a frame that is not a step (the target) */
#define GREY 128

/* Writes an 8-bit RGB picture, [height][width][3], as a PNG: encoded in
 * memory, then put on the disk whole (outfile.h). */
static int save_rgb(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t n) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32)width, png.height = (png_uint_32)height;
  png.format = PNG_FORMAT_RGB;
  png_alloc_size_t len = 0;
  void *mem = NULL;
  int ok = png_image_write_get_memory_size(png, len, 0, rgb, 0, NULL) && (mem = malloc(len)) &&
           png_image_write_to_memory(&png, mem, &len, 0, rgb, 0, NULL);
  if (!ok) snprintf(err, n, "cannot encode a PNG (%s)", png.message[0] ? png.message : "out of memory");
  int rc = ok ? outfile_write(path, mem, len, err, n) : -1;
  png_image_free(&png);
  free(mem);
  return rc;
}

int strip_init(strip *s, int H, int W, int cap) {
  memset(s, 0, sizeof *s);
  s->height = H, s->width = W, s->cap = cap;
  /* small grids are blown up to about 128 pixels a side, large ones kept 1:1 */
  int side = H > W ? H : W;
  s->zoom = side >= 128 ? 1 : 128 / side;
  s->cells = malloc((size_t)cap * H * W * 3);
  s->wide = calloc((size_t)cap, 1);
  return s->cells && s->wide ? 0 : -1;
}

static unsigned char to_byte(float v) { return v <= 0 ? 0 : v >= 1 ? 255 : (unsigned char)(v * 255.0f + 0.5f); }

void strip_add_gray(strip *s, const float *state, int C, const float *exact, int wide_gap) {
  if (s->n >= s->cap) return;
  unsigned char *f = s->cells + (size_t)s->n * s->height * s->width * 3;
  for (size_t i = 0; i < (size_t)s->height * s->width; i++) {
    int live = state[i * C] >= 0.5f;
    int wrong = exact && live != (exact[i] >= 0.5f);
    f[3 * i] = wrong ? 230 : live ? 255 : 0;
    f[3 * i + 1] = f[3 * i + 2] = wrong ? 30 : live ? 255 : 0;
  }
  s->wide[s->n++] = (unsigned char)(wide_gap != 0);
}

void strip_add_rgb(strip *s, const float *state, int C, int wide_gap) {
  if (s->n >= s->cap) return;
  unsigned char *f = s->cells + (size_t)s->n * s->height * s->width * 3;
  for (size_t i = 0; i < (size_t)s->height * s->width; i++)
    for (int k = 0; k < 3; k++) f[3 * i + k] = to_byte(C > k ? state[i * C + k] : 0);
  s->wide[s->n++] = (unsigned char)(wide_gap != 0);
}

int strip_save(const strip *s, const char *path, char *err, size_t n) {
  const int fw = s->width * s->zoom, fh = s->height * s->zoom;
  int W = GAP, H = fh + 2 * GAP;
  for (int i = 0; i < s->n; i++) W += (s->wide[i] ? WIDE_GAP : 0) + fw + GAP;
  unsigned char *px = malloc((size_t)W * H * 3);
  if (!px) {
    snprintf(err, n, "out of memory for a %dx%d picture", W, H);
    return -1;
  }
  memset(px, GREY, (size_t)W * H * 3);
  int x0 = GAP;
  for (int i = 0; i < s->n; i++) {
    x0 += s->wide[i] ? WIDE_GAP : 0;
    const unsigned char *f = s->cells + (size_t)i * s->height * s->width * 3;
    for (int y = 0; y < fh; y++)
      for (int x = 0; x < fw; x++)
        memcpy(px + ((size_t)(GAP + y) * W + x0 + x) * 3, f + ((size_t)(y / s->zoom) * s->width + x / s->zoom) * 3, 3);
    x0 += fw + GAP;
  }
  int rc = save_rgb(path, W, H, px, err, n);
  free(px);
  return rc;
}

void strip_free(strip *s) {
  free(s->cells);
  free(s->wide);
  memset(s, 0, sizeof *s);
}
