/* dlca-train's command line: the options, their parsing, and --help. */
#ifndef DLCA_TOOLS_TRAIN_OPTIONS_H
#define DLCA_TOOLS_TRAIN_OPTIONS_H

#include <stdint.h>
#include "dlca_cl.h"

#define TRAIN_PROG "dlca-train"
#define TRAIN_INTERRUPT_CKPT "dlca-train-interrupted.ckpt"
#define TRAIN_MAX_ABANDON DLCA_LOOP_MAX_ABANDON /* --abandon checkpoints */

typedef struct train_options {
  const char *preset;
  const char *device;            /* --device SPEC, for dlca_context_new() */
  int backend_ref;               /* --backend ref: the CPU reference (ctx == NULL) */
  long epochs, batch, steps;     /* -1: the preset's */
  double lr;                     /* 0: the preset's */
  uint64_t seed;
  const char *log, *save, *checkpoint, *resume, *model, *target;
  long eval_every, checkpoint_every;
  int quiet, help, version;
  /* Issue 6: schedules and the end of a run. The defaults (all zero, constant
   * lr) are the reference protocol: the same CSV and losses as before. */
  int lr_schedule;               /* TRAIN_LR_* */
  int lr_schedule_given;         /* --lr-schedule was on the command line */
  int eval_every_given;          /* --eval-every was on the command line */
  long warmup;                   /* epochs of linear warm-up; -1: the schedule's default */
  double min_lr;                 /* floor of cosine and cooldown (0) */
  double cooldown_factor;        /* cooldown: lr *= this (0.1) */
  long plateau;                  /* cooldown: epochs without a lower soft loss (100) */
  long max_cooldowns;            /* cooldown: at most this many (2) */
  long early_stop;               /* stop after this many consecutive hard-loss-0 evaluations; 0: never */
  int keep_best;                 /* --save the parameters of the lowest hard loss */
  long eval_fresh;               /* batches of the final fresh evaluation; 0: none */
  long restarts;                 /* train again with the next seed while the fresh check fails, this often */
  long eval_scale;               /* checkerboards: also on an N-times larger grid for N times the steps; 0: no */
  long repair;                   /* at most N passes of greedy repair of the saved hard circuit; 0: none; -1: the recipe's */
  long evolve;                   /* generations of (1 + lambda) evolution after the repair; 0: none, -1: the recipe's */
  double rescale_logits;         /* --model's logits times this before training; 0: unchanged */
  long repair_max_wrong;         /* repair only a circuit with at most this many values wrong; -1: any */
  int repair_max_wrong_given;    /* --repair-max-wrong was on the command line */
  long evolve_max_wrong;         /* evolve only a circuit with at most this many values wrong; -1: any */
  int evolve_max_wrong_given;    /* --evolve-max-wrong was on the command line */
  long evolve_lineages;          /* lineages evolving side by side (default 64) */
  long evolve_lambda;            /* offspring per lineage and generation (default 4) */
  long evolve_changes;           /* at most this many gates changed per offspring (default 3) */
  long restart_from;             /* --restarts: the first run's k (seed + 1000 k); 0: the seed itself */
  long jobs;                     /* --restarts: runs of the chain at once, in child processes (1) */
  long population;               /* --population M: M models side by side on one device; 0: one run */
  int population_default;        /* population is the recipe's, not asked for: fewer where fewer fit */
  int population_given;          /* --population was given (0 too: a single run planned as a population's model) */
  long max_models;               /* --population: models started in all at most; 0: 128 M */
  int compiled_wires;            /* --population: a program build per seed, the wires compiled in */
  int measure;                   /* --population --measure: M single runs to their ends, the success rate */
  const char *runs;              /* --population: one CSV row per model done */
  double lr_jitter, temperature_jitter, gumbel_jitter; /* --population: each model's own, exp(U(-j, j)) times */
  const char *pbt;               /* --pbt EVERY:FRACTION, population-based training */
  long pbt_every;                /* its parts; 0: none */
  double pbt_fraction;
  /* --abandon E:W[,E:W...]: at the first evaluation at or after epoch E,
   * stop the run if its lowest hard loss so far is above W */
  int n_abandon;                 /* checkpoints given; 0: never abandon */
  long abandon_epoch[TRAIN_MAX_ABANDON];
  double abandon_above[TRAIN_MAX_ABANDON];
  int reference_protocol;        /* --reference-protocol */
  /* Issue 6 relaxations (dlca_relax). temperature and gumbel are -1 when
   * not given: the preset's recipe (dlca_recipe_for) or the reference. */
  double temperature, gumbel, grad_noise;
  int straight_through;
  int recipe;                    /* TRAIN_RECIPE_* */
  /* Issue 6: the gate parametrisation of a fresh model (a --model file
   * brings its own). param is -1 when not given: softmax-16, or the file's. */
  int param;                     /* -1, DLCA_PARAM_SOFTMAX16 or DLCA_PARAM_IWP */
  double iwp_init;               /* --iwp-init Z; 0: DLCA_IWP_INIT_DEFAULT */
  /* Issue 32: the optimizer (-1: the default AdamW, optax's form) and its
   * hyperparameters (NAN or 0 when not given: the optimizer's default), and
   * a chain of torch's lr schedules (--lr-schedule KIND[...], TRAIN_LR_CHAIN). */
  int optimizer;                 /* -1 or dlca_optim_kind */
  double momentum, dampening, beta1, beta2, eps, weight_decay, alpha, lr_decay, initial_accumulator, clip;
  int nesterov, amsgrad, centered;
  const char *lr_chain;
} train_options;

/* --recipe: the preset's default (recommended where measured), or forced. */
enum { TRAIN_RECIPE_DEFAULT, TRAIN_RECIPE_REFERENCE, TRAIN_RECIPE_RECOMMENDED };

/* The library's dlca_lr_schedule, by value. */
enum { TRAIN_LR_CONSTANT, TRAIN_LR_COSINE, TRAIN_LR_WARMUP_COSINE, TRAIN_LR_COOLDOWN, TRAIN_LR_CHAIN };

/* The hyperparameter options: the option, the dlca_optim_config field it
 * sets, and where its value is in train_options (a double, or an int flag). */
typedef struct train_hyper {
  const char *option, *field;
  size_t off;
  int flag;
} train_hyper;
extern const train_hyper train_hypers[];
extern const size_t train_n_hypers;

/* Fills o from argv. Returns 0, or an exit code (2) after printing one
 * line on stderr. --help and --version only set their flags. */
int train_options_parse(int argc, char **argv, train_options *o);
void train_options_help(void);

/* Parses an --abandon list ("E:W[,E:W...]") into o->n_abandon and its
 * arrays. Returns 0, or 1 after printing why on stderr. */
int train_parse_abandon(const char *arg, train_options *o);

#endif
