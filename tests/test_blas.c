/* The blas suite: GEMM and dense (issue 31). The CPU twin against every
 * gemm_ and dense_ vector of shared/testdata/ops, and a central-difference
 * check of its backward in double on other shapes; the device cases are in
 * tests/test_blas_cl.c and test_blas_dense.c, the tuning section in
 * test_blas_tuning.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_util.h"
#include "ops/ref_case.h"
#include "ops_util.h"

/* Runs every file whose name starts with prefix on the twin; the worst error. */
START_TEST(test_blas_ref_vectors) {
  const char *dir = to_dir();
  if (!dir) return;
  to_list list;
  to_list_files(dir, _i ? "dense_" : "gemm_", &list);
  ck_assert_msg(list.n > 0, "%s: no %s files", dir, _i ? "dense_" : "gemm_");
  for (size_t f = 0; f < list.n; f++) {
    dlca__ops_vector v;
    dlca__ops_result r;
    ck_assert_msg(dlca__ops_vector_load(list.path[f], &v) == DLCA_OK, "%s", dlca_last_error());
    ck_assert_msg(dlca__ops_ref_run(&v, &r) == DLCA_OK, "%s", dlca_last_error());
    double wf = 0, wb = 0;
    for (int s = 0; s < 2; s++) {
      const dlca__ops_set *set = s ? &v.grads : &v.outputs;
      for (size_t i = 0; i < set->n; i++) {
        dlca__ops_cmp c = dlca__ops_compare(s ? r.grad[i] : r.out[i], &set->t[i], v.tol_abs, v.tol_rel);
        ck_assert_msg(c.pass, "%s: %s[%zu] misses (worst %g)", v.path, set->t[i].name, c.worst_index, c.worst);
        if (s) wb = fmax(wb, c.worst);
        else wf = fmax(wf, c.worst);
      }
    }
    ck_assert_msg(v.grads.n == 3, "%s: %zu grads", v.path, v.grads.n);
    fprintf(stderr, "blas ref %-24s forward %.2e backward %.2e\n", v.name, wf, wb);
    dlca__ops_result_free(&r);
    dlca__ops_vector_free(&v);
  }
  to_list_free(&list);
}
END_TEST

static double urand(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return -1 + 2 * (double)(*s >> 11) / 9007199254740992.0;
}

/* L(x) = sum(f(x) * w): the worst |analytic - central difference| / (1 + |analytic|) over x's n elements. */
typedef double (*loss_fn)(const void *ctx, double *const *in);
static double fd_compare(const void *ctx, loss_fn loss, double *const *in, const size_t *n, double *const *grad,
                         int n_in) {
  double worst = 0, h = 1e-6;
  for (int k = 0; k < n_in; k++)
    for (size_t i = 0; i < n[k]; i++) {
      double keep = in[k][i];
      in[k][i] = keep + h;
      double lp = loss(ctx, in);
      in[k][i] = keep - h;
      double lm = loss(ctx, in);
      in[k][i] = keep;
      worst = fmax(worst, fabs((lp - lm) / (2 * h) - grad[k][i]) / (1 + fabs(grad[k][i])));
    }
  return worst;
}

typedef struct gemm_fd {
  const dlca__gemm *g;
  size_t nc;
  const double *w;
  double *y;
} gemm_fd;

static double gemm_loss(const void *p, double *const *in) {
  const gemm_fd *c = p;
  memcpy(c->y, in[2], sizeof(double) * c->nc);
  dlca__ref_gemm(c->g, in[0], in[1], c->y);
  double l = 0;
  for (size_t i = 0; i < c->nc; i++) l += c->y[i] * c->w[i];
  return l;
}

/* A GEMM with padding, offsets and batches (A shared: stride 0) against central differences; w is zero
 * where g writes nothing, so that the old C's gradient is beta w exactly where it is read. */
static double fd_gemm(const dlca__gemm *g, uint64_t seed) {
  size_t n[3] = {dlca__gemm_extent(g, 0), dlca__gemm_extent(g, 1), dlca__gemm_extent(g, 2)};
  double *in[3], *grad[3], *w = calloc(n[2], sizeof(double)), *y = malloc(sizeof(double) * n[2]);
  for (int k = 0; k < 3; k++) {
    in[k] = malloc(sizeof(double) * n[k]), grad[k] = calloc(n[k], sizeof(double));
    for (size_t i = 0; i < n[k]; i++) in[k][i] = urand(&seed);
  }
  for (size_t q = 0; q < g->batch; q++)
    for (size_t i = 0; i < g->m; i++)
      for (size_t j = 0; j < g->n; j++) w[g->off_c + q * g->stride_c + i * g->ldc + j] = urand(&seed);
  dlca__ref_gemm_backward(g, in[0], in[1], w, grad[0], grad[1], grad[2]);
  gemm_fd c = {g, n[2], w, y};
  double e = fd_compare(&c, gemm_loss, in, n, grad, 3);
  for (int k = 0; k < 3; k++) free(in[k]), free(grad[k]);
  free(w), free(y);
  return e;
}

