/* dlca-train: trains one of the paper's presets on an OpenCL device or the
 * CPU reference through the public API only, with a CSV log, checkpoints
 * and a clean stop on Ctrl-C. Usage: --help, or doc/dlca-train.md. */
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dlca_cl.h"
#include "cli.h"
#include "csvlog.h"
#include "gates.h"
#include "repair.h"
#include "progress.h"
#include "rollout.h"
#include "targets.h"
#include "train_options.h"
#include "recipes.h"
#include "jobs.h"

/* Set by SIGINT/SIGTERM; the loop checks it between epochs, because a
 * checkpoint can only be taken between steps. */
static volatile sig_atomic_t stop_signal;
static int quiet_mode;
/* The progress line on screen, ended before any error is printed. */
static progress *shown_progress;

static void on_signal(int sig) {
  static const char msg[] = "\n" TRAIN_PROG ": stopping after this epoch (press Ctrl-C again to quit at once)\n";
  stop_signal = sig;
  if (!quiet_mode) {
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1); /* write(2) is async-signal-safe */
    (void)unused;
  }
}

static void catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND; /* the second signal takes its default action: quit now */
  /* A SIGINT ignored on entry (a background job, nohup) stays ignored. */
  struct sigaction old;
  if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* One line: "dlca-train: <what>: <the library's message>". */
static int fail_lib(int code, int status, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (shown_progress) progress_break(shown_progress);
  const char *why = dlca_last_error();
  fprintf(stderr, "%s: %s: %s\n", TRAIN_PROG, what, why[0] ? why : dlca_strerror(status));
  return code;
}

/* A file the user named failed to load: their input is at fault, unless
 * the host ran out of memory. */
static int input_code(int status) {
  return status == DLCA_ENOMEM || status == DLCA_EDEVMEM ? CLI_FAIL : CLI_USAGE;
}

/* Everything a run holds, so that one cleanup path frees it all. */
typedef struct run {
  train_options opt;
  dlca_preset preset;
  dlca_train_config cfg;
  dlca_model *model;
  dlca_context *ctx;
  dlca_trainer *t;
  dlca_trainer *gol_eval;     /* gol: a batch-512 twin that scores every board */
  float *target;              /* non-gol: [H][W][C] */
  float *gol_x, *gol_y;       /* gol: one epoch's boards and successors */
  float *params;              /* gol: the logits copied into gol_eval */
  float *best;                /* --keep-best: the logits of the lowest hard loss */
  const train_recipe *recipe; /* the preset's recommended recipe in use, or NULL */
  int repair_of_recipe;       /* --repair came from the recipe, not the command line */
  int evolve_of_recipe;       /* --evolve came from the recipe */
  double tick_t0;             /* --repair/--evolve progress: the pass's start, */
  size_t tick_last;           /* the count at the last tick, */
  int tick_tenth;             /* and the last tenth shown */
  int gol_order[GOL_BOARDS];
  char device[512];
  int fresh_ok;               /* the last run's circuit was right on every fresh grid */
  uint64_t abandoned_at;      /* the last run was abandoned (--abandon) at this epoch; 0: it was not */
  csvlog log;
  progress prog;
  double t_start;
  /* --jobs: the chain's --save and --log, which the summary names; the run
   * itself writes PATH.runK, which becomes PATH if it ends the chain */
  const char *save_shown, *log_shown;
} run;

/* A fresh model of the preset's shape in the --param parametrisation, or
 * the --model file (which brings its own). */
static int setup_model(run *r) {
  const train_options *o = &r->opt;
  int rc;
  if (!o->model) {
    dlca_model_shape s = r->preset.shape;
    s.parametrisation = o->param == DLCA_PARAM_IWP ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
    if ((rc = dlca_model_new(&s, o->seed, &r->model))) return fail_lib(CLI_FAIL, rc, "%s model", r->preset.name);
    if (o->iwp_init > 0 && (rc = dlca_model_init_pass_through(r->model, (float)o->iwp_init)))
      return fail_lib(CLI_USAGE, rc, "--iwp-init");
    return 0;
  }
  if ((rc = dlca_model_load(o->model, &r->model))) return fail_lib(input_code(rc), rc, "--model");
  dlca_model_shape s;
  dlca_model_get_shape(r->model, &s);
  if (s.channels != r->preset.shape.channels) {
    fprintf(stderr, "%s: %s: the model has %d channel%s, but the %s preset needs %d\n", TRAIN_PROG, o->model,
            s.channels, s.channels == 1 ? "" : "s", r->preset.name, r->preset.shape.channels);
    return CLI_USAGE;
  }
  if (o->param >= 0 && o->param != (int)s.parametrisation) {
    fprintf(stderr, "%s: --param %s: the model %s is %s\n", TRAIN_PROG, dlca_parametrisation_name(o->param), o->model,
            dlca_parametrisation_name(s.parametrisation));
    return CLI_USAGE;
  }
  /* --rescale-logits: a saturated model (a near miss whose soft loss no
   * longer moves) gets its gradients back, its hard circuit unchanged */
  if (o->rescale_logits > 0) {
    float *l = dlca_model_params(r->model);
    for (size_t i = 0, n = dlca_model_n_params(r->model); i < n; i++)
      if (!isfinite(l[i] *= (float)o->rescale_logits)) {
        fprintf(stderr, "%s: --rescale-logits %g: logit %zu of %s is no longer finite\n", TRAIN_PROG,
                o->rescale_logits, i, o->model);
        return CLI_USAGE;
      }
  }
  return 0;
}

/* The model's parametrisation (--param, or the --model file's). */
static int model_param(const run *r) {
  dlca_model_shape s;
  dlca_model_get_shape(r->model, &s);
  return (int)s.parametrisation;
}

static int setup_target(run *r) {
  if (target_is_gol(&r->preset)) {
    if (r->opt.target) {
      fprintf(stderr, "%s: --target: the gol preset's targets are Life steps; --target is for growth and colour\n",
              TRAIN_PROG);
      return CLI_USAGE;
    }
    gol_order(r->opt.seed, r->gol_order);
    r->gol_x = malloc(sizeof(float) * 9 * (size_t)r->cfg.batch);
    r->gol_y = malloc(sizeof(float) * 9 * (size_t)r->cfg.batch);
    if (!r->gol_x || !r->gol_y) {
      fprintf(stderr, "%s: gol boards: out of memory\n", TRAIN_PROG);
      return CLI_FAIL;
    }
    return 0;
  }
  dlca_model_shape s;
  dlca_model_get_shape(r->model, &s);
  char err[512];
  int is_input;
  if (target_fixed(&r->preset, s.channels, r->opt.target, &r->target, err, sizeof err, &is_input)) {
    fprintf(stderr, "%s: %s\n", TRAIN_PROG, err);
    return is_input ? CLI_USAGE : CLI_FAIL;
  }
  return 0;
}

