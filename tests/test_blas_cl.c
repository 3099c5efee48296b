/* GEMM through CLBlast and the dense kernels on the OpenCL device (PoCL in
 * CI) against the CPU twin (lib/ops/ref_blas.c) on fresh random inputs, at
 * 1e-4 + 1e-4 |want|; the errors CLBlast's statuses become. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas_util.h"
#include "cl_util.h"
#include "ops/cl_blas.h"

#define TOL_ABS 1e-4
#define TOL_REL 1e-4

/* A buffer of n random floats in [-1, 1]; *d gets them as doubles. */
static cl_mem random_buffer(dlca_context *ctx, size_t n, uint64_t seed, float **f, double **d) {
  *f = malloc(sizeof(float) * (n ? n : 1)), *d = malloc(sizeof(double) * (n ? n : 1));
  tu_random(*f, n, -1, 1, seed);
  for (size_t i = 0; i < n; i++) (*d)[i] = (*f)[i];
  cl_mem m;
  ck_assert_msg(dlca__buffer(ctx, sizeof(float) * (n ? n : 1), "test", &m) == DLCA_OK, "%s", dlca_last_error());
  if (n) ck_assert_int_eq(dlca__upload(ctx, m, 0, sizeof(float) * n, *f, "test"), DLCA_OK);
  return m;
}

/* Runs g on the device and the twin; every element of C's buffer (those g does not write included) must
 * agree. The worst |error|. */
double tb_gemm_check(dlca_context *ctx, const dlca__gemm *g, uint64_t seed) {
  size_t na = dlca__gemm_extent(g, 0), nb = dlca__gemm_extent(g, 1), nc = dlca__gemm_extent(g, 2) + 3;
  float *fa, *fb, *fc;
  double *a, *b, *c;
  cl_mem ma = random_buffer(ctx, na, seed, &fa, &a), mb = random_buffer(ctx, nb, seed + 1, &fb, &b),
         mc = random_buffer(ctx, nc, seed + 2, &fc, &c);
  ck_assert_msg(dlca__ops_cl_gemm(ctx, g, ma, mb, mc) == DLCA_OK, "%s", dlca_last_error());
  dlca__ref_gemm(g, a, b, c);
  ck_assert_int_eq(dlca__download(ctx, mc, 0, sizeof(float) * nc, fc, "test"), DLCA_OK);
  double worst = 0;
  for (size_t i = 0; i < nc; i++) {
    double e = fabs(fc[i] - c[i]);
    ck_assert_msg(e <= TOL_ABS + TOL_REL * fabs(c[i]), "C[%zu] = %.9g, twin %.9g (m %zu n %zu k %zu batch %zu)", i,
                  fc[i], c[i], g->m, g->n, g->k, g->batch);
    worst = fmax(worst, e);
  }
  clReleaseMemObject(ma), clReleaseMemObject(mb), clReleaseMemObject(mc);
  free(fa), free(fb), free(fc), free(a), free(b), free(c);
  return worst;
}

/* Odd sizes, each pair of transposes, padded leading dimensions and offsets, alpha and beta away from 0
 * and 1; the odd cases batched with strides (one of them 0: A shared by every batch). */
START_TEST(test_blas_cl_gemm_random) {
  if (!tcl_platform()) return;
  tcl_fresh_env("blas-cl-gemm");
  dlca_context *ctx = tcl_context();
  static const size_t dims[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 63, 31}, {129, 3, 70}, {2, 200, 9}};
  double worst = 0;
  for (int i = 0; i < 4 * 6; i++) {
    int ta = i & 1, tb = (i >> 1) & 1;
    const size_t *d = dims[i / 4];
    size_t m = d[0], n = d[1], k = d[2], ra = ta ? m : k, rb = tb ? k : n;
    dlca__gemm g = {ta, tb, m, n, k, 1.25f - 0.5f * (float)ta, -0.75f + (float)tb, ra + (size_t)(i % 3), rb + 2, n + 1,
                    (size_t)i % 5, 3, 1, 1, 0, 0, 0};
    if (i % 2) {
      g.batch = 3;
      g.stride_a = i % 4 == 1 ? 0 : (ta ? k : m) * g.lda + 1;
      g.stride_b = (tb ? n : k) * g.ldb;
      g.stride_c = m * g.ldc + 2;
    }
    worst = fmax(worst, tb_gemm_check(ctx, &g, 1000 + (uint64_t)i));
  }
  fprintf(stderr, "blas cl gemm: 24 random cases, worst |device - twin| %.2e\n", worst);
  dlca_context_free(ctx);
}
END_TEST

