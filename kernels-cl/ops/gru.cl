// The GRU's recurrent part, float32 (issue 33; twin lib/ops/ref_gru.c, gate
// order r, z, n). The input projection of all T steps is one GEMM before
// these (lib/ops/cl_gru.c), or inside the step kernel for a forward of at
// most GRU_FUSED_T steps; here is one launch per step for an ensemble of M
// GRUs (grid axis 2), each work-group GRU_TJ hidden units x GRU_TB batch rows
// of one member, its W_hh rows and h columns staged through local memory in
// tiles of GRU_TK. Layouts (floats): gi/dgi row (b, t) of member m at
// m * gi_m + (b * T + t) * gi_row, the gates r, z, n at +0, +H, +2H; hs
// [M, T+1, B, H] time-major (hs[m, 0] = h0); y [M, B, T, H]; gates
// [M, T, B, 4H] (r, z, n, W_hn h + b_hn); dgh [M, T, B, 3H]; dhd [M, T, B, H].
// Every sum has a fixed order: the result does not depend on the schedule.

// @tunable GRU_TJ 32 16 64 8 | 1..256 pow2
#ifndef GRU_TJ
#define GRU_TJ 32
#endif
// @tunable GRU_TB 8 4 16 2 | 1..64 pow2
#ifndef GRU_TB
#define GRU_TB 8
#endif
// @tunable GRU_TK 32 16 64 | 4..256 pow2
#ifndef GRU_TK
#define GRU_TK 32
#endif
// @tunable GRU_WG 64 128 256 | 1..1024 pow2
#ifndef GRU_WG
#define GRU_WG 64
#endif

// The forward of at most GRU_FUSED_T steps (a cell: 1) projects its input inside the step kernel (x W_ih^T beside
// h W_hh^T, no GEMM): one launch a step. A longer sequence pays 1 + D / H times the step's multiply-adds for it.
// @tunable GRU_FUSED_T 1 0 2 10 | 0..65536
#ifndef GRU_FUSED_T
#define GRU_FUSED_T 1
#endif

// The most ensemble members (M <= GRU_SPLIT; 0: never) whose forward steps run as dlca_gru_step_split (below),
// where its local memory fits and GRU_SJ <= GRU_SKS: H / GRU_SJ x B / GRU_SB groups of GRU_SKS x GRU_SB work-items,
// W and h staged once a step, chains of H / GRU_SKS multiply-adds (dlca_gru_step: H / GRU_TJ x B / GRU_TB groups,
// H / GRU_TK tiles a step, chains of H).
// H200, b32 d128 h256 t10 fwd, ms, GRU_SPLIT 0/1: 1 GRU 0.2146/0.1897, 5 GRUs 0.2855/0.3664, cell x10 0.2864/0.2305
// @tunable GRU_SPLIT 1 0 8 | 0..1024
#ifndef GRU_SPLIT
#define GRU_SPLIT 1
#endif
// @tunable GRU_SJ 2 1 4 8 | 1..64
#ifndef GRU_SJ
#define GRU_SJ 2
#endif
// @tunable GRU_SB 32 8 16 64 | 1..256 pow2
#ifndef GRU_SB
#define GRU_SB 32
#endif
// @tunable GRU_SKS 8 4 16 32 | 1..256 pow2
#ifndef GRU_SKS
#define GRU_SKS 8
#endif

#define GRU_NL (GRU_TJ * GRU_TB)

float dlca_gru_sigm(float a) { return 1.0f / (1.0f + exp(-a)); }

