/* The device path of the rSVD's subspace iteration (lib/ops/rsvd_int.h):
 * Cholesky QR with the Gram matrix, its Cholesky factor and R^-1 on the
 * device (kernels-cl/ops/rsvd.cl), so that no pass waits for the host; one
 * read at the end brings the final R and every pass's flag. The kernels are
 * created once and kept in the scratch while ops.cl's program stays the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cl_elementwise.h"
#include "ops/rsvd_int.h"

enum { K_GAUSS, K_GRAM, K_GSUM, K_CHOL, K_TRMUL, K_AMUL };
static const char *const kname[DLCA__RSVD_NK] = {"dlca_rsvd_gauss", "dlca_rsvd_gram", "dlca_rsvd_gram_sum",
                                                 "dlca_rsvd_chol",  "dlca_rsvd_trmul", "dlca_rsvd_amul"};

size_t dlca__rsvd_chunk(size_t rows) {
  size_t c = (rows + 31) / 32;
  c = (c + 15) / 16 * 16;
  return c < 64 ? 64 : c;
}

void dlca__rsvd_kernels_free(dlca__rsvd_cl *s) {
  for (int i = 0; i < DLCA__RSVD_NK; i++)
    if (s->k[i]) clReleaseKernel(s->k[i]), s->k[i] = NULL;
  s->prog = NULL;
}

int dlca__rsvd_kernels(dlca__rsvd_cl *s) {
  cl_program prog;
  int v, rc = dlca__memo_program(s->ctx, "ops.cl", NULL, &prog);
  if (rc || (rc = dlca__memo_tunable(s->ctx, "ops.cl", "RSVD_WG", &v))) return rc;
  if ((size_t)v > s->ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "ops.cl: RSVD_WG %d is over the device's largest work-group, %zu", v,
                      s->ctx->info.max_work_group);
  if (prog == s->prog && (size_t)v == s->wg) return DLCA_OK;
  dlca__rsvd_kernels_free(s);
  for (int i = 0; !rc && i < DLCA__RSVD_NK; i++) rc = dlca__kernel_create(s->ctx, prog, kname[i], &s->k[i]);
  if (rc) return dlca__rsvd_kernels_free(s), rc;
  s->prog = prog, s->wg = (size_t)v;
  return DLCA_OK;
}

/* Sets kernel i's n arguments and launches it: 1-D over items in RSVD_WG groups where lws is NULL, else gws, lws. */
static int run(dlca__rsvd_cl *s, int i, size_t items, cl_uint dims, const size_t *gws, const size_t *lws, int n,
               const size_t *sizes, const void *const *args) {
  for (int a = 0; a < n; a++) {
    cl_int err = clSetKernelArg(s->k[i], (cl_uint)a, sizes[a], args[a]);
    if (err != CL_SUCCESS) return dlca__fail_cl(err, "%s: argument %d: %s", kname[i], a, dlca__cl_error_name(err));
  }
  size_t g1 = (items + s->wg - 1) / s->wg * s->wg;
  if (!lws) return items ? dlca__launch(s->ctx, s->k[i], kname[i], 1, &g1, &s->wg) : DLCA_OK;
  return dlca__launch(s->ctx, s->k[i], kname[i], dims, gws, lws);
}

int dlca__rsvd_gauss_cl(dlca__rsvd_cl *s, uint64_t seed) {
  cl_uint rows = (cl_uint)s->n, l = (cl_uint)s->l;
  cl_ulong sd = seed;
  size_t sizes[] = {sizeof(cl_mem), sizeof rows, sizeof l, sizeof sd};
  const void *args[] = {&s->z[0], &rows, &l, &sd};
  return run(s, K_GAUSS, s->n * s->l, 1, NULL, NULL, 4, sizes, args);
}

size_t dlca__rsvd_splits(size_t rows, size_t inner, size_t *per) {
  size_t groups = (rows + 63) / 64, sp = (256 + groups - 1) / groups;
  sp = sp > 8 ? 8 : sp;
  *per = ((inner + sp - 1) / sp + 15) / 16 * 16;
  return (inner + *per - 1) / *per;
}

