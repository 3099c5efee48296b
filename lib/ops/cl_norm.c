/* Launchers of kernels-cl/ops/norm.cl (lib/ops/cl_norm.h), in the program ops.cl. */
#include "ops/cl_norm.h"

#include <math.h>

#include "ops/cl_elementwise.h"

/* x's rows and last-axis length. */
static void rows_n(const dlca_tensor *x, size_t *rows, size_t *n) {
  *n = x->rank ? x->shape[x->rank - 1] : 1;
  *rows = *n ? x->n / *n : 0;
}

static int affine_check(dlca_context *ctx, const dlca_tensor *g, const dlca_tensor *b, size_t n, const char *fn) {
  int rc;
  if (!g != !b) return dlca__fail(DLCA_EINVAL, "%s: gamma and beta: both or neither", fn);
  if (!g) return DLCA_OK;
  if ((rc = dlca__tensor_check(ctx, g, fn)) || (rc = dlca__tensor_check(ctx, b, fn))) return rc;
  if (g->n != n || b->n != n)
    return dlca__fail(DLCA_EINVAL, "%s: gamma and beta have %zu and %zu elements, expected the last axis, %zu", fn,
                      g->n, b->n, n);
  return DLCA_OK;
}

/* One work-group per row (rows > 0). */
static int per_row(dlca_context *ctx, const char *name, size_t rows, int nargs, const size_t *sizes,
                   const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "NORM_WG", name, &k, &wg);
  return rc ? rc : dlca__ops_cl_launch(ctx, k, name, wg, rows * wg, nargs, sizes, args);
}

static int flat(dlca_context *ctx, const char *name, size_t n, int nargs, const size_t *sizes,
                const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "NORM_WG", name, &k, &wg);
  return rc ? rc : dlca__ops_cl_launch(ctx, k, name, wg, n, nargs, sizes, args);
}

int dlca__ops_cl_layer_norm(dlca_context *ctx, double eps, const dlca_tensor *x, const dlca_tensor *gamma,
                            const dlca_tensor *beta, dlca_tensor *y) {
  const char *fn = "layer_norm";
  size_t rows, n;
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, fn)) || (rc = dlca__tensor_check(ctx, y, fn)) ||
      (rc = dlca__ops_cl_same_shape(x, y, fn, "y")))
    return rc;
  rows_n(x, &rows, &n);
  if ((rc = affine_check(ctx, gamma, beta, n, fn)) || !rows) return rc;
  cl_int aff = gamma != NULL;
  cl_uint nu = (cl_uint)n;
  cl_float e = (cl_float)eps;
  cl_mem g = aff ? gamma->buf : x->buf, b = aff ? beta->buf : x->buf;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof aff, m, sizeof nu, sizeof e};
  const void *args[] = {&x->buf, &g, &b, &aff, &y->buf, &nu, &e};
  return per_row(ctx, "dlca_layer_norm", rows, 7, sizes, args);
}

/* dgamma, dbeta: the row moments into a scratch buffer, then one work-item per column. */
static int grad_affine(dlca_context *ctx, double eps, const dlca_tensor *x, const dlca_tensor *dy, size_t rows,
                       size_t n, dlca_tensor *dgamma, dlca_tensor *dbeta) {
  cl_mem stats;
  int rc = dlca__buffer(ctx, sizeof(float) * 2 * rows, "layer_norm backward: row moments", &stats);
  if (rc) return rc;
  cl_uint nu = (cl_uint)n, ru = (cl_uint)rows;
  cl_float e = (cl_float)eps;
  size_t m = sizeof(cl_mem), s1[] = {m, m, sizeof nu, sizeof e}, s2[] = {m, m, m, m, m, sizeof ru, sizeof nu};
  const void *a1[] = {&x->buf, &stats, &nu, &e},
             *a2[] = {&x->buf, &dy->buf, &stats, &dgamma->buf, &dbeta->buf, &ru, &nu};
  if (!(rc = per_row(ctx, "dlca_layer_norm_stats", rows, 4, s1, a1)))
    rc = flat(ctx, "dlca_layer_norm_dw", n, 7, s2, a2);
  clReleaseMemObject(stats); /* OpenCL keeps it until the queued kernels are done */
  return rc;
}

int dlca__ops_cl_layer_norm_backward(dlca_context *ctx, double eps, const dlca_tensor *x, const dlca_tensor *gamma,
                                     const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dgamma, dlca_tensor *dbeta) {
  const char *fn = "layer_norm backward";
  size_t rows, n;
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, fn)) || (rc = dlca__tensor_check(ctx, dy, fn)) ||
      (rc = dlca__ops_cl_same_shape(x, dy, fn, "dy")) ||
      (dx && ((rc = dlca__tensor_check(ctx, dx, fn)) || (rc = dlca__ops_cl_same_shape(x, dx, fn, "dx")))))
    return rc;
  rows_n(x, &rows, &n);
  if (gamma && (rc = affine_check(ctx, gamma, gamma, n, fn))) return rc;
  if ((rc = affine_check(ctx, dgamma, dbeta, n, fn)) || !rows) return rc;
  cl_int aff = gamma != NULL;
  cl_uint nu = (cl_uint)n;
  cl_float e = (cl_float)eps;
  cl_mem g = aff ? gamma->buf : x->buf;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof aff, m, m, sizeof nu, sizeof e};
  const void *args[] = {&x->buf, &g, &aff, &dy->buf, dx ? &dx->buf : &x->buf, &nu, &e};
  if (dx && (rc = per_row(ctx, "dlca_layer_norm_dx", rows, 7, sizes, args))) return rc;
  return dgamma ? grad_affine(ctx, eps, x, dy, rows, n, dgamma, dbeta) : DLCA_OK;
}

int dlca__ops_cl_dropout(dlca_context *ctx, double p, uint64_t seed, const dlca_tensor *x, dlca_tensor *y) {
  const char *fn = "dropout";
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, fn)) || (rc = dlca__tensor_check(ctx, y, fn)) ||
      (rc = dlca__ops_cl_same_shape(x, y, fn, "y")))
    return rc;
  if (!(p >= 0.0 && p < 1.0)) return dlca__fail(DLCA_EINVAL, "dropout: p = %g, expected 0 <= p < 1", p);
  cl_uint n = (cl_uint)x->n;
  cl_ulong sd = seed, thr = (cl_ulong)ceil(p * 4294967296.0);
  cl_float scale = (cl_float)(1.0 / (1.0 - p));
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof n, sizeof sd, sizeof thr, sizeof scale};
  const void *args[] = {&x->buf, &y->buf, &n, &sd, &thr, &scale};
  return flat(ctx, "dlca_dropout", n, 6, sizes, args);
}
