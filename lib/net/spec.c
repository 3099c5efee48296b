/* The network description: layer names, the digits presets, and the check
 * of a spec that derives every layer's shapes and parameter offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/net_impl.h"

static const char *const layer_names[DLCA_NET_LAYER_KINDS] = {"dense",   "conv2d",  "relu",    "sigmoid",
                                                              "tanh",    "flatten", "maxpool", "meanpool"};

const char *dlca_net_layer_name(int kind) {
  return kind >= 0 && kind < DLCA_NET_LAYER_KINDS ? layer_names[kind] : NULL;
}

int dlca_net_layer_from_name(const char *name) {
  for (int k = 0; name && k < DLCA_NET_LAYER_KINDS; k++)
    if (strcmp(name, layer_names[k]) == 0) return k;
  return -1;
}

const char *dlca_net_loss_name(int loss) {
  return loss == DLCA_NET_SOFTMAX_XENT ? "softmax_cross_entropy" : loss == DLCA_NET_MSE ? "mse" : NULL;
}

static const dlca_net_layer mlp_layers[] = {
    {DLCA_NET_DENSE, 128, 0, 0, 0}, {DLCA_NET_RELU, 0, 0, 0, 0}, {DLCA_NET_DENSE, 10, 0, 0, 0}};
static const dlca_net_layer cnn_layers[] = {
    {DLCA_NET_CONV2D, 16, 3, 1, 1}, {DLCA_NET_RELU, 0, 0, 0, 0}, {DLCA_NET_CONV2D, 32, 3, 1, 1},
    {DLCA_NET_RELU, 0, 0, 0, 0},    {DLCA_NET_MAXPOOL, 0, 2, 2, 0}, {DLCA_NET_FLATTEN, 0, 0, 0, 0},
    {DLCA_NET_DENSE, 10, 0, 0, 0}};

int dlca_net_preset(const char *name, dlca_net_spec *out) {
  if (!name || !out) return dlca__fail(DLCA_EINVAL, "dlca_net_preset: NULL argument");
  memset(out, 0, sizeof *out);
  out->loss = DLCA_NET_SOFTMAX_XENT;
  if (strcmp(name, "mlp") == 0) {
    out->in_rank = 1, out->in_shape[0] = 64;
    out->layers = mlp_layers, out->n_layers = sizeof mlp_layers / sizeof mlp_layers[0];
  } else if (strcmp(name, "cnn") == 0) {
    out->in_rank = 3, out->in_shape[0] = 1, out->in_shape[1] = 8, out->in_shape[2] = 8;
    out->layers = cnn_layers, out->n_layers = sizeof cnn_layers / sizeof cnn_layers[0];
  } else {
    return dlca__fail(DLCA_EINVAL, "model '%s' is not one of mlp, cnn", name);
  }
  return DLCA_OK;
}

size_t dlca__nshape_n(const dlca__nshape *s) {
  size_t n = 1;
  for (int k = 0; k < s->rank; k++) n *= s->d[k];
  return n;
}

void dlca__nshape_text(const dlca__nshape *s, char *buf, size_t len) {
  if (s->rank == 1) snprintf(buf, len, "[%zu]", s->d[0]);
  else snprintf(buf, len, "[%zu, %zu, %zu]", s->d[0], s->d[1], s->d[2]);
}

int dlca__net_has_params(const dlca_net_layer *l) { return l->kind == DLCA_NET_DENSE || l->kind == DLCA_NET_CONV2D; }

int dlca__net_stride(const dlca_net_layer *l) {
  if (l->stride > 0) return l->stride;
  return l->kind == DLCA_NET_CONV2D ? 1 : l->k;
}

size_t dlca__net_bsize(const dlca_net *net, size_t i) {
  return dlca__net_has_params(&net->layers[i]) ? net->layers[i].units : 0;
}

/* Elements per sample and per layer stay far below 2^31 (device indices). */
#define NET_MAX_SIZE ((size_t)1 << 28)

