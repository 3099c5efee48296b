/* The dlca-net JSON format, version 1 (doc/ops.md): the input shape, the
 * loss and the layers in order, each dense and conv2d layer with its
 * weight and bias as flat row-major arrays. The reader checks every field
 * and names the file and the JSON path of the first bad one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/json_util.h"
#include "net/net_impl.h"

#define BAD(...) dlca__fail(DLCA_EPARSE, __VA_ARGS__)
#define NET_FILE_MAX ((size_t)1 << 30)

static json_t *floats(const float *v, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++)
    if (json_array_append_new(a, json_real((double)v[i]))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

static json_t *layer_json(const dlca_net *net, size_t i) {
  const dlca_net_layer *l = &net->layers[i];
  json_t *o = json_pack("{s:s}", "type", dlca_net_layer_name(l->kind));
  if (!o) return NULL;
  int bad = 0;
  if (dlca__net_has_params(l)) bad |= json_object_set_new(o, "units", json_integer((json_int_t)l->units));
  if (l->kind == DLCA_NET_CONV2D || l->kind == DLCA_NET_MAXPOOL || l->kind == DLCA_NET_MEANPOOL) {
    bad |= json_object_set_new(o, "kernel", json_integer(l->k));
    bad |= json_object_set_new(o, "stride", json_integer(dlca__net_stride(l)));
    if (l->kind == DLCA_NET_CONV2D) bad |= json_object_set_new(o, "padding", json_integer(l->pad));
  }
  if (dlca__net_has_params(l)) {
    const float *w = net->params + net->poff[i];
    bad |= json_object_set_new(o, "weight", floats(w, net->wsize[i]));
    bad |= json_object_set_new(o, "bias", floats(w + net->wsize[i], dlca__net_bsize(net, i)));
  }
  if (bad) json_decref(o);
  return bad ? NULL : o;
}

static json_t *net_json(const dlca_net *net) {
  const dlca__nshape *in = &net->shape[0];
  json_t *shape = in->rank == 1 ? json_pack("[I]", (json_int_t)in->d[0])
                                : json_pack("[III]", (json_int_t)in->d[0], (json_int_t)in->d[1], (json_int_t)in->d[2]);
  json_t *layers = json_array();
  json_t *root = json_pack("{s:s,s:i,s:o,s:s,s:o}", "format", "dlca-net", "version", 1, "input", shape, "loss",
                           dlca_net_loss_name(net->loss), "layers", layers);
  for (size_t i = 0; root && i < net->n_layers; i++)
    if (json_array_append_new(layers, layer_json(net, i))) {
      json_decref(root);
      return NULL;
    }
  return root;
}

int dlca_net_save(const dlca_net *net, const char *path) {
  if (!net || !path) return dlca__fail(DLCA_EINVAL, "dlca_net_save: NULL argument");
  for (size_t p = 0; p < net->n_params; p++)
    if (!isfinite(net->params[p]))
      return dlca__fail(DLCA_EINVAL, "%s: parameter %zu is %g; the network was not saved", path, p,
                        (double)net->params[p]);
  json_t *root = net_json(net);
  /* JSON_REAL_PRECISION(9): enough digits to read every float32 back exactly */
  char *text = root ? json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
  json_decref(root);
  if (!text) return dlca__fail(DLCA_ENOMEM, "%s: out of memory while writing the network", path);
  int rc = dlca__write_file_atomic(path, text, strlen(text));
  free(text);
  return rc;
}

/* An integer member key of o (at JSON path at) in [lo, hi]; absent is def (or an error if def < lo). */
static int get_int(const char *file, const char *at, json_t *o, const char *key, long lo, long hi, long def,
                   long *out) {
  json_t *j = json_object_get(o, key);
  if (!j && def >= lo) return *out = def, DLCA_OK;
  if (!j) return BAD("%s: %s.%s: missing", file, at, key);
  if (!json_is_integer(j)) return BAD("%s: %s.%s: expected an integer, found %s", file, at, key, dlca__json_type(j));
  json_int_t v = json_integer_value(j);
  if (v < lo || v > hi) return BAD("%s: %s.%s: %lld is not in [%ld, %ld]", file, at, key, (long long)v, lo, hi);
  *out = (long)v;
  return DLCA_OK;
}

