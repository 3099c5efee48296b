/* The public GEMM and dense (include/dlca_cl/ops.h) on h-blas's launchers
 * (lib/ops/cl_blas.h): shapes checked by name, a rank-3 operand a strided
 * batch (a rank-2 one shared by every batch, stride 0), gradients of a
 * shared operand summed over the batch in a fixed order. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/api.h"
#include "ops/cl_blas.h"

_Static_assert((int)DLCA_ACT_COUNT == (int)DLCA__ACT_COUNT && (int)DLCA_ACT_TANH == (int)DLCA__ACT_tanh, "act");

int dlca__api_gemm_plan(const char *fn, int ta, int tb, const dlca_tensor *a, const dlca_tensor *b, dlca__gemm_plan *p,
                        dlca__shape *ys) {
  if (a->rank < 2 || a->rank > 3 || b->rank < 2 || b->rank > 3)
    return dlca__fail(DLCA_EINVAL, "%s: a has rank %d, b rank %d; each must be 2 (a matrix) or 3 (a batch)", fn,
                      a->rank, b->rank);
  p->a3 = a->rank == 3, p->b3 = b->rank == 3;
  if (p->a3 && p->b3 && a->shape[0] != b->shape[0])
    return dlca__fail(DLCA_EINVAL, "%s: a has %zu batches, b %zu", fn, a->shape[0], b->shape[0]);
  p->batch = p->a3 ? a->shape[0] : p->b3 ? b->shape[0] : 1;
  size_t ar = a->shape[p->a3], ac = a->shape[p->a3 + 1], br = b->shape[p->b3], bc = b->shape[p->b3 + 1];
  size_t kb = tb ? bc : br;
  p->m = ta ? ac : ar, p->k = ta ? ar : ac, p->n = tb ? br : bc;
  if (p->k != kb)
    return dlca__fail(DLCA_EINVAL, "%s: op(a) is %zu x %zu, op(b) %zu x %zu: the inner sizes differ", fn, p->m, p->k,
                      kb, p->n);
  *ys = p->a3 || p->b3 ? (dlca__shape){3, {p->batch, p->m, p->n}} : (dlca__shape){2, {p->m, p->n}};
  return DLCA_OK;
}

/* C'[i] = alpha op(A'[i]) op(B'[i]) + beta C'[i] with op(A') M x K, op(B') K x N, stored row-major;
 * sa, sb: A's and B's batch strides (0: shared). */
static int run(dlca_context *ctx, int ta, int tb, size_t M, size_t N, size_t K, float alpha, float beta, cl_mem A,
               size_t sa, cl_mem B, size_t sb, cl_mem C, size_t batch) {
  dlca__gemm g = {ta, tb, M, N, K, alpha, beta, ta ? M : K, tb ? K : N, N, 0, 0, 0, batch, sa, sb, M * N};
  if (!g.lda) g.lda = 1;
  if (!g.ldb) g.ldb = 1;
  if (!g.ldc) g.ldc = 1;
  return dlca__ops_cl_gemm(ctx, &g, A, B, C);
}

static int copy(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst) {
  if (!src->n) return DLCA_OK;
  cl_int err = clEnqueueCopyBuffer(ctx->queue, src->buf, dst->buf, 0, 0, sizeof(float) * src->n, 0, NULL, NULL);
  return err == CL_SUCCESS ? DLCA_OK : dlca__fail_cl(err, "gemm: copying c into y: %s", dlca__cl_error_name(err));
}

int dlca_gemm(int trans_a, int trans_b, float alpha, const dlca_tensor *a, const dlca_tensor *b, float beta,
              const dlca_tensor *c, dlca_tensor *y) {
  static const char *const names[] = {"a", "b", "c", "y"};
  const dlca_tensor *t[] = {a, b, c, y};
  dlca_context *ctx;
  dlca__gemm_plan p;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_fwd("dlca_gemm", &ctx, 4, t, names, 1u << 2)) ||
      (rc = dlca__api_gemm_plan("dlca_gemm", trans_a, trans_b, a, b, &p, &ys)) ||
      (rc = dlca__api_shape("dlca_gemm", "y", y, &ys)) || (c && (rc = dlca__api_shape("dlca_gemm", "c", c, &ys))))
    return rc;
  if (c == y) return dlca__fail(DLCA_EINVAL, "dlca_gemm: c and y are the same tensor (y is written first)");
  if (!c || beta == 0.0f) beta = 0.0f, c = NULL;
  if ((c && (rc = copy(ctx, c, y))) || (rc = run(ctx, trans_a, trans_b, p.m, p.n, p.k, alpha, beta, a->buf,
                                                 p.a3 ? p.m * p.k : 0, b->buf, p.b3 ? p.k * p.n : 0, y->buf, p.batch)))
    return rc;
  dlca__tape_rec r = {
      .kind = DLCA__T_gemm, .in = {a, b, c}, .out = y, .alpha = alpha, .beta = beta, .ta = trans_a, .tb = trans_b};
  return dlca__tape_record(ctx, &r);
}