// acc[g] = sum_k h[b, k] w[g H + j, k] over k < K for the gates g = 0, 1, 2 of hidden unit j (h rows at stride ld,
// w rows of length K). hl and wl: local tiles of GRU_TB x GRU_TK and 3 x GRU_TJ x (GRU_TK + 1) floats.
#define GRU_WLD (GRU_TK + 1)
void dlca_gru_matvec3(__global const float *h, uint ld, __global const float *w, uint K, uint B, uint H,
                      __local float *hl, __local float *wl, float *acc) {
  uint lj = (uint)get_local_id(0), lb = (uint)get_local_id(1), l = lb * GRU_TJ + lj;
  uint j0 = (uint)get_group_id(0) * GRU_TJ, b0 = (uint)get_group_id(1) * GRU_TB;
  acc[0] = acc[1] = acc[2] = 0.0f;
  for (uint k0 = 0; k0 < K; k0 += GRU_TK) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint e = l; e < GRU_TB * GRU_TK; e += GRU_NL) {
      uint bb = e / GRU_TK, kk = e % GRU_TK;
      hl[bb * GRU_TK + kk] = b0 + bb < B && k0 + kk < K ? h[(size_t)(b0 + bb) * ld + k0 + kk] : 0.0f;
    }
    for (uint e = l; e < 3 * GRU_TJ * GRU_TK; e += GRU_NL) {
      uint g = e / (GRU_TJ * GRU_TK), jj = e / GRU_TK % GRU_TJ, kk = e % GRU_TK;
      wl[(g * GRU_TJ + jj) * GRU_WLD + kk] =
          j0 + jj < H && k0 + kk < K ? w[(size_t)(g * H + j0 + jj) * K + k0 + kk] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint kk = 0; kk < GRU_TK; kk++) {
      float hv = hl[lb * GRU_TK + kk];
      acc[0] = fma(wl[lj * GRU_WLD + kk], hv, acc[0]);
      acc[1] = fma(wl[(GRU_TJ + lj) * GRU_WLD + kk], hv, acc[1]);
      acc[2] = fma(wl[(2 * GRU_TJ + lj) * GRU_WLD + kk], hv, acc[2]);
    }
  }
}

void dlca_gru_out(__global const float *gi, uint gi_m, uint gi_row, const float *gx, uint D, float *gh,
                  __global const float *b_ih, __global const float *b_hh, int has_bias,
                  __global const float *h, __global float *hs, __global float *y, __global float *gates,
                  int keep, __global float *h_n, int has_hn, uint j, uint b, uint m, uint t, uint B, uint T, uint H);

// Step t of the forward: hs[m, t+1] and y[m, :, t] from hs[m, t] (h0 [M, B, H] at t = 0, copied to hs[m, 0]) and
// the input's projection: gi, or where D > 0 (GRU_FUSED_T) x [B, T, D] of member m at m * x_m times w_ih [M, 3H, D]
// here. The gates kept where keep is set, h_n written at the last step where has_hn is set. Biases: has_bias (b_ih
// and b_hh [M, 3H]).
void dlca_gru_step_at(__global const float *gi, uint gi_m, uint gi_row, __global const float *w_hh,
                      __global const float *b_ih, __global const float *b_hh, int has_bias, __global const float *h0,
                      __global float *hs, __global float *y, __global float *gates, int keep, __global float *h_n,
                      int has_hn, uint t, uint B, uint T, uint H, __global const float *x, uint x_m,
                      __global const float *w_ih, uint D, __local float *hl, __local float *wl) {
  uint j = (uint)get_global_id(0), b = (uint)get_global_id(1), m = (uint)get_global_id(2);
  size_t BH = (size_t)B * H;
  __global const float *h = t ? hs + ((size_t)m * (T + 1) + t) * BH : h0 + (size_t)m * BH;
  float gh[3], gx[3];
  if (D) // uniform: every work-item takes it
    dlca_gru_matvec3(x + (size_t)m * x_m + (size_t)t * D, T * D, w_ih + (size_t)m * 3 * H * D, D, B, H, hl, wl, gx);
  dlca_gru_matvec3(h, H, w_hh + (size_t)m * 3 * H * H, H, B, H, hl, wl, gh);
  if (j >= H || b >= B) return;
  dlca_gru_out(gi, gi_m, gi_row, gx, D, gh, b_ih, b_hh, has_bias, h, hs, y, gates, keep, h_n, has_hn, j, b, m, t, B, T,
               H);
}

