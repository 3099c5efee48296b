/* Launchers of kernels-cl/ops/reduce.cl, in the program ops.cl: sum, max and
 * mean over a mask of axes (lib/ops/cl_elementwise.h). */
#include <stdio.h>

#include "ops/cl_elementwise.h"

/* kd, rd, xs of reduce.cl for x's shape and mask; *ny the output count. */
static void red_args(const dlca__shape *xs, unsigned mask, cl_uint4 *kd, cl_uint4 *rd, cl_uint4 *st, size_t *ny) {
  dlca__view v;
  dlca__broadcast_view(xs, xs, &v); /* x's own dense strides (0 only on extent-1 axes) */
  cl_uint4 xd;
  dlca__ops_cl_uint4(&v, &xd, st);
  int pad = DLCA__MAX_RANK - xs->rank;
  *ny = 1;
  for (int k = 0; k < DLCA__MAX_RANK; k++) {
    int red = k >= pad && (mask & (1u << (k - pad)));
    kd->s[k] = red ? 1 : xd.s[k];
    rd->s[k] = red ? xd.s[k] : 1;
    *ny *= kd->s[k];
  }
}

/* DLCA_EINVAL unless y is x reduced over mask, with or without the kept 1s. */
static int check_out(const dlca_tensor *x, unsigned mask, const dlca_tensor *y, const char *fn) {
  dlca__shape xs = dlca__ops_cl_shape(x), keep, drop, ys = dlca__ops_cl_shape(y);
  long axes[DLCA__MAX_RANK];
  size_t na = 0;
  unsigned m;
  if (mask >> xs.rank) return dlca__fail(DLCA_EINVAL, "%s: axis mask 0x%x is beyond rank %d", fn, mask, xs.rank);
  for (int k = 0; k < xs.rank; k++)
    if (mask & (1u << k)) axes[na++] = k;
  dlca__reduce_shape(&xs, axes, na, 1, &m, &keep);
  dlca__reduce_shape(&xs, axes, na, 0, &m, &drop);
  if (dlca__shape_eq(&ys, &keep) || dlca__shape_eq(&ys, &drop)) return DLCA_OK;
  char sy[96];
  dlca__tensor_shape_text(y, sy, sizeof sy);
  return dlca__fail(DLCA_EINVAL, "%s: the output has shape %s, not x's reduced over the axes", fn, sy);
}

int dlca__ops_cl_reduce_raw(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                            const dlca_tensor *y) {
  dlca__shape xs = dlca__ops_cl_shape(x);
  cl_uint4 kd, rd, st;
  size_t ny;
  red_args(&xs, mask, &kd, &rd, &st, &ny);
  if (ny != y->n) return dlca__fail(DLCA_EINVAL, "reduce: %zu outputs, the output tensor has %zu", ny, y->n);
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "RED_WG", "dlca_ops_reduce", &k, &wg);
  if (rc) return rc;
  cl_uint n = (cl_uint)ny;
  cl_int f = (cl_int)fn;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, m, sizeof n, sizeof f, u4, u4, u4};
  const void *args[] = {&x->buf, &y->buf, &n, &f, &kd, &rd, &st};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_reduce", wg, ny, 7, sizes, args);
}

int dlca__ops_cl_reduce(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                        const dlca_tensor *y) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, "reduce: x")) || (rc = dlca__tensor_check(ctx, y, "reduce: y")) ||
      (rc = check_out(x, mask, y, "reduce")))
    return rc;
  if ((unsigned)fn >= DLCA__R_COUNT) return dlca__fail(DLCA_EINVAL, "reduce: no function %d", (int)fn);
  return dlca__ops_cl_reduce_raw(ctx, fn, x, mask, y);
}

int dlca__ops_cl_reduce_backward(dlca_context *ctx, dlca__reduce_fn fn, const dlca_tensor *x, unsigned mask,
                                 const dlca_tensor *dy, dlca_tensor *dx) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, "reduce backward: x")) ||
      (rc = dlca__tensor_check(ctx, dy, "reduce backward: dy")) ||
      (rc = dlca__tensor_check(ctx, dx, "reduce backward: dx")) || (rc = check_out(x, mask, dy, "reduce backward")) ||
      (rc = dlca__ops_cl_same_shape(x, dx, "reduce backward", "dx")))
    return rc;
  if ((unsigned)fn >= DLCA__R_COUNT) return dlca__fail(DLCA_EINVAL, "reduce backward: no function %d", (int)fn);
  dlca__shape xs = dlca__ops_cl_shape(x);
  cl_uint4 kd, rd, st;
  size_t ny;
  red_args(&xs, mask, &kd, &rd, &st, &ny);
  cl_kernel k;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "RED_WG", "dlca_ops_reduce_backward", &k, &wg))) return rc;
  cl_uint n = (cl_uint)ny;
  cl_int f = (cl_int)fn;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, m, m, sizeof n, sizeof f, u4, u4, u4};
  const void *args[] = {&x->buf, &dy->buf, &dx->buf, &n, &f, &kd, &rd, &st};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_reduce_backward", wg, ny, 8, sizes, args);
}
