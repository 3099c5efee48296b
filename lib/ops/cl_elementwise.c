/* Launchers of kernels-cl/ops/elementwise.cl, in the program ops.cl (lib/ops/cl_elementwise.h). The
 * work-group size is the file's EW_WG tunable, as built into the program. */
#include "ops/cl_elementwise.h"

#include <stdio.h>
#include <string.h>

/* The program file (kernels-cl/ops.cl includes ops/elementwise.cl): the
 * tuning table keys its values by its stem, "ops". */
#define EW_FILE "ops.cl"

/* The kernel `name` of ops.cl (from the context's pool) and the work-group size it was built with, both
 * from the context's memo (lib/cl/memo.c): no file is read on the hot path. */
int dlca__ops_cl_kernel(dlca_context *ctx, const char *tunable, const char *name, cl_kernel *k, size_t *wg) {
  cl_program prog;
  int v, rc = dlca__memo_program(ctx, EW_FILE, NULL, &prog);
  if (rc || (rc = dlca__memo_tunable(ctx, EW_FILE, tunable, &v))) return rc;
  if ((size_t)v > ctx->info.max_work_group)
    return dlca__fail(DLCA_ECONFIG, "%s: %s %d is over the device's largest work-group, %zu", EW_FILE, tunable, v,
                      ctx->info.max_work_group);
  *wg = (size_t)v;
  return dlca__memo_kernel(ctx, prog, name, k);
}

/* Sets the arguments (n of them, sizes and pointers), launches over n_items and hands k back to its pool. */
int dlca__ops_cl_launch(dlca_context *ctx, cl_kernel k, const char *name, size_t wg, size_t n_items, int nargs,
                        const size_t *sizes, const void *const *args) {
  for (int i = 0; i < nargs; i++) {
    cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], args[i]);
    if (err != CL_SUCCESS) {
      dlca__memo_kernel_put(ctx, k);
      return dlca__fail_cl(err, "%s: argument %d: %s", name, i, dlca__cl_error_name(err));
    }
  }
  size_t gws = (n_items + wg - 1) / wg * wg;
  int rc = n_items ? dlca__launch(ctx, k, name, 1, &gws, &wg) : DLCA_OK;
  dlca__memo_kernel_put(ctx, k);
  return rc;
}

/* DLCA_EINVAL unless b has a's shape. */
int dlca__ops_cl_same_shape(const dlca_tensor *a, const dlca_tensor *b, const char *fn, const char *what) {
  int same = a->rank == b->rank;
  for (int k = 0; same && k < a->rank; k++) same = a->shape[k] == b->shape[k];
  if (same) return DLCA_OK;
  char sa[96], sb[96];
  dlca__tensor_shape_text(a, sa, sizeof sa), dlca__tensor_shape_text(b, sb, sizeof sb);
  return dlca__fail(DLCA_EINVAL, "%s: %s has shape %s, expected %s", fn, what, sb, sa);
}

int dlca__ops_cl_unary(dlca_context *ctx, dlca__unary_fn fn, const dlca_tensor *x, dlca_tensor *y) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, "unary: x")) || (rc = dlca__tensor_check(ctx, y, "unary: y")) ||
      (rc = dlca__ops_cl_same_shape(x, y, "unary", "y")))
    return rc;
  if ((unsigned)fn >= DLCA__U_COUNT) return dlca__fail(DLCA_EINVAL, "unary: no function %d", (int)fn);
  cl_kernel k;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "EW_WG", "dlca_ops_unary", &k, &wg))) return rc;
  cl_uint n = (cl_uint)x->n;
  cl_int f = (cl_int)fn;
  size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof n, sizeof f};
  const void *args[] = {&x->buf, &y->buf, &n, &f};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_unary", wg, x->n, 4, sizes, args);
}

int dlca__ops_cl_unary_backward(dlca_context *ctx, dlca__unary_fn fn, const dlca_tensor *x, const dlca_tensor *y,
                                const dlca_tensor *dy, dlca_tensor *dx) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, x, "unary backward: x")) ||
      (rc = dlca__tensor_check(ctx, y, "unary backward: y")) ||
      (rc = dlca__tensor_check(ctx, dy, "unary backward: dy")) ||
      (rc = dlca__tensor_check(ctx, dx, "unary backward: dx")) ||
      (rc = dlca__ops_cl_same_shape(x, y, "unary backward", "y")) ||
      (rc = dlca__ops_cl_same_shape(x, dy, "unary backward", "dy")) ||
      (rc = dlca__ops_cl_same_shape(x, dx, "unary backward", "dx")))
    return rc;
  if ((unsigned)fn >= DLCA__U_COUNT) return dlca__fail(DLCA_EINVAL, "unary backward: no function %d", (int)fn);
  cl_kernel k;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "EW_WG", "dlca_ops_unary_backward", &k, &wg))) return rc;
  cl_uint n = (cl_uint)x->n;
  cl_int f = (cl_int)fn;
  size_t m = sizeof(cl_mem), sizes[] = {m, m, m, m, sizeof n, sizeof f};
  const void *args[] = {&x->buf, &y->buf, &dy->buf, &dx->buf, &n, &f};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_unary_backward", wg, x->n, 6, sizes, args);
}

/* The twin's shape of a tensor. */
dlca__shape dlca__ops_cl_shape(const dlca_tensor *t) {
  dlca__shape s = {t->rank, {0}};
  for (int k = 0; k < t->rank; k++) s.d[k] = t->shape[k];
  return s;
}

