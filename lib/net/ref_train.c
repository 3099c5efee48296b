/* The trainer's CPU twin: the step of lib/net/trainer.c on host arrays,
 * float32 parameters and optimizer (lib/optim), double forward and backward
 * (lib/net/ref_layers.c, lib/ops's loss twins). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "net/net_impl.h"
#include "ops/ref.h"

struct dlca__net_ref {
  float *x, *y;            /* the training set */
  float *params, *grads;   /* n_params each */
  double *pd, *gd;         /* the same in double */
  float **pp, **gp;        /* per tensor */
  dlca_optimizer *opt;
  double **act, **dact;    /* n_act = n_layers + 1 activations of batch samples */
  size_t n_act;
  double *tgt;             /* batch targets */
  double loss_sum;
  size_t loss_count;
};

static int alloc_acts(dlca_net_trainer *t, dlca__net_ref *r) {
  const dlca_net *net = t->net;
  size_t L = net->n_layers, ts = dlca_net_target_size(net);
  r->act = calloc(L + 1, sizeof *r->act), r->dact = calloc(L + 1, sizeof *r->dact);
  r->tgt = malloc(t->batch * ts * sizeof *r->tgt);
  if (!r->act || !r->dact || !r->tgt) return DLCA_ENOMEM;
  r->n_act = L + 1;
  for (size_t i = 0; i <= L; i++) {
    size_t n = t->batch * dlca__nshape_n(&net->shape[i]);
    r->act[i] = malloc(n * sizeof(double)), r->dact[i] = malloc(n * sizeof(double));
    if (!r->act[i] || !r->dact[i]) return DLCA_ENOMEM;
  }
  return DLCA_OK;
}

static int alloc_params(dlca_net_trainer *t, dlca__net_ref *r) {
  const dlca_net *net = t->net;
  size_t P = net->n_params ? net->n_params : 1, T = net->n_tensors;
  r->params = malloc(P * sizeof(float)), r->grads = calloc(P, sizeof(float));
  r->pd = malloc(P * sizeof(double)), r->gd = calloc(P, sizeof(double));
  r->pp = calloc(T + 1, sizeof *r->pp), r->gp = calloc(T + 1, sizeof *r->gp);
  size_t *sizes = calloc(T + 1, sizeof *sizes);
  if (!r->params || !r->grads || !r->pd || !r->gd || !r->pp || !r->gp || !sizes) {
    free(sizes);
    return DLCA_ENOMEM;
  }
  memcpy(r->params, net->params, net->n_params * sizeof(float));
  dlca__net_tensor_sizes(net, sizes);
  for (size_t j = 0, off = 0; j < T; off += sizes[j++]) r->pp[j] = r->params + off, r->gp[j] = r->grads + off;
  int rc = dlca_optim_new(&t->cfg, T, sizes, &r->opt);
  free(sizes);
  return rc;
}

int dlca__net_ref_new(dlca_net_trainer *t) {
  dlca__net_ref *r = calloc(1, sizeof *r);
  if (!r) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  t->ref = r;
  int rc = alloc_params(t, r);
  if (rc == DLCA_OK) rc = alloc_acts(t, r);
  if (rc == DLCA_ENOMEM)
    return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory for %zu parameters and batch %zu",
                      t->net->n_params, t->batch);
  return rc;
}

void dlca__net_ref_free(dlca__net_ref *r) {
  if (!r) return;
  free(r->x), free(r->y), free(r->params), free(r->grads), free(r->pd), free(r->gd), free(r->pp), free(r->gp);
  dlca_optim_free(r->opt);
  for (size_t i = 0; i < r->n_act; i++) free(r->act[i]), free(r->dact[i]);
  free(r->act), free(r->dact), free(r->tgt), free(r);
}

int dlca__net_ref_data(dlca_net_trainer *t, const float *x, const float *y) {
  dlca__net_ref *r = t->ref;
  size_t nx = t->n * dlca_net_in_size(t->net), ny = t->n * dlca_net_target_size(t->net);
  free(r->x), free(r->y);
  r->x = malloc(nx * sizeof(float)), r->y = malloc(ny * sizeof(float));
  if (!r->x || !r->y) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory for %zu samples", t->n);
  memcpy(r->x, x, nx * sizeof(float)), memcpy(r->y, y, ny * sizeof(float));
  return DLCA_OK;
}

