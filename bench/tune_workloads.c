/* dlca-tune's workloads: how a kernel file is run and timed. The trainer
 * files run real training epochs of a preset; selftest.cl its fill kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tune.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the trainer workload: real training epochs ---- */

int trainer_prepare(tuner *T) {
  const options *o = &T->o;
  int rc;
  if ((rc = dlca_model_new_preset(T->preset.name, o->seed, &T->model))) {
    fprintf(stderr, "%s: %s model: %s\n", PROG, T->preset.name, lib_error(rc));
    return CLI_FAIL;
  }
  dlca_train_config_from_preset(&T->preset, &T->cfg);
  T->cfg.seed = o->seed;
  if (o->batch > 0) T->cfg.batch = (int)o->batch;
  else if (o->quick) T->cfg.batch = 1;
  if (o->steps > 0) T->cfg.steps = (int)o->steps;
  else if (o->quick && T->cfg.steps > 4) T->cfg.steps = 4;
  T->gol = dlca_preset_is_gol(&T->preset);
  if (T->gol) {
    dlca_gol_order(o->seed, T->gol_order);
    T->gol_x = malloc(sizeof(float) * 9 * (size_t)T->cfg.batch);
    T->gol_y = malloc(sizeof(float) * 9 * (size_t)T->cfg.batch);
    if (!T->gol_x || !T->gol_y) {
      fprintf(stderr, "%s: gol boards: out of memory\n", PROG);
      return CLI_FAIL;
    }
    return CLI_OK;
  }
  dlca_model_shape s;
  dlca_model_get_shape(T->model, &s);
  rc = dlca_preset_target(&T->preset, s.channels, NULL, &T->target);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, dlca_last_error());
    return rc == DLCA_ENOMEM ? CLI_FAIL : CLI_USAGE;
  }
  return CLI_OK;
}

static void trainer_describe(tuner *T, char *buf, size_t n) {
  snprintf(buf, n, "training epochs of %s, batch %d, %d steps, seed %llu", T->preset.name, T->cfg.batch,
           T->cfg.steps, T->o.seed);
}

/* Device time, in ms, of everything launched since the last profile reset
 * (waits for the queue). */
static int profiled_ms(dlca_context *ctx, double *ms) {
  dlca_kernel_profile *p;
  size_t np;
  int rc = dlca__profile_collect(ctx, &p, &np);
  if (rc) return rc;
  double sum = 0;
  for (size_t i = 0; i < np; i++) sum += p[i].total_ms;
  free(p);
  *ms = sum;
  return DLCA_OK;
}

/* The epochs of a configuration: --warmup untimed, then --repeats timed,
 * each from its kernels' profiling events and by the wall clock. */
typedef struct timer {
  dlca_context *ctx;
  size_t warm, reps;
  double *dev, *wall, t0;
} timer;

static int timer_new(const tuner *T, dlca_context *ctx, timer *tm) {
  tm->ctx = ctx;
  tm->warm = (size_t)T->o.warmup, tm->reps = (size_t)T->o.repeats;
  tm->dev = calloc(tm->reps, sizeof *tm->dev), tm->wall = calloc(tm->reps, sizeof *tm->wall);
  return tm->dev && tm->wall ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "out of memory");
}

/* Before epoch e's work. */
static void timer_start(timer *tm, size_t e) {
  if (e >= tm->warm) {
    dlca__profile_enable(tm->ctx, 1);
    dlca__profile_reset(tm->ctx);
  }
  tm->t0 = dlca__now_ms();
}

/* After epoch e's work: where it is timed, waits for the queue. */
static int timer_stop(timer *tm, size_t e) {
  if (e < tm->warm) return DLCA_OK;
  int rc = profiled_ms(tm->ctx, &tm->dev[e - tm->warm]);
  tm->wall[e - tm->warm] = dlca__now_ms() - tm->t0;
  return rc;
}

/* The medians into m where rc is DLCA_OK; frees tm's arrays. Returns rc. */
static int timer_done(timer *tm, meas *m, int rc) {
  dlca__profile_enable(tm->ctx, 0);
  if (!rc) {
    m->dev_ms = median(tm->dev, tm->reps);
    m->wall_ms = median(tm->wall, tm->reps);
  }
  free(tm->dev);
  free(tm->wall);
  return rc;
}

/* Training epochs. trainer_cpu.cl's steps run only where trainer.cl's
 * KERNELS is 1, trainer_tile.cl's where it is 2 (its forward step also from
 * TILE_CELLS cells on, with the same TL): their workloads set it. */
