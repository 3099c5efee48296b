/* The CPU twin of the randomized SVD (lib/ops/ref_gru.h), in double: Halko,
 * Martinsson and Tropp 2011, algorithm 4.4 (randomized subspace iteration,
 * re-orthonormalised after every product) then algorithm 5.1 (direct SVD).
 * The steps are the device's (lib/ops/rsvd_cl.c): B^T = A^T Q is factored as
 * Q2 R2, and the small SVD is of R2^T, so that U = Q Ur and V = Q2 Vr. Each
 * QR has a positive diagonal (the unique one, as Cholesky QR gives) and each
 * singular pair its largest |Ur| entry positive, so twin and device agree. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_gru.h"

double dlca__rsvd_gauss(uint64_t seed, uint32_t i, uint32_t j) {
  double u1 = ((double)dlca_rng_u32(seed, i, 2 * j) + 0.5) / 4294967296.0;
  double u2 = ((double)dlca_rng_u32(seed, i, 2 * j + 1) + 0.5) / 4294967296.0;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int dlca__rsvd_check(const dlca__rsvd *p, size_t m, size_t n, const double *a, const float *af) {
  size_t mn = m < n ? m : n;
  if (!m || !n) return dlca__fail(DLCA_EINVAL, "rsvd: the matrix is %zu x %zu, expected at least 1 x 1", m, n);
  if (!p->rank || p->rank > mn)
    return dlca__fail(DLCA_EINVAL, "rsvd: rank %zu, expected 1 to min(m, n) = %zu (A is %zu x %zu)", p->rank, mn, m,
                      n);
  for (size_t i = 0; i < m * n; i++) {
    double x = a ? a[i] : (double)af[i];
    if (!isfinite(x)) return dlca__fail(DLCA_EINVAL, "rsvd: A[%zu, %zu] = %g is not finite", i / n, i % n, x);
  }
  return DLCA_OK;
}

/* y [m, l] = A x (x [n, l]), or with at: y [n, l] = A^T x (x [m, l]). */
static void mul(size_t m, size_t n, const double *a, int at, size_t l, const double *x, double *y) {
  size_t rows = at ? n : m, inner = at ? m : n;
  memset(y, 0, sizeof(double) * rows * l);
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < inner; c++) {
      double e = at ? a[c * n + r] : a[r * n + c];
      for (size_t j = 0; j < l; j++) y[r * l + j] += e * x[c * l + j];
    }
}

/* y [rows, l] <- its Q factor, with R's diagonal made positive; r (l x l, may be NULL) gets R; tau 2l scratch. */
static int orth(size_t rows, size_t l, double *y, double *r, double *tau) {
  lapack_int e = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)l, y, (lapack_int)l, tau);
  double *sign = tau + l;
  for (size_t i = 0; i < l; i++) {
    sign[i] = y[i * l + i] < 0 ? -1.0 : 1.0;
    for (size_t j = 0; r && j < l; j++) r[i * l + j] = j >= i ? sign[i] * y[i * l + j] : 0.0;
  }
  if (!e) e = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)l, (lapack_int)l, y, (lapack_int)l, tau);
  if (e) return dlca__fail(DLCA_EINVAL, "rsvd: LAPACK QR of a %zu x %zu sketch failed (info %d)", rows, l, (int)e);
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < l; j++) y[i * l + j] *= sign[j];
  return DLCA_OK;
}

