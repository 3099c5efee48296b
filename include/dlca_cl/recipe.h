/* The working recipe: the presets' targets, the recommended recipe per
 * preset, and the training loop around dlca_trainer_step (lr schedule,
 * cooldown, early stop, keep-best, abandoning, the repair of the hard
 * circuit, the check on fresh grids and restarts). dlca-train is a shell
 * over this; doc/training.md has the evidence behind each recipe. */
#ifndef DLCA_CL_RECIPE_H
#define DLCA_CL_RECIPE_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl/core.h"
#include "dlca_cl/model.h"
#include "dlca_cl/trainer.h"
#include "dlca_cl/bits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Targets and start grids (grids are float [height][width][channels]) ---- */

#define DLCA_GOL_BOARDS 512 /* every 3x3 board: bit k of the index is cell k */

/* Whether the preset trains on per-sample boards (gol) rather than one target. */
DLCA_API int dlca_preset_is_gol(const dlca_preset *p);
/* The one target of a non-gol preset for a model of `channels` channels,
 * malloc'd into *target (free() it). image_path: a PNG or PBM (P1/P4) of the
 * grid's size for growth and colour, NULL for the built-in image; it must be
 * NULL for the other presets. DLCA_EINVAL: the input does not fit the preset
 * (the message says why); DLCA_EIO or DLCA_EPARSE: the image (named);
 * DLCA_ENOMEM. */
DLCA_API DLCA_WUR int dlca_preset_target(const dlca_preset *p, int channels, const char *image_path,
                                         float **target);
/* The checkerboard of any grid size into y [H][W][C], which must be zeroed:
 * channel 0 of cell (r, q) is (r/2 + q/2) mod 2. */
DLCA_API void dlca_target_checkerboard(int H, int W, int C, float *y);
/* n random 0/1 values into x: bit 31 of dlca_rng_u32(seed, stream, i). */
DLCA_API void dlca_target_random_bits(float *x, size_t n, uint64_t seed, uint32_t stream);
/* gol: the training order of the 512 boards, drawn from seed. */
DLCA_API void dlca_gol_order(uint64_t seed, int order[DLCA_GOL_BOARDS]);
/* gol: epoch e's batch, boards order[(e*batch + i) mod 512], as start grids
 * x and targets y, each [batch][3][3][1]. */
DLCA_API void dlca_gol_batch(const int order[DLCA_GOL_BOARDS], uint64_t epoch, int batch, float *x, float *y);
/* gol: all 512 boards in index order and their successors, [512][3][3][1]. */
DLCA_API void dlca_gol_all(float *x, float *y);
/* One exact Life step of an H x W torus, x and y [H][W] (>= 0.5 is alive). */
DLCA_API void dlca_gol_step(int H, int W, const float *x, float *y);

/* ---- The recommended recipes ---- */

typedef struct dlca_recipe {
  const char *preset;
  float temperature, gumbel; /* the relaxation */
  int batch;                 /* 0: the preset's */
  long epochs;               /* at most; 0: the preset's */
  int cooldown;              /* lr schedule cooldown */
  long early_stop;           /* stop after K hard-loss-0 evaluations in a row; 0: none */
  int keep_best;             /* keep the logits of the lowest hard loss */
  int param;                 /* the parametrisation it was measured with (DLCA_PARAM_*) */
  long repair;               /* passes of greedy repair; 0: none */
  long eval_every;           /* a hard evaluation every N epochs; 0: the default (10) */
  long evolve;               /* generations of evolution; 0: none */
  long evolve_max_wrong;     /* evolve only at most K values wrong; -1: any */
  long repair_max_wrong;     /* repair only at most K values wrong; -1: any */
  const char *abandon;       /* "E:W[,E:W...]" in a chain of restarts; NULL: none */
  int population;            /* dlca-train's default on an OpenCL device: this many models side by
                              * side until one works (dlca_cl/population.h); 0: a single run */
} dlca_recipe;

/* The recommended recipe of a preset and parametrisation into *out, or
 * DLCA_EUNSUPPORTED where none was measured to beat the paper's protocol. */
DLCA_API DLCA_WUR int dlca_recipe_for(const char *preset, int param, const dlca_recipe **out);
/* Recipe i of the table, or NULL past its end. */
DLCA_API const dlca_recipe *dlca_recipe_at(size_t i);
/* The recipe in words ("batch 8, temperature 2, ...") or as dlca-train's
 * options ("--batch 8 --temperature 2 ..."), into buf. */
DLCA_API void dlca_recipe_describe(const dlca_recipe *q, int as_options, char *buf, size_t n);

/* ---- The training loop ---- */

typedef enum dlca_lr_schedule {
  DLCA_LR_CONSTANT, DLCA_LR_COSINE, DLCA_LR_WARMUP_COSINE, DLCA_LR_COOLDOWN,
  DLCA_LR_CHAIN /* torch's schedules in sequence (lr_parts, dlca_cl/optim.h) */
} dlca_lr_schedule;
/* The schedule's name ("cooldown"). */
DLCA_API const char *dlca_lr_schedule_name(int schedule);