static int setup_device(run *r) {
  if (r->opt.backend_ref) {
    snprintf(r->device, sizeof r->device, "CPU reference");
    return 0;
  }
  int rc = dlca_context_new(r->opt.device, &r->ctx);
  if (rc == DLCA_ENOPLATFORM)
    return fail_lib(CLI_FAIL, rc, "OpenCL (use --backend ref for the CPU reference)");
  if (rc) {
    /* A spec that matches nothing is a typo the user can fix. */
    int code = rc == DLCA_ENODEVICE || rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL;
    return fail_lib(code, rc, r->opt.device ? "--device" : "OpenCL device (default)");
  }
  dlca_device_info info;
  dlca_context_device(r->ctx, &info);
  snprintf(r->device, sizeof r->device, "%s (%s, OpenCL device %s)", info.name, info.platform, info.spec);
  return 0;
}

/* The gol twin has the training trainer's model and configuration, except a
 * batch of all 512 boards, uploaded once: accuracy on 20 random boards says
 * little, on all 512 it says whether the rule was learnt. */
static int setup_gol_eval(run *r) {
  dlca_train_config c = r->cfg;
  c.batch = GOL_BOARDS;
  int rc = dlca_trainer_new(r->ctx, r->model, &c, &r->gol_eval);
  if (rc) return fail_lib(CLI_FAIL, rc, "gol evaluation trainer");
  float *x = malloc(sizeof(float) * 9 * GOL_BOARDS), *y = malloc(sizeof(float) * 9 * GOL_BOARDS);
  r->params = malloc(sizeof(float) * dlca_trainer_n_params(r->t));
  if (!x || !y || !r->params) {
    free(x);
    free(y);
    fprintf(stderr, "%s: gol evaluation boards: out of memory\n", TRAIN_PROG);
    return CLI_FAIL;
  }
  gol_all(x, y);
  rc = dlca_trainer_set_input(r->gol_eval, x);
  if (!rc) rc = dlca_trainer_set_target(r->gol_eval, y, 1);
  free(x);
  free(y);
  return rc ? fail_lib(CLI_FAIL, rc, "gol evaluation boards") : 0;
}

static int setup_trainer(run *r) {
  const train_options *o = &r->opt;
  int rc = dlca_trainer_new(r->ctx, r->model, &r->cfg, &r->t);
  if (rc) {
    int code = rc == DLCA_ECONFIG || rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL;
    return fail_lib(code, rc, "trainer (%s, batch %d, %d steps)", r->preset.name, r->cfg.batch, r->cfg.steps);
  }
  if (o->resume && (rc = dlca_trainer_load_checkpoint(r->t, o->resume)))
    return fail_lib(input_code(rc), rc, "--resume");
  if (!target_is_gol(&r->preset) && (rc = dlca_trainer_set_target(r->t, r->target, 0)))
    return fail_lib(CLI_FAIL, rc, "target");
  if (target_is_gol(&r->preset) && (rc = setup_gol_eval(r))) return rc;
  return 0;
}

/* gol: epoch e trains on its own slice of the shuffled boards. */
static int feed_gol(run *r, uint64_t epoch) {
  gol_batch(r->gol_order, epoch, r->cfg.batch, r->gol_x, r->gol_y);
  int rc = dlca_trainer_set_input(r->t, r->gol_x);
  if (!rc) rc = dlca_trainer_set_target(r->t, r->gol_y, 1);
  return rc ? fail_lib(CLI_FAIL, rc, "gol boards of epoch %llu", (unsigned long long)epoch) : 0;
}

static int evaluate(run *r, dlca_eval *ev) {
  int rc;
  if (r->gol_eval) {
    rc = dlca_trainer_get_params(r->t, r->params);
    if (!rc) rc = dlca_trainer_set_params(r->gol_eval, r->params);
    if (!rc) rc = dlca_trainer_eval_hard(r->gol_eval, ev);
  } else {
    rc = dlca_trainer_eval_hard(r->t, ev);
  }
  return rc ? fail_lib(CLI_FAIL, rc, "hard evaluation after epoch %llu", (unsigned long long)dlca_trainer_epoch(r->t))
            : 0;
}

static int save_checkpoint(run *r, const char *path) {
  int rc = dlca_trainer_save_checkpoint(r->t, path);
  return rc ? fail_lib(CLI_FAIL, rc, "checkpoint") : 0;
}

/* --eval-scale: fresh grids of the larger size */
#define EVAL_SCALE_GRIDS 8

typedef struct outcome {
  uint64_t first, epochs;  /* epochs done at the start and at the end */
  double soft;             /* NAN if no step ran */
  dlca_eval hard;
  int have_hard;
  uint64_t hard_epoch;     /* the epoch after which `hard` was measured */
  double train_s;
  int interrupted;         /* a signal cut the run short (not one during its last epoch) */
  /* schedules and stopping (issue 6) */
  int scheduled;           /* the lr changes during the run (set_lr is called) */
  double base_lr, cur_lr;  /* the configured lr; cooldown's current lr before warm-up */
  int cooldowns;
  /* cooldown's plateau test: the soft loss of one epoch is one batch's, so
   * noisy; it compares means over windows of --plateau epochs instead */
  double best_window;      /* the lowest window mean so far */
  double window_sum;
  uint64_t window_n;
  double last_hard;        /* the previous evaluation's hard loss (NAN before one) */
  long zero_streak;        /* evaluations in a row with hard loss 0 */
  int stopped_early;
  double min_hard;         /* the lowest hard loss of this run's evaluations (INFINITY before one) */
  int abandon_next;        /* the --abandon checkpoint to test next */
  int abandoned;           /* --abandon stopped the run at abandoned_epoch */
  uint64_t abandoned_epoch;
  int have_best;
  double best_hard;
  uint64_t best_epoch;
  /* the saved model's circuit */
  int have_gates;
  gate_summary gates;
  int have_scale;          /* --eval-scale ran: values wrong at its last step, of scale_total */
  size_t scale_errors, scale_total;
  int have_fresh;
  dlca_eval fresh;
  int have_repair;         /* --repair ran */
  int repair_bits;         /* on the packed-bits circuit (else circuit by circuit on the trainer) */
  repair_result repair;
  double repair_s;
  int have_evolve;         /* --evolve ran */
  int repair_skipped;      /* not run: more than --repair-max-wrong values wrong (repair_wrong) */
  size_t repair_wrong;
  int evolve_skipped;      /* not run: more than --evolve-max-wrong values wrong (evolve_wrong) */
  size_t evolve_wrong;
  evolve_result evolve;
  size_t evolve_reverted;  /* gates --evolve changed that were set back */
  double evolve_s;
} outcome;

static long warmup_epochs(const run *r) {
  const train_options *o = &r->opt;
  if (o->warmup >= 0) return o->warmup;
  return o->lr_schedule == TRAIN_LR_WARMUP_COSINE ? o->epochs / 20 : 0;
}

