/* A JAX reference-vector case (shared/testdata/reference/README.md), read
 * into flat arrays. Internal to parity.c and the tests. */
#ifndef DLCA_TRAIN_VECTOR_H
#define DLCA_TRAIN_VECTOR_H

#include "model/model_impl.h"

typedef struct dlca_vector {
  char name[128];
  dlca_model *model;
  dlca_run run;          /* run.fire_masks points into masks */
  dlca_optim optim;
  int t;                 /* optimizer step number */
  uint8_t *masks;        /* [steps][batch][h][w], NULL for sync */
  float *input, *target; /* [batch][h][w][C] */
  double *soft_state, *hard_state, soft_loss, hard_loss; /* expected */
  double *grad, *params_after; /* flat, dlca_model_params() order */
} dlca_vector;

int dlca__vector_load(const char *path, dlca_vector *v);
void dlca__vector_free(dlca_vector *v);

#endif
