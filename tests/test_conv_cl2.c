/* conv2d on the OpenCL device (im2col + CLBlast GEMM + conv.cl) against the
 * CPU twin on fresh random shapes, the conv2d_* vectors, bitwise determinism
 * and the launchers' shape errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_conv.h"
#include "ops/vector.h"
#include "ops_util.h"
#include "test_conv.h"

/* x [N,C,H,W], w [O,C,KH,KW], stride and padding; bias 0 for none; grads 1 all, 0 dx only, 2 dw and db
 * only. Odd cases pass their own scratch. */
static const struct {
  size_t N, C, H, W, O, KH, KW;
  dlca__conv2d p;
  int bias, grads;
} cases[] = {
    {2, 3, 9, 8, 5, 3, 2, {1, 1, 0, 0}, 1, 1},   {3, 5, 10, 7, 6, 3, 3, {2, 2, 1, 1}, 1, 1},
    {2, 3, 7, 11, 7, 2, 4, {2, 1, 2, 1}, 1, 2},  {4, 1, 8, 8, 3, 5, 5, {1, 1, 2, 2}, 1, 1},
    {2, 6, 5, 5, 10, 1, 1, {2, 2, 0, 0}, 1, 1},  {2, 3, 6, 6, 4, 3, 3, {1, 1, 1, 1}, 0, 0},
    {3, 7, 12, 12, 9, 3, 3, {1, 1, 1, 1}, 1, 1}, {8, 3, 16, 16, 5, 3, 3, {1, 1, 1, 1}, 1, 1}, /* dw in 4 parts */
    {5, 2, 15, 15, 3, 3, 2, {1, 1, 1, 0}, 1, 2},                                              /* 2 parts */
};

static dlca_tensor *dev(dlca_context *ctx, const dlca__shape *s, const double *d) {
  size_t n = dlca__shape_n(s);
  float *f = malloc(sizeof(float) * (n ? n : 1));
  for (size_t i = 0; d && i < n; i++) f[i] = (float)d[i];
  dlca_tensor *t = to_tensor(ctx, *s, d ? f : NULL);
  free(f);
  return t;
}

