/* The network trainer's public entry points: argument checks, then the
 * backend (lib/net/ref_train.c on the CPU, lib/net/cl_train.c on a device). */
#include <math.h>
#include <stdlib.h>
#include "net/net_impl.h"

int dlca_net_trainer_new(dlca_net *net, dlca_context *ctx, const dlca_optim_config *cfg, size_t batch,
                         dlca_net_trainer **out) {
  if (!net || !out) return dlca__fail(DLCA_EINVAL, "dlca_net_trainer_new: NULL argument");
  *out = NULL;
  if (batch < 1 || batch > 65536) return dlca__fail(DLCA_EINVAL, "net trainer: batch %zu is not in [1, 65536]", batch);
  dlca_net_trainer *t = calloc(1, sizeof *t);
  if (!t) return dlca__fail(DLCA_ENOMEM, "net trainer: out of host memory");
  t->net = net, t->ctx = ctx, t->batch = batch;
  int rc = cfg ? (t->cfg = *cfg, DLCA_OK) : dlca_optim_config_default(DLCA_OPTIM_ADAMW, &t->cfg);
  if (rc == DLCA_OK) rc = dlca_optim_config_check(&t->cfg);
  if (rc == DLCA_OK) rc = dlca__net_check_memory(t);
  if (rc == DLCA_OK) rc = ctx ? dlca__net_cl_new(t) : dlca__net_ref_new(t);
  if (rc) {
    dlca_net_trainer_free(t);
    return rc;
  }
  *out = t;
  return DLCA_OK;
}

void dlca_net_trainer_free(dlca_net_trainer *t) {
  if (!t) return;
  dlca__net_ref_free(t->ref);
  dlca__net_cl_free(t->cl);
  free(t);
}

/* Class targets must be integers in [0, K): the loss would be NaN on a device. */
static int check_targets(const dlca_net *net, size_t n, const float *y, const char *fn) {
  if (net->loss != DLCA_NET_SOFTMAX_XENT) return DLCA_OK;
  size_t K = dlca_net_out_size(net);
  for (size_t i = 0; i < n; i++)
    if (!(y[i] >= 0.0f && y[i] < (float)K && y[i] == floorf(y[i])))
      return dlca__fail(DLCA_EINVAL, "%s: target %zu is %g, not a class in 0..%zu", fn, i, (double)y[i], K - 1);
  return DLCA_OK;
}

int dlca_net_trainer_data(dlca_net_trainer *t, size_t n, const float *x, const float *y) {
  if (!t || !x || !y) return dlca__fail(DLCA_EINVAL, "dlca_net_trainer_data: NULL argument");
  if (n < t->batch || n > ((size_t)1 << 31))
    return dlca__fail(DLCA_EINVAL, "net trainer: %zu samples for batch %zu: need batch <= n <= 2^31", n, t->batch);
  int rc = check_targets(t->net, n, y, "net trainer");
  if (rc) return rc;
  t->n = n;
  rc = t->ctx ? dlca__net_cl_data(t, x, y) : dlca__net_ref_data(t, x, y);
  if (rc) t->n = 0;
  return rc;
}

size_t dlca_net_steps_per_epoch(const dlca_net_trainer *t) { return t && t->batch ? t->n / t->batch : 0; }

int dlca_net_step(dlca_net_trainer *t, uint64_t seed, uint64_t epoch, size_t b) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_net_step: NULL trainer");
  if (!t->n) return dlca__fail(DLCA_EINVAL, "dlca_net_step: no training data (dlca_net_trainer_data)");
  if (b >= t->n / t->batch)
    return dlca__fail(DLCA_EINVAL, "dlca_net_step: batch %zu of an epoch of %zu", b, t->n / t->batch);
  return t->ctx ? dlca__net_cl_step(t, seed, epoch, b) : dlca__net_ref_step(t, seed, epoch, b);
}

int dlca_net_trainer_loss(dlca_net_trainer *t, double *loss) {
  if (!t || !loss) return dlca__fail(DLCA_EINVAL, "dlca_net_trainer_loss: NULL argument");
  return t->ctx ? dlca__net_cl_loss(t, loss) : dlca__net_ref_loss(t, loss);
}

int dlca_net_evaluate(dlca_net_trainer *t, size_t n, const float *x, const float *y, double *accuracy,
                      double *loss) {
  if (!t || !x || !y || !accuracy || !loss) return dlca__fail(DLCA_EINVAL, "dlca_net_evaluate: NULL argument");
  if (n < 1 || n > ((size_t)1 << 31)) return dlca__fail(DLCA_EINVAL, "dlca_net_evaluate: %zu samples", n);
  int rc = check_targets(t->net, n, y, "dlca_net_evaluate");
  if (rc) return rc;
  return t->ctx ? dlca__net_cl_eval(t, n, x, y, accuracy, loss) : dlca__net_ref_eval(t, n, x, y, accuracy, loss);
}

int dlca_net_trainer_sync(dlca_net_trainer *t) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_net_trainer_sync: NULL trainer");
  return t->ctx ? dlca__net_cl_sync(t) : dlca__net_ref_sync(t);
}

int dlca_net_trainer_set_lr(dlca_net_trainer *t, double lr) {
  if (!t) return dlca__fail(DLCA_EINVAL, "dlca_net_trainer_set_lr: NULL trainer");
  return t->ctx ? dlca__net_cl_set_lr(t, lr) : dlca__net_ref_set_lr(t, lr);
}