/* Refuses members other than the type's (a typo would be silently ignored). */
static int known_keys(const char *file, const char *at, json_t *o, const char *const *keys) {
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    int ok = 0;
    for (size_t i = 0; keys[i] && !ok; i++) ok = strcmp(k, keys[i]) == 0;
    if (!ok) return BAD("%s: %s.%s: not a member of this layer type", file, at, k);
  }
  return DLCA_OK;
}

static const char *const dense_keys[] = {"type", "units", "weight", "bias", NULL};
static const char *const conv_keys[] = {"type", "units", "kernel", "stride", "padding", "weight", "bias", NULL};
static const char *const pool_keys[] = {"type", "kernel", "stride", NULL};
static const char *const plain_keys[] = {"type", NULL};

/* layers[i] of the file into l (the shape; the parameters come later). */
static int read_layer(const char *file, json_t *o, size_t i, dlca_net_layer *l) {
  char at[48];
  snprintf(at, sizeof at, "layers[%zu]", i);
  if (!json_is_object(o)) return BAD("%s: %s: expected an object, found %s", file, at, dlca__json_type(o));
  json_t *t = json_object_get(o, "type");
  if (!json_is_string(t)) return BAD("%s: %s.type: expected a string, found %s", file, at, t ? dlca__json_type(t) : "nothing");
  int kind = dlca_net_layer_from_name(json_string_value(t));
  if (kind < 0)
    return BAD("%s: %s.type: '%s' is not one of dense, conv2d, relu, sigmoid, tanh, flatten, maxpool, meanpool",
               file, at, json_string_value(t));
  memset(l, 0, sizeof *l);
  l->kind = kind;
  int win = kind == DLCA_NET_CONV2D || kind == DLCA_NET_MAXPOOL || kind == DLCA_NET_MEANPOOL;
  const char *const *keys = kind == DLCA_NET_DENSE ? dense_keys : kind == DLCA_NET_CONV2D ? conv_keys
                            : win ? pool_keys : plain_keys;
  long units = 0, k = 0, s = 0, p = 0;
  int rc = known_keys(file, at, o, keys);
  if (!rc && dlca__net_has_params(l)) rc = get_int(file, at, o, "units", 1, 65536, 0, &units);
  if (!rc && win) rc = get_int(file, at, o, "kernel", 1, 64, 0, &k);
  if (!rc && win) rc = get_int(file, at, o, "stride", 1, 64, 0, &s);
  if (!rc && kind == DLCA_NET_CONV2D) rc = get_int(file, at, o, "padding", 0, 63, 0, &p);
  l->units = (size_t)units, l->k = (int)k, l->stride = (int)s, l->pad = (int)p;
  return rc;
}

/* layers[i].key: an array of n numbers (out NULL: its length only, checked
 * before the parameters are allocated, so that a short file cannot ask for
 * gigabytes). */
static int read_floats(const char *file, json_t *o, size_t i, const char *key, size_t n, float *out) {
  json_t *a = json_object_get(o, key);
  if (!json_is_array(a))
    return BAD("%s: layers[%zu].%s: expected an array, found %s", file, i, key, a ? dlca__json_type(a) : "nothing");
  if (json_array_size(a) != n)
    return dlca__fail(DLCA_EMODEL, "%s: layers[%zu].%s: expected %zu numbers for the layer's shape, found %zu", file,
                      i, key, n, json_array_size(a));
  for (size_t e = 0; out && e < n; e++) {
    json_t *v = json_array_get(a, e);
    if (!json_is_number(v))
      return BAD("%s: layers[%zu].%s[%zu]: expected a number, found %s", file, i, key, e, dlca__json_type(v));
    double d = json_number_value(v);
    if (!isfinite((float)d))
      return BAD("%s: layers[%zu].%s[%zu]: %g is not a finite float32", file, i, key, e, d);
    out[e] = (float)d;
  }
  return DLCA_OK;
}

/* Every weight and bias of the file into net's parameters (params NULL: the counts only). */
static int read_params(const char *file, json_t *arr, dlca_net *net, float *params) {
  int rc = DLCA_OK;
  for (size_t i = 0; !rc && i < net->n_layers; i++) {
    if (!dlca__net_has_params(&net->layers[i])) continue;
    float *w = params ? params + net->poff[i] : NULL;
    json_t *o = json_array_get(arr, i);
    rc = read_floats(file, o, i, "weight", net->wsize[i], w);
    if (!rc) rc = read_floats(file, o, i, "bias", dlca__net_bsize(net, i), w ? w + net->wsize[i] : NULL);
  }
  return rc;
}

