/* The movement kernels (kernels-cl/ops/movement.cl) on the OpenCL device
 * against the CPU twin: random inputs on shapes other than the vectors',
 * and every movement_* vector file, forward and backward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_elementwise.h"
#include "ops_util.h"

static const struct {
  dlca__move m;
  dlca__shape s;
} moves[] = {
    {{DLCA__M_permute, 3, {{1}, {2}, {0}}, 0}, {3, {3, 4, 2}}},
    {{DLCA__M_permute, 4, {{3}, {1}, {0}, {2}}, 0}, {4, {2, 3, 1, 2}}},
    {{DLCA__M_expand, 3, {{2}, {3}, {4}}, 0}, {2, {3, 1}}},
    {{DLCA__M_expand, 3, {{2}, {-1}, {3}}, 0}, {3, {1, 4, 1}}},
    {{DLCA__M_pad, 3, {{2, 1}, {0, 2}, {1, 1}}, 0.5}, {3, {2, 3, 2}}},
    {{DLCA__M_shrink, 3, {{1, 4}, {0, 3}, {2, 3}}, 0}, {3, {5, 4, 3}}},
    {{DLCA__M_stride, 3, {{3}, {2}, {1}}, 0}, {3, {5, 7, 3}}},
};
#define N_MOVES (int)(sizeof moves / sizeof moves[0])

/* Runs m forward and backward on x and dy (floats) and checks both against the twin. */
static void run_move(dlca_context *ctx, const dlca__move *m, const dlca__shape *xs, const float *xf, const float *dyf,
                     const char *what) {
  dlca__shape ys;
  dlca__view v;
  ck_assert_msg(dlca__move_plan(m, xs, &ys, &v) == DLCA_OK, "%s", dlca_last_error());
  size_t nx = dlca__shape_n(xs), ny = dlca__shape_n(&ys);
  double *x = malloc(sizeof(double) * nx), *dx = malloc(sizeof(double) * nx);
  double *y = malloc(sizeof(double) * ny), *dy = malloc(sizeof(double) * ny);
  to_double(xf, x, nx), to_double(dyf, dy, ny);
  ck_assert_int_eq(dlca__ref_move(m, xs, x, y), DLCA_OK);
  ck_assert_int_eq(dlca__ref_move_backward(m, xs, dy, dx), DLCA_OK);
  dlca_tensor *tx = to_tensor(ctx, *xs, xf), *ty = to_tensor(ctx, ys, NULL), *tdy = to_tensor(ctx, ys, dyf);
  dlca_tensor *tdx = to_tensor(ctx, *xs, NULL);
  ck_assert_msg(dlca__ops_cl_move(ctx, m, tx, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_move_backward(ctx, m, tdy, tdx) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(ty, y, "y"), eb = to_check(tdx, dx, "dx");
  fprintf(stderr, "ops cl movement %-20s (fn %d) forward %.2e backward %.2e\n", what, (int)m->fn, ef, eb);
  dlca_tensor_free(tx), dlca_tensor_free(ty), dlca_tensor_free(tdy), dlca_tensor_free(tdx);
  free(x), free(dx), free(y), free(dy);
}

START_TEST(test_ops_cl_move_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-move");
  dlca_context *ctx = tcl_context();
  dlca__shape ys;
  dlca__view v;
  ck_assert_int_eq(dlca__move_plan(&moves[_i].m, &moves[_i].s, &ys, &v), DLCA_OK);
  size_t nx = dlca__shape_n(&moves[_i].s), ny = dlca__shape_n(&ys);
  float *xf = malloc(sizeof(float) * nx), *dyf = malloc(sizeof(float) * ny);
  tu_random(xf, nx, -3, 3, 1300 + (uint64_t)_i);
  tu_random(dyf, ny, -1, 1, 1400 + (uint64_t)_i);
  char what[32];
  snprintf(what, sizeof what, "random %d", _i);
  run_move(ctx, &moves[_i].m, &moves[_i].s, xf, dyf, what);
  free(xf), free(dyf);
  dlca_context_free(ctx);
}
END_TEST

/* Every movement_* file on the device, at the file's tolerance. */
START_TEST(test_ops_cl_move_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("ops-cl-move-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, "movement_", &list);
  ck_assert(list.n > 0);
  for (size_t i = 0; i < list.n; i++) to_vec_run(ctx, list.path[i]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

void to_add_cl_move(TCase *tc) {
  tcase_add_loop_test(tc, test_ops_cl_move_random, 0, N_MOVES);
  tcase_add_test(tc, test_ops_cl_move_vectors);
}
