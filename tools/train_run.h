/* dlca-train's state, shared by its files: dlca-train.c (one run over the
 * library's training loop), train_report.c (what it prints) and
 * train_chain.c (--restarts and --jobs). */
#ifndef DLCA_TOOLS_TRAIN_RUN_H
#define DLCA_TOOLS_TRAIN_RUN_H

#include <signal.h>
#include <stdint.h>
#include "dlca_cl.h"
#include "csvlog.h"
#include "gates.h"
#include "progress.h"
#include "train_options.h"

/* --eval-scale: fresh grids of the larger size */
#define EVAL_SCALE_GRIDS 8

/* Set by SIGINT/SIGTERM; the loop checks it between epochs, because a
 * checkpoint can only be taken between steps. */
extern volatile sig_atomic_t train_stop_signal;
/* Catches SIGINT and SIGTERM into train_stop_signal; the second one quits. */
void train_catch_signals(void);

/* Everything a run holds, so that one cleanup path frees it all. */
typedef struct run {
  train_options opt;
  dlca_preset preset;
  dlca_train_config cfg;
  dlca_loop_options lo;       /* the library's loop, from opt and the recipe */
  dlca_model *model;
  dlca_context *ctx;
  dlca_loop *loop;
  dlca_trainer *t;            /* the loop's trainer */
  float *target;              /* non-gol: [H][W][C] */
  const dlca_recipe *recipe;  /* the preset's recommended recipe in use, or NULL */
  int tick_kind;              /* --repair/--evolve progress: the search shown, */
  double tick_t0;             /* the pass's start, */
  size_t tick_last;           /* the count at the last tick, */
  int tick_tenth;             /* and the last tenth shown */
  char device[512];
  int fresh_ok;               /* the last run's circuit was right on every fresh grid */
  uint64_t abandoned_at;      /* the last run was abandoned (--abandon) at this epoch; 0: it was not */
  csvlog log;
  progress prog;
  progress *shown;            /* the progress line on screen, ended before any message */
  double t_start;
  /* --jobs: the chain's --save and --log, which the summary names; the run
   * itself writes PATH.runK, which becomes PATH if it ends the chain */
  const char *save_shown, *log_shown;
} run;

/* What a run did, beside the loop's own result. */
typedef struct outcome {
  dlca_loop_result w;
  double train_s;
  int interrupted;         /* a signal cut the run short (not one during its last epoch) */
  int have_gates;          /* the saved model's circuit */
  gate_summary gates;
  int have_scale;          /* --eval-scale ran: values wrong at its last step, of scale_total */
  size_t scale_errors, scale_total;
} outcome;

/* One line, "dlca-train: <what>: <the library's message>"; returns code. */
int train_fail(run *r, int code, int status, const char *fmt, ...);
/* The model's parametrisation (--param, or the --model file's). */
int train_model_param(const run *r);
/* The library's events: cooldowns, --repair and --evolve progress. */
int train_on_event(void *user, const dlca_loop_event *ev);
void train_print_summary(const run *r, const outcome *w);

/* --eval-scale of model m, its grids drawn from seed, into w (have_scale,
 * scale_errors, scale_total); 0, or CLI_FAIL after printing why. */
int train_eval_scale(run *r, const dlca_model *m, uint64_t seed, outcome *w);

/* One run of the chain: sets up, trains, finishes; run_free() after. */
int train_run_main(run *r);
void train_run_free(run *r);
/* --population M (train_population.c), after train_run_main's set-up. */
int train_population(run *r);
/* The chain of --restarts, one by one or with --jobs. */
int train_chain(run *r);

#endif