START_TEST(test_conv_cl_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("conv-cl-random");
  dlca_context *ctx = tcl_context();
  dlca__shape xs = {4, {cases[_i].N, cases[_i].C, cases[_i].H, cases[_i].W}};
  dlca__shape ws = {4, {cases[_i].O, cases[_i].C, cases[_i].KH, cases[_i].KW}}, bs = {1, {cases[_i].O}};
  dlca__conv_dims d;
  ck_assert_int_eq(dlca__conv2d_dims(&xs, &ws, &bs, &cases[_i].p, &d), DLCA_OK);
  dlca__shape ys = {4, {d.N, d.O, d.OH, d.OW}};
  size_t nx = dlca__shape_n(&xs), nw = dlca__shape_n(&ws), ny = dlca__shape_n(&ys);
  uint64_t seed = 6000 + 10 * (uint64_t)_i;
  double *x = tconv_rand_d(nx, -1, 1, seed), *w = tconv_rand_d(nw, -1, 1, seed + 1);
  double *b = cases[_i].bias ? tconv_rand_d(d.O, -1, 1, seed + 2) : NULL, *dy = tconv_rand_d(ny, -1, 1, seed + 3);
  double *y = malloc(sizeof(double) * ny), *dx = malloc(sizeof(double) * nx), *dw = malloc(sizeof(double) * nw);
  double *db = malloc(sizeof(double) * d.O);
  dlca__ref_conv2d(&d, x, w, b, y);
  dlca__ref_conv2d_backward(&d, x, w, dy, dx, dw, db);
  dlca_tensor *tx = dev(ctx, &xs, x), *tw = dev(ctx, &ws, w), *tb = b ? dev(ctx, &bs, b) : NULL;
  dlca_tensor *ty = dev(ctx, &ys, NULL), *tdy = dev(ctx, &ys, dy),
              *tdx = cases[_i].grads == 2 ? NULL : dev(ctx, &xs, NULL);
  dlca_tensor *tdw = cases[_i].grads ? dev(ctx, &ws, NULL) : NULL, *tdb = cases[_i].grads ? dev(ctx, &bs, NULL) : NULL;
  static const int red_wg[] = {0, 0, 0, 256, 1, 0, 32}; /* CONV_RED_WG other than the default, for db */
  if (_i < 7 && red_wg[_i])
    ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "CONV_RED_WG", red_wg[_i]) == DLCA_OK, "%s", dlca_last_error());
  cl_mem col = NULL;
  if (_i % 2) /* a caller's scratch, exactly the size asked for (else the launchers' own) */
    ck_assert_int_eq(dlca__buffer(ctx, sizeof(float) * dlca__conv2d_col_floats(tx, tw, &cases[_i].p), "col", &col), 0);
  ck_assert_msg(dlca__ops_cl_conv2d(ctx, &cases[_i].p, tx, tw, tb, ty, col) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_conv2d_backward(ctx, &cases[_i].p, tx, tw, tdy, tdx, tdw, tdb, col) == DLCA_OK, "%s",
                dlca_last_error());
  double ef = to_check(ty, y, "y"), ex = tdx ? to_check(tdx, dx, "dx") : 0;
  double ew = tdw ? to_check(tdw, dw, "dw") : 0, eb = tdb ? to_check(tdb, db, "db") : 0;
  fprintf(stderr,
          "conv cl conv2d case %d [%zu,%zu,%zu,%zu]*[%zu,%zu,%zu,%zu] s (%d,%d) p (%d,%d): y %.2e dx %.2e dw %.2e db "
          "%.2e\n",
          _i, d.N, d.C, d.H, d.W, d.O, d.C, d.KH, d.KW, d.sh, d.sw, d.ph, d.pw, ef, ex, ew, eb);
  if (col) clReleaseMemObject(col);
  dlca_tensor *all[] = {tx, tw, tb, ty, tdy, tdx, tdw, tdb};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) dlca_tensor_free(all[i]);
  free(x), free(w), free(b), free(dy), free(y), free(dx), free(dw), free(db);
  dlca_context_free(ctx);
}
END_TEST