// The end of step t for hidden unit j of row b of member m: gx (D > 0) or gi's row, and gh = W_hh h (its 3 gates)
// give the gates and the new state; writes as dlca_gru_step_at says.
void dlca_gru_out(__global const float *gi, uint gi_m, uint gi_row, const float *gx, uint D, float *gh,
                  __global const float *b_ih, __global const float *b_hh, int has_bias,
                  __global const float *h, __global float *hs, __global float *y, __global float *gates,
                  int keep, __global float *h_n, int has_hn, uint j, uint b, uint m, uint t, uint B, uint T, uint H) {
  size_t BH = (size_t)B * H;
  __global const float *xr = gi + (size_t)m * gi_m + ((size_t)b * T + t) * gi_row;
  float ir = D ? gx[0] : xr[j], iz = D ? gx[1] : xr[H + j], in = D ? gx[2] : xr[2 * H + j];
  if (has_bias) {
    __global const float *bi = b_ih + (size_t)m * 3 * H, *bh = b_hh + (size_t)m * 3 * H;
    ir += bi[j], iz += bi[H + j], in += bi[2 * H + j];
    gh[0] += bh[j], gh[1] += bh[H + j], gh[2] += bh[2 * H + j];
  }
  float r = dlca_gru_sigm(ir + gh[0]), z = dlca_gru_sigm(iz + gh[1]), n = tanh(in + r * gh[2]);
  float hp = h[(size_t)b * H + j], hn = (1.0f - z) * n + z * hp;
  if (!t) hs[(size_t)m * (T + 1) * BH + (size_t)b * H + j] = hp;
  hs[((size_t)m * (T + 1) + t + 1) * BH + (size_t)b * H + j] = hn;
  y[(((size_t)m * B + b) * T + t) * H + j] = hn;
  if (has_hn && t + 1 == T) h_n[(size_t)m * BH + (size_t)b * H + j] = hn;
  if (!keep) return;
  __global float *q = gates + (((size_t)m * T + t) * B + b) * 4 * H;
  q[j] = r, q[H + j] = z, q[2 * H + j] = n, q[3 * H + j] = gh[2];
}

__kernel __attribute__((reqd_work_group_size(GRU_TJ, GRU_TB, 1)))
void dlca_gru_step(__global const float *gi, uint gi_m, uint gi_row, __global const float *w_hh,
                   __global const float *b_ih, __global const float *b_hh, int has_bias, __global const float *h0,
                   __global float *hs, __global float *y, __global float *gates, int keep, __global float *h_n,
                   int has_hn, uint t, uint B, uint T, uint H, __global const float *x, uint x_m,
                   __global const float *w_ih, uint D) {
  __local float hl[GRU_TB * GRU_TK], wl[3 * GRU_TJ * GRU_WLD];
  dlca_gru_step_at(gi, gi_m, gi_row, w_hh, b_ih, b_hh, has_bias, h0, hs, y, gates, keep, h_n, has_hn, t, B, T, H,
                   x, x_m, w_ih, D, hl, wl);
}

// Stages the rows g H + j0 + jj (g < 3, jj < GRU_SJ; zero past H) of w [3H, K] into wl and the group's rows of src
// (rows < n at stride ld, zero after) into hl (row stride K + GRU_SKS, against bank conflicts); each work-item sums
// its k-slice (every GRU_SKS-th k) into part, and work-item ks < GRU_SJ of a row adds up the slices of hidden unit
// j0 + ks in slice order into out (3 gates).
void dlca_gru_split_part(__global const float *w, uint K, uint H, uint j0, __global const float *src, uint ld, uint n,
                         __local float *wl, __local float *part, float *out) {
  uint ks = (uint)get_local_id(0), lb = (uint)get_local_id(1), l = lb * GRU_SKS + ks, KP = K + GRU_SKS;
  __local float *hl = wl + 3 * GRU_SJ * K;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint e = l; e < 3 * GRU_SJ * K; e += GRU_SKS * GRU_SB) {
    uint r = e / K, jj = r % GRU_SJ;
    wl[e] = j0 + jj < H ? w[(size_t)((r / GRU_SJ) * H + j0 + jj) * K + e % K] : 0.0f;
  }
  for (uint e = l; e < GRU_SB * K; e += GRU_SKS * GRU_SB)
    hl[e / K * KP + e % K] = e / K < n ? src[(size_t)(e / K) * ld + e % K] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc[3 * GRU_SJ];
  for (uint r = 0; r < 3 * GRU_SJ; r++) acc[r] = 0.0f;
  for (uint k = ks; k < K; k += GRU_SKS) {
    float hv = hl[lb * KP + k];
    for (uint r = 0; r < 3 * GRU_SJ; r++) acc[r] = fma(wl[r * K + k], hv, acc[r]);
  }
  for (uint r = 0; r < 3 * GRU_SJ; r++) part[(lb * 3 * GRU_SJ + r) * GRU_SKS + ks] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint g = 0; g < 3 && ks < GRU_SJ; g++) {
    out[g] = 0.0f;
    for (uint q = 0; q < GRU_SKS; q++) out[g] += part[(lb * 3 * GRU_SJ + g * GRU_SJ + ks) * GRU_SKS + q];
  }
}

