/* What dlca-train prints about a run: the library's events as they come
 * (cooldowns, --repair and --evolve progress), error lines and the summary
 * on stdout. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "train_run.h"

int train_fail(run *r, int code, int status, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (r && r->shown) progress_break(r->shown);
  const char *why = dlca_last_error();
  fprintf(stderr, "%s: %s: %s\n", TRAIN_PROG, what, why[0] ? why : dlca_strerror(status));
  return code;
}

int train_model_param(const run *r) {
  dlca_model_shape s;
  dlca_model_get_shape(r->model, &s);
  return (int)s.parametrisation;
}

/* --repair and --evolve progress: a line at every tenth of a pass (of the
 * generations), with the rate and the time left of it, and at its end; a
 * nonzero return (Ctrl-C) stops the search with the best circuit so far */
static int search_tick(run *r, const char *what, const char *unit, int pass, size_t done, size_t total,
                       const dlca_eval *best) {
  if (r->opt.quiet) return train_stop_signal != 0;
  if (done < r->tick_last) /* a new pass */
    r->tick_t0 = cli_now(), r->tick_tenth = 0;
  r->tick_last = done;
  const int tenth = total ? (int)(10 * done / total) : 10;
  if (tenth <= r->tick_tenth && done != total && best->errors && !train_stop_signal) return 0;
  r->tick_tenth = tenth;
  const double dt = cli_now() - r->tick_t0, rate = dt > 0 ? (double)done / dt : 0;
  char eta[32], pass_s[32] = "";
  if (pass >= 0) snprintf(pass_s, sizeof pass_s, "pass %d, ", pass + 1);
  fprintf(stderr, "%s: %s: %s%s %zu of %zu%s: %zu of %zu values wrong, hard loss %.9g; %.0f %s/s, ETA %s\n",
          TRAIN_PROG, what, pass_s, unit, done, total, train_stop_signal ? " (interrupted)" : "", best->errors,
          best->total, best->hard_loss, rate, unit, cli_duration(rate > 0 ? (double)(total - done) / rate : 0, eta,
                                                                 sizeof eta));
  return train_stop_signal != 0;
}


/* Cooldown: the lr after a plateau or a hard loss of 0. */
static void cooled(run *r, const dlca_loop_event *ev) {
  if (r->opt.quiet) return;
  progress_break(&r->prog);
  fprintf(stderr, "%s: epoch %llu: %s; lr %g -> %g (cooldown %d of %ld)\n", TRAIN_PROG,
          (unsigned long long)ev->epoch, ev->why, ev->old_lr, ev->new_lr, ev->cooldowns, r->opt.max_cooldowns);
}

int train_on_event(void *user, const dlca_loop_event *ev) {
  run *r = user;
  if (ev->kind == DLCA_LOOP_COOLDOWN) {
    cooled(r, ev);
    return 0;
  }
  if ((int)ev->kind != r->tick_kind) /* a new search: its own clock */
    r->tick_kind = (int)ev->kind, r->tick_t0 = cli_now(), r->tick_last = 0, r->tick_tenth = 0;
  if (ev->kind == DLCA_LOOP_REPAIR)
    return search_tick(r, "--repair", "gates", ev->pass, ev->done, ev->total, ev->best);
  return search_tick(r, "--evolve", "generations", -1, ev->done, ev->total, ev->best);
}

static int relax_off(const dlca_relax *x) {
  return (x->temperature == 0 || x->temperature == 1) && x->gumbel_scale == 0 && !x->straight_through &&
         x->grad_noise == 0;
}

/* What trained: the preset, the device, the gates and the recipe. */
static void print_setup(const run *r) {
  printf("preset:         %s\n", r->preset.name);
  printf("backend:        %s\n", dlca_trainer_backend(r->t));
  printf("device:         %s\n", r->device);
  if (train_model_param(r) == DLCA_PARAM_IWP) {
    printf("gates:          iwp, the input-wise parametrisation: 4 logits per gate");
    if (r->opt.model) printf(", from %s\n", r->opt.model);
    else if (r->opt.resume) printf(", resumed\n");
    else printf(", pass-through init z = %g\n", r->opt.iwp_init > 0 ? r->opt.iwp_init : (double)DLCA_IWP_INIT_DEFAULT);
  } else {
    printf("gates:          softmax16, the paper's parametrisation: 16 logits per gate\n");
  }
  if (r->recipe) {
    char what[256];
    dlca_recipe_describe(r->recipe, 0, what, sizeof what);
    printf("recipe:         recommended for %s: %s (--reference-protocol: the paper's)\n", r->preset.name, what);
  }
  else printf("recipe:         %s\n", relax_off(&r->cfg.relax) ? "the paper's (no relaxation)" : "custom relaxation");
}

