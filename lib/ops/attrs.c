/* Typed getters of a dlca-ops-vector's attrs, and the comparison of a result
 * against the file's values at its tolerance (shared/testdata/ops/README.md). */
#include <math.h>

#include "core/internal.h"
#include "core/json_util.h"
#include "ops/vector.h"

static int get(const dlca__ops_vector *v, const char *key, const char *want, int ok, json_t **out) {
  json_t *j = json_object_get(v->attrs, key);
  *out = j;
  if (!j) return dlca__fail(DLCA_EPARSE, "%s: attrs.%s: missing (op %s)", v->path, key, v->op);
  if (!ok)
    return dlca__fail(DLCA_EPARSE, "%s: attrs.%s: expected %s, found %s", v->path, key, want, dlca__json_type(j));
  return DLCA_OK;
}

int dlca__ops_vector_attr_string(const dlca__ops_vector *v, const char *key, const char **out) {
  json_t *j = json_object_get(v->attrs, key);
  int rc = get(v, key, "a string", json_is_string(j), &j);
  if (!rc) *out = json_string_value(j);
  return rc;
}

int dlca__ops_vector_attr_double(const dlca__ops_vector *v, const char *key, double *out) {
  json_t *j = json_object_get(v->attrs, key);
  int rc = get(v, key, "a number", json_is_number(j), &j);
  if (!rc) *out = json_number_value(j);
  return rc;
}

int dlca__ops_vector_attr_int(const dlca__ops_vector *v, const char *key, long *out) {
  json_t *j = json_object_get(v->attrs, key);
  int rc = get(v, key, "an integer", json_is_integer(j), &j);
  if (!rc) *out = (long)json_integer_value(j);
  return rc;
}

int dlca__ops_vector_attr_bool(const dlca__ops_vector *v, const char *key, int *out) {
  json_t *j = json_object_get(v->attrs, key);
  int rc = get(v, key, "true or false", json_is_boolean(j), &j);
  if (!rc) *out = json_is_true(j);
  return rc;
}

int dlca__ops_vector_attr_ints(const dlca__ops_vector *v, const char *key, long *out, size_t max, size_t *n) {
  json_t *j = json_object_get(v->attrs, key);
  int rc = get(v, key, "an array", json_is_array(j), &j);
  if (rc) return rc;
  if (json_array_size(j) > max)
    return dlca__fail(DLCA_EPARSE, "%s: attrs.%s: %zu entries, at most %zu", v->path, key, json_array_size(j), max);
  for (size_t i = 0; i < json_array_size(j); i++) {
    json_t *x = json_array_get(j, i);
    if (!json_is_integer(x))
      return dlca__fail(DLCA_EPARSE, "%s: attrs.%s[%zu]: expected an integer, found %s", v->path, key, i,
                        dlca__json_type(x));
    out[i] = (long)json_integer_value(x);
  }
  *n = json_array_size(j);
  return DLCA_OK;
}

static void step(dlca__ops_cmp *c, double got, double want, size_t i, double abs, double rel) {
  double d = fabs(got - want);
  if (isnan(d)) d = INFINITY;
  double bound = abs + rel * fabs(want);
  double ratio = bound > 0 ? d / bound : (d > 0 ? INFINITY : 0);
  if (d > c->worst) c->worst = d;
  if (ratio > c->worst_ratio) c->worst_ratio = ratio, c->worst_index = i;
  if (!(d <= bound)) c->pass = 0;
}

dlca__ops_cmp dlca__ops_compare(const double *got, const dlca__ops_tensor *want, double abs, double rel) {
  dlca__ops_cmp c = {0, 0, 0, 1};
  for (size_t i = 0; i < want->n; i++) step(&c, got[i], want->data[i], i, abs, rel);
  return c;
}

dlca__ops_cmp dlca__ops_compare_f(const float *got, const dlca__ops_tensor *want, double abs, double rel) {
  dlca__ops_cmp c = {0, 0, 0, 1};
  for (size_t i = 0; i < want->n; i++) step(&c, (double)got[i], want->data[i], i, abs, rel);
  return c;
}
