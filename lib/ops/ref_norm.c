/* The CPU twin of layer norm and dropout (lib/ops/ref_gru.h): torch.nn.LayerNorm
 * over the last axis, and a dropout whose mask is a counter-based draw of the
 * seed, so that host and device (kernels-cl/ops/norm.cl) drop the same elements. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "ops/ref_gru.h"

/* One row's mean and 1 / sqrt(var + eps), in index order. */
static void moments(size_t n, double eps, const double *x, double *mean, double *rstd) {
  double s = 0, q = 0;
  for (size_t j = 0; j < n; j++) s += x[j];
  double mu = s / (double)n;
  for (size_t j = 0; j < n; j++) q += (x[j] - mu) * (x[j] - mu);
  *mean = mu, *rstd = 1.0 / sqrt(q / (double)n + eps);
}

void dlca__ref_layer_norm(size_t rows, size_t n, double eps, const double *x, const double *gamma, const double *beta,
                          double *y, double *mean, double *rstd) {
  for (size_t r = 0; r < rows; r++) {
    double mu, rs;
    moments(n, eps, x + r * n, &mu, &rs);
    for (size_t j = 0; j < n; j++)
      y[r * n + j] = (x[r * n + j] - mu) * rs * (gamma ? gamma[j] : 1.0) + (beta ? beta[j] : 0.0);
    if (mean) mean[r] = mu;
    if (rstd) rstd[r] = rs;
  }
}

void dlca__ref_layer_norm_backward(size_t rows, size_t n, double eps, const double *x, const double *gamma,
                                   const double *dy, double *dx, double *dgamma, double *dbeta) {
  if (dgamma) memset(dgamma, 0, sizeof(double) * n);
  if (dbeta) memset(dbeta, 0, sizeof(double) * n);
  for (size_t r = 0; r < rows; r++) {
    const double *xr = x + r * n, *gr = dy + r * n;
    double mu, rs, sg = 0, sgx = 0;
    moments(n, eps, xr, &mu, &rs);
    for (size_t j = 0; j < n; j++) {
      double g = gr[j] * (gamma ? gamma[j] : 1.0), xh = (xr[j] - mu) * rs;
      sg += g, sgx += g * xh;
      if (dgamma) dgamma[j] += gr[j] * xh;
      if (dbeta) dbeta[j] += gr[j];
    }
    for (size_t j = 0; dx && j < n; j++) {
      double g = gr[j] * (gamma ? gamma[j] : 1.0), xh = (xr[j] - mu) * rs;
      dx[r * n + j] = rs * (g - sg / (double)n - xh * sgx / (double)n);
    }
  }
}

int dlca__dropout_keep(uint64_t seed, double p, size_t i) {
  return (double)dlca_rng_u32(seed, 0, (uint32_t)i) >= p * 4294967296.0;
}

void dlca__ref_dropout(size_t n, double p, uint64_t seed, const double *x, double *y) {
  double scale = 1.0 / (1.0 - p);
  for (size_t i = 0; i < n; i++) y[i] = dlca__dropout_keep(seed, p, i) ? x[i] * scale : 0.0;
}
