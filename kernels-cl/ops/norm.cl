// Layer norm over the last axis and seeded dropout, float32 (issue 33; twin
// lib/ops/ref_norm.c). Layer norm is one work-group per row: work-item l sums
// elements l, l + NORM_WG, ..., then a tree in local memory, so the order is
// fixed for a given NORM_WG. The backward recomputes the row's moments.
#include "rng.cl"

// @tunable NORM_WG 128 64 256 32 | 1..1024 pow2
#ifndef NORM_WG
#define NORM_WG 128
#endif

// The sum of v over the work-group (part: NORM_WG floats), returned to every work-item.
float dlca_norm_sum(__local float *part, float v) {
  uint l = (uint)get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  part[l] = v;
  for (uint s = NORM_WG / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < s) part[l] += part[l + s];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return part[0];
}

// The row's mean and 1 / sqrt(var + eps) (biased variance, two passes).
void dlca_norm_moments(__local float *part, __global const float *x, uint n, float eps, float *mu, float *rs) {
  uint l = (uint)get_local_id(0);
  float s = 0.0f;
  for (uint j = l; j < n; j += NORM_WG) s += x[j];
  *mu = dlca_norm_sum(part, s) / (float)n;
  float q = 0.0f;
  for (uint j = l; j < n; j += NORM_WG) q += (x[j] - *mu) * (x[j] - *mu);
  *rs = rsqrt(dlca_norm_sum(part, q) / (float)n + eps);
}

__kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1)))
void dlca_layer_norm(__global const float *x, __global const float *gamma, __global const float *beta, int affine,
                     __global float *y, uint n, float eps) {
  __local float part[NORM_WG];
  size_t r = get_group_id(0);
  uint l = (uint)get_local_id(0);
  float mu, rs;
  dlca_norm_moments(part, x + r * n, n, eps, &mu, &rs);
  for (uint j = l; j < n; j += NORM_WG) {
    float v = (x[r * n + j] - mu) * rs;
    y[r * n + j] = affine ? v * gamma[j] + beta[j] : v;
  }
}

// dx of one row: rs (g - mean(g) - xh mean(g xh)), g = dy gamma.
__kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1)))
void dlca_layer_norm_dx(__global const float *x, __global const float *gamma, int affine, __global const float *dy,
                        __global float *dx, uint n, float eps) {
  __local float part[NORM_WG];
  size_t r = get_group_id(0);
  uint l = (uint)get_local_id(0);
  __global const float *xr = x + r * n, *gr = dy + r * n;
  float mu, rs, sg = 0.0f, sgx = 0.0f;
  dlca_norm_moments(part, xr, n, eps, &mu, &rs);
  for (uint j = l; j < n; j += NORM_WG) {
    float g = affine ? gr[j] * gamma[j] : gr[j];
    sg += g, sgx += g * (xr[j] - mu) * rs;
  }
  sg = dlca_norm_sum(part, sg) / (float)n;
  sgx = dlca_norm_sum(part, sgx) / (float)n;
  for (uint j = l; j < n; j += NORM_WG) {
    float g = affine ? gr[j] * gamma[j] : gr[j];
    dx[r * n + j] = rs * (g - sg - (xr[j] - mu) * rs * sgx);
  }
}

// dgamma[j] = sum over rows of dy xh, dbeta[j] = sum of dy, in row order; one work-item per column. The row
// moments come from mean_rstd [rows, 2] (dlca_layer_norm_stats).
__kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1)))
void dlca_layer_norm_dw(__global const float *x, __global const float *dy, __global const float *stats,
                        __global float *dgamma, __global float *dbeta, uint rows, uint n) {
  uint j = (uint)get_global_id(0);
  if (j >= n) return;
  float a = 0.0f, b = 0.0f;
  for (uint r = 0; r < rows; r++) {
    size_t i = (size_t)r * n + j;
    a += dy[i] * (x[i] - stats[2 * r]) * stats[2 * r + 1], b += dy[i];
  }
  dgamma[j] = a, dbeta[j] = b;
}

// stats[2r], stats[2r+1] = the mean and 1 / sqrt(var + eps) of row r.
__kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1)))
void dlca_layer_norm_stats(__global const float *x, __global float *stats, uint n, float eps) {
  __local float part[NORM_WG];
  size_t r = get_group_id(0);
  float mu, rs;
  dlca_norm_moments(part, x + r * n, n, eps, &mu, &rs);
  if (get_local_id(0) == 0) stats[2 * r] = mu, stats[2 * r + 1] = rs;
}

// y = x keep(i) scale, keep(i) = dlca_rng_u32(seed, 0, i) >= thr (the twin's p 2^32, rounded up).
__kernel __attribute__((reqd_work_group_size(NORM_WG, 1, 1)))
void dlca_dropout(__global const float *x, __global float *y, uint n, ulong seed, ulong thr, float scale) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  y[i] = (ulong)dlca_rng_u32(seed, 0, i) >= thr ? x[i] * scale : 0.0f;
}
