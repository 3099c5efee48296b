/* The network trainer on an OpenCL device: parameters and gradients in two
 * tensor groups stepped by dlca_optim_cl, the data set uploaded once, each
 * step's batch gathered on the device (kernels-cl/ops/net.cl), then the
 * layers' launchers (dense: lib/ops/cl_blas.h; conv2d, pooling:
 * lib/ops/cl_conv.h; activations, losses: lib/ops/cl_elementwise.h), all
 * enqueued on the context's queue: a step never waits for the device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "net/cl_net.h"
#include "ops/cl_blas.h"
#include "ops/cl_conv.h"
#include "ops/cl_elementwise.h"

/* The activations of N samples: act[i] layer i's input, dact[i] its gradient. */
typedef struct plan {
  size_t N, L;
  dlca_tensor **act, **dact, *tgt;
  cl_mem col; /* conv2d's im2col scratch, NULL without conv2d */
} plan;

struct dlca__net_cl {
  dlca_tensor_group *pg, *gg;
  dlca_tensor **pt, **gt; /* the groups' members */
  size_t *tidx;           /* layer i's weight is pt[tidx[i]], its bias pt[tidx[i] + 1] */
  int *fused;             /* dense layer i computes layer i + 1's activation too */
  dlca_optim_cl *opt;
  dlca_tensor *x, *y;     /* the training set */
  cl_mem perm;            /* the order of epoch perm_epoch of seed perm_seed (n uints) */
  uint64_t perm_seed, perm_epoch;
  int perm_valid;
  dlca_tensor *loss, *one, *acc; /* acc: loss sum, steps, correct */
  plan train;
};

static int new_tensor(dlca_context *ctx, size_t N, const dlca__nshape *s, dlca_tensor **out) {
  size_t shape[4] = {N, s->d[0], s->d[1], s->d[2]};
  return dlca_tensor_new(ctx, s->rank + 1, shape, out);
}

static void plan_free(plan *p) {
  for (size_t i = 0; p->act && i <= p->L; i++) dlca_tensor_free(p->act[i]);
  for (size_t i = 0; p->dact && i <= p->L; i++) dlca_tensor_free(p->dact[i]);
  free(p->act), free(p->dact);
  dlca_tensor_free(p->tgt);
  if (p->col) clReleaseMemObject(p->col);
  memset(p, 0, sizeof *p);
}

static dlca__conv2d conv_of(const dlca_net_layer *l) {
  dlca__conv2d c = {dlca__net_stride(l), dlca__net_stride(l), l->pad, l->pad};
  return c;
}

/* The im2col scratch for the largest conv2d of plan p. */
static int plan_col(dlca_net_trainer *t, plan *p) {
  const dlca_net *net = t->net;
  size_t most = 0;
  for (size_t i = 0; i < net->n_layers; i++)
    if (net->layers[i].kind == DLCA_NET_CONV2D) {
      dlca__conv2d c = conv_of(&net->layers[i]);
      size_t f = dlca__conv2d_col_floats(p->act[i], t->cl->pt[t->cl->tidx[i]], &c);
      most = f > most ? f : most;
    }
  if (!most) return DLCA_OK;
  cl_int err;
  p->col = clCreateBuffer(t->ctx->cl, CL_MEM_READ_WRITE, most * sizeof(float), NULL, &err);
  if (err != CL_SUCCESS)
    return dlca__fail(DLCA_EDEVMEM, "net trainer: %zu MiB of conv2d scratch for batch %zu: %s",
                      most * sizeof(float) >> 20, p->N, dlca__cl_error_name(err));
  return DLCA_OK;
}

