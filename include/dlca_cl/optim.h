/* The optimizer suite (issue 32): torch.optim's SGD, Adam, AdamW, RMSprop and
 * Adagrad over many parameter tensors at once, gradient clipping, and the
 * learning-rate schedules, on host float arrays (the CPU twin of the device
 * kernels). The semantics are torch.optim's with foreach=False, exactly as
 * ../shared/testdata/ops/README.md pins them down.
 *
 * Precision: each element is updated in float32; the per-step scalars (bias
 * corrections, Adagrad's decayed lr) are computed in double and rounded once,
 * as a device kernel receives them. Everything is deterministic: no threads,
 * fixed summation order. */
#ifndef DLCA_CL_OPTIM_H
#define DLCA_CL_OPTIM_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl/core.h"
#include "dlca_cl/tensor.h" /* dlca_context, dlca_tensor: the device section */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Optimizers ------------------------------------------------------- */

typedef enum dlca_optim_kind {
  DLCA_OPTIM_SGD, DLCA_OPTIM_ADAM, DLCA_OPTIM_ADAMW, DLCA_OPTIM_RMSPROP, DLCA_OPTIM_ADAGRAD
} dlca_optim_kind;

/* The hyperparameters, with torch.optim's names and meanings. A field that
 * does not belong to `kind` must stay 0 (as dlca_optim_config_default leaves
 * it): dlca_optim_new refuses, for example, amsgrad with sgd by name.
 *   sgd:     lr, momentum, dampening, nesterov, weight_decay
 *   adam(w): lr, beta1, beta2 (torch's betas), eps, weight_decay, amsgrad
 *   rmsprop: lr, alpha, eps, weight_decay, momentum, centered
 *   adagrad: lr, lr_decay, weight_decay, eps, initial_accumulator_value
 * Allowed ranges: lr, eps, weight_decay, momentum, dampening, lr_decay and
 * initial_accumulator_value >= 0 and finite; beta1, beta2 in [0, 1); alpha in
 * [0, 1]; nesterov needs momentum > 0 and dampening 0. Adam's weight_decay is
 * L2 (added to the gradient), AdamW's is decoupled (param *= 1 - lr * wd). */
typedef struct dlca_optim_config {
  int kind; /* dlca_optim_kind */
  double lr, weight_decay, eps;
  double momentum, dampening;
  int nesterov;
  double beta1, beta2;
  int amsgrad;
  double alpha;
  int centered;
  double lr_decay, initial_accumulator_value;
} dlca_optim_config;

/* torch.optim's defaults for kind (sgd lr 1e-3; adam lr 1e-3, betas (0.9,
 * 0.999), eps 1e-8; adamw the same with weight_decay 0.01; rmsprop lr 1e-2,
 * alpha 0.99, eps 1e-8; adagrad lr 1e-2, eps 1e-10); every other field 0. */
DLCA_API DLCA_WUR int dlca_optim_config_default(int kind, dlca_optim_config *out);
/* The kind named "sgd", "adam", "adamw", "rmsprop" or "adagrad"; DLCA_EINVAL
 * (naming the choices) otherwise. dlca_optim_kind_name is the inverse. */
DLCA_API DLCA_WUR int dlca_optim_kind_from_name(const char *name, int *kind);
DLCA_API const char *dlca_optim_kind_name(int kind);
/* Sets the hyperparameter called `name` (the field names above; "nesterov",
 * "amsgrad" and "centered" take 0 or 1) to value. An unknown name, or one that
 * does not belong to cfg->kind, is DLCA_EINVAL naming both. Ranges are
 * checked by dlca_optim_config_check. */
DLCA_API DLCA_WUR int dlca_optim_config_set(dlca_optim_config *cfg, const char *name, double value);
/* DLCA_EINVAL with a message naming the first bad value and its allowed
 * range ("adam: beta2 = 1 is outside [0, 1)"); DLCA_OK otherwise. */
DLCA_API DLCA_WUR int dlca_optim_config_check(const dlca_optim_config *cfg);

/* An optimizer over n_tensors parameter tensors of sizes[i] floats. It owns
 * the state (momentum buffers, moments, the step count), laid out as a
 * device version holds it: state slot s of tensor i starts at float
 * s * total + offset_i, where total is the sum of sizes and offset_i the sum
 * of the sizes before i. Starts from zero state (torch's first step). */
typedef struct dlca_optimizer dlca_optimizer;
DLCA_API DLCA_WUR int dlca_optim_new(const dlca_optim_config *cfg, size_t n_tensors, const size_t *sizes,
                                     dlca_optimizer **out);
DLCA_API void dlca_optim_free(dlca_optimizer *o);

/* One step of torch's optimizer.step() over every tensor: params[i] is
 * updated in place from grads[i] (unchanged). A NaN or infinite gradient is
 * applied as torch applies it. */
