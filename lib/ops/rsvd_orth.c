/* The device rSVD's orthonormalisation (lib/ops/rsvd_int.h): Cholesky QR
 * (Fukaya, Nakatsukasa, Yanagisawa, Yamamoto 2014; shifted, 2020) with the
 * big products on the device through dlca__ops_cl_gemm and the l x l
 * Cholesky factor on the host in double (LAPACKE); Householder QR on the host
 * where that fails. Each R has a positive diagonal, as the twin's. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_blas.h"
#include "ops/rsvd_int.h"

int dlca__rsvd_write(dlca__rsvd_cl *s, cl_mem buf, size_t bytes, const void *src, const char *what) {
  cl_int err = clEnqueueWriteBuffer(s->ctx->queue, buf, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
  return err == CL_SUCCESS ? DLCA_OK
                           : dlca__fail_cl(err, "%s: clEnqueueWriteBuffer: %s", what, dlca__cl_error_name(err));
}

/* out (rows x l) = x (rows x l) times the l x l matrix in s->f. */
static int times_f(dlca__rsvd_cl *s, cl_mem x, size_t rows, cl_mem out) {
  size_t l = s->l;
  dlca__gemm g = {.m = rows, .n = l, .k = l, .alpha = 1.0f, .lda = l, .ldb = l, .ldc = l, .batch = 1};
  return dlca__ops_cl_gemm(s->ctx, &g, x, s->f, out);
}

/* The Gram matrix x^T x into gd (double, l x l); 1 where it is not finite. */
static int gram(dlca__rsvd_cl *s, cl_mem x, size_t rows, double *gd, int *bad) {
  size_t l = s->l;
  dlca__gemm g = {.trans_a = 1, .m = l, .n = l, .k = rows, .alpha = 1.0f, .lda = l, .ldb = l, .ldc = l, .batch = 1};
  int rc = dlca__ops_cl_gemm(s->ctx, &g, x, x, s->g);
  if (!rc) rc = dlca__download(s->ctx, s->g, 0, sizeof(float) * l * l, s->hg, "rsvd: the Gram matrix");
  *bad = 0;
  for (size_t i = 0; !rc && i < l * l; i++) {
    gd[i] = s->hg[i];
    *bad |= !isfinite(gd[i]);
  }
  return rc;
}

void dlca__rsvd_accumulate(size_t l, const double *rp, double *r, double *tmp) {
  for (size_t i = 0; i < l; i++)
    for (size_t j = 0; j < l; j++) {
      double acc = 0;
      for (size_t c = i; c <= j; c++) acc += rp[i * l + c] * r[c * l + j];
      tmp[i * l + j] = acc;
    }
  memcpy(r, tmp, sizeof(double) * l * l);
}

/* Householder QR on the host: x (rows x l) downloaded, its Q (positive R diagonal) uploaded; rp gets R. */
static int host_qr(dlca__rsvd_cl *s, cl_mem x, size_t rows, double *rp) {
  size_t l = s->l, n = rows * l;
  float *f = malloc(sizeof(float) * n);
  double *d = malloc(sizeof(double) * n), *tau = malloc(sizeof(double) * l);
  int rc = f && d && tau ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory (%zu x %zu)", rows, l);
  if (!rc) rc = dlca__download(s->ctx, x, 0, sizeof(float) * n, f, "rsvd: the sketch");
  for (size_t i = 0; !rc && i < n; i++) d[i] = f[i];
  lapack_int e = rc ? 0 : LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)l, d, (lapack_int)l, tau);
  for (size_t i = 0; !rc && !e && i < l; i++)
    for (size_t j = 0; j < l; j++) rp[i * l + j] = j >= i ? d[i * l + j] : 0.0;
  if (!rc && !e)
    e = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)l, (lapack_int)l, d, (lapack_int)l, tau);
  if (!rc && e)
    rc = dlca__fail(DLCA_EINVAL, "rsvd: Householder QR of the %zu x %zu sketch failed (info %d)", rows, l, (int)e);
  for (size_t j = 0; !rc && j < l; j++) {
    double sg = rp[j * l + j] < 0 ? -1.0 : 1.0;
    for (size_t c = 0; c < l; c++) rp[j * l + c] *= sg;
    for (size_t i = 0; i < rows; i++) f[i * l + j] = (float)(sg * d[i * l + j]);
  }
  if (!rc) rc = dlca__upload(s->ctx, x, 0, sizeof(float) * n, f, "rsvd: the sketch's Q");
  free(f), free(d), free(tau);
  return rc;
}

