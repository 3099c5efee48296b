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

static void destroy(dlca__rsvd_cl *s) {
  if (!s) return;
  cl_mem *b[] = {&s->q[0], &s->q[1], &s->z[0], &s->z[1], &s->g, &s->f, &s->part, &s->fac, &s->ap};
  for (int i = 0; i < 9; i++)
    if (*b[i]) clReleaseMemObject(*b[i]);
  dlca__rsvd_kernels_free(s);
  free(s->hg), free(s->work), free(s->small), free(s);
}

void dlca__rsvd_scratch_free(dlca_context *ctx) {
  destroy(ctx->rsvd_scratch);
  ctx->rsvd_scratch = NULL;
}

/* The context's scratch, taken out of it (a new one where none is there or another call holds it). */
static int take(dlca_context *ctx, dlca__rsvd_cl **out) {
  pthread_mutex_lock(&ctx->lock);
  *out = ctx->rsvd_scratch, ctx->rsvd_scratch = NULL;
  pthread_mutex_unlock(&ctx->lock);
  if (!*out && !(*out = calloc(1, sizeof **out))) return dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory");
  (*out)->ctx = ctx;
  return DLCA_OK;
}

/* Gives s back to the context (after the queue drains where the call failed: writes from s->hg may be queued). */
static void give_back(dlca__rsvd_cl *s, int rc) {
  dlca_context *ctx = s->ctx;
  if (rc) clFinish(ctx->queue);
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->rsvd_scratch) ctx->rsvd_scratch = s, s = NULL;
  pthread_mutex_unlock(&ctx->lock);
  destroy(s);
}

/* Device buffers and host arrays for s->m, s->n, s->l, kept where they are large enough. */
static int fit(dlca__rsvd_cl *s, int dev) {
  size_t l = s->l, f = sizeof(float), rows = s->m > s->n ? s->m : s->n, chunk = dlca__rsvd_chunk(rows), per;
  size_t np = dev ? (rows + chunk - 1) / chunk : 1, sm = dlca__rsvd_splits(s->m, s->n, &per) * s->m * l;
  size_t sn = dlca__rsvd_splits(s->n, s->m, &per) * s->n * l, ap = !s->own ? 1 : sm > sn ? sm : sn;
  const size_t n[] = {s->m * l, s->m * l, s->n * l, s->n * l, l * l, l * l, np * l * l, 2 * l * l + DLCA__RSVD_FLAGS,
                      ap};
  cl_mem *b[] = {&s->q[0], &s->q[1], &s->z[0], &s->z[1], &s->g, &s->f, &s->part, &s->fac, &s->ap};
  int rc = DLCA_OK;
  for (int i = 0; !rc && i < 9; i++) {
    if (s->cap[i] >= n[i] * f) continue;
    if (*b[i]) clReleaseMemObject(*b[i]), *b[i] = NULL, s->cap[i] = 0;
    if (!(rc = dlca__buffer(s->ctx, n[i] * f, "rsvd sketch", b[i]))) s->cap[i] = n[i] * f;
  }
  if (rc || s->host_l >= l) return rc;
  free(s->hg), free(s->work), free(s->small);
  s->hg = malloc(f * (4 * l * l + DLCA__RSVD_FLAGS)), s->work = malloc(sizeof(double) * (4 * l * l + 2 * l));
  s->small = malloc(sizeof(double) * (4 * l * l + l));
  s->host_l = s->hg && s->work && s->small ? l : 0;
  return s->host_l ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory");
}

int dlca__rsvd_times_a(dlca__rsvd_cl *s, int at, cl_mem x, cl_mem out) {
  if (s->own) return dlca__rsvd_amul(s, at, x, out);
  dlca__gemm g = {.trans_a = at,
                  .m = at ? s->n : s->m,
                  .n = s->l,
                  .k = at ? s->m : s->n,
                  .alpha = 1.0f,
                  .lda = s->n,
                  .ldb = s->l,
                  .ldc = s->l,
                  .batch = 1};
  return dlca__ops_cl_gemm(s->ctx, &g, s->a, x, out);
}

/* Q (s->q[0], m x l) and Z = orth(A^T Q) (s->z[0], n x l) with A^T Q = Z R. */
static int subspace(dlca__rsvd_cl *s, const dlca__rsvd *p, double *r) {
  int rc;
  if ((rc = dlca__rsvd_gauss_cl(s, p->seed)) || (rc = dlca__rsvd_times_a(s, 0, s->z[0], s->q[0])) ||
      (rc = dlca__rsvd_orth(s, s->q, s->m, p->power_iters ? 1 : 2, NULL)))
    return rc;
  for (size_t it = 0; it < p->power_iters; it++)
    if ((rc = dlca__rsvd_times_a(s, 1, s->q[0], s->z[0])) || (rc = dlca__rsvd_orth(s, s->z, s->n, 1, NULL)) ||
        (rc = dlca__rsvd_times_a(s, 0, s->z[0], s->q[0])) ||
        (rc = dlca__rsvd_orth(s, s->q, s->m, it + 1 == p->power_iters ? 2 : 1, NULL)))
      return rc;
  if ((rc = dlca__rsvd_times_a(s, 1, s->q[0], s->z[0]))) return rc;
  return dlca__rsvd_orth(s, s->z, s->n, 2, r);
}

