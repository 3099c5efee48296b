/* The CPU twin of GEMM and dense, in double (lib/ops/ref_blas.h). */
#include "ops/ref_blas.h"

#include <math.h>
#include <string.h>

static const char *const act_names[DLCA__ACT_COUNT] = {"none", "relu", "sigmoid", "tanh"};

int dlca__act_from_name(const char *name) {
  for (int i = 0; name && i < DLCA__ACT_COUNT; i++)
    if (!strcmp(name, act_names[i])) return i;
  return -1;
}

const char *dlca__act_name(dlca__act a) { return (unsigned)a < DLCA__ACT_COUNT ? act_names[a] : "?"; }

/* Rows and columns of the stored A (0), B (1) or C (2). */
static void stored(const dlca__gemm *g, int which, size_t *rows, size_t *cols) {
  if (which == 0) *rows = g->trans_a ? g->k : g->m, *cols = g->trans_a ? g->m : g->k;
  else if (which == 1) *rows = g->trans_b ? g->n : g->k, *cols = g->trans_b ? g->k : g->n;
  else *rows = g->m, *cols = g->n;
}

size_t dlca__gemm_extent(const dlca__gemm *g, int which) {
  size_t rows, cols, ld = which == 0 ? g->lda : which == 1 ? g->ldb : g->ldc;
  size_t off = which == 0 ? g->off_a : which == 1 ? g->off_b : g->off_c;
  size_t stride = which == 0 ? g->stride_a : which == 1 ? g->stride_b : g->stride_c;
  stored(g, which, &rows, &cols);
  if (!rows || !cols || !g->batch) return off;
  return off + (g->batch - 1) * stride + (rows - 1) * ld + cols;
}

/* Where op(X)(i, j) is stored: X row-major with leading dimension ld, transposed where t. */
static size_t at(size_t ld, int t, size_t i, size_t j) { return t ? j * ld + i : i * ld + j; }

void dlca__ref_gemm(const dlca__gemm *g, const double *a, const double *b, double *c) {
  for (size_t q = 0; q < g->batch; q++) {
    const double *A = a + g->off_a + q * g->stride_a, *B = b + g->off_b + q * g->stride_b;
    double *C = c + g->off_c + q * g->stride_c;
    for (size_t i = 0; i < g->m; i++)
      for (size_t j = 0; j < g->n; j++) {
        double s = 0;
        for (size_t p = 0; p < g->k; p++) s += A[at(g->lda, g->trans_a, i, p)] * B[at(g->ldb, g->trans_b, p, j)];
        double *y = &C[i * g->ldc + j];
        *y = (double)g->alpha * s + (g->beta == 0.0f ? 0.0 : (double)g->beta * *y);
      }
  }
}

/* Zeroes the elements of X (0: A, 1: B) that g reads. */
static void zero_read(const dlca__gemm *g, int which, double *x) {
  size_t rows, cols, ld = which ? g->ldb : g->lda;
  stored(g, which, &rows, &cols);
  for (size_t q = 0; q < g->batch; q++) {
    double *X = x + (which ? g->off_b + q * g->stride_b : g->off_a + q * g->stride_a);
    for (size_t r = 0; r < rows; r++) memset(X + r * ld, 0, sizeof(double) * cols);
  }
}

void dlca__ref_gemm_backward(const dlca__gemm *g, const double *a, const double *b, const double *dc, double *da,
                             double *db, double *dcin) {
  if (da) zero_read(g, 0, da);
  if (db) zero_read(g, 1, db);
  for (size_t q = 0; q < g->batch; q++) {
    const double *A = a + g->off_a + q * g->stride_a, *B = b + g->off_b + q * g->stride_b;
    const double *D = dc + g->off_c + q * g->stride_c;
    double *dA = da ? da + g->off_a + q * g->stride_a : NULL, *dB = db ? db + g->off_b + q * g->stride_b : NULL;
    /* d op(A)(i, p) = alpha sum_j dC(i, j) op(B)(p, j); d op(B)(p, j) = alpha sum_i op(A)(i, p) dC(i, j) */
    for (size_t i = 0; dA && i < g->m; i++)
      for (size_t p = 0; p < g->k; p++) {
        double s = 0;
        for (size_t j = 0; j < g->n; j++) s += D[i * g->ldc + j] * B[at(g->ldb, g->trans_b, p, j)];
        dA[at(g->lda, g->trans_a, i, p)] += (double)g->alpha * s;
      }
    for (size_t p = 0; dB && p < g->k; p++)
      for (size_t j = 0; j < g->n; j++) {
        double s = 0;
        for (size_t i = 0; i < g->m; i++) s += A[at(g->lda, g->trans_a, i, p)] * D[i * g->ldc + j];
        dB[at(g->ldb, g->trans_b, p, j)] += (double)g->alpha * s;
      }
    for (size_t i = 0; dcin && i < g->m; i++)
      for (size_t j = 0; j < g->n; j++) {
        size_t o = g->off_c + q * g->stride_c + i * g->ldc + j;
        dcin[o] = (double)g->beta * dc[o];
      }
  }
}

static double act_f(dlca__act act, double z) {
  switch (act) {
    case DLCA__ACT_relu:
      return z > 0 ? z : 0;
    case DLCA__ACT_sigmoid:
      return 1 / (1 + exp(-z));
    case DLCA__ACT_tanh:
      return tanh(z);
    default:
      return z;
  }
}

/* act'(z) from y = act(z); relu'(0) = 0 as torch has it. */
static double act_d(dlca__act act, double y) {
  switch (act) {
    case DLCA__ACT_relu:
      return y > 0 ? 1 : 0;
    case DLCA__ACT_sigmoid:
      return y * (1 - y);
    case DLCA__ACT_tanh:
      return 1 - y * y;
    default:
      return 1;
  }
}

void dlca__ref_dense(dlca__act act, size_t n, size_t in, size_t out, const double *x, const double *w,
                     const double *b, double *y) {
  for (size_t i = 0; i < n; i++)
    for (size_t o = 0; o < out; o++) {
      double s = 0;
      for (size_t p = 0; p < in; p++) s += x[i * in + p] * w[o * in + p];
      y[i * out + o] = act_f(act, s + (b ? b[o] : 0));
    }
}

void dlca__ref_dense_backward(dlca__act act, size_t n, size_t in, size_t out, const double *x, const double *w,
                              const double *y, const double *dy, double *dx, double *dw, double *db) {
  for (size_t i = 0; dx && i < n; i++)
    for (size_t p = 0; p < in; p++) {
      double s = 0;
      for (size_t o = 0; o < out; o++) s += dy[i * out + o] * act_d(act, y[i * out + o]) * w[o * in + p];
      dx[i * in + p] = s;
    }
  for (size_t o = 0; dw && o < out; o++)
    for (size_t p = 0; p < in; p++) {
      double s = 0;
      for (size_t i = 0; i < n; i++) s += dy[i * out + o] * act_d(act, y[i * out + o]) * x[i * in + p];
      dw[o * in + p] = s;
    }
  for (size_t o = 0; db && o < out; o++) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += dy[i * out + o] * act_d(act, y[i * out + o]);
    db[o] = s;
  }
}
