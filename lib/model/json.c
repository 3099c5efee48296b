/* The dlca-model JSON format, version 1 (doc/model-format.md). The reader
 * checks every field and names the JSON path of the first bad one, e.g.
 * "m.json: update.wires[3][0][17]: index 300 >= layer input 264". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model_impl.h"
#include "core/json_util.h"

#define BAD(...) dlca__fail(DLCA_EMODEL, __VA_ARGS__)


static int get_int(json_t *obj, const char *key, const char *where, const char *path, long lo, long hi,
                   int *out) {
  json_t *j = json_object_get(obj, key);
  if (!j) return BAD("%s: %s%s: missing", where, path, key);
  if (!json_is_integer(j)) return BAD("%s: %s%s: expected an integer, found %s", where, path, key, dlca__json_type(j));
  json_int_t v = json_integer_value(j);
  if (v < lo || v > hi)
    return BAD("%s: %s%s: %lld is not in [%ld, %ld]", where, path, key, (long long)v, lo, hi);
  *out = (int)v;
  return DLCA_OK;
}

static int get_array(json_t *obj, const char *key, const char *where, const char *path, json_t **out) {
  json_t *j = json_object_get(obj, key);
  if (!j) return BAD("%s: %s%s: missing", where, path, key);
  if (!json_is_array(j)) return BAD("%s: %s%s: expected an array, found %s", where, path, key, dlca__json_type(j));
  *out = j;
  return DLCA_OK;
}

static int read_layers(json_t *arr, const char *where, const char *path, int *n, int *layers) {
  size_t len = json_array_size(arr);
  if (len < 2 || len > DLCA_MAX_LAYERS)
    return BAD("%s: %s: needs 2 to %d entries, has %zu", where, path, DLCA_MAX_LAYERS, len);
  for (size_t i = 0; i < len; i++) {
    json_t *v = json_array_get(arr, i);
    if (!json_is_integer(v))
      return BAD("%s: %s[%zu]: expected an integer, found %s", where, path, i, dlca__json_type(v));
    json_int_t x = json_integer_value(v);
    if (x < 1 || x > 65536) return BAD("%s: %s[%zu]: %lld is not in [1, 65536]", where, path, i, (long long)x);
    layers[i] = (int)x;
  }
  *n = (int)len;
  return DLCA_OK;
}

/* wires[l] must be [[wa...], [wb...]] with n_gates entries on each side. */
static int check_wires(json_t *wires, int l, int n_gates, const char *where, const char *path) {
  json_t *lw = json_array_get(wires, (size_t)l);
  if (!json_is_array(lw) || json_array_size(lw) != 2)
    return BAD("%s: %s[%d]: expected [[wa...], [wb...]], found %s", where, path, l,
               lw ? (json_is_array(lw) ? "an array of the wrong length" : dlca__json_type(lw)) : "nothing");
  for (int side = 0; side < 2; side++) {
    json_t *v = json_array_get(lw, (size_t)side);
    if (!json_is_array(v))
      return BAD("%s: %s[%d][%d]: expected an array, found %s", where, path, l, side, dlca__json_type(v));
    if (json_array_size(v) != (size_t)n_gates)
      return BAD("%s: %s[%d][%d]: %zu wires, but the layer has %d gates", where, path, l, side,
                 json_array_size(v), n_gates);
  }
  return DLCA_OK;
}

/* wires: [[wa...], [wb...]] per layer; path is e.g. "update.wires" */
static int read_wires(json_t *wires, int l, dlca_layer *L, const char *where, const char *path) {
  int rc = check_wires(wires, l, L->n_gates, where, path);
  if (rc) return rc;
  json_t *lw = json_array_get(wires, (size_t)l);
  for (int side = 0; side < 2; side++) {
    json_t *v = json_array_get(lw, (size_t)side);
    int32_t *dst = side ? L->wb : L->wa;
    for (int g = 0; g < L->n_gates; g++) {
      json_t *x = json_array_get(v, (size_t)g);
      if (!json_is_integer(x))
        return BAD("%s: %s[%d][%d][%d]: expected an integer, found %s", where, path, l, side, g, dlca__json_type(x));
      json_int_t idx = json_integer_value(x);
      if (idx < 0 || idx >= L->n_in)
        return BAD("%s: %s[%d][%d][%d]: index %lld %s layer input %d", where, path, l, side, g,
                   (long long)idx, idx < 0 ? "is negative for" : ">=", L->n_in);
      dst[g] = (int32_t)idx;
    }
  }
  return DLCA_OK;
}

