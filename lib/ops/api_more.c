/* The public ops (include/dlca_cl/ops.h): reduce, movement and the losses. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/api.h"

int dlca__api_reduce_plan(const char *fn, const dlca_tensor *x, const int *axes, int naxes, int keepdim, unsigned *mask,
                          dlca__shape *ys) {
  long ax[DLCA__MAX_RANK];
  if (naxes < 0 || naxes > DLCA__MAX_RANK || (naxes && !axes))
    return dlca__fail(DLCA_EINVAL, "%s: %d axes given, 0 to %d are (0: every axis)", fn, naxes, DLCA__MAX_RANK);
  size_t n = naxes ? (size_t)naxes : (size_t)x->rank;
  for (size_t i = 0; i < n; i++) ax[i] = naxes ? axes[i] : (long)i;
  dlca__shape xs = dlca__ops_cl_shape(x);
  int rc = dlca__reduce_shape(&xs, ax, n, keepdim, mask, ys);
  if (!rc) return DLCA_OK;
  char msg[256];
  snprintf(msg, sizeof msg, "%s", dlca_last_error()); /* the buffer is rewritten below */
  return dlca__fail(rc, "%s: x has rank %d: %s", fn, x->rank, msg);
}

static int reduce_fn(const char *fn, dlca_reduce_fn f) {
  return (unsigned)f < DLCA_REDUCE_COUNT ? DLCA_OK : dlca__fail(DLCA_EINVAL, "%s: no reduce function %d", fn, (int)f);
}

int dlca_reduce_shape(const dlca_tensor *x, const int *axes, int naxes, int keepdim, int *rank, size_t *shape) {
  static const char *const names[] = {"x"};
  dlca_context *ctx;
  unsigned mask;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_reduce_shape", &ctx, 1, &x, names, 0)) ||
      (rc = dlca__api_reduce_plan("dlca_reduce_shape", x, axes, naxes, keepdim, &mask, &ys)))
    return rc;
  if (!rank || !shape) return dlca__fail(DLCA_EINVAL, "dlca_reduce_shape: NULL rank or shape");
  *rank = ys.rank;
  memcpy(shape, ys.d, sizeof(size_t) * (size_t)ys.rank);
  return DLCA_OK;
}

