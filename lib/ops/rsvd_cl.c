/* The randomized SVD on the device (lib/ops/cl_gru.h): the steps of the twin
 * (lib/ops/ref_rsvd.c) with every product with A a GEMM on the device
 * (dlca__ops_cl_gemm), the Gaussian sketch drawn there (kernels-cl/ops/rsvd.cl),
 * and only l x l matrices on the host (Cholesky QR's factors, the SVD of R).
 * Blocking: the host factorizations read the Gram matrices back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"
#include "ops/cl_gru.h"
#include "ops/rsvd_case.h"
#include "ops/rsvd_int.h"

static void release(dlca__rsvd_cl *s) {
  cl_mem *b[] = {&s->q[0], &s->q[1], &s->z[0], &s->z[1], &s->g, &s->f};
  for (int i = 0; i < 6; i++)
    if (*b[i]) clReleaseMemObject(*b[i]), *b[i] = NULL;
  free(s->hg), free(s->work);
}

static int alloc(dlca__rsvd_cl *s) {
  size_t l = s->l, f = sizeof(float);
  const size_t n[] = {s->m * l, s->m * l, s->n * l, s->n * l, l * l, l * l};
  cl_mem *b[] = {&s->q[0], &s->q[1], &s->z[0], &s->z[1], &s->g, &s->f};
  int rc = DLCA_OK;
  for (int i = 0; !rc && i < 6; i++) rc = dlca__buffer(s->ctx, n[i] * f, "rsvd sketch", b[i]);
  s->hg = malloc(f * l * l), s->work = malloc(sizeof(double) * (4 * l * l + 2 * l));
  if (!rc && (!s->hg || !s->work)) rc = dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory");
  return rc;
}

/* out (m x l) = A x (x n x l), or with at: out (n x l) = A^T x (x m x l). */
static int times_a(dlca__rsvd_cl *s, int at, cl_mem x, cl_mem out) {
  dlca__gemm g = {.trans_a = at, .m = at ? s->n : s->m, .n = s->l, .k = at ? s->m : s->n, .alpha = 1.0f,
                  .lda = s->n, .ldb = s->l, .ldc = s->l, .batch = 1};
  return dlca__ops_cl_gemm(s->ctx, &g, s->a, x, out);
}

static int gauss(dlca__rsvd_cl *s, uint64_t seed) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(s->ctx, "RSVD_WG", "dlca_rsvd_gauss", &k, &wg);
  if (rc) return rc;
  cl_uint rows = (cl_uint)s->n, l = (cl_uint)s->l;
  cl_ulong sd = seed;
  size_t sizes[] = {sizeof(cl_mem), sizeof rows, sizeof l, sizeof sd};
  const void *args[] = {&s->z[0], &rows, &l, &sd};
  return dlca__ops_cl_launch(s->ctx, k, "dlca_rsvd_gauss", wg, s->n * s->l, 4, sizes, args);
}

/* Q (s->q[0], m x l) and Z = orth(A^T Q) (s->z[0], n x l) with A^T Q = Z R. */
static int subspace(dlca__rsvd_cl *s, const dlca__rsvd *p, double *r) {
  int rc;
  if ((rc = gauss(s, p->seed)) || (rc = times_a(s, 0, s->z[0], s->q[0])) ||
      (rc = dlca__rsvd_orth(s, s->q, s->m, p->power_iters ? 1 : 2, NULL)))
    return rc;
  for (size_t it = 0; it < p->power_iters; it++)
    if ((rc = times_a(s, 1, s->q[0], s->z[0])) || (rc = dlca__rsvd_orth(s, s->z, s->n, 1, NULL)) ||
        (rc = times_a(s, 0, s->z[0], s->q[0])) ||
        (rc = dlca__rsvd_orth(s, s->q, s->m, it + 1 == p->power_iters ? 2 : 1, NULL)))
      return rc;
  if ((rc = times_a(s, 1, s->q[0], s->z[0]))) return rc;
  return dlca__rsvd_orth(s, s->z, s->n, 2, r);
}

/* out (rows x k) = x (rows x l) times the first k columns of f (l x l, host double), through s->f. */
static int times_small(dlca__rsvd_cl *s, cl_mem x, size_t rows, size_t k, const double *f, cl_mem out, cl_mem buf) {
  size_t l = s->l;
  for (size_t i = 0; i < l; i++)
    for (size_t j = 0; j < k; j++) s->hg[i * k + j] = (float)f[i * l + j];
  int rc = dlca__upload(s->ctx, buf, 0, sizeof(float) * l * k, s->hg, "rsvd: the small factor");
  dlca__gemm g = {.m = rows, .n = k, .k = l, .alpha = 1.0f, .lda = l, .ldb = k, .ldc = k, .batch = 1};
  return rc ? rc : dlca__ops_cl_gemm(s->ctx, &g, x, buf, out);
}

