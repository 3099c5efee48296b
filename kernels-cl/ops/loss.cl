// The losses, reduction mean, float32: mse and softmax cross-entropy
// (shared/testdata/ops/README.md; CPU twin lib/ops/ref_loss.c). A forward
// is one work-group: work-item l takes terms l, l + LOSS_WG, ... (Kahan),
// then a tree in local memory; the order is fixed for a given LOSS_WG, so
// the result is reproducible. The upstream gradient g stays on the device.

// @tunable LOSS_WG 64 32 128 256 | 1..1024 pow2
#ifndef LOSS_WG
#define LOSS_WG 64
#endif

// loss[0] = (sum over l of part[l]) * scale, part in local memory; a tree.
void dlca_loss_tree(__local float *part, __global float *loss, float scale) {
  uint l = (uint)get_local_id(0);
  for (uint s = LOSS_WG / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < s) part[l] += part[l + s];
  }
  if (l == 0) loss[0] = part[0] * scale;
}

// One row's log-sum-exp, shifted by its maximum.
float dlca_loss_lse(__global const float *row, uint K) {
  float m = -INFINITY, s = 0.0f;
  for (uint k = 0; k < K; k++) m = fmax(m, row[k]);
  for (uint k = 0; k < K; k++) s += exp(row[k] - m);
  return m + log(s);
}

__kernel __attribute__((reqd_work_group_size(LOSS_WG, 1, 1)))
void dlca_ops_mse(__global const float *in, __global const float *target, __global float *loss, uint n) {
  __local float part[LOSS_WG];
  uint l = (uint)get_local_id(0);
  float acc = 0.0f, comp = 0.0f;
  for (uint i = l; i < n; i += LOSS_WG) {
    float d = in[i] - target[i], v = d * d - comp, t = acc + v;
    comp = (t - acc) - v;
    acc = t;
  }
  part[l] = acc;
  dlca_loss_tree(part, loss, 1.0f / (float)n);
}

// d_in = 2 g (in - target) / n, d_target = -d_in; either may be skipped (has_*).
__kernel __attribute__((reqd_work_group_size(LOSS_WG, 1, 1)))
void dlca_ops_mse_backward(__global const float *in, __global const float *target, __global const float *g,
                           __global float *d_in, __global float *d_target, uint n, int has_in, int has_target) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  float d = 2.0f * g[0] * (in[i] - target[i]) / (float)n;
  if (has_in) d_in[i] = d;
  if (has_target) d_target[i] = -d;
}

// Class index of a float target, or -1 where it is not one of 0..K-1 (the loss is then NaN).
int dlca_loss_class(float t, uint K) { return t >= 0.0f && t < (float)K && t == floor(t) ? (int)t : -1; }

__kernel __attribute__((reqd_work_group_size(LOSS_WG, 1, 1)))
void dlca_ops_softmax_xent(__global const float *logits, __global const float *target, __global float *loss, uint N,
                           uint K) {
  __local float part[LOSS_WG];
  uint l = (uint)get_local_id(0);
  float acc = 0.0f, comp = 0.0f;
  for (uint i = l; i < N; i += LOSS_WG) {
    __global const float *row = logits + (size_t)i * K;
    int c = dlca_loss_class(target[i], K);
    float v = (c < 0 ? NAN : dlca_loss_lse(row, K) - row[c]) - comp, t = acc + v;
    comp = (t - acc) - v;
    acc = t;
  }
  part[l] = acc;
  dlca_loss_tree(part, loss, 1.0f / (float)N);
}

// One work-item per row: d_logits = g (softmax - onehot) / N.
__kernel __attribute__((reqd_work_group_size(LOSS_WG, 1, 1)))
void dlca_ops_softmax_xent_backward(__global const float *logits, __global const float *target,
                                    __global const float *g, __global float *d_logits, uint N, uint K) {
  uint i = (uint)get_global_id(0);
  if (i >= N) return;
  __global const float *row = logits + (size_t)i * K;
  float lse = dlca_loss_lse(row, K), s = g[0] / (float)N;
  int c = dlca_loss_class(target[i], K);
  for (uint k = 0; k < K; k++) d_logits[(size_t)i * K + k] = s * (exp(row[k] - lse) - ((int)k == c ? 1.0f : 0.0f));
}
