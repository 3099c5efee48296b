/* The randomized SVD's CPU twin against LAPACK's full SVD (the oracle), its
 * seeds, and its refusals of bad input. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ref_gru.h"
#include "test_gru.h"
#include "util.h"

/* q [rows, r] with orthonormal columns from a seeded Gaussian matrix. */
static void random_orth(size_t rows, size_t r, uint64_t seed, double *q) {
  double *tau = malloc(sizeof(double) * r);
  for (size_t i = 0; i < rows * r; i++) q[i] = dlca__rsvd_gauss(seed, (uint32_t)(i / r), (uint32_t)(i % r));
  ck_assert_int_eq(LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (int)rows, (int)r, q, (int)r, tau), 0);
  ck_assert_int_eq(LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (int)rows, (int)r, (int)r, q, (int)r, tau), 0);
  free(tau);
}

void tg_decaying(size_t m, size_t n, double decay, uint64_t seed, double *a) {
  size_t r = m < n ? m : n;
  double *u = malloc(sizeof(double) * m * r), *v = malloc(sizeof(double) * n * r);
  random_orth(m, r, seed, u), random_orth(n, r, seed + 1, v);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0, sv = 10;
      for (size_t c = 0; c < r; c++, sv *= decay) s += u[i * r + c] * sv * v[j * r + c];
      a[i * n + j] = s;
    }
  free(u), free(v);
}

/* All of A's singular values, by LAPACK's full SVD. */
static void oracle(size_t m, size_t n, const double *a, double *s) {
  size_t r = m < n ? m : n;
  double *c = malloc(sizeof(double) * m * n), *sup = malloc(sizeof(double) * r);
  memcpy(c, a, sizeof(double) * m * n);
  ck_assert_int_eq(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (int)m, (int)n, c, (int)n, s, NULL, 1, NULL, 1, sup), 0);
  free(c), free(sup);
}

static const struct {
  size_t m, n, k, p, q;
  double decay;
} shapes[] = {{70, 50, 6, 8, 2, 0.7}, {40, 90, 10, 5, 1, 0.8}, {64, 64, 64, 0, 0, 0.9}, {33, 20, 4, 30, 3, 0.5}};

START_TEST(test_rsvd_oracle) {
  size_t m = shapes[_i].m, n = shapes[_i].n, k = shapes[_i].k, r = m < n ? m : n;
  dlca__rsvd p = {k, shapes[_i].p, shapes[_i].q, 99};
  double *a = malloc(sizeof(double) * m * n), *all = malloc(sizeof(double) * r);
  double *u = malloc(sizeof(double) * m * k), *s = malloc(sizeof(double) * k), *v = malloc(sizeof(double) * n * k);
  tg_decaying(m, n, shapes[_i].decay, 500 + (uint64_t)_i, a);
  oracle(m, n, a, all);
  ck_assert_msg(dlca__ref_rsvd(&p, m, n, a, u, s, v) == DLCA_OK, "%s", dlca_last_error());
  double worst = 0, opt = 0, orth, err;
  for (size_t i = 0; i < k; i++) worst = fmax(worst, fabs(s[i] - all[i]) / all[i]);
  for (size_t i = k; i < r; i++) opt += all[i] * all[i];
  opt = sqrt(opt);
  dlca__rsvd_quality(m, n, k, a, u, s, v, &orth, &err);
  fprintf(stderr, "rsvd twin %zux%zu k %zu p %zu q %zu: S rel %.2e, orth %.2e, error %.6g (optimum %.6g)\n", m, n, k,
          shapes[_i].p, shapes[_i].q, worst, orth, err, opt);
  ck_assert_msg(worst < 1e-4, "S off LAPACK's by %.3g (relative)", worst);
  ck_assert_msg(orth < 1e-12, "orthonormality %.3g", orth);
  ck_assert_msg(err <= 1.01 * opt + 1e-9, "error %.9g over 1.01 x %.9g", err, opt);
  free(a), free(all), free(u), free(s), free(v);
}
END_TEST

/* The same seed gives the same bits; another seed another sketch, the same values. */
START_TEST(test_rsvd_seeded) {
  size_t m = 30, n = 20, k = 3;
  double a[600], u[3][90], s[3][3], v[3][60];
  tg_decaying(m, n, 0.6, 3, a);
  uint64_t seeds[3] = {1, 1, 2};
  for (int i = 0; i < 3; i++) {
    dlca__rsvd p = {k, 2, 1, seeds[i]};
    ck_assert_int_eq(dlca__ref_rsvd(&p, m, n, a, u[i], s[i], v[i]), DLCA_OK);
  }
  ck_assert(!memcmp(u[0], u[1], sizeof u[0]) && !memcmp(s[0], s[1], sizeof s[0]) && !memcmp(v[0], v[1], sizeof v[0]));
  int differ = 0;
  for (int i = 0; i < 90; i++) differ |= u[0][i] != u[2][i];
  ck_assert(differ);
  for (size_t i = 0; i < k; i++) ck_assert_double_eq_tol(s[0][i], s[2][i], 1e-3 * s[0][i]);
}
END_TEST

START_TEST(test_rsvd_bad_input) {
  double a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, u[12], s[4], v[12];
  dlca__rsvd p = {4, 2, 1, 1};
  ck_assert_int_eq(dlca__ref_rsvd(&p, 3, 4, a, u, s, v), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "rank 4, expected 1 to min(m, n) = 3 (A is 3 x 4)"));
  p.rank = 0;
  ck_assert_int_eq(dlca__ref_rsvd(&p, 3, 4, a, u, s, v), DLCA_EINVAL);
  p.rank = 2;
  a[6] = NAN;
  ck_assert_int_eq(dlca__ref_rsvd(&p, 3, 4, a, u, s, v), DLCA_EINVAL);
  ck_assert_ptr_nonnull(strstr(dlca_last_error(), "A[1, 2] = nan is not finite"));
  a[6] = INFINITY;
  ck_assert_int_eq(dlca__ref_rsvd(&p, 3, 4, a, u, s, v), DLCA_EINVAL);
}
END_TEST

void tg_add_rsvd_ref(TCase *tc) {
  tcase_add_loop_test(tc, test_rsvd_oracle, 0, (int)(sizeof shapes / sizeof shapes[0]));
  tcase_add_test(tc, test_rsvd_seeded);
  tcase_add_test(tc, test_rsvd_bad_input);
}
