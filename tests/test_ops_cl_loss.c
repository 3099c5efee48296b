/* The loss kernels (kernels-cl/ops/loss.cl) on the OpenCL device against the
 * CPU twin (random inputs on shapes other than the vectors') and against the
 * mse_* and softmax_cross_entropy_* files, forward and backward. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_elementwise.h"
#include "ops_util.h"

static const dlca__shape scalar_shape = {0, {0}};

START_TEST(test_ops_cl_mse_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-mse");
  dlca_context *ctx = tcl_context();
  dlca__shape s = {2, {7, 13}};
  size_t n = dlca__shape_n(&s);
  float *inf = malloc(sizeof(float) * n), *tf = malloc(sizeof(float) * n), gf = 0.75f;
  double *in = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n), loss;
  double *din = malloc(sizeof(double) * n), *dt = malloc(sizeof(double) * n);
  tu_random(inf, n, -2, 2, 1500), tu_random(tf, n, -2, 2, 1501);
  to_double(inf, in, n), to_double(tf, t, n);
  loss = dlca__ref_mse(n, in, t);
  dlca__ref_mse_backward(n, in, t, gf, din, dt);
  dlca_tensor *ti = to_tensor(ctx, s, inf), *tt = to_tensor(ctx, s, tf), *tl = to_tensor(ctx, scalar_shape, NULL);
  dlca_tensor *tg = to_tensor(ctx, scalar_shape, &gf), *tdi = to_tensor(ctx, s, NULL), *tdt = to_tensor(ctx, s, NULL);
  ck_assert_msg(dlca__ops_cl_mse(ctx, ti, tt, tl) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_mse_backward(ctx, ti, tt, tg, tdi, tdt) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(tl, &loss, "loss"), eb = fmax(to_check(tdi, din, "d_input"), to_check(tdt, dt, "d_target"));
  fprintf(stderr, "ops cl mse random forward %.2e backward %.2e\n", ef, eb);
  dlca_tensor_free(ti), dlca_tensor_free(tt), dlca_tensor_free(tl), dlca_tensor_free(tg), dlca_tensor_free(tdi),
      dlca_tensor_free(tdt);
  free(inf), free(tf), free(in), free(t), free(din), free(dt);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_ops_cl_xent_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("ops-cl-xent");
  dlca_context *ctx = tcl_context();
  size_t N = 97, K = 10;
  dlca__shape ls = {2, {N, K}}, ts = {1, {N}};
  float *lf = malloc(sizeof(float) * N * K), *tf = malloc(sizeof(float) * N), gf = 1.5f;
  double *l = malloc(sizeof(double) * N * K), *t = malloc(sizeof(double) * N), loss;
  double *dl = malloc(sizeof(double) * N * K);
  tu_random(lf, N * K, -4, 4, 1600);
  for (size_t i = 0; i < N; i++) tf[i] = (float)((i * 7 + 3) % K);
  to_double(lf, l, N * K), to_double(tf, t, N);
  ck_assert_int_eq(dlca__ref_softmax_xent(N, K, l, t, &loss), DLCA_OK);
  ck_assert_int_eq(dlca__ref_softmax_xent_backward(N, K, l, t, gf, dl), DLCA_OK);
  dlca_tensor *tl = to_tensor(ctx, ls, lf), *tt = to_tensor(ctx, ts, tf), *tloss = to_tensor(ctx, scalar_shape, NULL);
  dlca_tensor *tg = to_tensor(ctx, scalar_shape, &gf), *tdl = to_tensor(ctx, ls, NULL);
  ck_assert_msg(dlca__ops_cl_softmax_xent(ctx, tl, tt, tloss) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_softmax_xent_backward(ctx, tl, tt, tg, tdl) == DLCA_OK, "%s", dlca_last_error());
  double ef = to_check(tloss, &loss, "loss"), eb = to_check(tdl, dl, "d_logits");
  fprintf(stderr, "ops cl softmax_cross_entropy random forward %.2e backward %.2e\n", ef, eb);
  ck_assert_int_eq(dlca__ops_cl_softmax_xent(ctx, tt, tt, tloss), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "expected logits [N, K] and target [N]"));
  dlca_tensor_free(tl), dlca_tensor_free(tt), dlca_tensor_free(tloss), dlca_tensor_free(tg), dlca_tensor_free(tdl);
  free(lf), free(tf), free(l), free(t), free(dl);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_ops_cl_loss_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("ops-cl-loss-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, _i ? "softmax_cross_entropy_" : "mse_", &list);
  ck_assert(list.n > 0);
  for (size_t i = 0; i < list.n; i++) to_vec_run(ctx, list.path[i]);
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

void to_add_cl_loss(TCase *tc) {
  tcase_add_test(tc, test_ops_cl_mse_random);
  tcase_add_test(tc, test_ops_cl_xent_random);
  tcase_add_loop_test(tc, test_ops_cl_loss_vectors, 0, 2);
}
