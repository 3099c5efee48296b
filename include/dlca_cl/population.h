/* A population: M independent models of one preset trained side by side on
 * one device, each its own run of the library's training loop
 * (dlca_cl/recipe.h) with its own seed (wiring, start grids, fire masks,
 * Gumbel draws, fresh grids), optimizer state and schedule. On an
 * OpenCL device with one shared program, one dlca_population_step is one
 * launch per phase for all the models (the model in dimension 1), one read
 * of every loss and one batched hard evaluation of those due (elsewhere:
 * each model's epoch enqueued before any loss is read). Model j gives exactly the losses and the circuit of a single run
 * of its seed (dlca_loop with dlca_population_model_config's configuration and the same options).
 * The population stops at the first model whose circuit is right (the
 * check on fresh grids, o->eval_fresh; the hard loss 0 without it; with
 * run_all it goes on until every model is done), and
 * replaces a model that ended wrong or was abandoned (o's abandon points)
 * with a fresh seed. */
#ifndef DLCA_CL_POPULATION_H
#define DLCA_CL_POPULATION_H

#include <stddef.h>
#include <stdint.h>
#include "dlca_cl/recipe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dlca_population dlca_population;

typedef struct dlca_population_options {
  int n_models;          /* M >= 1: models training at once */
  const uint64_t *seeds; /* M first seeds, or NULL: cfg->seed + j */
  int replace;           /* a model that ended wrong, abandoned or diverged restarts with a fresh seed */
  uint64_t next_seed;    /* the fresh seeds: next_seed, next_seed + 1, ...; 0: one past the largest first seed */
  long max_models;       /* with replace: models started in all at most (0: no limit) */
  float iwp_init;        /* > 0: dlca_model_init_pass_through(model, iwp_init) on each fresh model */
  int compiled_wires;    /* 1: cfg->shared_program as given (0: a program build per seed, the fastest
                          * steps); 0: shared_program set, one build for every seed */
  int run_all;           /* 1: no stop at the first right model, every model trains to its end (with
                          * replace 0: M single runs, to measure a recipe's success rate) */
  /* Each model's own hyperparameters (dlca_population_model_config): its
   * lr, temperature and Gumbel scale times exp(U(-j, j)), U drawn from its
   * seed; 0 (the default): the configuration's. Each in [0, 20]. */
  double lr_jitter, temperature_jitter, gumbel_jitter;
  /* Population-based training: every pbt_every steps (0: never) the worst
   * pbt_fraction (in [0, 0.5]; at least one of two or more) of the models
   * training, by the hard loss of their last evaluation, each take a copy
   * of one of the best (the k-th worst of the k-th best): its wires,
   * logits, optimizer state and hyperparameters, the lr times 0.8 or 1.25.
   * A model keeps its seed (its noise, fresh grids) and epoch; its circuit
   * is then no single run of its seed (dlca_population_get_lineage). */
  long pbt_every;
  double pbt_fraction;
  /* 0: a model's repair and evolution (o->repair, o->evolve, packed bits)
   * run on a host thread (one at a time) while the device trains the
   * others, the most promising first (the lowest hard loss its model
   * reached, then the lowest slot); the model is judged at the first step
   * after the search ended, its circuit the same. 1: on the caller's
   * thread at once, stalling every model. */
  int polish_inline;
  /* Optional: a model right on the fresh grids is right only if accept
   * says so too (*right 0: wrong), called on the stepping thread with the
   * model's trainer holding its final circuit (dlca-train's --eval-scale). */
  int (*accept)(void *user, dlca_population *P, int j, int *right);
  void *accept_user;
} dlca_population_options;

/* Where model j stands. */
typedef enum dlca_population_state {
  DLCA_POP_TRAINING, /* still training */
  DLCA_POP_RIGHT,    /* done, and its circuit is right: the winner if the first */
  DLCA_POP_WRONG,    /* done, its circuit wrong (or it diverged); replaced at the next step with replace */
  DLCA_POP_ABANDONED, /* abandoned at an abandon point; replaced at the next step with replace */
  DLCA_POP_POLISHING  /* done training; its repair or evolution runs on a host thread, judged at a later step */
} dlca_population_state;

typedef struct dlca_population_stats {
  int winner;               /* the slot of the first right model, or -1 */
  uint64_t winner_seed, winner_epoch;
  long models;              /* models started (first ones and replacements) */
  long finished, abandoned; /* models done (right or wrong), models abandoned */
  uint64_t epochs;          /* epochs trained, summed over every model started */
  uint64_t steps;           /* dlca_population_step calls that trained */
  int training;             /* models still training */
  long pbt_copies;          /* copies taken by population-based training */
} dlca_population_stats;

