/* The CPU twin of GEMM and dense (lib/ops/cl_blas.h), in double: sums over
 * k in ascending order, torch's semantics (../shared/testdata/ops/README.md).
 * Internal. */
#ifndef DLCA_OPS_REF_BLAS_H
#define DLCA_OPS_REF_BLAS_H
#include <stddef.h>

/* C[i] = alpha op(A[i]) op(B[i]) + beta C[i] for i < batch; row-major; offsets, leading dimensions and
 * strides in floats (in elements for the twin). op(A) is m x k, op(B) k x n, C m x n. */
typedef struct dlca__gemm {
  int trans_a, trans_b;
  size_t m, n, k;
  float alpha, beta;
  size_t lda, ldb, ldc;
  size_t off_a, off_b, off_c;
  size_t batch; /* 1 for one GEMM */
  size_t stride_a, stride_b, stride_c;
} dlca__gemm;

typedef enum { DLCA__ACT_none, DLCA__ACT_relu, DLCA__ACT_sigmoid, DLCA__ACT_tanh, DLCA__ACT_COUNT } dlca__act;
/* "relu" -> DLCA__ACT_relu; -1 for a name that is none of none, relu, sigmoid, tanh. */
int dlca__act_from_name(const char *name);
const char *dlca__act_name(dlca__act a);

/* The floats a buffer needs for A (which 0), B (1) or C (2) of g: the last element any batch reads + 1. */
size_t dlca__gemm_extent(const dlca__gemm *g, int which);

/* g on double arrays, in place on C as BLAS does; beta 0 ignores C's old values (NaN included). */
void dlca__ref_gemm(const dlca__gemm *g, const double *a, const double *b, double *c);
/* The gradients of sum(C_new * dc) (dc in C's layout): da, db in A's and B's layouts (summed over
 * the batches that share an element, a stride of 0), dcin = beta dc the old C's. Each may be NULL;
 * only the elements that g reads are written. */
void dlca__ref_gemm_backward(const dlca__gemm *g, const double *a, const double *b, const double *dc, double *da,
                             double *db, double *dcin);

/* y [n,out] = act(x [n,in] w [out,in]^T + b [out]); b may be NULL. */
void dlca__ref_dense(dlca__act act, size_t n, size_t in, size_t out, const double *x, const double *w,
                     const double *b, double *y);
/* Given y and dy [n,out]: dx [n,in], dw [out,in], db [out] (each may be NULL); dz = dy act'(y) is
 * computed on the way (relu'(0) = 0). */
void dlca__ref_dense_backward(dlca__act act, size_t n, size_t in, size_t out, const double *x, const double *w,
                              const double *y, const double *dy, double *dx, double *dw, double *db);
#endif
