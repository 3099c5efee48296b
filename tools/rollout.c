/* Step-at-a-time hard rollouts; see rollout.h. */
#include <stdlib.h>
#include <string.h>
#include "rollout.h"

int rollout_new(dlca_context *ctx, const dlca_model *m, const dlca_train_config *base, int batch, int H, int W,
                const float *x0, const float *target, uint64_t seed, rollout *out) {
  memset(out, 0, sizeof *out);
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  dlca_train_config c = *base;
  c.batch = batch, c.height = H, c.width = W, c.steps = 1;
  c.start = DLCA_START_UPLOAD;
  c.seed = seed;
  /* the perception wires from a buffer, so that models of one grid shape
   * can share a program (where the plan does not depend on the wiring: a
   * GPU driver's large grids, with the push, still build one per wiring) */
  c.shared_program = 1;
  out->batch = batch, out->height = H, out->width = W, out->channels = s.channels;
  out->async = c.async, out->seed = seed;
  size_t n = (size_t)batch * H * W * s.channels;
  if (!(out->x = malloc(sizeof(float) * n))) return DLCA_ENOMEM;
  memcpy(out->x, x0, sizeof(float) * n);
  int rc = dlca_trainer_new(ctx, m, &c, &out->t);
  if (!rc && target) rc = dlca_trainer_set_target(out->t, target, 0);
  return rc;
}

int rollout_step(rollout *r, const float *step_target, dlca_eval *ev) {
  int rc = dlca_trainer_set_input(r->t, r->x);
  if (!rc && step_target) rc = dlca_trainer_set_target(r->t, step_target, 1);
  /* The fresh evaluation of an uploaded start draws its async fire masks
   * from the seed it is given (one batch, as epoch 0 of that seed), so each
   * step gets masks of its own; a synchronous one is plain eval_hard. */
  if (!rc) rc = r->async ? dlca_trainer_eval_hard_fresh(r->t, r->seed + (uint64_t)r->step, 1, ev)
                         : dlca_trainer_eval_hard(r->t, ev);
  if (!rc) rc = dlca_trainer_get_state(r->t, 1, r->x);
  if (!rc) r->step++;
  return rc;
}

void rollout_free(rollout *r) {
  dlca_trainer_free(r->t);
  free(r->x);
  memset(r, 0, sizeof *r);
}
