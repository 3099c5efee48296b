/* What one epoch is, the same for both trainer back ends: its key, its start
 * grids, its run (sizes, fire masks, loss channels), the hard evaluation and
 * the relaxations' noise (relax.c). Nothing here knows a back end or the
 * trainer object; it works on the configuration and plain arrays.
 *
 * The layering of the trainer, each level including only those below it:
 *   lib/train/trainer.c, parity.c, checkpoint.c  the trainer API: dispatch to a back end
 *   lib/cl/trainer/ (cl/trainer_backend.h)       the OpenCL back end
 *   lib/ref/ref_trainer.c (ref/ref_trainer.h)    the CPU reference back end
 *   lib/train/trainer_impl.h                     the back-end interface (struct dlca_trainer, ops)
 *   lib/ref/ (forward, backward, bits ...)       the CPU reference engine
 *   lib/train/epoch.h: epoch.c, relax.c          this file, and beside it host_memory.h
 *                                                (what the process can get of host memory)
 *   lib/model/, lib/core/                        models, status, RNG
 * So lib/cl and lib/ref depend on this file and on the interface, never on
 * lib/train/trainer.c, and trainer.c alone knows both back ends. */
#ifndef DLCA_TRAIN_EPOCH_H
#define DLCA_TRAIN_EPOCH_H

#include "model/model_impl.h"

/* The key of epoch e's start grids and fire masks (doc/rng.md). */
uint64_t dlca__epoch_key(uint64_t seed, uint64_t epoch);
/* Epoch e's start grids on the host, as the device draws them: batch x
 * height x width x channels floats of c into x (input: the uploaded grids of
 * DLCA_START_UPLOAD, or NULL). */
void dlca__start_grids(const dlca_train_config *c, int channels, const float *input, uint64_t epoch, float *x);
/* The run (sizes, masks, loss channels) of one epoch; masks: explicit fire
 * masks or NULL. */
dlca_run dlca__epoch_run(const dlca_train_config *c, const uint8_t *masks, uint64_t epoch);
/* Loss, errors and accuracy of a hard state against the target. */
void dlca__hard_eval(const dlca_train_config *c, int channels, const float *target, const float *state,
                     dlca_eval *out);
/* What a hard evaluation counts, one d = state - target at a time (in the
 * order batch, cells, loss channels, so that every engine sums the same
 * doubles): d^2 into the loss, and a value wrong where |d| >= 0.5. Start
 * from a zeroed dlca_eval; _end sets the total and the accuracy. Shared by
 * dlca__hard_eval and the packed bits (lib/ref/bits.c). */
static inline void dlca__eval_add(dlca_eval *e, double d) {
  e->hard_loss += d * d;
  e->errors += d >= 0.5 || d <= -0.5;
}
static inline void dlca__eval_end(dlca_eval *e, size_t total) {
  e->total = total;
  e->accuracy = 1.0 - (double)e->errors / (double)total;
}

/* Issue 6 relaxations (lib/train/relax.c; twins in kernels-cl/trainer.cl).
 * RNG streams of doc/rng.md: the Gumbel (IWP: logistic) draw of logit j in epoch e is
 * dlca_rng_u32(epoch key, DLCA_STREAM_GUMBEL, j) >> 16, an index into the
 * table; gradient noise uses counters 2j and 2j + 1 of DLCA_STREAM_GRAD_NOISE. */
#define DLCA_GUMBEL_LEVELS 65536
#define DLCA_STREAM_GUMBEL 0xFFFFFF00u
#define DLCA_STREAM_GRAD_NOISE 0xFFFFFF01u
int dlca__relax_validate(const dlca_relax *r);
float dlca__relax_inv_tau(const dlca_relax *r);
/* The noise table of a parametrisation: Gumbel quantiles (softmax-16) or
 * logistic ones (IWP), times scale. */
int dlca__gumbel_table(dlca_parametrisation par, float scale, float **out);
void dlca__noisy_logits(const float *params, size_t n, const float *table, uint64_t key, float *z);
/* sigma of the noise at AdamW step t >= 1, and the standard normal draw j */
float dlca__grad_noise_sigma(float eta, uint64_t step);
float dlca__grad_noise(uint64_t key, uint32_t j);

#endif
