/* conv2d on the device (lib/ops/cl_conv.h): im2col into col [C KH KW, N L],
 * one GEMM w col = yt [O, N L] (CLBlast through dlca__ops_cl_gemm), then yt
 * to NCHW plus the bias. Backward: dyt = dy as [O, N L]; dw = dyt col^T;
 * dcol = w^T dyt then col2im; db by a fixed-order work-group sum. The scratch
 * holds col (C KH KW N L floats), then yt or dyt (O N L floats), then dw's
 * split-K parts (S O C KH KW floats where S > 1).
 *
 * dw's GEMM has a small output and a long k (N L): one GEMM would keep few
 * work-groups busy. It is split into S chunks of k (one strided-batched
 * GEMM into S partial dw) summed in order s = 0..S-1 by a kernel: S is a
 * divisor of N L of at most 32, chunks of at least 512, and only as many as
 * bring the outputs near 2^18. S depends on the shapes alone (the scratch's
 * size must not depend on the context), so results are the same everywhere. */
#include "ops/cl_conv.h"

#include <limits.h>
#include <stdio.h>

#include "ops/cl_blas.h"
#include "ops/cl_elementwise.h"

typedef struct conv_plan {
  dlca__conv_dims d;
  size_t ckk, nl, need; /* C KH KW; N L; the scratch's floats */
  size_t split;         /* S, dw's k chunks */
  cl_uint4 xd, kd, nol;
  cl_int4 sp;
} conv_plan;

static void plan_fill(conv_plan *pl) {
  const dlca__conv_dims *d = &pl->d;
  pl->ckk = d->C * d->KH * d->KW, pl->nl = d->N * d->OH * d->OW;
  size_t outs = d->O * pl->ckk, want = outs ? ((size_t)1 << 18) / outs + 1 : 1;
  if (want > 32) want = 32;
  if (want > pl->nl / 512) want = pl->nl / 512;
  for (pl->split = want ? want : 1; pl->split > 1 && pl->nl % pl->split; pl->split--) continue;
  pl->need = (pl->ckk + d->O) * pl->nl + (pl->split > 1 ? pl->split * outs : 0);
  pl->xd = (cl_uint4){{(cl_uint)d->N, (cl_uint)d->C, (cl_uint)d->H, (cl_uint)d->W}};
  pl->kd = (cl_uint4){{(cl_uint)d->KH, (cl_uint)d->KW, (cl_uint)d->OH, (cl_uint)d->OW}};
  pl->nol = (cl_uint4){{(cl_uint)d->N, (cl_uint)d->O, (cl_uint)(d->OH * d->OW), 0}};
  pl->sp = (cl_int4){{d->sh, d->sw, d->ph, d->pw}};
}

/* The scratch's floats in double: no product can wrap for any shapes. */
static double scratch_floats(const conv_plan *pl) {
  double nl = (double)pl->d.N * (double)pl->d.OH * (double)pl->d.OW, outs = (double)pl->ckk * (double)pl->d.O;
  return ((double)pl->ckk + (double)pl->d.O) * nl + (pl->split > 1 ? (double)pl->split * outs : 0);
}

size_t dlca__conv2d_col_floats(const dlca_tensor *x, const dlca_tensor *w, const dlca__conv2d *p) {
  if (!x || !w || !p) return 0;
  dlca__shape xs = dlca__ops_cl_shape(x), ws = dlca__ops_cl_shape(w);
  conv_plan pl;
  if (dlca__conv2d_dims(&xs, &ws, NULL, p, &pl.d)) return 0;
  plan_fill(&pl);
  return scratch_floats(&pl) > (double)INT_MAX ? 0 : pl.need;
}

/* The shapes of x, w, b (may be NULL) and the output-shaped tensor y (y or dy), named in what. */
static int plan(dlca_context *ctx, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                const dlca_tensor *b, const dlca_tensor *y, const char *what, const char *yname, conv_plan *pl) {
  char m[64];
  int rc = DLCA_OK;
  const dlca_tensor *t[] = {x, w, b, y};
  const char *names[] = {"x", "w", "b", yname};
  for (int i = 0; i < 4 && !rc; i++)
    if (i != 2 || b) snprintf(m, sizeof m, "%s: %s", what, names[i]), rc = dlca__tensor_check(ctx, t[i], m);
  if (rc) return rc;
  if (!p) return dlca__fail(DLCA_EINVAL, "%s: no stride and padding (NULL)", what);
  dlca__shape xs = dlca__ops_cl_shape(x), ws = dlca__ops_cl_shape(w), bs = b ? dlca__ops_cl_shape(b) : xs;
  if ((rc = dlca__conv2d_dims(&xs, &ws, b ? &bs : NULL, p, &pl->d))) return rc;
  plan_fill(pl);
  dlca__shape want = {4, {pl->d.N, pl->d.O, pl->d.OH, pl->d.OW}}, have = dlca__ops_cl_shape(y);
  if (!dlca__shape_eq(&want, &have)) {
    char a[96], c[96];
    dlca__tensor_shape_text(y, a, sizeof a), dlca__tensor_shape_text(x, c, sizeof c);
    return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s, expected [%zu, %zu, %zu, %zu] from x %s", what, yname, a,
                      pl->d.N, pl->d.O, pl->d.OH, pl->d.OW, c);
  }
  double big = scratch_floats(pl);
  if (big > (double)INT_MAX)
    return dlca__fail(DLCA_EINVAL, "%s: the im2col scratch would have %.0f floats, over 2^31", what, big);
  return DLCA_OK;
}