/* One gate's npg logits (16, or 4 under IWP); path has the gate's full index already. */
static int read_gate(json_t *v, int npg, float *dst, const char *where, const char *path) {
  if (!json_is_array(v) || json_array_size(v) != (size_t)npg)
    return BAD("%s: %s: expected %d logits%s, found %s", where, path, npg, npg == 4 ? " (parametrisation iwp)" : "",
               json_is_array(v) ? "an array of the wrong length" : (v ? dlca__json_type(v) : "nothing"));
  for (int i = 0; i < npg; i++) {
    json_t *x = json_array_get(v, (size_t)i);
    if (!json_is_number(x)) return BAD("%s: %s[%d]: expected a number, found %s", where, path, i, dlca__json_type(x));
    double d = json_number_value(x);
    float f = (float)d;
    if (!isfinite(d) || !isfinite(f)) return BAD("%s: %s[%d]: logit %g is not finite in float32", where, path, i, d);
    dst[i] = f;
  }
  return DLCA_OK;
}

static int read_sized(json_t *v, size_t n, const char *where, const char *path, const char *what) {
  if (!json_is_array(v)) return BAD("%s: %s: expected an array, found %s", where, path, v ? dlca__json_type(v) : "nothing");
  if (json_array_size(v) != n) return BAD("%s: %s: %zu entries, but the layer has %zu %s", where, path, json_array_size(v), n, what);
  return DLCA_OK;
}

/* The arrays of a model file, by layer: perceive.wires, perceive.logits,
 * update.wires, update.logits. */
typedef struct model_arrays {
  json_t *pw, *plg, *uw, *ulg;
} model_arrays;

/* The header: format, version, channels, periodic, parametrisation. */
static int read_header(json_t *root, const char *where, dlca_model_shape *s) {
  if (!json_is_object(root)) return BAD("%s: expected a dlca-model object, found %s", where, dlca__json_type(root));
  json_t *fmt = json_object_get(root, "format");
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "dlca-model") != 0)
    return BAD("%s: format: expected \"dlca-model\"", where);
  int version, rc;
  if ((rc = get_int(root, "version", where, "", 1, 1, &version))) return rc;
  if ((rc = get_int(root, "channels", where, "", 1, 4096, &s->channels))) return rc;
  json_t *per = json_object_get(root, "periodic");
  if (!json_is_boolean(per))
    return BAD("%s: periodic: expected true or false, found %s", where, per ? dlca__json_type(per) : "nothing");
  s->periodic = json_is_true(per);
  /* optional (issue 6): absent means the paper's softmax-16 */
  json_t *par = json_object_get(root, "parametrisation");
  if (par) {
    const char *pv = json_is_string(par) ? json_string_value(par) : NULL;
    if (pv && !strcmp(pv, "iwp")) s->parametrisation = DLCA_PARAM_IWP;
    else if (pv && !strcmp(pv, "softmax16")) s->parametrisation = DLCA_PARAM_SOFTMAX16;
    else if (pv) return BAD("%s: parametrisation: \"%.64s\" is not \"softmax16\" or \"iwp\"", where, pv);
    else return BAD("%s: parametrisation: expected \"softmax16\" or \"iwp\", found %s", where, dlca__json_type(par));
  }
  return DLCA_OK;
}

/* The whole shape, validated, and the arrays of its layers, each as many as
 * the shape has layers. */
