/* The rSVD's device path on the OpenCL device (PoCL in CI): one Cholesky QR
 * pass of kernels-cl/ops/rsvd.cl (Gram matrix, Cholesky factor, R^-1, x R^-1)
 * against its twin in double on fresh random inputs, its flag, and the whole
 * rSVD with the device path against the host path (RSVD_DEV 0) and itself. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl/runtime.h"
#include "cl_util.h"
#include "ops/cl_gru.h"
#include "ops/rsvd_int.h"
#include "ops_util.h"
#include "test_gru.h"
#include "util.h"

/* The twin: r (l x l) the upper Cholesky factor of x^T x in double, q = x R^-1 by forward substitution. */
static void cholqr_twin(size_t rows, size_t l, const double *x, double *r, double *q) {
  memset(r, 0, sizeof(double) * l * l);
  for (size_t i = 0; i < l; i++)
    for (size_t j = i; j < l; j++)
      for (size_t c = 0; c < rows; c++) r[i * l + j] += x[c * l + i] * x[c * l + j];
  ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (int)l, r, (int)l), 0);
  for (size_t c = 0; c < rows; c++)
    for (size_t j = 0; j < l; j++) {
      double v = x[c * l + j];
      for (size_t i = 0; i < j; i++) v -= q[c * l + i] * r[i * l + j];
      q[c * l + j] = v / r[j * l + j];
    }
}

static const size_t qr_shapes[][2] = {{300, 7}, {1000, 42}, {513, 96}, {64, 1}, {77, 74}};

START_TEST(test_rsvd_cholqr_twin) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-cholqr");
  dlca_context *ctx = tcl_context();
  size_t rows = qr_shapes[_i][0], l = qr_shapes[_i][1], n = rows * l;
  float *xf = malloc(sizeof(float) * n), *rf = malloc(sizeof(float) * l * l), *qf = malloc(sizeof(float) * n);
  double *x = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * l * l), *q = malloc(sizeof(double) * n);
  tu_random(xf, n, -1.0f, 1.0f, 900 + (uint64_t)_i);
  for (size_t i = 0; i < n; i++) xf[i] *= 1.0f + (float)(i % l); /* columns of unequal norms */
  to_double(xf, x, n);
  cholqr_twin(rows, l, x, r, q);
  dlca_tensor *tx = to_tensor(ctx, (dlca__shape){2, {rows, l}}, xf), *tq = to_tensor(ctx, (dlca__shape){2, {rows, l}}, xf);
  int ok = 0;
  ck_assert_msg(dlca__rsvd_cl_cholqr(ctx, tx->buf, rows, l, tq->buf, rf, &ok) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(ok);
  ck_assert_int_eq(dlca_tensor_download(tq, qf, n), DLCA_OK);
  double er = 0, eq = 0, orth = 0;
  for (size_t i = 0; i < l * l; i++) er = fmax(er, fabs(rf[i] - r[i]) / (1e-3 + fabs(r[i / l * l + i / l])));
  for (size_t i = 0; i < n; i++) eq = fmax(eq, fabs(qf[i] - q[i]));
  for (size_t i = 0; i < l; i++)
    for (size_t j = 0; j < l; j++) {
      double d = 0;
      for (size_t c = 0; c < rows; c++) d += (double)qf[c * l + i] * qf[c * l + j];
      orth = fmax(orth, fabs(d - (i == j)));
    }
  fprintf(stderr, "rsvd cholqr cl %zu x %zu: R %.2e (relative to its row's diagonal) Q %.2e orth %.2e\n", rows, l, er,
          eq, orth);
  ck_assert_msg(er < 5e-5 && eq < 2e-5 && orth < 1e-4, /* float, one pass: about eps cond(x)^2 */
                "R %.3g Q %.3g orth %.3g", er, eq, orth);
  dlca_tensor_free(tx), dlca_tensor_free(tq);
  free(xf), free(rf), free(qf), free(x), free(r), free(q);
  dlca_context_free(ctx);
}
END_TEST

/* A zero column: the pivot is 0, the pass says so. */
START_TEST(test_rsvd_cholqr_flag) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-cholqr-flag");
  dlca_context *ctx = tcl_context();
  size_t rows = 50, l = 5;
  float xf[250], rf[25];
  tu_random(xf, rows * l, -1.0f, 1.0f, 31);
  for (size_t c = 0; c < rows; c++) xf[c * l + 2] = 0.0f;
  dlca_tensor *tx = to_tensor(ctx, (dlca__shape){2, {rows, l}}, xf), *tq = to_tensor(ctx, (dlca__shape){2, {rows, l}}, xf);
  int ok = 1;
  ck_assert_msg(dlca__rsvd_cl_cholqr(ctx, tx->buf, rows, l, tq->buf, rf, &ok) == DLCA_OK, "%s", dlca_last_error());
  ck_assert(!ok);
  ck_assert_int_eq(dlca__rsvd_cl_cholqr(ctx, tx->buf, rows, 97, tq->buf, rf, &ok), DLCA_EINVAL);
  dlca_tensor_free(tx), dlca_tensor_free(tq);
  dlca_context_free(ctx);
}
END_TEST

static const size_t mul_shapes[][4] = {{100, 37, 0, 5}, {100, 37, 1, 5}, {1030, 70, 0, 42}, {70, 1030, 1, 96},
                                       {33, 4100, 0, 74}, {4100, 33, 1, 74}};