/* Where training ended: epochs, losses, stops, schedule, the best epoch. */
static void print_losses(const run *r, const outcome *o) {
  const dlca_loop_result *w = &o->w;
  printf("epochs:         %llu (%llu in this run)\n", (unsigned long long)w->epoch,
         (unsigned long long)(w->epoch - w->first));
  if (isnan(w->soft)) printf("soft loss:      -\n");
  else printf("soft loss:      %.9g\n", w->soft);
  if (w->have_hard) {
    printf("hard loss:      %.9g", w->hard.hard_loss);
    if (w->hard_epoch != w->epoch) printf(" (at epoch %llu)", (unsigned long long)w->hard_epoch);
    printf("\n");
    printf("hard accuracy:  %.4f%% (%zu of %zu values wrong)\n", 100 * w->hard.accuracy, w->hard.errors,
           w->hard.total);
  } else {
    printf("hard loss:      -\nhard accuracy:  -\n");
  }
  if (w->stopped_early)
    printf("stopped early:  hard loss 0 at %ld evaluations in a row\n", r->opt.early_stop);
  if (w->abandoned) {
    const int i = w->abandon_index;
    printf("abandoned:      at epoch %llu, the lowest hard loss %.9g is above %g (--abandon %ld:%g); not "
           "repaired, evolved or checked on fresh grids\n",
           (unsigned long long)w->abandoned_epoch, w->min_hard, r->opt.abandon_above[i], r->opt.abandon_epoch[i],
           r->opt.abandon_above[i]);
  }
  if (w->scheduled)
    printf("lr:             %s from %g, last %g\n", dlca_lr_schedule_name(r->opt.lr_schedule), w->base_lr,
           dlca_trainer_lr(r->t));
  if (r->opt.lr_schedule == TRAIN_LR_COOLDOWN) printf("cooldowns:      %d of at most %ld\n", w->cooldowns,
                                                      r->opt.max_cooldowns);
  if (w->have_best)
    printf("best hard loss: %.9g at epoch %llu%s\n", w->best_hard, (unsigned long long)w->best_epoch,
           o->have_gates ? " (the model below)" : "");
}

/* What the repair and evolution did, or why they did not run. */
static void print_polish(const run *r, const dlca_loop_result *w) {
  if (w->have_repair) {
    const dlca_repair_result *q = &w->repair;
    printf("repair:         %zu -> %zu of %zu values wrong, hard loss %.9g -> %.9g (%zu gate%s changed in %d "
           "pass%s, %zu circuits scored%s, %.1f s)\n",
           q->before.errors, q->after.errors, q->after.total, q->before.hard_loss, q->after.hard_loss, q->changed,
           q->changed == 1 ? "" : "s", q->passes, q->passes == 1 ? "" : "es", q->tried,
           w->repair_bits ? " on packed bits" : "", w->repair_s);
  }
  if (w->repair_skipped)
    printf("repair:         not run: %zu values wrong, more than --repair-max-wrong %ld\n", w->repair_wrong,
           r->opt.repair_max_wrong);
  if (w->evolve_skipped)
    printf("evolve:         not run: %zu values wrong, more than --evolve-max-wrong %ld\n", w->evolve_wrong,
           r->opt.evolve_max_wrong);
  if (w->have_evolve) {
    const dlca_evolve_result *q = &w->evolve;
    printf("evolve:         %zu -> %zu of %zu values wrong, hard loss %.9g -> %.9g (%llu generation%s of %ld "
           "lineages x %ld, %llu steps taken, %llu better; %zu circuits scored; %zu gates changed, %zu of them "
           "set back; %.1f s)\n",
           q->before.errors, q->after.errors, q->after.total, q->before.hard_loss, q->after.hard_loss,
           (unsigned long long)q->generations, q->generations == 1 ? "" : "s", r->opt.evolve_lineages,
           r->opt.evolve_lambda, (unsigned long long)q->taken, (unsigned long long)q->improved, q->scored, q->drift,
           w->evolve_reverted, w->evolve_s);
  }
}

void train_print_summary(const run *r, const outcome *o) {
  const dlca_loop_result *w = &o->w;
  char wall[32];
  double total_s = cli_now() - r->t_start;
  print_setup(r);
  print_losses(r, o);
  print_polish(r, w);
  if (o->have_gates) gate_summary_print(stdout, &o->gates);
  if (o->have_scale) {
    const long S = r->opt.eval_scale;
    printf("generalisation: %.4f%% (%zu of %zu values wrong; %d fresh grids of %ldx%ld, %ld steps, scale %ld)\n",
           100.0 * (1.0 - (double)o->scale_errors / (double)o->scale_total), o->scale_errors, o->scale_total,
           EVAL_SCALE_GRIDS, S * r->cfg.height, S * r->cfg.width, S * r->cfg.steps, S);
  }
  if (w->have_fresh) { /* fewer batches than asked where nothing is random (gol's 512 boards) */
    size_t batches = w->hard.total ? w->fresh.total / w->hard.total : 0;
    printf("fresh accuracy: %.4f%% (%zu of %zu values wrong, %zu fresh batch%s), hard loss %.9g\n",
           100 * w->fresh.accuracy, w->fresh.errors, w->fresh.total, batches, batches == 1 ? "" : "es",
           w->fresh.hard_loss);
  }
  if (total_s < 60) printf("wall time:      %.2f s", total_s);
  else printf("wall time:      %s (%.1f s)", cli_duration(total_s, wall, sizeof wall), total_s);
  if (w->epoch > w->first && o->train_s > 0)
    printf(", %.3g epochs/s", (double)(w->epoch - w->first) / o->train_s);
  printf("\n");
  if (r->opt.save && !o->interrupted) {
    printf("model:          %s", r->save_shown ? r->save_shown : r->opt.save);
    if (w->have_best) printf(" (--keep-best: the logits of epoch %llu)", (unsigned long long)w->best_epoch);
    printf("\n");
  }
  if (r->opt.log) printf("log:            %s\n", r->log_shown ? r->log_shown : r->opt.log);
}

