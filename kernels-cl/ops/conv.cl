// conv2d (NCHW, stride, zero padding) by im2col + GEMM, and 2-D max/mean
// pooling, forward and backward, float32 (CPU twin lib/ops/ref_conv.c,
// lib/ops/ref_pool.c; launchers lib/ops/cl_conv.c, cl_pool.c). The GEMMs are
// CLBlast's (lib/ops/cl_blas.h); these kernels move data around them.
//
// Layouts: x [N,C,H,W]; w [O,C,KH,KW] = a row-major [O, C KH KW] matrix;
// L = OH OW; col [C KH KW, N L] (row r = (c KH + i) KW + j, column q = n L + l),
// so that one GEMM w col gives yt [O, N L]. xd = (N, C, H, W), kd = (KH, KW,
// OH, OW), sp = (sh, sw, ph, pw). Every sum has a fixed order, no atomics.

// @tunable CONV_WG 64 32 128 256 | 1..1024 pow2
#ifndef CONV_WG
#define CONV_WG 64
#endif
// @tunable CONV_RED_WG 128 64 256 | 1..1024 pow2
#ifndef CONV_RED_WG
#define CONV_RED_WG 128
#endif
// @tunable POOL_WG 64 32 128 256 | 1..1024 pow2
#ifndef POOL_WG
#define POOL_WG 64
#endif

// @tunable CONV_COLS 4 1 2 8 | 1..16
#ifndef CONV_COLS
#define CONV_COLS 4
#endif

// col[off + r N L + q] = x at (n, c, oh sh + i - ph, ow sw + j - pw), 0 in the padding. A work-item
// fills CONV_COLS consecutive q of one row r (the indices stepped, not divided, after the first).
__kernel __attribute__((reqd_work_group_size(CONV_WG, 1, 1)))
void dlca_conv_im2col(__global const float *x, __global float *col, uint off, uint4 xd, uint4 kd, int4 sp) {
  uint L = kd.z * kd.w, NL = xd.x * L, nq = (NL + CONV_COLS - 1) / CONV_COLS, id = (uint)get_global_id(0);
  if (id >= xd.y * kd.x * kd.y * nq) return;
  uint r = id / nq, q = id % nq * CONV_COLS;
  uint j = r % kd.y, i = (r / kd.y) % kd.x, c = r / (kd.x * kd.y);
  uint n = q / L, l = q % L, oh = l / kd.w, ow = l % kd.w;
  for (uint t = 0; t < CONV_COLS && q + t < NL; t++) {
    int ih = (int)(oh * (uint)sp.x + i) - sp.z, iw = (int)(ow * (uint)sp.y + j) - sp.w;
    float v = 0.0f;
    if (ih >= 0 && ih < (int)xd.z && iw >= 0 && iw < (int)xd.w)
      v = x[((n * xd.y + c) * xd.z + (uint)ih) * xd.w + (uint)iw];
    col[off + r * NL + q + t] = v;
    if (++ow == kd.w) {
      ow = 0;
      if (++oh == kd.z) oh = 0, n++;
    }
  }
}

// dx[n, c, ih, iw] = the sum over (i, j) row-major of dcol at the outputs that read it.
__kernel __attribute__((reqd_work_group_size(CONV_WG, 1, 1)))
void dlca_conv_col2im(__global const float *col, uint off, __global float *dx, uint4 xd, uint4 kd, int4 sp) {
  uint id = (uint)get_global_id(0);
  if (id >= xd.x * xd.y * xd.z * xd.w) return;
  uint iw = id % xd.w, ih = (id / xd.w) % xd.z, c = (id / (xd.w * xd.z)) % xd.y, n = id / (xd.w * xd.z * xd.y);
  uint L = kd.z * kd.w, NL = xd.x * L;
  float acc = 0.0f;
  for (uint i = 0; i < kd.x; i++) {
    int th = (int)ih + sp.z - (int)i;
    if (th < 0 || th % sp.x || (uint)(th / sp.x) >= kd.z) continue;
    for (uint j = 0; j < kd.y; j++) {
      int tw = (int)iw + sp.w - (int)j;
      if (tw < 0 || tw % sp.y || (uint)(tw / sp.y) >= kd.w) continue;
      uint r = (c * kd.x + i) * kd.y + j, q = n * L + (uint)(th / sp.x) * kd.w + (uint)(tw / sp.y);
      acc += col[off + r * NL + q];
    }
  }
  dx[id] = acc;
}

// y[n, o, l] = yt[off + o N L + n L + l] + b[o] (has_b 0: no bias). nol = (N, O, L).
__kernel __attribute__((reqd_work_group_size(CONV_WG, 1, 1)))
void dlca_conv_out(__global const float *yt, uint off, __global const float *b, int has_b, __global float *y,
                   uint4 nol) {
  uint id = (uint)get_global_id(0);
  if (id >= nol.x * nol.y * nol.z) return;
  uint l = id % nol.z, o = (id / nol.z) % nol.y, n = id / (nol.z * nol.y);
  y[id] = yt[off + (o * nol.x + n) * nol.z + l] + (has_b ? b[o] : 0.0f);
}