/* *use = col after checking its size, or a new buffer (*owned 1) where col is NULL. */
static int scratch(dlca_context *ctx, const conv_plan *pl, cl_mem col, const char *what, cl_mem *use, int *owned) {
  *owned = 0, *use = col;
  if (!col) {
    *owned = 1;
    return dlca__buffer(ctx, sizeof(float) * (pl->need ? pl->need : 1), "conv2d im2col scratch", use);
  }
  size_t bytes = 0;
  cl_int err = clGetMemObjectInfo(col, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  if (err != CL_SUCCESS) return dlca__fail_cl(err, "%s: col: %s", what, dlca__cl_error_name(err));
  if (bytes < sizeof(float) * pl->need)
    return dlca__fail(DLCA_EINVAL, "%s: col has %zu floats, this conv2d needs %zu (dlca__conv2d_col_floats)", what,
                      bytes / sizeof(float), pl->need);
  return DLCA_OK;
}

/* One kernel of conv.cl over n items; its work-group size from the tunable. */
static int run(dlca_context *ctx, const char *tunable, const char *name, size_t n, int nargs, const size_t *sizes,
               const void *const *args, int per_group) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, tunable, name, &k, &wg);
  if (rc) return rc;
  return dlca__ops_cl_launch(ctx, k, name, wg, per_group ? n * wg : n, nargs, sizes, args);
}

/* col = im2col(x): CONV_COLS (the tunable, as built) columns per work-item. */
static int im2col(dlca_context *ctx, const conv_plan *pl, const dlca_tensor *x, cl_mem col) {
  int cols;
  int rc = dlca__memo_tunable(ctx, "ops.cl", "CONV_COLS", &cols);
  if (rc) return rc;
  cl_uint off = 0;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, m, sizeof off, u4, u4, sizeof(cl_int4)};
  const void *args[] = {&x->buf, &col, &off, &pl->xd, &pl->kd, &pl->sp};
  return run(ctx, "CONV_WG", "dlca_conv_im2col", pl->ckk * ((pl->nl + (size_t)cols - 1) / (size_t)cols), 6, sizes, args,
             0);
}

/* yt = w col: [O, CKK] x [CKK, NL] into the scratch after col. */
static int gemm_forward(dlca_context *ctx, const conv_plan *pl, const dlca_tensor *w, cl_mem col) {
  dlca__gemm g = {.m = pl->d.O, .n = pl->nl, .k = pl->ckk, .alpha = 1, .lda = pl->ckk, .ldb = pl->nl, .ldc = pl->nl};
  g.off_c = pl->ckk * pl->nl, g.batch = 1;
  return dlca__ops_cl_gemm(ctx, &g, w->buf, col, col);
}

int dlca__ops_cl_conv2d(dlca_context *ctx, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                        const dlca_tensor *b, dlca_tensor *y, cl_mem col) {
  conv_plan pl;
  cl_mem s;
  int owned, rc = plan(ctx, p, x, w, b, y, "conv2d", "y", &pl);
  if (rc || (rc = scratch(ctx, &pl, col, "conv2d", &s, &owned))) return rc;
  if (y->n && !(rc = im2col(ctx, &pl, x, s)) && !(rc = gemm_forward(ctx, &pl, w, s))) {
    cl_uint off = (cl_uint)(pl.ckk * pl.nl);
    cl_int has_b = b != NULL;
    cl_mem bb = b ? b->buf : NULL;
    size_t m = sizeof(cl_mem), sizes[] = {m, sizeof off, m, sizeof has_b, m, sizeof(cl_uint4)};
    const void *args[] = {&s, &off, &bb, &has_b, &y->buf, &pl.nol};
    rc = run(ctx, "CONV_WG", "dlca_conv_out", y->n, 6, sizes, args, 0);
  }
  if (owned) clReleaseMemObject(s); /* freed once the queued kernels are done with it */
  return rc;
}

/* dw's parts [S, O, CKK] = one strided-batched GEMM over chunks of NL, then their sum in order. */
static int grad_w_split(dlca_context *ctx, const conv_plan *pl, cl_mem s, dlca_tensor *dw) {
  size_t chunk = pl->nl / pl->split, n = pl->d.O * pl->ckk, parts = (pl->ckk + pl->d.O) * pl->nl;
  dlca__gemm g = {.trans_b = 1, .m = pl->d.O, .n = pl->ckk, .k = chunk, .alpha = 1, .lda = pl->nl, .ldb = pl->nl};
  g.ldc = pl->ckk, g.off_a = pl->ckk * pl->nl, g.off_c = parts, g.batch = pl->split;
  g.stride_a = chunk, g.stride_b = chunk, g.stride_c = n;
  int rc = dlca__ops_cl_gemm(ctx, &g, s, s, s);
  if (rc) return rc;
  cl_uint off = (cl_uint)parts, ns = (cl_uint)pl->split, nn = (cl_uint)n;
  size_t m = sizeof(cl_mem), u = sizeof(cl_uint), sizes[] = {m, u, u, u, m};
  const void *args[] = {&s, &off, &ns, &nn, &dw->buf};
  return run(ctx, "CONV_WG", "dlca_conv_sum_parts", n, 5, sizes, args, 0);
}

