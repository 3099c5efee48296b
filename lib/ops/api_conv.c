/* The public conv2d and 2-D pooling (include/dlca_cl/ops.h) on h-conv's
 * launchers (lib/ops/cl_conv.h): shapes checked by name, recorded on a begun tape. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/api.h"
#include "ops/cl_conv.h"

_Static_assert((int)DLCA_POOL_COUNT == (int)DLCA__POOL_COUNT && (int)DLCA_POOL_MEAN == (int)DLCA__POOL_mean, "pool");

/* The twin's form of p (NULL: stride 1, no padding). */
static dlca__conv2d conv_of(const dlca_conv2d_params *p) {
  return p ? (dlca__conv2d){p->stride_h, p->stride_w, p->pad_h, p->pad_w} : (dlca__conv2d){1, 1, 0, 0};
}

/* y's shape [N, O, OH, OW], the twin's message prefixed with fn. */
static int conv_plan(const char *fn, const dlca__conv2d *p, const dlca_tensor *x, const dlca_tensor *w,
                     const dlca_tensor *b, dlca__shape *ys) {
  dlca__shape xs = dlca__ops_cl_shape(x), ws = dlca__ops_cl_shape(w), bs;
  if (b) bs = dlca__ops_cl_shape(b);
  dlca__conv_dims d;
  int rc = dlca__conv2d_dims(&xs, &ws, b ? &bs : NULL, p, &d);
  if (rc) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", dlca_last_error()); /* the buffer is rewritten below */
    return dlca__fail(rc, "%s: %s", fn, msg);
  }
  *ys = (dlca__shape){4, {d.N, d.O, d.OH, d.OW}};
  return DLCA_OK;
}

int dlca_conv2d_shape(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w, int *rank,
                      size_t *shape) {
  static const char *const names[] = {"x", "w"};
  const dlca_tensor *t[] = {x, w};
  dlca_context *ctx;
  dlca__conv2d c = conv_of(p);
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_conv2d_shape", &ctx, 2, t, names, 0)) ||
      (rc = conv_plan("dlca_conv2d_shape", &c, x, w, NULL, &ys)))
    return rc;
  if (!rank || !shape) return dlca__fail(DLCA_EINVAL, "dlca_conv2d_shape: NULL rank or shape");
  *rank = 4;
  memcpy(shape, ys.d, sizeof(size_t) * 4);
  return DLCA_OK;
}

int dlca_conv2d(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *b,
                dlca_tensor *y) {
  static const char *const names[] = {"x", "w", "b", "y"};
  const dlca_tensor *t[] = {x, w, b, y};
  dlca_context *ctx;
  dlca__conv2d c = conv_of(p);
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_fwd("dlca_conv2d", &ctx, 4, t, names, 1u << 2)) ||
      (rc = conv_plan("dlca_conv2d", &c, x, w, b, &ys)) || (rc = dlca__api_shape("dlca_conv2d", "y", y, &ys)) ||
      (rc = dlca__ops_cl_conv2d(ctx, &c, x, w, b, y, NULL)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_conv, .in = {x, w, b}, .out = y, .conv = c};
  return dlca__tape_record(ctx, &r);
}

int dlca_conv2d_backward(const dlca_conv2d_params *p, const dlca_tensor *x, const dlca_tensor *w, const dlca_tensor *dy,
                         dlca_tensor *dx, dlca_tensor *dw, dlca_tensor *db) {
  static const char *const names[] = {"x", "w", "dy", "dx", "dw", "db"};
  const dlca_tensor *t[] = {x, w, dy, dx, dw, db};
  const char *f = "dlca_conv2d_backward";
  dlca_context *ctx;
  dlca__conv2d c = conv_of(p);
  dlca__shape ys, xs, ws, bs;
  int rc;
  if ((rc = dlca__api_ctx(f, &ctx, 6, t, names, 7u << 3)) || (rc = conv_plan(f, &c, x, w, NULL, &ys)) ||
      (rc = dlca__api_shape(f, "dy", dy, &ys)))
    return rc;
  xs = dlca__ops_cl_shape(x), ws = dlca__ops_cl_shape(w), bs = (dlca__shape){1, {w->shape[0]}};
  if ((dx && (rc = dlca__api_shape(f, "dx", dx, &xs))) || (dw && (rc = dlca__api_shape(f, "dw", dw, &ws))) ||
      (db && (rc = dlca__api_shape(f, "db", db, &bs))))
    return rc;
  return dlca__ops_cl_conv2d_backward(ctx, &c, x, w, dy, dx, dw, db, NULL);
}

/* y's shape for pooling x, the twin's message prefixed with fn. */
static int pool_plan(const char *fn, dlca_pool_fn pf, int k, int s, const dlca_tensor *x, dlca__shape *ys) {
  if ((unsigned)pf >= DLCA_POOL_COUNT) return dlca__fail(DLCA_EINVAL, "%s: no pooling function %d", fn, (int)pf);
  dlca__shape xs = dlca__ops_cl_shape(x);
  int rc = dlca__pool2d_shape(&xs, k, s, ys);
  if (!rc) return DLCA_OK;
  char msg[256];
  snprintf(msg, sizeof msg, "%s", dlca_last_error()); /* the buffer is rewritten below */
  return dlca__fail(rc, "%s: %s", fn, msg);
}

int dlca_pool2d_shape(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, int *rank, size_t *shape) {
  static const char *const names[] = {"x"};
  dlca_context *ctx;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_pool2d_shape", &ctx, 1, &x, names, 0)) ||
      (rc = pool_plan("dlca_pool2d_shape", fn, k, s, x, &ys)))
    return rc;
  if (!rank || !shape) return dlca__fail(DLCA_EINVAL, "dlca_pool2d_shape: NULL rank or shape");
  *rank = 4;
  memcpy(shape, ys.d, sizeof(size_t) * 4);
  return DLCA_OK;
}

int dlca_pool2d(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, dlca_tensor *y) {
  static const char *const names[] = {"x", "y"};
  const dlca_tensor *t[] = {x, y};
  dlca_context *ctx;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_fwd("dlca_pool2d", &ctx, 2, t, names, 0)) || (rc = pool_plan("dlca_pool2d", fn, k, s, x, &ys)) ||
      (rc = dlca__api_shape("dlca_pool2d", "y", y, &ys)) ||
      (rc = dlca__ops_cl_pool2d(ctx, (dlca__pool_fn)fn, k, s, x, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_pool, .fn = (int)fn, .in = {x}, .out = y, .k = k, .s = s};
  return dlca__tape_record(ctx, &r);
}

int dlca_pool2d_backward(dlca_pool_fn fn, int k, int s, const dlca_tensor *x, const dlca_tensor *dy, dlca_tensor *dx) {
  static const char *const names[] = {"x", "dy", "dx"};
  const dlca_tensor *t[] = {x, dy, dx};
  const char *f = "dlca_pool2d_backward";
  dlca_context *ctx;
  dlca__shape ys, xs;
  int rc;
  if ((rc = dlca__api_ctx(f, &ctx, 3, t, names, 0)) || (rc = pool_plan(f, fn, k, s, x, &ys)) ||
      (rc = dlca__api_shape(f, "dy", dy, &ys)) || (xs = dlca__ops_cl_shape(x), rc = dlca__api_shape(f, "dx", dx, &xs)))
    return rc;
  return dlca__ops_cl_pool2d_backward(ctx, (dlca__pool_fn)fn, k, s, x, dy, dx);
}
