/* Training: one API for the CPU reference (ctx == NULL) and any OpenCL
 * device. One step is one epoch of doc/semantics.md section 4. */
#ifndef DLCA_CL_TRAINER_H
#define DLCA_CL_TRAINER_H

#include "dlca_cl/ref.h"
#include "dlca_cl/cl.h"
#include "dlca_cl/optim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlca_trainer dlca_trainer;

/* Relaxations beyond the reference (issue 6; doc/training.md). All zero is
 * the reference protocol exactly. Noise is drawn per epoch from the
 * counter-based RNG (doc/rng.md), so every backend draws the same values.
 *  - temperature: p = softmax(z / temperature), z the (noisy) logits;
 *    0 means 1.
 *  - gumbel_scale: z = logits + gumbel_scale * G, G one Gumbel(0, 1) draw per
 *    logit per epoch, shared by every cell, step and sample of the epoch
 *    (quantised to 2^16 levels so that every device picks the same argmax).
 *  - straight_through: the forward pass (and the loss) use hard gates, the
 *    argmax of z; the backward pass takes the soft gradient through
 *    softmax(z / temperature) at the hard activations.
 *  - grad_noise: eta of annealed Gaussian gradient noise, added before
 *    clipping: g += N(0, eta / t^0.55) at AdamW step t (Neelakantan et al.
 *    2015). dlca_trainer_get_grad returns the gradient without it. */
typedef struct dlca_relax {
  float temperature;
  float gumbel_scale;
  int straight_through;
  float grad_noise;
} dlca_relax;

typedef struct dlca_train_config {
  int batch, height, width, steps;
  int async;
  float fire_rate;
  int n_loss_channels;
  int loss_channels[DLCA_MAX_LOSS_CHANNELS];
  dlca_start start;
  uint64_t seed;   /* start grids and fire masks of epoch e come from (seed, e) */
  dlca_optim optim;  /* the clip by value and the lr of every optimizer; AdamW's betas, eps, weight decay */
  dlca_relax relax;  /* all zero: the reference protocol */
  /* The optimizer (issue 32), after the gradient noise and the clip by value
   * (optim.clip), at the lr optim.lr. use_suite 0 (the default, as a zeroed
   * configuration has it): AdamW in optax's form with optim's betas, eps and
   * weight decay, the JAX reference's. use_suite 1: torch.optim's rule of
   * suite.kind (dlca_cl/optim.h: sgd, adam, adamw in torch's form, rmsprop,
   * adagrad) with suite's hyperparameters, checked by
   * dlca_optim_config_check; suite.lr is not used (the lr is optim.lr, which
   * dlca_trainer_set_lr and the schedules change). Its step t is epoch + 1.
   * The state, 0 to 3 floats a logit, lives on the trainer's device and goes
   * into checkpoints. */
  int use_suite;
  dlca_optim_config suite;
  /* 1: the device kernels read the perception wires from the wires buffer
   * instead of compiling them in, so that every seed of a shape shares one
   * program (a population builds once). The same losses bit for bit; the
   * stacks leave registers (slower steps on GPUs) and the tile kernels
   * (KERNELS 2, TILE_CELLS) are not used. The CPU reference ignores it. */
  int shared_program;
  /* 1: an OpenCL GPU plans the backward launches as for a population's
   * model (dlca_cl/population.h), whatever the population's size: cells
   * grouped as in a batch of POP_PLAN_MODELS models (trainer.cl), each
   * group's own gate sums. A population sets it, and so does
   * dlca_population_model_config: a single run with it gives a population
   * model's bits. Other devices and the CPU reference ignore it. */
  int population_plan;
} dlca_train_config;

/* The paper's protocol for a preset (batch, steps, lr, start, loss channels). */
DLCA_API void dlca_train_config_from_preset(const dlca_preset *p, dlca_train_config *out);

/* ctx == NULL trains on the CPU reference. The trainer copies the model. */
DLCA_API DLCA_WUR int dlca_trainer_new(dlca_context *ctx, const dlca_model *m,
                                       const dlca_train_config *cfg, dlca_trainer **out);
DLCA_API void dlca_trainer_free(dlca_trainer *t);
/* "ref" or "cl". */
DLCA_API const char *dlca_trainer_backend(const dlca_trainer *t);
/* The optimizer's state slots: floats it keeps per logit (default AdamW 2;
 * with use_suite dlca_optim_state_slots' count for suite). */
DLCA_API size_t dlca_trainer_state_slots(const dlca_trainer *t);
/* Slot `slot` of the optimizer's state, n_params floats in
 * dlca_model_params() order (default AdamW: 0 m, 1 v; the suite's slot order
 * otherwise). */
DLCA_API DLCA_WUR int dlca_trainer_get_state_slot(dlca_trainer *t, size_t slot, float *out);

/* The bytes a trainer of this model and configuration needs on its device. */
DLCA_API DLCA_WUR int dlca_trainer_estimate_memory(const dlca_model *m,
                                                   const dlca_train_config *cfg,
                                                   size_t *bytes);

/* The target: [height][width][channels] for every sample (per_sample == 0) or
 * [batch][height][width][channels] (per_sample == 1). Required before a step. */
