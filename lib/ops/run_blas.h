/* The `gemm` and `dense` cases of dlca-ops-vector files: their attrs and
 * shapes read once for the twin's runners (lib/ops/run_blas.c) and the
 * device's (lib/ops/cl_run_blas.c). Internal. */
#ifndef DLCA_OPS_RUN_BLAS_H
#define DLCA_OPS_RUN_BLAS_H
#include "ops/ref_blas.h"
#include "ops/ref_case.h"

/* y = alpha op(A) op(B) + beta C: g holds the shapes (contiguous, batch 1)
 * with alpha 1 and beta 0; the file's alpha and beta are kept in double. */
typedef struct dlca__gemm_case {
  dlca__gemm g;
  double alpha, beta;
  const dlca__ops_tensor *a, *b, *c;
  double *y, *da, *db, *dc; /* the result slots (the grads NULL where the file has none) */
  const double *dy;         /* grad_outputs.y, NULL without grads */
} dlca__gemm_case;
/* DLCA_EPARSE naming the file and the key for attrs or shapes that do not fit. */
int dlca__ops_gemm_case(const dlca__ops_vector *v, dlca__ops_result *r, dlca__gemm_case *c);

/* y = act(x W^T + b): x [n,in], W [out,in], b [out] (optional). */
typedef struct dlca__dense_case {
  dlca__act act;
  size_t n, in, out;
  const dlca__ops_tensor *x, *w, *b;
  double *y, *dx, *dw, *db;
  const double *dy;
} dlca__dense_case;
int dlca__ops_dense_case(const dlca__ops_vector *v, dlca__ops_result *r, dlca__dense_case *c);

/* The twin's runners, dispatched by lib/ops/ref_case.c. */
int dlca__ops_run_gemm(const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_run_dense(const dlca__ops_vector *v, dlca__ops_result *r);
#endif
