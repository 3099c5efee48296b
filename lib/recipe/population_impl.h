/* The population's state (dlca_cl/population.h), shared by population.c
 * (set-up, accessors) and population_step.c (the steps and the judging). */
#ifndef DLCA_RECIPE_POPULATION_IMPL_H
#define DLCA_RECIPE_POPULATION_IMPL_H

#include "dlca_cl/population.h"

typedef struct pop_model {
  dlca_loop *loop;
  uint64_t seed;
  dlca_population_state state;
} pop_model;

struct dlca_population {
  dlca_context *ctx;
  dlca_preset preset;
  dlca_model_shape shape;
  dlca_train_config cfg;
  dlca_loop_options lo;
  dlca_population_options po; /* seeds not kept */
  float *target;              /* non-gol: a copy of the caller's, or NULL for the preset's */
  int M;
  pop_model *models;
  uint64_t next_seed;
  int winner;                 /* -1: none yet */
  long started, finished, abandoned;
  uint64_t epochs_done;       /* epochs of models already replaced */
  uint64_t steps;
  /* OpenCL with shared_program: the trainer group that steps and evaluates
   * every model at once (lib/cl/trainer/group.c), and its per-step arrays
   * (trainers to step, to evaluate; losses, due flags, evaluations);
   * NULL: each model steps on its own (the CPU reference) */
  struct dlca__clt_group *group;
  dlca_trainer **ts, **es;
  double *soft;
  int *due;
  dlca_eval *evs;
};

/* Slot j: a fresh model of seed s and its run (the old one freed). */
int dlca__pop_start(dlca_population *P, int j, uint64_t s);

#endif