DLCA_API DLCA_WUR int dlca_optim_step(dlca_optimizer *o, float *const *params, const float *const *grads);
/* The lr of the next steps (a schedule's value); refused when negative. */
DLCA_API DLCA_WUR int dlca_optim_set_lr(dlca_optimizer *o, double lr);
DLCA_API double dlca_optim_lr(const dlca_optimizer *o);
/* The number of steps taken (torch's state["step"]). */
DLCA_API uint64_t dlca_optim_steps(const dlca_optimizer *o);
/* The configuration (with the current lr). */
DLCA_API const dlca_optim_config *dlca_optim_get_config(const dlca_optimizer *o);

/* The number of state slots (floats per parameter) the configuration keeps:
 * sgd 1 with momentum, else 0; adam(w) 2, 3 with amsgrad; rmsprop 1, +1
 * centered, +1 with momentum; adagrad 1. Slot order is that list's order. */
DLCA_API size_t dlca_optim_state_slots(const dlca_optimizer *o);
/* The state slot as one flat array of total floats (see dlca_optim_new). */
DLCA_API float *dlca_optim_state_slot(dlca_optimizer *o, size_t slot);

/* Checkpoints. The state is a self-describing little-endian byte string:
 * magic "DLCAOPT1", the kind, the step count, the tensor sizes and the raw
 * float bits of every slot, so that a restored optimizer continues bit for
 * bit. dlca_optim_state_size gives its length; dlca_optim_state_save writes
 * it into buf (cap bytes, DLCA_EINVAL if too small); dlca_optim_state_load
 * restores it into an optimizer of the same kind, slots and tensor sizes
 * (DLCA_ECHECKPOINT naming the mismatch otherwise). The hyperparameters are
 * the caller's to store (they may change, as the lr does). */
DLCA_API size_t dlca_optim_state_size(const dlca_optimizer *o);
DLCA_API DLCA_WUR int dlca_optim_state_save(const dlca_optimizer *o, void *buf, size_t cap);
DLCA_API DLCA_WUR int dlca_optim_state_load(dlca_optimizer *o, const void *buf, size_t len);

/* ---- Clipping ---------------------------------------------------------- */

/* The global L2 norm over n tensors (torch.nn.utils.clip_grad_norm_'s
 * total_norm, norm_type 2): squares summed in double, pairwise within fixed
 * blocks of each tensor and in tensor order, so the result depends on the
 * data alone. */
DLCA_API DLCA_WUR int dlca_grad_norm(size_t n, const float *const *grads, const size_t *sizes, double *norm);
/* clip_grad_norm_: scales every gradient by min(1, max_norm / (norm + 1e-6))
 * (a float32 factor, as torch's) and returns the norm before clipping in
 * *norm (may be NULL). max_norm must be >= 0 and finite. */
DLCA_API DLCA_WUR int dlca_clip_grad_norm(size_t n, float *const *grads, const size_t *sizes, double max_norm,
                                          double *norm);
/* clip_grad_value_: clamps every gradient to [-clip, clip]; clip >= 0. */
DLCA_API DLCA_WUR int dlca_clip_grad_value(size_t n, float *const *grads, const size_t *sizes, double clip);

/* ---- Learning-rate schedules ------------------------------------------ */

typedef enum dlca_lrs_kind {
  DLCA_LRS_CONSTANT, DLCA_LRS_STEP, DLCA_LRS_EXPONENTIAL, DLCA_LRS_COSINE, DLCA_LRS_ONECYCLE,
  DLCA_LRS_LINEAR
} dlca_lrs_kind;

/* One schedule: the lr that torch.optim.lr_scheduler gives at step t (t = 0
 * before the first scheduler.step()), in closed form, so that the lr of any
 * step is known ahead without a host round trip:
 *   constant:    base_lr
 *   step:        StepLR, base_lr * gamma^floor(t / step_size)
 *   exponential: ExponentialLR, base_lr * gamma^t
 *   cosine:      CosineAnnealingLR, eta_min + (base_lr - eta_min)(1 + cos(pi t / t_max)) / 2
 *                (past t_max it rises again, as torch's does)
 *   onecycle:    OneCycleLR (anneal cos, two phases, no momentum cycling):
 *                max_lr / div_factor up to max_lr at step pct_start * total_steps - 1,
 *                then down to max_lr / div_factor / final_div_factor at total_steps - 1;
 *                base_lr is not used (torch's OneCycleLR ignores it too);
 *                t >= total_steps is refused, as torch refuses it
 *   linear:      LinearLR, base_lr * (start_factor + (end_factor - start_factor)
 *                * min(t, total_iters) / total_iters) (linear warm-up)
 * Fields that do not belong to kind are ignored. */
typedef struct dlca_lr_spec {
  int kind; /* dlca_lrs_kind */
  double base_lr;
  double gamma;          /* step, exponential */
  uint64_t step_size;    /* step */
  uint64_t t_max;        /* cosine (torch's T_max) */
  double eta_min;        /* cosine */
  double max_lr, pct_start, div_factor, final_div_factor; /* onecycle */
  uint64_t total_steps;  /* onecycle */
  double start_factor, end_factor; /* linear */
  uint64_t total_iters;  /* linear */
} dlca_lr_spec;

/* torch's defaults for kind (step gamma 0.1; onecycle pct_start 0.3,
 * div_factor 25, final_div_factor 1e4; linear start_factor 1/3, end_factor
 * 1, total_iters 5), base_lr as given; sizes (step_size, t_max, total_steps)
 * are 0 and must be set. */
