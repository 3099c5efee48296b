/* The dense layer on the device (lib/ops/cl_blas.h): one CLBlast GEMM, then
 * kernels-cl/ops/dense.cl's fused bias + activation; the backward's dz,
 * GEMMs for dx and dw, and the bias gradient as column sums in a fixed order. */
#include <stdio.h>

#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"

/* x [N,in], w [out,in], b [out] (or NULL), y [N,out] of one context; *n, *in, *out get the sizes. */
static int shapes(dlca_context *ctx, const char *fn, const dlca_tensor *x, const dlca_tensor *w,
                  const dlca_tensor *b, const dlca_tensor *y, size_t *n, size_t *in, size_t *out) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, fn)) || (rc = dlca__tensor_check(ctx, w, fn)) ||
      (rc = dlca__tensor_check(ctx, y, fn)) || (b && (rc = dlca__tensor_check(ctx, b, fn))))
    return rc;
  int ok = x->rank == 2 && w->rank == 2 && y->rank == 2 && w->shape[1] == x->shape[1] &&
           y->shape[0] == x->shape[0] && y->shape[1] == w->shape[0] &&
           (!b || (b->rank == 1 && b->shape[0] == w->shape[0]));
  if (!ok) {
    char sx[96], sw[96], sb[96] = "none", sy[96];
    dlca__tensor_shape_text(x, sx, sizeof sx), dlca__tensor_shape_text(w, sw, sizeof sw);
    dlca__tensor_shape_text(y, sy, sizeof sy);
    if (b) dlca__tensor_shape_text(b, sb, sizeof sb);
    return dlca__fail(DLCA_EINVAL, "%s: expected x [N, in], W [out, in], b [out], y [N, out]; got x %s, W %s, b %s, y %s",
                      fn, sx, sw, sb, sy);
  }
  *n = x->shape[0], *in = x->shape[1], *out = w->shape[0];
  return DLCA_OK;
}

/* Runs dense.cl's kernel name over n_items. */
static int run(dlca_context *ctx, const char *name, size_t n_items, int nargs, const size_t *sizes,
               const void *const *args) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__dense_kernel(ctx, name, &k, &wg, NULL);
  return rc ? rc : dlca__ops_cl_launch(ctx, k, name, wg, n_items, nargs, sizes, args);
}

/* The whole forward in one kernel (a layer of at most DENSE_FUSED_MAX multiply-adds). */
static int fused(dlca_context *ctx, dlca__act act, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *b,
                 dlca_tensor *y, size_t n, size_t in, size_t out) {
  cl_uint nn = (cl_uint)n, ni = (cl_uint)in, no = (cl_uint)out;
  cl_int a = (cl_int)act, hb = b != NULL;
  cl_mem bb = b ? b->buf : y->buf; /* unread without a bias */
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint), sizes[] = {m, m, m, m, u, u, u, sizeof a, sizeof hb};
  const void *args[] = {&x->buf, &w->buf, &bb, &y->buf, &nn, &ni, &no, &a, &hb};
  return run(ctx, "dlca_ops_dense_fused", n * out, 9, sizes, args);
}

int dlca__ops_cl_dense(dlca_context *ctx, dlca__act act, const dlca_tensor *x, const dlca_tensor *w,
                       const dlca_tensor *b, dlca_tensor *y) {
  size_t n, in, out;
  int rc = shapes(ctx, "dense", x, w, b, y, &n, &in, &out), fmax_;
  if (rc) return rc;
  if ((unsigned)act >= DLCA__ACT_COUNT) return dlca__fail(DLCA_EINVAL, "dense: no activation %d", (int)act);
  if ((rc = dlca__dense_kernel(ctx, NULL, NULL, NULL, &fmax_))) return rc;
  if ((double)n * (double)in * (double)out <= (double)fmax_) return fused(ctx, act, x, w, b, y, n, in, out);
  /* y = x W^T: W [out, in] read transposed. */
  dlca__gemm g = {0, 1, n, out, in, 1.0f, 0.0f, in, in, out, 0, 0, 0, 1, 0, 0, 0};
  if ((rc = dlca__ops_cl_gemm(ctx, &g, x->buf, w->buf, y->buf))) return rc;
  if (!b && act == DLCA__ACT_none) return DLCA_OK;
  cl_uint ni = (cl_uint)y->n, o = (cl_uint)out;
  cl_int a = (cl_int)act, hb = b != NULL;
  cl_mem bb = b ? b->buf : y->buf; /* unread without a bias */
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof ni, sizeof o, sizeof a, sizeof hb};
  const void *args[] = {&y->buf, &bb, &ni, &o, &a, &hb};
  return run(ctx, "dlca_ops_dense_bias_act", y->n, 6, sizes, args);
}