DLCA_API DLCA_WUR int dlca_trainer_set_target(dlca_trainer *t, const float *y, int per_sample);
/* Start grids [batch][height][width][channels] for DLCA_START_UPLOAD. */
DLCA_API DLCA_WUR int dlca_trainer_set_input(dlca_trainer *t, const float *x);
/* Explicit async fire masks [steps][batch][height][width] (parity), or NULL
 * to draw them from the seed. */
DLCA_API DLCA_WUR int dlca_trainer_set_fire_masks(dlca_trainer *t, const uint8_t *masks);

/* One epoch: start grids, T soft steps, loss, BPTT, clip, AdamW. */
DLCA_API DLCA_WUR int dlca_trainer_step(dlca_trainer *t);
/* The learning rate of the next steps. set_lr takes effect from the next
 * dlca_trainer_step() on either backend (schedules, cooldowns); it needs a
 * finite lr > 0. A checkpoint does not hold the learning rate. */
DLCA_API DLCA_WUR int dlca_trainer_set_lr(dlca_trainer *t, float lr);
DLCA_API float dlca_trainer_lr(const dlca_trainer *t);
/* The relaxation of the next steps (annealing a temperature, switching to
 * straight-through once the soft circuit works). Changing the temperature
 * or the gradient noise is free; changing straight_through or gumbel_scale
 * rebuilds the backend's kernels and buffers, keeping the logits, the Adam
 * moments, the epoch, the target and the start grids (the last step's loss,
 * gradient and states are then gone until the next step). A checkpoint does
 * not hold the relaxation. */
DLCA_API DLCA_WUR int dlca_trainer_set_relax(dlca_trainer *t, const dlca_relax *relax);
DLCA_API dlca_relax dlca_trainer_relax(const dlca_trainer *t);

/* The soft loss of the last step: the one blocking read of an OpenCL epoch.
 * DLCA_ECL when a one-launch backward pass (the tuned BWD_PERSIST of
 * trainer.cl) gave up waiting for work-groups that the device did not run
 * at once: that run's gradients are wrong (doc/kernels.md). */
DLCA_API DLCA_WUR int dlca_trainer_loss(dlca_trainer *t, double *soft_loss);

typedef struct dlca_eval {
  double hard_loss;  /* sum over batch, cells and loss channels of (s - y)^2 */
  double accuracy;   /* fraction of (sample, cell, loss channel) equal to the target */
  size_t errors, total;
} dlca_eval;

/* Runs the hard circuit with the current parameters from the start grids of
 * the current epoch (those the next step will use). */
DLCA_API DLCA_WUR int dlca_trainer_eval_hard(dlca_trainer *t, dlca_eval *out);

/* The hard circuit on n_batches batches of fresh start grids, none of them a
 * training epoch's: batch i draws its start grids (DLCA_START_RANDOM) and
 * async fire masks as epoch i of the seed (seed ^ DLCA_FRESH_SEED_XOR) would
 * (doc/rng.md), so the same seed gives the same batches on every backend. Explicit fire masks
 * (dlca_trainer_set_fire_masks) are not used. Losses, errors and totals are
 * summed over the batches. Where nothing is random (a synchronous run from
 * DLCA_START_SEED, _ZEROS or _UPLOAD) one batch is evaluated, whatever
 * n_batches. The trainer's epoch, seed, parameters, moments, loss and soft
 * state are unchanged; the hard state (dlca_trainer_get_state) is that of
 * the last batch. */
#define DLCA_FRESH_SEED_XOR 0x5EED0F4E5BA7C4E5ull
DLCA_API DLCA_WUR int dlca_trainer_eval_hard_fresh(dlca_trainer *t, uint64_t seed, int n_batches,
                                                   dlca_eval *out);

DLCA_API size_t dlca_trainer_n_params(const dlca_trainer *t);
DLCA_API DLCA_WUR int dlca_trainer_get_params(dlca_trainer *t, float *logits);
DLCA_API DLCA_WUR int dlca_trainer_set_params(dlca_trainer *t, const float *logits);
/* The unclipped gradient of the last step. */
DLCA_API DLCA_WUR int dlca_trainer_get_grad(dlca_trainer *t, float *grad);
/* The final state of the last soft step (hard = 0) or of the last hard
 * evaluation (hard = 1), [batch][height][width][channels]. */
DLCA_API DLCA_WUR int dlca_trainer_get_state(dlca_trainer *t, int hard, float *state);
/* Epochs done so far; the next step is epoch number dlca_trainer_epoch(). */
DLCA_API uint64_t dlca_trainer_epoch(const dlca_trainer *t);
/* Writes the current parameters into a model of the trainer's shape. */
DLCA_API DLCA_WUR int dlca_trainer_export_model(dlca_trainer *t, dlca_model **out);

/* Checkpoints (doc/checkpoint-format.md) hold the parameters, the
 * optimizer's state (the Adam moments by default), the epoch and the seed; a
 * resumed run continues bit for bit. A checkpoint loads only into a trainer
 * of the same optimizer kind and state slots. Saving is atomic. */
DLCA_API DLCA_WUR int dlca_trainer_save_checkpoint(dlca_trainer *t, const char *path);
DLCA_API DLCA_WUR int dlca_trainer_load_checkpoint(dlca_trainer *t, const char *path);

#ifdef __cplusplus
}
#endif
#endif
