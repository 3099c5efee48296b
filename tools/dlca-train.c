/* dlca-train: trains one of the paper's presets on an OpenCL device or the
 * CPU reference over the library's training loop (dlca_cl/recipe.h), with a
 * CSV log, checkpoints and a clean stop on Ctrl-C. Usage: --help, or
 * doc/dlca-train.md. What it prints is in train_report.c, the chain of
 * --restarts in train_chain.c. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "train_run.h"

volatile sig_atomic_t train_stop_signal;
static int quiet_mode;

/* A second request to stop quits at once, unless it comes within
 * REPEAT_S of the first: one request can arrive twice (timeout(1) signals
 * the tool and then its process group; threads of OpenMP and the repairs
 * can each take one), and must still end with the summary and the files. */
#define REPEAT_S 0.5

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe (POSIX.1-2008) */
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void on_signal(int sig) {
  static const char msg[] = "\n" TRAIN_PROG ": stopping after this epoch (press Ctrl-C again to quit at once)\n";
  static volatile double first_s;
  const double now = monotonic_s();
  if (train_stop_signal) {
    if (now - first_s < REPEAT_S) return;
    signal(sig, SIG_DFL); /* the second request: its default action, now */
    raise(sig);
    return;
  }
  first_s = now;
  train_stop_signal = sig;
  if (!quiet_mode) {
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1); /* write(2) is async-signal-safe */
    (void)unused;
  }
}

void train_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* A SIGINT ignored on entry (a background job, nohup) stays ignored. */
  struct sigaction old;
  if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* A file the user named failed to load: their input is at fault, unless
 * the host ran out of memory. */
static int input_code(int status) {
  return status == DLCA_ENOMEM || status == DLCA_EDEVMEM ? CLI_FAIL : CLI_USAGE;
}

/* A fresh model of the preset's shape in the --param parametrisation, or
 * the --model file (which brings its own). */