/* beta 0 ignores C's old values, NaN included (torch's and BLAS's rule); k 0 is C = beta C. */
START_TEST(test_blas_cl_gemm_edges) {
  if (!tcl_platform()) return;
  tcl_fresh_env("blas-cl-gemm-edges");
  dlca_context *ctx = tcl_context();
  dlca__gemm g = {0, 1, 9, 11, 13, 1.0f, 0.0f, 13, 13, 11, 0, 0, 0, 1, 0, 0, 0};
  size_t nc = 9 * 11;
  float nan_c[99];
  for (size_t i = 0; i < nc; i++) nan_c[i] = NAN;
  float *fa, *fb;
  double *a, *b, c[99];
  cl_mem ma = random_buffer(ctx, 9 * 13, 5, &fa, &a), mb = random_buffer(ctx, 11 * 13, 6, &fb, &b), mc;
  ck_assert_int_eq(dlca__buffer(ctx, sizeof nan_c, "c", &mc), DLCA_OK);
  ck_assert_int_eq(dlca__upload(ctx, mc, 0, sizeof nan_c, nan_c, "c"), DLCA_OK);
  ck_assert_msg(dlca__ops_cl_gemm(ctx, &g, ma, mb, mc) == DLCA_OK, "%s", dlca_last_error());
  dlca__ref_gemm(&g, a, b, c);
  ck_assert_int_eq(dlca__download(ctx, mc, 0, sizeof nan_c, nan_c, "c"), DLCA_OK);
  for (size_t i = 0; i < nc; i++) ck_assert_msg(fabs(nan_c[i] - c[i]) < 1e-4, "beta 0: C[%zu] = %g", i, nan_c[i]);
  dlca__gemm z = {0, 0, 9, 11, 0, 1.0f, -2.0f, 1, 11, 11, 0, 0, 0, 1, 0, 0, 0};
  ck_assert_msg(dlca__ops_cl_gemm(ctx, &z, ma, mb, mc) == DLCA_OK, "%s", dlca_last_error());
  float got[99];
  ck_assert_int_eq(dlca__download(ctx, mc, 0, sizeof got, got, "c"), DLCA_OK);
  for (size_t i = 0; i < nc; i++) ck_assert_msg(fabs(got[i] + 2 * nan_c[i]) < 1e-5, "k 0: C[%zu]", i);
  dlca__gemm none = {0, 0, 0, 11, 5, 1.0f, 0.0f, 5, 11, 11, 0, 0, 0, 1, 0, 0, 0};
  ck_assert_int_eq(dlca__ops_cl_gemm(ctx, &none, ma, mb, mc), DLCA_OK);
  clReleaseMemObject(ma), clReleaseMemObject(mb), clReleaseMemObject(mc);
  free(fa), free(fb), free(a), free(b);
  dlca_context_free(ctx);
}
END_TEST

/* Bad descriptors are refused by name, with the routine and the sizes. */
START_TEST(test_blas_cl_gemm_errors) {
  if (!tcl_platform()) return;
  tcl_fresh_env("blas-cl-gemm-errors");
  dlca_context *ctx = tcl_context();
  cl_mem m;
  ck_assert_int_eq(dlca__buffer(ctx, sizeof(float) * 64, "m", &m), DLCA_OK);
  dlca__gemm g = {0, 0, 4, 4, 4, 1.0f, 0.0f, 4, 4, 4, 0, 0, 0, 1, 0, 0, 0};
  g.batch = 0;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "batch 0");
  g.batch = 1, g.lda = 3;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "CLBlastSgemm(m 4, n 4, k 4, A lda 3");
  g.lda = 4, g.m = 20;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "A needs 80 floats (offset 0, 1 batches 0 apart, 20 rows");
  g.m = 4, g.batch = 2, g.stride_c = 8;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "the batches would overlap");
  TU_EXPECT(dlca__ops_cl_gemm(ctx, NULL, m, m, m), DLCA_EINVAL, "NULL");
  clReleaseMemObject(m);
  dlca_context_free(ctx);
}
END_TEST

