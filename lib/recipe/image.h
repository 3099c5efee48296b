/* Reading target images: PNG (through libpng) and PBM (P1 text or P4
 * binary, parsed here), both as straight RGBA floats. Internal. */
#ifndef DLCA_RECIPE_IMAGE_H
#define DLCA_RECIPE_IMAGE_H

#include <stddef.h>

typedef struct dlca__image {
  int width, height;
  int has_alpha;  /* the file carries transparency (PNG alpha or tRNS, or PBM) */
  float *rgba;    /* [height][width][4] in [0, 1], sRGB as stored, not premultiplied */
} dlca__image;

/* Images larger than this are certainly not a CA target: a header that
 * claims more is refused before anything is allocated. */
#define DLCA__IMAGE_MAX_SIDE 16384
#define DLCA__IMAGE_MAX_PIXELS ((size_t)1 << 22)

/* Loads path into *out. A PBM's ink (1 bits) reads as opaque white and its
 * paper as transparent black, so that "ink" means "alive" for every preset.
 * DLCA_EIO (unreadable) or DLCA_EPARSE (not an image, malformed, too large,
 * or a PBM header that claims more pixels than the file holds), with a
 * message naming the file; DLCA_ENOMEM. */
int dlca__image_load(const char *path, dlca__image *out);
void dlca__image_free(dlca__image *img);

#endif
