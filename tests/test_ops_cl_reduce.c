/* The reduce kernels (kernels-cl/ops/reduce.cl) on the OpenCL device against
 * the CPU twin: random inputs on shapes other than the vectors', and every
 * reduce_* vector file, forward and backward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_elementwise.h"
#include "ops_util.h"

static const struct {
  dlca__shape s;
  long axes[DLCA__MAX_RANK];
  size_t naxes;
  int keep;
} cases[] = {
    {{3, {3, 4, 5}}, {0, 2}, 2, 0},
    {{4, {2, 3, 2, 7}}, {-1}, 1, 1},
    {{2, {4, 3}}, {0, 1}, 2, 0},
    {{4, {3, 1, 5, 2}}, {1, 2}, 2, 1},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

START_TEST(test_ops_cl_reduce_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-reduce");
  dlca_context *ctx = tcl_context();
  dlca__reduce_fn fn = (dlca__reduce_fn)(_i / N_CASES);
  const dlca__shape *xs = &cases[_i % N_CASES].s;
  dlca__shape ys;
  unsigned mask;
  ck_assert_int_eq(
      dlca__reduce_shape(xs, cases[_i % N_CASES].axes, cases[_i % N_CASES].naxes, cases[_i % N_CASES].keep, &mask, &ys),
      DLCA_OK);
  size_t nx = dlca__shape_n(xs), ny = dlca__shape_n(&ys);
  float *xf = malloc(sizeof(float) * nx), *dyf = malloc(sizeof(float) * ny);
  double *x = malloc(sizeof(double) * nx), *y = malloc(sizeof(double) * ny), *dy = malloc(sizeof(double) * ny);
  double *dx = malloc(sizeof(double) * nx);
  tu_random(xf, nx, -3, 3, 1100 + (uint64_t)_i);
  tu_random(dyf, ny, -1, 1, 1200 + (uint64_t)_i);
  to_double(xf, x, nx), to_double(dyf, dy, ny);
  dlca__ref_reduce(fn, xs, mask, x, y);
  ck_assert_int_eq(dlca__ref_reduce_backward(fn, xs, mask, x, dy, dx), DLCA_OK);
  dlca_tensor *tx = to_tensor(ctx, *xs, xf), *ty = to_tensor(ctx, ys, NULL), *tdy = to_tensor(ctx, ys, dyf);
  dlca_tensor *tdx = to_tensor(ctx, *xs, NULL);
  ck_assert_msg(dlca__ops_cl_reduce(ctx, fn, tx, mask, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_reduce_backward(ctx, fn, tx, mask, tdy, tdx) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops cl reduce fn %d case %d forward %.2e backward %.2e\n", (int)fn, _i % N_CASES, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(ty), dlca_tensor_free(tdy), dlca_tensor_free(tdx);
  free(xf), free(dyf), free(x), free(y), free(dy), free(dx);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_ops_cl_reduce_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("ops-cl-reduce-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, "reduce_", &list);
  ck_assert(list.n > 0);
  for (size_t i = 0; i < list.n; i++) to_vec_run(ctx, list.path[i]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

/* An output that is not x reduced over the axes is refused. */
START_TEST(test_ops_cl_reduce_bad) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-reduce-bad");
  dlca_context *ctx = tcl_context();
  dlca_tensor *x = to_tensor(ctx, (dlca__shape){2, {3, 4}}, NULL), *y = to_tensor(ctx, (dlca__shape){1, {4}}, NULL);
  ck_assert_int_eq(dlca__ops_cl_reduce(ctx, DLCA__R_sum, x, 2u, y), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "the output has shape [4], not x's reduced"));
  ck_assert_int_eq(dlca__ops_cl_reduce(ctx, DLCA__R_sum, x, 4u, y), DLCA_EINVAL);
  ck_assert_int_eq(dlca__ops_cl_reduce(ctx, DLCA__R_sum, x, 1u, y), DLCA_OK);
  dlca_tensor_free(x), dlca_tensor_free(y);
  dlca_context_free(ctx);
}
END_TEST

void to_add_cl_reduce(TCase *tc) {
  tcase_add_loop_test(tc, test_ops_cl_reduce_random, 0, DLCA__R_COUNT * N_CASES);
  tcase_add_test(tc, test_ops_cl_reduce_vectors);
  tcase_add_test(tc, test_ops_cl_reduce_bad);
}
