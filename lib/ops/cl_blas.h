/* GEMM through CLBlast and the dense layer (GEMM, then bias and activation
 * fused in kernels-cl/ops/dense.cl) on device tensors. The launchers
 * enqueue on the context's in-order queue and never block. Internal. */
#ifndef DLCA_OPS_CL_BLAS_H
#define DLCA_OPS_CL_BLAS_H
#include "ops/ref_blas.h" /* dlca__gemm and dlca__act, shared with the twin */
#include "ops/ref_case.h"
#include "ops/tensor.h"

/* C[i] = alpha op(A[i]) op(B[i]) + beta C[i] for i < batch (struct dlca__gemm, lib/ops/ref_blas.h).
 * Through CLBlast (CLBlastSgemm / CLBlastSgemmStridedBatched) on ctx's queue; enqueues only.
 * DLCA_EINVAL for a leading dimension under its matrix's row length, a
 * batch of 0, a size, ld, offset or stride over 2^31 - 1, a NULL buffer or
 * one too small for a matrix of any batch: all checked here, so that
 * CLBlast (which prints some failures to stderr) gets none of them; DLCA_EDEVMEM where
 * CLBlast cannot allocate its scratch; DLCA_EBUILD or DLCA_ECL for its
 * other failures. Each message names the routine and the sizes. m or n of
 * 0 is nothing to do; k of 0 scales C by beta (a kernel of dense.cl). */
int dlca__ops_cl_gemm(dlca_context *ctx, const dlca__gemm *g, cl_mem a, cl_mem b, cl_mem c);

/* y [N,out] = act(x [N,in] W [out,in]^T + b [out]): one GEMM, then bias and activation in one kernel.
 * b may be NULL (no bias). */
int dlca__ops_cl_dense(dlca_context *ctx, dlca__act act, const dlca_tensor *x, const dlca_tensor *w,
                       const dlca_tensor *b, dlca_tensor *y);
/* Given y = dense(x) and dy: dz = dy * act'(y) into dz (y's shape; may be dy itself), then dx = dz W (dx may
 * be NULL), dw = dz^T x, db = the column sums of dz in a fixed order (db may be NULL for no bias). */
int dlca__ops_cl_dense_backward(dlca_context *ctx, dlca__act act, const dlca_tensor *x, const dlca_tensor *w,
                                const dlca_tensor *y, const dlca_tensor *dy, dlca_tensor *dz, dlca_tensor *dx,
                                dlca_tensor *dw, dlca_tensor *db);

/* Kernel `name` of dense.cl (NULL: none, only the values), with the DENSE_WG and DENSE_FUSED_MAX that
 * its program was built with, from the context's memo (lib/cl/memo.c). */
int dlca__dense_kernel(dlca_context *ctx, const char *name, cl_kernel *k, size_t *wg, int *fused_max);

/* CLBlast's GEMM scratch, kept per context (lib/ops/cl_blas_cache.c): the size CLBlast asked for a
 * descriptor (key: trans_a, trans_b, m, n, k, lda, ldb, ldc, off_a, off_b, off_c), remembered; and a
 * buffer of at least bytes, grown as needed. */
int dlca__blas_temp_lookup(dlca_context *ctx, const size_t *key, size_t *bytes);
void dlca__blas_temp_store(dlca_context *ctx, const size_t *key, size_t bytes);
int dlca__blas_scratch(dlca_context *ctx, size_t bytes, cl_mem *out);

/* The `gemm` and `dense` cases of a dlca-ops-vector file on the device: the
 * forward, then the backward with the file's grad_outputs; results as
 * doubles into r's slots, which the caller allocated in the layout of
 * dlca__ops_ref_run (lib/ops/cl_case.c's dispatch does). Waits. */
int dlca__ops_cl_run_gemm(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
int dlca__ops_cl_run_dense(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r);
#endif