/* dlca_rsvd_amul (A x and A^T x, split over the inner dimension where the output has few rows) against double. */
START_TEST(test_rsvd_amul_twin) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-amul");
  dlca_context *ctx = tcl_context();
  size_t m = mul_shapes[_i][0], n = mul_shapes[_i][1], at = mul_shapes[_i][2], l = mul_shapes[_i][3];
  size_t rows = at ? n : m, inner = at ? m : n;
  float *af = malloc(sizeof(float) * m * n), *xf = malloc(sizeof(float) * inner * l), *of = malloc(sizeof(float) * rows * l);
  tu_random(af, m * n, -1.0f, 1.0f, 70 + (uint64_t)_i), tu_random(xf, inner * l, -1.0f, 1.0f, 80 + (uint64_t)_i);
  dlca_tensor *ta = to_tensor(ctx, (dlca__shape){2, {m, n}}, af), *tx = to_tensor(ctx, (dlca__shape){2, {inner, l}}, xf),
              *to = to_tensor(ctx, (dlca__shape){2, {rows, l}}, NULL);
  ck_assert_msg(dlca__rsvd_cl_amul(ctx, ta->buf, m, n, (int)at, tx->buf, l, to->buf) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_tensor_download(to, of, rows * l), DLCA_OK);
  double w = 0;
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < l; j++) {
      double d = 0;
      for (size_t c = 0; c < inner; c++) d += (double)(at ? af[c * n + r] : af[r * n + c]) * xf[c * l + j];
      w = fmax(w, fabs(of[r * l + j] - d) / sqrt((double)inner));
    }
  fprintf(stderr, "rsvd amul cl %zu x %zu%s times %zu columns: %.2e (over sqrt(inner))\n", m, n, at ? " (A^T)" : "", l, w);
  ck_assert_msg(w < 1e-5, "off by %.3g sqrt(inner)", w);
  dlca_tensor_free(ta), dlca_tensor_free(tx), dlca_tensor_free(to);
  free(af), free(xf), free(of);
  dlca_context_free(ctx);
}
END_TEST

/* U, S, V of one call downloaded (m k + k + n k floats). */
static void rsvd_run(dlca_context *ctx, const dlca__rsvd *p, dlca_tensor *a, size_t m, size_t n, float *out) {
  size_t k = p->rank;
  dlca_tensor *tu = to_tensor(ctx, (dlca__shape){1, {m * k}}, NULL), *ts = to_tensor(ctx, (dlca__shape){1, {k}}, NULL),
              *tv = to_tensor(ctx, (dlca__shape){1, {n * k}}, NULL);
  ck_assert_msg(dlca__ops_cl_rsvd(ctx, p, a, tu, ts, tv, NULL) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_int_eq(dlca_tensor_download(tu, out, m * k), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_download(ts, out + m * k, k), DLCA_OK);
  ck_assert_int_eq(dlca_tensor_download(tv, out + m * k + k, n * k), DLCA_OK);
  dlca_tensor_free(tu), dlca_tensor_free(ts), dlca_tensor_free(tv);
}

/* The defaults (the device path, dlca_rsvd_amul) twice: the same bits, the scratch kept between calls; then the
 * host path with CLBlast, the host path with dlca_rsvd_amul, the device path with CLBlast: the same U, S, V. */
START_TEST(test_rsvd_cl_paths) {
  if (!tcl_platform()) return;
  tcl_fresh_env("rsvd-cl-paths");
  dlca_context *ctx = tcl_context();
  size_t m = 200, n = 120, k = 8, c = (m + n) * k + k;
  dlca__rsvd p = {k, 6, 2, 5};
  double *a = malloc(sizeof(double) * m * n);
  float *af = malloc(sizeof(float) * m * n), *got[5];
  tg_decaying(m, n, 0.8, 71, a);
  for (size_t i = 0; i < m * n; i++) af[i] = (float)a[i];
  dlca_tensor *ta = to_tensor(ctx, (dlca__shape){2, {m, n}}, af);
  static const int dev[5] = {-1, -1, 0, 0, 1}, gemm[5] = {-1, -1, 0, 1, 0}; /* -1: the default (1, 1) */
  for (int i = 0; i < 5; i++) {
    got[i] = malloc(sizeof(float) * c);
    if (dev[i] >= 0) ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "RSVD_DEV", dev[i]), DLCA_OK);
    if (gemm[i] >= 0) ck_assert_int_eq(dlca__tuning_override(ctx, "ops.cl", "RSVD_GEMM", gemm[i]), DLCA_OK);
    rsvd_run(ctx, &p, ta, m, n, got[i]);
  }
  ck_assert(!memcmp(got[0], got[1], sizeof(float) * c));
  static const char *const what[5] = {"device path, dlca_rsvd_amul", "", "", "host path, dlca_rsvd_amul",
                                      "device path, CLBlast"};
  for (int v = 0; v < 5; v += v ? 1 : 3) {
    double w = 0;
    for (size_t i = 0; i < c; i++) w = fmax(w, fabs(got[v][i] - got[2][i]) / (1.0 + fabs(got[2][i])));
    fprintf(stderr, "rsvd cl %zux%zu k %zu: %s against the host path with CLBlast %.2e\n", m, n, k, what[v], w);
    ck_assert_msg(w < 1e-4, "run %d off the host path by %.3g", v, w);
  }
  dlca_tensor_free(ta);
  for (int i = 0; i < 5; i++) free(got[i]);
  free(a), free(af);
  dlca_context_free(ctx);
}
END_TEST

void tg_add_rsvd_cl(TCase *tc) {
  tcase_add_loop_test(tc, test_rsvd_cholqr_twin, 0, (int)(sizeof qr_shapes / sizeof qr_shapes[0]));
  tcase_add_test(tc, test_rsvd_cholqr_flag);
  tcase_add_loop_test(tc, test_rsvd_amul_twin, 0, (int)(sizeof mul_shapes / sizeof mul_shapes[0]));
  tcase_add_test(tc, test_rsvd_cl_paths);
}
