/* dlca-train: trains one of the paper's presets on an OpenCL device or the
 * CPU reference through the public API only, with a CSV log, checkpoints
 * and a clean stop on Ctrl-C. Usage: --help, or doc/dlca-train.md. */
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
#include "progress.h"
#include "targets.h"
#include "train_options.h"

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
  int gol_order[GOL_BOARDS];
  char device[512];
  csvlog log;
  progress prog;
  double t_start;
} run;

static int setup_model(run *r) {
  const train_options *o = &r->opt;
  int rc;
  if (!o->model) {
    if ((rc = dlca_model_new_preset(r->preset.name, o->seed, &r->model)))
      return fail_lib(CLI_FAIL, rc, "%s model", r->preset.name);
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
  return 0;
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

typedef struct outcome {
  uint64_t first, epochs;  /* epochs done at the start and at the end */
  double soft;             /* NAN if no step ran */
  dlca_eval hard;
  int have_hard;
  uint64_t hard_epoch;     /* the epoch after which `hard` was measured */
  double train_s;
  int interrupted;         /* a signal cut the run short (not one during its last epoch) */
} outcome;

static int train(run *r, outcome *out) {
  const train_options *o = &r->opt;
  const uint64_t total = (uint64_t)o->epochs;
  uint64_t e = dlca_trainer_epoch(r->t), row_epoch = e;
  double row_time = cli_now(), t0 = row_time;
  int rc;
  out->first = e;
  out->soft = NAN;
  progress_init(&r->prog, stderr, o->quiet, e, total);
  shown_progress = &r->prog;
  while (e < total && !stop_signal) {
    if (r->gol_eval && (rc = feed_gol(r, e))) return rc;
    if ((rc = dlca_trainer_step(r->t))) return fail_lib(CLI_FAIL, rc, "epoch %llu", (unsigned long long)e + 1);
    if ((rc = dlca_trainer_loss(r->t, &out->soft))) return fail_lib(CLI_FAIL, rc, "loss of epoch %llu",
                                                                    (unsigned long long)e + 1);
    e = dlca_trainer_epoch(r->t);
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
    }
    /* The last epoch's checkpoint is written by finish(), after training. */
    if (o->checkpoint && e % (uint64_t)o->checkpoint_every == 0 && e < total &&
        (rc = save_checkpoint(r, o->checkpoint)))
      return rc;
    progress_update(&r->prog, e, out->soft, out->have_hard ? &out->hard : NULL);
  }
  progress_break(&r->prog);
  out->epochs = e;
  out->train_s = cli_now() - t0;
  out->interrupted = stop_signal && e < total;
  return 0;
}

static void print_summary(const run *r, const outcome *w) {
  char wall[32];
  double total_s = cli_now() - r->t_start;
  printf("preset:         %s\n", r->preset.name);
  printf("backend:        %s\n", dlca_trainer_backend(r->t));
  printf("device:         %s\n", r->device);
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
  if (total_s < 60) printf("wall time:      %.2f s", total_s);
  else printf("wall time:      %s (%.1f s)", cli_duration(total_s, wall, sizeof wall), total_s);
  if (w->epochs > w->first && w->train_s > 0)
    printf(", %.3g epochs/s", (double)(w->epochs - w->first) / w->train_s);
  printf("\n");
  if (r->opt.save && !w->interrupted) printf("model:          %s\n", r->opt.save);
  if (r->opt.log) printf("log:            %s\n", r->opt.log);
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
  }
  if (o->checkpoint && (rc = save_checkpoint(r, o->checkpoint))) return rc;
  if (o->save) {
    dlca_model *m;
    if ((rc = dlca_trainer_export_model(r->t, &m))) return fail_lib(CLI_FAIL, rc, "--save");
    rc = dlca_model_save(m, o->save);
    dlca_model_free(m);
    if (rc) return fail_lib(CLI_FAIL, rc, "--save");
  }
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
  if (o->epochs < 0) r->opt.epochs = r->preset.epochs;
}

static int run_main(run *r) {
  int rc;
  if ((rc = dlca_preset_get(r->opt.preset, &r->preset))) return fail_lib(CLI_USAGE, rc, "--preset");
  apply_overrides(r);
  /* Cheap input checks first, so a typo never waits for a kernel build. */
  if ((rc = setup_model(r)) || (rc = setup_target(r)) || (rc = setup_device(r)) || (rc = setup_trainer(r)))
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
    fprintf(stderr, "%s: %s on %s: %zu logits, batch %d, %d steps, lr %g, seed %llu, epochs %llu to %ld\n",
            TRAIN_PROG, r->preset.name, r->device, dlca_trainer_n_params(r->t), r->cfg.batch, r->cfg.steps,
            r->cfg.optim.lr, (unsigned long long)r->opt.seed, (unsigned long long)at, r->opt.epochs);
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
  rc = run_main(&r);
  csvlog_close(&r.log);
  dlca_trainer_free(r.gol_eval);
  dlca_trainer_free(r.t);
  dlca_context_free(r.ctx);
  dlca_model_free(r.model);
  free(r.target);
  free(r.gol_x);
  free(r.gol_y);
  free(r.params);
  return rc;
}
