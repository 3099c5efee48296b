/* PNG and PBM readers for target images (recipe/image.h). PNG goes through libpng's
 * simplified API, which handles every colour type, bit depth, palette and
 * tRNS chunk; PBM is simple enough to parse here (netpbm's pbm(5)). */
#include <ctype.h>
#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core/internal.h"
#include "recipe/image.h"

/* A one-line reason, as the file's message. */
static int fail(int status, const char *path, const char *fmt, ...) DLCA_PRINTF(3, 4);
static int fail(int status, const char *path, const char *fmt, ...) {
  char why[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return dlca__fail(status, "%s: %s", path, why);
}

/* avail: the bytes the file has left for the pixels, or (size_t)-1 where
 * the format compresses them (PNG); need: what the header's size takes. */
static int alloc_rgba(const char *path, dlca__image *out, int w, int h, size_t need, size_t avail) {
  if (w < 1 || h < 1 || w > DLCA__IMAGE_MAX_SIDE || h > DLCA__IMAGE_MAX_SIDE ||
      (size_t)w * (size_t)h > DLCA__IMAGE_MAX_PIXELS)
    return fail(DLCA_EPARSE, path, "image size %dx%d is out of range", w, h);
  if (need > avail)
    return fail(DLCA_EPARSE, path, "truncated image: a %dx%d header needs %zu bytes, the file has %zu", w, h, need,
                avail);
  out->width = w, out->height = h;
  out->rgba = calloc((size_t)w * h * 4, sizeof(float));
  if (!out->rgba) return fail(DLCA_ENOMEM, path, "out of memory for a %dx%d image", w, h);
  return 0;
}

static int load_png(const char *path, dlca__image *out) {
  png_image png;
  memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path))
    return fail(DLCA_EPARSE, path, "not a readable PNG (%s)", png.message);
  out->has_alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = PNG_FORMAT_RGBA;
  int rc = png.width > DLCA__IMAGE_MAX_SIDE || png.height > DLCA__IMAGE_MAX_SIDE
               ? fail(DLCA_EPARSE, path, "image size %ux%u is out of range", png.width, png.height)
               : alloc_rgba(path, out, (int)png.width, (int)png.height, 0, (size_t)-1);
  if (rc) {
    png_image_free(&png);
    return rc;
  }
  unsigned char *px = malloc(PNG_IMAGE_SIZE(png));
  if (!px) {
    png_image_free(&png);
    return fail(DLCA_ENOMEM, path, "out of memory for a %ux%u image", png.width, png.height);
  }
  if (!png_image_finish_read(&png, NULL, px, 0, NULL)) {
    free(px);
    return fail(DLCA_EPARSE, path, "corrupt PNG (%s)", png.message);
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
  *v = x > DLCA__IMAGE_MAX_SIDE ? DLCA__IMAGE_MAX_SIDE + 1 : (int)x;
  return 0;
}

static void set_ink(dlca__image *out, size_t i, int ink) {
  for (int k = 0; k < 4; k++) out->rgba[i * 4 + k] = ink ? 1.0f : 0.0f;
}

/* The bytes of f after its current position. */
static size_t bytes_left(FILE *f) {
  struct stat st;
  long at = ftell(f);
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || at < 0 || st.st_size < at) return (size_t)-1;
  return (size_t)(st.st_size - at);
}

static int load_pbm(const char *path, FILE *f, int binary, dlca__image *out) {
  int w, h;
  if (read_uint(f, &w) || read_uint(f, &h)) return fail(DLCA_EPARSE, path, "malformed PBM header");
  /* a P1 pixel is at least one character; a P4 row is (w + 7) / 8 bytes after one separator */
  const size_t need = w < 1 || h < 1 ? 0 : binary ? 1 + ((size_t)w + 7) / 8 * (size_t)h : (size_t)w * (size_t)h;
  int rc = alloc_rgba(path, out, w, h, need, bytes_left(f));
  if (rc) return rc;
  out->has_alpha = 1;
  if (binary) {
    /* Exactly one whitespace byte separates the header from the raster. */
    if (!isspace(getc(f))) return fail(DLCA_EPARSE, path, "malformed PBM header");
    size_t row = ((size_t)w + 7) / 8;
    unsigned char *bits = malloc(row);
    if (!bits) return fail(DLCA_ENOMEM, path, "out of memory");
    for (int r = 0; r < h; r++) {
      if (fread(bits, 1, row, f) != row) {
        free(bits);
        return fail(DLCA_EPARSE, path, "truncated PBM: row %d of %d is missing", r + 1, h);
      }
      for (int q = 0; q < w; q++) set_ink(out, (size_t)r * w + q, (bits[q / 8] >> (7 - q % 8)) & 1);
    }
    free(bits);
    return 0;
  }
  for (size_t i = 0; i < (size_t)w * h; i++) {
    if (skip_space(f)) return fail(DLCA_EPARSE, path, "truncated PBM: %zu of %zu pixels", i, (size_t)w * h);
    int c = getc(f);
    if (c != '0' && c != '1') return fail(DLCA_EPARSE, path, "PBM pixel %zu is '%c', not 0 or 1", i, c);
    set_ink(out, i, c == '1');
  }
  return 0;
}

int dlca__image_load(const char *path, dlca__image *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(DLCA_EIO, path, "cannot open: %s", strerror(errno));
  unsigned char magic[8] = {0};
  size_t got = fread(magic, 1, sizeof magic, f);
  int rc;
  if (got == 8 && !png_sig_cmp(magic, 0, 8)) {
    fclose(f);
    rc = load_png(path, out);
  } else if (got >= 2 && magic[0] == 'P' && (magic[1] == '1' || magic[1] == '4')) {
    fseek(f, 2, SEEK_SET);
    rc = load_pbm(path, f, magic[1] == '4', out);
    fclose(f);
  } else {
    fclose(f);
    rc = fail(DLCA_EPARSE, path, "not a PNG or PBM (P1/P4) image");
  }
  if (rc) dlca__image_free(out);
  return rc;
}

void dlca__image_free(dlca__image *img) {
  free(img->rgba);
  img->rgba = NULL;
}
