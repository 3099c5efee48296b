/* The trainer's backend interface. lib/train/trainer.c holds what every
 * backend shares (configuration, epoch keys, targets, checkpoints); each
 * backend (lib/ref/ref_trainer.c, lib/cl/cl_trainer.c) fills the ops. */
#ifndef DLCA_TRAIN_TRAINER_IMPL_H
#define DLCA_TRAIN_TRAINER_IMPL_H

#include "model/model_impl.h"

typedef struct dlca_trainer_ops {
  const char *name;
  int (*init)(dlca_trainer *t);
  void (*destroy)(dlca_trainer *t);
  /* Uploads what the common part holds on the host (t->target, t->input, t->masks). */
  int (*sync_target)(dlca_trainer *t);
  int (*sync_input)(dlca_trainer *t);
  int (*sync_masks)(dlca_trainer *t);
  int (*step)(dlca_trainer *t);                      /* epoch t->epoch, then the caller increments it */
  int (*loss)(dlca_trainer *t, double *soft_loss);
  int (*eval_hard)(dlca_trainer *t, dlca_eval *out); /* on epoch t->epoch's start grids */
  int (*get_params)(dlca_trainer *t, float *p);
  int (*set_params)(dlca_trainer *t, const float *p);
  int (*get_grad)(dlca_trainer *t, float *g);
  int (*get_state)(dlca_trainer *t, int hard, float *s);
  int (*get_moments)(dlca_trainer *t, float *m, float *v);
  int (*set_moments)(dlca_trainer *t, const float *m, const float *v);
} dlca_trainer_ops;

struct dlca_trainer {
  const dlca_trainer_ops *ops;
  dlca_context *ctx;       /* NULL for the CPU reference */
  dlca_model *model;       /* the trainer's own copy: shape and wires */
  dlca_train_config cfg;
  uint64_t epoch;          /* epochs done; the next step is this epoch */
  size_t grid;             /* floats in one batch of grids: B*H*W*C */
  float *target;           /* [B][H][W][C], NULL until set */
  float *input;            /* [B][H][W][C], uploaded start grids or NULL */
  uint8_t *masks;          /* explicit fire masks [T][B][H][W] or NULL */
  int stepped;             /* a step has run: loss, grad and soft state exist */
  int evaluated;           /* eval_hard has run: hard state exists */
  void *impl;
};

extern const dlca_trainer_ops dlca__ref_trainer_ops;
extern const dlca_trainer_ops dlca__cl_trainer_ops;

/* Device bytes the OpenCL trainer allocates for this model and configuration. */
size_t dlca__cl_trainer_footprint(const dlca_model *m, const dlca_train_config *cfg);
/* The work-group size an OpenCL trainer's kernels were built for (WG or
 * WG_NARROW, lib/cl/cl_trainer.c); 0 for the CPU reference. For tests. */
int dlca__cl_trainer_wg(const dlca_trainer *t);
int dlca__cl_trainer_psplit(const dlca_trainer *t);
int dlca__cl_trainer_push(const dlca_trainer *t);
int dlca__cl_trainer_banks(const dlca_trainer *t);
/* Cells per unit of dlca_backward_perc under the split (PERC_SPLIT_UNIT_CELLS), else 0. For tests. */
int dlca__cl_trainer_perc_unit(const dlca_trainer *t);
/* Under PSPLIT: dlca_backward's work-groups, and dlca_backward_perc's
 * (PERC_GROUPS_PER_CU); 0 otherwise. */
int dlca__cl_trainer_groups(const dlca_trainer *t, int *nwg_perc);
/* 1 when the OpenCL trainer runs its backward pass in one launch (BWD_PERSIST), else 0 */
int dlca__cl_trainer_persist(const dlca_trainer *t);

/* The key of epoch e's start grids and fire masks (doc/rng.md). */
uint64_t dlca__epoch_key(uint64_t seed, uint64_t epoch);
/* Epoch e's start grids on the host, as the device draws them. */
void dlca__start_grids(const dlca_trainer *t, uint64_t epoch, float *x);
/* The run (sizes, masks, loss channels) of one epoch. */
dlca_run dlca__trainer_run(const dlca_trainer *t, uint64_t epoch);
/* Loss, errors and accuracy of a hard state against the target. */
void dlca__hard_eval(const dlca_trainer *t, const float *state, dlca_eval *out);
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
