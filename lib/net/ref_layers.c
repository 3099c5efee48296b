/* The CPU twin of the network's layers, in double on N samples, row-major:
 * dense (x W^T + b), conv2d (NCHW, zero padding, direct), max/mean pooling,
 * the activations (lib/ops's unary twin) and flatten (a copy). Every sum
 * runs in a fixed order. */
#include <string.h>
#include "net/net_impl.h"
#include "ops/ref.h"

/* One window geometry: input [C, H, W], output [O, OH, OW], k, stride, pad. */
typedef struct win {
  size_t C, H, W, O, OH, OW, k, s, p;
} win;

static win win_of(const dlca_net *net, size_t i) {
  const dlca__nshape *in = &net->shape[i], *o = &net->shape[i + 1];
  const dlca_net_layer *l = &net->layers[i];
  win g = {in->d[0], in->d[1], in->d[2], o->d[0], o->d[1], o->d[2], (size_t)l->k,
           (size_t)dlca__net_stride(l), (size_t)l->pad};
  return g;
}

static void dense_fwd(size_t N, size_t I, size_t O, const double *w, const double *b, const double *x, double *y) {
  for (size_t n = 0; n < N; n++)
    for (size_t o = 0; o < O; o++) {
      double s = b[o];
      for (size_t i = 0; i < I; i++) s += x[n * I + i] * w[o * I + i];
      y[n * O + o] = s;
    }
}

static void dense_bwd(size_t N, size_t I, size_t O, const double *w, const double *x, const double *dy, double *dx,
                      double *dw, double *db) {
  memset(dw, 0, I * O * sizeof *dw), memset(db, 0, O * sizeof *db);
  for (size_t n = 0; n < N; n++)
    for (size_t o = 0; o < O; o++) {
      double g = dy[n * O + o];
      db[o] += g;
      for (size_t i = 0; i < I; i++) dw[o * I + i] += g * x[n * I + i];
    }
  if (!dx) return;
  for (size_t n = 0; n < N; n++)
    for (size_t i = 0; i < I; i++) {
      double s = 0;
      for (size_t o = 0; o < O; o++) s += dy[n * O + o] * w[o * I + i];
      dx[n * I + i] = s;
    }
}

/* The input offset of window tap (c, r, q) of output (oh, ow), or -1 in the padding. */
static ptrdiff_t tap(const win *g, size_t c, size_t oh, size_t ow, size_t r, size_t q) {
  ptrdiff_t y = (ptrdiff_t)(oh * g->s + r) - (ptrdiff_t)g->p, x = (ptrdiff_t)(ow * g->s + q) - (ptrdiff_t)g->p;
  if (y < 0 || x < 0 || y >= (ptrdiff_t)g->H || x >= (ptrdiff_t)g->W) return -1;
  return ((ptrdiff_t)c * (ptrdiff_t)g->H + y) * (ptrdiff_t)g->W + x;
}

static void conv_fwd(const win *g, size_t N, const double *w, const double *b, const double *x, double *y) {
  size_t in = g->C * g->H * g->W, out = g->O * g->OH * g->OW, kk = g->k * g->k;
  for (size_t n = 0; n < N; n++)
    for (size_t o = 0; o < g->O; o++)
      for (size_t oh = 0; oh < g->OH; oh++)
        for (size_t ow = 0; ow < g->OW; ow++) {
          double s = b[o];
          for (size_t c = 0; c < g->C; c++)
            for (size_t r = 0; r < g->k; r++)
              for (size_t q = 0; q < g->k; q++) {
                ptrdiff_t at = tap(g, c, oh, ow, r, q);
                if (at >= 0) s += x[n * in + (size_t)at] * w[(o * g->C + c) * kk + r * g->k + q];
              }
          y[n * out + (o * g->OH + oh) * g->OW + ow] = s;
        }
}

