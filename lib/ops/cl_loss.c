/* Launchers of kernels-cl/ops/loss.cl, in the program ops.cl: mse and
 * softmax cross-entropy, reduction mean (lib/ops/cl_elementwise.h). */
#include <stdio.h>

#include "ops/cl_elementwise.h"

/* DLCA_EINVAL unless t holds one element (the loss, or its upstream gradient). */
static int scalar(const dlca_tensor *t, const char *fn, const char *what) {
  if (t->n == 1) return DLCA_OK;
  char sh[96];
  dlca__tensor_shape_text(t, sh, sizeof sh);
  return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s, expected one element", fn, what, sh);
}

/* Runs kernel name over n_items with the given arguments. */
static int run(dlca_context *ctx, const char *name, size_t n_items, int nargs, const size_t *sizes,
               const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "LOSS_WG", name, &k, &wg);
  if (rc) return rc;
  return dlca__ops_cl_launch(ctx, k, name, wg, n_items ? n_items : wg, nargs, sizes, args);
}

int dlca__ops_cl_mse(dlca_context *ctx, const dlca_tensor *in, const dlca_tensor *target, dlca_tensor *loss) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, in, "mse: input")) || (rc = dlca__tensor_check(ctx, target, "mse: target")) ||
      (rc = dlca__tensor_check(ctx, loss, "mse: loss")) ||
      (rc = dlca__ops_cl_same_shape(in, target, "mse", "target")) || (rc = scalar(loss, "mse", "loss")))
    return rc;
  cl_uint n = (cl_uint)in->n;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof n};
  const void *args[] = {&in->buf, &target->buf, &loss->buf, &n};
  return run(ctx, "dlca_ops_mse", 0, 4, sizes, args); /* one work-group */
}

int dlca__ops_cl_mse_backward(dlca_context *ctx, const dlca_tensor *in, const dlca_tensor *target, const dlca_tensor *g,
                              dlca_tensor *d_in, dlca_tensor *d_target) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, in, "mse backward: input")) ||
      (rc = dlca__tensor_check(ctx, target, "mse backward: target")) ||
      (rc = dlca__tensor_check(ctx, g, "mse backward: g")) || (rc = scalar(g, "mse backward", "g")) ||
      (rc = dlca__ops_cl_same_shape(in, target, "mse backward", "target")) ||
      (d_in && ((rc = dlca__tensor_check(ctx, d_in, "mse backward: d_input")) ||
                (rc = dlca__ops_cl_same_shape(in, d_in, "mse backward", "d_input")))) ||
      (d_target && ((rc = dlca__tensor_check(ctx, d_target, "mse backward: d_target")) ||
                    (rc = dlca__ops_cl_same_shape(in, d_target, "mse backward", "d_target")))))
    return rc;
  if (!d_in && !d_target) return DLCA_OK;
  cl_mem a = d_in ? d_in->buf : d_target->buf, b = d_target ? d_target->buf : d_in->buf;
  cl_uint n = (cl_uint)in->n;
  cl_int ha = d_in != NULL, hb = d_target != NULL;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, m, m, sizeof n, sizeof ha, sizeof hb};
  const void *args[] = {&in->buf, &target->buf, &g->buf, &a, &b, &n, &ha, &hb};
  return n ? run(ctx, "dlca_ops_mse_backward", n, 8, sizes, args) : DLCA_OK;
}

/* logits [N, K] and target [N] (class indices as floats). */
static int xent_shapes(const dlca_tensor *l, const dlca_tensor *t, const char *fn) {
  if (l->rank == 2 && t->rank == 1 && t->shape[0] == l->shape[0] && l->shape[1] > 0) return DLCA_OK;
  char sl[96], st[96];
  dlca__tensor_shape_text(l, sl, sizeof sl), dlca__tensor_shape_text(t, st, sizeof st);
  return dlca__fail(DLCA_EINVAL, "%s: expected logits [N, K] and target [N], got %s and %s", fn, sl, st);
}

int dlca__ops_cl_softmax_xent(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target,
                              dlca_tensor *loss) {
  int rc;
  const char *fn = "softmax_cross_entropy";
  if ((rc = dlca__tensor_check(ctx, logits, fn)) || (rc = dlca__tensor_check(ctx, target, fn)) ||
      (rc = dlca__tensor_check(ctx, loss, fn)) || (rc = xent_shapes(logits, target, fn)) ||
      (rc = scalar(loss, fn, "loss")))
    return rc;
  cl_uint N = (cl_uint)logits->shape[0], K = (cl_uint)logits->shape[1];
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof N, sizeof K};
  const void *args[] = {&logits->buf, &target->buf, &loss->buf, &N, &K};
  return run(ctx, "dlca_ops_softmax_xent", 0, 5, sizes, args); /* one work-group */
}

int dlca__ops_cl_softmax_xent_backward(dlca_context *ctx, const dlca_tensor *logits, const dlca_tensor *target,
                                       const dlca_tensor *g, dlca_tensor *d_logits) {
  int rc;
  const char *fn = "softmax_cross_entropy backward";
  if ((rc = dlca__tensor_check(ctx, logits, fn)) || (rc = dlca__tensor_check(ctx, target, fn)) ||
      (rc = dlca__tensor_check(ctx, g, fn)) || (rc = dlca__tensor_check(ctx, d_logits, fn)) ||
      (rc = xent_shapes(logits, target, fn)) || (rc = scalar(g, fn, "g")) ||
      (rc = dlca__ops_cl_same_shape(logits, d_logits, fn, "d_logits")))
    return rc;
  cl_uint N = (cl_uint)logits->shape[0], K = (cl_uint)logits->shape[1];
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, m, sizeof N, sizeof K};
  const void *args[] = {&logits->buf, &target->buf, &g->buf, &d_logits->buf, &N, &K};
  return N ? run(ctx, "dlca_ops_softmax_xent_backward", N, 6, sizes, args) : DLCA_OK;
}
