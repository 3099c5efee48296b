/* Gradient clipping: torch.nn.utils.clip_grad_norm_ (global L2 norm over all
 * tensors) and clip_grad_value_. The sum of squares is blocked and pairwise
 * in a fixed order, so the norm depends on the data alone, never on threads. */
#include <math.h>
#include "optim/internal.h"

#define BLOCK 256

/* Sum of squares of v[0..n): sequential within a block of BLOCK, pairwise
 * over blocks (split at a block boundary near the middle). */
static double sumsq(const float *v, size_t n) {
  if (n <= BLOCK) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)v[i] * (double)v[i];
    return s;
  }
  size_t half = (n / BLOCK + 1) / 2 * BLOCK;
  return sumsq(v, half) + sumsq(v + half, n - half);
}

static int check_args(size_t n, const void *grads, const size_t *sizes, const char *what) {
  if (n && (!grads || !sizes)) return dlca__fail(DLCA_EINVAL, "%s: NULL gradients or sizes", what);
  return DLCA_OK;
}

int dlca_grad_norm(size_t n, const float *const *grads, const size_t *sizes, double *norm) {
  int st = check_args(n, grads, sizes, "gradient norm");
  if (st) return st;
  double s = 0;
  for (size_t i = 0; i < n; i++) s += sizes[i] ? sumsq(grads[i], sizes[i]) : 0.0;
  *norm = sqrt(s);
  return DLCA_OK;
}

int dlca_clip_grad_norm(size_t n, float *const *grads, const size_t *sizes, double max_norm, double *norm) {
  if (!(max_norm >= 0) || isinf(max_norm))
    return dlca__fail(DLCA_EINVAL, "clip_grad_norm: max_norm = %g is outside [0, inf)", max_norm);
  double total;
  int st = dlca_grad_norm(n, (const float *const *)grads, sizes, &total);
  if (st) return st;
  if (norm) *norm = total;
  double coef = max_norm / (total + 1e-6);
  if (coef >= 1.0) return DLCA_OK; /* torch multiplies by 1.0: no change (a NaN norm does spread) */
  float c = (float)coef;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < sizes[i]; j++) grads[i][j] *= c;
  return DLCA_OK;
}

int dlca_clip_grad_value(size_t n, float *const *grads, const size_t *sizes, double clip) {
  if (!(clip >= 0)) return dlca__fail(DLCA_EINVAL, "clip_grad_value: clip = %g is outside [0, inf]", clip);
  int st = check_args(n, grads, sizes, "clip_grad_value");
  if (st) return st;
  float hi = (float)clip, lo = -hi;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < sizes[i]; j++) {
      float g = grads[i][j];
      grads[i][j] = g < lo ? lo : g > hi ? hi : g; /* NaN stays NaN, as torch.clamp_ */
    }
  return DLCA_OK;
}
