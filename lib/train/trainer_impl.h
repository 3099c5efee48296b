/* The trainer's back-end interface: the trainer object and the ops that each
 * back end (lib/ref/ref_trainer.c, lib/cl/trainer/) fills. It names no back
 * end; lib/train/trainer.c picks one. Layering: train/epoch.h. */
#ifndef DLCA_TRAIN_TRAINER_IMPL_H
#define DLCA_TRAIN_TRAINER_IMPL_H

#include "train/epoch.h"

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
  /* The optimizer's state: t->n_slots slots of P floats each, slot-major,
   * in the model's order (s may be NULL when n_slots is 0). */
  int (*get_slots)(dlca_trainer *t, float *s);
  int (*set_slots)(dlca_trainer *t, const float *s);
} dlca_trainer_ops;

struct dlca_trainer {
  const dlca_trainer_ops *ops;
  dlca_context *ctx;       /* NULL for the CPU reference */
  dlca_model *model;       /* the trainer's own copy: shape and wires */
  dlca_train_config cfg;
  size_t n_slots;          /* the optimizer's state slots (dlca__train_slots) */
  uint64_t epoch;          /* epochs done; the next step is this epoch */
  size_t grid;             /* floats in one batch of grids: B*H*W*C */
  float *target;           /* [B][H][W][C], NULL until set */
  float *input;            /* [B][H][W][C], uploaded start grids or NULL */
  uint8_t *masks;          /* explicit fire masks [T][B][H][W] or NULL */
  int stepped;             /* a step has run: loss, grad and soft state exist */
  int evaluated;           /* eval_hard has run: hard state exists */
  void *impl;
  /* A trainer of a population's group (lib/cl/trainer/group.c): its
   * buffers are slot `slot` of the group's, and the group launches every
   * slot's epoch at once. NULL: a trainer of its own. */
  struct dlca__clt_group *group;
  int slot;
};

/* dlca_trainer_new for slot `slot` of an OpenCL trainer group (ctx its
 * context); group NULL is dlca_trainer_new. */
int dlca__trainer_new_in(dlca_context *ctx, const dlca_model *m, const dlca_train_config *cfg,
                         struct dlca__clt_group *group, int slot, dlca_trainer **out);

/* ---- optim.c: the trainer's optimizer (issue 32) ---- */
/* Checks the optimizer part of a configuration (the clip, the lr, and
 * AdamW's or the suite's hyperparameters), naming the first bad value. */
int dlca__train_optim_check(const dlca_train_config *c);
/* The state slots the configuration's optimizer keeps per logit. */
size_t dlca__train_slots(const dlca_train_config *c);
/* The suite's configuration with the trainer's lr (use_suite). */
dlca_optim_config dlca__train_suite(const dlca_train_config *c);
/* The optimizer's name: "adamw" for the default, else the suite kind's. */
const char *dlca__train_optim_name(const dlca_train_config *c);
/* What slot `slot` holds ("Adam second moment"), and whether its values
 * are never negative (*nonneg). */
const char *dlca__train_slot_name(const dlca_train_config *c, size_t slot, int *nonneg);
/* The value every float of slot `slot` starts from (Adagrad's
 * initial_accumulator_value; 0 otherwise). */
float dlca__train_slot_init(const dlca_train_config *c, size_t slot);

#endif