/* dw = dyt col^T: [O, NL] x [NL, CKK], in S chunks of NL summed in order (the comment at the top). */
static int grad_w(dlca_context *ctx, const conv_plan *pl, const dlca_tensor *x, cl_mem s, dlca_tensor *dw) {
  int rc = im2col(ctx, pl, x, s);
  if (rc || pl->split > 1) return rc ? rc : grad_w_split(ctx, pl, s, dw);
  dlca__gemm g = {.trans_b = 1, .m = pl->d.O, .n = pl->ckk, .k = pl->nl, .alpha = 1, .lda = pl->nl, .ldb = pl->nl};
  g.ldc = pl->ckk, g.off_a = pl->ckk * pl->nl, g.batch = 1;
  return dlca__ops_cl_gemm(ctx, &g, s, s, dw->buf);
}

/* dcol = w^T dyt: [CKK, O] x [O, NL] into col, then col2im into dx. */
static int grad_x(dlca_context *ctx, const conv_plan *pl, const dlca_tensor *w, cl_mem s, dlca_tensor *dx) {
  dlca__gemm g = {.trans_a = 1, .m = pl->ckk, .n = pl->nl, .k = pl->d.O, .alpha = 1, .lda = pl->ckk, .ldb = pl->nl};
  g.ldc = pl->nl, g.off_b = pl->ckk * pl->nl, g.batch = 1;
  int rc = dlca__ops_cl_gemm(ctx, &g, w->buf, s, s);
  if (rc) return rc;
  cl_uint off = 0;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, sizeof off, m, u4, u4, sizeof(cl_int4)};
  const void *args[] = {&s, &off, &dx->buf, &pl->xd, &pl->kd, &pl->sp};
  return run(ctx, "CONV_WG", "dlca_conv_col2im", dx->n, 6, sizes, args, 0);
}

static int grad_b(dlca_context *ctx, const conv_plan *pl, const dlca_tensor *dy, dlca_tensor *db) {
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof(cl_uint4)};
  const void *args[] = {&dy->buf, &db->buf, &pl->nol};
  return run(ctx, "CONV_RED_WG", "dlca_conv_bias_grad", pl->d.O, 3, sizes, args, 1);
}

/* The gradients' tensors: of x's, w's and [O] shapes, from ctx. */
static int check_grads(dlca_context *ctx, const dlca_tensor *x, const dlca_tensor *w, dlca_tensor *dx, dlca_tensor *dw,
                       dlca_tensor *db) {
  int rc = DLCA_OK;
  const char *what = "conv2d backward";
  if (dx &&
      ((rc = dlca__tensor_check(ctx, dx, "conv2d backward: dx")) || (rc = dlca__ops_cl_same_shape(x, dx, what, "dx"))))
    return rc;
  if (dw &&
      ((rc = dlca__tensor_check(ctx, dw, "conv2d backward: dw")) || (rc = dlca__ops_cl_same_shape(w, dw, what, "dw"))))
    return rc;
  if (db && (rc = dlca__tensor_check(ctx, db, "conv2d backward: db"))) return rc;
  if (db && (db->rank != 1 || db->shape[0] != w->shape[0])) {
    char a[96];
    dlca__tensor_shape_text(db, a, sizeof a);
    return dlca__fail(DLCA_EINVAL, "%s: db has shape %s, expected [%zu] (w's O)", what, a, w->shape[0]);
  }
  return DLCA_OK;
}

int dlca__ops_cl_conv2d_backward(dlca_context *ctx, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                                 const dlca_tensor *dy, dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db, cl_mem col) {
  conv_plan pl;
  cl_mem s = NULL;
  int owned = 0, rc = plan(ctx, p, x, w, NULL, dy, "conv2d backward", "dy", &pl);
  if (rc || (rc = check_grads(ctx, x, w, dx, dw, db))) return rc;
  if (db && (rc = grad_b(ctx, &pl, dy, db))) return rc;
  if ((!dx && !dw) || (rc = scratch(ctx, &pl, col, "conv2d backward", &s, &owned))) return rc;
  cl_uint off = (cl_uint)(pl.ckk * pl.nl);
  size_t m = sizeof(cl_mem), sizes[] = {m, m, sizeof off, sizeof(cl_uint4)};
  const void *args[] = {&dy->buf, &s, &off, &pl.nol};
  rc = run(ctx, "CONV_WG", "dlca_conv_dy_t", dy->n, 4, sizes, args, 0);
  if (!rc && dw) rc = grad_w(ctx, &pl, x, s, dw);
  if (!rc && dx) rc = grad_x(ctx, &pl, w, s, dx);
  if (owned) clReleaseMemObject(s);
  return rc;
}