static int shapes(dlca_context *ctx, const dlca__rsvd *p, const dlca_tensor *a, const dlca_tensor *u,
                  const dlca_tensor *sv, const dlca_tensor *v) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, a, "rsvd: A")) || (rc = dlca__tensor_check(ctx, u, "rsvd: U")) ||
      (rc = dlca__tensor_check(ctx, sv, "rsvd: S")) || (rc = dlca__tensor_check(ctx, v, "rsvd: V")))
    return rc;
  if (a->rank != 2) return dlca__fail(DLCA_EINVAL, "rsvd: A has rank %d, expected a matrix [m, n]", a->rank);
  size_t m = a->shape[0], n = a->shape[1], mn = m < n ? m : n, k = p->rank;
  if (!k || k > mn)
    return dlca__fail(DLCA_EINVAL, "rsvd: rank %zu, expected 1 to min(m, n) = %zu (A is %zu x %zu)", k, mn, m, n);
  if (u->n != m * k || sv->n != k || v->n != n * k)
    return dlca__fail(DLCA_EINVAL, "rsvd: U, S, V have %zu, %zu, %zu elements, expected %zu x %zu, %zu, %zu x %zu",
                      u->n, sv->n, v->n, m, k, k, n, k);
  return DLCA_OK;
}

int dlca__ops_cl_rsvd(dlca_context *ctx, const dlca__rsvd *p, const dlca_tensor *a, dlca_tensor *u, dlca_tensor *sv,
                      dlca_tensor *v, double *s_host) {
  int rc = shapes(ctx, p, a, u, sv, v);
  if (rc) return rc;
  dlca__rsvd_cl s = {.ctx = ctx, .m = a->shape[0], .n = a->shape[1], .a = a->buf};
  size_t mn = s.m < s.n ? s.m : s.n, k = p->rank;
  s.l = k + p->oversample < mn ? k + p->oversample : mn;
  size_t l = s.l;
  double *small = malloc(sizeof(double) * (4 * l * l + l));
  if (!small) return dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory");
  double *r = small, *ur = small + l * l, *vr = small + 2 * l * l, *sg = small + 3 * l * l;
  if (!(rc = alloc(&s)) && !(rc = subspace(&s, p, r)) && !(rc = dlca__rsvd_small_svd(l, r, ur, sg, vr)) &&
      !(rc = times_small(&s, s.q[0], s.m, k, ur, u->buf, s.g)))
    rc = times_small(&s, s.z[0], s.n, k, vr, v->buf, s.f);
  for (size_t i = 0; !rc && i < k; i++) s.hg[i] = (float)sg[i];
  if (!rc) rc = dlca__upload(ctx, sv->buf, 0, sizeof(float) * k, s.hg, "rsvd: S");
  if (!rc && s_host) memcpy(s_host, sg, sizeof(double) * k);
  release(&s);
  free(small);
  return rc;
}

/* r's slots for the file's outputs (an rsvd case has no grads). */
static int slots(const dlca__ops_vector *v, dlca__ops_result *r) {
  memset(r, 0, sizeof *r);
  r->n_out = v->outputs.n;
  r->out = calloc(r->n_out + 1, sizeof(double *));
  int bad = !r->out;
  for (size_t i = 0; !bad && i < r->n_out; i++) bad = !(r->out[i] = calloc(v->outputs.t[i].n + 1, sizeof(double)));
  return bad ? dlca__fail(DLCA_ENOMEM, "%s: out of memory for the results", v->path) : DLCA_OK;
}

/* The rsvd case on the device: A uploaded as float32, U, S, V downloaded, the README's conditions checked. */
int dlca__ops_cl_run_rsvd(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__rsvd p;
  const dlca__ops_tensor *a;
  double *s, orth, err;
  int rc = slots(v, r);
  if (rc || (rc = dlca__rsvd_case(v, &p, &a, &s, r))) return dlca__ops_result_free(r), rc;
  size_t m = a->shape[0], n = a->shape[1], k = p.rank, sh[2][2] = {{m, k}, {n, k}};
  float *f = malloc(sizeof(float) * (m * n + (m + n) * k));
  double *ud = malloc(sizeof(double) * (m + n) * k);
  dlca_tensor *ta = NULL, *tu = NULL, *ts = NULL, *tv = NULL;
  if (!f || !ud) rc = dlca__fail(DLCA_ENOMEM, "%s: out of host memory", v->path);
  for (size_t i = 0; !rc && i < m * n; i++) f[i] = (float)a->data[i];
  if (!rc && !(rc = dlca_tensor_new(ctx, 2, a->shape, &ta)) && !(rc = dlca_tensor_upload(ta, f, m * n)) &&
      !(rc = dlca_tensor_new(ctx, 2, sh[0], &tu)) && !(rc = dlca_tensor_new(ctx, 1, &k, &ts)) &&
      !(rc = dlca_tensor_new(ctx, 2, sh[1], &tv)) && !(rc = dlca__ops_cl_rsvd(ctx, &p, ta, tu, ts, tv, NULL)) &&
      !(rc = dlca_tensor_download(tu, f, m * k)) && !(rc = dlca_tensor_download(tv, f + m * k, n * k)) &&
      !(rc = dlca_tensor_download(ts, f + (m + n) * k, k))) {
    for (size_t i = 0; i < (m + n) * k; i++) ud[i] = f[i];
    for (size_t i = 0; i < k; i++) s[i] = f[(m + n) * k + i];
    rc = dlca__rsvd_case_verdict(v, m, n, k, a->data, ud, s, ud + m * k, &orth, &err);
  }
  dlca_tensor_free(ta), dlca_tensor_free(tu), dlca_tensor_free(ts), dlca_tensor_free(tv);
  free(f), free(ud);
  if (rc) dlca__ops_result_free(r);
  return rc;
}