/* A one-element tensor holding x, filled on the queue. */
static int scalar(dlca_context *ctx, float x, dlca_tensor **out) {
  int rc = dlca_tensor_new(ctx, 0, NULL, out);
  if (rc) return rc;
  cl_int err = clEnqueueFillBuffer(ctx->queue, (*out)->buf, &x, sizeof x, 0, sizeof x, 0, NULL, NULL);
  if (err == CL_SUCCESS) return DLCA_OK;
  dlca_tensor_free(*out), *out = NULL;
  return dlca__fail_cl(err, "gemm backward: filling a scalar: %s", dlca__cl_error_name(err));
}

/* The gradient of operand `which` (0: a, 1: b) into d, of its shape: one GEMM per batch; a
 * shared operand's per-batch gradients go to a scratch [batch, r, c] summed over axis 0. */
static int operand_grad(dlca_context *ctx, const dlca__gemm_plan *p, int which, int ta, int tb, float alpha,
                        const dlca_tensor *a, const dlca_tensor *b, const dlca_tensor *dy, dlca_tensor *d) {
  int shared = p->batch > 1 && !(which ? p->b3 : p->a3), rc = DLCA_OK;
  dlca_tensor *tmp = NULL, *out = d;
  size_t sdy = p->m * p->n, sa = p->a3 ? p->m * p->k : 0, sb = p->b3 ? p->k * p->n : 0;
  if (shared) {
    size_t sh[3] = {p->batch, d->shape[0], d->shape[1]};
    if ((rc = dlca_tensor_new(ctx, 3, sh, &tmp))) return rc;
    out = tmp;
  }
  if (which == 0 && !ta)
    rc = run(ctx, 0, !tb, p->m, p->k, p->n, alpha, 0, dy->buf, sdy, b->buf, sb, out->buf, p->batch);
  if (which == 0 && ta) rc = run(ctx, tb, 1, p->k, p->m, p->n, alpha, 0, b->buf, sb, dy->buf, sdy, out->buf, p->batch);
  if (which == 1 && !tb)
    rc = run(ctx, !ta, 0, p->k, p->n, p->m, alpha, 0, a->buf, sa, dy->buf, sdy, out->buf, p->batch);
  if (which == 1 && tb) rc = run(ctx, 1, ta, p->n, p->k, p->m, alpha, 0, dy->buf, sdy, a->buf, sa, out->buf, p->batch);
  if (!rc && shared) rc = dlca__ops_cl_reduce_raw(ctx, DLCA__R_sum, tmp, 1u, d);
  dlca_tensor_free(tmp); /* released once the queued kernels are done */
  return rc;
}

int dlca__api_gemm_grads(dlca_context *ctx, const dlca__gemm_plan *p, int ta, int tb, float alpha, float beta,
                         const dlca_tensor *a, const dlca_tensor *b, const dlca_tensor *dy, dlca_tensor *da,
                         dlca_tensor *db, dlca_tensor *dc) {
  int rc = DLCA_OK;
  if (da && (rc = operand_grad(ctx, p, 0, ta, tb, alpha, a, b, dy, da))) return rc;
  if (db && (rc = operand_grad(ctx, p, 1, ta, tb, alpha, a, b, dy, db))) return rc;
  if (!dc) return DLCA_OK;
  dlca_tensor *s;
  if ((rc = scalar(ctx, beta, &s))) return rc;
  rc = dlca__ops_cl_binary(ctx, DLCA__B_mul, dy, s, dc);
  dlca_tensor_free(s);
  return rc;
}

