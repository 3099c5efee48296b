// The elementwise ops of the compute layer (issue 31), float32: the 12 unary
// functions with their backward, and the 7 binary functions with NumPy
// broadcasting. Semantics: shared/testdata/ops/README.md; CPU twin:
// lib/ops/ref_unary.c and lib/ops/ref_binary.c. fn numbers follow the
// twin's enums (lib/ops/ref.h: DLCA__UNARY_FNS, DLCA__BINARY_FNS).

// @tunable EW_WG 64 32 128 256 | 1..1024 pow2
#ifndef EW_WG
#define EW_WG 64
#endif

float dlca_ew_unary(int fn, float x) {
  switch (fn) {
    case 0: return -x;
    case 1: return exp(x);
    case 2: return log(x);
    case 3: return x > 0.0f ? x : 0.0f;
    case 4: return 1.0f / (1.0f + exp(-x));
    case 5: return tanh(x);
    case 6: return sqrt(x);
    case 7: return 1.0f / x;
    case 8: return exp2(x);
    case 9: return log2(x);
    case 10: return sin(x);
    default: return cos(x);
  }
}

// f'(x) given y = f(x), as the twin's df (relu'(0) = 0).
float dlca_ew_unary_grad(int fn, float x, float y) {
  switch (fn) {
    case 0: return -1.0f;
    case 1: return y;
    case 2: return 1.0f / x;
    case 3: return x > 0.0f ? 1.0f : 0.0f;
    case 4: return y * (1.0f - y);
    case 5: return 1.0f - y * y;
    case 6: return 0.5f / y;
    case 7: return -y * y;
    case 8: return y * M_LN2_F;
    case 9: return 1.0f / (x * M_LN2_F);
    case 10: return cos(x);
    default: return -sin(x);
  }
}

float dlca_ew_binary(int fn, float a, float b) {
  switch (fn) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return a > b ? a : b; // torch.maximum
    case 5: return fmod(a, b);    // torch.fmod, C's
    default: return a < b ? 1.0f : 0.0f;
  }
}

// d f/da (side 0) or d f/db (side 1) at (a, b), as the twin's df:
// torch.maximum splits a tie in halves; fmod's d/db is -trunc(a/b); cmplt has none.
float dlca_ew_binary_grad(int fn, int side, float a, float b) {
  switch (fn) {
    case 0: return 1.0f;
    case 1: return side ? -1.0f : 1.0f;
    case 2: return side ? a : b;
    case 3: return side ? -a / (b * b) : 1.0f / b;
    case 4: return a == b ? 0.5f : (a > b) == (side == 0) ? 1.0f : 0.0f;
    case 5: return side ? -trunc(a / b) : 1.0f;
    default: return 0.0f;
  }
}

// y[i] = f(x[i]), i < n.
__kernel __attribute__((reqd_work_group_size(EW_WG, 1, 1)))
void dlca_ops_unary(__global const float *x, __global float *y, uint n, int fn) {
  uint i = (uint)get_global_id(0);
  if (i < n) y[i] = dlca_ew_unary(fn, x[i]);
}

// dx[i] = dy[i] * f'(x[i]), given y = f(x).
__kernel __attribute__((reqd_work_group_size(EW_WG, 1, 1)))
void dlca_ops_unary_backward(__global const float *x, __global const float *y, __global const float *dy,
                             __global float *dx, uint n, int fn) {
  uint i = (uint)get_global_id(0);
  if (i < n) dx[i] = dy[i] * dlca_ew_unary_grad(fn, x[i], y[i]);
}

// y = f(a, b) over y's shape yd (rank 4, leading 1s); sa, sb are a's and b's
// strides in y's axes, 0 on a broadcast axis (the twin's dlca__broadcast_view).
__kernel __attribute__((reqd_work_group_size(EW_WG, 1, 1)))
void dlca_ops_binary(__global const float *a, __global const float *b, __global float *y, uint n, int fn,
                     uint4 yd, uint4 sa, uint4 sb) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  uint j = i, c;
  c = j % yd.w, j /= yd.w;
  uint ia = c * sa.w, ib = c * sb.w;
  c = j % yd.z, j /= yd.z;
  ia += c * sa.z, ib += c * sb.z;
  c = j % yd.y, j /= yd.y;
  ia += c * sa.y, ib += c * sb.y;
  ia += j * sa.x, ib += j * sb.x;
  y[i] = dlca_ew_binary(fn, a[ia], b[ib]);
}

// The gradient of one input x (side 0: a, side 1: b; o is the other) of
// y = f(a, b): one work-item per element i of x sums, in y's row-major order
// (the twin's order, compensated), dy * df over the y positions that read it.
// In y's rank-4 axes: xd is x's extent (1 where x broadcasts), bd the extent
// x broadcasts over (1 elsewhere), ys y's strides, os o's (0 where o broadcasts).
__kernel __attribute__((reqd_work_group_size(EW_WG, 1, 1)))
void dlca_ops_binary_backward(__global const float *x, __global const float *o, __global const float *dy,
                              __global float *dx, uint n, int fn, int side, uint4 xd, uint4 bd, uint4 ys,
                              uint4 os) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  uint4 c;
  uint j = i;
  c.w = j % xd.w, j /= xd.w;
  c.z = j % xd.z, j /= xd.z;
  c.y = j % xd.y, c.x = j / xd.y;
  uint nb = bd.x * bd.y * bd.z * bd.w;
  float xv = x[i], acc = 0.0f, comp = 0.0f;
  for (uint r = 0; r < nb; r++) {
    uint4 p;
    uint q = r;
    p.w = c.w + q % bd.w, q /= bd.w;
    p.z = c.z + q % bd.z, q /= bd.z;
    p.y = c.y + q % bd.y, p.x = c.x + q / bd.y;
    float ov = o[p.x * os.x + p.y * os.y + p.z * os.z + p.w * os.w];
    float g = dy[p.x * ys.x + p.y * ys.y + p.z * ys.z + p.w * ys.w] *
              dlca_ew_binary_grad(fn, side, side ? ov : xv, side ? xv : ov);
    float t = acc + (g - comp);  // Kahan: comp carries the low bits lost so far
    comp = (t - acc) - (g - comp);
    acc = t;
  }
  dx[i] = acc;
}