/* A view's rank-4 extents and strides, leading axes of extent 1 and stride 0. */
void dlca__ops_cl_uint4(const dlca__view *v, cl_uint4 *d, cl_uint4 *s) {
  int pad = DLCA__MAX_RANK - v->shape.rank;
  for (int k = 0; k < DLCA__MAX_RANK; k++) {
    d->s[k] = k < pad ? 1 : (cl_uint)v->shape.d[k - pad];
    s->s[k] = k < pad ? 0 : (cl_uint)v->stride[k - pad];
  }
}

int dlca__ops_cl_binary(dlca_context *ctx, dlca__binary_fn fn, const dlca_tensor *a, const dlca_tensor *b,
                        dlca_tensor *y) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, a, "binary: a")) || (rc = dlca__tensor_check(ctx, b, "binary: b")) ||
      (rc = dlca__tensor_check(ctx, y, "binary: y")))
    return rc;
  if ((unsigned)fn >= DLCA__B_COUNT) return dlca__fail(DLCA_EINVAL, "binary: no function %d", (int)fn);
  dlca__shape as = dlca__ops_cl_shape(a), bs = dlca__ops_cl_shape(b), ys, yt = dlca__ops_cl_shape(y);
  if ((rc = dlca__broadcast_shape(&as, &bs, &ys))) return rc;
  if (!dlca__shape_eq(&ys, &yt)) {
    char sy[96];
    dlca__tensor_shape_text(y, sy, sizeof sy);
    return dlca__fail(DLCA_EINVAL, "binary: y has shape %s, not the broadcast shape of a and b", sy);
  }
  dlca__view va, vb;
  dlca__broadcast_view(&as, &ys, &va), dlca__broadcast_view(&bs, &ys, &vb);
  cl_uint4 yd, sa, sb, unused;
  dlca__ops_cl_uint4(&va, &yd, &sa), dlca__ops_cl_uint4(&vb, &unused, &sb);
  cl_kernel k;
  size_t wg;
  if ((rc = dlca__ops_cl_kernel(ctx, "EW_WG", "dlca_ops_binary", &k, &wg))) return rc;
  cl_uint n = (cl_uint)y->n;
  cl_int f = (cl_int)fn;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, m, m, sizeof n, sizeof f, u4, u4, u4};
  const void *args[] = {&a->buf, &b->buf, &y->buf, &n, &f, &yd, &sa, &sb};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_binary", wg, y->n, 8, sizes, args);
}

/* One side's gradient (side 0: a, 1: b) of y = fn(a, b): dlca_ops_binary_backward's arguments. */
static int binary_grad(dlca_context *ctx, dlca__binary_fn fn, int side, const dlca_tensor *x, const dlca_tensor *o,
                       const dlca_tensor *dy, dlca_tensor *dx) {
  dlca__shape xs = dlca__ops_cl_shape(x), os = dlca__ops_cl_shape(o), ys = dlca__ops_cl_shape(dy);
  dlca__view vo, vy;
  dlca__broadcast_view(&os, &ys, &vo), dlca__broadcast_view(&ys, &ys, &vy);
  cl_uint4 yd, ystr, ostr, xd, bd;
  dlca__ops_cl_uint4(&vy, &yd, &ystr), dlca__ops_cl_uint4(&vo, &yd, &ostr);
  int pad = DLCA__MAX_RANK - xs.rank;
  for (int k = 0; k < DLCA__MAX_RANK; k++) {
    xd.s[k] = k < pad ? 1 : (cl_uint)xs.d[k - pad];
    bd.s[k] = xd.s[k] == 1 ? yd.s[k] : 1;
  }
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "EW_WG", "dlca_ops_binary_backward", &k, &wg);
  if (rc) return rc;
  cl_uint n = (cl_uint)x->n;
  cl_int f = (cl_int)fn, sd = side;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4);
  size_t sizes[] = {m, m, m, m, sizeof n, sizeof f, sizeof sd, u4, u4, u4, u4};
  const void *args[] = {&x->buf, &o->buf, &dy->buf, &dx->buf, &n, &f, &sd, &xd, &bd, &ystr, &ostr};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_binary_backward", wg, x->n, 11, sizes, args);
}

int dlca__ops_cl_binary_backward(dlca_context *ctx, dlca__binary_fn fn, const dlca_tensor *a, const dlca_tensor *b,
                                 const dlca_tensor *dy, dlca_tensor *da, dlca_tensor *db) {
  int rc;
  if ((rc = dlca__tensor_check(ctx, a, "binary backward: a")) ||
      (rc = dlca__tensor_check(ctx, b, "binary backward: b")) ||
      (rc = dlca__tensor_check(ctx, dy, "binary backward: dy")) ||
      (da && (rc = dlca__tensor_check(ctx, da, "binary backward: da"))) ||
      (db && (rc = dlca__tensor_check(ctx, db, "binary backward: db"))))
    return rc;
  if ((unsigned)fn >= DLCA__B_COUNT) return dlca__fail(DLCA_EINVAL, "binary backward: no function %d", (int)fn);
  dlca__shape as = dlca__ops_cl_shape(a), bs = dlca__ops_cl_shape(b), ys, dys = dlca__ops_cl_shape(dy);
  if ((rc = dlca__broadcast_shape(&as, &bs, &ys))) return rc;
  if (!dlca__shape_eq(&ys, &dys)) return dlca__fail(DLCA_EINVAL, "binary backward: dy is not of the broadcast shape");
  if ((da && (rc = dlca__ops_cl_same_shape(a, da, "binary backward", "da"))) ||
      (db && (rc = dlca__ops_cl_same_shape(b, db, "binary backward", "db"))))
    return rc;
  if (da && (rc = binary_grad(ctx, fn, 0, a, b, dy, da))) return rc;
  return db ? binary_grad(ctx, fn, 1, b, a, dy, db) : DLCA_OK;
}
