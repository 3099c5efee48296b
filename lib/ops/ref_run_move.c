/* The movement runner of a dlca-ops-vector case (lib/ops/ref_case.h): its
 * attrs per function (dims, shape, pads + value, ranges, strides). */
#include <string.h>

#include "core/internal.h"
#include "ops/ref_ops.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)

/* An array of [a, b] pairs, at most DLCA__MAX_RANK. */
static int pairs(const dlca__ops_vector *v, const char *key, dlca__move *m) {
  json_t *j = json_object_get(v->attrs, key);
  if (!json_is_array(j) || json_array_size(j) > DLCA__MAX_RANK)
    return BAD("%s: attrs.%s: expected an array of at most %d [a, b] pairs", v->path, key, DLCA__MAX_RANK);
  m->n = (int)json_array_size(j);
  for (int k = 0; k < m->n; k++) {
    json_t *p = json_array_get(j, (size_t)k);
    json_t *a = json_array_get(p, 0), *b = json_array_get(p, 1);
    if (json_array_size(p) != 2 || !json_is_integer(a) || !json_is_integer(b))
      return BAD("%s: attrs.%s[%d]: expected a pair of integers", v->path, key, k);
    m->arg[k][0] = (long)json_integer_value(a), m->arg[k][1] = (long)json_integer_value(b);
  }
  return DLCA_OK;
}

static int singles(const dlca__ops_vector *v, const char *key, dlca__move *m) {
  long a[DLCA__MAX_RANK];
  size_t n;
  int rc = dlca__ops_vector_attr_ints(v, key, a, DLCA__MAX_RANK, &n);
  if (rc) return rc;
  m->n = (int)n;
  for (size_t k = 0; k < n; k++) m->arg[k][0] = a[k], m->arg[k][1] = 0;
  return DLCA_OK;
}

int dlca__ops_vector_move(const dlca__ops_vector *v, dlca__move *m) {
  const char *name;
  int rc = dlca__ops_vector_attr_string(v, "fn", &name);
  if (rc) return rc;
  memset(m, 0, sizeof *m);
  int fn = dlca__move_fn_from_name(name);
  if (fn < 0) return BAD("%s: attrs.fn: \"%s\" is not a movement function", v->path, name);
  m->fn = (dlca__move_fn)fn;
  switch (m->fn) {
    case DLCA__M_permute:
      return singles(v, "dims", m);
    case DLCA__M_expand:
      return singles(v, "shape", m);
    case DLCA__M_stride:
      return singles(v, "strides", m);
    case DLCA__M_shrink:
      return pairs(v, "ranges", m);
    default:
      if ((rc = pairs(v, "pads", m))) return rc;
      return json_object_get(v->attrs, "value") ? dlca__ops_vector_attr_double(v, "value", &m->value) : DLCA_OK;
  }
}

int dlca__ops_run_movement(const dlca__ops_vector *v, dlca__ops_result *r) {
  int rc;
  dlca__move m;
  const dlca__ops_tensor *x;
  dlca__shape xs, ys;
  dlca__view view;
  double *y, *dx;
  const double *dy;
  if ((rc = dlca__ops_vector_move(v, &m)) || (rc = dlca__ops_input(v, "x", &x, &xs))) return rc;
  if ((rc = dlca__ops_as_parse(v, dlca__move_plan(&m, &xs, &ys, &view)))) return rc;
  if ((rc = dlca__ops_out(v, r, "y", &ys, &y)) || (rc = dlca__ops_grad(v, r, "x", &xs, &dx))) return rc;
  if ((rc = dlca__ref_move(&m, &xs, x->data, y))) return rc;
  if (!dx) return DLCA_OK;
  if ((rc = dlca__ops_upstream(v, "y", &ys, &dy))) return rc;
  return dlca__ref_move_backward(&m, &xs, dy, dx);
}