int dlca__rsvd_amul(dlca__rsvd_cl *s, int at, cl_mem x, cl_mem out) {
  size_t rows = at ? s->n : s->m, inner = at ? s->m : s->n, per, sp = dlca__rsvd_splits(rows, inner, &per);
  size_t gws[2] = {16 * ((rows + 63) / 64), 16 * sp}, lws[2] = {16, 16};
  cl_uint n = (cl_uint)s->n, r = (cl_uint)rows, in = (cl_uint)inner, t = (cl_uint)at, pe = (cl_uint)per,
          l = (cl_uint)s->l, np = (cl_uint)sp, cnt = (cl_uint)(rows * s->l);
  cl_mem dst = sp > 1 ? s->ap : out;
  size_t sz[] = {sizeof(cl_mem), sizeof n, sizeof r, sizeof in, sizeof t, sizeof pe, sizeof(cl_mem), sizeof l,
                 sizeof(cl_mem)};
  const void *a[] = {&s->a, &n, &r, &in, &t, &pe, &x, &l, &dst};
  int rc = run(s, K_AMUL, 0, 2, gws, lws, 9, sz, a);
  size_t sz2[] = {sizeof(cl_mem), sizeof np, sizeof cnt, sizeof(cl_mem)};
  const void *a2[] = {&s->ap, &np, &cnt, &out};
  return rc || sp == 1 ? rc : run(s, K_GSUM, rows * s->l, 1, NULL, NULL, 4, sz2, a2);
}

int dlca__rsvd_xf(dlca__rsvd_cl *s, cl_mem x, size_t rows, cl_mem f, size_t kout, int tri, cl_mem out) {
  cl_uint r = (cl_uint)rows, l = (cl_uint)s->l, ko = (cl_uint)kout, t = (cl_uint)tri;
  size_t sz[] = {sizeof(cl_mem), sizeof r, sizeof l, sizeof(cl_mem), sizeof ko, sizeof t, sizeof(cl_mem)};
  const void *a[] = {&x, &r, &l, &f, &ko, &t, &out};
  return run(s, K_TRMUL, rows * kout, 1, NULL, NULL, 7, sz, a);
}

/* s->g <- x^T x (x rows x l): partial sums over row chunks, then their sum in a fixed order. */
static int gram(dlca__rsvd_cl *s, cl_mem x, size_t rows) {
  size_t chunk = dlca__rsvd_chunk(rows), np = (rows + chunk - 1) / chunk, gws[2] = {16 * np, 16}, lws[2] = {16, 16};
  cl_uint r = (cl_uint)rows, l = (cl_uint)s->l, c = (cl_uint)chunk, p = (cl_uint)np, n = l * l;
  size_t sz[] = {sizeof(cl_mem), sizeof r, sizeof l, sizeof c, sizeof(cl_mem)};
  const void *a[] = {&x, &r, &l, &c, &s->part};
  int rc = run(s, K_GRAM, 0, 2, gws, lws, 5, sz, a);
  size_t sz2[] = {sizeof(cl_mem), sizeof p, sizeof n, sizeof(cl_mem)};
  const void *a2[] = {&s->part, &p, &n, &s->g};
  return rc ? rc : run(s, K_GSUM, n, 1, NULL, NULL, 4, sz2, a2);
}

/* One pass: *xs <- x R^-1 through the spare; R into fac's slot r_at (~0: not kept), the flag after the slots. */
static int pass(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, cl_uint r_at) {
  cl_uint l = (cl_uint)s->l, flag = (cl_uint)(2 * s->l * s->l + s->flags++);
  size_t one = 256, sz[] = {sizeof(cl_mem), sizeof l, sizeof(cl_mem), sizeof(cl_mem), sizeof r_at, sizeof flag};
  const void *a[] = {&s->g, &l, &s->f, &s->fac, &r_at, &flag};
  int rc = gram(s, xs[0], rows);
  if (rc || (rc = run(s, K_CHOL, 0, 1, &one, &one, 6, sz, a))) return rc;
  if ((rc = dlca__rsvd_xf(s, xs[0], rows, s->f, s->l, 1, xs[1]))) return rc;
  cl_mem t = xs[0];
  xs[0] = xs[1], xs[1] = t;
  return DLCA_OK;
}

/* `passes` passes of Cholesky QR on x; keep: the R of pass i into fac's slot i. */
static int orth(dlca__rsvd_cl *s, cl_mem *xs, size_t rows, int passes, int keep) {
  int rc = DLCA_OK;
  for (int i = 0; !rc && i < passes; i++) rc = pass(s, xs, rows, keep ? (cl_uint)((size_t)i * s->l * s->l) : ~0u);
  return rc;
}

/* The one read: the flags all 0 and both R finite, then r = R2 R1. */
static int finish(dlca__rsvd_cl *s, double *r, int *ok) {
  size_t l = s->l, n = 2 * l * l + s->flags;
  int rc = dlca__download(s->ctx, s->fac, 0, sizeof(float) * n, s->hg, "rsvd: the factors");
  if (rc) return rc;
  *ok = 1;
  for (size_t i = 0; i < n; i++) *ok &= i < 2 * l * l ? isfinite(s->hg[i]) : s->hg[i] == 0.0f;
  double *rp = s->work, *tmp = s->work + l * l;
  for (size_t i = 0; i < l * l; i++) r[i] = s->hg[i], rp[i] = s->hg[l * l + i];
  dlca__rsvd_accumulate(l, rp, r, tmp);
  return DLCA_OK;
}