/* The sizes and tensors of the backward, all checked. */
static int backward_check(dlca_context *ctx, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *y,
                          const dlca_tensor *dy, const dlca_tensor *dz, const dlca_tensor *dx, const dlca_tensor *dw,
                          const dlca_tensor *db, size_t *n, size_t *in, size_t *out) {
  const char *fn = "dense backward";
  int rc;
  if ((rc = shapes(ctx, fn, x, w, db, y, n, in, out)) || (rc = dlca__tensor_check(ctx, dy, fn)) ||
      (rc = dlca__tensor_check(ctx, dz, fn)) || (rc = dlca__tensor_check(ctx, dw, fn)) ||
      (dx && (rc = dlca__tensor_check(ctx, dx, fn))) || (rc = dlca__ops_cl_same_shape(y, dy, fn, "dy")) ||
      (rc = dlca__ops_cl_same_shape(y, dz, fn, "dz")) || (rc = dlca__ops_cl_same_shape(w, dw, fn, "dW")) ||
      (dx && (rc = dlca__ops_cl_same_shape(x, dx, fn, "dx"))))
    return rc;
  return DLCA_OK;
}

int dlca__ops_cl_dense_backward(dlca_context *ctx, dlca__act act, const dlca_tensor *x, const dlca_tensor *w,
                                const dlca_tensor *y, const dlca_tensor *dy, dlca_tensor *dz, dlca_tensor *dx,
                                dlca_tensor *dw, dlca_tensor *db) {
  size_t n, in, out;
  int rc = backward_check(ctx, x, w, y, dy, dz, dx, dw, db, &n, &in, &out);
  if (rc) return rc;
  if ((unsigned)act >= DLCA__ACT_COUNT) return dlca__fail(DLCA_EINVAL, "dense backward: no activation %d", (int)act);
  if (act != DLCA__ACT_none || dz != dy) {
    cl_uint ni = (cl_uint)y->n;
    cl_int a = (cl_int)act;
    size_t m = sizeof(cl_mem), sizes[] = {m, m, m, sizeof ni, sizeof a};
    const void *args[] = {&y->buf, &dy->buf, &dz->buf, &ni, &a};
    if ((rc = run(ctx, "dlca_ops_dense_dz", y->n, 5, sizes, args))) return rc;
  }
  /* dx [N, in] = dz [N, out] W [out, in]; dW [out, in] = dz^T x [N, in]. */
  dlca__gemm gx = {0, 0, n, in, out, 1.0f, 0.0f, out, in, in, 0, 0, 0, 1, 0, 0, 0};
  dlca__gemm gw = {1, 0, out, in, n, 1.0f, 0.0f, out, in, in, 0, 0, 0, 1, 0, 0, 0};
  if ((dx && (rc = dlca__ops_cl_gemm(ctx, &gx, dz->buf, w->buf, dx->buf))) ||
      (rc = dlca__ops_cl_gemm(ctx, &gw, dz->buf, x->buf, dw->buf)))
    return rc;
  if (!db) return DLCA_OK;
  cl_uint nn = (cl_uint)n, o = (cl_uint)out;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof nn, sizeof o};
  const void *args[] = {&dz->buf, &db->buf, &nn, &o};
  return run(ctx, "dlca_ops_dense_db", out, 4, sizes, args);
}