int dlca_reduce(dlca_reduce_fn fn, const dlca_tensor *x, const int *axes, int naxes, int keepdim, dlca_tensor *y) {
  static const char *const names[] = {"x", "y"};
  const dlca_tensor *t[] = {x, y};
  dlca_context *ctx;
  unsigned mask;
  dlca__shape ys;
  int rc;
  if ((rc = reduce_fn("dlca_reduce", fn)) || (rc = dlca__api_fwd("dlca_reduce", &ctx, 2, t, names, 0)) ||
      (rc = dlca__api_reduce_plan("dlca_reduce", x, axes, naxes, keepdim, &mask, &ys)) ||
      (rc = dlca__api_shape("dlca_reduce", "y", y, &ys)) ||
      (rc = dlca__ops_cl_reduce(ctx, (dlca__reduce_fn)fn, x, mask, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_reduce, .fn = (int)fn, .in = {x, NULL}, .out = y, .mask = mask};
  return dlca__tape_record(ctx, &r);
}

int dlca_reduce_backward(dlca_reduce_fn fn, const dlca_tensor *x, const int *axes, int naxes, int keepdim,
                         const dlca_tensor *dy, dlca_tensor *dx) {
  static const char *const names[] = {"x", "dy", "dx"};
  const dlca_tensor *t[] = {x, dy, dx};
  const char *f = "dlca_reduce_backward";
  dlca_context *ctx;
  unsigned mask;
  dlca__shape ys, xs;
  int rc;
  if ((rc = reduce_fn(f, fn)) || (rc = dlca__api_ctx(f, &ctx, 3, t, names, 0)) ||
      (rc = dlca__api_reduce_plan(f, x, axes, naxes, keepdim, &mask, &ys)) ||
      (rc = dlca__api_shape(f, "dy", dy, &ys)) || (xs = dlca__ops_cl_shape(x), rc = dlca__api_shape(f, "dx", dx, &xs)))
    return rc;
  return dlca__ops_cl_reduce_backward(ctx, (dlca__reduce_fn)fn, x, mask, dy, dx);
}

int dlca__api_move(const char *fn, const dlca_movement *m, dlca__move *out) {
  if (!m) return dlca__fail(DLCA_EINVAL, "%s: no movement (NULL)", fn);
  if ((unsigned)m->fn >= DLCA_MOVE_COUNT) return dlca__fail(DLCA_EINVAL, "%s: no movement function %d", fn, m->fn);
  if (m->n < 0 || m->n > DLCA__MAX_RANK)
    return dlca__fail(DLCA_EINVAL, "%s: %d arguments, 0 to %d are (one per axis)", fn, m->n, DLCA__MAX_RANK);
  memset(out, 0, sizeof *out);
  out->fn = (dlca__move_fn)m->fn, out->n = m->n, out->value = m->value;
  memcpy(out->arg, m->arg, sizeof out->arg);
  return DLCA_OK;
}

/* m's twin form and y's shape for x. */
static int move_plan(const char *fn, const dlca_movement *m, const dlca_tensor *x, dlca__move *tm, dlca__shape *ys) {
  dlca__view v;
  dlca__shape xs = dlca__ops_cl_shape(x);
  int rc = dlca__api_move(fn, m, tm);
  if (rc || !(rc = dlca__move_plan(tm, &xs, ys, &v))) return rc;
  char msg[256];
  snprintf(msg, sizeof msg, "%s", dlca_last_error()); /* the buffer is rewritten below */
  return dlca__fail(rc, "%s: %s on x of rank %d: %s", fn, dlca_move_fn_name(m->fn), x->rank, msg);
}

int dlca_move_shape(const dlca_movement *m, const dlca_tensor *x, int *rank, size_t *shape) {
  static const char *const names[] = {"x"};
  dlca_context *ctx;
  dlca__move tm;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_move_shape", &ctx, 1, &x, names, 0)) ||
      (rc = move_plan("dlca_move_shape", m, x, &tm, &ys)))
    return rc;
  if (!rank || !shape) return dlca__fail(DLCA_EINVAL, "dlca_move_shape: NULL rank or shape");
  *rank = ys.rank;
  memcpy(shape, ys.d, sizeof(size_t) * (size_t)ys.rank);
  return DLCA_OK;
}

int dlca_move(const dlca_movement *m, const dlca_tensor *x, dlca_tensor *y) {
  static const char *const names[] = {"x", "y"};
  const dlca_tensor *t[] = {x, y};
  dlca_context *ctx;
  dlca__move tm;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_fwd("dlca_move", &ctx, 2, t, names, 0)) || (rc = move_plan("dlca_move", m, x, &tm, &ys)) ||
      (rc = dlca__api_shape("dlca_move", "y", y, &ys)) || (rc = dlca__ops_cl_move(ctx, &tm, x, y)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_move, .in = {x, NULL}, .out = y, .move = tm};
  return dlca__tape_record(ctx, &r);
}

int dlca_move_backward(const dlca_movement *m, const dlca_tensor *dy, dlca_tensor *dx) {
  static const char *const names[] = {"dy", "dx"};
  const dlca_tensor *t[] = {dy, dx};
  dlca_context *ctx;
  dlca__move tm;
  dlca__shape ys;
  int rc;
  if ((rc = dlca__api_ctx("dlca_move_backward", &ctx, 2, t, names, 0)) ||
      (rc = move_plan("dlca_move_backward", m, dx, &tm, &ys)) ||
      (rc = dlca__api_shape("dlca_move_backward", "dy", dy, &ys)))
    return rc;
  return dlca__ops_cl_move_backward(ctx, &tm, dy, dx);
}