#define DLCA_LOOP_MAX_ABANDON 8
#define DLCA_LOOP_MAX_LR_PARTS 8

typedef struct dlca_loop_options {
  long epochs;               /* train until this epoch */
  long eval_every;           /* a hard evaluation every N epochs and at the last (10) */
  int lr_schedule;           /* dlca_lr_schedule */
  long warmup;               /* epochs of linear warm-up; -1: the schedule's (warmup-cosine: epochs/20) */
  double min_lr;             /* floor of cosine and cooldown (0) */
  double cooldown_factor;    /* cooldown: lr *= this (0.1) */
  long plateau;              /* cooldown: epochs per window of the soft-loss plateau test (100) */
  long max_cooldowns;        /* (2) */
  long early_stop;           /* stop after K hard-loss-0 evaluations in a row; 0: never */
  int keep_best;             /* the logits of the lowest hard loss are the result */
  int keep_best_start;       /* with keep_best: the start is a candidate too (a trained model) */
  /* abandoning: at the first evaluation at or after epoch abandon_epoch[i],
   * stop when the lowest hard loss so far is above abandon_above[i] */
  int n_abandon;
  long abandon_epoch[DLCA_LOOP_MAX_ABANDON];
  double abandon_above[DLCA_LOOP_MAX_ABANDON];
  long repair, repair_max_wrong;  /* greedy repair passes (0: none); only at most K wrong (-1: any) */
  long evolve, evolve_max_wrong;  /* evolution generations (0: none); only at most K wrong (-1: any) */
  long evolve_lineages, evolve_lambda, evolve_changes; /* (64, 4, 3) */
  int search_needs_training;      /* bit 0: repair, bit 1: evolve only after at least one epoch ran */
  long eval_fresh;           /* batches of the final check on fresh grids; 0: none */
  uint64_t seed;             /* of the fresh grids and the evolution (the config's seed) */
  /* DLCA_LR_CHAIN (issue 32): the lr of epoch e (0-based) is
   * dlca_lr_chain_at(n_lr_parts, lr_parts, lr_milestones, e): part i from
   * epoch lr_milestones[i - 1] on. A part's base_lr or max_lr of 0 is the
   * trainer's lr; a t_max, total_steps or step_size of 0 is the epochs from
   * the part's start to o->epochs. */
  int n_lr_parts;
  dlca_lr_spec lr_parts[DLCA_LOOP_MAX_LR_PARTS];
  uint64_t lr_milestones[DLCA_LOOP_MAX_LR_PARTS - 1];
} dlca_loop_options;

/* The defaults above: the paper's protocol (constant lr, nothing else);
 * epochs is 0, to be set, or the preset's after dlca_recipe_apply(). */
DLCA_API void dlca_loop_options_default(dlca_loop_options *o);
/* Applies a recipe (NULL: none) to a preset's configuration and options:
 * batch, relaxation, epochs, schedule, stopping, keep-best, the searches and
 * (with_abandon: for a chain of restarts) the abandon points. An o->epochs
 * of 0 becomes the recipe's, else the preset's. */
DLCA_API DLCA_WUR int dlca_recipe_apply(const dlca_recipe *q, const dlca_preset *p, int with_abandon,
                                        dlca_train_config *cfg, dlca_loop_options *o);
/* Parses a chain of torch's schedules into o (lr_schedule DLCA_LR_CHAIN):
 * parts "KIND[@EPOCH][:NAME=VALUE...]" joined by ',', KIND one of
 * dlca_lrs_kind_from_name's, each part after the first starting at its
 * @EPOCH (increasing), NAME a dlca_lr_spec_set name: "linear:start_factor=
 * 0.1:total_iters=50,cosine@50:eta_min=0.001". DLCA_EINVAL naming the bad
 * part otherwise. */
DLCA_API DLCA_WUR int dlca_loop_parse_lr_chain(const char *text, dlca_loop_options *o);
/* Parses "E:W[,E:W...]" (epochs increasing, W >= 0) into o's abandon points. */
DLCA_API DLCA_WUR int dlca_loop_parse_abandon(const char *list, dlca_loop_options *o);

typedef struct dlca_loop dlca_loop;

/* What a greedy repair did (the circuit before and after). */
typedef struct dlca_repair_result {
  dlca_eval before, after;
  int passes;     /* passes run */
  int stopped;    /* the callback stopped it */
  size_t changed; /* gates whose hard op changed */
  size_t tried;   /* circuits scored */
} dlca_repair_result;

/* What an evolution did. */
typedef struct dlca_evolve_result {
  dlca_eval before, after;
  uint64_t generations, taken, improved;
  size_t scored;  /* circuits scored */
  size_t drift;   /* gates that differ from the circuit given */
  int stopped;
} dlca_evolve_result;

