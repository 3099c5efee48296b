/* Reading target images for dlca-train: PNG (through libpng) and PBM
 * (P1 text or P4 binary, parsed here), both as straight RGBA floats; and
 * writing dlca-eval's pictures as PNG. */
#ifndef DLCA_TOOLS_IMAGE_H
#define DLCA_TOOLS_IMAGE_H

#include <stddef.h>

typedef struct image {
  int width, height;
  int has_alpha;  /* the file carries transparency (PNG alpha or tRNS, or PBM) */
  float *rgba;    /* [height][width][4] in [0, 1], sRGB as stored, not premultiplied */
} image;

/* Loads path into *out. A PBM's ink (1 bits) reads as opaque white and its
 * paper as transparent black, so that "ink" means "alive" for every preset.
 * On failure returns -1 with a one-line reason in err (without the path);
 * *is_input is 1 when the file is at fault (unreadable, not an image,
 * malformed) and 0 when the host is (out of memory). */
int image_load(const char *path, image *out, char *err, size_t errlen, int *is_input);
void image_free(image *img);

/* Writes an 8-bit RGB picture, [height][width][3], as a PNG. On failure
 * returns -1 with a one-line reason in err (without the path). */
int image_save_rgb(const char *path, int width, int height, const unsigned char *rgb, char *err, size_t errlen);

#endif