/* The device runner on every conv2d_* file, forward and all three grads, at the file's tolerance. */
START_TEST(test_conv_cl_vectors) {
  const char *dir = to_dir();
  if (!dir || !tcl_platform()) return;
  tcl_fresh_env("conv-cl-vectors");
  dlca_context *ctx = tcl_context();
  to_list list;
  to_list_files(dir, "conv2d_", &list);
  ck_assert_msg(list.n > 0, "%s: no conv2d_*.json", dir);
  for (size_t i = 0; i < list.n; i++) {
    dlca__ops_vector v;
    ck_assert_msg(dlca__ops_vector_load(list.path[i], &v) == DLCA_OK, "%s", dlca_last_error());
    dlca__ops_result r = {v.outputs.n, v.grads.n, calloc(v.outputs.n, sizeof(double *)),
                          calloc(v.grads.n, sizeof(double *))};
    for (size_t k = 0; k < r.n_out; k++) r.out[k] = calloc(v.outputs.t[k].n, sizeof(double));
    for (size_t k = 0; k < r.n_grad; k++) r.grad[k] = calloc(v.grads.t[k].n, sizeof(double));
    ck_assert_msg(dlca__ops_cl_run_conv2d(ctx, &v, &r) == DLCA_OK, "%s", dlca_last_error());
    double worst[2] = {0, 0};
    for (int g = 0; g < 2; g++) {
      const dlca__ops_set *set = g ? &v.grads : &v.outputs;
      for (size_t k = 0; k < set->n; k++) {
        dlca__ops_cmp c = dlca__ops_compare(g ? r.grad[k] : r.out[k], &set->t[k], v.tol_abs, v.tol_rel);
        ck_assert_msg(c.pass, "%s: %s.%s[%zu]: error %.3g", v.path, g ? "grads" : "outputs", set->t[k].name,
                      c.worst_index, c.worst);
        worst[g] = fmax(worst[g], c.worst);
      }
    }
    ck_assert_int_eq(v.grads.n, 3);
    fprintf(stderr, "conv cl %s forward %.2e backward %.2e (x, W, b)\n", v.name, worst[0], worst[1]);
    dlca__ops_result_free(&r);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
  dlca_context_free(ctx);
}
END_TEST

/* The results of one forward + backward, downloaded: y, dx, dw, db one after the other. */
static float *conv_once(dlca_context *ctx, dlca_tensor *const *t, const dlca__conv2d *p) {
  ck_assert_msg(dlca__ops_cl_conv2d(ctx, p, t[0], t[1], t[2], t[3], NULL) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_conv2d_backward(ctx, p, t[0], t[1], t[4], t[5], t[6], t[7], NULL) == DLCA_OK, "%s",
                dlca_last_error());
  size_t n = 0, at = 0;
  for (int k = 3; k < 8; k++) n += k == 4 ? 0 : t[k]->n;
  float *out = malloc(sizeof(float) * n);
  for (int k = 3; k < 8; k++) {
    if (k == 4) continue;
    ck_assert_int_eq(dlca_tensor_download(t[k], out + at, t[k]->n), DLCA_OK);
    at += t[k]->n;
  }
  return out;
}

/* Twice the same bits; and the same bits again with other CONV_WG and CONV_COLS (the sums' order does not
 * depend on them). */
START_TEST(test_conv_cl_deterministic) {
  if (!tcl_platform()) return;
  tcl_fresh_env("conv-cl-determinism");
  dlca_context *ctx = tcl_context();
  dlca__shape xs = {4, {8, 5, 24, 23}}, ws = {4, {6, 5, 3, 3}}, bs = {1, {6}}, ys = {4, {8, 6, 12, 12}};
  dlca__conv2d p = {2, 2, 1, 1}; /* N OH OW = 1152: dw in 2 parts */
  const dlca__shape *sh[] = {&xs, &ws, &bs, &ys, &ys, &xs, &ws, &bs};
  dlca_tensor *t[8];
  for (int k = 0; k < 8; k++) {
    double *v = k < 3 || k == 4 ? tconv_rand_d(dlca__shape_n(sh[k]), -1, 1, 7000 + (uint64_t)k) : NULL;
    t[k] = dev(ctx, sh[k], v), free(v);
  }
  size_t n = t[3]->n + t[5]->n + t[6]->n + t[7]->n;
  float *a = conv_once(ctx, t, &p), *b = conv_once(ctx, t, &p);
  ck_assert_msg(!memcmp(a, b, sizeof(float) * n), "two runs differ");
  free(b);
  ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "CONV_WG", 32) == DLCA_OK, "%s", dlca_last_error());
  b = conv_once(ctx, t, &p);
  ck_assert_msg(!memcmp(a, b, sizeof(float) * n), "CONV_WG 32 differs from the default");
  free(b);
  ck_assert_msg(dlca__tuning_override(ctx, "ops.cl", "CONV_COLS", 3) == DLCA_OK, "%s", dlca_last_error());
  b = conv_once(ctx, t, &p);
  ck_assert_msg(!memcmp(a, b, sizeof(float) * n), "CONV_COLS 3 differs from the default");
  free(a), free(b);
  for (int k = 0; k < 8; k++) dlca_tensor_free(t[k]);
  dlca_context_free(ctx);
}
END_TEST

#define EXPECT(call, text) TU_EXPECT(call, DLCA_EINVAL, text)

