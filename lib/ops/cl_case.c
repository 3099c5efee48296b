/* Runs one dlca-ops-vector case on an OpenCL device (lib/ops/cl_case.h):
 * the file's tensors uploaded as float32, the existing launchers run, the
 * results downloaded and widened into the slots dlca__ops_ref_run fills. */
#include "ops/cl_case.h"

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/cl_blas.h"
#include "ops/cl_conv.h"
#include "ops/cl_elementwise.h"
#include "ops/cl_gru.h"
#include "ops/ref_ops.h"
#include "optim/vector.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)
#define SCOPE_MAX 12

int dlca__ops_cl_tensor(dlca_context *ctx, const dlca__ops_tensor *t, dlca_tensor **out) {
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "%s: out of host memory", t->name);
  for (size_t i = 0; i < t->n; i++) f[i] = (float)t->data[i];
  int rc = dlca_tensor_new(ctx, t->rank, t->shape, out);
  if (!rc && (rc = dlca_tensor_upload(*out, f, t->n))) dlca_tensor_free(*out), *out = NULL;
  free(f);
  return rc;
}

int dlca__ops_cl_fetch(const dlca_tensor *t, double *dst) {
  float *f = malloc(sizeof(float) * (t->n ? t->n : 1));
  if (!f) return dlca__fail(DLCA_ENOMEM, "out of host memory for %zu floats", t->n);
  int rc = dlca_tensor_download(t, f, t->n);
  for (size_t i = 0; !rc && i < t->n; i++) dst[i] = f[i];
  free(f);
  return rc;
}

/* The device tensors one runner made, freed together. */
typedef struct scope {
  dlca_context *ctx;
  int n;
  dlca_tensor *t[SCOPE_MAX];
} scope;

/* Records *t (made with status rc) in s. */
static int keep(scope *s, int rc, dlca_tensor *const *t) {
  if (!rc) s->t[s->n++] = *t;
  return rc;
}

/* A file's tensor uploaded. */
static int up(scope *s, const dlca__ops_tensor *t, dlca_tensor **out) {
  return keep(s, dlca__ops_cl_tensor(s->ctx, t, out), out);
}

/* A new tensor of shape sh. */
static int fresh(scope *s, const dlca__shape *sh, dlca_tensor **out) {
  return keep(s, dlca_tensor_new(s->ctx, sh->rank, sh->d, out), out);
}

/* grad_outputs.name (of shape want) uploaded. */
static int up_grad(scope *s, const dlca__ops_vector *v, const char *name, const dlca__shape *want, dlca_tensor **out) {
  const double *unused;
  const dlca__ops_tensor *t;
  int rc;
  if ((rc = dlca__ops_upstream(v, name, want, &unused)) || (rc = dlca__ops_vector_tensor(v, "grad_outputs", name, &t)))
    return rc;
  return up(s, t, out);
}

/* A new tensor of shape sh for the gradient slot g (NULL where the file has none). */
static int grad_slot(scope *s, const double *g, const dlca__shape *sh, dlca_tensor **out) {
  *out = NULL;
  return g ? fresh(s, sh, out) : DLCA_OK;
}

static int fetch_opt(const dlca_tensor *t, double *dst) { return t && dst ? dlca__ops_cl_fetch(t, dst) : DLCA_OK; }

static int fn_attr(const dlca__ops_vector *v, int (*from_name)(const char *), int *fn) {
  const char *name;
  int rc = dlca__ops_vector_attr_string(v, "fn", &name);
  if (rc) return rc;
  if ((*fn = from_name(name)) < 0) return BAD("%s: attrs.fn: \"%s\" is not a %s function", v->path, name, v->op);
  return DLCA_OK;
}