/* The output shape of a window (conv2d or pool) over in, or an error naming layer i. */
static int window_shape(const dlca_net_layer *l, size_t i, const char *where, const dlca__nshape *in,
                        dlca__nshape *o) {
  const char *name = layer_names[l->kind];
  if (in->rank != 3)
    return dlca__fail(DLCA_EINVAL, "%s: layers[%zu] (%s): needs an image input [C, H, W], got a flat one", where, i,
                      name);
  if (l->k < 1 || l->k > 64 || l->stride < 0 || l->stride > 64 || l->pad < 0 || l->pad >= l->k)
    return dlca__fail(DLCA_EINVAL, "%s: layers[%zu] (%s): k = %d, stride = %d, pad = %d: need 1 <= k <= 64, "
                      "0 <= stride <= 64, 0 <= pad < k", where, i, name, l->k, l->stride, l->pad);
  size_t s = (size_t)dlca__net_stride(l), p = (size_t)l->pad, k = (size_t)l->k;
  if (in->d[1] + 2 * p < k || in->d[2] + 2 * p < k)
    return dlca__fail(DLCA_EINVAL, "%s: layers[%zu] (%s): a %dx%d window does not fit the input [%zu, %zu, %zu]",
                      where, i, name, l->k, l->k, in->d[0], in->d[1], in->d[2]);
  o->rank = 3;
  o->d[0] = l->kind == DLCA_NET_CONV2D ? l->units : in->d[0];
  o->d[1] = (in->d[1] + 2 * p - k) / s + 1, o->d[2] = (in->d[2] + 2 * p - k) / s + 1;
  return DLCA_OK;
}

/* Layer i's output shape from its input, or an error naming it. */
static int layer_shape(const dlca_net_layer *l, size_t i, const char *where, const dlca__nshape *in,
                       dlca__nshape *o) {
  if (l->kind < 0 || l->kind >= DLCA_NET_LAYER_KINDS)
    return dlca__fail(DLCA_EINVAL, "%s: layers[%zu]: unknown kind %d", where, i, l->kind);
  const char *name = layer_names[l->kind];
  if (dlca__net_has_params(l) && (l->units < 1 || l->units > 65536))
    return dlca__fail(DLCA_EINVAL, "%s: layers[%zu] (%s): units %zu is not in [1, 65536]", where, i, name, l->units);
  *o = *in;
  switch (l->kind) {
  case DLCA_NET_DENSE:
    if (in->rank != 1)
      return dlca__fail(DLCA_EINVAL, "%s: layers[%zu] (dense): input [%zu, %zu, %zu] is not flat; add a flatten "
                        "layer before it", where, i, in->d[0], in->d[1], in->d[2]);
    o->d[0] = l->units;
    return DLCA_OK;
  case DLCA_NET_CONV2D:
  case DLCA_NET_MAXPOOL:
  case DLCA_NET_MEANPOOL:
    return window_shape(l, i, where, in, o);
  case DLCA_NET_FLATTEN:
    o->rank = 1, o->d[0] = dlca__nshape_n(in), o->d[1] = o->d[2] = 0;
    return DLCA_OK;
  default:
    return DLCA_OK;
  }
}

static int check_input(const dlca_net_spec *spec, const char *where, dlca__nshape *s) {
  if (spec->in_rank != 1 && spec->in_rank != 3)
    return dlca__fail(DLCA_EINVAL, "%s: input rank %d: must be 1 ([F]) or 3 ([C, H, W])", where, spec->in_rank);
  memset(s, 0, sizeof *s);
  s->rank = spec->in_rank;
  for (int k = 0; k < s->rank; k++) {
    s->d[k] = spec->in_shape[k];
    if (s->d[k] < 1 || s->d[k] > 65536)
      return dlca__fail(DLCA_EINVAL, "%s: input extent %zu is not in [1, 65536]", where, s->d[k]);
  }
  if (spec->n_layers < 1 || spec->n_layers > 64 || !spec->layers)
    return dlca__fail(DLCA_EINVAL, "%s: %zu layers: need 1 to 64", where, spec->n_layers);
  if (spec->loss != DLCA_NET_SOFTMAX_XENT && spec->loss != DLCA_NET_MSE)
    return dlca__fail(DLCA_EINVAL, "%s: unknown loss %d", where, spec->loss);
  return DLCA_OK;
}

