/* Reader for the dlca-ops-vector files (shared/testdata/ops/README.md). */
#include "ops/vector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/json_util.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)
/* The largest vector file read (the public ones are under 1 MiB). */
#define OPS_VECTOR_MAX_BYTES ((size_t)64 << 20)

static int read_shape(const char *file, const char *sec, const char *name, json_t *js, dlca__ops_tensor *t) {
  if (!json_is_array(js))
    return BAD("%s: %s.%s.shape: expected an array, found %s", file, sec, name, dlca__json_type(js));
  size_t r = json_array_size(js);
  if (r > DLCA__OPS_MAX_RANK)
    return BAD("%s: %s.%s.shape: rank %zu is over the largest supported, %d", file, sec, name, r, DLCA__OPS_MAX_RANK);
  t->rank = (int)r;
  t->n = 1;
  for (size_t i = 0; i < r; i++) {
    json_t *d = json_array_get(js, i);
    if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > (1 << 28))
      return BAD("%s: %s.%s.shape[%zu]: expected a size from 0 to 2^28", file, sec, name, i);
    t->shape[i] = (size_t)json_integer_value(d);
    if (t->shape[i] && t->n > ((size_t)1 << 28) / t->shape[i])
      return BAD("%s: %s.%s.shape: over 2^28 elements", file, sec, name);
    t->n *= t->shape[i];
  }
  return DLCA_OK;
}

static int read_tensor(const char *file, const char *sec, const char *name, json_t *j, dlca__ops_tensor *t) {
  t->name = name;
  if (!json_is_object(j)) return BAD("%s: %s.%s: expected an object, found %s", file, sec, name, dlca__json_type(j));
  int rc = read_shape(file, sec, name, json_object_get(j, "shape"), t);
  if (rc) return rc;
  json_t *jd = json_object_get(j, "data");
  if (!json_is_array(jd))
    return BAD("%s: %s.%s.data: expected an array, found %s", file, sec, name, dlca__json_type(jd));
  if (json_array_size(jd) != t->n)
    return BAD("%s: %s.%s.data: %zu values, the shape has %zu", file, sec, name, json_array_size(jd), t->n);
  t->data = malloc(sizeof(double) * (t->n ? t->n : 1));
  if (!t->data) return dlca__fail(DLCA_ENOMEM, "%s: %s.%s: out of memory", file, sec, name);
  for (size_t i = 0; i < t->n; i++) {
    json_t *x = json_array_get(jd, i);
    if (!json_is_number(x))
      return BAD("%s: %s.%s.data[%zu]: expected a number, found %s", file, sec, name, i, dlca__json_type(x));
    t->data[i] = json_number_value(x);
  }
  return DLCA_OK;
}

/* A missing section is an empty set (ops without a backward have no grads). */
static int read_set(const char *file, json_t *root, const char *sec, dlca__ops_set *set) {
  json_t *j = json_object_get(root, sec);
  if (!j) return DLCA_OK;
  if (!json_is_object(j)) return BAD("%s: %s: expected an object, found %s", file, sec, dlca__json_type(j));
  set->t = calloc(json_object_size(j) + 1, sizeof(dlca__ops_tensor));
  if (!set->t) return dlca__fail(DLCA_ENOMEM, "%s: %s: out of memory", file, sec);
  const char *key;
  json_t *val;
  json_object_foreach(j, key, val) {
    int rc = read_tensor(file, sec, key, val, &set->t[set->n++]);
    if (rc) return rc;
  }
  return DLCA_OK;
}