static int setup_model(run *r) {
  const train_options *o = &r->opt;
  int rc;
  if (!o->model) {
    dlca_model_shape s = r->preset.shape;
    s.parametrisation = o->param == DLCA_PARAM_IWP ? DLCA_PARAM_IWP : DLCA_PARAM_SOFTMAX16;
    if ((rc = dlca_model_new(&s, o->seed, &r->model))) return train_fail(r, CLI_FAIL, rc, "%s model", r->preset.name);
    if (o->iwp_init > 0 && (rc = dlca_model_init_pass_through(r->model, (float)o->iwp_init)))
      return train_fail(r, CLI_USAGE, rc, "--iwp-init");
    return 0;
  }
  if ((rc = dlca_model_load(o->model, &r->model))) return train_fail(r, input_code(rc), rc, "--model");
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

static int setup_target(run *r) {
  if (dlca_preset_is_gol(&r->preset)) {
    if (r->opt.target) {
      fprintf(stderr, "%s: --target: the gol preset's targets are Life steps; --target is for growth and colour\n",
              TRAIN_PROG);
      return CLI_USAGE;
    }
    return 0;
  }
  dlca_model_shape s;
  dlca_model_get_shape(r->model, &s);
  int rc = dlca_preset_target(&r->preset, s.channels, r->opt.target, &r->target);
  if (rc) fprintf(stderr, "%s: %s\n", TRAIN_PROG, dlca_last_error());
  return rc ? input_code(rc) : 0;
}

static int setup_device(run *r) {
  if (r->opt.backend_ref) {
    snprintf(r->device, sizeof r->device, "CPU reference");
    return 0;
  }
  int rc = dlca_context_new(r->opt.device, &r->ctx);
  if (rc) return cli_context_fail(TRAIN_PROG, r->opt.device, rc, "use --backend ref for the CPU reference");
  dlca_device_info info;
  dlca_context_device(r->ctx, &info);
  snprintf(r->device, sizeof r->device, "%s (%s, OpenCL device %s)", info.name, info.platform, info.spec);
  return 0;
}

/* The library's loop: the trainer, its target and the gol boards. */
static int setup_loop(run *r) {
  int rc = dlca_loop_new(r->ctx, &r->preset, r->model, &r->cfg, r->target, &r->lo, &r->loop);
  if (rc) {
    int code = rc == DLCA_ECONFIG || rc == DLCA_EINVAL || rc == DLCA_ETUNING ? CLI_USAGE : CLI_FAIL;
    return train_fail(r, code, rc, "trainer (%s, batch %d, %d steps)", r->preset.name, r->cfg.batch, r->cfg.steps);
  }
  r->t = dlca_loop_trainer(r->loop);
  dlca_loop_set_events(r->loop, train_on_event, r);
  if (r->opt.resume && (rc = dlca_trainer_load_checkpoint(r->t, r->opt.resume)))
    return train_fail(r, input_code(rc), rc, "--resume");
  return 0;
}

/* Writes the checkpoint; 0, or CLI_FAIL after saying so. */
static int save_checkpoint(run *r, const char *path) {
  int rc = dlca_trainer_save_checkpoint(r->t, path);
  return rc ? train_fail(r, CLI_FAIL, rc, "checkpoint %s", path) : 0;
}

/* The epochs, with the CSV rows, the periodic checkpoints and the progress
 * line. A checkpoint that fails ends the training (*ckpt_failed), so that
 * the model is still saved. */
static int train(run *r, outcome *out, int *ckpt_failed) {
  const train_options *o = &r->opt;
  const uint64_t total = (uint64_t)o->epochs;
  dlca_loop_result *w = &out->w;
  uint64_t e = dlca_trainer_epoch(r->t), row_epoch = e;
  double row_time = cli_now(), t0 = row_time;
  int rc;
  progress_init(&r->prog, stderr, o->quiet, e, total);
  r->shown = &r->prog;
  while (e < total && !train_stop_signal) {
    if ((rc = dlca_loop_epoch(r->loop))) return train_fail(r, CLI_FAIL, rc, "training");
    dlca_loop_get_result(r->loop, w);
    e = w->epoch;
    if (w->diverged) {
      progress_break(&r->prog);
      fprintf(stderr, "%s: epoch %llu: the soft loss is %g: the run has diverged (a smaller --lr may help)%s\n",
              TRAIN_PROG, (unsigned long long)e, w->soft, o->checkpoint ? "; the last checkpoint written is kept" : "");
      return CLI_FAIL;
    }
    if (w->evaluated) {
      double now = cli_now(), rate = now > row_time ? (double)(e - row_epoch) / (now - row_time) : 0;
      if (csvlog_row(&r->log, e, w->soft, &w->hard, rate)) {
        progress_break(&r->prog);
        fprintf(stderr, "%s: --log %s: write failed\n", TRAIN_PROG, o->log);
        return CLI_FAIL;
      }
      row_epoch = e, row_time = now;
    }
    /* The last epoch's checkpoint is written by finish(), after training. */
    if (o->checkpoint && e % (uint64_t)o->checkpoint_every == 0 && e < total &&
        (*ckpt_failed = save_checkpoint(r, o->checkpoint) != 0))
      break;
    progress_update(&r->prog, e, w->soft, w->have_hard ? &w->hard : NULL);
    if (w->done) break;
  }
  progress_break(&r->prog);
  dlca_loop_get_result(r->loop, w);
  out->train_s = cli_now() - t0;
  out->interrupted = train_stop_signal && e < total && !*ckpt_failed;
  return 0;
}

/* --eval-scale S: the hard circuit of m on 8 fresh random grids S times the
 * training grid's sides for S times its steps, against the checkerboard of
 * that size (the paper's generalisation test; dlca-eval --scale is the same
 * check), the grids drawn from seed (the run's). Returns 0, or CLI_FAIL
 * after printing why. */
int train_eval_scale(run *r, const dlca_model *m, uint64_t seed, outcome *w) {
  const int S = (int)r->opt.eval_scale, H = S * r->cfg.height, W = S * r->cfg.width, T = S * r->cfg.steps;
  const int C = r->preset.shape.channels, grids = EVAL_SCALE_GRIDS;
  const size_t one = (size_t)H * W * C, n = (size_t)grids * one;
  /* y zeroed: target_checkerboard writes channel 0 only */
  float *x = malloc(sizeof(float) * n), *y = calloc(n, sizeof(float));
  int rc = x && y ? DLCA_OK : DLCA_ENOMEM;
  dlca_eval ev;
  memset(&ev, 0, sizeof ev);
  if (!rc) {
    dlca_target_random_bits(x, n, seed, 0x54530001u); /* "TS": apart from the trainer's draws */
    dlca_target_checkerboard(H, W, C, y);
    for (int g = 1; g < grids; g++) memcpy(y + g * one, y, sizeof(float) * one);
    /* on the host's packed bits (no device program for this grid size):
     * what dlca-eval's device rollout gives. Synchronous, all T steps at
     * once; async, a step at a time, step s's fire masks those of the fresh
     * evaluation of seed k + s (rollout.c) */
    dlca_train_config c = r->cfg;
    c.batch = grids, c.height = H, c.width = W, c.start = DLCA_START_UPLOAD;
    c.steps = c.async ? 1 : T;
    const uint64_t k = dlca_rng_u32(seed, 0x54530002u, 0);
    for (int s = 0; s < (c.async ? T : 1) && !rc; s++)
      rc = dlca_bits_eval_fresh(m, &c, x, y, k + (uint64_t)s, 1, &ev, x);
  }
  free(x), free(y);
  if (rc) return train_fail(r, CLI_FAIL, rc, "--eval-scale %d: a %dx%d grid, %d steps", S, H, W, T);
  w->have_scale = 1, w->scale_errors = ev.errors, w->scale_total = ev.total;
  return 0;
}

/* Ctrl-C: the state goes to the checkpoint, to go on from with --resume. */
static int interrupted(run *r, outcome *w) {
  const char *path = r->opt.checkpoint ? r->opt.checkpoint : TRAIN_INTERRUPT_CKPT;
  int rc = save_checkpoint(r, path);
  if (rc) return rc;
  fprintf(stderr, "%s: interrupted after epoch %llu; checkpoint saved to %s (continue with --resume %s)\n",
          TRAIN_PROG, (unsigned long long)w->w.epoch, path, path);
  if (!r->opt.quiet) train_print_summary(r, w);
  return CLI_INTERRUPTED;
}

/* The model: exported, counted, and saved to --save. */
static int save_model(run *r, outcome *w, dlca_model **m) {
  int rc = dlca_trainer_export_model(r->t, m);
  if (rc) return train_fail(r, CLI_FAIL, rc, r->opt.save ? "--save" : "the model");
  gate_summary_of(*m, r->cfg.loss_channels, r->cfg.n_loss_channels, &w->gates);
  w->have_gates = 1;
  if (r->opt.save && (rc = dlca_model_save(*m, r->opt.save))) return train_fail(r, CLI_FAIL, rc, "--save");
  return 0;
}

/* After the last epoch: the last checkpoint, keep-best, --repair and
 * --evolve, --save, --eval-scale and --eval-fresh. The model is saved
 * whether or not the checkpoint could be written; either failing exits 1. */
static int finish(run *r, outcome *w, int ckpt_failed) {
  const train_options *o = &r->opt;
  int rc;
  if (w->interrupted) return interrupted(r, w);
  if ((rc = dlca_loop_finish(r->loop))) return train_fail(r, CLI_FAIL, rc, "evaluation");
  /* The checkpoint holds the last state, so that --resume goes on from it;
   * the model saved and described below may be the best one instead. */
  if (o->checkpoint && !ckpt_failed) ckpt_failed = save_checkpoint(r, o->checkpoint) != 0;
  if ((rc = dlca_loop_polish(r->loop)))
    return train_fail(r, rc == DLCA_EINVAL ? CLI_USAGE : CLI_FAIL, rc, "--repair/--evolve");
  dlca_loop_get_result(r->loop, &w->w);
  dlca_model *m = NULL;
  const int save_failed = save_model(r, w, &m) != 0;
  if (save_failed || ckpt_failed) {
    dlca_model_free(m);
    if (save_failed && o->checkpoint && !ckpt_failed)
      fprintf(stderr, "%s: the model was not saved; the checkpoint %s was written (--resume it)\n", TRAIN_PROG,
              o->checkpoint);
    if (ckpt_failed && !save_failed)
      fprintf(stderr, "%s: the checkpoint %s was not written; the model was%s%s\n", TRAIN_PROG, o->checkpoint,
              o->save ? " saved to " : " not asked for (--save)", o->save ? o->save : "");
    return CLI_FAIL;
  }
  rc = o->eval_scale > 0 && !w->w.abandoned ? train_eval_scale(r, m, o->seed, w) : 0;
  dlca_model_free(m);
  if (rc) return rc;
  r->abandoned_at = w->w.abandoned ? w->w.abandoned_epoch : 0;
  if ((rc = dlca_loop_eval_fresh(r->loop))) return train_fail(r, CLI_FAIL, rc, "--eval-fresh");
  dlca_loop_get_result(r->loop, &w->w);
  r->fresh_ok = dlca_loop_fresh_ok(r->loop) && !(w->have_scale && w->scale_errors);
  if (!o->quiet) train_print_summary(r, w);
  return 0;
}

/* The library's loop options from the command line (after the recipe). */
static void loop_options(run *r) {
  const train_options *o = &r->opt;
  dlca_loop_options *l = &r->lo;
  l->epochs = o->epochs, l->eval_every = o->eval_every, l->lr_schedule = o->lr_schedule, l->warmup = o->warmup;
  l->min_lr = o->min_lr, l->cooldown_factor = o->cooldown_factor, l->plateau = o->plateau;
  l->max_cooldowns = o->max_cooldowns, l->early_stop = o->early_stop, l->keep_best = o->keep_best;
  /* from a --model, the start is a candidate too, so that going on from a
   * near miss (--rescale-logits) never saves a worse circuit */
  l->keep_best_start = o->model != NULL;
  l->n_abandon = o->n_abandon;
  memcpy(l->abandon_epoch, o->abandon_epoch, sizeof l->abandon_epoch);
  memcpy(l->abandon_above, o->abandon_above, sizeof l->abandon_above);
  l->repair = o->repair, l->repair_max_wrong = o->repair_max_wrong;
  l->evolve = o->evolve, l->evolve_max_wrong = o->evolve_max_wrong;
  l->evolve_lineages = o->evolve_lineages, l->evolve_lambda = o->evolve_lambda;
  l->evolve_changes = o->evolve_changes;
  l->eval_fresh = o->eval_fresh;
  l->seed = o->seed;
  /* checked when parsed (train_options.c) */
  if (o->lr_schedule == TRAIN_LR_CHAIN && dlca_loop_parse_lr_chain(o->lr_chain, l)) l->lr_schedule = DLCA_LR_CONSTANT;
}

static void apply_overrides(run *r) {
  const train_options *o = &r->opt;
  dlca_loop_options_default(&r->lo);
  dlca_train_config_from_preset(&r->preset, &r->cfg);
  r->cfg.seed = o->seed;
  /* a population's plan (dlca_train_config): its models, and --population 0, which gives their circuits */
  r->cfg.population_plan = o->population_given || o->population > 0;
  if (o->batch > 0) r->cfg.batch = (int)o->batch;
  if (o->steps > 0) r->cfg.steps = (int)o->steps;
  if (o->lr > 0) r->cfg.optim.lr = (float)o->lr;
  /* the preset's recommended recipe (dlca_recipe_for) unless the reference
   * protocol is asked for; explicit --temperature / --gumbel win */
  r->recipe = NULL;
  if (o->recipe != TRAIN_RECIPE_REFERENCE && dlca_recipe_for(r->preset.name, train_model_param(r), &r->recipe))
    r->recipe = NULL;
  r->cfg.relax.temperature = o->temperature >= 0 ? (float)o->temperature : r->recipe ? r->recipe->temperature : 0;
  r->cfg.relax.gumbel_scale = o->gumbel >= 0 ? (float)o->gumbel : r->recipe ? r->recipe->gumbel : 0;
  r->cfg.relax.straight_through = o->straight_through;
  r->cfg.relax.grad_noise = (float)o->grad_noise;
  if (r->recipe) { /* the recipe's batch, epochs, schedule and stopping, where not given */
    const dlca_recipe *q = r->recipe;
    if (o->batch <= 0 && q->batch > 0) r->cfg.batch = q->batch;
    if (o->epochs < 0 && q->epochs > 0) r->opt.epochs = q->epochs;
    if (!o->lr_schedule_given && q->cooldown) r->opt.lr_schedule = TRAIN_LR_COOLDOWN;
    if (o->early_stop == 0) r->opt.early_stop = q->early_stop;
    if (q->keep_best) r->opt.keep_best = 1;
    if (!o->eval_every_given && q->eval_every > 0) r->opt.eval_every = q->eval_every;
    /* like the evolution's gate: the recipe's is for the recipe's repair */
    if (!o->repair_max_wrong_given && o->repair < 0) r->opt.repair_max_wrong = q->repair_max_wrong;
    if (o->repair < 0) r->opt.repair = q->repair, r->lo.search_needs_training |= q->repair > 0;
    /* the recipe's gate is for the recipe's evolution: --evolve N given evolves any circuit
     * (o is r->opt: the gate first, while o->evolve still says whether --evolve was given) */
    if (!o->evolve_max_wrong_given && o->evolve < 0) r->opt.evolve_max_wrong = q->evolve_max_wrong;
    if (o->evolve < 0) r->opt.evolve = q->evolve, r->lo.search_needs_training |= (q->evolve > 0) << 1;
    /* the recipe's --abandon is for chains and populations: a single run (and each of --measure's) always
     * trains to its end */
    const int chain = o->restarts > 0 || (o->population > 0 && !o->measure);
    if (!o->n_abandon && chain && q->abandon && train_parse_abandon(q->abandon, &r->opt))
      r->opt.n_abandon = 0; /* the table is checked by tests; never reached */
  }
  if (r->opt.repair < 0) r->opt.repair = 0;
  if (r->opt.evolve < 0) r->opt.evolve = 0;
  if (r->opt.epochs < 0) r->opt.epochs = r->preset.epochs;
  loop_options(r);
}

/* One hyperparameter option, if given: its value into *v. */
static int hyper_given(const train_options *o, const train_hyper *h, double *v) {
  const char *p = (const char *)o + h->off;
  *v = h->flag ? (double)*(const int *)(const void *)p : *(const double *)(const void *)p;
  return h->flag ? *v != 0 : !isnan(*v);
}

/* --optimizer, --clip and the hyperparameters into r->cfg (issue 32): adamw
 * is the trainer's default AdamW in optax's form, the others torch.optim's
 * rules. Returns 0, or CLI_USAGE after naming the bad value. */
static int apply_optimizer(run *r) {
  const train_options *o = &r->opt;
  dlca_train_config *c = &r->cfg;
  const int kind = o->optimizer < 0 ? DLCA_OPTIM_ADAMW : o->optimizer;
  if (!isnan(o->clip) && !(o->clip > 0)) {
    fprintf(stderr, "%s: --clip: %g is outside (0, inf): the gradient's clip by value\n", TRAIN_PROG, o->clip);
    return CLI_USAGE;
  }
  if (!isnan(o->clip)) c->optim.clip = (float)o->clip;
  dlca_optim_config s;
  if (dlca_optim_config_default(kind, &s)) return train_fail(r, CLI_USAGE, DLCA_EINVAL, "--optimizer");
  if (kind == DLCA_OPTIM_ADAMW)
    s.beta1 = c->optim.beta1, s.beta2 = c->optim.beta2, s.eps = c->optim.eps, s.weight_decay = c->optim.weight_decay;
  for (size_t i = 0; i < train_n_hypers; i++) {
    const train_hyper *h = &train_hypers[i];
    double v;
    if (!hyper_given(o, h, &v)) continue;
    if (kind == DLCA_OPTIM_ADAMW && !strcmp(h->field, "amsgrad")) {
      fprintf(stderr, "%s: --amsgrad: the adamw optimizer is the reference's (optax's form, no amsgrad); use "
              "--optimizer adam --amsgrad\n", TRAIN_PROG);
      return CLI_USAGE;
    }
    if (dlca_optim_config_set(&s, h->field, v)) return train_fail(r, CLI_USAGE, DLCA_EINVAL, "--%s", h->option);
  }
  s.lr = c->optim.lr;
  if (dlca_optim_config_check(&s))
    return train_fail(r, CLI_USAGE, DLCA_EINVAL, "--optimizer %s", dlca_optim_kind_name(kind));
  c->use_suite = kind != DLCA_OPTIM_ADAMW;
  if (c->use_suite) c->suite = s;
  else c->optim.beta1 = (float)s.beta1, c->optim.beta2 = (float)s.beta2, c->optim.eps = (float)s.eps,
       c->optim.weight_decay = (float)s.weight_decay;
  return 0;
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

int train_run_main(run *r) {
  r->tick_kind = -1;
  int rc;
  if ((rc = dlca_preset_get(r->opt.preset, &r->preset))) return train_fail(r, CLI_USAGE, rc, "--preset");
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
            r->preset.name, train_model_param(r) == DLCA_PARAM_IWP ? " for --param iwp" : "");
    return CLI_USAGE;
  }
  /* Cheap input checks first, so a typo never waits for a kernel build. */
  if ((rc = apply_optimizer(r)) || (rc = check_schedule(r)) || (rc = setup_target(r)) || (rc = setup_device(r)))
    return rc;
  if (r->opt.population > 0) return train_population(r);
  if ((rc = setup_loop(r))) return rc;
  uint64_t at = dlca_trainer_epoch(r->t);
  if (r->opt.log) {
    char err[512];
    if (csvlog_open(&r->log, r->opt.log, at, err, sizeof err)) {
      fprintf(stderr, "%s: --log %s\n", TRAIN_PROG, err);
      return CLI_FAIL; /* a disk error, not the user's input */
    }
  }
  if (!r->opt.quiet) {
    fprintf(stderr, "%s: %s on %s: %zu logits (%s), batch %d, %d steps, lr %g, seed %llu, epochs %llu to %ld\n",
            TRAIN_PROG, r->preset.name, r->device, dlca_trainer_n_params(r->t),
            dlca_parametrisation_name(train_model_param(r)), r->cfg.batch, r->cfg.steps, r->cfg.optim.lr,
            (unsigned long long)r->opt.seed, (unsigned long long)at, r->opt.epochs);
    if (r->cfg.use_suite || r->opt.optimizer >= 0 || !isnan(r->opt.clip))
      fprintf(stderr, "%s: optimizer %s%s, clip %g\n", TRAIN_PROG, r->cfg.use_suite ? "" : "adamw",
              r->cfg.use_suite ? dlca_optim_kind_name(r->cfg.suite.kind) : " (optax's form)", r->cfg.optim.clip);
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
  train_catch_signals();
  int ckpt_failed = 0;
  if ((rc = train(r, &w, &ckpt_failed))) return rc;
  rc = finish(r, &w, ckpt_failed);
  if (csvlog_close(&r->log) && !rc) {
    fprintf(stderr, "%s: --log %s: write failed\n", TRAIN_PROG, r->opt.log);
    rc = CLI_FAIL;
  }
  return rc;
}

/* Frees what train_run_main set up and clears it for another run; keeps the options. */
void train_run_free(run *r) {
  csvlog_close(&r->log);
  dlca_loop_free(r->loop);
  dlca_context_free(r->ctx);
  dlca_model_free(r->model);
  free(r->target);
  const train_options opt = r->opt;
  const double t0 = r->t_start;
  memset(r, 0, sizeof *r);
  r->opt = opt, r->t_start = t0;
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
  if (r.opt.version) return cli_print_version(TRAIN_PROG, dlca_version_string());
  quiet_mode = r.opt.quiet;
  /* each run's summary reaches a log file as it is printed, also when a
   * long --restarts chain is killed (a killed chain lost its last two
   * summaries in the stdio buffer) */
  setvbuf(stdout, NULL, _IOLBF, 0);
  rc = train_chain(&r);
  train_run_free(&r);
  return rc;
}