static int read_shape(json_t *root, const char *where, dlca_model_shape *s, model_arrays *a) {
  int rc = read_header(root, where, s);
  if (rc) return rc;
  json_t *P = json_object_get(root, "perceive"), *U = json_object_get(root, "update");
  if (!json_is_object(P)) return BAD("%s: perceive: expected an object, found %s", where, P ? dlca__json_type(P) : "nothing");
  if (!json_is_object(U)) return BAD("%s: update: expected an object, found %s", where, U ? dlca__json_type(U) : "nothing");
  if ((rc = get_int(P, "n_kernels", where, "perceive.", 1, 4096, &s->n_kernels))) return rc;
  json_t *pl, *ul;
  if ((rc = get_array(P, "layers", where, "perceive.", &pl)) || (rc = get_array(P, "wires", where, "perceive.", &a->pw)) ||
      (rc = get_array(P, "logits", where, "perceive.", &a->plg)) || (rc = get_array(U, "layers", where, "update.", &ul)) ||
      (rc = get_array(U, "wires", where, "update.", &a->uw)) || (rc = get_array(U, "logits", where, "update.", &a->ulg)))
    return rc;
  if ((rc = read_layers(pl, where, "perceive.layers", &s->n_perceive_layers, s->perceive_layers))) return rc;
  if ((rc = read_layers(ul, where, "update.layers", &s->n_update_layers, s->update_layers))) return rc;
  s->perceive_first_wiring = DLCA_WIRING_FIRST_KERNEL;
  s->wiring = DLCA_WIRING_UNIQUE;
  if ((rc = dlca__shape_validate(s, 0))) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", dlca_last_error());
    return BAD("%s: %s", where, msg);
  }
  size_t nP = (size_t)s->n_perceive_layers - 1, nU = (size_t)s->n_update_layers - 1;
  if (json_array_size(a->pw) != nP) return BAD("%s: perceive.wires: %zu layers, but perceive.layers has %zu", where, json_array_size(a->pw), nP);
  if (json_array_size(a->plg) != nP) return BAD("%s: perceive.logits: %zu layers, but perceive.layers has %zu", where, json_array_size(a->plg), nP);
  if (json_array_size(a->uw) != nU) return BAD("%s: update.wires: %zu layers, but update.layers has %zu", where, json_array_size(a->uw), nU);
  if (json_array_size(a->ulg) != nU) return BAD("%s: update.logits: %zu layers, but update.layers has %zu", where, json_array_size(a->ulg), nU);
  return DLCA_OK;
}

/* Every array length before any allocation: the shape alone may claim
 * gigabytes of logits (4096 kernels of 65536 gates); the arrays that hold
 * them must then be in the file, so memory stays bounded by the file. */
static int check_sizes(const model_arrays *a, const dlca_model_shape *s, const char *where) {
  char path[128];
  int rc = DLCA_OK;
  for (int l = 0; l < s->n_perceive_layers - 1 && !rc; l++) {
    int G = s->perceive_layers[l + 1];
    if ((rc = check_wires(a->pw, l, G, where, "perceive.wires"))) break;
    json_t *lk = json_array_get(a->plg, (size_t)l);
    snprintf(path, sizeof path, "perceive.logits[%d]", l);
    if ((rc = read_sized(lk, (size_t)s->n_kernels, where, path, "kernels"))) break;
    for (int k = 0; k < s->n_kernels && !rc; k++) {
      snprintf(path, sizeof path, "perceive.logits[%d][%d]", l, k);
      rc = read_sized(json_array_get(lk, (size_t)k), (size_t)G, where, path, "gates");
    }
  }
  for (int l = 0; l < s->n_update_layers - 1 && !rc; l++) {
    int G = s->update_layers[l + 1];
    if ((rc = check_wires(a->uw, l, G, where, "update.wires"))) break;
    snprintf(path, sizeof path, "update.logits[%d]", l);
    rc = read_sized(json_array_get(a->ulg, (size_t)l), (size_t)G, where, path, "gates");
  }
  return rc;
}