START_TEST(test_blas_fd_gemm) {
  int ta = _i & 1, tb = _i >> 1;
  size_t m = 4, n = 3, k = 5, ra = ta ? m : k, rb = tb ? k : n;
  dlca__gemm one = {ta, tb, m, n, k, 1.5f, -0.5f, ra, rb, n, 0, 0, 0, 1, 0, 0, 0};
  dlca__gemm batched = {ta, tb, m, n, k, -0.75f, 2.0f, ra + 1, rb + 2, n + 1, 2, 1, 3, 3, 0, 0, 0};
  batched.stride_b = (tb ? n : k) * batched.ldb + 1, batched.stride_c = m * batched.ldc;
  double e1 = fd_gemm(&one, 700 + (uint64_t)_i), e2 = fd_gemm(&batched, 800 + (uint64_t)_i);
  fprintf(stderr, "blas fd gemm trans %d%d: %.2e, batched %.2e\n", ta, tb, e1, e2);
  ck_assert_msg(e1 < 1e-6 && e2 < 1e-6, "gemm trans %d%d: finite-difference errors %g %g", ta, tb, e1, e2);
}
END_TEST

typedef struct dense_fd {
  dlca__act act;
  size_t n, in, out;
  const double *w;
  double *y;
} dense_fd;

static double dense_loss(const void *p, double *const *in) {
  const dense_fd *c = p;
  dlca__ref_dense(c->act, c->n, c->in, c->out, in[0], in[1], in[2], c->y);
  double l = 0;
  for (size_t i = 0; i < c->n * c->out; i++) l += c->y[i] * c->w[i];
  return l;
}

START_TEST(test_blas_fd_dense) {
  dense_fd c = {(dlca__act)_i, 5, 7, 3, NULL, NULL};
  size_t n[3] = {c.n * c.in, c.out * c.in, c.out}, ny = c.n * c.out;
  uint64_t seed = 900 + (uint64_t)_i;
  double *in[3], *grad[3], *w = malloc(sizeof(double) * ny), *y = malloc(sizeof(double) * ny);
  for (int k = 0; k < 3; k++) {
    in[k] = malloc(sizeof(double) * n[k]), grad[k] = malloc(sizeof(double) * n[k]);
    for (size_t i = 0; i < n[k]; i++) in[k][i] = urand(&seed);
  }
  for (size_t i = 0; i < ny; i++) w[i] = urand(&seed);
  c.w = w, c.y = y;
  dlca__ref_dense(c.act, c.n, c.in, c.out, in[0], in[1], in[2], y);
  dlca__ref_dense_backward(c.act, c.n, c.in, c.out, in[0], in[1], y, w, grad[0], grad[1], grad[2]);
  double e = fd_compare(&c, dense_loss, in, n, grad, 3);
  fprintf(stderr, "blas fd dense %-7s %.2e\n", dlca__act_name(c.act), e);
  ck_assert_msg(e < 1e-6, "dense %s: finite-difference error %g", dlca__act_name(c.act), e);
  for (int k = 0; k < 3; k++) free(in[k]), free(grad[k]);
  free(w), free(y);
}
END_TEST

Suite *suite_blas(void) {
  Suite *s = suite_create("blas");
  TCase *ref = tcase_create("ref");
  tcase_add_loop_test(ref, test_blas_ref_vectors, 0, 2);
  tcase_add_loop_test(ref, test_blas_fd_gemm, 0, 4);
  tcase_add_loop_test(ref, test_blas_fd_dense, 0, DLCA__ACT_COUNT);
  suite_add_tcase(s, ref);
  TCase *cl = tcase_create("cl");
  tcase_set_timeout(cl, 600);
  tb_add_cl_gemm(cl);
  tb_add_cl_dense(cl);
  suite_add_tcase(s, cl);
  suite_add_tcase(s, tb_tcase_tuning());
  return s;
}