static int trainer_run(tuner *T, kfile *k, dlca_context *ctx, meas *m, output *out) {
  dlca_trainer *t = NULL;
  int rc = k->w->kernels >= 0 ? dlca__tuning_override(ctx, "trainer.cl", "KERNELS", k->w->kernels) : DLCA_OK;
  if (!rc) rc = dlca_trainer_new(ctx, T->model, &T->cfg, &t); /* builds trainer.cl with the overrides */
  if (rc) return rc;
  timer tm;
  rc = timer_new(T, ctx, &tm);
  const size_t total = tm.warm + tm.reps, gate = total < GATE_EPOCHS ? total : GATE_EPOCHS;
  out->losses = calloc(gate, sizeof *out->losses);
  out->n_losses = gate;
  out->n_params = dlca_trainer_n_params(t);
  out->params = malloc(out->n_params * sizeof *out->params);
  if (!rc && (!out->losses || !out->params)) rc = dlca__fail(DLCA_ENOMEM, "out of memory");
  if (!rc && !T->gol) rc = dlca_trainer_set_target(t, T->target, 0);
  for (size_t e = 0; !rc && e < total; e++) {
    if (T->gol) {
      dlca_gol_batch(T->gol_order, e, T->cfg.batch, T->gol_x, T->gol_y);
      rc = dlca_trainer_set_input(t, T->gol_x);
      if (!rc) rc = dlca_trainer_set_target(t, T->gol_y, 1);
      if (rc) break;
    }
    double loss;
    timer_start(&tm, e);
    rc = dlca_trainer_step(t);
    if (!rc) rc = dlca_trainer_loss(t, &loss);
    if (!rc && e < gate) out->losses[e] = loss;
    if (!rc) rc = timer_stop(&tm, e);
    if (!rc && e + 1 == gate) rc = dlca_trainer_get_params(t, out->params); /* after the timing */
  }
  rc = timer_done(&tm, m, rc);
  dlca_trainer_free(t);
  return rc;
}

/* ---- the selftest workload: its fill kernel, timed directly ---- */

static void selftest_describe(tuner *T, char *buf, size_t n) {
  (void)T;
  snprintf(buf, n, "dlca_selftest_rng over %u values; an \"epoch\" is one launch", SELFTEST_N);
}

/* --warmup untimed launches of k, then --repeats timed ones, each read from
 * its profiling event. */
static int time_launches(tuner *T, dlca_context *ctx, cl_kernel k, size_t gws, size_t lws, meas *m) {
  timer tm;
  int rc = timer_new(T, ctx, &tm);
  for (size_t e = 0; !rc && e < tm.warm + tm.reps; e++) {
    timer_start(&tm, e);
    rc = dlca__launch(ctx, k, "selftest_rng", 1, &gws, lws ? &lws : NULL);
    if (!rc && e < tm.warm) rc = dlca__finish(ctx, "dlca_selftest_rng");
    if (!rc) rc = timer_stop(&tm, e);
  }
  return timer_done(&tm, m, rc);
}

static int selftest_launch(tuner *T, dlca_context *ctx, cl_kernel kern, cl_mem buf, meas *m, output *out) {
  /* The local size must be the reqd_work_group_size the program was built
   * with: ask the kernel rather than assume which tunable sets it. */
  size_t req[3] = {0, 0, 0}, lws = 0, gws = SELFTEST_N;
  cl_int err = clGetKernelWorkGroupInfo(kern, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof req, req, NULL);
  if (err) return dlca__fail_cl(err, "dlca_selftest_rng: CL_KERNEL_COMPILE_WORK_GROUP_SIZE: %s", dlca__cl_error_name(err));
  if (req[0]) {
    lws = req[0];
    gws = (gws + lws - 1) / lws * lws;
  }
  cl_ulong key = SELFTEST_KEY;
  cl_uint a = 7, n = SELFTEST_N;
  err = clSetKernelArg(kern, 0, sizeof buf, &buf);
  if (!err) err = clSetKernelArg(kern, 1, sizeof key, &key);
  if (!err) err = clSetKernelArg(kern, 2, sizeof a, &a);
  if (!err) err = clSetKernelArg(kern, 3, sizeof n, &n);
  if (err) return dlca__fail_cl(err, "dlca_selftest_rng: setting its arguments: %s", dlca__cl_error_name(err));
  int rc = time_launches(T, ctx, kern, gws, lws, m);
  if (rc) return rc;
  out->n_words = SELFTEST_N;
  out->words = malloc((size_t)SELFTEST_N * 4);
  if (!out->words) return dlca__fail(DLCA_ENOMEM, "out of memory");
  return dlca__download(ctx, buf, 0, (size_t)SELFTEST_N * 4, out->words, "selftest output");
}

static int selftest_run(tuner *T, kfile *k, dlca_context *ctx, meas *m, output *out) {
  cl_program prog;
  cl_kernel kern = NULL;
  cl_mem buf = NULL;
  int rc = dlca__program_get(ctx, k->file, NULL, &prog, NULL);
  if (!rc) rc = dlca__kernel_create(ctx, prog, "dlca_selftest_rng", &kern);
  if (!rc) rc = dlca__buffer(ctx, (size_t)SELFTEST_N * 4, "selftest output", &buf);
  if (!rc) rc = selftest_launch(T, ctx, kern, buf, m, out);
  if (buf) clReleaseMemObject(buf);
  if (kern) clReleaseKernel(kern);
  return rc;
}

static const workload workloads[] = {
    {"trainer", trainer_prepare, trainer_describe, trainer_run, -1},
    {"trainer_cpu", trainer_prepare, trainer_describe, trainer_run, 1},
    {"trainer_tile", trainer_prepare, trainer_describe, trainer_run, 2},
    {"selftest", NULL, selftest_describe, selftest_run, -1},
};

const workload *workload_of(const char *stem) {
  for (size_t i = 0; i < sizeof workloads / sizeof *workloads; i++)
    if (!strcmp(workloads[i].stem, stem)) return &workloads[i];
  return NULL;
}
