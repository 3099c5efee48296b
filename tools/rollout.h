/* A hard rollout one CA step at a time, on either backend, through the
 * public trainer API: a trainer of 1 step whose start grids are uploaded
 * (DLCA_START_UPLOAD) runs the hard circuit, and its hard state becomes the
 * next step's input. dlca-eval uses it for per-step error curves, pictures
 * and the step-by-step Game of Life comparison. */
#ifndef DLCA_TOOLS_ROLLOUT_H
#define DLCA_TOOLS_ROLLOUT_H

#include <stdint.h>
#include "dlca_cl.h"

typedef struct rollout {
  dlca_trainer *t;
  int batch, height, width, channels;
  int async;
  uint64_t seed;  /* async: step i's fire masks are drawn from seed + i */
  long step;      /* steps done */
  float *x;       /* the current hard state, [batch][height][width][channels] */
} rollout;

/* A rollout of `base`'s async mode, fire rate and loss channels on an
 * H x W grid, from the start grids x0 [batch][H][W][C]. target is the
 * [H][W][C] target every step is scored against, or NULL when each step
 * gets its own (rollout_step). ctx NULL: the CPU reference. Returns a
 * dlca_status; *out needs rollout_free() either way. */
int rollout_new(dlca_context *ctx, const dlca_model *m, const dlca_train_config *base, int batch, int H, int W,
                const float *x0, const float *target, uint64_t seed, rollout *out);
/* One hard step. step_target, if not NULL, is this step's per-sample target
 * [batch][H][W][C]. The score of the new state against the target goes to *ev. */
int rollout_step(rollout *r, const float *step_target, dlca_eval *ev);
void rollout_free(rollout *r);

#endif