static int plan_new(dlca_net_trainer *t, size_t N, plan *p) {
  const dlca_net *net = t->net;
  size_t L = net->n_layers, ts = dlca_net_target_size(net);
  memset(p, 0, sizeof *p);
  p->N = N, p->L = L;
  p->act = calloc(L + 1, sizeof *p->act), p->dact = calloc(L + 1, sizeof *p->dact);
  if (!p->act || !p->dact) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  int rc = DLCA_OK;
  for (size_t i = 0; i <= L && !rc; i++) {
    rc = new_tensor(t->ctx, N, &net->shape[i], &p->act[i]);
    if (!rc && i) rc = new_tensor(t->ctx, N, &net->shape[i], &p->dact[i]);
  }
  size_t tshape[2] = {N, ts};
  if (!rc) rc = dlca_tensor_new(t->ctx, ts == 1 ? 1 : 2, tshape, &p->tgt);
  if (!rc) rc = plan_col(t, p);
  if (rc == DLCA_EDEVMEM) {
    char why[512];
    snprintf(why, sizeof why, "%s", dlca_last_error());
    rc = dlca__fail(rc, "net trainer: batch %zu does not fit the device: %s", N, why);
  }
  return rc;
}

/* The parameter and gradient groups, the parameters uploaded, the optimizer. */
static int params_new(dlca_net_trainer *t, dlca__net_cl *c) {
  const dlca_net *net = t->net;
  size_t T = net->n_tensors;
  int ranks[2 * 64];
  size_t shapes[2 * 64][4];
  const size_t *sp[2 * 64];
  for (size_t j = 0; j < T; j++) dlca__net_tensor_shape(net, j, &ranks[j], shapes[j]), sp[j] = shapes[j];
  c->pt = calloc(T + 1, sizeof *c->pt), c->gt = calloc(T + 1, sizeof *c->gt);
  if (!c->pt || !c->gt) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  int rc = T ? dlca_tensor_group_new(t->ctx, T, ranks, sp, &c->pg) : DLCA_OK;
  if (!rc && T) rc = dlca_tensor_group_new(t->ctx, T, ranks, sp, &c->gg);
  for (size_t j = 0, off = 0; !rc && j < T; j++) {
    c->pt[j] = dlca_tensor_group_member(c->pg, j), c->gt[j] = dlca_tensor_group_member(c->gg, j);
    size_t n = dlca_tensor_numel(c->pt[j]);
    rc = dlca_tensor_upload(c->pt[j], net->params + off, n);
    off += n;
  }
  if (!rc && T) rc = dlca_optim_cl_new(t->ctx, &t->cfg, T, c->pt, &c->opt);
  return rc;
}

/* Which tensors belong to which layer, and which dense layers take their activation along. */
static int layout(dlca_net_trainer *t, dlca__net_cl *c) {
  const dlca_net *net = t->net;
  size_t L = net->n_layers;
  c->tidx = calloc(L, sizeof *c->tidx), c->fused = calloc(L, sizeof *c->fused);
  if (!c->tidx || !c->fused) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  for (size_t i = 0, j = 0; i < L; i++) {
    c->tidx[i] = j;
    j += dlca__net_has_params(&net->layers[i]) ? 2 : 0;
    int k = i + 1 < L ? net->layers[i + 1].kind : -1;
    c->fused[i] = net->layers[i].kind == DLCA_NET_DENSE &&
                  (k == DLCA_NET_RELU || k == DLCA_NET_SIGMOID || k == DLCA_NET_TANH);
  }
  return DLCA_OK;
}

int dlca__net_cl_new(dlca_net_trainer *t) {
  dlca__net_cl *c = calloc(1, sizeof *c);
  if (!c) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  t->cl = c;
  size_t one = 1, three = 3;
  float g = 1.0f, zero[3] = {0, 0, 0};
  int rc = layout(t, c);
  if (!rc) rc = params_new(t, c);
  if (!rc) rc = dlca_tensor_new(t->ctx, 1, &one, &c->loss);
  if (!rc) rc = dlca_tensor_new(t->ctx, 1, &one, &c->one);
  if (!rc) rc = dlca_tensor_new(t->ctx, 1, &three, &c->acc);
  if (!rc) rc = dlca_tensor_upload(c->one, &g, 1);
  if (!rc) rc = dlca_tensor_upload(c->acc, zero, 3);
  if (!rc) rc = plan_new(t, t->batch, &c->train);
  return rc;
}

void dlca__net_cl_free(dlca__net_cl *c) {
  if (!c) return;
  plan_free(&c->train);
  free(c->tidx), free(c->fused), free(c->pt), free(c->gt);
  dlca_optim_cl_free(c->opt);
  dlca_tensor_group_free(c->pg), dlca_tensor_group_free(c->gg);
  dlca_tensor_free(c->x), dlca_tensor_free(c->y), dlca_tensor_free(c->loss), dlca_tensor_free(c->one);
  dlca_tensor_free(c->acc);
  if (c->perm) clReleaseMemObject(c->perm);
  free(c);
}

