/* dlca-opsbench's optim suite (bench/opsbench_suites.h, issue 32): one step
 * of each optimizer of the device suite (dlca_optim_cl_step) at 1M, 10M and
 * 100M parameters (100k and 1M on a CPU device), in one tensor, in 100
 * tensors of a group (one launch) and in 100 tensors of their own (a launch
 * per 8), with the bytes a step must move (AdamW 28 a parameter: p, m, v
 * read and written, g read; SGD with momentum 20), and a device copy of the
 * largest size as the bandwidth that is reachable. Case names:
 * OPTIM_SIZE_LAYOUT, as bench/peer/torch_ops.py names PyTorch's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/tensor.h"
#include "opsbench_suites.h"

/* The optimizers timed: name, kind, option, bytes a parameter. */
static const struct {
  const char *name;
  int kind;
  const char *opt;
  double val;
  int bytes;
} optims[] = {
    {"sgd", DLCA_OPTIM_SGD, NULL, 0, 12},         {"sgd_momentum", DLCA_OPTIM_SGD, "momentum", 0.9, 20},
    {"adam", DLCA_OPTIM_ADAM, NULL, 0, 28},       {"adamw", DLCA_OPTIM_ADAMW, NULL, 0, 28},
    {"rmsprop", DLCA_OPTIM_RMSPROP, NULL, 0, 20}, {"adagrad", DLCA_OPTIM_ADAGRAD, NULL, 0, 20},
};
#define N_OPTIMS (sizeof optims / sizeof optims[0])

/* n parameters split into t tensors (the last takes the rest), as a group whose members hold small values. */
static int group_new(dlca_context *ctx, size_t n, size_t t, float scale, dlca_tensor_group **g) {
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
  uint64_t seed = 1;
  for (size_t i = 0; !rc && i < t; i++) {
    dlca_tensor *m = dlca_tensor_group_member(*g, i);
    size_t len = dlca_tensor_numel(m);
    float *v = malloc(sizeof(float) * (len ? len : 1));
    if (!v) return dlca__fail(DLCA_ENOMEM, "out of host memory for %zu floats", len);
    for (size_t j = 0; j < len; j++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      v[j] = scale * (float)((double)(seed >> 40) / (double)(1ULL << 23) - 1.0);
    }
    rc = dlca_tensor_upload(m, v, len);
    free(v);
  }
  return rc;
}

/* One case's tensors and optimizer. */
typedef struct step_call {
  dlca_tensor_group *gp, *gg;
  dlca_tensor **p, **g;
  size_t t;
  int own; /* p and g are tensors of their own, copies of the groups' members */
  dlca_optim_cl *o;
} step_call;

static int step_once(void *arg) {
  step_call *c = arg;
  return dlca_optim_cl_step(c->o, c->p, (const dlca_tensor *const *)c->g);
}

static void call_free(step_call *c) {
  dlca_optim_cl_free(c->o);
  for (size_t i = 0; c->own && i < c->t; i++) dlca_tensor_free(c->p[i]), dlca_tensor_free(c->g[i]);
  dlca_tensor_group_free(c->gp), dlca_tensor_group_free(c->gg);
  free(c->p), free(c->g);
}

/* A copy of a group's member into a tensor of its own. */
static int own_copy(dlca_context *ctx, const dlca_tensor *m, dlca_tensor **out) {
  size_t len = m->n;
  int rc = dlca_tensor_new(ctx, 1, &len, out);
  cl_int err = rc || !len ? CL_SUCCESS
                          : clEnqueueCopyBuffer(ctx->queue, m->buf, (*out)->buf, 0, 0, 4 * len, 0, NULL, NULL);
  return rc ? rc : err ? dlca__fail_cl(err, "copying a tensor: %s", dlca__cl_error_name(err)) : DLCA_OK;
}