/* Shapes, offsets and counts of every layer; params stays NULL. */
static int derive(dlca_net *net, const char *where) {
  size_t off = 0;
  for (size_t i = 0; i < net->n_layers; i++) {
    const dlca_net_layer *l = &net->layers[i];
    int rc = layer_shape(l, i, where, &net->shape[i], &net->shape[i + 1]);
    if (rc) return rc;
    if (dlca__nshape_n(&net->shape[i + 1]) > NET_MAX_SIZE)
      return dlca__fail(DLCA_EINVAL, "%s: layers[%zu]: %zu outputs per sample is over %zu", where, i,
                        dlca__nshape_n(&net->shape[i + 1]), NET_MAX_SIZE);
    const dlca__nshape *in = &net->shape[i];
    net->poff[i] = off;
    net->wsize[i] = l->kind == DLCA_NET_DENSE    ? l->units * in->d[0]
                    : l->kind == DLCA_NET_CONV2D ? l->units * in->d[0] * (size_t)l->k * (size_t)l->k
                                                 : 0;
    if (net->wsize[i] > NET_MAX_SIZE)
      return dlca__fail(DLCA_EINVAL, "%s: layers[%zu]: %zu weights is over %zu", where, i, net->wsize[i], NET_MAX_SIZE);
    off += net->wsize[i] + dlca__net_bsize(net, i);
    net->n_tensors += dlca__net_has_params(l) ? 2 : 0;
  }
  net->n_params = off;
  if (net->loss == DLCA_NET_SOFTMAX_XENT && net->shape[net->n_layers].rank != 1)
    return dlca__fail(DLCA_EINVAL, "%s: softmax_cross_entropy needs flat logits; the last layer gives an image "
                      "(add flatten and dense)", where);
  return DLCA_OK;
}

int dlca__net_build(const dlca_net_spec *spec, const char *where, dlca_net **out) {
  dlca__nshape in;
  int rc = check_input(spec, where, &in);
  if (rc) return rc;
  dlca_net *net = calloc(1, sizeof *net);
  size_t L = spec->n_layers;
  if (net) {
    net->layers = malloc(L * sizeof *net->layers);
    net->shape = calloc(L + 1, sizeof *net->shape);
    net->poff = calloc(L, sizeof *net->poff), net->wsize = calloc(L, sizeof *net->wsize);
  }
  if (!net || !net->layers || !net->shape || !net->poff || !net->wsize) {
    dlca_net_free(net);
    return dlca__fail(DLCA_ENOMEM, "%s: out of host memory for a network of %zu layers", where, L);
  }
  memcpy(net->layers, spec->layers, L * sizeof *net->layers);
  net->n_layers = L, net->loss = spec->loss, net->shape[0] = in;
  if ((rc = derive(net, where))) {
    dlca_net_free(net);
    return rc;
  }
  *out = net;
  return DLCA_OK;
}

int dlca_net_new(const dlca_net_spec *spec, uint64_t seed, dlca_net **out) {
  if (!spec || !out) return dlca__fail(DLCA_EINVAL, "dlca_net_new: NULL argument");
  *out = NULL;
  dlca_net *net;
  int rc = dlca__net_build(spec, "dlca_net_new", &net);
  if (rc) return rc;
  net->params = malloc((net->n_params ? net->n_params : 1) * sizeof(float));
  if (!net->params) {
    dlca_net_free(net);
    return dlca__fail(DLCA_ENOMEM, "dlca_net_new: out of host memory for %zu parameters", net->n_params);
  }
  dlca__net_init(net, seed);
  *out = net;
  return DLCA_OK;
}

void dlca_net_free(dlca_net *net) {
  if (!net) return;
  free(net->layers), free(net->shape), free(net->poff), free(net->wsize), free(net->params);
  free(net);
}

size_t dlca_net_in_size(const dlca_net *net) { return net ? dlca__nshape_n(&net->shape[0]) : 0; }
size_t dlca_net_out_size(const dlca_net *net) { return net ? dlca__nshape_n(&net->shape[net->n_layers]) : 0; }
size_t dlca_net_n_params(const dlca_net *net) { return net ? net->n_params : 0; }
size_t dlca_net_target_size(const dlca_net *net) {
  return !net ? 0 : net->loss == DLCA_NET_SOFTMAX_XENT ? 1 : dlca_net_out_size(net);
}