START_TEST(test_conv_cl_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("conv-cl-errors");
  dlca_context *ctx = tcl_context();
  dlca__shape xs = {4, {2, 3, 5, 5}}, ws = {4, {4, 3, 3, 3}}, w2 = {4, {4, 2, 3, 3}}, wk = {4, {4, 3, 6, 3}};
  dlca__shape x3 = {3, {3, 5, 5}}, ys = {4, {2, 4, 3, 3}}, yb = {4, {2, 4, 5, 5}}, b5 = {1, {5}};
  dlca__shape *sh[] = {&xs, &ws, &w2, &wk, &x3, &ys, &yb, &b5};
  dlca_tensor *t[8];
  for (int k = 0; k < 8; k++) t[k] = dev(ctx, sh[k], NULL);
  dlca__conv2d p = {1, 1, 0, 0};
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[0], t[2], NULL, t[5], NULL),
         "w [4, 2, 3, 3] has 2 input channels, x [2, 3, 5, 5] has 3");
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[0], t[3], NULL, t[5], NULL),
         "the kernel 6x3 of w [4, 3, 6, 3] does not fit x [2, 3, 5, 5] padded by (0, 0): 5x5");
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[4], t[1], NULL, t[5], NULL), "x has shape [3, 5, 5], expected rank 4");
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[0], t[1], NULL, t[6], NULL),
         "conv2d: y has shape [2, 4, 5, 5], expected [2, 4, 3, 3] from x [2, 3, 5, 5]");
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[0], t[1], t[7], t[5], NULL), "b has shape [5], expected [4]");
  EXPECT(dlca__ops_cl_conv2d_backward(ctx, &p, t[0], t[1], t[5], t[1], NULL, NULL, NULL),
         "conv2d backward: dx has shape [4, 3, 3, 3], expected [2, 3, 5, 5]");
  EXPECT(dlca__ops_cl_conv2d_backward(ctx, &p, t[0], t[1], t[5], NULL, NULL, t[7], NULL),
         "db has shape [5], expected [4]");
  cl_mem small;
  ck_assert_int_eq(dlca__buffer(ctx, 64, "small", &small), 0);
  EXPECT(dlca__ops_cl_conv2d(ctx, &p, t[0], t[1], NULL, t[5], small), "col has 16 floats, this conv2d needs 558");
  clReleaseMemObject(small);
  ck_assert_uint_eq(dlca__conv2d_col_floats(t[0], t[2], &p), 0);
  dlca__conv2d huge = {1, 1, 1 << 30, 1 << 30}; /* y would be [2, 4, 2^31 + 3, 2^31 + 3] */
  EXPECT(dlca__ops_cl_conv2d(ctx, &huge, t[0], t[1], NULL, t[5], NULL),
         "y has shape [2, 4, 3, 3], expected [2, 4, 2147483651");
  dlca__shape bx = {4, {1, 16, 640, 640}}, bw = {4, {1, 16, 21, 21}}, by = {4, {1, 1, 640, 640}};
  dlca_tensor *big[3] = {dev(ctx, &bx, NULL), dev(ctx, &bw, NULL), dev(ctx, &by, NULL)};
  EXPECT(dlca__ops_cl_conv2d(ctx, &(dlca__conv2d){1, 1, 10, 10}, big[0], big[1], NULL, big[2], NULL),
         "conv2d: the im2col scratch would have 2890772992 floats, over 2^31");
  ck_assert_uint_eq(dlca__conv2d_col_floats(big[0], big[1], &(dlca__conv2d){1, 1, 10, 10}), 0);
  for (int k = 0; k < 3; k++) dlca_tensor_free(big[k]);
  for (int k = 0; k < 8; k++) dlca_tensor_free(t[k]);
  dlca_context_free(ctx);
}
END_TEST

void tconv_add_cl_conv(TCase *tc) {
  tcase_add_loop_test(tc, test_conv_cl_random, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, test_conv_cl_vectors);
  tcase_add_test(tc, test_conv_cl_deterministic);
  tcase_add_test(tc, test_conv_cl_errors);
}