static int upload(dlca_context *ctx, size_t n, size_t row, const float *v, dlca_tensor **out) {
  size_t shape[2] = {n, row};
  int rc = dlca_tensor_new(ctx, 2, shape, out);
  if (rc == DLCA_OK) rc = dlca_tensor_upload(*out, v, n * row);
  return rc;
}

int dlca__net_cl_data(dlca_net_trainer *t, const float *x, const float *y) {
  dlca__net_cl *c = t->cl;
  dlca_tensor_free(c->x), dlca_tensor_free(c->y);
  if (c->perm) clReleaseMemObject(c->perm);
  c->x = c->y = NULL, c->perm = NULL, c->perm_valid = 0;
  int rc = upload(t->ctx, t->n, dlca_net_in_size(t->net), x, &c->x);
  if (!rc) rc = upload(t->ctx, t->n, dlca_net_target_size(t->net), y, &c->y);
  cl_int err = CL_SUCCESS;
  if (!rc) c->perm = clCreateBuffer(t->ctx->cl, CL_MEM_READ_WRITE, t->n * sizeof(cl_uint), NULL, &err);
  if (!rc && err != CL_SUCCESS)
    rc = dlca__fail(DLCA_EDEVMEM, "net trainer: the order of %zu samples: %s", t->n, dlca__cl_error_name(err));
  return rc;
}

/* The epoch's order on the device, drawn when the epoch or the seed changes. */
static int epoch_order(dlca_net_trainer *t, uint64_t seed, uint64_t epoch) {
  dlca__net_cl *c = t->cl;
  if (c->perm_valid && c->perm_seed == seed && c->perm_epoch == epoch) return DLCA_OK;
  int rc = dlca__net_cl_perm(t->ctx, c->perm, t->n, seed, epoch);
  c->perm_valid = rc == DLCA_OK, c->perm_seed = seed, c->perm_epoch = epoch;
  return rc;
}

static dlca__act act_of(int kind) {
  return kind == DLCA_NET_RELU ? DLCA__ACT_relu : kind == DLCA_NET_SIGMOID ? DLCA__ACT_sigmoid : DLCA__ACT_tanh;
}
static dlca__unary_fn unary_of(int kind) {
  return kind == DLCA_NET_RELU ? DLCA__U_relu : kind == DLCA_NET_SIGMOID ? DLCA__U_sigmoid : DLCA__U_tanh;
}

static int copy(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst) {
  cl_int err = clEnqueueCopyBuffer(ctx->queue, src->buf, dst->buf, 0, 0, src->n * sizeof(float), 0, NULL, NULL);
  return err == CL_SUCCESS ? DLCA_OK : dlca__fail_cl(err, "net flatten: copy: %s", dlca__cl_error_name(err));
}

/* Layer i forward on plan p; a fused dense writes layer i + 1's output. */
static int forward_layer(dlca_net_trainer *t, plan *p, size_t i) {
  const dlca_net_layer *l = &t->net->layers[i];
  dlca__net_cl *c = t->cl;
  dlca_tensor **a = p->act, *w = c->pt[c->tidx[i]], *b = c->pt[c->tidx[i] + 1];
  dlca__conv2d cv = conv_of(l);
  int k = l->k, s = dlca__net_stride(l);
  switch (l->kind) {
  case DLCA_NET_DENSE:
    return c->fused[i] ? dlca__ops_cl_dense(t->ctx, act_of(t->net->layers[i + 1].kind), a[i], w, b, a[i + 2])
                       : dlca__ops_cl_dense(t->ctx, DLCA__ACT_none, a[i], w, b, a[i + 1]);
  case DLCA_NET_CONV2D: return dlca__ops_cl_conv2d(t->ctx, &cv, a[i], w, b, a[i + 1], p->col);
  case DLCA_NET_MAXPOOL: return dlca__ops_cl_pool2d(t->ctx, DLCA__POOL_max, k, s, a[i], a[i + 1]);
  case DLCA_NET_MEANPOOL: return dlca__ops_cl_pool2d(t->ctx, DLCA__POOL_mean, k, s, a[i], a[i + 1]);
  case DLCA_NET_FLATTEN: return copy(t->ctx, a[i], a[i + 1]);
  default: return dlca__ops_cl_unary(t->ctx, unary_of(l->kind), a[i], a[i + 1]);
  }
}

