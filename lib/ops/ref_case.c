/* Runs one dlca-ops-vector case on the CPU twin (lib/ops/ref_case.h): the
 * common part, result slots matched to the file by name and shape. */
#include "ops/ref_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_conv.h"
#include "ops/ref_ops.h"
#include "ops/run_blas.h"
#include "optim/vector.h"

dlca__shape dlca__ops_shape(const dlca__ops_tensor *t) {
  dlca__shape s = {t->rank, {0}};
  for (int k = 0; k < t->rank; k++) s.d[k] = t->shape[k];
  return s;
}

static void shape_text(const dlca__shape *s, char *buf, size_t len) {
  int p = snprintf(buf, len, "[");
  for (int k = 0; k < s->rank && p > 0 && (size_t)p < len; k++)
    p += snprintf(buf + p, len - (size_t)p, k ? ", %zu" : "%zu", s->d[k]);
  if (p > 0 && (size_t)p < len) snprintf(buf + p, len - (size_t)p, "]");
}

int dlca__ops_input(const dlca__ops_vector *v, const char *name, const dlca__ops_tensor **t, dlca__shape *s) {
  int rc = dlca__ops_vector_tensor(v, "inputs", name, t);
  if (!rc && s) *s = dlca__ops_shape(*t);
  return rc;
}

/* The slot of section.name in r, after checking the file's shape is want. */
static int slot(const dlca__ops_vector *v, dlca__ops_result *r, int grads, const char *name, const dlca__shape *want,
                double **out) {
  const dlca__ops_set *set = grads ? &v->grads : &v->outputs;
  const char *sec = grads ? "grads" : "outputs";
  *out = NULL;
  for (size_t i = 0; i < set->n; i++) {
    if (strcmp(set->t[i].name, name)) continue;
    dlca__shape have = dlca__ops_shape(&set->t[i]);
    if (!dlca__shape_eq(&have, want)) {
      char a[96], b[96];
      shape_text(&have, a, sizeof a), shape_text(want, b, sizeof b);
      return dlca__fail(DLCA_EPARSE, "%s: %s.%s.shape: %s, op %s gives %s", v->path, sec, name, a, v->op, b);
    }
    *out = grads ? r->grad[i] : r->out[i];
    return DLCA_OK;
  }
  if (grads) return DLCA_OK; /* a gradient the file does not ask for */
  return dlca__fail(DLCA_EPARSE, "%s: outputs.%s: missing (op %s)", v->path, name, v->op);
}

int dlca__ops_out(const dlca__ops_vector *v, dlca__ops_result *r, const char *name, const dlca__shape *want,
                  double **out) {
  return slot(v, r, 0, name, want, out);
}

int dlca__ops_grad(const dlca__ops_vector *v, dlca__ops_result *r, const char *name, const dlca__shape *want,
                   double **out) {
  return slot(v, r, 1, name, want, out);
}

int dlca__ops_upstream(const dlca__ops_vector *v, const char *name, const dlca__shape *want, const double **dy) {
  const dlca__ops_tensor *t;
  int rc = dlca__ops_vector_tensor(v, "grad_outputs", name, &t);
  if (rc) return rc;
  dlca__shape have = dlca__ops_shape(t);
  if (!dlca__shape_eq(&have, want))
    return dlca__fail(DLCA_EPARSE, "%s: grad_outputs.%s.shape: not the shape of outputs.%s", v->path, name, name);
  *dy = t->data;
  return DLCA_OK;
}

int dlca__ops_as_parse(const dlca__ops_vector *v, int rc) {
  if (rc != DLCA_EINVAL) return rc;
  char *msg = strdup(dlca_last_error()); /* the message buffer is rewritten below */
  rc = dlca__fail(DLCA_EPARSE, "%s: %s", v->path, msg ? msg : "invalid attrs or shapes");
  free(msg);
  return rc;
}

static double **alloc_set(const dlca__ops_set *s) {
  double **p = calloc(s->n + 1, sizeof(double *));
  for (size_t i = 0; p && i < s->n; i++)
    if (!(p[i] = calloc(s->t[i].n ? s->t[i].n : 1, sizeof(double)))) return p;
  return p;
}

static const struct {
  const char *op;
  int (*run)(const dlca__ops_vector *, dlca__ops_result *);
} ops[] = {{"unary", dlca__ops_run_unary},   {"binary", dlca__ops_run_binary},
           {"reduce", dlca__ops_run_reduce}, {"movement", dlca__ops_run_movement},
           {"mse", dlca__ops_run_mse},       {"softmax_cross_entropy", dlca__ops_run_softmax_xent},
           {"gemm", dlca__ops_run_gemm},     {"dense", dlca__ops_run_dense},
           {"conv2d", dlca__ops_run_conv2d},
           {"optimizer", dlca__optim_ref_case}, {"clip_grad_norm", dlca__optim_ref_case},
           {"lr_schedule", dlca__optim_ref_case}};

int dlca__ops_ref_run(const dlca__ops_vector *v, dlca__ops_result *r) {
  memset(r, 0, sizeof *r);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (strcmp(v->op, ops[i].op)) continue;
    r->n_out = v->outputs.n, r->n_grad = v->grads.n;
    r->out = alloc_set(&v->outputs), r->grad = alloc_set(&v->grads);
    int bad = !r->out || !r->grad;
    for (size_t k = 0; !bad && k < r->n_out; k++) bad = !r->out[k];
    for (size_t k = 0; !bad && k < r->n_grad; k++) bad = !r->grad[k];
    int rc = bad ? dlca__fail(DLCA_ENOMEM, "%s: out of memory for the results", v->path) : ops[i].run(v, r);
    if (rc) dlca__ops_result_free(r);
    return rc;
  }
  return dlca__fail(DLCA_EUNSUPPORTED, "%s: op %s not implemented", v->path, v->op);
}

void dlca__ops_result_free(dlca__ops_result *r) {
  for (size_t i = 0; r->out && i < r->n_out; i++) free(r->out[i]);
  for (size_t i = 0; r->grad && i < r->n_grad; i++) free(r->grad[i]);
  free(r->out), free(r->grad);
  memset(r, 0, sizeof *r);
}
