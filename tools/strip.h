/* dlca-eval's pictures: a row of frames of a rollout (channel 0 in black
 * and white, or channels 0-2 as RGB), each cell a square of pixels, written
 * as one PNG through libpng. */
#ifndef DLCA_TOOLS_STRIP_H
#define DLCA_TOOLS_STRIP_H

#include <stddef.h>

typedef struct strip {
  int height, width;   /* of one frame, in cells */
  int zoom;            /* pixels per cell side */
  int n, cap;          /* frames held, room for */
  unsigned char *cells;/* [cap][height][width][3] */
  unsigned char *wide; /* [cap]: a wider gap before this frame */
} strip;

/* Room for `cap` frames of H x W cells. Returns -1 when out of memory. */
int strip_init(strip *s, int H, int W, int cap);
/* Channel 0 of state [H][W][C] as black (0) and white (1). Where `exact`
 * ([H][W], or NULL) says otherwise, the cell is red. */
void strip_add_gray(strip *s, const float *state, int C, const float *exact, int wide_gap);
/* Channels 0, 1, 2 of state [H][W][C] as R, G, B, clamped to [0, 1]. */
void strip_add_rgb(strip *s, const float *state, int C, int wide_gap);
/* Writes the frames left to right as a PNG. -1 with a reason in err. */
int strip_save(const strip *s, const char *path, char *err, size_t n);
void strip_free(strip *s);

#endif
