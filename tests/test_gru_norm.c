/* Layer norm and dropout (issue 33): central differences of the twin's layer
 * norm backward in double, the dropout mask's rate and seed, and the device
 * (PoCL in CI) against the twin on fresh random inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_util.h"
#include "ops/cl_norm.h"
#include "ops/ref_gru.h"
#include "ops_util.h"
#include "test_gru.h"

static double urand(uint64_t *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* sum(layer_norm(x) w) for the FD check; p holds x [rows n], gamma [n], beta
 * [n]. */
static double ln_loss(size_t rows, size_t n, const double *p, const double *w, double *y) {
  dlca__ref_layer_norm(rows, n, 1e-5, p, p + rows * n, p + rows * n + n, y, NULL, NULL);
  double l = 0;
  for (size_t i = 0; i < rows * n; i++) l += y[i] * w[i];
  return l;
}

START_TEST(test_layer_norm_fd) {
  size_t rows = 4, n = 7, np = rows * n + 2 * n;
  double p[42], g[42], w[28], y[28], h = 1e-6, worst = 0;
  uint64_t s = 5;
  for (size_t i = 0; i < np; i++) p[i] = urand(&s, -2, 2);
  for (size_t i = 0; i < rows * n; i++) w[i] = urand(&s, -1, 1);
  dlca__ref_layer_norm_backward(rows, n, 1e-5, p, p + rows * n, w, g, g + rows * n, g + rows * n + n);
  for (size_t i = 0; i < np; i++) {
    double keep = p[i];
    p[i] = keep + h;
    double lp = ln_loss(rows, n, p, w, y);
    p[i] = keep - h;
    double lm = ln_loss(rows, n, p, w, y);
    p[i] = keep;
    worst = fmax(worst, fabs((lp - lm) / (2 * h) - g[i]) / (1 + fabs(g[i])));
  }
  fprintf(stderr, "layer norm fd: worst %.2e\n", worst);
  ck_assert_msg(worst < 1e-7, "central differences disagree: %.3g", worst);
}
END_TEST

START_TEST(test_dropout_mask) {
  size_t n = 100000, kept = 0;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *y2 = malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) x[i] = 1.0 + (double)(i % 7);
  dlca__ref_dropout(n, 0.3, 11, x, y);
  dlca__ref_dropout(n, 0.3, 11, x, y2);
  ck_assert(!memcmp(y, y2, sizeof(double) * n));
  for (size_t i = 0; i < n; i++) {
    kept += y[i] != 0;
    if (y[i] != 0) ck_assert_double_eq_tol(y[i], x[i] / 0.7, 1e-12);
  }
  ck_assert_msg(fabs((double)kept / (double)n - 0.7) < 0.01, "kept %zu of %zu", kept, n);
  dlca__ref_dropout(n, 0.3, 12, x, y2);
  ck_assert(memcmp(y, y2, sizeof(double) * n));
  dlca__ref_dropout(n, 0.0, 12, x, y2);
  ck_assert(!memcmp(x, y2, sizeof(double) * n));
  free(x), free(y), free(y2);
}
END_TEST

static dlca_tensor *tens(dlca_context *ctx, int rank, size_t d0, size_t d1, size_t d2, const float *f) {
  dlca__shape s = {rank, {d0, d1, d2}};
  return to_tensor(ctx, s, f);
}