/* Each argument CLBlast would refuse is refused before CLBlast is called (m is 64 floats). */
static void refused_cases(dlca_context *ctx, cl_mem m) {
  const dlca__gemm ok = {0, 0, 4, 4, 4, 1.0f, 0.0f, 4, 4, 4, 0, 0, 0, 1, 0, 0, 0};
  dlca__gemm g = ok;
  g.trans_b = 1, g.ldb = 3;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "B^T ldb 3");
  g = ok, g.ldc = 3;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "C's 4");
  g = ok, g.off_b = 49;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "B needs 65 floats (offset 49");
  g = ok, g.off_c = 60;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "C needs 76 floats (offset 60");
  g = ok, g.k = 0, g.off_c = 60; /* the k = 0 kernel writes C too */
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "C needs 76 floats");
  g = ok, g.batch = 3, g.stride_a = 25, g.stride_c = 16; /* A's last batch: 50 + 16 */
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "A needs 66 floats (offset 0, 3 batches 25 apart");
  g = ok, g.batch = 5, g.stride_c = 16;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "C needs 80 floats (offset 0, 5 batches 16 apart");
  g = ok, g.trans_a = 1, g.m = 12, g.lda = 20; /* A^T: stored as k rows of m; C (48 floats) fits */
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "A needs 72 floats (offset 0, 1 batches 0 apart, 4 rows of 12");
  g = ok, g.lda = (size_t)1 << 31;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "lda 2147483648 is over 2^31 - 1");
  g = ok, g.off_a = (size_t)1 << 40;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "off_a 1099511627776 is over");
  g = ok, g.batch = 2, g.stride_c = 16, g.stride_b = SIZE_MAX / 2;
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &g, m, m, m), DLCA_EINVAL, "stride_b");
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &ok, NULL, m, m), DLCA_EINVAL, "A is no buffer (NULL)");
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &ok, m, NULL, m), DLCA_EINVAL, "B is no buffer (NULL)");
  TU_EXPECT(dlca__ops_cl_gemm(ctx, &ok, m, m, NULL), DLCA_EINVAL, "C is no buffer (NULL)");
  g = ok, g.batch = 3, g.stride_a = 20, g.stride_b = 20, g.stride_c = 20; /* the last batch ends at 56 */
  ck_assert_msg(dlca__ops_cl_gemm(ctx, &g, m, m, m) == DLCA_OK, "%s", dlca_last_error());
  ck_assert_msg(dlca__ops_cl_gemm(ctx, &ok, m, m, m) == DLCA_OK, "%s", dlca_last_error());
}

/* With stderr captured: every refusal, and a good GEMM, print nothing (the library never prints). */
START_TEST(test_blas_cl_gemm_refused) {
  if (!tcl_platform()) return;
  const char *dir = tcl_fresh_env("blas-cl-gemm-refused");
  dlca_context *ctx = tcl_context();
  cl_mem m;
  ck_assert_int_eq(dlca__buffer(ctx, sizeof(float) * 64, "m", &m), DLCA_OK);
  char path[1200];
  snprintf(path, sizeof path, "%s/stderr.txt", dir);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert(saved >= 0 && fd >= 0);
  dup2(fd, 2), close(fd);
  refused_cases(ctx, m);
  ck_assert_int_eq(dlca__finish(ctx, "gemm"), DLCA_OK);
  fflush(stderr);
  dup2(saved, 2), close(saved);
  size_t n = 0;
  char *text = tu_read(path, &n);
  ck_assert_msg(n == 0, "printed on stderr: %s", text);
  free(text);
  clReleaseMemObject(m);
  dlca_context_free(ctx);
}
END_TEST

void tb_add_cl_gemm(TCase *tc) {
  tcase_add_test(tc, test_blas_cl_gemm_random);
  tcase_add_test(tc, test_blas_cl_gemm_edges);
  tcase_add_test(tc, test_blas_cl_gemm_errors);
  tcase_add_test(tc, test_blas_cl_gemm_refused);
}