/* Where a run stands: dlca_loop_get_result(). */
typedef struct dlca_loop_result {
  uint64_t first, epoch;     /* epochs done at the start and now */
  double soft;               /* the last soft loss (NAN before a step) */
  int diverged;              /* the soft loss is no longer finite */
  int have_hard;
  dlca_eval hard;            /* the last hard evaluation, after hard_epoch */
  uint64_t hard_epoch;
  int evaluated;             /* the last dlca_loop_epoch() evaluated */
  int done;                  /* nothing more to train: the last epoch, early stop or abandoned */
  int scheduled;             /* the lr changes during the run */
  double base_lr;
  int cooldowns;
  int stopped_early, abandoned, abandon_index;
  uint64_t abandoned_epoch;
  double min_hard;           /* INFINITY before an evaluation */
  int have_best;
  double best_hard;
  uint64_t best_epoch;
  int have_repair, repair_bits, repair_skipped, have_evolve, evolve_skipped;
  size_t repair_wrong, evolve_wrong, evolve_reverted;
  dlca_repair_result repair;
  dlca_evolve_result evolve;
  double repair_s, evolve_s;  /* wall time of the repair and of the evolution */
  int have_fresh;
  dlca_eval fresh;
} dlca_loop_result;

/* What the run tells its caller while it works. */
typedef enum dlca_loop_event_kind { DLCA_LOOP_COOLDOWN, DLCA_LOOP_REPAIR, DLCA_LOOP_EVOLVE } dlca_loop_event_kind;
typedef struct dlca_loop_event {
  dlca_loop_event_kind kind;
  uint64_t epoch;            /* cooldown: after this epoch */
  const char *why;           /* cooldown: "hard loss 0" or "mean soft loss on a plateau" */
  double old_lr, new_lr;     /* cooldown */
  int cooldowns;             /* cooldown: this one's number */
  int pass;                  /* repair: the pass (0-based); evolve: -1 */
  size_t done, total;        /* repair: gates; evolve: generations */
  const dlca_eval *best;     /* repair, evolve: the best circuit so far */
} dlca_loop_event;
/* Returns nonzero to stop a repair or evolution with its best so far. */
typedef int (*dlca_loop_event_fn)(void *user, const dlca_loop_event *ev);

/* A run of the preset on ctx (NULL: the CPU reference) from model m (copied)
 * with cfg: the trainer, its target (NULL: the preset's built-in one, or
 * gol's boards) and the loop's options. A checkpoint may be loaded into
 * dlca_loop_trainer() before the first epoch. */
DLCA_API DLCA_WUR int dlca_loop_new(dlca_context *ctx, const dlca_preset *p, const dlca_model *m,
                                   const dlca_train_config *cfg, const float *target, const dlca_loop_options *o,
                                   dlca_loop **out);
DLCA_API void dlca_loop_free(dlca_loop *r);
DLCA_API void dlca_loop_set_events(dlca_loop *r, dlca_loop_event_fn fn, void *user);
/* The run's trainer (checkpoints, the lr, export). */
DLCA_API dlca_trainer *dlca_loop_trainer(dlca_loop *r);
/* One epoch: the schedule's lr, the step, the loss, the cooldown, and where
 * due the hard evaluation with keep-best, early stop and abandoning. A soft
 * loss that is not finite sets result.diverged and stops. */
DLCA_API DLCA_WUR int dlca_loop_epoch(dlca_loop *r);
/* After the last epoch: a hard evaluation if none was made. */
DLCA_API DLCA_WUR int dlca_loop_finish(dlca_loop *r);
/* Keep-best's logits back into the trainer, then the repair and evolution
 * where the options ask (not on an abandoned run). */
DLCA_API DLCA_WUR int dlca_loop_polish(dlca_loop *r);
/* The check on eval_fresh batches of fresh grids (all 512 boards for gol). */
DLCA_API DLCA_WUR int dlca_loop_eval_fresh(dlca_loop *r);
DLCA_API void dlca_loop_get_result(const dlca_loop *r, dlca_loop_result *out);
/* Whether the run is right on every fresh grid checked. */
DLCA_API int dlca_loop_fresh_ok(const dlca_loop *r);

/* All of it in one call: the preset's recommended recipe for param (or the
 * paper's protocol where it has none), trained from seed, then seed + 1000 k
 * for k = 1..restarts while the circuit is wrong on fresh grids. epoch_cb
 * (may be NULL) sees every epoch and stops the run by returning nonzero.
 * *model gets the last run's circuit, *out (may be NULL) its result. */
typedef int (*dlca_loop_epoch_fn)(void *user, const dlca_loop_result *now);
DLCA_API DLCA_WUR int dlca_train_preset(dlca_context *ctx, const char *preset, int param, uint64_t seed,
                                        long restarts, dlca_loop_epoch_fn epoch_cb, void *user,
                                        dlca_model **model, dlca_loop_result *out);

#ifdef __cplusplus
}
#endif
#endif