/* [rows, n] = [6, 37] and [2 x 3, 300] (n over NORM_WG). */
START_TEST(test_layer_norm_cl) {
  if (!tcl_platform()) return;
  tcl_fresh_env("norm-cl");
  dlca_context *ctx = tcl_context();
  size_t rows = 6, n = _i ? 300 : 37, N = rows * n;
  float *xf = malloc(sizeof(float) * N), *dyf = malloc(sizeof(float) * N), gf[300], bf[300];
  double *x = malloc(sizeof(double) * N), *dy = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
  double *dx = malloc(sizeof(double) * N), g[300], b[300], dg[300], db[300];
  tu_random(xf, N, -3, 3, 60 + (uint64_t)_i), tu_random(dyf, N, -1, 1, 61), tu_random(gf, n, 0.5f, 1.5f, 62);
  tu_random(bf, n, -1, 1, 63);
  to_double(xf, x, N), to_double(dyf, dy, N), to_double(gf, g, n), to_double(bf, b, n);
  dlca__ref_layer_norm(rows, n, 1e-5, x, g, b, y, NULL, NULL);
  dlca__ref_layer_norm_backward(rows, n, 1e-5, x, g, dy, dx, dg, db);
  dlca_tensor *tx = _i ? tens(ctx, 3, 2, 3, n, xf) : tens(ctx, 2, rows, n, 0, xf),
              *ty = _i ? tens(ctx, 3, 2, 3, n, NULL) : tens(ctx, 2, rows, n, 0, NULL);
  dlca_tensor *tdy = _i ? tens(ctx, 3, 2, 3, n, dyf) : tens(ctx, 2, rows, n, 0, dyf),
              *tdx = _i ? tens(ctx, 3, 2, 3, n, NULL) : tens(ctx, 2, rows, n, 0, NULL);
  dlca_tensor *tg = tens(ctx, 1, n, 0, 0, gf), *tb = tens(ctx, 1, n, 0, 0, bf), *tdg = tens(ctx, 1, n, 0, 0, NULL),
              *tdb = tens(ctx, 1, n, 0, 0, NULL);
  ck_assert_msg(dlca__ops_cl_layer_norm(ctx, 1e-5, tx, tg, tb, ty) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_layer_norm_backward(ctx, 1e-5, tx, tg, tdy, tdx, tdg, tdb) == DLCA_OK, "%s",
                dlca_last_error());
  double ef = to_check(ty, y, "y"),
         eb = fmax(to_check(tdx, dx, "dx"), fmax(to_check(tdg, dg, "dgamma"), to_check(tdb, db, "dbeta")));
  fprintf(stderr, "layer norm cl rows %zu n %zu: forward %.2e backward %.2e\n", rows, n, ef, eb);
  dlca_tensor *all[] = {tx, ty, tdy, tdx, tg, tb, tdg, tdb};
  for (int i = 0; i < 8; i++) dlca_tensor_free(all[i]);
  free(xf), free(dyf), free(x), free(dy), free(y), free(dx);
  dlca_context_free(ctx);
}
END_TEST

START_TEST(test_dropout_cl) {
  if (!tcl_platform()) return;
  tcl_fresh_env("dropout-cl");
  dlca_context *ctx = tcl_context();
  size_t n = 5000;
  float *xf = malloc(sizeof(float) * n);
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  tu_random(xf, n, -2, 2, 70);
  to_double(xf, x, n);
  dlca__ref_dropout(n, 0.25, 99, x, y);
  dlca_tensor *tx = tens(ctx, 1, n, 0, 0, xf), *ty = tens(ctx, 1, n, 0, 0, NULL);
  ck_assert_msg(dlca__ops_cl_dropout(ctx, 0.25, 99, tx, ty) == DLCA_OK, "%s", dlca_last_error());
  float *got = malloc(sizeof(float) * n);
  ck_assert_int_eq(dlca_tensor_download(ty, got, n), DLCA_OK);
  for (size_t i = 0; i < n; i++) ck_assert_msg((got[i] == 0) == (y[i] == 0), "mask differs at %zu", i);
  to_check(ty, y, "y");
  ck_assert_int_eq(dlca__ops_cl_dropout(ctx, 1.0, 99, tx, ty), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "p = 1, expected 0 <= p < 1"));
  dlca_tensor_free(tx), dlca_tensor_free(ty);
  free(xf), free(x), free(y), free(got);
  dlca_context_free(ctx);
}
END_TEST

void tg_add_norm(TCase *ref, TCase *cl) {
  tcase_add_test(ref, test_layer_norm_fd);
  tcase_add_test(ref, test_dropout_mask);
  tcase_add_loop_test(cl, test_layer_norm_cl, 0, 2);
  tcase_add_test(cl, test_dropout_cl);
}