/* The header fields and the input shape into spec. */
static int read_head(const char *file, json_t *root, dlca_net_spec *spec, json_t **layers) {
  if (!json_is_object(root)) return BAD("%s: expected an object, found %s", file, dlca__json_type(root));
  json_t *f = json_object_get(root, "format"), *v = json_object_get(root, "version");
  if (!json_is_string(f) || strcmp(json_string_value(f), "dlca-net") != 0)
    return BAD("%s: format: expected \"dlca-net\"", file);
  if (!json_is_integer(v) || json_integer_value(v) != 1) return BAD("%s: version: expected 1", file);
  static const char *const keys[] = {"format", "version", "input", "loss", "layers", NULL};
  int rc = known_keys(file, "(top)", root, keys);
  if (rc) return rc;
  json_t *in = json_object_get(root, "input"), *loss = json_object_get(root, "loss");
  size_t r = json_array_size(in);
  if (!json_is_array(in) || (r != 1 && r != 3)) return BAD("%s: input: expected [F] or [C, H, W]", file);
  spec->in_rank = (int)r;
  for (size_t k = 0; k < r; k++) {
    json_t *e = json_array_get(in, k);
    if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > 65536)
      return BAD("%s: input[%zu]: expected an integer in [1, 65536]", file, k);
    spec->in_shape[k] = (size_t)json_integer_value(e);
  }
  const char *ln = json_is_string(loss) ? json_string_value(loss) : "";
  spec->loss = strcmp(ln, "softmax_cross_entropy") == 0 ? DLCA_NET_SOFTMAX_XENT : strcmp(ln, "mse") == 0 ? DLCA_NET_MSE : -1;
  if (spec->loss < 0) return BAD("%s: loss: expected \"softmax_cross_entropy\" or \"mse\"", file);
  *layers = json_object_get(root, "layers");
  if (!json_is_array(*layers) || json_array_size(*layers) < 1 || json_array_size(*layers) > 64)
    return BAD("%s: layers: expected an array of 1 to 64 layers", file);
  return DLCA_OK;
}

static int from_json(const char *file, json_t *root, dlca_net **out) {
  dlca_net_spec spec = {0};
  json_t *arr = NULL;
  int rc = read_head(file, root, &spec, &arr);
  if (rc) return rc;
  size_t L = json_array_size(arr);
  dlca_net_layer *ls = calloc(L, sizeof *ls);
  if (!ls) return dlca__fail(DLCA_ENOMEM, "%s: out of host memory", file);
  for (size_t i = 0; i < L && !rc; i++) rc = read_layer(file, json_array_get(arr, i), i, &ls[i]);
  spec.layers = ls, spec.n_layers = L;
  dlca_net *net = NULL;
  if (!rc && (rc = dlca__net_build(&spec, file, &net)) == DLCA_EINVAL) {
    char why[512]; /* the shape error, as the file's: DLCA_EMODEL */
    snprintf(why, sizeof why, "%s", dlca_last_error());
    rc = dlca__fail(DLCA_EMODEL, "%s", why);
  }
  free(ls);
  if (!rc) rc = read_params(file, arr, net, NULL);
  if (!rc && !(net->params = malloc((net->n_params ? net->n_params : 1) * sizeof(float))))
    rc = dlca__fail(DLCA_ENOMEM, "%s: out of host memory for %zu parameters", file, net->n_params);
  if (!rc) rc = read_params(file, arr, net, net->params);
  if (rc) dlca_net_free(net);
  else *out = net;
  return rc;
}

int dlca_net_load(const char *path, dlca_net **out) {
  if (!path || !out) return dlca__fail(DLCA_EINVAL, "dlca_net_load: NULL argument");
  *out = NULL;
  const dlca__read_limits lim = {NET_FILE_MAX, DLCA_EIO, "a network file", 0};
  char *text;
  size_t len;
  int rc = dlca__read_file_limited(path, &lim, &text, &len);
  if (rc) return rc;
  json_error_t err;
  json_t *root = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
  free(text);
  if (!root) return BAD("%s:%d:%d: not valid JSON: %s", path, err.line, err.column, err.text);
  rc = from_json(path, root, out);
  json_decref(root);
  return rc;
}
