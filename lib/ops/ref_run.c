/* The per-op runners of a dlca-ops-vector case on the CPU twin: read the
 * attrs, run the forward into the outputs, and the backward into the grads
 * the file asks for (lib/ops/ref_case.h). */
#include <string.h>

#include "core/internal.h"
#include "ops/ref_ops.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)

/* attrs.fn, looked up by from_name; a name it does not know is EPARSE. */
static int fn_attr(const dlca__ops_vector *v, int (*from_name)(const char *), int *fn) {
  const char *name;
  int rc = dlca__ops_vector_attr_string(v, "fn", &name);
  if (rc) return rc;
  if ((*fn = from_name(name)) < 0) return BAD("%s: attrs.fn: \"%s\" is not a %s function", v->path, name, v->op);
  return DLCA_OK;
}

int dlca__ops_run_unary(const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc;
  const dlca__ops_tensor *x;
  dlca__shape xs;
  double *y, *dx;
  const double *dy;
  if ((rc = fn_attr(v, dlca__unary_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_out(v, r, "y", &xs, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx)))
    return rc;
  dlca__ref_unary((dlca__unary_fn)fn, x->n, x->data, y);
  if (!dx) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &xs, &dy))) return rc;
  dlca__ref_unary_backward((dlca__unary_fn)fn, x->n, x->data, y, dy, dx);
  return DLCA_OK;
}

int dlca__ops_run_binary(const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc;
  const dlca__ops_tensor *a, *b;
  dlca__shape as, bs, ys;
  double *y, *da, *db;
  const double *dy;
  if ((rc = fn_attr(v, dlca__binary_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "a", &a, &as)) ||
      (rc = dlca__ops_input(v, "b", &b, &bs)))
    return rc;
  if ((rc = dlca__ops_as_parse(v, dlca__broadcast_shape(&as, &bs, &ys)))) return rc;
  if ((rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "a", &as, &da)) ||
      (rc = dlca__ops_grad(v, r, "b", &bs, &db)))
    return rc;
  if ((rc = dlca__ref_binary((dlca__binary_fn)fn, &as, a->data, &bs, b->data, y))) return rc;
  if (!da && !db) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &ys, &dy))) return rc;
  return dlca__ref_binary_backward((dlca__binary_fn)fn, &as, a->data, &bs, b->data, dy, da, db);
}

int dlca__ops_run_reduce(const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc, keep;
  const dlca__ops_tensor *x;
  dlca__shape xs, ys;
  long axes[DLCA__MAX_RANK];
  size_t na;
  unsigned mask;
  double *y, *dx;
  const double *dy;
  if ((rc = fn_attr(v, dlca__reduce_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_vector_attr_ints(v, "axes", axes, DLCA__MAX_RANK, &na)) ||
      (rc = dlca__ops_vector_attr_bool(v, "keepdim", &keep)))
    return rc;
  if ((rc = dlca__ops_as_parse(v, dlca__reduce_shape(&xs, axes, na, keep, &mask, &ys)))) return rc;
  if ((rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx))) return rc;
  dlca__ref_reduce((dlca__reduce_fn)fn, &xs, mask, x->data, y);
  if (!dx) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &ys, &dy))) return rc;
  return dlca__ref_reduce_backward((dlca__reduce_fn)fn, &xs, mask, x->data, dy, dx);
}

int dlca__ops_run_mse(const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  const dlca__ops_tensor *in, *t;
  dlca__shape is, ts, ls = {0, {0}};
  double *loss, *din, *dt;
  const double *g;
  if ((rc = dlca__ops_input(v, "input", &in, &is)) || (rc = dlca__ops_input(v, "target", &t, &ts))) return rc;
  if (!dlca__shape_eq(&is, &ts)) return BAD("%s: inputs.target: not the shape of inputs.input", v->path);
  if ((rc = dlca__ops_out(v, r, "loss", &ls, &loss)) || (rc = dlca__ops_grad(v, r, "input", &is, &din)) ||
      (rc = dlca__ops_grad(v, r, "target", &ts, &dt)))
    return rc;
  *loss = dlca__ref_mse(in->n, in->data, t->data);
  if (!din && !dt) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "loss", &ls, &g))) return rc;
  dlca__ref_mse_backward(in->n, in->data, t->data, *g, din, dt);
  return DLCA_OK;
}

int dlca__ops_run_softmax_xent(const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  const dlca__ops_tensor *l, *t;
  dlca__shape lsh, ts, ls = {0, {0}};
  double *loss, *dl;
  const double *g;
  if ((rc = dlca__ops_input(v, "logits", &l, &lsh)) || (rc = dlca__ops_input(v, "target", &t, &ts))) return rc;
  if (lsh.rank != 2 || ts.rank != 1 || ts.d[0] != lsh.d[0])
    return BAD("%s: inputs: expected logits [N, K] and target [N]", v->path);
  if ((rc = dlca__ops_out(v, r, "loss", &ls, &loss)) || (rc = dlca__ops_grad(v, r, "logits", &lsh, &dl))) return rc;
  if ((rc = dlca__ops_as_parse(v, dlca__ref_softmax_xent(lsh.d[0], lsh.d[1], l->data, t->data, loss)))) return rc;
  if (!dl) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "loss", &ls, &g))) return rc;
  return dlca__ref_softmax_xent_backward(lsh.d[0], lsh.d[1], l->data, t->data, *g, dl);
}
