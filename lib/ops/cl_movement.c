/* Launchers of kernels-cl/ops/movement.cl, in the program ops.cl: the
 * movement ops and their adjoints through the twin's views (dlca__move_plan,
 * lib/ops/ref_movement.c), so that both run the same index map. */
#include <stdio.h>

#include "ops/cl_elementwise.h"

/* Gathers (scatter 0) or scatters (1) src into dst through v. */
static int view_copy(dlca_context *ctx, int scatter, const dlca__view *v, const dlca_tensor *src, dlca_tensor *dst) {
  const char *name = scatter ? "dlca_ops_scatter" : "dlca_ops_gather";
  cl_uint4 d, st;
  dlca__ops_cl_uint4(v, &d, &st);
  cl_uint n = (cl_uint)dlca__shape_n(&v->shape), off = (cl_uint)v->offset;
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "MOV_WG", name, &k, &wg);
  if (rc) return rc;
  size_t m = sizeof(cl_mem), u4 = sizeof(cl_uint4), sizes[] = {m, m, sizeof n, u4, u4, sizeof off};
  const void *args[] = {&src->buf, &dst->buf, &n, &d, &st, &off};
  return dlca__ops_cl_launch(ctx, k, name, wg, n, 6, sizes, args);
}

static int fill(dlca_context *ctx, dlca_tensor *t, float value) {
  cl_kernel k;
  size_t wg;
  int rc = dlca__ops_cl_kernel(ctx, "MOV_WG", "dlca_ops_fill", &k, &wg);
  if (rc) return rc;
  cl_uint n = (cl_uint)t->n;
  size_t sizes[] = {sizeof(cl_mem), sizeof n, sizeof value};
  const void *args[] = {&t->buf, &n, &value};
  return dlca__ops_cl_launch(ctx, k, "dlca_ops_fill", wg, t->n, 3, sizes, args);
}

/* The plan of m on x's shape, checking that y has the shape it gives. */
static int plan(const dlca__move *m, const dlca_tensor *x, const dlca_tensor *y, dlca__view *v, const char *fn) {
  dlca__shape xs = dlca__ops_cl_shape(x), ys, yt = dlca__ops_cl_shape(y);
  int rc = dlca__move_plan(m, &xs, &ys, v);
  if (rc) return rc;
  if (dlca__shape_eq(&ys, &yt)) return DLCA_OK;
  char sy[96];
  dlca__tensor_shape_text(y, sy, sizeof sy);
  return dlca__fail(DLCA_EINVAL, "%s: the output has shape %s, not the movement's", fn, sy);
}

int dlca__ops_cl_move(dlca_context *ctx, const dlca__move *m, const dlca_tensor *x, dlca_tensor *y) {
  int rc;
  dlca__view v;
  if ((rc = dlca__tensor_check(ctx, x, "movement: x")) || (rc = dlca__tensor_check(ctx, y, "movement: y")) ||
      (rc = plan(m, x, y, &v, "movement")))
    return rc;
  if (m->fn != DLCA__M_pad) return view_copy(ctx, 0, &v, x, y);
  if ((rc = fill(ctx, y, (float)m->value))) return rc;
  return x->n ? view_copy(ctx, 1, &v, x, y) : DLCA_OK;
}

/* expand's adjoint: dy summed over the axes where x is broadcast (stride 0), in x's order. */
static int expand_backward(dlca_context *ctx, const dlca__view *v, const dlca_tensor *dy, dlca_tensor *dx) {
  unsigned mask = 0;
  for (int k = 0; k < v->shape.rank; k++)
    if (v->stride[k] == 0 && v->shape.d[k] > 1) mask |= 1u << k;
  return dlca__ops_cl_reduce_raw(ctx, DLCA__R_sum, dy, mask, dx);
}

int dlca__ops_cl_move_backward(dlca_context *ctx, const dlca__move *m, const dlca_tensor *dy, dlca_tensor *dx) {
  int rc;
  dlca__view v;
  if ((rc = dlca__tensor_check(ctx, dy, "movement backward: dy")) ||
      (rc = dlca__tensor_check(ctx, dx, "movement backward: dx")) || (rc = plan(m, dx, dy, &v, "movement backward")))
    return rc;
  if (m->fn == DLCA__M_pad) return view_copy(ctx, 0, &v, dy, dx);
  if (m->fn == DLCA__M_expand) return expand_backward(ctx, &v, dy, dx);
  if ((rc = fill(ctx, dx, 0.0f))) return rc;
  return dy->n ? view_copy(ctx, 1, &v, dy, dx) : DLCA_OK;
}