static int read_header(dlca__ops_vector *v) {
  const char *f = v->path;
  json_t *r = v->root, *fmt = json_object_get(r, "format"), *ver = json_object_get(r, "version");
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "dlca-ops-vector") != 0)
    return BAD("%s: format: expected \"dlca-ops-vector\"", f);
  if (!json_is_integer(ver) || json_integer_value(ver) != 1)
    return BAD("%s: version: expected 1, the only version this library reads", f);
  json_t *op = json_object_get(r, "op"), *cs = json_object_get(r, "case");
  if (!json_is_string(op)) return BAD("%s: op: expected a string, found %s", f, dlca__json_type(op));
  v->op = json_string_value(op);
  v->name = json_is_string(cs) ? json_string_value(cs) : "";
  v->attrs = json_object_get(r, "attrs");
  if (!v->attrs) {
    v->attrs = json_object();
    if (!v->attrs || json_object_set_new(r, "attrs", v->attrs)) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", f);
  }
  if (!json_is_object(v->attrs)) return BAD("%s: attrs: expected an object, found %s", f, dlca__json_type(v->attrs));
  json_t *tol = json_object_get(r, "tolerance");
  json_t *ta = json_object_get(tol, "abs"), *tr = json_object_get(tol, "rel");
  if (!json_is_number(ta) || !json_is_number(tr) || json_number_value(ta) < 0 || json_number_value(tr) < 0)
    return BAD("%s: tolerance: expected {\"abs\": A, \"rel\": R} with A, R >= 0", f);
  v->tol_abs = json_number_value(ta);
  v->tol_rel = json_number_value(tr);
  return DLCA_OK;
}

static int load(const char *path, dlca__ops_vector *v) {
  v->path = strdup(path);
  if (!v->path) return dlca__fail(DLCA_ENOMEM, "%s: out of memory", path);
  dlca__read_limits lim = {OPS_VECTOR_MAX_BYTES, DLCA_EIO, "an ops vector", 0};
  char *text = NULL;
  size_t len = 0;
  int rc = dlca__read_file_limited(path, &lim, &text, &len);
  if (rc) return rc;
  json_error_t e;
  v->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  free(text);
  if (!v->root) return BAD("%s:%d:%d: %s", path, e.line, e.column, e.text);
  if (!json_is_object(v->root)) return BAD("%s: expected a JSON object at the top", path);
  if ((rc = read_header(v))) return rc;
  if ((rc = read_set(path, v->root, "inputs", &v->inputs))) return rc;
  if ((rc = read_set(path, v->root, "outputs", &v->outputs))) return rc;
  if ((rc = read_set(path, v->root, "grad_outputs", &v->grad_outputs))) return rc;
  return read_set(path, v->root, "grads", &v->grads);
}

int dlca__ops_vector_load(const char *path, dlca__ops_vector *v) {
  memset(v, 0, sizeof *v);
  int rc = load(path, v);
  if (rc) dlca__ops_vector_free(v);
  return rc;
}

static void free_set(dlca__ops_set *s) {
  for (size_t i = 0; s->t && i < s->n; i++) free(s->t[i].data);
  free(s->t);
}

void dlca__ops_vector_free(dlca__ops_vector *v) {
  if (!v) return;
  free_set(&v->inputs), free_set(&v->outputs), free_set(&v->grad_outputs), free_set(&v->grads);
  json_decref(v->root);
  free(v->path);
  memset(v, 0, sizeof *v);
}

const dlca__ops_tensor *dlca__ops_set_find(const dlca__ops_set *set, const char *name) {
  for (size_t i = 0; i < set->n; i++)
    if (!strcmp(set->t[i].name, name)) return &set->t[i];
  return NULL;
}

int dlca__ops_vector_tensor(const dlca__ops_vector *v, const char *section, const char *name,
                            const dlca__ops_tensor **out) {
  const dlca__ops_set *s = !strcmp(section, "inputs")         ? &v->inputs
                           : !strcmp(section, "outputs")      ? &v->outputs
                           : !strcmp(section, "grad_outputs") ? &v->grad_outputs
                           : !strcmp(section, "grads")        ? &v->grads
                                                              : NULL;
  *out = s ? dlca__ops_set_find(s, name) : NULL;
  if (!*out) return BAD("%s: %s.%s: missing (op %s)", v->path, section, name, v->op);
  return DLCA_OK;
}