static int call_new(ob_bench *b, size_t k, size_t n, size_t t, int own, step_call *c) {
  memset(c, 0, sizeof *c);
  c->t = t, c->own = own;
  c->p = calloc(t, sizeof *c->p), c->g = calloc(t, sizeof *c->g);
  dlca_optim_config cfg;
  int rc = c->p && c->g ? dlca_optim_config_default(optims[k].kind, &cfg)
                        : dlca__fail(DLCA_ENOMEM, "out of host memory");
  if (!rc && optims[k].opt) rc = dlca_optim_config_set(&cfg, optims[k].opt, optims[k].val);
  if (!rc) rc = group_new(b->ctx, n, t, 1.0f, &c->gp);
  if (!rc) rc = group_new(b->ctx, n, t, 0.01f, &c->gg);
  for (size_t i = 0; !rc && i < t; i++) {
    dlca_tensor *pm = dlca_tensor_group_member(c->gp, i), *gm = dlca_tensor_group_member(c->gg, i);
    if (!own) c->p[i] = pm, c->g[i] = gm;
    else if (!(rc = own_copy(b->ctx, pm, &c->p[i]))) rc = own_copy(b->ctx, gm, &c->g[i]);
  }
  return rc ? rc : dlca_optim_cl_new(b->ctx, &cfg, t, c->p, &c->o);
}

typedef struct copy_call {
  dlca_context *ctx;
  dlca_tensor *a, *b;
} copy_call;

static int copy_once(void *arg) {
  copy_call *c = arg;
  cl_int err = clEnqueueCopyBuffer(c->ctx->queue, c->a->buf, c->b->buf, 0, 0, 4 * c->a->n, 0, NULL, NULL);
  return err ? dlca__fail_cl(err, "clEnqueueCopyBuffer: %s", dlca__cl_error_name(err)) : DLCA_OK;
}

/* The device's copy of n floats: 8 bytes a float, the reachable bandwidth. */
static int copy_row(ob_bench *b, size_t n, const char *size) {
  copy_call c = {b->ctx, NULL, NULL};
  double med, min;
  int rc = dlca_tensor_new(b->ctx, 1, &n, &c.a);
  if (!rc) rc = dlca_tensor_new(b->ctx, 1, &n, &c.b);
  if (!rc && !(rc = ob_time(b, copy_once, &c, &med, &min))) {
    char name[64];
    snprintf(name, sizeof name, "copy_%s", size);
    ob_add(b, "optim", name, med, min, 0, 8.0 * (double)n);
  }
  dlca_tensor_free(c.a), dlca_tensor_free(c.b);
  return rc;
}

/* "1M", "100k" */
static void size_name(size_t n, char *buf, size_t len) {
  if (n % 1000000 == 0) snprintf(buf, len, "%zuM", n / 1000000);
  else if (n % 1000 == 0) snprintf(buf, len, "%zuk", n / 1000);
  else snprintf(buf, len, "%zu", n);
}

int ob_suite_optim(ob_bench *b) {
  static const size_t gpu[] = {1000000, 10000000, 100000000}, cpu[] = {100000, 1000000};
  int on_cpu = b->dev.type == DLCA_DEVICE_CPU;
  const size_t *sizes = on_cpu ? cpu : gpu, ns = on_cpu ? 2 : 3;
  static const char *const layout[] = {"1t", "100t", "100t_own"};
  char sz[24], name[80];
  size_name(sizes[ns - 1], sz, sizeof sz);
  int rc = copy_row(b, sizes[ns - 1], sz);
  for (size_t s = 0; !rc && s < ns; s++)
    for (size_t k = 0; !rc && k < N_OPTIMS; k++)
      for (int l = 0; !rc && l < 3; l++) {
        step_call c;
        double med, min;
        size_name(sizes[s], sz, sizeof sz);
        if (!(rc = call_new(b, k, sizes[s], l ? 100 : 1, l == 2, &c)) && !(rc = ob_time(b, step_once, &c, &med, &min))) {
          snprintf(name, sizeof name, "%s_%s_%s", optims[k].name, sz, layout[l]);
          ob_add(b, "optim", name, med, min, 0, optims[k].bytes * (double)sizes[s]);
        }
        call_free(&c);
      }
  return rc;
}
