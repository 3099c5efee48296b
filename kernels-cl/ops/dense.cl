// The dense layer's kernels around CLBlast's GEMM (issue 31), float32: the
// bias and activation fused after the GEMM, the backward's dz = dy act'(y)
// and the bias gradient (column sums in a fixed order, no atomics), and
// C = beta C for a GEMM with k = 0. act numbers follow the twin's dlca__act
// (lib/ops/ref_blas.h: none, relu, sigmoid, tanh); CPU twin lib/ops/ref_blas.c.

// @tunable DENSE_WG 64 32 128 256 | 1..1024 pow2
#ifndef DENSE_WG
#define DENSE_WG 64
#endif

// Layers of at most DENSE_FUSED_MAX multiply-adds (N in out) run the whole
// forward in one kernel (dlca_ops_dense_fused) instead of CLBlast's GEMM and
// the bias kernel: one launch, no CLBlast call, for the small layers whose
// time is launches and host work. 0: always the GEMM.
// @tunable DENSE_FUSED_MAX 1048576 0 262144 4194304 | 0..268435456
#ifndef DENSE_FUSED_MAX
#define DENSE_FUSED_MAX 1048576
#endif

float dlca_dense_act(int act, float z) {
  switch (act) {
    case 1: return z > 0.0f ? z : 0.0f;
    case 2: return 1.0f / (1.0f + exp(-z));
    case 3: return tanh(z);
    default: return z;
  }
}

// act'(z) from y = act(z); relu'(0) = 0 as torch has it.
float dlca_dense_act_grad(int act, float y) {
  switch (act) {
    case 1: return y > 0.0f ? 1.0f : 0.0f;
    case 2: return y * (1.0f - y);
    case 3: return 1.0f - y * y;
    default: return 1.0f;
  }
}

// y [n, out] = act(y + b) in place, b [out] (has_b 0: no bias).
__kernel __attribute__((reqd_work_group_size(DENSE_WG, 1, 1)))
void dlca_ops_dense_bias_act(__global float *y, __global const float *b, uint n_items, uint out, int act,
                             int has_b) {
  uint i = get_global_id(0);
  if (i >= n_items) return;
  float z = y[i] + (has_b ? b[i % out] : 0.0f);
  y[i] = dlca_dense_act(act, z);
}

// y [n, out] = act(x [n, in] w [out, in]^T + b): one work-item an output,
// its dot product over in ascending order (fma), then the bias and act.
__kernel __attribute__((reqd_work_group_size(DENSE_WG, 1, 1)))
void dlca_ops_dense_fused(__global const float *x, __global const float *w, __global const float *b,
                          __global float *y, uint n, uint in, uint out, int act, int has_b) {
  uint g = get_global_id(0);
  if (g >= n * out) return;
  uint i = g / out, o = g % out;
  __global const float *xr = x + (size_t)i * in, *wr = w + (size_t)o * in;
  float s = 0.0f;
  for (uint p = 0; p < in; p++) s = fma(xr[p], wr[p], s);
  y[g] = dlca_dense_act(act, s + (has_b ? b[o] : 0.0f));
}

// dz = dy act'(y), elementwise (dz may be dy).
__kernel __attribute__((reqd_work_group_size(DENSE_WG, 1, 1)))
void dlca_ops_dense_dz(__global const float *y, __global const float *dy, __global float *dz, uint n_items,
                       int act) {
  uint i = get_global_id(0);
  if (i >= n_items) return;
  dz[i] = dy[i] * dlca_dense_act_grad(act, y[i]);
}

// db [out] = the sums of dz [n, out] over its rows, row 0 first, Kahan
// compensated: one work-item a column, the same order on every device.
__kernel __attribute__((reqd_work_group_size(DENSE_WG, 1, 1)))
void dlca_ops_dense_db(__global const float *dz, __global float *db, uint n, uint out) {
  uint j = get_global_id(0);
  if (j >= out) return;
  float acc = 0.0f, comp = 0.0f;
  for (uint i = 0; i < n; i++) {
    float v = dz[(size_t)i * out + j] - comp;
    float t = acc + v;
    comp = (t - acc) - v;
    acc = t;
  }
  db[j] = acc;
}

// C = beta C over batch matrices m x n at off + q stride + i ldc + j;
// beta 0 writes zeros (BLAS: C's old values, NaN included, are not read).
__kernel __attribute__((reqd_work_group_size(DENSE_WG, 1, 1)))
void dlca_ops_gemm_scale(__global float *c, uint off, uint ldc, uint stride, uint m, uint n, uint batch,
                         float beta) {
  uint i = get_global_id(0);
  if (i >= m * n * batch) return;
  uint q = i / (m * n), r = i % (m * n);
  size_t at = (size_t)off + (size_t)q * stride + (size_t)(r / n) * ldc + r % n;
  c[at] = beta == 0.0f ? 0.0f : beta * c[at];
}
