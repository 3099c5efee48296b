/* dlca-eval --gif: the frames of a strip (strip.h) as an animated GIF
 * through giflib, each cell a square of pixels, one palette for all
 * frames, looping forever. */
#ifndef DLCA_TOOLS_GIF_H
#define DLCA_TOOLS_GIF_H

#include <stddef.h>
#include "strip.h"

#define GIF_MAX_SIDE 8192 /* pixels of a frame side, zoom included */

typedef struct gif_options {
  int zoom;     /* pixels per cell side; 0: the largest that keeps a side within 256 pixels */
  int delay_ms; /* between frames; GIF counts hundredths of a second */
  int hold_ms;  /* the last frame, before the loop starts again (at least delay_ms) */
} gif_options;

/* 1 where this build has giflib, else 0 (and gif_save fails saying so). */
int gif_available(void);
/* The zoom gif_save uses for an H x W grid. */
int gif_zoom(const gif_options *o, int H, int W);
/* Writes s's frames, in order, to path atomically. -1 with a reason in err. */
int gif_save(const strip *s, const char *path, const gif_options *o, char *err, size_t n);

#endif