/* The lr of the epoch with 0-based index e (the one about to run). */
static float schedule_lr(const run *r, const outcome *w, uint64_t e) {
  const train_options *o = &r->opt;
  const long W = warmup_epochs(r);
  double lr = w->base_lr;
  if (o->lr_schedule == TRAIN_LR_COSINE || o->lr_schedule == TRAIN_LR_WARMUP_COSINE) {
    double span = (double)o->epochs - (double)W, p = span > 0 ? ((double)e - (double)W) / span : 1;
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    lr = o->min_lr + (w->base_lr - o->min_lr) * 0.5 * (1 + cos(3.14159265358979323846 * p));
  } else if (o->lr_schedule == TRAIN_LR_COOLDOWN) {
    lr = w->cur_lr;
  }
  if (W > 0 && e < (uint64_t)W) lr *= (double)(e + 1) / (double)W;
  float f = (float)lr;
  return f > 0 ? f : 1e-30f; /* a cosine's last epochs may round to 0; set_lr wants > 0 */
}

/* Cooldown: lr *= factor, at most max_cooldowns times, never below min_lr. */
static void cool_down(run *r, outcome *w, uint64_t e, const char *why) {
  const train_options *o = &r->opt;
  if (o->lr_schedule != TRAIN_LR_COOLDOWN || w->cooldowns >= o->max_cooldowns) return;
  double old = w->cur_lr;
  w->cur_lr *= o->cooldown_factor;
  if (w->cur_lr < o->min_lr) w->cur_lr = o->min_lr;
  w->cooldowns++;
  w->window_sum = 0, w->window_n = 0; /* the next window starts at the new lr */
  if (!o->quiet) {
    progress_break(&r->prog);
    fprintf(stderr, "%s: epoch %llu: %s; lr %g -> %g (cooldown %d of %ld)\n", TRAIN_PROG, (unsigned long long)e, why,
            old, w->cur_lr, w->cooldowns, o->max_cooldowns);
  }
}

/* --keep-best: the logits of the evaluation in w->hard (at epoch e) become
 * the best where none is kept yet or they are no worse (ties: the later). */
static int keep_if_best(run *r, outcome *w, uint64_t e) {
  const double h = w->hard.hard_loss;
  if (!r->opt.keep_best || (w->have_best && h > w->best_hard)) return 0;
  int rc = dlca_trainer_get_params(r->t, r->best);
  if (rc) return fail_lib(CLI_FAIL, rc, "--keep-best: logits after epoch %llu", (unsigned long long)e);
  w->have_best = 1, w->best_hard = h, w->best_epoch = e;
  return 0;
}

/* After each hard evaluation at epoch e: --keep-best, cooldown on a hard loss
 * that reaches 0, and the --early-stop streak. */
static int after_eval(run *r, outcome *w, uint64_t e) {
  const train_options *o = &r->opt;
  double h = w->hard.hard_loss;
  int rc = keep_if_best(r, w, e);
  if (rc) return rc;
  if (h == 0 && !(w->last_hard == 0)) cool_down(r, w, e, "hard loss 0");
  w->zero_streak = h == 0 ? w->zero_streak + 1 : 0;
  w->last_hard = h;
  if (o->early_stop > 0 && w->zero_streak >= o->early_stop) w->stopped_early = 1;
  if (h < w->min_hard) w->min_hard = h;
  /* --abandon: each checkpoint is judged once, at the first evaluation from its epoch on */
  while (w->abandon_next < o->n_abandon && e >= (uint64_t)o->abandon_epoch[w->abandon_next]) {
    if (w->min_hard > o->abandon_above[w->abandon_next]) {
      w->abandoned = 1, w->abandoned_epoch = e;
      break;
    }
    w->abandon_next++;
  }
  return 0;
}

static int train(run *r, outcome *out) {
  const train_options *o = &r->opt;
  const uint64_t total = (uint64_t)o->epochs;
  uint64_t e = dlca_trainer_epoch(r->t), row_epoch = e;
  double row_time = cli_now(), t0 = row_time;
  int rc;
  out->first = e;
  out->soft = NAN;
  out->last_hard = NAN;
  out->base_lr = out->cur_lr = r->cfg.optim.lr;
  out->best_window = INFINITY;
  out->min_hard = INFINITY;
  out->scheduled = o->lr_schedule != TRAIN_LR_CONSTANT || warmup_epochs(r) > 0;
  /* --keep-best from a --model: the start is a candidate too, so that going
   * on from a near miss (--rescale-logits) never saves a worse circuit */
  if (o->keep_best && o->model && e < total && ((rc = evaluate(r, &out->hard)) || (rc = keep_if_best(r, out, e))))
    return rc;
  progress_init(&r->prog, stderr, o->quiet, e, total);
  shown_progress = &r->prog;
  while (e < total && !stop_signal) {
    if (r->gol_eval && (rc = feed_gol(r, e))) return rc;
    if (out->scheduled && (rc = dlca_trainer_set_lr(r->t, schedule_lr(r, out, e))))
      return fail_lib(CLI_FAIL, rc, "lr of epoch %llu", (unsigned long long)e + 1);
    if ((rc = dlca_trainer_step(r->t))) return fail_lib(CLI_FAIL, rc, "epoch %llu", (unsigned long long)e + 1);
    if ((rc = dlca_trainer_loss(r->t, &out->soft))) return fail_lib(CLI_FAIL, rc, "loss of epoch %llu",
                                                                    (unsigned long long)e + 1);
    e = dlca_trainer_epoch(r->t);
    if (!isfinite(out->soft)) {
      progress_break(&r->prog);
      fprintf(stderr,
              "%s: epoch %llu: the soft loss is %g: the run has diverged (a smaller --lr may help)%s\n",
              TRAIN_PROG, (unsigned long long)e, out->soft,
              o->checkpoint ? "; the last checkpoint written is kept" : "");
      return CLI_FAIL;
    }
    if (o->lr_schedule == TRAIN_LR_COOLDOWN) {
      out->window_sum += out->soft;
      if (++out->window_n == (uint64_t)o->plateau) {
        double mean = out->window_sum / (double)out->window_n;
        out->window_sum = 0, out->window_n = 0;
        if (mean < out->best_window) out->best_window = mean;
        else cool_down(r, out, e, "mean soft loss on a plateau");
      }
    }
    if (e % (uint64_t)o->eval_every == 0 || e == total) {
      if ((rc = evaluate(r, &out->hard))) return rc;
      out->have_hard = 1, out->hard_epoch = e;
      double now = cli_now(), rate = now > row_time ? (double)(e - row_epoch) / (now - row_time) : 0;
      if (csvlog_row(&r->log, e, out->soft, &out->hard, rate)) {
        progress_break(&r->prog);
        fprintf(stderr, "%s: --log %s: write failed\n", TRAIN_PROG, o->log);
        return CLI_FAIL;
      }
      row_epoch = e, row_time = now;
      if ((rc = after_eval(r, out, e))) return rc;
    }
    /* The last epoch's checkpoint is written by finish(), after training. */
    if (o->checkpoint && e % (uint64_t)o->checkpoint_every == 0 && e < total &&
        (rc = save_checkpoint(r, o->checkpoint)))
      return rc;
    progress_update(&r->prog, e, out->soft, out->have_hard ? &out->hard : NULL);
    if (out->stopped_early || out->abandoned) break;
  }
  progress_break(&r->prog);
  out->epochs = e;
  out->train_s = cli_now() - t0;
  out->interrupted = stop_signal && e < total;
  return 0;
}

