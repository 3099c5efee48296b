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

/* The largest size, leading dimension, offset or stride CLBlast's kernels take (they index with int). */
#define GEMM_INT_MAX ((size_t)0x7fffffff)

/* DLCA_EINVAL unless every size, leading dimension, offset and stride fits CLBlast's int. */
static int check_ints(const dlca__gemm *g, const char *what) {
  const size_t v[] = {g->m,     g->n,     g->k,     g->lda,      g->ldb,      g->ldc,      g->off_a,
                      g->off_b, g->off_c, g->batch, g->stride_a, g->stride_b, g->stride_c};
  static const char *const name[] = {"m",     "n",     "k",     "lda",      "ldb",      "ldc",     "off_a",
                                     "off_b", "off_c", "batch", "stride_a", "stride_b", "stride_c"};
  for (int i = 0; i < 13; i++)
    if (v[i] > GEMM_INT_MAX)
      return dlca__fail(DLCA_EINVAL, "%s: %s %zu is over 2^31 - 1, the largest CLBlast's kernels index", what,
                        name[i], v[i]);
  return DLCA_OK;
}

/* DLCA_EINVAL unless matrix `which` (0 A, 1 B, 2 C) of every batch lies within buffer m: the offset, the last
 * batch's stride and the last stored row's last element, in floats (counted in double: no size_t wraps). */
static int check_buffer(const dlca__gemm *g, int which, cl_mem m, const char *what) {
  static const char *const name[] = {"A", "B", "C"};
  if (!m) return dlca__fail(DLCA_EINVAL, "%s: %s is no buffer (NULL)", what, name[which]);
  size_t bytes = 0;
  cl_int err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  if (err != CL_SUCCESS)
    return dlca__fail_cl(err, "%s: %s is not a buffer (%s)", what, name[which], dlca__cl_error_name(err));
  size_t rows = which == 0 ? (g->trans_a ? g->k : g->m) : which == 1 ? (g->trans_b ? g->n : g->k) : g->m;
  size_t cols = which == 0 ? (g->trans_a ? g->m : g->k) : which == 1 ? (g->trans_b ? g->k : g->n) : g->n;
  size_t ld = which == 0 ? g->lda : which == 1 ? g->ldb : g->ldc;
  size_t off = which == 0 ? g->off_a : which == 1 ? g->off_b : g->off_c;
  size_t stride = which == 0 ? g->stride_a : which == 1 ? g->stride_b : g->stride_c;
  double need = (double)off + (double)(g->batch - 1) * (double)stride + (double)(rows - 1) * (double)ld + (double)cols;
  if (need <= (double)(bytes / sizeof(float))) return DLCA_OK;
  return dlca__fail(DLCA_EINVAL,
                    "%s: %s needs %.0f floats (offset %zu, %zu batches %zu apart, %zu rows of %zu at ld %zu), its "
                    "buffer holds %zu",
                    what, name[which], need, off, g->batch, stride, rows, cols, ld, bytes / sizeof(float));
}

/* The buffers' sizes against what CLBlast would check (CLBlast prints to stderr on some failures; the
 * library never prints): A and B where k > 0, C always (the k = 0 kernel writes it too). */
