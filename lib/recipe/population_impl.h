/* The population's state (dlca_cl/population.h), shared by population.c
 * (set-up, accessors) and population_step.c (the steps and the judging). */
#ifndef DLCA_RECIPE_POPULATION_IMPL_H
#define DLCA_RECIPE_POPULATION_IMPL_H

#include "dlca_cl/population.h"

#include <pthread.h>

typedef struct pop_job pop_job; /* population_repair.c */

typedef struct pop_model {
  dlca_loop *loop;
  uint64_t seed;
  dlca_train_config cfg;      /* its own: dlca_population_model_config's, or a copy's */
  dlca_population_lineage lineage;
  pop_job *job;               /* DLCA_POP_POLISHING: its repair or evolution */
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
  long pbt_copies;            /* population-based training's copies */
  pthread_mutex_t polish_lock;
  int polishing;              /* repair threads running (0 or 1) */
  /* OpenCL with shared_program: the trainer group that steps and evaluates
   * every model at once (lib/cl/trainer/group.c), and its per-step arrays
   * (trainers to step, to evaluate; losses, due flags, evaluations);
   * NULL: each model steps on its own (the CPU reference) */
  struct dlca__clt_group *group;
  dlca_trainer **ts, **es;
  double *soft;
  int *due;
  dlca_eval *evs;
  int *order;                 /* scratch: slots in judging order */
};

/* population_step.c: how promising model j is, lower first: the lowest
 * hard loss it reached (its kept circuit's with keep-best; INFINITY once
 * diverged). The order of judging and of the repairs. */
double dlca__pop_promise(const dlca_population *P, int j);
/* population_hyper.c: the jitters are in [0, 20]. */
int dlca__pop_check_jitter(const dlca_population_options *po);
/* population_pbt.c: pbt_every >= 0, pbt_fraction in [0, 0.5]; after a
 * step's judging, the worst take copies of the best where due. */
int dlca__pop_check_pbt(const dlca_population_options *po);
int dlca__pop_pbt(dlca_population *P);
/* population_repair.c: a model that is done, finished and judged, or
 * DLCA_POP_POLISHING while its repair runs on a host thread; _reap joins
 * the searches that ended (wait: all of them) and judges them, in slot
 * order, and starts the next; _drop joins and forgets them all. */
int dlca__pop_judge(dlca_population *P, int j);
int dlca__pop_reap(dlca_population *P, int wait);
void dlca__pop_drop(dlca_population *P);
/* Slot j: a fresh model of seed s and its run (the old one freed). */
int dlca__pop_start(dlca_population *P, int j, uint64_t s);

#endif