int dlca__rsvd_small_svd(size_t l, const double *r, double *ur, double *s, double *vr) {
  double *b = malloc(sizeof(double) * l * l), *vt = malloc(sizeof(double) * l * l), *sup = malloc(sizeof(double) * l);
  lapack_int e = -1;
  if (b && vt && sup) {
    for (size_t i = 0; i < l; i++)
      for (size_t j = 0; j < l; j++) b[i * l + j] = r[j * l + i]; /* R^T */
    e = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', (lapack_int)l, (lapack_int)l, b, (lapack_int)l, s, ur,
                       (lapack_int)l, vt, (lapack_int)l, sup);
  }
  for (size_t j = 0; !e && j < l; j++) {
    size_t at = 0;
    for (size_t i = 1; i < l; i++) at = fabs(ur[i * l + j]) > fabs(ur[at * l + j]) ? i : at;
    double sg = ur[at * l + j] < 0 ? -1.0 : 1.0;
    for (size_t i = 0; i < l; i++) ur[i * l + j] *= sg, vr[i * l + j] = sg * vt[j * l + i];
  }
  free(b), free(vt), free(sup);
  if (e) return dlca__fail(e < 0 && !b ? DLCA_ENOMEM : DLCA_EINVAL, "rsvd: SVD of the %zu x %zu factor failed", l, l);
  return DLCA_OK;
}

/* out [rows, k] = q [rows, l] times the first k columns of f [l, l]. */
static void take(size_t rows, size_t l, size_t k, const double *q, const double *f, double *out) {
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < k; j++) {
      double acc = 0;
      for (size_t c = 0; c < l; c++) acc += q[i * l + c] * f[c * l + j];
      out[i * k + j] = acc;
    }
}

/* The subspace iteration: q [m, l] orthonormal, z [n, l] scratch. */
static int range(const dlca__rsvd *p, size_t m, size_t n, const double *a, size_t l, double *q, double *z,
                 double *tau) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < l; j++) z[i * l + j] = dlca__rsvd_gauss(p->seed, (uint32_t)i, (uint32_t)j);
  mul(m, n, a, 0, l, z, q);
  int rc = orth(m, l, q, NULL, tau);
  for (size_t it = 0; !rc && it < p->power_iters; it++) {
    mul(m, n, a, 1, l, q, z);
    if (!(rc = orth(n, l, z, NULL, tau))) {
      mul(m, n, a, 0, l, z, q);
      rc = orth(m, l, q, NULL, tau);
    }
  }
  return rc;
}

int dlca__ref_rsvd(const dlca__rsvd *p, size_t m, size_t n, const double *a, double *u, double *s, double *v) {
  int rc = dlca__rsvd_check(p, m, n, a, NULL);
  if (rc) return rc;
  size_t mn = m < n ? m : n, l = p->rank + p->oversample < mn ? p->rank + p->oversample : mn, k = p->rank;
  double *q = malloc(sizeof(double) * m * l), *z = malloc(sizeof(double) * n * l);
  double *sm = malloc(sizeof(double) * (4 * l * l + 3 * l));
  if (!q || !z || !sm) rc = dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory (%zu x %zu, %zu columns)", m, n, l);
  double *r = sm, *ur = sm + l * l, *vr = sm + 2 * l * l, *sv = sm + 3 * l * l, *tau = sv + l;
  if (!rc) rc = range(p, m, n, a, l, q, z, tau);
  if (!rc) {
    mul(m, n, a, 1, l, q, z); /* B^T = A^T Q = Q2 R2 */
    rc = orth(n, l, z, r, tau);
  }
  if (!rc) rc = dlca__rsvd_small_svd(l, r, ur, sv, vr);
  if (!rc) {
    take(m, l, k, q, ur, u), take(n, l, k, z, vr, v);
    memcpy(s, sv, sizeof(double) * k);
  }
  free(q), free(z), free(sm);
  return rc;
}

void dlca__rsvd_quality(size_t m, size_t n, size_t k, const double *a, const double *u, const double *s,
                        const double *v, double *orth_err, double *err) {
  double o = 0, e = 0;
  for (int w = 0; w < 2; w++) {
    const double *x = w ? v : u;
    size_t rows = w ? n : m;
    for (size_t i = 0; i < k; i++)
      for (size_t j = 0; j < k; j++) {
        double d = 0;
        for (size_t r = 0; r < rows; r++) d += x[r * k + i] * x[r * k + j];
        o = fmax(o, fabs(d - (i == j)));
      }
  }
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double d = a[i * n + j];
      for (size_t c = 0; c < k; c++) d -= u[i * k + c] * s[c] * v[j * k + c];
      e += d * d;
    }
  *orth_err = o, *err = sqrt(e);
}
