/* Launchers of the pooling kernels of kernels-cl/ops/conv.cl (lib/ops/cl_conv.h). */
#include <stdio.h>

#include "ops/cl_conv.h"
#include "ops/cl_elementwise.h"

/* Checks x, y (y's shape from dlca__pool2d_shape) and fills the kernels' shape arguments. */
static int pool_check(dlca_context *ctx, dlca__pool_fn fn, int k, int s, const dlca_tensor *x, const dlca_tensor *y,
                      const char *what, const char *yname, cl_uint4 *xd, cl_uint2 *od) {
  int rc;
  char w[48];
  snprintf(w, sizeof w, "%s: x", what);
  if ((rc = dlca__tensor_check(ctx, x, w))) return rc;
  snprintf(w, sizeof w, "%s: %s", what, yname);
  if ((rc = dlca__tensor_check(ctx, y, w))) return rc;
  if ((unsigned)fn >= DLCA__POOL_COUNT) return dlca__fail(DLCA_EINVAL, "%s: no function %d", what, (int)fn);
  dlca__shape xs = dlca__ops_cl_shape(x), ys, have = dlca__ops_cl_shape(y);
  if ((rc = dlca__pool2d_shape(&xs, k, s, &ys))) return rc;
  if (!dlca__shape_eq(&ys, &have)) {
    char a[96], b[96];
    dlca__tensor_shape_text(y, a, sizeof a), dlca__tensor_shape_text(x, b, sizeof b);
    return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s, not x %s pooled by %d with stride %d", what, yname, a, b, k,
                      s);
  }
  for (int i = 0; i < 4; i++) xd->s[i] = (cl_uint)xs.d[i];
  od->s[0] = (cl_uint)ys.d[2], od->s[1] = (cl_uint)ys.d[3];
  return DLCA_OK;
}

int dlca__ops_cl_pool2d(dlca_context *ctx, dlca__pool_fn fn, int k, int s, const dlca_tensor *x, dlca_tensor *y) {
  cl_uint4 xd;
  cl_uint2 od;
  int rc = pool_check(ctx, fn, k, s, x, y, "pool2d", "y", &xd, &od);
  if (rc) return rc;
  cl_kernel kern;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "POOL_WG", "dlca_pool2d", &kern, &wg))) return rc;
  cl_int f = (cl_int)fn, kk = k, ss = s;
  size_t m = sizeof(cl_mem), i = sizeof(cl_int), sizes[] = {m, m, i, i, i, sizeof xd, sizeof od};
  const void *args[] = {&x->buf, &y->buf, &f, &kk, &ss, &xd, &od};
  return dlca__ops_cl_launch(ctx, kern, "dlca_pool2d", wg, y->n, 7, sizes, args);
}

int dlca__ops_cl_pool2d_backward(dlca_context *ctx, dlca__pool_fn fn, int k, int s, const dlca_tensor *x,
                                 const dlca_tensor *dy, dlca_tensor *dx) {
  cl_uint4 xd;
  cl_uint2 od;
  int rc = pool_check(ctx, fn, k, s, x, dy, "pool2d backward", "dy", &xd, &od);
  if (rc || (rc = dlca__tensor_check(ctx, dx, "pool2d backward: dx")) ||
      (rc = dlca__ops_cl_same_shape(x, dx, "pool2d backward", "dx")))
    return rc;
  cl_kernel kern;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "POOL_WG", "dlca_pool2d_backward", &kern, &wg))) return rc;
  cl_int f = (cl_int)fn, kk = k, ss = s;
  size_t m = sizeof(cl_mem), i = sizeof(cl_int), sizes[] = {m, m, m, i, i, i, sizeof xd, sizeof od};
  const void *args[] = {&x->buf, &dy->buf, &dx->buf, &f, &kk, &ss, &xd, &od};
  return dlca__ops_cl_launch(ctx, kern, "dlca_pool2d_backward", wg, x->n, 8, sizes, args);
}
