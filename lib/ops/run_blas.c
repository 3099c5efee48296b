/* The `gemm` and `dense` cases of a dlca-ops-vector file: their attrs and
 * shapes (lib/ops/run_blas.h), and the CPU twin's runners. */
#include "ops/run_blas.h"

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_ops.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)

/* The slots of y and of the grads of names[0..2] (the grads may be absent), and grad_outputs.y. */
static int slots(const dlca__ops_vector *v, dlca__ops_result *r, const dlca__shape *ys, const char *const *names,
                 const dlca__shape *shapes, double **y, double **g, const double **dy) {
  int rc = dlca__ops_out(v, r, "y", ys, y);
  for (int i = 0; !rc && i < 3; i++) rc = dlca__ops_grad(v, r, names[i], &shapes[i], &g[i]);
  *dy = NULL;
  if (!rc && (g[0] || g[1] || g[2])) rc = dlca__ops_upstream(v, "y", ys, dy);
  return rc;
}

int dlca__ops_gemm_case(const dlca__ops_vector *v, dlca__ops_result *r, dlca__gemm_case *c) {
  memset(c, 0, sizeof *c);
  int rc, ta, tb;
  dlca__shape as, bs, cs;
  if ((rc = dlca__ops_vector_attr_bool(v, "trans_a", &ta)) || (rc = dlca__ops_vector_attr_bool(v, "trans_b", &tb)) ||
      (rc = dlca__ops_vector_attr_double(v, "alpha", &c->alpha)) ||
      (rc = dlca__ops_vector_attr_double(v, "beta", &c->beta)) || (rc = dlca__ops_input(v, "A", &c->a, &as)) ||
      (rc = dlca__ops_input(v, "B", &c->b, &bs)) || (rc = dlca__ops_input(v, "C", &c->c, &cs)))
    return rc;
  if (as.rank != 2 || bs.rank != 2 || cs.rank != 2) return BAD("%s: inputs: A, B and C must be matrices", v->path);
  size_t m = ta ? as.d[1] : as.d[0], k = ta ? as.d[0] : as.d[1];
  size_t kb = tb ? bs.d[1] : bs.d[0], n = tb ? bs.d[0] : bs.d[1];
  if (kb != k) return BAD("%s: inputs.B.shape: op(B) has %zu rows, op(A) %zu columns", v->path, kb, k);
  if (cs.d[0] != m || cs.d[1] != n) return BAD("%s: inputs.C.shape: not [%zu, %zu] (op(A) op(B))", v->path, m, n);
  c->g = (dlca__gemm){ta, tb, m, n, k, 1.0f, 0.0f, as.d[1], bs.d[1], n, 0, 0, 0, 1, 0, 0, 0};
  static const char *const names[] = {"A", "B", "C"};
  dlca__shape shapes[] = {as, bs, cs};
  double *g[3];
  if ((rc = slots(v, r, &cs, names, shapes, &c->y, g, &c->dy))) return rc;
  c->da = g[0], c->db = g[1], c->dc = g[2];
  return DLCA_OK;
}

int dlca__ops_dense_case(const dlca__ops_vector *v, dlca__ops_result *r, dlca__dense_case *c) {
  memset(c, 0, sizeof *c);
  const char *act;
  dlca__shape xs, ws, bs = {1, {0}};
  int rc;
  if ((rc = dlca__ops_vector_attr_string(v, "activation", &act)) || (rc = dlca__ops_input(v, "x", &c->x, &xs)) ||
      (rc = dlca__ops_input(v, "W", &c->w, &ws)))
    return rc;
  if ((int)(c->act = (dlca__act)dlca__act_from_name(act)) < 0)
    return BAD("%s: attrs.activation: \"%s\" is not none, relu, sigmoid or tanh", v->path, act);
  c->b = dlca__ops_set_find(&v->inputs, "b");
  if (c->b) bs = dlca__ops_shape(c->b);
  if (xs.rank != 2 || ws.rank != 2 || ws.d[1] != xs.d[1])
    return BAD("%s: inputs: expected x [N, in] and W [out, in]", v->path);
  if (c->b && (bs.rank != 1 || bs.d[0] != ws.d[0])) return BAD("%s: inputs.b.shape: expected [%zu]", v->path, ws.d[0]);
  c->n = xs.d[0], c->in = xs.d[1], c->out = ws.d[0];
  dlca__shape ys = {2, {c->n, c->out}}, shapes[] = {xs, ws, bs};
  static const char *const names[] = {"x", "W", "b"};
  double *g[3];
  if ((rc = slots(v, r, &ys, names, shapes, &c->y, g, &c->dy))) return rc;
  c->dx = g[0], c->dw = g[1], c->db = c->b ? g[2] : NULL;
  return DLCA_OK;
}

int dlca__ops_run_gemm(const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__gemm_case c;
  int rc = dlca__ops_gemm_case(v, r, &c);
  if (rc) return rc;
  /* alpha and beta stay in double: the twin runs alpha 1, beta 0, then scales. */
  size_t ny = c.c->n;
  dlca__ref_gemm(&c.g, c.a->data, c.b->data, c.y);
  for (size_t i = 0; i < ny; i++) c.y[i] = c.alpha * c.y[i] + c.beta * c.c->data[i];
  if (!c.dy) return DLCA_OK;
  dlca__ref_gemm_backward(&c.g, c.a->data, c.b->data, c.dy, c.da, c.db, NULL);
  for (size_t i = 0; c.da && i < c.a->n; i++) c.da[i] *= c.alpha;
  for (size_t i = 0; c.db && i < c.b->n; i++) c.db[i] *= c.alpha;
  for (size_t i = 0; c.dc && i < ny; i++) c.dc[i] = c.beta * c.dy[i];
  return DLCA_OK;
}

int dlca__ops_run_dense(const dlca__ops_vector *v, dlca__ops_result *r) {
  dlca__dense_case c;
  int rc = dlca__ops_dense_case(v, r, &c);
  if (rc) return rc;
  const double *b = c.b ? c.b->data : NULL;
  dlca__ref_dense(c.act, c.n, c.in, c.out, c.x->data, c.w->data, b, c.y);
  if (c.dy) dlca__ref_dense_backward(c.act, c.n, c.in, c.out, c.x->data, c.w->data, c.y, c.dy, c.dx, c.dw, c.db);
  return DLCA_OK;
}
