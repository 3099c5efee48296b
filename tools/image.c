/* PNG and PBM readers for target images. PNG goes through libpng's
 * simplified API, which handles every colour type, bit depth, palette and
 * tRNS chunk; PBM is simple enough to parse here (netpbm's pbm(5)). */
#include <ctype.h>
#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "image.h"

/* Images larger than this are certainly not a CA target; refusing them
 * early keeps a corrupt header from asking for gigabytes. */
#define IMAGE_MAX_SIDE 16384

static int fail(char *err, size_t n, int *is_input, int input, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  *is_input = input;
  return -1;
}

static int alloc_rgba(image *out, int w, int h, char *err, size_t n, int *is_input) {
  if (w < 1 || h < 1 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE)
    return fail(err, n, is_input, 1, "image size %dx%d is out of range", w, h);
  out->width = w, out->height = h;
  out->rgba = calloc((size_t)w * h * 4, sizeof(float));
  if (!out->rgba) return fail(err, n, is_input, 0, "out of memory for a %dx%d image", w, h);
  return 0;
}

static int load_png(const char *path, image *out, char *err, size_t n, int *is_input) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path))
    return fail(err, n, is_input, 1, "not a readable PNG (%s)", png.message);
  out->has_alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = PNG_FORMAT_RGBA;
  if (alloc_rgba(out, (int)png.width, (int)png.height, err, n, is_input)) {
    png_image_free(&png);
    return -1;
  }
  unsigned char *px = malloc(PNG_IMAGE_SIZE(png));
  if (!px) {
    png_image_free(&png);
    return fail(err, n, is_input, 0, "out of memory for a %ux%u image", png.width, png.height);
  }
  if (!png_image_finish_read(&png, NULL, px, 0, NULL)) {
    free(px);
    return fail(err, n, is_input, 1, "corrupt PNG (%s)", png.message);
  }
  for (size_t i = 0; i < (size_t)out->width * out->height * 4; i++) out->rgba[i] = px[i] / 255.0f;
  free(px);
  return 0;
}

/* Skips whitespace and '#' comments, which pbm(5) allows anywhere in the header. */
static int skip_space(FILE *f) {
  int c;
  while ((c = getc(f)) != EOF) {
    if (c == '#') {
      while ((c = getc(f)) != EOF && c != '\n') {
      }
    } else if (!isspace(c)) {
      ungetc(c, f);
      return 0;
    }
  }
  return -1;
}

static int read_uint(FILE *f, int *v) {
  if (skip_space(f)) return -1;
  long x = 0;
  int c, digits = 0;
  while ((c = getc(f)) != EOF && isdigit(c)) {
    if (x < 1000000) x = x * 10 + (c - '0');
    digits++;
  }
  if (c != EOF) ungetc(c, f);
  if (!digits) return -1;
  *v = x > IMAGE_MAX_SIDE ? IMAGE_MAX_SIDE + 1 : (int)x;
  return 0;
}

static void set_ink(image *out, size_t i, int ink) {
  for (int k = 0; k < 4; k++) out->rgba[i * 4 + k] = ink ? 1.0f : 0.0f;
}

static int load_pbm(FILE *f, int binary, image *out, char *err, size_t n, int *is_input) {
  int w, h;
  if (read_uint(f, &w) || read_uint(f, &h)) return fail(err, n, is_input, 1, "malformed PBM header");
  if (alloc_rgba(out, w, h, err, n, is_input)) return -1;
  out->has_alpha = 1;
  if (binary) {
    /* Exactly one whitespace byte separates the header from the raster. */
    if (!isspace(getc(f))) return fail(err, n, is_input, 1, "malformed PBM header");
    size_t row = ((size_t)w + 7) / 8;
    unsigned char *bits = malloc(row);
    if (!bits) return fail(err, n, is_input, 0, "out of memory");
    for (int r = 0; r < h; r++) {
      if (fread(bits, 1, row, f) != row) {
        free(bits);
        return fail(err, n, is_input, 1, "truncated PBM: row %d of %d is missing", r + 1, h);
      }
      for (int q = 0; q < w; q++) set_ink(out, (size_t)r * w + q, (bits[q / 8] >> (7 - q % 8)) & 1);
    }
    free(bits);
    return 0;
  }
  for (size_t i = 0; i < (size_t)w * h; i++) {
    if (skip_space(f)) return fail(err, n, is_input, 1, "truncated PBM: %zu of %zu pixels", i, (size_t)w * h);
    int c = getc(f);
    if (c != '0' && c != '1') return fail(err, n, is_input, 1, "PBM pixel %zu is '%c', not 0 or 1", i, c);
    set_ink(out, i, c == '1');
  }
  return 0;
}

int image_load(const char *path, image *out, char *err, size_t n, int *is_input) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, n, is_input, 1, "cannot open: %s", strerror(errno));
  unsigned char magic[8] = {0};
  size_t got = fread(magic, 1, sizeof magic, f);
  int rc;
  if (got == 8 && !png_sig_cmp(magic, 0, 8)) {
    fclose(f);
    rc = load_png(path, out, err, n, is_input);
  } else if (got >= 2 && magic[0] == 'P' && (magic[1] == '1' || magic[1] == '4')) {
    fseek(f, 2, SEEK_SET);
    rc = load_pbm(f, magic[1] == '4', out, err, n, is_input);
    fclose(f);
  } else {
    fclose(f);
    rc = fail(err, n, is_input, 1, "not a PNG or PBM (P1/P4) image");
  }
  if (rc) image_free(out);
  return rc;
}

void image_free(image *img) {
  free(img->rgba);
  img->rgba = NULL;
}

int image_save_rgb(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t n) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32)width, png.height = (png_uint_32)height;
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path, 0, rgb, 0, NULL)) {
    /* libpng says "fopen: ..." or similar; errno is the better reason when set */
    snprintf(err, n, "cannot write a PNG (%s)", png.message[0] ? png.message : strerror(errno));
    png_image_free(&png);
    return -1;
  }
  return 0;
}