static void conv_bwd(const win *g, size_t N, const double *w, const double *x, const double *dy, double *dx,
                     double *dw, double *db) {
  size_t in = g->C * g->H * g->W, out = g->O * g->OH * g->OW, kk = g->k * g->k;
  memset(dw, 0, g->O * g->C * kk * sizeof *dw), memset(db, 0, g->O * sizeof *db);
  if (dx) memset(dx, 0, N * in * sizeof *dx);
  for (size_t n = 0; n < N; n++)
    for (size_t o = 0; o < g->O; o++)
      for (size_t oh = 0; oh < g->OH; oh++)
        for (size_t ow = 0; ow < g->OW; ow++) {
          double d = dy[n * out + (o * g->OH + oh) * g->OW + ow];
          db[o] += d;
          for (size_t c = 0; c < g->C; c++)
            for (size_t r = 0; r < g->k; r++)
              for (size_t q = 0; q < g->k; q++) {
                ptrdiff_t at = tap(g, c, oh, ow, r, q);
                if (at < 0) continue;
                size_t wi = (o * g->C + c) * kk + r * g->k + q;
                dw[wi] += d * x[n * in + (size_t)at];
                if (dx) dx[n * in + (size_t)at] += d * w[wi];
              }
        }
}

/* Pooling over N*C planes; max's gradient goes to the first maximum (row-major). */
static void pool(const win *g, size_t N, int is_max, const double *x, const double *dy, double *y, double *dx) {
  size_t plane = g->H * g->W, oplane = g->OH * g->OW;
  if (dx) memset(dx, 0, N * g->C * plane * sizeof *dx);
  for (size_t nc = 0; nc < N * g->C; nc++)
    for (size_t oh = 0; oh < g->OH; oh++)
      for (size_t ow = 0; ow < g->OW; ow++) {
        size_t best = oh * g->s * g->W + ow * g->s, o = nc * oplane + oh * g->OW + ow;
        double s = 0;
        for (size_t r = 0; r < g->k; r++)
          for (size_t q = 0; q < g->k; q++) {
            size_t at = (oh * g->s + r) * g->W + ow * g->s + q;
            s += x[nc * plane + at];
            if (x[nc * plane + at] > x[nc * plane + best]) best = at;
          }
        double kk = (double)(g->k * g->k);
        if (y) y[o] = is_max ? x[nc * plane + best] : s / kk;
        if (dx && is_max) dx[nc * plane + best] += dy[o];
        for (size_t r = 0; dx && !is_max && r < g->k; r++)
          for (size_t q = 0; q < g->k; q++) dx[nc * plane + (oh * g->s + r) * g->W + ow * g->s + q] += dy[o] / kk;
      }
}

static int unary_of(int kind) {
  return kind == DLCA_NET_RELU ? DLCA__U_relu : kind == DLCA_NET_SIGMOID ? DLCA__U_sigmoid : DLCA__U_tanh;
}

void dlca__net_ref_forward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x, double *y) {
  const dlca_net_layer *l = &net->layers[i];
  size_t nin = dlca__nshape_n(&net->shape[i]), nout = dlca__nshape_n(&net->shape[i + 1]);
  win g = win_of(net, i);
  switch (l->kind) {
  case DLCA_NET_DENSE: dense_fwd(N, nin, nout, p, p + net->wsize[i], x, y); break;
  case DLCA_NET_CONV2D: conv_fwd(&g, N, p, p + net->wsize[i], x, y); break;
  case DLCA_NET_MAXPOOL:
  case DLCA_NET_MEANPOOL: pool(&g, N, l->kind == DLCA_NET_MAXPOOL, x, NULL, y, NULL); break;
  case DLCA_NET_FLATTEN: memcpy(y, x, N * nin * sizeof *y); break;
  default: dlca__ref_unary((dlca__unary_fn)unary_of(l->kind), N * nin, x, y);
  }
}

void dlca__net_ref_backward(const dlca_net *net, size_t i, size_t N, const double *p, const double *x,
                            const double *y, const double *dy, double *dx, double *dp) {
  const dlca_net_layer *l = &net->layers[i];
  size_t nin = dlca__nshape_n(&net->shape[i]), nout = dlca__nshape_n(&net->shape[i + 1]);
  win g = win_of(net, i);
  switch (l->kind) {
  case DLCA_NET_DENSE: dense_bwd(N, nin, nout, p, x, dy, dx, dp, dp + net->wsize[i]); break;
  case DLCA_NET_CONV2D: conv_bwd(&g, N, p, x, dy, dx, dp, dp + net->wsize[i]); break;
  case DLCA_NET_MAXPOOL:
  case DLCA_NET_MEANPOOL: pool(&g, N, l->kind == DLCA_NET_MAXPOOL, x, dy, NULL, dx); break;
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
