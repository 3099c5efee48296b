/* Parity of a dlca-ops-vector file (include/dlca_cl/parity.h): the case run
 * on the CPU twin or a device, every output and gradient compared with the
 * file's at its tolerance. */
#include "dlca_cl/parity.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/cl_case.h"
#include "ops/ref_case.h"

int dlca_parity_vector_kind(const char *path, dlca_vector_kind *out) {
  if (!path || !out) return dlca__fail(DLCA_EINVAL, "dlca_parity_vector_kind: NULL argument");
  json_error_t e;
  json_t *root = json_load_file(path, 0, &e);
  if (!root) {
    FILE *f = fopen(path, "rb");
    if (!f) return dlca__fail(DLCA_EIO, "%s: cannot be read", path);
    fclose(f);
    return dlca__fail(DLCA_EPARSE, "%s:%d:%d: %s", path, e.line, e.column, e.text);
  }
  const char *fmt = json_string_value(json_object_get(root, "format"));
  *out = fmt && !strcmp(fmt, "dlca-ops-vector") ? DLCA_VECTOR_OPS : DLCA_VECTOR_JAX;
  json_decref(root);
  return DLCA_OK;
}

/* Adds the comparison of got with want as entry sec.name. */
static int note(dlca_ops_parity_report *p, const dlca__ops_vector *v, const char *sec, const dlca__ops_tensor *want,
                const double *got) {
  if (p->n >= DLCA_OPS_PARITY_MAX)
    return dlca__fail(DLCA_EPARSE, "%s: over %d outputs and gradients", v->path, DLCA_OPS_PARITY_MAX);
  dlca_ops_parity_entry *e = &p->entry[p->n++];
  dlca__ops_cmp c = dlca__ops_compare(got, want, v->tol_abs, v->tol_rel);
  snprintf(e->name, sizeof e->name, "%s.%s", sec, want->name);
  e->max_abs = c.worst, e->worst_ratio = c.worst_ratio, e->pass = c.pass;
  p->all_pass &= c.pass;
  return DLCA_OK;
}

/* The case's results on ctx (NULL: the twin). */
static int run_case(dlca_context *ctx, const dlca__ops_vector *v, dlca__ops_result *r) {
  return ctx ? dlca__ops_cl_run(ctx, v, r) : dlca__ops_ref_run(v, r);
}

int dlca_parity_ops_vector(dlca_context *ctx, const char *path, dlca_ops_parity_report *out) {
  if (!path || !out) return dlca__fail(DLCA_EINVAL, "dlca_parity_ops_vector: NULL argument");
  memset(out, 0, sizeof *out);
  dlca__ops_vector v;
  dlca__ops_result r;
  int rc = dlca__ops_vector_load(path, &v);
  if (!rc) rc = run_case(ctx, &v, &r);
  if (rc) {
    dlca__ops_vector_free(&v);
    return rc;
  }
  snprintf(out->case_name, sizeof out->case_name, "%s", v.name);
  snprintf(out->op, sizeof out->op, "%s", v.op);
  out->tol_abs = v.tol_abs, out->tol_rel = v.tol_rel, out->all_pass = 1;
  for (size_t i = 0; !rc && i < v.outputs.n; i++) rc = note(out, &v, "outputs", &v.outputs.t[i], r.out[i]);
  for (size_t i = 0; !rc && i < v.grads.n; i++) rc = note(out, &v, "grads", &v.grads.t[i], r.grad[i]);
  dlca__ops_result_free(&r);
  dlca__ops_vector_free(&v);
  return rc;
}