// GRU_SPLIT: step t as dlca_gru_step_at computes it, a work-group owning GRU_SJ <= GRU_SKS hidden units for
// GRU_SB rows: the 3 GRU_SJ rows of W_hh (then of W_ih where D > 0) and the rows of h (of x) staged in wl,
// (3 GRU_SJ + GRU_SB) max(H, D) + GRU_SB GRU_SKS floats; its GRU_SKS work-items of a row each sum every GRU_SKS-th
// k, the sums added in slice order (the same bits run to run).
__kernel __attribute__((reqd_work_group_size(GRU_SKS, GRU_SB, 1)))
void dlca_gru_step_split(__global const float *gi, uint gi_m, uint gi_row, __global const float *w_hh,
                         __global const float *b_ih, __global const float *b_hh, int has_bias,
                         __global const float *h0, __global float *hs, __global float *y, __global float *gates,
                         int keep, __global float *h_n, int has_hn, uint t, uint B, uint T, uint H,
                         __global const float *x, uint x_m, __global const float *w_ih, uint D, __local float *wl) {
  __local float part[GRU_SB * 3 * GRU_SJ * GRU_SKS];
  uint ks = (uint)get_local_id(0), m = (uint)get_global_id(2);
  uint j0 = (uint)get_group_id(0) * GRU_SJ, b0 = (uint)get_group_id(1) * GRU_SB, b = b0 + (uint)get_local_id(1);
  uint n = B - b0 < GRU_SB ? B - b0 : GRU_SB;
  size_t BH = (size_t)B * H;
  __global const float *h = t ? hs + ((size_t)m * (T + 1) + t) * BH : h0 + (size_t)m * BH;
  float gx[3] = {0.0f, 0.0f, 0.0f}, gh[3] = {0.0f, 0.0f, 0.0f};
  if (D) // uniform
    dlca_gru_split_part(w_ih + (size_t)m * 3 * H * D, D, H, j0, x + (size_t)m * x_m + ((size_t)b0 * T + t) * D, T * D,
                        n, wl, part, gx);
  dlca_gru_split_part(w_hh + (size_t)m * 3 * H * H, H, H, j0, h + (size_t)b0 * H, H, n, wl, part, gh);
  if (ks < GRU_SJ && b < B && j0 + ks < H)
    dlca_gru_out(gi, gi_m, gi_row, gx, D, gh, b_ih, b_hh, has_bias, h, hs, y, gates, keep, h_n, has_hn, j0 + ks, b, m,
                 t, B, T, H);
}

// acc = sum_g d[b, g] w[g, j] over g < 3H (d rows of length 3H, w [3H, H]); dl and wl local tiles of
// GRU_TB x GRU_TK and GRU_TK x (GRU_TJ + 1) floats.
float dlca_gru_matvec_t(__global const float *d, __global const float *w, uint B, uint H, __local float *dl,
                        __local float *wl) {
  uint lj = (uint)get_local_id(0), lb = (uint)get_local_id(1), l = lb * GRU_TJ + lj;
  uint j0 = (uint)get_group_id(0) * GRU_TJ, b0 = (uint)get_group_id(1) * GRU_TB, G = 3 * H;
  float acc = 0.0f;
  for (uint k0 = 0; k0 < G; k0 += GRU_TK) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint e = l; e < GRU_TB * GRU_TK; e += GRU_NL) {
      uint bb = e / GRU_TK, kk = e % GRU_TK;
      dl[bb * GRU_TK + kk] = b0 + bb < B && k0 + kk < G ? d[(size_t)(b0 + bb) * G + k0 + kk] : 0.0f;
    }
    for (uint e = l; e < GRU_TK * GRU_TJ; e += GRU_NL) {
      uint kk = e / GRU_TJ, jj = e % GRU_TJ;
      wl[kk * (GRU_TJ + 1) + jj] = k0 + kk < G && j0 + jj < H ? w[(size_t)(k0 + kk) * H + j0 + jj] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint kk = 0; kk < GRU_TK; kk++) acc = fma(dl[lb * GRU_TK + kk], wl[kk * (GRU_TJ + 1) + lj], acc);
  }
  return acc;
}