/* The upper Cholesky factor of gd in place (row-major); shifted where needed (*shifted set). 1 where it fails. */
static int cholesky(size_t rows, size_t l, double *gd, int *shifted) {
  double *keep = gd + l * l, tr = 0; /* the caller's work has room for a copy */
  memcpy(keep, gd, sizeof(double) * l * l);
  if (!LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)l, gd, (lapack_int)l)) return 0;
  for (size_t i = 0; i < l; i++) tr += keep[i * l + i];
  double shift = 11.0 * (double)(rows * l + l * (l + 1)) * ldexp(1.0, -24) * tr;
  memcpy(gd, keep, sizeof(double) * l * l);
  for (size_t i = 0; i < l; i++) gd[i * l + i] += shift;
  *shifted = 1;
  return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', (lapack_int)l, gd, (lapack_int)l) != 0;
}

/* One Cholesky QR pass: *xs <- x R^-1 (through the spare); rp gets R. 1 in *fallback where it cannot. */
static int pass(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, double *rp, int *shifted, int *fallback) {
  size_t l = s->l;
  double *gd = s->work;
  int bad, rc = gram(s, xs[0], rows, gd, &bad);
  if (rc) return rc;
  if (bad) return dlca__fail(DLCA_EINVAL, "rsvd: A is not finite (or its products overflow float32)");
  if ((*fallback = cholesky(rows, l, gd, shifted))) return DLCA_OK;
  for (size_t i = 0; i < l; i++)
    for (size_t j = 0; j < l; j++) rp[i * l + j] = j >= i ? gd[i * l + j] : 0.0;
  if (LAPACKE_dtrtri(LAPACK_ROW_MAJOR, 'U', 'N', (lapack_int)l, gd, (lapack_int)l)) return (*fallback = 1), DLCA_OK;
  float *ri = s->hg + l * l; /* not touched again before the next Gram matrix is read back */
  for (size_t i = 0; i < l * l; i++) ri[i] = (float)((i % l) >= (i / l) ? gd[i] : 0.0);
  if ((rc = dlca__rsvd_write(s, s->f, sizeof(float) * l * l, ri, "rsvd: R^-1")) ||
      (rc = times_f(s, xs[0], rows, xs[1])))
    return rc;
  cl_mem t = xs[0];
  xs[0] = xs[1], xs[1] = t;
  return DLCA_OK;
}

int dlca__rsvd_orth(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, int passes, double *r) {
  size_t l = s->l;
  double *rp = s->work + 2 * l * l, *tmp = s->work + 3 * l * l;
  int shifted = 0, fallback = 0, rc = DLCA_OK;
  if (r) {
    memset(r, 0, sizeof(double) * l * l);
    for (size_t i = 0; i < l; i++) r[i * l + i] = 1.0;
  }
  for (int p = 0; !rc && !fallback && p < passes + shifted && p < 4; p++) {
    if ((rc = pass(s, xs, rows, rp, &shifted, &fallback)) || fallback) break;
    if (r) dlca__rsvd_accumulate(l, rp, r, tmp);
  }
  if (rc || !fallback) return rc;
  if ((rc = host_qr(s, xs[0], rows, rp))) return rc;
  if (r) dlca__rsvd_accumulate(l, rp, r, tmp);
  return DLCA_OK;
}