/* out (rows x k) = x (rows x l) times the first k columns of f (l x l, host double), through buf; slot 2 or 3 of
 * s->hg holds the floats until the queue drains. */
static int times_small(dlca__rsvd_cl *s, cl_mem x, size_t rows, size_t k, const double *f, cl_mem out, cl_mem buf,
                       int slot) {
  size_t l = s->l;
  float *h = s->hg + (size_t)slot * l * l;
  for (size_t i = 0; i < l; i++)
    for (size_t j = 0; j < k; j++) h[i * k + j] = (float)f[i * l + j];
  int rc = dlca__rsvd_write(s, buf, sizeof(float) * l * k, h, "rsvd: the small factor");
  return rc ? rc : dlca__rsvd_xf(s, x, rows, buf, k, 0, out);
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

/* The device path where the kernels can hold l and q, and RSVD_DEV (a tunable of ops.cl, 1 by default) is on. */
/* The device path where the kernels can hold l and q, and RSVD_DEV (a tunable of ops.cl, 1 by default) is on;
 * s->own where RSVD_GEMM is on too. */
static int use_dev(dlca__rsvd_cl *s, const dlca__rsvd *p, int *dev) {
  int on, own, rc = dlca__memo_tunable(s->ctx, "ops.cl", "RSVD_DEV", &on);
  if (!rc) rc = dlca__memo_tunable(s->ctx, "ops.cl", "RSVD_GEMM", &own);
  size_t rows = s->m > s->n ? s->m : s->n; /* the kernels count rows x l in 32 bits */
  *dev = !rc && s->l <= DLCA__RSVD_LMAX && rows * DLCA__RSVD_LMAX * 8 < ((size_t)1 << 32) &&
         s->ctx->info.max_work_group >= 256 && s->ctx->info.local_mem >= 40000;
  s->own = *dev && own;
  *dev = *dev && on && 2 * p->power_iters + 4 <= DLCA__RSVD_FLAGS;
  return rc;
}

/* U, S, V from Q, Z and the R of A^T Q = Z R (in s->small). */
static int finish(dlca__rsvd_cl *s, size_t k, dlca_tensor *u, dlca_tensor *sv, dlca_tensor *v, double *s_host) {
  size_t l = s->l;
  double *r = s->small, *ur = r + l * l, *vr = r + 2 * l * l, *sg = r + 3 * l * l;
  int rc;
  if ((rc = dlca__rsvd_small_svd(l, r, ur, sg, vr)) || (rc = times_small(s, s->q[0], s->m, k, ur, u->buf, s->g, 2)) ||
      (rc = times_small(s, s->z[0], s->n, k, vr, v->buf, s->f, 3)))
    return rc;
  for (size_t i = 0; i < k; i++) s->hg[i] = (float)sg[i];
  rc = dlca__upload(s->ctx, sv->buf, 0, sizeof(float) * k, s->hg, "rsvd: S"); /* drains the writes before */
  if (!rc && s_host) memcpy(s_host, sg, sizeof(double) * k);
  return rc;
}

int dlca__ops_cl_rsvd(dlca_context *ctx, const dlca__rsvd *p, const dlca_tensor *a, dlca_tensor *u, dlca_tensor *sv,
                      dlca_tensor *v, double *s_host) {
  dlca__rsvd_cl *s;
  int rc = shapes(ctx, p, a, u, sv, v), dev = 0, ok = 0;
  if (rc || (rc = take(ctx, &s))) return rc;
  s->m = a->shape[0], s->n = a->shape[1], s->a = a->buf;
  size_t mn = s->m < s->n ? s->m : s->n, k = p->rank;
  s->l = k + p->oversample < mn ? k + p->oversample : mn;
  if (!(rc = use_dev(s, p, &dev)) && !(rc = fit(s, dev)) && !(rc = dlca__rsvd_kernels(s)) && dev)
    rc = dlca__rsvd_dev_subspace(s, p, s->small, &ok);
  if (!rc && !ok) rc = subspace(s, p, s->small);
  if (!rc) rc = finish(s, k, u, sv, v, s_host);
  give_back(s, rc);
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
