/* The C CPU reference engine: the oracle every OpenCL kernel is checked
 * against (doc/semantics.md sections 3-4). Plain C, OpenMP across batch and
 * cells, float32 storage, double accumulation of losses and gradients. */
#ifndef DLCA_CL_REF_H
#define DLCA_CL_REF_H

#include "dlca_cl/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rollout: a batch of grids, T steps, sync or async, and the loss channels.
 * Grids are float [batch][height][width][channels]. */
typedef struct dlca_run {
  int batch, height, width, steps;
  int async;
  float fire_rate;            /* async: P(cell fires), default 0.6 */
  const uint8_t *fire_masks;  /* async: [steps][batch][height][width] of 0/1, or NULL */
  uint64_t mask_key;          /* async without masks: masks drawn as in doc/rng.md */
  int n_loss_channels;
  int loss_channels[DLCA_MAX_LOSS_CHANNELS];
} dlca_run;

/* Clip by value, then AdamW with optax semantics (doc/semantics.md section
 * 4, items 5-6). */
typedef struct dlca_optim {
  float clip, lr, beta1, beta2, eps, weight_decay;
} dlca_optim;

DLCA_API dlca_optim dlca_optim_default(void);
/* A run with the defaults: loss on channel 0, fire rate 0.6, sync. */
DLCA_API dlca_run dlca_run_default(int batch, int height, int width, int steps);

/* Checks a run against a model (sizes, loss channels); DLCA_ECONFIG with a
 * message naming the field otherwise. */
DLCA_API DLCA_WUR int dlca_run_validate(const dlca_model *m, const dlca_run *run);

/* Whether cell (b, r, q) fires at step t in an async run (doc/rng.md). */
DLCA_API int dlca_fire_mask(const dlca_run *run, int t, int b, int r, int q);

/* Runs `steps` steps from x, soft (hard = 0) or hard, into out_state. If
 * target is not NULL, *loss receives the loss over the loss channels. */
DLCA_API DLCA_WUR int dlca_ref_forward(const dlca_model *m, const dlca_run *run,
                                       const float *x, int hard, const float *target,
                                       float *out_state, double *loss);

/* The soft loss and its gradient with respect to every logit (flat, in
 * dlca_model_params() order), by backpropagation through all steps. The
 * final soft state goes to out_state if not NULL. */
DLCA_API DLCA_WUR int dlca_ref_gradient(const dlca_model *m, const dlca_run *run,
                                        const float *x, const float *target,
                                        double *loss, float *grad, float *out_state);

/* Clip grad by value, then one AdamW update of n parameters at step t >= 1.
 * m and v are the Adam moments (zero at t = 1). */
DLCA_API void dlca_ref_adamw(size_t n, float *params, const float *grad, float *m,
                             float *v, int t, const dlca_optim *o);

#ifdef __cplusplus
}
#endif
#endif