static int run_unary(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc;
  const dlca__ops_tensor *x;
  dlca__shape xs;
  double *y, *dx;
  dlca_tensor *tx, *ty, *tdy, *tdx;
  if ((rc = fn_attr(v, dlca__unary_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_out(v, r, "y", &xs, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx)) || (rc = up(s, x, &tx)) ||
      (rc = fresh(s, &xs, &ty)) || (rc = dlca__ops_cl_unary(s->ctx, (dlca__unary_fn)fn, tx, ty)) ||
      (rc = dlca__ops_cl_fetch(ty, y)) || !dx)
    return rc;
  if ((rc = up_grad(s, v, "y", &xs, &tdy)) || (rc = fresh(s, &xs, &tdx)) ||
      (rc = dlca__ops_cl_unary_backward(s->ctx, (dlca__unary_fn)fn, tx, ty, tdy, tdx)))
    return rc;
  return dlca__ops_cl_fetch(tdx, dx);
}

static int run_binary(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc;
  const dlca__ops_tensor *a, *b;
  dlca__shape as, bs, ys;
  double *y, *da, *db;
  dlca_tensor *ta, *tb, *ty, *tdy, *tda, *tdb;
  if ((rc = fn_attr(v, dlca__binary_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "a", &a, &as)) ||
      (rc = dlca__ops_input(v, "b", &b, &bs)) || (rc = dlca__ops_as_parse(v, dlca__broadcast_shape(&as, &bs, &ys))) ||
      (rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "a", &as, &da)) ||
      (rc = dlca__ops_grad(v, r, "b", &bs, &db)) || (rc = up(s, a, &ta)) || (rc = up(s, b, &tb)) ||
      (rc = fresh(s, &ys, &ty)) || (rc = dlca__ops_cl_binary(s->ctx, (dlca__binary_fn)fn, ta, tb, ty)) ||
      (rc = dlca__ops_cl_fetch(ty, y)) || (!da && !db))
    return rc;
  if ((rc = up_grad(s, v, "y", &ys, &tdy)) || (rc = grad_slot(s, da, &as, &tda)) ||
      (rc = grad_slot(s, db, &bs, &tdb)) ||
      (rc = dlca__ops_cl_binary_backward(s->ctx, (dlca__binary_fn)fn, ta, tb, tdy, tda, tdb)) ||
      (rc = fetch_opt(tda, da)))
    return rc;
  return fetch_opt(tdb, db);
}

static int run_reduce(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int fn, rc, kd;
  const dlca__ops_tensor *x;
  dlca__shape xs, ys;
  long axes[DLCA__MAX_RANK];
  size_t na;
  unsigned mask;
  double *y, *dx;
  dlca_tensor *tx, *ty, *tdy, *tdx;
  if ((rc = fn_attr(v, dlca__reduce_fn_from_name, &fn)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_vector_attr_ints(v, "axes", axes, DLCA__MAX_RANK, &na)) ||
      (rc = dlca__ops_vector_attr_bool(v, "keepdim", &kd)) ||
      (rc = dlca__ops_as_parse(v, dlca__reduce_shape(&xs, axes, na, kd, &mask, &ys))) ||
      (rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx)) || (rc = up(s, x, &tx)) ||
      (rc = fresh(s, &ys, &ty)) || (rc = dlca__ops_cl_reduce(s->ctx, (dlca__reduce_fn)fn, tx, mask, ty)) ||
      (rc = dlca__ops_cl_fetch(ty, y)) || !dx)
    return rc;
  if ((rc = up_grad(s, v, "y", &ys, &tdy)) || (rc = fresh(s, &xs, &tdx)) ||
      (rc = dlca__ops_cl_reduce_backward(s->ctx, (dlca__reduce_fn)fn, tx, mask, tdy, tdx)))
    return rc;
  return dlca__ops_cl_fetch(tdx, dx);
}