static int forward(dlca_net_trainer *t, plan *p) {
  int rc = DLCA_OK;
  for (size_t i = 0; i < t->net->n_layers && !rc; i++) {
    rc = forward_layer(t, p, i);
    if (t->cl->fused[i]) i++;
  }
  return rc;
}

/* Layer i backward: dact[i] (unless i is 0) and its parameters' gradients. */
static int backward_layer(dlca_net_trainer *t, plan *p, size_t i, int fused) {
  const dlca_net_layer *l = &t->net->layers[i];
  dlca__net_cl *c = t->cl;
  dlca_tensor **a = p->act, **d = p->dact, *dx = i ? d[i] : NULL;
  size_t o = i + 1 + (fused != 0); /* the output the gradient arrives at */
  dlca_tensor *w = c->pt[c->tidx[i]], *dw = c->gt[c->tidx[i]], *db = c->gt[c->tidx[i] + 1];
  dlca__conv2d cv = conv_of(l);
  int k = l->k, s = dlca__net_stride(l);
  switch (l->kind) {
  case DLCA_NET_DENSE:
    return dlca__ops_cl_dense_backward(t->ctx, fused ? act_of(t->net->layers[i + 1].kind) : DLCA__ACT_none, a[i],
                                       w, a[o], d[o], d[o], dx, dw, db);
  case DLCA_NET_CONV2D: return dlca__ops_cl_conv2d_backward(t->ctx, &cv, a[i], w, d[o], dx, dw, db, p->col);
  case DLCA_NET_MAXPOOL: return dx ? dlca__ops_cl_pool2d_backward(t->ctx, DLCA__POOL_max, k, s, a[i], d[o], dx) : 0;
  case DLCA_NET_MEANPOOL: return dx ? dlca__ops_cl_pool2d_backward(t->ctx, DLCA__POOL_mean, k, s, a[i], d[o], dx) : 0;
  case DLCA_NET_FLATTEN: return dx ? copy(t->ctx, d[o], dx) : DLCA_OK;
  default: return dx ? dlca__ops_cl_unary_backward(t->ctx, unary_of(l->kind), a[i], a[o], d[o], dx) : DLCA_OK;
  }
}

static int backward(dlca_net_trainer *t, plan *p) {
  int rc = DLCA_OK;
  for (size_t i = t->net->n_layers; i-- > 0 && !rc;) {
    int fused = i > 0 && t->cl->fused[i - 1];
    if (fused) i--; /* the activation went with its dense layer */
    rc = backward_layer(t, p, i, fused);
  }
  return rc;
}

/* The loss of plan p into c->loss; with grad, its gradient into dact[L]. */
static int loss(dlca_net_trainer *t, plan *p, int grad) {
  dlca__net_cl *c = t->cl;
  size_t L = t->net->n_layers;
  if (t->net->loss == DLCA_NET_MSE) {
    int rc = dlca__ops_cl_mse(t->ctx, p->act[L], p->tgt, c->loss);
    return rc || !grad ? rc : dlca__ops_cl_mse_backward(t->ctx, p->act[L], p->tgt, c->one, p->dact[L], NULL);
  }
  int rc = dlca__ops_cl_softmax_xent(t->ctx, p->act[L], p->tgt, c->loss);
  return rc || !grad ? rc : dlca__ops_cl_softmax_xent_backward(t->ctx, p->act[L], p->tgt, c->one, p->dact[L]);
}