static int check_call(const dlca__gemm *g, cl_mem a, cl_mem b, cl_mem c, const char *what) {
  int rc = g->k ? check_buffer(g, 0, a, what) : DLCA_OK;
  if (!rc && g->k) rc = check_buffer(g, 1, b, what);
  return rc ? rc : check_buffer(g, 2, c, what);
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

/* Our row-major GEMM as the column-major one CLBlast runs best: C (m x n, row-major) read column-major is
 * C^T = op(B)^T op(A)^T, so A and B swap places with their flags, m and n swap, and no matrix is
 * transposed to fit the layout. CLBlast's row-major path transposes C, and A unless it is A^T, before
 * and after its indirect kernel (routines/level3/xgemm: its kernel wants C and A column-major). */
static dlca__gemm column_major(const dlca__gemm *g) {
  dlca__gemm c = *g;
  c.trans_a = g->trans_b, c.trans_b = g->trans_a, c.m = g->n, c.n = g->m;
  c.lda = g->ldb, c.ldb = g->lda, c.off_a = g->off_b, c.off_b = g->off_a, c.stride_a = g->stride_b,
  c.stride_b = g->stride_a;
  return c;
}

/* CLBlast's statuses about A are about our B and back. */
static int swap_ab(int s) {
  static const int pairs[][2] = {{CLBlastInvalidMatrixA, CLBlastInvalidMatrixB},
                                 {CLBlastInvalidLeadDimA, CLBlastInvalidLeadDimB},
                                 {CLBlastInsufficientMemoryA, CLBlastInsufficientMemoryB}};
  for (int i = 0; i < 3; i++) {
    if (s == pairs[i][0]) return pairs[i][1];
    if (s == pairs[i][1]) return pairs[i][0];
  }
  return s;
}

/* The context's scratch buffer for one GEMM's pre-processing (pads, transposes), so that CLBlast allocates
 * none per call (an allocation of up to 3 matrices on every GEMM); NULL where it needs none. cm is the
 * column-major descriptor. */
static int scratch(dlca_context *ctx, const dlca__gemm *cm, cl_mem *tmp, const char *what) {
  size_t key[11] = {(size_t)cm->trans_a, (size_t)cm->trans_b, cm->m, cm->n, cm->k, cm->lda, cm->ldb, cm->ldc,
                    cm->off_a, cm->off_b, cm->off_c},
         bytes = 0;
  *tmp = NULL;
  if (!dlca__blas_temp_lookup(ctx, key, &bytes)) {
    CLBlastStatusCode s = CLBlastSGemmTempBufferSize(
        CLBlastLayoutColMajor, cm->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo,
        cm->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo, cm->m, cm->n, cm->k, cm->off_a, cm->lda, cm->off_b,
        cm->ldb, cm->off_c, cm->ldc, &ctx->queue, &bytes);
    if (s != CLBlastSuccess) return dlca__clblast_fail(swap_ab(s), what);
    dlca__blas_temp_store(ctx, key, bytes);
  }
  return bytes ? dlca__blas_scratch(ctx, bytes, tmp) : DLCA_OK;
}

/* One of CLBlast's three calls for the column-major descriptor g (a and b already swapped). */
static CLBlastStatusCode call(dlca_context *ctx, const dlca__gemm *g, cl_mem a, cl_mem b, cl_mem c, cl_mem tmp,
                              cl_event *ev) {
  CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
  CLBlastTranspose tb = g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
  const CLBlastLayout L = CLBlastLayoutColMajor;
  if (g->batch == 1 && tmp)
    return CLBlastSgemmWithTempBuffer(L, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda, b, g->off_b, g->ldb,
                                      g->beta, c, g->off_c, g->ldc, &ctx->queue, ev, tmp);
  if (g->batch == 1)
    return CLBlastSgemm(L, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda, b, g->off_b, g->ldb, g->beta, c,
                        g->off_c, g->ldc, &ctx->queue, ev);
  return CLBlastSgemmStridedBatched(L, ta, tb, g->m, g->n, g->k, g->alpha, a, g->off_a, g->lda, g->stride_a, b,
                                    g->off_b, g->ldb, g->stride_b, g->beta, c, g->off_c, g->ldc, g->stride_c,
                                    g->batch, &ctx->queue, ev);
}

int dlca__ops_cl_gemm(dlca_context *ctx, const dlca__gemm *g, cl_mem a, cl_mem b, cl_mem c) {
  if (!ctx || !g) return dlca__fail(DLCA_EINVAL, "dlca__ops_cl_gemm: no context or descriptor (NULL)");
  char what[256];
  describe(g, what, sizeof what);
  int rc = check_ints(g, what);
  if (!rc) rc = check(g, what);
  if (rc || !g->m || !g->n) return rc;
  if ((double)g->m * (double)g->n * (double)g->batch >= 4294967296.0)
    return dlca__fail(DLCA_EINVAL, "%s: over 2^32 results", what);
  if ((rc = check_call(g, a, b, c, what))) return rc;
  if (!g->k) return scale_c(ctx, g, c);
  dlca__gemm cm = column_major(g);
  cl_mem tmp = NULL;
  if (g->batch == 1 && (rc = scratch(ctx, &cm, &tmp, what))) return rc;
  cl_event ev = NULL;
  CLBlastStatusCode s = call(ctx, &cm, b, a, c, tmp, dlca__profiling(ctx) ? &ev : NULL);
  if (s != CLBlastSuccess) return dlca__clblast_fail(swap_ab(s), what);
  /* CLBlast's event is its last kernel's (the GEMM after any pad or transpose). */
  if (ev) dlca__profile_add(ctx, g->batch > 1 ? "clblast_sgemm_batched" : "clblast_sgemm", ev);
  return DLCA_OK;
}
