/* The CPU twin of the network's layers, in double on N samples, row-major:
 * lib/ops's twins of dense (ref_blas.h), conv2d and pooling (ref_conv.h)
 * and the activations (ref.h); flatten is a copy. Every sum runs in a
 * fixed order. */
#include <string.h>
#include "net/net_impl.h"
#include "ops/ref.h"
#include "ops/ref_blas.h"
#include "ops/ref_conv.h"

/* Layer i's input as a [N, C, H, W] shape, and a conv2d's dimensions. */
static dlca__shape in4(const dlca_net *net, size_t i, size_t N) {
  const dlca__nshape *in = &net->shape[i];
  dlca__shape xs = {4, {N, in->d[0], in->d[1], in->d[2]}};
  return xs;
}

static dlca__conv_dims conv_dims(const dlca_net *net, size_t i, size_t N) {
  const dlca_net_layer *l = &net->layers[i];
  dlca__shape xs = in4(net, i, N), ws = {4, {l->units, xs.d[1], (size_t)l->k, (size_t)l->k}}, bs = {1, {l->units}};
  int s = dlca__net_stride(l);
  dlca__conv2d p = {s, s, l->pad, l->pad};
  dlca__conv_dims d;
  (void)dlca__conv2d_dims(&xs, &ws, &bs, &p, &d); /* the net's shapes were checked when it was built */
  return d;
}

static dlca__pool_fn pool_of(const dlca_net_layer *l) {
  return l->kind == DLCA_NET_MAXPOOL ? DLCA__POOL_max : DLCA__POOL_mean;
}

static int unary_of(int kind) {
  return kind == DLCA_NET_RELU ? DLCA__U_relu : kind == DLCA_NET_SIGMOID ? DLCA__U_sigmoid : DLCA__U_tanh;
}

void dlca__net_ref_forward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x, double *y) {
  const dlca_net_layer *l = &net->layers[i];
  size_t nin = dlca__nshape_n(&net->shape[i]), nout = dlca__nshape_n(&net->shape[i + 1]);
  dlca__shape xs = in4(net, i, N);
  dlca__conv_dims d;
  switch (l->kind) {
  case DLCA_NET_DENSE: dlca__ref_dense(DLCA__ACT_none, N, nin, nout, x, p, p + net->wsize[i], y); break;
  case DLCA_NET_CONV2D: d = conv_dims(net, i, N), dlca__ref_conv2d(&d, x, p, p + net->wsize[i], y); break;
  case DLCA_NET_MAXPOOL:
  case DLCA_NET_MEANPOOL: dlca__ref_pool2d(pool_of(l), l->k, dlca__net_stride(l), &xs, x, y); break;
  case DLCA_NET_FLATTEN: memcpy(y, x, N * nin * sizeof *y); break;
  default: dlca__ref_unary((dlca__unary_fn)unary_of(l->kind), N * nin, x, y);
  }
}

void dlca__net_ref_backward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x,
                            const double *y, const double *dy, double *dx, double *dp) {
  const dlca_net_layer *l = &net->layers[i];
  size_t nin = dlca__nshape_n(&net->shape[i]), nout = dlca__nshape_n(&net->shape[i + 1]);
  dlca__shape xs = in4(net, i, N);
  dlca__conv_dims d;
  switch (l->kind) {
  case DLCA_NET_DENSE:
    dlca__ref_dense_backward(DLCA__ACT_none, N, nin, nout, x, p, y, dy, dx, dp, dp + net->wsize[i]);
    break;
  case DLCA_NET_CONV2D: d = conv_dims(net, i, N), dlca__ref_conv2d_backward(&d, x, p, dy, dx, dp, dp + net->wsize[i]); break;
  case DLCA_NET_MAXPOOL:
  case DLCA_NET_MEANPOOL:
    if (dx) dlca__ref_pool2d_backward(pool_of(l), l->k, dlca__net_stride(l), &xs, x, dy, dx);
    break;
  case DLCA_NET_FLATTEN:
    if (dx) memcpy(dx, dy, N * nin * sizeof *dx);
    break;
  default:
    if (dx) dlca__ref_unary_backward((dlca__unary_fn)unary_of(l->kind), N * nin, x, y, dy, dx);
  }
}

size_t dlca__net_correct(size_t N, size_t K, const double *logits, const float *target) {
  size_t ok = 0;
  for (size_t n = 0; n < N; n++) {
    size_t best = 0;
    for (size_t k = 1; k < K; k++)
      if (logits[n * K + k] > logits[n * K + best]) best = k;
    ok += (double)best == (double)target[n];
  }
  return ok;
}