/* The wires and logits of every layer into m. */
static int read_params(const model_arrays *a, const char *where, dlca_model *m) {
  const dlca_model_shape *s = &m->shape;
  const int npg = dlca__npg(s->parametrisation);
  char path[128];
  int rc = DLCA_OK;
  for (int l = 0; l < s->n_perceive_layers - 1 && !rc; l++) {
    dlca_layer *L = &m->perceive[l];
    if ((rc = read_wires(a->pw, l, L, where, "perceive.wires"))) break;
    json_t *lk = json_array_get(a->plg, (size_t)l);
    snprintf(path, sizeof path, "perceive.logits[%d]", l);
    if ((rc = read_sized(lk, (size_t)s->n_kernels, where, path, "kernels"))) break;
    for (int k = 0; k < s->n_kernels && !rc; k++) {
      json_t *kg = json_array_get(lk, (size_t)k);
      snprintf(path, sizeof path, "perceive.logits[%d][%d]", l, k);
      if ((rc = read_sized(kg, (size_t)L->n_gates, where, path, "gates"))) break;
      for (int g = 0; g < L->n_gates && !rc; g++) {
        snprintf(path, sizeof path, "perceive.logits[%d][%d][%d]", l, k, g);
        rc = read_gate(json_array_get(kg, (size_t)g), npg, m->params + L->offset + ((size_t)k * L->n_gates + g) * npg,
                       where, path);
      }
    }
  }
  for (int l = 0; l < s->n_update_layers - 1 && !rc; l++) {
    dlca_layer *L = &m->update[l];
    if ((rc = read_wires(a->uw, l, L, where, "update.wires"))) break;
    json_t *lg = json_array_get(a->ulg, (size_t)l);
    snprintf(path, sizeof path, "update.logits[%d]", l);
    if ((rc = read_sized(lg, (size_t)L->n_gates, where, path, "gates"))) break;
    for (int g = 0; g < L->n_gates && !rc; g++) {
      snprintf(path, sizeof path, "update.logits[%d][%d]", l, g);
      rc = read_gate(json_array_get(lg, (size_t)g), npg, m->params + L->offset + (size_t)g * npg, where, path);
    }
  }
  return rc;
}

int dlca__model_from_json(json_t *root, const char *where, dlca_model **out) {
  *out = NULL;
  dlca_model_shape s;
  memset(&s, 0, sizeof s);
  model_arrays a;
  int rc = read_shape(root, where, &s, &a);
  if (!rc) rc = check_sizes(&a, &s, where);
  if (rc) return rc;
  dlca_model *m;
  if ((rc = dlca__model_alloc(&s, &m))) return rc;
  if ((rc = read_params(&a, where, m))) {
    dlca_model_free(m);
    return rc;
  }
  *out = m;
  return DLCA_OK;
}

static json_t *int_array(const int32_t *v, int n) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_integer(v[i]));
  return a;
}

static json_t *gate_array(const float *l, int npg) {
  json_t *a = json_array();
  for (int i = 0; i < npg; i++) json_array_append_new(a, json_real(l[i]));
  return a;
}

json_t *dlca__model_to_json(const dlca_model *m) {
  const dlca_model_shape *s = &m->shape;
  const int npg = dlca__model_npg(m);
  json_t *root = json_object(), *P = json_object(), *U = json_object();
  json_object_set_new(root, "format", json_string("dlca-model"));
  json_object_set_new(root, "version", json_integer(1));
  json_object_set_new(root, "channels", json_integer(s->channels));
  json_object_set_new(root, "periodic", json_boolean(s->periodic));
  /* only where it is not the default, so that softmax-16 files keep their bytes */
  if (s->parametrisation != DLCA_PARAM_SOFTMAX16)
    json_object_set_new(root, "parametrisation", json_string(dlca_parametrisation_name(s->parametrisation)));
  json_object_set_new(P, "n_kernels", json_integer(s->n_kernels));
  json_t *pl = json_array(), *pw = json_array(), *plg = json_array();
  for (int i = 0; i < s->n_perceive_layers; i++) json_array_append_new(pl, json_integer(s->perceive_layers[i]));
  for (int l = 0; l < m->n_perceive; l++) {
    const dlca_layer *L = &m->perceive[l];
    json_t *w = json_array(), *lk = json_array();
    json_array_append_new(w, int_array(L->wa, L->n_gates));
    json_array_append_new(w, int_array(L->wb, L->n_gates));
    json_array_append_new(pw, w);
    for (int k = 0; k < s->n_kernels; k++) {
      json_t *kg = json_array();
      for (int g = 0; g < L->n_gates; g++)
        json_array_append_new(kg, gate_array(m->params + L->offset + ((size_t)k * L->n_gates + g) * npg, npg));
      json_array_append_new(lk, kg);
    }
    json_array_append_new(plg, lk);
  }
  json_object_set_new(P, "layers", pl);
  json_object_set_new(P, "wires", pw);
  json_object_set_new(P, "logits", plg);
  json_t *ul = json_array(), *uw = json_array(), *ulg = json_array();
  for (int i = 0; i < s->n_update_layers; i++) json_array_append_new(ul, json_integer(s->update_layers[i]));
  for (int l = 0; l < m->n_update; l++) {
    const dlca_layer *L = &m->update[l];
    json_t *w = json_array(), *lg = json_array();
    json_array_append_new(w, int_array(L->wa, L->n_gates));
    json_array_append_new(w, int_array(L->wb, L->n_gates));
    json_array_append_new(uw, w);
    for (int g = 0; g < L->n_gates; g++) json_array_append_new(lg, gate_array(m->params + L->offset + (size_t)g * npg, npg));
    json_array_append_new(ulg, lg);
  }
  json_object_set_new(U, "layers", ul);
  json_object_set_new(U, "wires", uw);
  json_object_set_new(U, "logits", ulg);
  json_object_set_new(root, "perceive", P);
  json_object_set_new(root, "update", U);
  return root;
}