// dyt[off + o N L + n L + l] = dy[n, o, l]: the upstream gradient as a [O, N L] matrix.
__kernel __attribute__((reqd_work_group_size(CONV_WG, 1, 1)))
void dlca_conv_dy_t(__global const float *dy, __global float *dyt, uint off, uint4 nol) {
  uint id = (uint)get_global_id(0);
  if (id >= nol.x * nol.y * nol.z) return;
  uint l = id % nol.z, n = (id / nol.z) % nol.x, o = id / (nol.z * nol.x);
  dyt[off + id] = dy[(n * nol.y + o) * nol.z + l];
}

// dw[i] = the sum over s = 0..S-1, in order, of parts[off + s n + i]: dw's split-K parts (lib/ops/cl_conv.c).
__kernel __attribute__((reqd_work_group_size(CONV_WG, 1, 1)))
void dlca_conv_sum_parts(__global const float *parts, uint off, uint S, uint n, __global float *dw) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  float acc = 0.0f;
  for (uint s = 0; s < S; s++) acc += parts[off + s * n + i];
  dw[i] = acc;
}

// db[o] = the sum of dy[n, o, l] over n and l: work-group o, each work-item a
// strided Kahan sum, then a fixed tree. Fixed order for a given CONV_RED_WG.
__kernel __attribute__((reqd_work_group_size(CONV_RED_WG, 1, 1)))
void dlca_conv_bias_grad(__global const float *dy, __global float *db, uint4 nol) {
  __local float part[CONV_RED_WG];
  uint o = (uint)get_group_id(0), t = (uint)get_local_id(0), NL = nol.x * nol.z;
  float acc = 0.0f, comp = 0.0f;
  for (uint q = t; q < NL; q += CONV_RED_WG) {
    float v = dy[((q / nol.z) * nol.y + o) * nol.z + q % nol.z], s = acc + (v - comp);
    comp = (s - acc) - (v - comp);
    acc = s;
  }
  part[t] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = CONV_RED_WG / 2; h > 0; h /= 2) {
    if (t < h) part[t] += part[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) db[o] = part[0];
}

// ---- pooling: k x k windows, stride s, no padding; fn 0 max, 1 mean. xd = (N, C, H, W), od = (OH, OW) ----

// The offset in its plane of window (oh, ow)'s first maximum, row-major.
uint dlca_pool_argmax(__global const float *plane, uint W, int k, int s, uint oh, uint ow) {
  uint at = oh * (uint)s * W + ow * (uint)s, best = at;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      uint p = at + (uint)i * W + (uint)j;
      if (plane[p] > plane[best]) best = p;
    }
  return best;
}

__kernel __attribute__((reqd_work_group_size(POOL_WG, 1, 1)))
void dlca_pool2d(__global const float *x, __global float *y, int fn, int k, int s, uint4 xd, uint2 od) {
  uint id = (uint)get_global_id(0);
  if (id >= xd.x * xd.y * od.x * od.y) return;
  uint ow = id % od.y, oh = (id / od.y) % od.x, p = id / (od.x * od.y);
  __global const float *plane = x + p * xd.z * xd.w;
  if (fn == 0) {
    y[id] = plane[dlca_pool_argmax(plane, xd.w, k, s, oh, ow)];
    return;
  }
  uint at = oh * (uint)s * xd.w + ow * (uint)s;
  float acc = 0.0f;
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) acc += plane[at + (uint)i * xd.w + (uint)j];
  y[id] = acc / (float)(k * k);
}

// The first and last window (along one axis) that hold input position i; lo > hi for none.
void dlca_pool_windows(uint i, int k, int s, uint n_out, uint *lo, uint *hi) {
  *lo = i + 1 > (uint)k ? (i + 1 - (uint)k + (uint)s - 1) / (uint)s : 0;
  *hi = min(i / (uint)s, n_out - 1);
}

// dx[id] = the sum over its windows (row-major) of dy / k^2 (mean), or of dy
// where it is the window's first maximum (max).
__kernel __attribute__((reqd_work_group_size(POOL_WG, 1, 1)))
void dlca_pool2d_backward(__global const float *x, __global const float *dy, __global float *dx, int fn, int k, int s,
                          uint4 xd, uint2 od) {
  uint id = (uint)get_global_id(0);
  if (id >= xd.x * xd.y * xd.z * xd.w) return;
  uint iw = id % xd.w, ih = (id / xd.w) % xd.z, p = id / (xd.w * xd.z), h0, h1, w0, w1;
  __global const float *plane = x + p * xd.z * xd.w;
  __global const float *dyp = dy + p * od.x * od.y;
  dlca_pool_windows(ih, k, s, od.x, &h0, &h1);
  dlca_pool_windows(iw, k, s, od.y, &w0, &w1);
  float acc = 0.0f, inv = 1.0f / (float)(k * k);
  for (uint oh = h0; oh <= h1; oh++)
    for (uint ow = w0; ow <= w1; ow++) {
      if (fn != 0)
        acc += dyp[oh * od.y + ow] * inv;
      else if (dlca_pool_argmax(plane, xd.w, k, s, oh, ow) == ih * xd.w + iw)
        acc += dyp[oh * od.y + ow];
    }
  dx[id] = acc;
}