/* act[0] and tgt from samples idx(j) of x, y, j < N. */
static void load_rows(dlca_net_trainer *t, size_t N, const float *x, const float *y, uint64_t seed, uint64_t epoch,
                      size_t first, int permute) {
  dlca__net_ref *r = t->ref;
  size_t in = dlca_net_in_size(t->net), ts = dlca_net_target_size(t->net);
  for (size_t j = 0; j < N; j++) {
    size_t s = permute ? dlca_net_perm(seed, epoch, (uint32_t)t->n, (uint32_t)(first + j)) : first + j;
    for (size_t e = 0; e < in; e++) r->act[0][j * in + e] = x[s * in + e];
    for (size_t e = 0; e < ts; e++) r->tgt[j * ts + e] = y[s * ts + e];
  }
}

static void forward(dlca_net_trainer *t, size_t N) {
  const dlca_net *net = t->net;
  dlca__net_ref *r = t->ref;
  for (size_t p = 0; p < net->n_params; p++) r->pd[p] = r->params[p];
  for (size_t i = 0; i < net->n_layers; i++)
    dlca__net_ref_forward(net, i, N, r->pd + net->poff[i], r->act[i], r->act[i + 1]);
}

/* The mean loss of the N rows in act[L] against tgt; with grad, its gradient into dact[L]. */
static int loss(dlca_net_trainer *t, size_t N, int grad, double *out) {
  const dlca_net *net = t->net;
  dlca__net_ref *r = t->ref;
  size_t L = net->n_layers, K = dlca_net_out_size(net);
  if (net->loss == DLCA_NET_MSE) {
    *out = dlca__ref_mse(N * K, r->act[L], r->tgt);
    if (grad) dlca__ref_mse_backward(N * K, r->act[L], r->tgt, 1.0, r->dact[L], NULL);
    return DLCA_OK;
  }
  int rc = dlca__ref_softmax_xent(N, K, r->act[L], r->tgt, out);
  if (rc == DLCA_OK && grad) rc = dlca__ref_softmax_xent_backward(N, K, r->act[L], r->tgt, 1.0, r->dact[L]);
  return rc;
}

int dlca__net_ref_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b) {
  const dlca_net *net = t->net;
  dlca__net_ref *r = t->ref;
  size_t N = t->batch;
  double l;
  load_rows(t, N, r->x, r->y, seed, epoch, b * N, 1);
  forward(t, N);
  int rc = loss(t, N, 1, &l);
  if (rc) return rc;
  for (size_t i = net->n_layers; i-- > 0;)
    dlca__net_ref_backward(net, i, N, r->pd + net->poff[i], r->act[i], r->act[i + 1], r->dact[i + 1],
                           i ? r->dact[i] : NULL, r->gd + net->poff[i]);
  for (size_t p = 0; p < net->n_params; p++) r->grads[p] = (float)r->gd[p];
  r->loss_sum += l, r->loss_count++;
  return dlca_optim_step(r->opt, r->pp, (const float *const *)r->gp);
}

int dlca__net_ref_loss(dlca_net_trainer *t, double *l) {
  dlca__net_ref *r = t->ref;
  *l = r->loss_count ? r->loss_sum / (double)r->loss_count : NAN;
  r->loss_sum = 0, r->loss_count = 0;
  return DLCA_OK;
}

int dlca__net_ref_eval(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *acc, double *l) {
  const dlca_net *net = t->net;
  size_t ok = 0, K = dlca_net_out_size(net);
  double sum = 0;
  for (size_t first = 0; first < n; first += t->batch) {
    size_t N = n - first < t->batch ? n - first : t->batch;
    double part;
    load_rows(t, N, x, y, 0, 0, first, 0);
    forward(t, N);
    int rc = loss(t, N, 0, &part);
    if (rc) return rc;
    sum += part * (double)N;
    if (net->loss == DLCA_NET_SOFTMAX_XENT)
      ok += dlca__net_correct(N, K, t->ref->act[net->n_layers], y + first);
  }
  *l = sum / (double)n;
  *acc = net->loss == DLCA_NET_SOFTMAX_XENT ? (double)ok / (double)n : NAN;
  return DLCA_OK;
}

int dlca__net_ref_sync(dlca_net_trainer *t) {
  memcpy(t->net->params, t->ref->params, t->net->n_params * sizeof(float));
  return DLCA_OK;
}

int dlca__net_ref_set_lr(dlca_net_trainer *t, double lr) { return dlca_optim_set_lr(t->ref->opt, lr); }
