/* The ops benchmark's suite "optim" (issue 32): one step of each optimizer
 * of the device suite at 1M, 10M and 100M parameters, in one tensor and in
 * 100 (a tensor group: one launch; and 100 tensors of their own: a
 * launch per 8), timed over repeated steps after a
 * warm-up, with the bandwidth against the bytes a step must move (AdamW 28
 * bytes a parameter: p, m, v read and written, g read; SGD with momentum
 * 20) and the device's copy bandwidth as the floor. PyTorch's peer rows:
 * bench/peer/torch_ops.py, the same CSV columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/tensor.h"
#include "opsbench_optim.h"

/* The optimizers timed: name, kind, option, bytes a parameter. */
static const struct {
  const char *name;
  int kind;
  const char *opt;
  double val;
  int bytes;
} optims[] = {
    {"sgd", DLCA_OPTIM_SGD, NULL, 0, 12},           {"sgd_momentum", DLCA_OPTIM_SGD, "momentum", 0.9, 20},
    {"adam", DLCA_OPTIM_ADAM, NULL, 0, 28},         {"adamw", DLCA_OPTIM_ADAMW, NULL, 0, 28},
    {"rmsprop", DLCA_OPTIM_RMSPROP, NULL, 0, 20},   {"adagrad", DLCA_OPTIM_ADAGRAD, NULL, 0, 20},
};
#define N_OPTIMS (sizeof optims / sizeof optims[0])

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* n parameters split into t tensors (the last takes the rest), as a group. */
static int group_new(dlca_context *ctx, size_t n, size_t t, dlca_tensor_group **g) {
  size_t *sz = malloc(sizeof *sz * t);
  const size_t **shapes = malloc(sizeof *shapes * t);
  int *ranks = malloc(sizeof *ranks * t), rc = DLCA_ENOMEM;
  if (sz && shapes && ranks) {
    for (size_t i = 0; i < t; i++) {
      sz[i] = i + 1 < t ? n / t : n - (t - 1) * (n / t);
      shapes[i] = &sz[i], ranks[i] = 1;
    }
    rc = dlca_tensor_group_new(ctx, t, ranks, shapes, g);
  }
  free(sz), free(shapes), free(ranks);
  return rc;
}

/* Fills every member of g with small values (a step of zeros would be as fast, but not a real step). */
static int group_fill(dlca_tensor_group *g, float base) {
  int rc = DLCA_OK;
  for (size_t i = 0; i < dlca_tensor_group_size(g) && !rc; i++) {
    dlca_tensor *t = dlca_tensor_group_member(g, i);
    size_t n = dlca_tensor_numel(t);
    float *v = malloc(sizeof(float) * (n ? n : 1));
    if (!v) return DLCA_ENOMEM;
    for (size_t j = 0; j < n; j++) v[j] = base * (float)((j * 2654435761u) % 1000) / 1000.0f - base / 2;
    rc = dlca_tensor_upload(t, v, n);
    free(v);
  }
  return rc;
}

/* ms a step of optimizer o (reps steps after 3 warm-ups; the last download waits). */
static int time_steps(dlca_optim_cl *o, dlca_tensor **p, const dlca_tensor **g, int reps, double *ms) {
  int rc = DLCA_OK;
  for (int i = 0; i < 3 && !rc; i++) rc = dlca_optim_cl_step(o, p, g);
  cl_command_queue q = dlca_tensor_context(p[0])->queue;
  if (!rc && clFinish(q) != CL_SUCCESS) rc = DLCA_ECL;
  double t0 = now_ms();
  for (int i = 0; i < reps && !rc; i++) rc = dlca_optim_cl_step(o, p, g);
  if (!rc && clFinish(q) != CL_SUCCESS) rc = DLCA_ECL;
  *ms = (now_ms() - t0) / reps;
  return rc;
}

/* The params and grads of a case: two groups, or (plain) 2t tensors of their own. */
typedef struct bench_set {
  dlca_tensor_group *gp, *gg;
  dlca_tensor **p, **g;
} bench_set;

static void set_free(bench_set *b, size_t t) {
  if (!b->gp)
    for (size_t i = 0; b->p && i < t; i++) dlca_tensor_free(b->p[i]), dlca_tensor_free(b->g[i]);
  dlca_tensor_group_free(b->gp), dlca_tensor_group_free(b->gg);
  free(b->p), free(b->g);
}

