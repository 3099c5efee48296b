/* The training loop (dlca_cl/recipe.h): one epoch at a time, the lr
 * schedule, cooldown, the hard evaluations with keep-best, early stop and
 * abandoning. What happens after the last epoch is in loop_polish.c. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "recipe/loop_impl.h"
#include "train/trainer_impl.h" /* dlca__trainer_new_in */

#define MAX_EPOCHS 1000000000L

int dlca__loop_fail(int status, const char *fmt, ...) {
  char what[256], why[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(why, sizeof why, "%s", dlca_last_error()[0] ? dlca_last_error() : dlca_strerror(status));
  return dlca__fail(status, "%s: %s", what, why);
}

static const char *const schedule_names[5] = {"constant", "cosine", "warmup-cosine", "cooldown", "chain"};

const char *dlca_lr_schedule_name(int s) { return s >= 0 && s < 5 ? schedule_names[s] : "unknown"; }

void dlca_loop_options_default(dlca_loop_options *o) {
  memset(o, 0, sizeof *o);
  o->eval_every = 10;
  o->warmup = -1;
  o->cooldown_factor = 0.1;
  o->plateau = 100;
  o->max_cooldowns = 2;
  o->repair_max_wrong = o->evolve_max_wrong = -1;
  o->evolve_lineages = 64, o->evolve_lambda = 4, o->evolve_changes = 3;
}

/* E:W[,E:W...]: epochs rising, each E >= 1 and W >= 0. */
int dlca_loop_parse_abandon(const char *arg, dlca_loop_options *o) {
  if (!arg || !o) return dlca__fail(DLCA_EINVAL, "dlca_loop_parse_abandon: NULL argument");
  const char *p = arg;
  o->n_abandon = 0;
  while (*p) {
    char *end;
    errno = 0;
    long e = strtol(p, &end, 10);
    double w = 0;
    int ok = end != p && *end == ':' && !errno && e >= 1 && e <= MAX_EPOCHS;
    if (ok) {
      p = end + 1;
      w = strtod(p, &end);
      ok = end != p && (*end == ',' || *end == '\0') && isfinite(w) && w >= 0;
    }
    if (ok && o->n_abandon == DLCA_LOOP_MAX_ABANDON)
      return dlca__fail(DLCA_EINVAL, "more than %d checkpoints in '%s'", DLCA_LOOP_MAX_ABANDON, arg);
    if (ok && o->n_abandon > 0 && e <= o->abandon_epoch[o->n_abandon - 1])
      return dlca__fail(DLCA_EINVAL, "the epochs of '%s' must rise", arg);
    if (!ok)
      return dlca__fail(DLCA_EINVAL, "'%s' is not EPOCH:LOSS[,EPOCH:LOSS...] (epoch >= 1, loss >= 0)", arg);
    o->abandon_epoch[o->n_abandon] = e, o->abandon_above[o->n_abandon] = w, o->n_abandon++;
    p = *end == ',' ? end + 1 : end;
    if (*end == ',' && !*p) return dlca__fail(DLCA_EINVAL, "'%s' ends with a comma", arg);
  }
  return o->n_abandon ? DLCA_OK : dlca__fail(DLCA_EINVAL, "empty");
}

int dlca_recipe_apply(const dlca_recipe *q, const dlca_preset *p, int with_abandon, dlca_train_config *cfg,
                      dlca_loop_options *o) {
  if (!p || !cfg || !o) return dlca__fail(DLCA_EINVAL, "dlca_recipe_apply: NULL argument");
  const int epochs_given = o->epochs > 0;
  if (!epochs_given) o->epochs = p->epochs;
  if (!q) return DLCA_OK;
  cfg->relax.temperature = q->temperature;
  cfg->relax.gumbel_scale = q->gumbel;
  if (q->batch > 0) cfg->batch = q->batch;
  if (!epochs_given && q->epochs > 0) o->epochs = q->epochs;
  if (q->cooldown) o->lr_schedule = DLCA_LR_COOLDOWN;
  o->early_stop = q->early_stop;
  if (q->keep_best) o->keep_best = 1;
  if (q->eval_every > 0) o->eval_every = q->eval_every;
  o->repair = q->repair, o->repair_max_wrong = q->repair_max_wrong;
  o->evolve = q->evolve, o->evolve_max_wrong = q->evolve_max_wrong;
  o->search_needs_training = (q->repair > 0) | (q->evolve > 0) << 1;
  if (with_abandon && q->abandon) return dlca_loop_parse_abandon(q->abandon, o);
  return DLCA_OK;
}

static int setup_gol(dlca_loop *r) {
  dlca_gol_order(r->cfg.seed, r->gol_order);
  r->gol_x = malloc(sizeof(float) * 9 * (size_t)r->cfg.batch);
  r->gol_y = malloc(sizeof(float) * 9 * (size_t)r->cfg.batch);
  /* all 512 boards: accuracy on 20 random boards says little, on all 512 it
   * says whether the rule was learnt. They are scored on the host (packed
   * bits, 8 words a plane): a device twin would cost a program build per
   * seed on a GPU driver (its push plan is the wiring's) and a round trip */
  r->gol_all_x = malloc(sizeof(float) * 9 * DLCA_GOL_BOARDS);
  r->gol_all_y = malloc(sizeof(float) * 9 * DLCA_GOL_BOARDS);
  if (!r->gol_x || !r->gol_y || !r->gol_all_x || !r->gol_all_y)
    return dlca__fail(DLCA_ENOMEM, "gol boards: out of memory");
  dlca_gol_all(r->gol_all_x, r->gol_all_y);
  r->gol = 1;
  return DLCA_OK;
}

int dlca__loop_gol_bits(dlca_loop *r, const float *logits, dlca_bits **out) {
  dlca_model *m; /* given logits: the trainer's wires with them, no read of the device's */
  int rc = logits ? dlca_model_clone(r->t->model, &m) : dlca_trainer_export_model(r->t, &m);
  if (rc) return rc;
  if (logits) memcpy(dlca_model_params(m), logits, sizeof(float) * dlca_model_n_params(m));
  dlca_train_config c = r->cfg;
  c.batch = DLCA_GOL_BOARDS;
  const dlca_run run = dlca__epoch_run(&c, NULL, 0);
  rc = dlca_bits_new(m, &run, r->gol_all_x, r->gol_all_y, out);
  dlca_model_free(m);
  return rc;
}

static int setup(dlca_loop *r, dlca_context *ctx, const dlca_model *m, const float *target) {
  int rc = dlca__trainer_new_in(ctx, m, &r->cfg, r->group, r->slot, &r->t);
  if (rc) return rc; /* the trainer's own message: the caller knows what it asked for */
  r->npg = dlca_model_params_per_gate(m);
  if (r->opt.keep_best && !(r->best = malloc(sizeof(float) * dlca_trainer_n_params(r->t))))
    return dlca__fail(DLCA_ENOMEM, "keep-best: out of memory");
  if (dlca_preset_is_gol(&r->preset)) return setup_gol(r);
  float *own = NULL;
  dlca_model_shape s;
  dlca_model_get_shape(m, &s);
  if (!target && (rc = dlca_preset_target(&r->preset, s.channels, NULL, &own))) return rc;
  rc = dlca_trainer_set_target(r->t, target ? target : own, 0);
  free(own);
  return rc ? dlca__loop_fail(rc, "target") : DLCA_OK;
}

int dlca_loop_new(dlca_context *ctx, const dlca_preset *p, const dlca_model *m, const dlca_train_config *cfg,
                 const float *target, const dlca_loop_options *o, dlca_loop **out) {
  return dlca__loop_new_in(ctx, p, m, cfg, target, o, NULL, 0, out);
}

int dlca__loop_new_in(dlca_context *ctx, const dlca_preset *p, const dlca_model *m, const dlca_train_config *cfg,
                      const float *target, const dlca_loop_options *o, struct dlca__clt_group *group, int slot,
                      dlca_loop **out) {
  if (!p || !m || !cfg || !o || !out) return dlca__fail(DLCA_EINVAL, "dlca_loop_new: NULL argument");
  *out = NULL;
  if (o->eval_every < 1 || o->epochs < 0 || (o->lr_schedule == DLCA_LR_COOLDOWN && o->plateau < 1) ||
      o->lr_schedule < 0 || o->lr_schedule > DLCA_LR_CHAIN || o->n_abandon < 0 ||
      o->n_abandon > DLCA_LOOP_MAX_ABANDON)
    return dlca__fail(DLCA_EINVAL, "dlca_loop_new: eval_every, epochs, lr_schedule, plateau or n_abandon out of range");
  dlca_loop *r = calloc(1, sizeof *r);
  if (!r) return dlca__fail(DLCA_ENOMEM, "dlca_loop_new: out of memory");
  r->opt = *o, r->preset = *p, r->cfg = *cfg, r->group = group, r->slot = slot;
  int rc = o->lr_schedule == DLCA_LR_CHAIN ? dlca__loop_lr_chain_fill(&r->opt, cfg->optim.lr) : DLCA_OK;
  if (!rc) rc = setup(r, ctx, m, target);
  if (rc) {
    dlca_loop_free(r);
    return rc;
  }
  *out = r;
  return DLCA_OK;
}

void dlca_loop_free(dlca_loop *r) {
  if (!r) return;
  dlca_trainer_free(r->t);
  free(r->gol_x), free(r->gol_y), free(r->gol_all_x), free(r->gol_all_y), free(r->best);
  free(r);
}

void dlca_loop_set_events(dlca_loop *r, dlca_loop_event_fn fn, void *user) { r->events = fn, r->events_user = user; }
dlca_trainer *dlca_loop_trainer(dlca_loop *r) { return r ? r->t : NULL; }
void dlca_loop_get_result(const dlca_loop *r, dlca_loop_result *out) {
  *out = r->res;
  if (!r->begun) out->first = out->epoch = dlca_trainer_epoch(r->t), out->soft = NAN, out->min_hard = INFINITY;
}
int dlca_loop_fresh_ok(const dlca_loop *r) { return r->res.have_fresh && r->res.fresh.errors == 0; }

int dlca__loop_evaluate(dlca_loop *r, dlca_eval *ev) {
  int rc;
  if (r->gol) {
    dlca_bits *b = NULL;
    rc = dlca__loop_gol_bits(r, NULL, &b);
    if (!rc) rc = dlca_bits_run(b, ev, NULL);
    dlca_bits_free(b);
  } else {
    rc = dlca_trainer_eval_hard(r->t, ev);
  }
  return rc ? dlca__loop_fail(rc, "hard evaluation after epoch %llu", (unsigned long long)dlca_trainer_epoch(r->t))
            : DLCA_OK;
}

static long warmup_epochs(const dlca_loop *r) {
  if (r->opt.warmup >= 0) return r->opt.warmup;
  return r->opt.lr_schedule == DLCA_LR_WARMUP_COSINE ? r->opt.epochs / 20 : 0;
}

/* The lr of the epoch with 0-based index e (the one about to run). */
static int schedule_lr(const dlca_loop *r, uint64_t e, float *out) {
  const dlca_loop_options *o = &r->opt;
  const long W = warmup_epochs(r);
  double lr = r->res.base_lr;
  if (o->lr_schedule == DLCA_LR_CHAIN) {
    int rc = dlca_lr_chain_at((size_t)o->n_lr_parts, o->lr_parts, o->lr_milestones, e, &lr);
    if (rc) return rc;
  } else if (o->lr_schedule == DLCA_LR_COSINE || o->lr_schedule == DLCA_LR_WARMUP_COSINE) {
    double span = (double)o->epochs - (double)W, p = span > 0 ? ((double)e - (double)W) / span : 1;
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    lr = o->min_lr + (r->res.base_lr - o->min_lr) * 0.5 * (1 + cos(3.14159265358979323846 * p));
  } else if (o->lr_schedule == DLCA_LR_COOLDOWN) {
    lr = r->cur_lr;
  }
  if (W > 0 && e < (uint64_t)W) lr *= (double)(e + 1) / (double)W;
  float f = (float)lr;
  *out = f > 0 ? f : 1e-30f; /* a cosine's last epochs may round to 0; set_lr wants > 0 */
  return DLCA_OK;
}

/* Cooldown: lr *= factor, at most max_cooldowns times, never below min_lr. */
static void cool_down(dlca_loop *r, uint64_t e, const char *why) {
  const dlca_loop_options *o = &r->opt;
  if (o->lr_schedule != DLCA_LR_COOLDOWN || r->res.cooldowns >= o->max_cooldowns) return;
  double old = r->cur_lr;
  r->cur_lr *= o->cooldown_factor;
  if (r->cur_lr < o->min_lr) r->cur_lr = o->min_lr;
  r->res.cooldowns++;
  r->window_sum = 0, r->window_n = 0; /* the next window starts at the new lr */
  if (r->events) {
    dlca_loop_event ev = {DLCA_LOOP_COOLDOWN, e, why, old, r->cur_lr, r->res.cooldowns, 0, 0, 0, NULL};
    r->events(r->events_user, &ev);
  }
}

/* keep_best: the logits of the evaluation in res.hard (at epoch e) become
 * the best where none is kept yet or they are no worse (ties: the later). */
static int keep_if_best(dlca_loop *r, uint64_t e) {
  const double h = r->res.hard.hard_loss;
  if (!r->opt.keep_best || (r->res.have_best && h > r->res.best_hard)) return DLCA_OK;
  int rc = dlca_trainer_get_params(r->t, r->best);
  if (rc) return dlca__loop_fail(rc, "keep-best: logits after epoch %llu", (unsigned long long)e);
  r->res.have_best = 1, r->res.best_hard = h, r->res.best_epoch = e;
  return DLCA_OK;
}

/* After each hard evaluation at epoch e: keep-best, cooldown on a hard loss
 * that reaches 0, the early-stop streak and the abandon points. */
static int after_eval(dlca_loop *r, uint64_t e) {
  const dlca_loop_options *o = &r->opt;
  dlca_loop_result *w = &r->res;
  double h = w->hard.hard_loss;
  int rc = keep_if_best(r, e);
  if (rc) return rc;
  if (h == 0 && !(r->last_hard == 0)) cool_down(r, e, "hard loss 0");
  r->zero_streak = h == 0 ? r->zero_streak + 1 : 0;
  r->last_hard = h;
  if (o->early_stop > 0 && r->zero_streak >= o->early_stop) w->stopped_early = 1;
  if (h < w->min_hard) w->min_hard = h;
  /* each abandon point is judged once, at the first evaluation from its epoch on */
  while (r->abandon_next < o->n_abandon && e >= (uint64_t)o->abandon_epoch[r->abandon_next]) {
    if (w->min_hard > o->abandon_above[r->abandon_next]) {
      w->abandoned = 1, w->abandoned_epoch = e, w->abandon_index = r->abandon_next;
      break;
    }
    r->abandon_next++;
  }
  return DLCA_OK;
}

static int evaluate_now(dlca_loop *r, uint64_t e) {
  int rc = dlca__loop_evaluate(r, &r->res.hard);
  if (rc) return rc;
  r->res.have_hard = 1, r->res.hard_epoch = e, r->res.evaluated = 1;
  return after_eval(r, e);
}

/* The loop's state, once, at the first epoch (after a checkpoint was loaded). */
static int begin(dlca_loop *r) {
  if (r->begun) return DLCA_OK;
  r->begun = 1;
  dlca_loop_result *w = &r->res;
  const uint64_t e = dlca_trainer_epoch(r->t);
  w->first = w->epoch = e;
  w->soft = NAN;
  r->last_hard = NAN;
  w->base_lr = r->cur_lr = dlca_trainer_lr(r->t);
  r->best_window = INFINITY;
  w->min_hard = INFINITY;
  w->scheduled = r->opt.lr_schedule != DLCA_LR_CONSTANT || warmup_epochs(r) > 0;
  w->done = e >= (uint64_t)r->opt.epochs;
  /* keep_best_start: the start is a candidate too, so that going on from a
   * near miss never ends with a worse circuit */
  if (r->opt.keep_best && r->opt.keep_best_start && !w->done) {
    int rc = dlca__loop_evaluate(r, &w->hard);
    if (!rc) rc = keep_if_best(r, e);
    if (rc) return rc;
  }
  return DLCA_OK;
}

/* The first half of an epoch up to its step: the gol boards and the
 * schedule's lr (nothing once res.done). */
int dlca__loop_before_step(dlca_loop *r) {
  int rc = begin(r);
  if (rc) return rc;
  dlca_loop_result *w = &r->res;
  const uint64_t e = w->epoch;
  w->evaluated = 0;
  r->launched = 0;
  if (w->done) return DLCA_OK;
  if (r->gol) { /* gol: epoch e trains on its own slice of the shuffled boards */
    dlca_gol_batch(r->gol_order, e, r->cfg.batch, r->gol_x, r->gol_y);
    rc = dlca_trainer_set_input(r->t, r->gol_x);
    if (!rc) rc = dlca_trainer_set_target(r->t, r->gol_y, 1);
    if (rc) return dlca__loop_fail(rc, "gol boards of epoch %llu", (unsigned long long)e);
  }
  float lr;
  if (w->scheduled && ((rc = schedule_lr(r, e, &lr)) || (rc = dlca_trainer_set_lr(r->t, lr))))
    return dlca__loop_fail(rc, "lr of epoch %llu", (unsigned long long)e + 1);
  return DLCA_OK;
}

/* The first half of an epoch: the gol boards, the schedule's lr and the
 * step, enqueued without a blocking read. */
int dlca__loop_launch(dlca_loop *r) {
  int rc = dlca__loop_before_step(r);
  if (rc || r->res.done) return rc;
  if ((rc = dlca_trainer_step(r->t))) return dlca__loop_fail(rc, "epoch %llu", (unsigned long long)r->res.epoch + 1);
  r->launched = 1;
  return DLCA_OK;
}

/* The loss of the epoch just stepped: divergence and the cooldown's
 * window; *due: a hard evaluation is due now (dlca__loop_take_eval). */
int dlca__loop_take_loss(dlca_loop *r, double soft, int *due) {
  dlca_loop_result *w = &r->res;
  const uint64_t total = (uint64_t)r->opt.epochs, e = dlca_trainer_epoch(r->t);
  w->epoch = e, w->soft = soft, *due = 0;
  if (!isfinite(w->soft)) {
    w->diverged = w->done = 1;
    return DLCA_OK;
  }
  if (r->opt.lr_schedule == DLCA_LR_COOLDOWN) {
    r->window_sum += w->soft;
    if (++r->window_n == (uint64_t)r->opt.plateau) {
      double mean = r->window_sum / (double)r->window_n;
      r->window_sum = 0, r->window_n = 0;
      if (mean < r->best_window) r->best_window = mean;
      else cool_down(r, e, "mean soft loss on a plateau");
    }
  }
  *due = e % (uint64_t)r->opt.eval_every == 0 || e == total;
  if (!*due) w->done = e >= total || w->stopped_early || w->abandoned;
  return DLCA_OK;
}

/* The hard evaluation that take_loss found due (ev: the trainer's, after
 * this epoch): keep-best, early stop and abandoning, then whether the run
 * is done. */
int dlca__loop_take_eval(dlca_loop *r, const dlca_eval *ev) {
  dlca_loop_result *w = &r->res;
  const uint64_t e = w->epoch;
  w->hard = *ev;
  w->have_hard = 1, w->hard_epoch = e, w->evaluated = 1;
  int rc = after_eval(r, e);
  w->done = e >= (uint64_t)r->opt.epochs || w->stopped_early || w->abandoned;
  return rc;
}

/* The second half: the loss, the cooldown and, where due, the hard
 * evaluation with keep-best, early stop and abandoning. */
int dlca__loop_collect(dlca_loop *r) {
  dlca_loop_result *w = &r->res;
  double soft;
  int rc, due;
  if (!r->launched) return DLCA_OK;
  r->launched = 0;
  if ((rc = dlca_trainer_loss(r->t, &soft)))
    return dlca__loop_fail(rc, "loss of epoch %llu", (unsigned long long)w->epoch + 1);
  if ((rc = dlca__loop_take_loss(r, soft, &due)) || !due) return rc;
  dlca_eval ev;
  if ((rc = dlca__loop_evaluate(r, &ev))) return rc;
  return dlca__loop_take_eval(r, &ev);
}

int dlca_loop_epoch(dlca_loop *r) {
  int rc = dlca__loop_launch(r);
  return rc ? rc : dlca__loop_collect(r);
}

int dlca_loop_finish(dlca_loop *r) {
  int rc = begin(r);
  if (rc) return rc;
  /* a resumed run that had nothing left to do still reports where it stands */
  r->res.evaluated = 0;
  return r->res.have_hard ? DLCA_OK : evaluate_now(r, r->res.epoch);
}