int dlca__net_cl_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b) {
  dlca__net_cl *c = t->cl;
  plan *p = &c->train;
  int rc = epoch_order(t, seed, epoch);
  if (!rc) rc = dlca__net_cl_gather(t->ctx, c->x, p->act[0], t->n, c->perm, b * t->batch);
  if (!rc) rc = dlca__net_cl_gather(t->ctx, c->y, p->tgt, t->n, c->perm, b * t->batch);
  if (!rc) rc = forward(t, p);
  if (!rc) rc = loss(t, p, 1);
  if (!rc) rc = backward(t, p);
  if (!rc) rc = dlca__net_cl_accum(t->ctx, c->loss, c->acc, 1.0f);
  if (!rc && c->opt) rc = dlca_optim_cl_step(c->opt, c->pt, (const dlca_tensor *const *)c->gt);
  return rc;
}

/* acc's three sums (waits), then zeroes them. */
static int take_acc(dlca__net_cl *c, float v[3]) {
  float zero[3] = {0, 0, 0};
  int rc = dlca_tensor_download(c->acc, v, 3);
  return rc ? rc : dlca_tensor_upload(c->acc, zero, 3);
}

int dlca__net_cl_loss(dlca_net_trainer *t, double *l) {
  float v[3];
  int rc = take_acc(t->cl, v);
  if (!rc) *l = v[1] > 0 ? (double)v[0] / (double)v[1] : NAN;
  return rc;
}

/* Chunks of plan p's size from the first row on, loss and correct rows summed into eacc. */
static int eval_chunks(dlca_net_trainer *t, plan *p, const dlca_tensor *x, const dlca_tensor *y, size_t n,
                       size_t first, size_t count, dlca_tensor *eacc) {
  int rc = DLCA_OK;
  for (size_t f = first; f < first + count && !rc; f += p->N) {
    rc = dlca__net_cl_gather(t->ctx, x, p->act[0], n, NULL, f);
    if (!rc) rc = dlca__net_cl_gather(t->ctx, y, p->tgt, n, NULL, f);
    if (!rc) rc = forward(t, p);
    if (!rc) rc = loss(t, p, 0);
    if (!rc) rc = dlca__net_cl_accum(t->ctx, t->cl->loss, eacc, (float)p->N);
    if (!rc && t->net->loss == DLCA_NET_SOFTMAX_XENT)
      rc = dlca__net_cl_correct(t->ctx, p->act[t->net->n_layers], p->tgt, eacc);
  }
  return rc;
}

int dlca__net_cl_eval(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *acc, double *l) {
  dlca_tensor *xt = NULL, *yt = NULL, *eacc = NULL;
  plan tail = {0};
  size_t three = 3, full = n / t->batch * t->batch;
  float v[3] = {0, 0, 0};
  int rc = upload(t->ctx, n, dlca_net_in_size(t->net), x, &xt);
  if (!rc) rc = upload(t->ctx, n, dlca_net_target_size(t->net), y, &yt);
  if (!rc) rc = dlca_tensor_new(t->ctx, 1, &three, &eacc);
  if (!rc) rc = dlca_tensor_upload(eacc, v, 3);
  if (!rc) rc = eval_chunks(t, &t->cl->train, xt, yt, n, 0, full, eacc);
  if (!rc && n > full) rc = plan_new(t, n - full, &tail);
  if (!rc && n > full) rc = eval_chunks(t, &tail, xt, yt, n, full, n - full, eacc);
  if (!rc) rc = dlca_tensor_download(eacc, v, 3);
  plan_free(&tail);
  dlca_tensor_free(xt), dlca_tensor_free(yt), dlca_tensor_free(eacc);
  if (rc) return rc;
  *l = (double)v[0] / (double)n;
  *acc = t->net->loss == DLCA_NET_SOFTMAX_XENT ? (double)v[2] / (double)n : NAN;
  return DLCA_OK;
}

int dlca__net_cl_sync(dlca_net_trainer *t) {
  dlca__net_cl *c = t->cl;
  int rc = DLCA_OK;
  for (size_t j = 0, off = 0; j < t->net->n_tensors && !rc; j++) {
    size_t n = dlca_tensor_numel(c->pt[j]);
    rc = dlca_tensor_download(c->pt[j], t->net->params + off, n);
    off += n;
  }
  return rc;
}

int dlca__net_cl_set_lr(dlca_net_trainer *t, double lr) {
  return t->cl->opt ? dlca_optim_cl_set_lr(t->cl->opt, lr) : DLCA_OK;
}
