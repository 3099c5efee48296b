/* The training loop's state (dlca_loop of dlca_cl/recipe.h), shared by
 * loop.c (the epochs) and loop_polish.c (keep-best, repair, fresh grids). */
#ifndef DLCA_RECIPE_LOOP_IMPL_H
#define DLCA_RECIPE_LOOP_IMPL_H

#include "core/internal.h"
#include "dlca_cl/bits.h"

struct dlca_loop {
  dlca_loop_options opt;
  dlca_preset preset;
  dlca_train_config cfg;
  dlca_trainer *t;
  int gol;                /* gol: scored on all 512 boards, on the host (dlca__loop_gol_bits) */
  float *gol_x, *gol_y;   /* gol: one epoch's boards and successors */
  float *gol_all_x, *gol_all_y; /* gol: every board and its successor */
  float *best;            /* keep_best: the logits of the lowest hard loss */
  int gol_order[DLCA_GOL_BOARDS];
  int npg;                /* logits per gate */
  int begun;              /* the loop's state below is set up */
  dlca_loop_event_fn events;
  void *events_user;
  dlca_loop_result res;
  double cur_lr;          /* cooldown's current lr before warm-up */
  /* cooldown's plateau test: the soft loss of one epoch is one batch's, so
   * noisy; it compares means over windows of `plateau` epochs instead */
  double best_window, window_sum;
  uint64_t window_n;
  double last_hard;       /* the previous evaluation's hard loss (NAN before one) */
  long zero_streak;       /* evaluations in a row with hard loss 0 */
  int abandon_next;       /* the abandon point to test next */
  int launched;           /* dlca__loop_launch enqueued a step that dlca__loop_collect has not read */
  struct dlca__clt_group *group; /* the trainer's group (a population's), or NULL */
  int slot;               /* the trainer's slot in it */
};

/* Wraps the last error in "what: ...", keeping the inner message. */
int dlca__loop_fail(int status, const char *fmt, ...) DLCA_PRINTF(2, 3);
/* lr_chain.c: o's chain with the run's defaults (base lr `lr`, the epochs
 * left for sizes), each part checked. */
int dlca__loop_lr_chain_fill(dlca_loop_options *o, double lr);
/* Scores the hard circuit of the trainer (gol: all 512 boards, on the host). */
int dlca__loop_evaluate(dlca_loop *r, dlca_eval *ev);
/* gol: the packed-bits circuit of the trainer's model (logits: these
 * instead of the trainer's) on all 512 boards. */
int dlca__loop_gol_bits(dlca_loop *r, const float *logits, dlca_bits **out);
/* dlca_loop_epoch in two halves: the step enqueued, then its loss read and
 * judged (a population launches every model before it reads any). */
int dlca__loop_launch(dlca_loop *r);
int dlca__loop_collect(dlca_loop *r);
/* The halves' parts, for a population that steps and evaluates its
 * models together (population_step.c): launch is before_step (then the
 * step, unless res.done); collect is take_loss with the loss read, then,
 * where *due, take_eval with dlca__loop_evaluate's evaluation. */
int dlca__loop_before_step(dlca_loop *r);
int dlca__loop_take_loss(dlca_loop *r, double soft, int *due);
int dlca__loop_take_eval(dlca_loop *r, const dlca_eval *ev);
/* dlca_loop_new for slot `slot` of a trainer group (NULL: dlca_loop_new). */
int dlca__loop_new_in(dlca_context *ctx, const dlca_preset *p, const dlca_model *m, const dlca_train_config *cfg,
                      const float *target, const dlca_loop_options *o, struct dlca__clt_group *group, int slot,
                      dlca_loop **out);

/* loop_polish.c: dlca_loop_polish in three parts, so that a population
 * runs the middle one (the searches on the packed-bits circuit, host
 * memory only) on a thread while the device trains the other models.
 * _begin: keep-best's logits back and, where a search is due, the job set
 * up (pending) or, without packed bits, the search done at once; _host:
 * the search (tick_r NULL: no events), its status in rc; _end: its result
 * checked on the trainer and set there, the job freed. The searches'
 * results depend only on the circuit and the options, never on timing. */
typedef struct dlca__polish_job {
  dlca_loop_options opt;
  dlca_loop_result *w;    /* where the search's results go (the loop's, or a copy) */
  dlca_loop *tick_r;      /* the loop whose events see the progress, or NULL */
  dlca_bits *b;
  float *l;               /* the logits, the result's ops set into them */
  size_t P;
  int npg, passes_on, evolve_on, pending, rc;
  double t0;
  dlca_eval end;          /* the packed-bits circuit's evaluation of the result */
} dlca__polish_job;
int dlca__loop_polish_begin(dlca_loop *r, dlca__polish_job *j);
int dlca__loop_polish_host(dlca__polish_job *j);
int dlca__loop_polish_end(dlca_loop *r, dlca__polish_job *j);
void dlca__loop_polish_free(dlca__polish_job *j);

#endif