int dlca_gemm_backward(int trans_a, int trans_b, float alpha, const dlca_tensor *a, const dlca_tensor *b, float beta,
                       const dlca_tensor *dy, dlca_tensor *da, dlca_tensor *db, dlca_tensor *dc) {
  static const char *const names[] = {"a", "b", "dy", "da", "db", "dc"};
  const dlca_tensor *t[] = {a, b, dy, da, db, dc};
  const char *f = "dlca_gemm_backward";
  dlca_context *ctx;
  dlca__gemm_plan p;
  dlca__shape ys, as, bs;
  int rc;
  if ((rc = dlca__api_ctx(f, &ctx, 6, t, names, 7u << 3)) ||
      (rc = dlca__api_gemm_plan(f, trans_a, trans_b, a, b, &p, &ys)) || (rc = dlca__api_shape(f, "dy", dy, &ys)) ||
      (dc && (rc = dlca__api_shape(f, "dc", dc, &ys))))
    return rc;
  as = dlca__ops_cl_shape(a), bs = dlca__ops_cl_shape(b);
  if ((da && (rc = dlca__api_shape(f, "da", da, &as))) || (db && (rc = dlca__api_shape(f, "db", db, &bs)))) return rc;
  return dlca__api_gemm_grads(ctx, &p, trans_a, trans_b, alpha, beta, a, b, dy, da, db, dc);
}

/* x [N,in], w [out,in], b [out] (optional): y's shape [N,out]. */
static int dense_plan(const char *fn, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *b,
                      dlca__shape *ys) {
  if (x->rank != 2 || w->rank != 2 || x->shape[1] != w->shape[1]) {
    char sx[96], sw[96];
    dlca__tensor_shape_text(x, sx, sizeof sx), dlca__tensor_shape_text(w, sw, sizeof sw);
    return dlca__fail(DLCA_EINVAL, "%s: x %s and w %s: expected x [N, in] and w [out, in]", fn, sx, sw);
  }
  *ys = (dlca__shape){2, {x->shape[0], w->shape[0]}};
  dlca__shape bsh = {1, {w->shape[0]}};
  return b ? dlca__api_shape(fn, "b", b, &bsh) : DLCA_OK;
}

static int act_ok(const char *fn, dlca_activation act) {
  return (unsigned)act < DLCA_ACT_COUNT ? DLCA_OK : dlca__fail(DLCA_EINVAL, "%s: no activation %d", fn, (int)act);
}

int dlca_dense(dlca_activation act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *b, dlca_tensor *y) {
  static const char *const names[] = {"x", "w", "b", "y"};
  const dlca_tensor *t[] = {x, w, b, y};
  dlca_context *ctx;
  dlca__shape ys;
  int rc;
  if ((rc = act_ok("dlca_dense", act)) || (rc = dlca__api_fwd("dlca_dense", &ctx, 4, t, names, 1u << 2)) ||
      (rc = dense_plan("dlca_dense", x, w, b, &ys)) || (rc = dlca__api_shape("dlca_dense", "y", y, &ys)) ||
      (rc = dlca__ops_cl_dense(ctx, (dlca__act)act, x, w, b, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_dense, .fn = (int)act, .in = {x, w, b}, .out = y};
  return dlca__tape_record(ctx, &r);
}

int dlca__api_dense_grads(dlca_context *ctx, int act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *y,
                          const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db) {
  dlca_tensor *dz;
  int rc = dlca_tensor_new(ctx, y->rank, y->shape, &dz);
  if (rc) return rc;
  rc = dlca__ops_cl_dense_backward(ctx, (dlca__act)act, x, w, y, dy, dz, dx, dw, db);
  dlca_tensor_free(dz);
  return rc;
}

int dlca_dense_backward(dlca_activation act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *y,
                        const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db) {
  static const char *const names[] = {"x", "w", "y", "dy", "dx", "dw", "db"};
  const dlca_tensor *t[] = {x, w, y, dy, dx, dw, db};
  const char *f = "dlca_dense_backward";
  dlca_context *ctx;
  dlca__shape ys, ws, xs;
  int rc;
  if ((rc = act_ok(f, act)) || (rc = dlca__api_ctx(f, &ctx, 7, t, names, 5u << 4)) ||
      (rc = dense_plan(f, x, w, NULL, &ys)) || (rc = dlca__api_shape(f, "y", y, &ys)) ||
      (db && (rc = dlca__api_shape(f, "db", db, &(dlca__shape){1, {w->shape[0]}}))) ||
      (rc = dlca__api_shape(f, "dy", dy, &ys)) ||
      (ws = dlca__ops_cl_shape(w), rc = dlca__api_shape(f, "dw", dw, &ws)) ||
      (dx && (xs = dlca__ops_cl_shape(x), rc = dlca__api_shape(f, "dx", dx, &xs))))
    return rc;
  return dlca__api_dense_grads(ctx, (int)act, x, w, y, dy, dx, dw, db);
}