/* The members of two groups of n parameters in t tensors, then (plain) copies of their own. */
static int set_new(dlca_context *ctx, size_t n, size_t t, int plain, bench_set *b) {
  memset(b, 0, sizeof *b);
  b->p = calloc(t, sizeof *b->p), b->g = calloc(t, sizeof *b->g);
  int rc = b->p && b->g ? group_new(ctx, n, t, &b->gp) : DLCA_ENOMEM;
  if (!rc) rc = group_new(ctx, n, t, &b->gg);
  if (!rc) rc = group_fill(b->gp, 2.0f);
  if (!rc) rc = group_fill(b->gg, 0.02f);
  for (size_t i = 0; !rc && i < t; i++) b->p[i] = dlca_tensor_group_member(b->gp, i), b->g[i] = dlca_tensor_group_member(b->gg, i);
  if (rc || !plain) return rc;
  for (size_t i = 0; !rc && i < t; i++) {
    dlca_tensor *pm = b->p[i], *gm = b->g[i];
    size_t len = dlca_tensor_numel(pm);
    b->p[i] = b->g[i] = NULL;
    rc = dlca_tensor_new(ctx, 1, &len, &b->p[i]);
    if (!rc) rc = dlca_tensor_new(ctx, 1, &len, &b->g[i]);
    cl_command_queue q = ctx->queue;
    if (!rc && len && (clEnqueueCopyBuffer(q, pm->buf, b->p[i]->buf, 0, 0, 4 * len, 0, NULL, NULL) ||
                       clEnqueueCopyBuffer(q, gm->buf, b->g[i]->buf, 0, 0, 4 * len, 0, NULL, NULL)))
      rc = DLCA_ECL;
  }
  dlca_tensor_group_free(b->gp), dlca_tensor_group_free(b->gg);
  b->gp = b->gg = NULL;
  return rc;
}

static int one_case(dlca_context *ctx, FILE *out, size_t k, size_t n, size_t t, int plain, int reps, const char *dev) {
  bench_set b;
  dlca_optim_cl *o = NULL;
  dlca_optim_config cfg;
  int rc = set_new(ctx, n, t, plain, &b);
  if (!rc) rc = dlca_optim_config_default(optims[k].kind, &cfg);
  if (!rc && optims[k].opt) rc = dlca_optim_config_set(&cfg, optims[k].opt, optims[k].val);
  if (!rc) rc = dlca_optim_cl_new(ctx, &cfg, t, b.p, &o);
  double ms = 0;
  if (!rc) rc = time_steps(o, b.p, (const dlca_tensor **)b.g, reps, &ms);
  const char *impl = plain ? "dlca_cl_chunks" : "dlca_cl";
  if (!rc)
    fprintf(out, "optim,%s,%zu,%zu,%s,%.4f,%.1f,%s\n", optims[k].name, n, t, impl, ms,
            optims[k].bytes * (double)n / (ms * 1e6), dev);
  else
    fprintf(out, "optim,%s,%zu,%zu,%s,,,%s: %s\n", optims[k].name, n, t, impl, dev, dlca_last_error());
  dlca_optim_cl_free(o);
  set_free(&b, t);
  return rc;
}

/* ms of one clEnqueueCopyBuffer of b into a (reps after a warm-up). */
static int copy_time(dlca_context *ctx, dlca_tensor *a, dlca_tensor *b, int reps, double *ms) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i <= reps && err == CL_SUCCESS; i++) {
    if (i == 1) {
      if ((err = clFinish(ctx->queue)) != CL_SUCCESS) break;
      *ms = now_ms();
    }
    err = clEnqueueCopyBuffer(ctx->queue, b->buf, a->buf, 0, 0, sizeof(float) * a->n, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS || clFinish(ctx->queue) != CL_SUCCESS) return DLCA_ECL;
  *ms = (now_ms() - *ms) / reps;
  return DLCA_OK;
}

/* The device's copy bandwidth (bytes read and written), the floor of every row. */
static void copy_row(dlca_context *ctx, FILE *out, size_t n, int reps, const char *dev) {
  dlca_tensor *a = NULL, *b = NULL;
  size_t shape = n;
  if (dlca_tensor_new(ctx, 1, &shape, &a) || dlca_tensor_new(ctx, 1, &shape, &b)) {
    dlca_tensor_free(a), dlca_tensor_free(b);
    return;
  }
  double ms = 0;
  if (copy_time(ctx, a, b, reps, &ms) == DLCA_OK)
    fprintf(out, "optim,copy,%zu,1,dlca_cl,%.4f,%.1f,%s\n", n, ms, 8.0 * (double)n / (ms * 1e6), dev);
  dlca_tensor_free(a), dlca_tensor_free(b);
}

int opsbench_optim(dlca_context *ctx, FILE *out, const size_t *sizes, size_t n_sizes, int reps) {
  static const size_t dflt[] = {1000000, 10000000, 100000000};
  if (!sizes) sizes = dflt, n_sizes = 3;
  dlca_device_info info;
  dlca_context_device(ctx, &info);
  char dev[300];
  snprintf(dev, sizeof dev, "\"%s\"", info.name);
  fprintf(out, "suite,case,params,tensors,impl,ms,gbps,device\n");
  copy_row(ctx, out, sizes[n_sizes - 1], reps, dev);
  int fails = 0;
  for (size_t s = 0; s < n_sizes; s++)
    for (size_t k = 0; k < N_OPTIMS; k++)
      for (int c = 0; c < 3; c++) /* 1 tensor, 100 in a group, 100 of their own */
        fails += one_case(ctx, out, k, sizes[s], c ? 100 : 1, c == 2, reps, dev) != DLCA_OK;
  fflush(out);
  return fails ? DLCA_EINVAL : DLCA_OK;
}
