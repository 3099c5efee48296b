/* The CPU twin of 2-D max and mean pooling (lib/ops/ref_conv.h), in double. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_conv.h"

int dlca__pool2d_shape(const dlca__shape *xs, int k, int s, dlca__shape *ys) {
  char t[96];
  int p = snprintf(t, sizeof t, "[");
  for (int i = 0; i < xs->rank && p > 0 && (size_t)p < sizeof t; i++)
    p += snprintf(t + p, sizeof t - (size_t)p, i ? ", %zu" : "%zu", xs->d[i]);
  if (p > 0 && (size_t)p < sizeof t) snprintf(t + p, sizeof t - (size_t)p, "]");
  if (xs->rank != 4) return dlca__fail(DLCA_EINVAL, "pool2d: x has shape %s, expected rank 4 [N, C, H, W]", t);
  if (k < 1 || s < 1) return dlca__fail(DLCA_EINVAL, "pool2d: window %d and stride %d must be >= 1", k, s);
  if ((size_t)k > xs->d[2] || (size_t)k > xs->d[3])
    return dlca__fail(DLCA_EINVAL, "pool2d: the window %dx%d does not fit x %s", k, k, t);
  *ys = (dlca__shape){
      4, {xs->d[0], xs->d[1], (xs->d[2] - (size_t)k) / (size_t)s + 1, (xs->d[3] - (size_t)k) / (size_t)s + 1}};
  return DLCA_OK;
}

/* The offset in x's plane of window (oh, ow)'s first maximum, row-major. */
static size_t argmax(const double *plane, size_t W, int k, int s, size_t oh, size_t ow) {
  size_t at = oh * (size_t)s * W + ow * (size_t)s, best = at;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++)
      if (plane[at + (size_t)i * W + (size_t)j] > plane[best]) best = at + (size_t)i * W + (size_t)j;
  return best;
}

static double window_sum(const double *plane, size_t W, int k, int s, size_t oh, size_t ow) {
  size_t at = oh * (size_t)s * W + ow * (size_t)s;
  double acc = 0;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) acc += plane[at + (size_t)i * W + (size_t)j];
  return acc;
}

void dlca__ref_pool2d(dlca__pool_fn fn, int k, int s, const dlca__shape *xs, const double *x, double *y) {
  dlca__shape ys;
  if (dlca__pool2d_shape(xs, k, s, &ys)) return;
  size_t H = xs->d[2], W = xs->d[3], OH = ys.d[2], OW = ys.d[3];
  for (size_t p = 0; p < xs->d[0] * xs->d[1]; p++) {
    const double *plane = x + p * H * W;
    for (size_t oh = 0; oh < OH; oh++)
      for (size_t ow = 0; ow < OW; ow++)
        y[(p * OH + oh) * OW + ow] = fn == DLCA__POOL_max ? plane[argmax(plane, W, k, s, oh, ow)]
                                                          : window_sum(plane, W, k, s, oh, ow) / (double)(k * k);
  }
}

/* The windows that hold (ih, iw) are oh in [lo, hi]: oh s <= ih < oh s + k. */
static void windows(size_t i, int k, int s, size_t n_out, size_t *lo, size_t *hi) {
  *lo = i + 1 > (size_t)k ? (i + 1 - (size_t)k + (size_t)s - 1) / (size_t)s : 0;
  *hi = i / (size_t)s;
  if (*hi >= n_out) *hi = n_out - 1;
}

/* dx of one element: the sum over its windows (oh, ow row-major). */
static double dx_at(dlca__pool_fn fn, int k, int s, const double *plane, const double *dyp, size_t W, size_t OH,
                    size_t OW, size_t ih, size_t iw) {
  size_t h0, h1, w0, w1;
  windows(ih, k, s, OH, &h0, &h1), windows(iw, k, s, OW, &w0, &w1);
  double acc = 0;
  for (size_t oh = h0; oh <= h1 && h0 < OH; oh++)
    for (size_t ow = w0; ow <= w1 && w0 < OW; ow++) {
      if (fn == DLCA__POOL_mean)
        acc += dyp[oh * OW + ow] / (double)(k * k);
      else if (argmax(plane, W, k, s, oh, ow) == ih * W + iw)
        acc += dyp[oh * OW + ow];
    }
  return acc;
}

void dlca__ref_pool2d_backward(dlca__pool_fn fn, int k, int s, const dlca__shape *xs, const double *x, const double *dy,
                               double *dx) {
  dlca__shape ys;
  if (dlca__pool2d_shape(xs, k, s, &ys)) return;
  size_t H = xs->d[2], W = xs->d[3], OH = ys.d[2], OW = ys.d[3];
  for (size_t p = 0; p < xs->d[0] * xs->d[1]; p++)
    for (size_t ih = 0; ih < H; ih++)
      for (size_t iw = 0; iw < W; iw++)
        dx[(p * H + ih) * W + iw] = dx_at(fn, k, s, x + p * H * W, dy + p * OH * OW, W, OH, OW, ih, iw);
}
