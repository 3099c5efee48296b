/* dlca-train --population: every model done, as a row (--runs FILE.csv),
 * and --measure's success rate over them (train_measure.c). */
#ifndef DLCA_TOOLS_TRAIN_MEASURE_H
#define DLCA_TOOLS_TRAIN_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include "train_run.h"

typedef struct pop_done {
  uint64_t seed, epoch;       /* the model's seed, the epoch it ended at */
  const char *how;            /* right, wrong, abandoned, diverged */
  int right;                  /* by the single run's criterion: fresh grids, and --eval-scale */
  double hard_loss;           /* of the circuit it ends with (after keep-best, repair, evolution) */
  size_t hard_errors;
  int have_fresh, have_scale;
  size_t fresh_errors, fresh_total, scale_errors, scale_total;
  double lr, temperature, gumbel; /* the model's own (dlca_population_model_config) */
  double seconds;             /* from the process's start to its judging */
  long copies;                /* --pbt's copies into it (0: the single run of its seed) */
  uint64_t origin_seed;       /* the seed of its wires */
} pop_done;

typedef struct pop_scale { /* --eval-scale of a slot's model, by pop_accept_scale */
  int have;
  size_t errors, total;
} pop_scale;

typedef struct pop_tally {
  run *r;
  pop_scale *scale;           /* [M] */
  pop_done *rows;
  size_t n, cap;
} pop_tally;

/* The tally of a population of M (0, or an exit code after saying why). */
int pop_tally_init(pop_tally *t, run *r, int M);
/* dlca_population_options.accept with user a pop_tally: a model right on
 * the fresh grids is right only if exact at --eval-scale too, as the
 * single run of its seed judges (finish() in dlca-train.c). */
int pop_accept_scale(void *user, dlca_population *P, int j, int *right);

/* Model j of P, just done, into t (its row). 0, or an exit code after
 * printing why. */
int pop_tally_add(run *r, pop_tally *t, dlca_population *P, int j);
/* --runs: the rows in seed order, written to FILE.tmp and renamed. */
int pop_tally_write(run *r, const pop_tally *t);
/* --measure's lines of the summary: the fraction right, the median epoch. */
void pop_tally_print(const run *r, const pop_tally *t, int interrupted);
void pop_tally_free(pop_tally *t);

#endif