/* Where model j's circuit came from: copies 0 (it is the single run of its
 * seed), else population-based training's last copy, from the model of
 * from_seed at epoch from_epoch, and origin_seed, the seed whose wires it
 * has. */
typedef struct dlca_population_lineage {
  long copies;
  uint64_t origin_seed, from_seed, from_epoch;
} dlca_population_lineage;

/* The configuration the model of seed `seed` trains with in a population
 * of cfg and po: cfg with that seed, population_plan set, and its lr,
 * temperature (0: 1) and Gumbel scale jittered as po asks. A single run
 * (dlca_loop) with it gives the model's losses and circuit. */
DLCA_API void dlca_population_model_config(const dlca_population_options *po, const dlca_train_config *cfg,
                                           uint64_t seed, dlca_train_config *out);
/* Model j's configuration now (its seed's, or what population-based
 * training gave it). */
DLCA_API DLCA_WUR int dlca_population_config(const dlca_population *P, int j, dlca_train_config *out);

/* The bytes on the device of a population of n_models models of this
 * preset, shape and configuration (gol's 512 boards are scored on the host). */
DLCA_API DLCA_WUR int dlca_population_estimate_memory(const dlca_preset *p, const dlca_model_shape *shape,
                                                      const dlca_train_config *cfg, int n_models, size_t *bytes);
/* The most models of that kind that fit in ctx's device memory (>= 0). */
DLCA_API DLCA_WUR int dlca_population_max_models(dlca_context *ctx, const dlca_preset *p,
                                                 const dlca_model_shape *shape, const dlca_train_config *cfg,
                                                 int *max_models);

/* A population of po->n_models fresh models of the preset (shape: the
 * preset's with its parametrisation; NULL: the preset's) on ctx (NULL: the
 * CPU reference), each trained by a dlca_loop with cfg and o, its seed as
 * cfg->seed and o->seed, cfg->shared_program set unless po->compiled_wires
 * (one program for every seed; the same losses). target as dlca_loop_new's. DLCA_EDEVMEM, before
 * anything is allocated, where the population does not fit the device; the
 * message names the most models that would. */
DLCA_API DLCA_WUR int dlca_population_new(dlca_context *ctx, const dlca_preset *p, const dlca_model_shape *shape,
                                          const dlca_train_config *cfg, const float *target,
                                          const dlca_loop_options *o, const dlca_population_options *po,
                                          dlca_population **out);
DLCA_API void dlca_population_free(dlca_population *P);
/* One epoch of every model still training: the replacements due, then all
 * the steps (one launch per phase on a device), then the losses (one read)
 * and the evaluations due (one batched evaluation; gol's 512 boards on the
 * host). The models that are done are finished as one run is
 * (dlca_loop_finish, _polish, _eval_fresh) and judged, the most promising
 * first (the lowest hard loss it reached, then the lowest slot): the
 * winner is the first found right. Nothing is trained, and nothing more
 * judged, once a model is right (unless run_all) or none is training. */
DLCA_API DLCA_WUR int dlca_population_step(dlca_population *P);
/* Whether a step would train anything. */
DLCA_API int dlca_population_running(const dlca_population *P);
DLCA_API int dlca_population_size(const dlca_population *P);
DLCA_API void dlca_population_get_stats(const dlca_population *P, dlca_population_stats *out);
DLCA_API uint64_t dlca_population_seed(const dlca_population *P, int j);
DLCA_API dlca_population_state dlca_population_model_state(const dlca_population *P, int j);
DLCA_API void dlca_population_get_lineage(const dlca_population *P, int j, dlca_population_lineage *out);
/* Model j's run: its trainer, its result. Replaced at the next step. */
DLCA_API dlca_loop *dlca_population_loop(dlca_population *P, int j);
/* The last soft loss of every model, soft[n_models] (NAN before a step). */
DLCA_API void dlca_population_losses(const dlca_population *P, double *soft);
/* The hard circuit of every model with its current logits (gol: all 512
 * boards), into out[n_models]. */
DLCA_API DLCA_WUR int dlca_population_eval_hard(dlca_population *P, dlca_eval *out);
/* Model j's current circuit as an ordinary model (dlca_model_free it). */
DLCA_API DLCA_WUR int dlca_population_take(dlca_population *P, int j, dlca_model **out);

#ifdef __cplusplus
}
#endif
#endif