// Step t of the backward (t = T-1 down to 0), then t = T for dh0: the gradient reaching h_t is dh_n (t = T-1) or
// dhd[t+1] + dgh[t+1] W_hh, plus dy[:, t]; from it and the kept gates, dgi and dgh of step t and dhd[t] = g z.
__kernel __attribute__((reqd_work_group_size(GRU_TJ, GRU_TB, 1)))
void dlca_gru_back_step(__global const float *w_hh, __global const float *hs, __global const float *gates,
                        __global const float *dy, int has_dy, __global const float *dh_n, int has_dhn,
                        __global float *dgi, uint gi_m, uint gi_row, __global float *dgh, __global float *dhd,
                        __global float *dh0, uint t, uint B, uint T, uint H) {
  uint j = (uint)get_global_id(0), b = (uint)get_global_id(1), m = (uint)get_global_id(2);
  size_t BH = (size_t)B * H, G = 3 * (size_t)H;
  int last = t + 1 == T, final = t == T;
  uint s = final ? 0 : t + 1; // the step whose gradients flow back into h_t
  __local float dl[GRU_TB * GRU_TK], wl[GRU_TK * (GRU_TJ + 1)];
  float g = 0.0f;
  if (!last) g = dlca_gru_matvec_t(dgh + ((size_t)m * T + s) * B * G, w_hh + (size_t)m * G * H, B, H, dl, wl);
  if (j >= H || b >= B) return;
  size_t bj = (size_t)b * H + j;
  if (!last) g += dhd[((size_t)m * T + s) * BH + bj];
  else if (has_dhn) g = dh_n[(size_t)m * BH + bj];
  if (final) {
    dh0[(size_t)m * BH + bj] = g;
    return;
  }
  if (has_dy) g += dy[(((size_t)m * B + b) * T + t) * H + j];
  __global const float *q = gates + (((size_t)m * T + t) * B + b) * 4 * H;
  float r = q[j], z = q[H + j], n = q[2 * H + j], ghn = q[3 * H + j];
  float hp = hs[((size_t)m * (T + 1) + t) * BH + bj];
  float an = g * (1.0f - z) * (1.0f - n * n), ar = an * ghn * r * (1.0f - r), az = g * (hp - n) * z * (1.0f - z);
  __global float *di = dgi + (size_t)m * gi_m + ((size_t)b * T + t) * gi_row;
  __global float *dh = dgh + (((size_t)m * T + t) * B + b) * G;
  di[j] = ar, di[H + j] = az, di[2 * H + j] = an;
  dh[j] = ar, dh[H + j] = az, dh[2 * H + j] = an * r;
  dhd[((size_t)m * T + t) * BH + bj] = g * z;
}

// dst[m * cols + c] = sum over r < rows of src[m * sm + r * ld + c], in row order (the bias gradients).
__kernel __attribute__((reqd_work_group_size(GRU_WG, 1, 1)))
void dlca_gru_colsum(__global const float *src, uint rows, uint cols, uint ld, uint sm, __global float *dst,
                     uint n) {
  uint i = (uint)get_global_id(0);
  if (i >= n) return;
  uint m = i / cols, c = i % cols;
  __global const float *p = src + (size_t)m * sm + c;
  float acc = 0.0f, comp = 0.0f;
  for (uint r = 0; r < rows; r++) {
    float v = p[(size_t)r * ld] - comp, tt = acc + v;
    comp = (tt - acc) - v;
    acc = tt;
  }
  dst[i] = acc;
}
