/* GEMM on the device through CLBlast (lib/ops/cl_blas.h): our row-major
 * descriptor checked, then CLBlastSgemm or CLBlastSgemmStridedBatched on the
 * context's queue, its status translated (lib/cl/clblast.c). */
#include <clblast_c.h>
#include <stdio.h>

#include "cl/clblast.h"
#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"

/* "CLBlastSgemm(m 3, n 4, k 5, A^T lda 3, B ldb 4, C ldc 4, batch 1)" into buf. */
static void describe(const dlca__gemm *g, char *buf, size_t len) {
  snprintf(buf, len, "%s(m %zu, n %zu, k %zu, A%s lda %zu, B%s ldb %zu, C ldc %zu, batch %zu)",
           g->batch > 1 ? "CLBlastSgemmStridedBatched" : "CLBlastSgemm", g->m, g->n, g->k, g->trans_a ? "^T" : "",
           g->lda, g->trans_b ? "^T" : "", g->ldb, g->ldc, g->batch);
}

/* What CLBlast does not refuse itself: a batch of 0 and batches of C that overlap. */
static int check(const dlca__gemm *g, const char *what) {
  if (!g->batch) return dlca__fail(DLCA_EINVAL, "%s: batch 0 (1 for one GEMM)", what);
  size_t ra = g->trans_a ? g->m : g->k, rb = g->trans_b ? g->k : g->n;
  if (g->lda < ra || g->ldb < rb || g->ldc < g->n)
    return dlca__fail(DLCA_EINVAL, "%s: a leading dimension under its row length (A's %zu, B's %zu, C's %zu)", what,
                      ra, rb, g->n);
  if (g->batch > 1 && g->m && g->n && g->stride_c < (g->m - 1) * g->ldc + g->n)
    return dlca__fail(DLCA_EINVAL, "%s: stride_c %zu under one C (%zu floats): the batches would overlap", what,
                      g->stride_c, (g->m - 1) * g->ldc + g->n);
  return DLCA_OK;
}

/* C = beta C where k is 0 (CLBlast refuses k = 0): dense.cl's dlca_ops_gemm_scale. */
static int scale_c(dlca_context *ctx, const dlca__gemm *g, cl_mem c) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__dense_kernel(ctx, "dlca_ops_gemm_scale", &k, &wg, NULL);
  if (rc) return rc;
  cl_uint off = (cl_uint)g->off_c, ldc = (cl_uint)g->ldc, st = (cl_uint)g->stride_c, m = (cl_uint)g->m,
          n = (cl_uint)g->n, nb = (cl_uint)g->batch;
  float beta = g->beta;
  size_t u = sizeof(cl_uint), sizes[] = {sizeof(cl_mem), u, u, u, u, u, u, sizeof beta};
  const void *args[] = {&c, &off, &ldc, &st, &m, &n, &nb, &beta};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_gemm_scale", wg, g->m * g->n * g->batch, 8, sizes, args);
}

int dlca__ops_cl_gemm(dlca_context *ctx, const dlca__gemm *g, cl_mem a, cl_mem b, cl_mem c) {
  if (!ctx || !g) return dlca__fail(DLCA_EINVAL, "dlca__ops_cl_gemm: no context or descriptor (NULL)");
  char what[256];
  describe(g, what, sizeof what);
  int rc = check(g, what);
  if (rc || !g->m || !g->n) return rc;
  if (g->m * g->n * g->batch >= ((size_t)1 << 32))
    return dlca__fail(DLCA_EINVAL, "%s: over 2^32 results", what);
  if (!g->k) return scale_c(ctx, g, c);
  CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
  CLBlastTranspose tb = g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
  int prof = dlca__profiling(ctx);
  cl_event ev = NULL;
  CLBlastStatusCode s;
  if (g->batch == 1)
    s = CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda, b, g->off_b,
                     g->ldb, g->beta, c, g->off_c, g->ldc, &ctx->queue, prof ? &ev : NULL);
  else
    s = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda,
                                   g->stride_a, b, g->off_b, g->ldb, g->stride_b, g->beta, c, g->off_c, g->ldc,
                                   g->stride_c, g->batch, &ctx->queue, prof ? &ev : NULL);
  if (s != CLBlastSuccess) return dlca__clblast_fail(s, what);
  /* CLBlast's event is its last kernel's (the GEMM after any pad or transpose). */
  if (ev) dlca__profile_add(ctx, g->batch > 1 ? "clblast_sgemm_batched" : "clblast_sgemm", ev);
  return DLCA_OK;
}
