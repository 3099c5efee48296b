/* The reference runner of the conv2d vector files (lib/ops/ref_conv.h):
 * inputs x, W and (optional) b; attrs stride, padding; output y; grads x, W, b. */
#include "core/internal.h"
#include "ops/ref_conv.h"
#include "ops/ref_ops.h"

/* attrs.key: two integers. */
static int pair(const dlca__ops_vector *v, const char *key, int *a, int *b) {
  long p[2];
  size_t n;
  int rc = dlca__ops_vector_attr_ints(v, key, p, 2, &n);
  if (rc) return rc;
  if (n != 2 || p[0] < 0 || p[1] < 0 || p[0] > 1 << 20 || p[1] > 1 << 20)
    return dlca__fail(DLCA_EPARSE, "%s: attrs.%s: expected two integers in 0..2^20", v->path, key);
  *a = (int)p[0], *b = (int)p[1];
  return DLCA_OK;
}

int dlca__ops_vector_conv2d(const dlca__ops_vector *v, dlca__conv2d *p) {
  int rc;
  if ((rc = pair(v, "stride", &p->sh, &p->sw)) || (rc = pair(v, "padding", &p->ph, &p->pw))) return rc;
  return DLCA_OK;
}

int dlca__ops_run_conv2d(const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  const dlca__ops_tensor *x, *w, *b;
  dlca__shape xs, ws, bs;
  dlca__conv2d p;
  dlca__conv_dims d;
  double *y, *dx, *dw, *db;
  const double *dy;
  if ((rc = dlca__ops_vector_conv2d(v, &p)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_input(v, "W", &w, &ws)))
    return rc;
  if ((b = dlca__ops_set_find(&v->inputs, "b"))) bs = dlca__ops_shape(b); /* the bias is optional */
  if ((rc = dlca__ops_as_parse(v, dlca__conv2d_dims(&xs, &ws, b ? &bs : NULL, &p, &d)))) return rc;
  dlca__shape ys = {4, {d.N, d.O, d.OH, d.OW}};
  if ((rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx)) ||
      (rc = dlca__ops_grad(v, r, "W", &ws, &dw)))
    return rc;
  db = NULL;
  if (b && (rc = dlca__ops_grad(v, r, "b", &bs, &db))) return rc;
  dlca__ref_conv2d(&d, x->data, w->data, b ? b->data : NULL, y);
  if (!dx && !dw && !db) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &ys, &dy))) return rc;
  dlca__ref_conv2d_backward(&d, x->data, w->data, dy, dx, dw, db);
  return DLCA_OK;
}