static int run_movement(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  dlca__move m;
  const dlca__ops_tensor *x;
  dlca__shape xs, ys;
  dlca__view view;
  double *y, *dx;
  dlca_tensor *tx, *ty, *tdy, *tdx;
  if ((rc = dlca__ops_vector_move(v, &m)) || (rc = dlca__ops_input(v, "x", &x, &xs)) ||
      (rc = dlca__ops_as_parse(v, dlca__move_plan(&m, &xs, &ys, &view))) || (rc = dlca__ops_out(v, r, "y", &ys, &y)) ||
      (rc = dlca__ops_grad(v, r, "x", &xs, &dx)) || (rc = up(s, x, &tx)) || (rc = fresh(s, &ys, &ty)) ||
      (rc = dlca__ops_cl_move(s->ctx, &m, tx, ty)) || (rc = dlca__ops_cl_fetch(ty, y)) || !dx)
    return rc;
  if ((rc = up_grad(s, v, "y", &ys, &tdy)) || (rc = fresh(s, &xs, &tdx)) ||
      (rc = dlca__ops_cl_move_backward(s->ctx, &m, tdy, tdx)))
    return rc;
  return dlca__ops_cl_fetch(tdx, dx);
}

static int run_mse(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  const dlca__ops_tensor *in, *t;
  dlca__shape is, ts, ls = {0, {0}};
  double *loss, *din, *dt;
  dlca_tensor *ti, *tt, *tl, *tg, *tdi, *tdt;
  if ((rc = dlca__ops_input(v, "input", &in, &is)) || (rc = dlca__ops_input(v, "target", &t, &ts))) return rc;
  if (!dlca__shape_eq(&is, &ts)) return BAD("%s: inputs.target: not the shape of inputs.input", v->path);
  if ((rc = dlca__ops_out(v, r, "loss", &ls, &loss)) || (rc = dlca__ops_grad(v, r, "input", &is, &din)) ||
      (rc = dlca__ops_grad(v, r, "target", &ts, &dt)) || (rc = up(s, in, &ti)) || (rc = up(s, t, &tt)) ||
      (rc = fresh(s, &ls, &tl)) || (rc = dlca__ops_cl_mse(s->ctx, ti, tt, tl)) || (rc = dlca__ops_cl_fetch(tl, loss)) ||
      (!din && !dt))
    return rc;
  if ((rc = up_grad(s, v, "loss", &ls, &tg)) || (rc = grad_slot(s, din, &is, &tdi)) ||
      (rc = grad_slot(s, dt, &ts, &tdt)) || (rc = dlca__ops_cl_mse_backward(s->ctx, ti, tt, tg, tdi, tdt)) ||
      (rc = fetch_opt(tdi, din)))
    return rc;
  return fetch_opt(tdt, dt);
}

/* Class indices outside [0, K) make the device loss NaN; the file is refused first, as the twin does. */
static int check_classes(const dlca__ops_vector *v, const dlca__ops_tensor *t, size_t K) {
  for (size_t i = 0; i < t->n; i++)
    if (!(t->data[i] >= 0 && t->data[i] < (double)K) || t->data[i] != (double)(long)t->data[i])
      return BAD("%s: inputs.target[%zu]: %g is not a class index in [0, %zu)", v->path, i, t->data[i], K);
  return DLCA_OK;
}

static int run_softmax_xent(scope *s, const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  const dlca__ops_tensor *l, *t;
  dlca__shape lsh, ts, ls = {0, {0}};
  double *loss, *dl;
  dlca_tensor *tl, *tt, *tloss, *tg, *tdl;
  if ((rc = dlca__ops_input(v, "logits", &l, &lsh)) || (rc = dlca__ops_input(v, "target", &t, &ts))) return rc;
  if (lsh.rank != 2 || ts.rank != 1 || ts.d[0] != lsh.d[0])
    return BAD("%s: inputs: expected logits [N, K] and target [N]", v->path);
  if ((rc = check_classes(v, t, lsh.d[1])) || (rc = dlca__ops_out(v, r, "loss", &ls, &loss)) ||
      (rc = dlca__ops_grad(v, r, "logits", &lsh, &dl)) || (rc = up(s, l, &tl)) || (rc = up(s, t, &tt)) ||
      (rc = fresh(s, &ls, &tloss)) || (rc = dlca__ops_cl_softmax_xent(s->ctx, tl, tt, tloss)) ||
      (rc = dlca__ops_cl_fetch(tloss, loss)) || !dl)
    return rc;
  if ((rc = up_grad(s, v, "loss", &ls, &tg)) || (rc = fresh(s, &lsh, &tdl)) ||
      (rc = dlca__ops_cl_softmax_xent_backward(s->ctx, tl, tt, tg, tdl)))
    return rc;
  return dlca__ops_cl_fetch(tdl, dl);
}