static int relax_off(const dlca_relax *x) {
  return (x->temperature == 0 || x->temperature == 1) && x->gumbel_scale == 0 && !x->straight_through &&
         x->grad_noise == 0;
}

static void print_summary(const run *r, const outcome *w) {
  char wall[32];
  double total_s = cli_now() - r->t_start;
  printf("preset:         %s\n", r->preset.name);
  printf("backend:        %s\n", dlca_trainer_backend(r->t));
  printf("device:         %s\n", r->device);
  if (model_param(r) == DLCA_PARAM_IWP) {
    printf("gates:          iwp, the input-wise parametrisation: 4 logits per gate");
    if (r->opt.model) printf(", from %s\n", r->opt.model);
    else if (r->opt.resume) printf(", resumed\n");
    else printf(", pass-through init z = %g\n", r->opt.iwp_init > 0 ? r->opt.iwp_init : (double)DLCA_IWP_INIT_DEFAULT);
  } else {
    printf("gates:          softmax16, the paper's parametrisation: 16 logits per gate\n");
  }
  if (r->recipe) {
    char what[256];
    train_recipe_describe(r->recipe, 0, what, sizeof what);
    printf("recipe:         recommended for %s: %s (--reference-protocol: the paper's)\n", r->preset.name, what);
  }
  else printf("recipe:         %s\n", relax_off(&r->cfg.relax) ? "the paper's (no relaxation)" : "custom relaxation");
  printf("epochs:         %llu (%llu in this run)\n", (unsigned long long)w->epochs,
         (unsigned long long)(w->epochs - w->first));
  if (isnan(w->soft)) printf("soft loss:      -\n");
  else printf("soft loss:      %.9g\n", w->soft);
  if (w->have_hard) {
    printf("hard loss:      %.9g", w->hard.hard_loss);
    if (w->hard_epoch != w->epochs) printf(" (at epoch %llu)", (unsigned long long)w->hard_epoch);
    printf("\n");
    printf("hard accuracy:  %.4f%% (%zu of %zu values wrong)\n", 100 * w->hard.accuracy, w->hard.errors,
           w->hard.total);
  } else {
    printf("hard loss:      -\nhard accuracy:  -\n");
  }
  if (w->stopped_early)
    printf("stopped early:  hard loss 0 at %ld evaluations in a row\n", r->opt.early_stop);
  if (w->abandoned) {
    const int i = w->abandon_next;
    printf("abandoned:      at epoch %llu, the lowest hard loss %.9g is above %g (--abandon %ld:%g); not "
           "repaired, evolved or checked on fresh grids\n",
           (unsigned long long)w->abandoned_epoch, w->min_hard, r->opt.abandon_above[i], r->opt.abandon_epoch[i],
           r->opt.abandon_above[i]);
  }
  if (w->scheduled)
    printf("lr:             %s from %g, last %g\n", train_lr_schedule_names[r->opt.lr_schedule], w->base_lr,
           dlca_trainer_lr(r->t));
  if (r->opt.lr_schedule == TRAIN_LR_COOLDOWN) printf("cooldowns:      %d of at most %ld\n", w->cooldowns,
                                                      r->opt.max_cooldowns);
  if (w->have_best)
    printf("best hard loss: %.9g at epoch %llu%s\n", w->best_hard, (unsigned long long)w->best_epoch,
           w->have_gates ? " (the model below)" : "");
  if (w->have_repair) {
    const repair_result *q = &w->repair;
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
    const evolve_result *q = &w->evolve;
    printf("evolve:         %zu -> %zu of %zu values wrong, hard loss %.9g -> %.9g (%llu generation%s of %ld "
           "lineages x %ld, %llu steps taken, %llu better; %zu circuits scored; %zu gates changed, %zu of them "
           "set back; %.1f s)\n",
           q->before.errors, q->after.errors, q->after.total, q->before.hard_loss, q->after.hard_loss,
           (unsigned long long)q->generations, q->generations == 1 ? "" : "s", r->opt.evolve_lineages,
           r->opt.evolve_lambda, (unsigned long long)q->taken, (unsigned long long)q->improved, q->scored, q->drift,
           w->evolve_reverted, w->evolve_s);
  }
  if (w->have_gates) gate_summary_print(stdout, &w->gates);
  if (w->have_scale) {
    const long S = r->opt.eval_scale;
    printf("generalisation: %.4f%% (%zu of %zu values wrong; %d fresh grids of %ldx%ld, %ld steps, scale %ld)\n",
           100.0 * (1.0 - (double)w->scale_errors / (double)w->scale_total), w->scale_errors, w->scale_total,
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
  if (w->epochs > w->first && w->train_s > 0)
    printf(", %.3g epochs/s", (double)(w->epochs - w->first) / w->train_s);
  printf("\n");
  if (r->opt.save && !w->interrupted) {
    printf("model:          %s", r->save_shown ? r->save_shown : r->opt.save);
    if (w->have_best) printf(" (--keep-best: the logits of epoch %llu)", (unsigned long long)w->best_epoch);
    printf("\n");
  }
  if (r->opt.log) printf("log:            %s\n", r->log_shown ? r->log_shown : r->opt.log);
}

/* --eval-scale S: the hard circuit of m on 8 fresh random grids S times the
 * training grid's sides for S times its steps, against the checkerboard of
 * that size (the paper's generalisation test; dlca-eval --scale is the same
 * check). Returns 0, or CLI_FAIL after printing why. */
static int eval_scale(run *r, const dlca_model *m, outcome *w) {
  const int S = (int)r->opt.eval_scale, H = S * r->cfg.height, W = S * r->cfg.width, T = S * r->cfg.steps;
  const int C = r->preset.shape.channels, grids = EVAL_SCALE_GRIDS;
  const size_t n = (size_t)grids * H * W * C;
  /* y zeroed: target_checkerboard writes channel 0 only */
  float *x = malloc(sizeof(float) * n), *y = calloc((size_t)H * W * C, sizeof(float));
  rollout ro;
  memset(&ro, 0, sizeof ro);
  int rc = x && y ? DLCA_OK : DLCA_ENOMEM;
  if (!rc) {
    random_bits(x, n, r->opt.seed, 0x54530001u); /* "TS": apart from the trainer's draws */
    target_checkerboard(H, W, C, y);
    rc = rollout_new(r->ctx, m, &r->cfg, grids, H, W, x, y, dlca_rng_u32(r->opt.seed, 0x54530002u, 0), &ro);
  }
  dlca_eval ev;
  memset(&ev, 0, sizeof ev);
  for (int s = 0; s < T && !rc; s++) rc = rollout_step(&ro, NULL, &ev);
  rollout_free(&ro);
  free(x), free(y);
  if (rc) return fail_lib(CLI_FAIL, rc, "--eval-scale %d: a %dx%d grid, %d steps", S, H, W, T);
  w->have_scale = 1, w->scale_errors = ev.errors, w->scale_total = ev.total;
  return 0;
}

/* --repair: the hard evaluation of a candidate circuit, on the trainer that
 * evaluate() uses (gol: its 512 boards) */
static int repair_score(void *ctx, const float *logits, dlca_eval *ev) {
  run *r = ctx;
  dlca_trainer *t = r->gol_eval ? r->gol_eval : r->t;
  int rc = dlca_trainer_set_params(t, logits);
  return rc ? rc : dlca_trainer_eval_hard(t, ev);
}

/* --repair and --evolve progress: a line at every tenth of a pass (of the
 * generations), with the rate and the time left of it, and at its end; a
 * nonzero return (Ctrl-C) stops the search with the best circuit so far */
static int search_tick(run *r, const char *what, const char *unit, int pass, size_t done, size_t total,
                       const dlca_eval *best) {
  if (r->opt.quiet) return stop_signal != 0;
  if (done < r->tick_last) /* a new pass */
    r->tick_t0 = cli_now(), r->tick_tenth = 0;
  r->tick_last = done;
  const int tenth = total ? (int)(10 * done / total) : 10;
  if (tenth <= r->tick_tenth && done != total && best->errors && !stop_signal) return 0;
  r->tick_tenth = tenth;
  const double dt = cli_now() - r->tick_t0, rate = dt > 0 ? (double)done / dt : 0;
  char eta[32], pass_s[32] = "";
  if (pass >= 0) snprintf(pass_s, sizeof pass_s, "pass %d, ", pass + 1);
  fprintf(stderr, "%s: %s: %s%s %zu of %zu%s: %zu of %zu values wrong, hard loss %.9g; %.0f %s/s, ETA %s\n",
          TRAIN_PROG, what, pass_s, unit, done, total, stop_signal ? " (interrupted)" : "", best->errors,
          best->total, best->hard_loss, rate, unit, cli_duration(rate > 0 ? (double)(total - done) / rate : 0, eta,
                                                                 sizeof eta));
  return stop_signal != 0;
}

static int repair_tick(void *ctx, int pass, size_t gate, size_t gates, const dlca_eval *best) {
  return search_tick(ctx, "--repair", "gates", pass, gate, gates, best);
}

static int evolve_tick(void *ctx, int pass, size_t gen, size_t gens, const dlca_eval *cur) {
  (void)pass;
  return search_tick(ctx, "--evolve", "generations", -1, gen, gens, cur);
}

/* --repair N on the saved circuit (the trainer's logits), which it replaces.
 * The search runs on the packed-bits circuit of the evaluation (all cores,
 * many variants a pass) and the kept ops go back into the logits; where the
 * start grids are not 0/1 it scores each circuit on the trainer instead. */
static int repair(run *r, outcome *w, int passes_on, int evolve_on) {
  const size_t P = dlca_trainer_n_params(r->t);
  const int npg = dlca_model_params_per_gate(r->model);
  dlca_trainer *te = r->gol_eval ? r->gol_eval : r->t;
  float *l = malloc(sizeof(float) * P);
  if (!l) return fail_lib(CLI_FAIL, DLCA_ENOMEM, "--repair");
  double t0 = cli_now();
  dlca_bits *b = NULL;
  dlca_eval ev;
  r->tick_t0 = t0, r->tick_last = 0, r->tick_tenth = 0;
  int rc = dlca_trainer_get_params(r->t, l);
  if (!rc && (rc = dlca_trainer_set_params(te, l)) == DLCA_OK && dlca_trainer_bits(te, &b) == DLCA_OK) {
    dlca_eval end, cur; /* cur: the circuit's evaluation where known, for the gates below */
    int have_cur = 0;
    if (passes_on && r->opt.repair_max_wrong >= 0) { /* a far miss is not worth the passes */
      have_cur = !(rc = dlca_bits_run(b, &cur, NULL));
      if (have_cur && cur.errors > (size_t)r->opt.repair_max_wrong)
        passes_on = 0, w->repair_skipped = 1, w->repair_wrong = cur.errors;
    }
    if (!rc && passes_on) {
      rc = repair_bits(b, (int)r->opt.repair, repair_tick, r, &w->repair);
      w->have_repair = 1, w->repair_bits = 1;
      w->repair_s = cli_now() - t0;
      cur = w->repair.after, have_cur = !rc;
    }
    if (!rc && evolve_on && r->opt.evolve_max_wrong >= 0) { /* only near misses are worth the generations */
      if (!have_cur) rc = dlca_bits_run(b, &cur, NULL);
      if (!rc && cur.errors > (size_t)r->opt.evolve_max_wrong)
        evolve_on = 0, w->evolve_skipped = 1, w->evolve_wrong = cur.errors;
    }
    if (!rc && evolve_on && !stop_signal) {
      const double t1 = cli_now();
      r->tick_t0 = t1, r->tick_last = 0, r->tick_tenth = 0;
      const size_t G = dlca_bits_n_gates(b);
      uint8_t *orig = malloc(G);
      if (!orig) rc = DLCA_ENOMEM;
      for (size_t g = 0; !rc && g < G; g++) orig[g] = (uint8_t)dlca_bits_op(b, g);
      const evolve_params ep = {(uint64_t)r->opt.evolve, dlca_rng_u32(r->opt.seed, 0x45564F4Cu, 0), /* "EVOL" */
                                (int)r->opt.evolve_lineages, (int)r->opt.evolve_lambda, (int)r->opt.evolve_changes,
                                64};
      if (!rc) rc = repair_evolve(b, &ep, evolve_tick, r, &w->evolve);
      /* drift changed many gates that the result does not need: set them back */
      if (!rc) rc = repair_tidy(b, orig, &w->evolve_reverted);
      free(orig);
      w->have_evolve = 1;
      w->evolve_s = cli_now() - t1;
    }
    for (size_t g = 0; !rc && g < P / (size_t)npg; g++) repair_set_op(l, npg, g, dlca_bits_op(b, g));
    if (!rc) rc = dlca_bits_run(b, &end, NULL);
    dlca_bits_free(b);
    /* the trainer's own evaluation of the result must agree */
    if (!rc && !(rc = repair_score(r, l, &ev)) && ev.errors != end.errors) {
      free(l);
      return fail_lib(CLI_FAIL, DLCA_EPARITY,
                      "--repair/--evolve: the trainer finds %zu values wrong in the changed circuit, the "
                      "packed-bits circuit %zu", ev.errors, end.errors);
    }
  } else if (!rc && evolve_on) {
    free(l);
    return fail_lib(CLI_USAGE, DLCA_EINVAL, "--evolve: needs start grids of 0s and 1s (the packed-bits circuit)");
  } else if (!rc && passes_on && r->opt.repair_max_wrong >= 0 && !(rc = repair_score(r, l, &ev)) &&
             ev.errors > (size_t)r->opt.repair_max_wrong) {
    w->repair_skipped = 1, w->repair_wrong = ev.errors;
  } else if (!rc && passes_on) {
    rc = repair_circuit(l, P / (size_t)npg, npg, (int)r->opt.repair, repair_score, repair_tick, r, &w->repair);
    w->have_repair = 1, w->repair_s = cli_now() - t0;
  }
  if (!rc) rc = dlca_trainer_set_params(r->t, l);
  free(l);
  if (rc) return fail_lib(CLI_FAIL, rc, "--repair");
  return 0;
}

static int finish(run *r, outcome *w) {
  const train_options *o = &r->opt;
  int rc;
  if (w->interrupted) {
    const char *path = o->checkpoint ? o->checkpoint : TRAIN_INTERRUPT_CKPT;
    if ((rc = save_checkpoint(r, path))) return rc;
    fprintf(stderr, "%s: interrupted after epoch %llu; checkpoint saved to %s (continue with --resume %s)\n",
            TRAIN_PROG, (unsigned long long)w->epochs, path, path);
    if (!o->quiet) print_summary(r, w);
    return CLI_INTERRUPTED;
  }
  /* A resumed run that had nothing left to do still reports where it stands. */
  if (!w->have_hard) {
    if ((rc = evaluate(r, &w->hard))) return rc;
    w->have_hard = 1, w->hard_epoch = w->epochs;
    if ((rc = after_eval(r, w, w->epochs))) return rc;
  }
  /* The checkpoint holds the last state, so that --resume goes on from it;
   * the model saved and described below may be the best one instead. */
  if (o->checkpoint && (rc = save_checkpoint(r, o->checkpoint))) return rc;
  if (w->have_best && (rc = dlca_trainer_set_params(r->t, r->best)))
    return fail_lib(CLI_FAIL, rc, "--keep-best: restoring the logits of epoch %llu",
                    (unsigned long long)w->best_epoch);
  /* the recipe's repair is for what this run trained; --repair given repairs any model (--epochs 0) */
  /* an abandoned run is far from working: the searches and checks would only cost time */
  const int repair_now = r->opt.repair > 0 && !(r->repair_of_recipe && w->epochs == w->first) && !w->abandoned;
  const int evolve_now = r->opt.evolve > 0 && !(r->evolve_of_recipe && w->epochs == w->first) && !w->abandoned;
  if ((repair_now || evolve_now) && (rc = repair(r, w, repair_now, evolve_now))) return rc;
  dlca_model *m;
  if ((rc = dlca_trainer_export_model(r->t, &m))) return fail_lib(CLI_FAIL, rc, o->save ? "--save" : "the model");
  gate_summary_of(m, r->cfg.loss_channels, r->cfg.n_loss_channels, &w->gates);
  w->have_gates = 1;
  rc = o->save ? dlca_model_save(m, o->save) : 0;
  if (rc) {
    dlca_model_free(m);
    return fail_lib(CLI_FAIL, rc, "--save");
  }
  rc = o->eval_scale > 0 && !w->abandoned ? eval_scale(r, m, w) : 0;
  dlca_model_free(m);
  if (rc) return rc;
  r->fresh_ok = 0;
  r->abandoned_at = w->abandoned ? w->abandoned_epoch : 0;
  if (o->eval_fresh > 0 && !w->abandoned) {
    dlca_trainer *ft = r->t;
    if (r->gol_eval) { /* gol: all 512 boards, on the twin */
      rc = dlca_trainer_get_params(r->t, r->params);
      if (!rc) rc = dlca_trainer_set_params(r->gol_eval, r->params);
      if (rc) return fail_lib(CLI_FAIL, rc, "--eval-fresh");
      ft = r->gol_eval;
    }
    if ((rc = dlca_trainer_eval_hard_fresh(ft, o->seed, (int)o->eval_fresh, &w->fresh)))
      return fail_lib(CLI_FAIL, rc, "--eval-fresh");
    w->have_fresh = 1;
    r->fresh_ok = w->fresh.errors == 0;
  }
  if (w->have_scale && w->scale_errors) r->fresh_ok = 0;
  if (!o->quiet) print_summary(r, w);
  return 0;
}

static void apply_overrides(run *r) {
  const train_options *o = &r->opt;
  dlca_train_config_from_preset(&r->preset, &r->cfg);
  r->cfg.seed = o->seed;
  if (o->batch > 0) r->cfg.batch = (int)o->batch;
  if (o->steps > 0) r->cfg.steps = (int)o->steps;
  if (o->lr > 0) r->cfg.optim.lr = (float)o->lr;
  /* the preset's recommended recipe (tools/recipes.h) unless the reference
   * protocol is asked for; explicit --temperature / --gumbel win */
  r->recipe = o->recipe == TRAIN_RECIPE_REFERENCE ? NULL : train_recipe_for(r->preset.name, model_param(r));
  r->cfg.relax.temperature = o->temperature >= 0 ? (float)o->temperature : r->recipe ? r->recipe->temperature : 0;
  r->cfg.relax.gumbel_scale = o->gumbel >= 0 ? (float)o->gumbel : r->recipe ? r->recipe->gumbel : 0;
  r->cfg.relax.straight_through = o->straight_through;
  r->cfg.relax.grad_noise = (float)o->grad_noise;
  if (r->recipe) { /* the recipe's batch, epochs, schedule and stopping, where not given */
    const train_recipe *q = r->recipe;
    if (o->batch <= 0 && q->batch > 0) r->cfg.batch = q->batch;
    if (o->epochs < 0 && q->epochs > 0) r->opt.epochs = q->epochs;
    if (!o->lr_schedule_given && q->cooldown) r->opt.lr_schedule = TRAIN_LR_COOLDOWN;
    if (o->early_stop == 0) r->opt.early_stop = q->early_stop;
    if (q->keep_best) r->opt.keep_best = 1;
    if (!o->eval_every_given && q->eval_every > 0) r->opt.eval_every = q->eval_every;
    /* like the evolution's gate: the recipe's is for the recipe's repair */
    if (!o->repair_max_wrong_given && o->repair < 0) r->opt.repair_max_wrong = q->repair_max_wrong;
    if (o->repair < 0) r->opt.repair = q->repair, r->repair_of_recipe = q->repair > 0;
    /* the recipe's gate is for the recipe's evolution: --evolve N given evolves any circuit
     * (o is r->opt: the gate first, while o->evolve still says whether --evolve was given) */
    if (!o->evolve_max_wrong_given && o->evolve < 0) r->opt.evolve_max_wrong = q->evolve_max_wrong;
    if (o->evolve < 0) r->opt.evolve = q->evolve, r->evolve_of_recipe = q->evolve > 0;
    /* the recipe's --abandon is for chains: a single run always trains to its end */
    if (!o->n_abandon && o->restarts > 0 && q->abandon && train_parse_abandon(q->abandon, &r->opt))
      r->opt.n_abandon = 0; /* the table is checked by tests; never reached */
  }
  if (r->opt.repair < 0) r->opt.repair = 0;
  if (r->opt.evolve < 0) r->opt.evolve = 0;
  if (r->opt.epochs < 0) r->opt.epochs = r->preset.epochs;
}

/* Options whose meaning depends on the preset's lr and epochs. */
static int check_schedule(const run *r) {
  const train_options *o = &r->opt;
  if (o->min_lr > 0 && o->min_lr >= r->cfg.optim.lr) {
    fprintf(stderr, "%s: --min-lr: %g is not below the lr, %g\n", TRAIN_PROG, o->min_lr, r->cfg.optim.lr);
    return CLI_USAGE;
  }
  return 0;
}

static int alloc_best(run *r) {
  const train_options *o = &r->opt;
  if (o->keep_best && !(r->best = malloc(sizeof(float) * dlca_trainer_n_params(r->t)))) {
    fprintf(stderr, "%s: --keep-best: out of memory\n", TRAIN_PROG);
    return CLI_FAIL;
  }
  return 0;
}

static int run_main(run *r) {
  int rc;
  if ((rc = dlca_preset_get(r->opt.preset, &r->preset))) return fail_lib(CLI_USAGE, rc, "--preset");
  if (r->opt.eval_scale > 0 && strncmp(r->preset.name, "checkerboard", 12)) {
    fprintf(stderr, "%s: --eval-scale: the generalisation test is for the checkerboard presets, not %s\n",
            TRAIN_PROG, r->preset.name);
    return CLI_USAGE;
  }
  /* the model first: its parametrisation chooses the recipe */
  if ((rc = setup_model(r))) return rc;
  apply_overrides(r);
  if (r->opt.recipe == TRAIN_RECIPE_RECOMMENDED && !r->recipe) {
    fprintf(stderr, "%s: --recipe recommended: %s has no recommended recipe yet%s (doc/training.md)\n", TRAIN_PROG,
            r->preset.name, model_param(r) == DLCA_PARAM_IWP ? " for --param iwp" : "");
    return CLI_USAGE;
  }
  /* Cheap input checks first, so a typo never waits for a kernel build. */
  if ((rc = check_schedule(r)) || (rc = setup_target(r)) || (rc = setup_device(r)) ||
      (rc = setup_trainer(r)) || (rc = alloc_best(r)))
    return rc;
  uint64_t at = dlca_trainer_epoch(r->t);
  if (r->opt.log) {
    char err[512];
    if (csvlog_open(&r->log, r->opt.log, at, err, sizeof err)) {
      fprintf(stderr, "%s: --log %s\n", TRAIN_PROG, err);
      return CLI_USAGE;
    }
  }
  if (!r->opt.quiet) {
    fprintf(stderr, "%s: %s on %s: %zu logits (%s), batch %d, %d steps, lr %g, seed %llu, epochs %llu to %ld\n",
            TRAIN_PROG, r->preset.name, r->device, dlca_trainer_n_params(r->t),
            dlca_parametrisation_name(model_param(r)), r->cfg.batch, r->cfg.steps, r->cfg.optim.lr,
            (unsigned long long)r->opt.seed, (unsigned long long)at, r->opt.epochs);
    const dlca_relax *x = &r->cfg.relax;
    if (x->temperature > 0 || x->gumbel_scale > 0 || x->straight_through || x->grad_noise > 0)
      fprintf(stderr, "%s: relaxation: temperature %g, gumbel %g, straight-through %s, grad noise %g\n", TRAIN_PROG,
              x->temperature > 0 ? x->temperature : 1.0, x->gumbel_scale, x->straight_through ? "on" : "off",
              x->grad_noise);
    if (at >= (uint64_t)r->opt.epochs)
      fprintf(stderr, "%s: the checkpoint is at epoch %llu, --epochs is %ld: nothing to train\n", TRAIN_PROG,
              (unsigned long long)at, r->opt.epochs);
  }
  outcome w;
  memset(&w, 0, sizeof w);
  catch_signals();
  if ((rc = train(r, &w))) return rc;
  rc = finish(r, &w);
  if (csvlog_close(&r->log) && !rc) {
    fprintf(stderr, "%s: --log %s: write failed\n", TRAIN_PROG, r->opt.log);
    rc = CLI_FAIL;
  }
  return rc;
}

/* Frees what run_main set up and clears it for another run; keeps the options. */
static void run_free(run *r) {
  csvlog_close(&r->log);
  dlca_trainer_free(r->gol_eval);
  dlca_trainer_free(r->t);
  dlca_context_free(r->ctx);
  dlca_model_free(r->model);
  free(r->target);
  free(r->gol_x);
  free(r->gol_y);
  free(r->params);
  free(r->best);
  const train_options opt = r->opt;
  const double t0 = r->t_start;
  memset(r, 0, sizeof *r);
  r->opt = opt, r->t_start = t0;
}

/* The lines a chain of --restarts prints on stderr, one by one or with --jobs. */
static void chain_right(const run *r, long k, uint64_t seed) {
  fprintf(stderr, "%s: right on every fresh grid%s at run %ld (seed %llu)\n", TRAIN_PROG,
          r->opt.eval_scale > 0 ? " and on the larger grid" : "", k + 1, (unsigned long long)seed);
}

static void chain_none(long runs, long abandoned, uint64_t seed) {
  fprintf(stderr,
          "%s: --restarts: none of the %ld runs was right on every fresh grid (%ld abandoned; the last: seed %llu)\n",
          TRAIN_PROG, runs, abandoned, (unsigned long long)seed);
}

/* Run k (the runs-th of the chain) was not right: the chain's rate so far,
 * a long chain's only progress line (its length is a geometric draw).
 * abandoned_at: the epoch, 0 if it was not abandoned. */
static void chain_restart(const run *r, long k, long last, uint64_t next_seed, long runs, long abandoned,
                          uint64_t abandoned_at) {
  char why[96], took[32];
  const double dt = cli_now() - r->t_start;
  if (abandoned_at > 0)
    snprintf(why, sizeof why, "the run was abandoned at epoch %llu", (unsigned long long)abandoned_at);
  else snprintf(why, sizeof why, "the circuit is wrong on fresh grids");
  fprintf(stderr, "%s: %s: restart %ld of %ld with seed %llu (%ld run%s in %s, %.1f s a run, %ld abandoned)\n",
          TRAIN_PROG, why, k + 1, last, (unsigned long long)next_seed, runs, runs == 1 ? "" : "s",
          cli_duration(dt, took, sizeof took), dt / (double)runs, abandoned);
}

/* --jobs: a chain of --restarts with several runs at once (tools/jobs.h).
 * Run k trains in a child process with its own --save, --log and
 * --checkpoint files (PATH.runK); the parent replays each run's output in
 * the order of k, as the chain one by one prints it, and keeps the files of
 * the run that ends the chain. A run's exit code says how it ended, its
 * value the epoch it was abandoned at (0: it was not). */
enum { JOB_RIGHT = 10, JOB_WRONG = 11 };

typedef struct chain {
  run *r;
  uint64_t seed0;
  long k0, last, abandoned;
  int rc;
} chain;

/* PATH.runK, or NULL without PATH; malloc'd. */
static char *run_path(const char *path, long k) {
  if (!path) return NULL;
  size_t n = strlen(path) + 32;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s.run%ld", path, k);
  return p;
}

static int chain_task(void *ctx, long k, long *abandoned_at) {
  chain *c = ctx;
  run *r = c->r;
  r->opt.seed = c->seed0 + 1000 * (uint64_t)k;
  r->save_shown = r->opt.save, r->log_shown = r->opt.log;
  r->opt.save = run_path(r->opt.save, k);
  r->opt.log = run_path(r->opt.log, k);
  r->opt.checkpoint = run_path(r->opt.checkpoint, k);
  int rc = run_main(r);
  if (!rc) rc = r->fresh_ok ? JOB_RIGHT : JOB_WRONG;
  *abandoned_at = (long)r->abandoned_at;
  run_free(r);
  return rc;
}

/* Run k's files become the chain's (keep), or go (drop). */
static int chain_files(chain *c, long k, int keep) {
  const char *paths[3] = {c->r->opt.save, c->r->opt.log, c->r->opt.checkpoint};
  int rc = 0;
  for (int i = 0; i < 3; i++) {
    char *p = run_path(paths[i], k);
    if (!p) continue;
    if (keep && rename(p, paths[i]) && errno != ENOENT && !rc) {
      fprintf(stderr, "%s: --jobs: %s -> %s: %s\n", TRAIN_PROG, p, paths[i], strerror(errno));
      rc = CLI_FAIL;
    }
    if (!keep) remove(p);
    /* a run killed while it wrote left the library's temporary file (PATH.runK.tmp.XXXXXX) */
    glob_t g;
    char pat[4096];
    snprintf(pat, sizeof pat, "%s.tmp.*", p);
    if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
      for (size_t j = 0; j < g.gl_pathc; j++) remove(g.gl_pathv[j]);
      globfree(&g);
    }
    free(p);
  }
  return rc;
}

static void chain_drop(void *ctx, long k) { chain_files(ctx, k, 0); }

static int chain_done(void *ctx, long k, int code, long abandoned_at) {
  chain *c = ctx;
  const uint64_t seed = c->seed0 + 1000 * (uint64_t)k;
  c->abandoned += code == JOB_WRONG && abandoned_at > 0;
  if (code == JOB_RIGHT) {
    chain_right(c->r, k, seed);
    c->rc = chain_files(c, k, 1);
    return 1;
  }
  if (code != JOB_WRONG) { /* a failed run's message came with its output */
    if (code > 128)
      fprintf(stderr, "%s: --jobs: run %ld (seed %llu) was killed by signal %d\n", TRAIN_PROG, k + 1,
              (unsigned long long)seed, code - 128);
    chain_files(c, k, 0);
    c->rc = code > 128 ? CLI_FAIL : code;
    return 1;
  }
  if (k == c->last) {
    chain_none(k + 1 - c->k0, c->abandoned, seed);
    c->rc = chain_files(c, k, 1);
    return 1;
  }
  chain_files(c, k, 0);
  chain_restart(c->r, k, c->last, seed + 1000, k + 1 - c->k0, c->abandoned, (uint64_t)abandoned_at);
  return 0;
}

static int run_chain_jobs(run *r) {
  chain c = {r, r->opt.seed, r->opt.restart_from, r->opt.restart_from + r->opt.restarts, 0, 0};
  jobs_spec s = {r->opt.jobs, c.k0, c.last, chain_task, chain_done, chain_drop, &c, &stop_signal};
  catch_signals();
  long next = c.k0;
  const int jr = jobs_run(&s, &next);
  if (jr == JOBS_FAILED) {
    fprintf(stderr, "%s: --jobs: cannot start a run (a process or its output file): %s; go on with --restart-from %ld\n",
            TRAIN_PROG, strerror(errno), next);
    return CLI_FAIL;
  }
  if (jr == JOBS_STOPPED) {
    if (next > c.k0)
      fprintf(stderr, "%s: --jobs: interrupted; runs %ld to %ld were done, none right (go on with --restart-from %ld)\n",
              TRAIN_PROG, c.k0, next - 1, next);
    else
      fprintf(stderr, "%s: --jobs: interrupted before run %ld was done (go on with --restart-from %ld)\n", TRAIN_PROG,
              c.k0, c.k0);
    return CLI_INTERRUPTED;
  }
  return c.rc;
}

int main(int argc, char **argv) {
  run r;
  memset(&r, 0, sizeof r);
  r.t_start = cli_now();
  int rc = train_options_parse(argc, argv, &r.opt);
  if (rc) return rc;
  if (r.opt.help) {
    train_options_help();
    return 0;
  }
  if (r.opt.version) {
    printf("%s (libdlca_cl) %s\n", TRAIN_PROG, dlca_version_string());
    return 0;
  }
  quiet_mode = r.opt.quiet;
  /* each run's summary reaches a log file as it is printed, also when a
   * long --restarts chain is killed (H100, sweep37.sh: a killed chain lost
   * its last two summaries in the stdio buffer) */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (r.opt.jobs > 1) return run_chain_jobs(&r);
  /* --restarts: run k trains seed + 1000 k while the fresh check fails */
  const uint64_t seed0 = r.opt.seed;
  const long k0 = r.opt.restart_from, last = k0 + r.opt.restarts;
  r.opt.seed = seed0 + 1000 * (uint64_t)k0;
  long abandoned = 0;
  for (long k = k0;; k++) {
    rc = run_main(&r);
    abandoned += !rc && r.abandoned_at > 0;
    const int more = !rc && !r.fresh_ok && k < last && !stop_signal;
    if (r.opt.restarts > 0 && !rc && r.fresh_ok) chain_right(&r, k, r.opt.seed);
    else if (r.opt.restarts > 0 && !rc && !more) chain_none(k + 1 - k0, abandoned, r.opt.seed);
    if (!more) break;
    const uint64_t at = r.abandoned_at;
    run_free(&r);
    r.opt.seed = seed0 + 1000 * (uint64_t)(k + 1);
    chain_restart(&r, k, last, r.opt.seed, k + 1 - k0, abandoned, at);
  }
  run_free(&r);
  return rc;
}