int dlca_mse(const dlca_tensor *input, const dlca_tensor *target, dlca_tensor *loss) {
  static const char *const names[] = {"input", "target", "loss"};
  const dlca_tensor *t[] = {input, target, loss};
  dlca_context *ctx;
  int rc;
  if ((rc = dlca__api_fwd("dlca_mse", &ctx, 3, t, names, 0)) || (rc = dlca__ops_cl_mse(ctx, input, target, loss)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_mse, .in = {input, target}, .out = loss};
  return dlca__tape_record(ctx, &r);
}

int dlca_mse_backward(const dlca_tensor *input, const dlca_tensor *target, const dlca_tensor *g, dlca_tensor *d_input,
                      dlca_tensor *d_target) {
  static const char *const names[] = {"input", "target", "g", "d_input", "d_target"};
  const dlca_tensor *t[] = {input, target, g, d_input, d_target};
  dlca_context *ctx;
  int rc = dlca__api_ctx("dlca_mse_backward", &ctx, 5, t, names, 3u << 3);
  return rc ? rc : dlca__ops_cl_mse_backward(ctx, input, target, g, d_input, d_target);
}

int dlca_softmax_cross_entropy(const dlca_tensor *logits, const dlca_tensor *target, dlca_tensor *loss) {
  static const char *const names[] = {"logits", "target", "loss"};
  const dlca_tensor *t[] = {logits, target, loss};
  dlca_context *ctx;
  int rc;
  if ((rc = dlca__api_fwd("dlca_softmax_cross_entropy", &ctx, 3, t, names, 0)) ||
      (rc = dlca__ops_cl_softmax_xent(ctx, logits, target, loss)))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_xent, .in = {logits, target}, .out = loss};
  return dlca__tape_record(ctx, &r);
}

int dlca_softmax_cross_entropy_backward(const dlca_tensor *logits, const dlca_tensor *target, const dlca_tensor *g,
                                        dlca_tensor *d_logits) {
  static const char *const names[] = {"logits", "target", "g", "d_logits"};
  const dlca_tensor *t[] = {logits, target, g, d_logits};
  dlca_context *ctx;
  int rc = dlca__api_ctx("dlca_softmax_cross_entropy_backward", &ctx, 4, t, names, 0);
  return rc ? rc : dlca__ops_cl_softmax_xent_backward(ctx, logits, target, g, d_logits);
}

/* Copies n floats of src into dst on the queue. */
static int copy_floats(dlca_context *ctx, const dlca_tensor *src, dlca_tensor *dst, const char *fn) {
  if (!src->n) return DLCA_OK;
  cl_int err = clEnqueueCopyBuffer(ctx->queue, src->buf, dst->buf, 0, 0, sizeof(float) * src->n, 0, NULL, NULL);
  return err == CL_SUCCESS ? DLCA_OK : dlca__fail_cl(err, "%s: copying: %s", fn, dlca__cl_error_name(err));
}

/* DLCA_EINVAL unless y holds as many elements as x. */
static int same_count(const char *fn, const char *xn, const dlca_tensor *x, const char *yn, const dlca_tensor *y) {
  if (x->n == y->n) return DLCA_OK;
  char sx[96], sy[96];
  dlca__tensor_shape_text(x, sx, sizeof sx), dlca__tensor_shape_text(y, sy, sizeof sy);
  return dlca__fail(DLCA_EINVAL, "%s: %s %s has %zu elements, %s %s %zu", fn, xn, sx, x->n, yn, sy, y->n);
}

int dlca_reshape(const dlca_tensor *x, dlca_tensor *y) {
  static const char *const names[] = {"x", "y"};
  const dlca_tensor *t[] = {x, y};
  dlca_context *ctx;
  int rc;
  if ((rc = dlca__api_fwd("dlca_reshape", &ctx, 2, t, names, 0)) || (rc = same_count("dlca_reshape", "x", x, "y", y)) ||
      (rc = copy_floats(ctx, x, y, "dlca_reshape")))
    return rc;
  dlca__tape_rec r = {.kind = DLCA__T_reshape, .in = {x}, .out = y};
  return dlca__tape_record(ctx, &r);
}

int dlca__api_reshape_grad(dlca_context *ctx, const dlca_tensor *dy, dlca_tensor *dx) {
  return copy_floats(ctx, dy, dx, "dlca_reshape_backward");
}

int dlca_reshape_backward(const dlca_tensor *dy, dlca_tensor *dx) {
  static const char *const names[] = {"dy", "dx"};
  const dlca_tensor *t[] = {dy, dx};
  dlca_context *ctx;
  int rc;
  if ((rc = dlca__api_ctx("dlca_reshape_backward", &ctx, 2, t, names, 0)) ||
      (rc = same_count("dlca_reshape_backward", "dy", dy, "dx", dx)))
    return rc;
  return dlca__api_reshape_grad(ctx, dy, dx);
}