int dlca__rsvd_dev_subspace(dlca__rsvd_cl *s, const dlca__rsvd *p, double *r, int *ok) {
  int rc;
  *ok = 0, s->flags = 0;
  if ((rc = dlca__rsvd_gauss_cl(s, p->seed)) || (rc = dlca__rsvd_times_a(s, 0, s->z[0], s->q[0])) ||
      (rc = orth(s, s->q, s->m, p->power_iters ? 1 : 2, 0)))
    return rc;
  for (size_t it = 0; it < p->power_iters; it++)
    if ((rc = dlca__rsvd_times_a(s, 1, s->q[0], s->z[0])) || (rc = orth(s, s->z, s->n, 1, 0)) ||
        (rc = dlca__rsvd_times_a(s, 0, s->z[0], s->q[0])) ||
        (rc = orth(s, s->q, s->m, it + 1 == p->power_iters ? 2 : 1, 0)))
      return rc;
  if ((rc = dlca__rsvd_times_a(s, 1, s->q[0], s->z[0])) || (rc = orth(s, s->z, s->n, 2, 1))) return rc;
  return finish(s, r, ok);
}

/* One pass on its own scratch: q = x R^-1, r (l x l floats) = R, *ok 0 where the device flagged the pass. */
int dlca__rsvd_cl_cholqr(dlca_context *ctx, cl_mem x, size_t rows, size_t l, cl_mem q, float *r, int *ok) {
  if (!l || l > DLCA__RSVD_LMAX || !rows)
    return dlca__fail(DLCA_EINVAL, "rsvd: Cholesky QR of %zu x %zu, expected 1 to %d columns", rows, l,
                      DLCA__RSVD_LMAX);
  dlca__rsvd_cl s = {.ctx = ctx, .l = l};
  size_t chunk = dlca__rsvd_chunk(rows), np = (rows + chunk - 1) / chunk, f = sizeof(float);
  float *h = malloc(f * (2 * l * l + 1));
  cl_mem xs[2] = {x, q};
  int rc = h ? DLCA_OK : dlca__fail(DLCA_ENOMEM, "rsvd: out of host memory");
  if (!rc && !(rc = dlca__buffer(ctx, f * l * l, "rsvd: Gram", &s.g)) && !(rc = dlca__buffer(ctx, f * l * l, "R^-1", &s.f)) &&
      !(rc = dlca__buffer(ctx, f * np * l * l, "rsvd: parts", &s.part)) &&
      !(rc = dlca__buffer(ctx, f * (2 * l * l + 1), "rsvd: factors", &s.fac)) && !(rc = dlca__rsvd_kernels(&s)) &&
      !(rc = pass(&s, xs, rows, 0)) && !(rc = dlca__download(ctx, s.fac, 0, f * (2 * l * l + 1), h, "rsvd: R"))) {
    memcpy(r, h, f * l * l);
    *ok = h[2 * l * l] == 0.0f;
  }
  cl_mem b[] = {s.g, s.f, s.part, s.fac};
  for (int i = 0; i < 4; i++)
    if (b[i]) clReleaseMemObject(b[i]);
  dlca__rsvd_kernels_free(&s);
  free(h);
  return rc;
}

/* One product on its own scratch: out = A x (at 0) or A^T x (at 1), A [m, n]. */
int dlca__rsvd_cl_amul(dlca_context *ctx, cl_mem a, size_t m, size_t n, int at, cl_mem x, size_t l, cl_mem out) {
  if (!l || l > DLCA__RSVD_LMAX || !m || !n)
    return dlca__fail(DLCA_EINVAL, "rsvd: product of %zu x %zu with %zu columns, expected 1 to %d", m, n, l,
                      DLCA__RSVD_LMAX);
  dlca__rsvd_cl s = {.ctx = ctx, .m = m, .n = n, .l = l, .a = a};
  size_t per, rows = at ? n : m, sp = dlca__rsvd_splits(rows, at ? m : n, &per);
  int rc = dlca__buffer(ctx, sizeof(float) * sp * rows * l, "rsvd: parts", &s.ap);
  if (!rc && !(rc = dlca__rsvd_kernels(&s))) rc = dlca__rsvd_amul(&s, at, x, out);
  if (!rc) rc = dlca__finish(ctx, "rsvd: the product");
  if (s.ap) clReleaseMemObject(s.ap);
  dlca__rsvd_kernels_free(&s);
  return rc;
}
