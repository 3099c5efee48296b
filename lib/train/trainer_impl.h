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

#endif
