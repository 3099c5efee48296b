/* conv2d and 2-D pooling on the OpenCL device (PoCL in CI, kernels-cl/ops/conv.cl)
 * against the CPU twin on fresh random shapes and inputs, the conv2d_* vectors,
 * determinism across work-group sizes, and the launchers' errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_conv.h"
#include "ops/cl_elementwise.h"
#include "ops_util.h"
#include "test_conv.h"

/* A device tensor of shape s holding the floats of d (NULL: uninitialised). */
static dlca_tensor *dev(dlca_context *ctx, const dlca__shape *s, const double *d) {
  size_t n = dlca__shape_n(s);
  float *f = malloc(sizeof(float) * (n ? n : 1));
  for (size_t i = 0; d && i < n; i++) f[i] = (float)d[i];
  dlca_tensor *t = to_tensor(ctx, *s, d ? f : NULL);
  free(f);
  return t;
}

/* fn, k, s for case i: max/mean x k 2/3 x stride 1/2. */
START_TEST(test_conv_cl_pool) {
  if (!tcl_platform()) return;
  tcl_fresh_env("conv-cl-pool");
  dlca_context *ctx = tcl_context();
  dlca__pool_fn fn = (dlca__pool_fn)(_i / 4);
  int k = 2 + (_i / 2) % 2, s = 1 + _i % 2;
  dlca__shape xs = {4, {3, 5, 9, 7}}, ys;
  ck_assert_int_eq(dlca__pool2d_shape(&xs, k, s, &ys), DLCA_OK);
  size_t nx = dlca__shape_n(&xs), ny = dlca__shape_n(&ys);
  double *x = tconv_rand_d(nx, -2, 2, 5000 + (uint64_t)_i), *dy = tconv_rand_d(ny, -1, 1, 5100 + (uint64_t)_i);
  double *y = malloc(sizeof(double) * ny), *dx = malloc(sizeof(double) * nx);
  dlca__ref_pool2d(fn, k, s, &xs, x, y);
  dlca__ref_pool2d_backward(fn, k, s, &xs, x, dy, dx);
  if (_i == 1 || _i == 6) /* other work-group sizes than the default */
    ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "POOL_WG", _i == 1 ? 32 : 256) == DLCA_OK, "%s",
                  dlca_last_error());
  dlca_tensor *tx = dev(ctx, &xs, x), *ty = dev(ctx, &ys, NULL), *tdy = dev(ctx, &ys, dy), *tdx = dev(ctx, &xs, NULL);
  ck_assert_msg(dlca__ops_cl_pool2d(ctx, fn, k, s, tx, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_pool2d_backward(ctx, fn, k, s, tx, tdy, tdx) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "conv cl pool2d %s k %d s %d forward %.2e backward %.2e\n", fn ? "mean" : "max", k, s, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(ty), dlca_tensor_free(tdy), dlca_tensor_free(tdx);
  free(x), free(dy), free(y), free(dx);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_conv_cl_pool_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("conv-cl-pool-errors");
  dlca_context *ctx = tcl_context(), *other = tcl_context();
  dlca__shape xs = {4, {2, 3, 6, 6}}, ys = {4, {2, 3, 3, 3}}, bad = {4, {2, 3, 2, 3}}, r3 = {3, {3, 6, 6}};
  dlca_tensor *x = dev(ctx, &xs, NULL), *y = dev(ctx, &ys, NULL), *yb = dev(ctx, &bad, NULL), *x3 = dev(ctx, &r3, NULL);
  dlca_tensor *xo = dev(other, &xs, NULL);
  TU_EXPECT(dlca__ops_cl_pool2d(ctx, DLCA__POOL_max, 2, 2, x, yb), DLCA_EINVAL,
         "pool2d: y has shape [2, 3, 2, 3], not x [2, 3, 6, 6] pooled by 2 with stride 2");
  TU_EXPECT(dlca__ops_cl_pool2d(ctx, DLCA__POOL_max, 2, 2, x3, y), DLCA_EINVAL, "x has shape [3, 6, 6], expected rank 4");
  TU_EXPECT(dlca__ops_cl_pool2d(ctx, DLCA__POOL_mean, 7, 1, x, y), DLCA_EINVAL,
         "the window 7x7 does not fit x [2, 3, 6, 6]");
  TU_EXPECT(dlca__ops_cl_pool2d(ctx, DLCA__POOL_mean, 2, 2, xo, y), DLCA_EINVAL,
         "pool2d: x: the tensor belongs to another");
  TU_EXPECT(dlca__ops_cl_pool2d_backward(ctx, DLCA__POOL_max, 2, 2, x, y, y), DLCA_EINVAL,
         "pool2d backward: dx has shape [2, 3, 3, 3], expected [2, 3, 6, 6]");
  dlca_tensor_free(x), dlca_tensor_free(y), dlca_tensor_free(yb), dlca_tensor_free(x3), dlca_tensor_free(xo);
  dlca_context_free(other), dlca_context_free(ctx);
}
END_TEST

TCase *tconv_tcase_cl(void) {
  TCase *tc = tcase_create("cl");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_conv_cl_pool, 0, 8);
  tcase_add_test(tc, test_conv_cl_pool_errors);
  tconv_add_cl_conv(tc);
  return tc;
}