static double **alloc_set(const dlca__ops_set *s) {
  double **p = calloc(s->n + 1, sizeof(double *));
  for (size_t i = 0; p && i < s->n; i++)
    if (!(p[i] = calloc(s->t[i].n ? s->t[i].n : 1, sizeof(double)))) return p;
  return p;
}

int dlca__ops_result_alloc(const dlca__ops_vector *v, dlca__ops_result *r) {
  memset(r, 0, sizeof *r);
  r->n_out = v->outputs.n, r->n_grad = v->grads.n;
  r->out = alloc_set(&v->outputs), r->grad = alloc_set(&v->grads);
  int bad = !r->out || !r->grad;
  for (size_t k = 0; !bad && k < r->n_out; k++) bad = !r->out[k];
  for (size_t k = 0; !bad && k < r->n_grad; k++) bad = !r->grad[k];
  if (!bad) return DLCA_OK;
  dlca__ops_result_free(r);
  return dlca__fail(DLCA_ENOMEM, "%s: out of memory for the results", v->path);
}

/* The ops with a runner on the existing launchers. */
static const struct {
  const char *op;
  int (*run)(scope *, const dlca__ops_vector *, dlca__ops_result *);
} local_ops[] = {{"unary", run_unary},       {"binary", run_binary}, {"reduce", run_reduce},
                 {"movement", run_movement}, {"mse", run_mse},       {"softmax_cross_entropy", run_softmax_xent}};

/* The ops whose runners live with their launchers (interfaces.md), wired in
 * as their branches land; `own`: the runner allocates r itself (else it gets
 * r allocated, as dlca__ops_ref_run's runners do). */
static const struct {
  const char *op;
  int (*run)(dlca_context *, const dlca__ops_vector *, dlca__ops_result *);
  int own;
} other_ops[] = {{"optimizer", dlca__optim_run_vector, 1},   {"clip_grad_norm", dlca__optim_run_vector, 1},
                 {"lr_schedule", dlca__optim_run_vector, 1}, {"gemm", dlca__ops_cl_run_gemm, 0},
                 {"dense", dlca__ops_cl_run_dense, 0},       {"conv2d", dlca__ops_cl_run_conv2d, 0},
                 {"gru_cell", dlca__ops_cl_run_gru_cell, 1}, {"gru_sequence", dlca__ops_cl_run_gru_sequence, 1},
                 {"rsvd", dlca__ops_cl_run_rsvd, 1},         {NULL, NULL, 0}};

static int run_local(dlca_context *ctx, size_t i, const dlca__ops_vector *v, dlca__ops_result *r) {
  scope s = {ctx, 0, {NULL}};
  int rc = local_ops[i].run(&s, v, r);
  for (int k = 0; k < s.n; k++) dlca_tensor_free(s.t[k]);
  return rc;
}

int dlca__ops_cl_run(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  memset(r, 0, sizeof *r);
  if (!ctx) return dlca__fail(DLCA_EINVAL, "%s: no context (NULL)", v->path);
  int rc = DLCA_EUNSUPPORTED, found = 0;
  for (size_t i = 0; !found && i < sizeof local_ops / sizeof local_ops[0]; i++)
    if (!strcmp(v->op, local_ops[i].op) && (found = 1) && !(rc = dlca__ops_result_alloc(v, r)))
      rc = run_local(ctx, i, v, r);
  for (size_t i = 0; !found && other_ops[i].op; i++)
    if (!strcmp(v->op, other_ops[i].op) && (found = 1) && (other_ops[i].own || !(rc = dlca__ops_result_alloc(v, r))))
      rc = other_ops[i].run(ctx, v, r);
  if (!found) return dlca__fail(DLCA_EUNSUPPORTED, "%s: op %s not implemented", v->path, v->op);
  if (rc) dlca__ops_result_free(r);
  return rc;
}