/* A model file of the largest shapes is tens of MiB; beyond this it is not one. */
#define MODEL_MAX ((size_t)512 << 20)

int dlca_model_load(const char *path, dlca_model **out) {
  if (!path || !out) return dlca__fail(DLCA_EINVAL, "dlca_model_load: NULL argument");
  *out = NULL;
  const dlca__read_limits lim = {MODEL_MAX, DLCA_EIO, "a model file", 0};
  char *text;
  size_t len;
  int rc = dlca__read_file_limited(path, &lim, &text, &len);
  if (rc) return rc; /* missing, unreadable, a FIFO, a directory, too large */
  json_error_t err;
  /* duplicate keys are refused: "last one wins" would hide a hand edit */
  json_t *root = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
  free(text);
  if (!root) return dlca__fail(DLCA_EPARSE, "%s:%d:%d: not valid JSON: %s", path, err.line, err.column, err.text);
  rc = dlca__model_from_json(root, path, out);
  json_decref(root);
  return rc;
}

/* The JSON path of flat logit i ("update.logits[1][3][7]"). */
static void logit_path(const dlca_model *m, size_t i, char *buf, size_t n) {
  const size_t npg = (size_t)dlca__model_npg(m);
  for (int l = 0; l < m->n_perceive; l++) {
    const dlca_layer *L = &m->perceive[l];
    size_t G = (size_t)L->n_gates, len = (size_t)m->shape.n_kernels * G * npg;
    if (i >= L->offset && i < L->offset + len) {
      size_t j = i - L->offset;
      snprintf(buf, n, "perceive.logits[%d][%zu][%zu][%zu]", l, j / (G * npg), j / npg % G, j % npg);
      return;
    }
  }
  for (int l = 0; l < m->n_update; l++) {
    const dlca_layer *L = &m->update[l];
    if (i >= L->offset && i < L->offset + (size_t)L->n_gates * npg) {
      size_t j = i - L->offset;
      snprintf(buf, n, "update.logits[%d][%zu][%zu]", l, j / npg, j % npg);
      return;
    }
  }
  snprintf(buf, n, "logit %zu", i);
}

int dlca_model_save(const dlca_model *m, const char *path) {
  if (!m || !path) return dlca__fail(DLCA_EINVAL, "dlca_model_save: NULL argument");
  /* JSON has no NaN or infinity: json_real() would return NULL and the gate
   * would be written with too few logits. Refuse instead. */
  for (size_t i = 0; i < m->n_params; i++)
    if (!isfinite(m->params[i])) {
      char where[96];
      logit_path(m, i, where, sizeof where);
      return dlca__fail(DLCA_EMODEL, "%s: %s: logit %g is not finite; the model was not saved", path, where,
                        (double)m->params[i]);
    }
  json_t *root = dlca__model_to_json(m);
  /* JSON_REAL_PRECISION(9): enough digits to read every float32 back exactly */
  char *text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9));
  json_decref(root);
  if (!text) return dlca__fail(DLCA_ENOMEM, "%s: out of memory while writing the model", path);
  int rc = dlca__write_file_atomic(path, text, strlen(text));
  free(text);
  return rc;
}