DLCA_API DLCA_WUR int dlca_lr_spec_default(int kind, double base_lr, dlca_lr_spec *out);
/* "constant", "step", "exponential", "cosine", "onecycle", "linear" (also
 * "linear_warmup"), and the inverse. */
DLCA_API DLCA_WUR int dlca_lrs_kind_from_name(const char *name, int *kind);
DLCA_API const char *dlca_lrs_kind_name(int kind);
/* Sets a field by torch's argument name: base_lr, gamma, step_size, T_max,
 * eta_min, max_lr, pct_start, div_factor, final_div_factor, total_steps,
 * start_factor, end_factor, total_iters. DLCA_EINVAL for an unknown name. */
DLCA_API DLCA_WUR int dlca_lr_spec_set(dlca_lr_spec *s, const char *name, double value);
/* DLCA_EINVAL naming the first bad value and its allowed range. */
DLCA_API DLCA_WUR int dlca_lr_spec_check(const dlca_lr_spec *s);
/* The lr at step t. */
DLCA_API DLCA_WUR int dlca_lr_at(const dlca_lr_spec *s, uint64_t t, double *lr);

/* A chain, like torch's SequentialLR: parts[0] runs from step 0, parts[i]
 * from step milestones[i - 1] on, seeing its own step t - milestones[i - 1]
 * (n parts, n - 1 increasing milestones). Each part has its own base_lr;
 * a warm-up then cosine is {linear 0.1 -> 1 over W steps, cosine}, milestone W. */
DLCA_API DLCA_WUR int dlca_lr_chain_at(size_t n, const dlca_lr_spec *parts, const uint64_t *milestones,
                                       uint64_t t, double *lr);
/* The lr of steps first .. first + count - 1 into out, for a device step that
 * reads its lr from a buffer. */
DLCA_API DLCA_WUR int dlca_lr_chain_fill(size_t n, const dlca_lr_spec *parts, const uint64_t *milestones,
                                         uint64_t first, size_t count, float *out);

/* ---- The optimizer on the device -------------------------------------- */

/* The same optimizer with its state on an OpenCL device (kernels-cl/optim/):
 * the rules of dlca_optim_step in the same float32 order, so that a device
 * step gives the CPU twin's bits (device division and sqrt correctly
 * rounded), and the same state byte format: dlca_optim_cl_state_save's bytes
 * are dlca_optim_state_save's for the same state and load into either.
 * Everything enqueues on the context's in-order queue and never blocks,
 * except last_norm and the state functions. The step's scalars (the lr, the
 * bias corrections) are computed on the host, which counts the steps, and
 * passed as kernel arguments: no host round trip a step. */
typedef struct dlca_optim_cl dlca_optim_cl;
/* An optimizer over the n tensors params (their sizes; every later step
 * takes tensors of the same sizes), from zero state. DLCA_EINVAL for a bad
 * configuration (dlca_optim_config_check's message) or a tensor of another
 * context. */
DLCA_API DLCA_WUR int dlca_optim_cl_new(dlca_context *ctx, const dlca_optim_config *cfg, size_t n,
                                        dlca_tensor *const *params, dlca_optim_cl **out);
DLCA_API void dlca_optim_cl_free(dlca_optim_cl *o);
/* One step over all n tensors; enqueues only. params and grads each the
 * members of one tensor group, in the same layout: one launch for the whole
 * model; otherwise one launch per 8 tensors. */
DLCA_API DLCA_WUR int dlca_optim_cl_step(dlca_optim_cl *o, dlca_tensor *const *params,
                                         const dlca_tensor *const *grads);
DLCA_API DLCA_WUR int dlca_optim_cl_set_lr(dlca_optim_cl *o, double lr);
DLCA_API uint64_t dlca_optim_cl_steps(const dlca_optim_cl *o);
/* clip_grad_norm_ over the n grads, before the next step: a deterministic
 * two-pass norm (double sums where the device has them), the scale applied
 * in place on the device; enqueues only. dlca_optim_cl_last_norm waits and
 * reads that norm (before clipping) back. */
DLCA_API DLCA_WUR int dlca_optim_cl_clip_grad_norm(dlca_optim_cl *o, dlca_tensor *const *grads, double max_norm);
DLCA_API DLCA_WUR int dlca_optim_cl_last_norm(dlca_optim_cl *o, double *norm);
/* clip_grad_value_: clamps the n grads to [-clip, clip]; enqueues only. */
DLCA_API DLCA_WUR int dlca_optim_cl_clip_grad_value(dlca_optim_cl *o, dlca_tensor *const *grads, double clip);
/* Checkpoints in dlca_optim_state_save's format (these wait for the queue). */
DLCA_API size_t dlca_optim_cl_state_size(const dlca_optim_cl *o);
DLCA_API DLCA_WUR int dlca_optim_cl_state_save(dlca_optim_cl *o, void *buf, size_t cap);
DLCA_API DLCA_WUR int dlca_optim_cl_state_load(dlca_optim_cl *o, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
