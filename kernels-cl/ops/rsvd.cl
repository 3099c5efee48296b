// The Gaussian test matrix of the randomized SVD (issue 33), float32: entry
// (i, j) of z [rows, l] is Box-Muller on dlca_rng_u32(seed, i, 2j) and
// (seed, i, 2j + 1), the twin of dlca__rsvd_gauss (lib/ops/ref_rsvd.c).
#include "rng.cl"

// @tunable RSVD_WG 64 128 256 | 1..1024 pow2
#ifndef RSVD_WG
#define RSVD_WG 64
#endif

// 1: the orthonormalisations of the subspace iteration on the device (below), where l <= RSVD_LMAX; 0: the
// Cholesky factors on the host (lib/ops/rsvd_orth.c), a round trip a pass. The host reads it; no kernel does.
// @tunable RSVD_DEV 1 0 | 0, 1
#ifndef RSVD_DEV
#define RSVD_DEV 1
#endif

__kernel __attribute__((reqd_work_group_size(RSVD_WG, 1, 1)))
void dlca_rsvd_gauss(__global float *z, uint rows, uint l, ulong seed) {
  uint i = (uint)get_global_id(0);
  if (i >= rows * l) return;
  uint r = i / l, j = i % l;
  float u1 = ((float)dlca_rng_u32(seed, r, 2 * j) + 0.5f) * 2.3283064365386963e-10f;
  float u2 = ((float)dlca_rng_u32(seed, r, 2 * j + 1) + 0.5f) * 2.3283064365386963e-10f;
  z[i] = sqrt(-2.0f * log(fmax(u1, 1e-38f))) * cos(6.2831853071795865f * u2);
}

// Cholesky QR of a tall-skinny x [rows, l] without the host (lib/ops/rsvd_dev.c),
// l <= RSVD_LMAX: dlca_rsvd_gram sums x^T x over a fixed chunk of rows per
// work-group into part [P, l, l], dlca_rsvd_gram_sum adds the P parts in
// order; dlca_rsvd_chol (one work-group) factors G = R^T R (R upper, in float), writes R (where
// r_at is not ~0) and R^-1, and a flag (0 ok, 1 not positive definite or not finite);
// dlca_rsvd_trmul gives out = x R^-1 (and the final U = Q Ur, V = Z Vr). Every sum has a fixed order.
#define RSVD_LMAX 96
#define RSVD_T 16
#define RSVD_B (RSVD_LMAX / RSVD_T)

__kernel __attribute__((reqd_work_group_size(RSVD_T, RSVD_T, 1)))
void dlca_rsvd_gram(__global const float *x, uint rows, uint l, uint chunk, __global float *part) {
  __local float t[RSVD_T][RSVD_LMAX];
  uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1), me = ty * RSVD_T + tx, p = (uint)get_group_id(0);
  uint r0 = p * chunk, r1 = min(rows, r0 + chunk);
  float acc[RSVD_B][RSVD_B];
  for (int a = 0; a < RSVD_B; a++)
    for (int b = 0; b < RSVD_B; b++) acc[a][b] = 0.0f;
  for (uint r = r0; r < r1; r += RSVD_T) {
    for (uint e = me; e < RSVD_T * l; e += RSVD_T * RSVD_T) {
      uint rr = e / l, c = e % l;
      t[rr][c] = r + rr < r1 ? x[(size_t)(r + rr) * l + c] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int rr = 0; rr < RSVD_T; rr++)
#pragma unroll
      for (int a = 0; a < RSVD_B; a++) {
        float xa = t[rr][ty + a * RSVD_T];
#pragma unroll
        for (int b = 0; b < RSVD_B; b++)
          if (a * RSVD_T < (int)l && b * RSVD_T < (int)l) acc[a][b] = fma(xa, t[rr][tx + b * RSVD_T], acc[a][b]);
      }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global float *o = part + (size_t)p * l * l;
  for (int a = 0; a < RSVD_B; a++)
    for (int b = 0; b < RSVD_B; b++) {
      uint i = ty + a * RSVD_T, j = tx + b * RSVD_T;
      if (i < l && j < l) o[i * l + j] = acc[a][b];
    }
}

// g (l x l, local) <- its upper Cholesky factor R (G = R^T R); *bad set where a pivot is not positive and finite.
static void rsvd_cholesky(__local float *g, uint l, uint me, __local int *bad) {
  for (uint j = 0; j < l; j++) {
    float d = g[j * l + j], r = sqrt(d);
    if (me == 0 && !(d > 0.0f && isfinite(d))) *bad = 1;
    for (uint c = j + 1 + me; c < l; c += RSVD_T * RSVD_T) g[j * l + c] /= r;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (me == 0) g[j * l + j] = r;
    uint w = l - j - 1;
    for (uint e = me; e < w * w; e += RSVD_T * RSVD_T) {
      uint a = j + 1 + e / w, b = j + 1 + e % w;
      if (b >= a) g[a * l + b] -= g[j * l + a] * g[j * l + b];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// g (upper triangular R, local) <- R^-1 in place, column by column (LAPACK's trti2).
static void rsvd_inverse(__local float *g, uint l, uint me) {
  for (uint j = 0; j < l; j++) {
    float v = 0.0f, rj = g[j * l + j];
    if (me < j)
      for (uint c = me; c < j; c++) v = fma(g[me * l + c], g[c * l + j], v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (me < j) g[me * l + j] = -v / rj;
    if (me == j) g[j * l + j] = 1.0f / rj;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// gram [n] = the P parts of part [P, n] added in a fixed order (four interleaved sums).
__kernel __attribute__((reqd_work_group_size(RSVD_WG, 1, 1)))
void dlca_rsvd_gram_sum(__global const float *part, uint np, uint n, __global float *gram) {
  uint e = (uint)get_global_id(0);
  if (e >= n) return;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  uint p = 0;
  for (; p + 4 <= np; p += 4) {
    s0 += part[(size_t)p * n + e], s1 += part[(size_t)(p + 1) * n + e];
    s2 += part[(size_t)(p + 2) * n + e], s3 += part[(size_t)(p + 3) * n + e];
  }
  for (; p < np; p++) s0 += part[(size_t)p * n + e];
  gram[e] = (s0 + s1) + (s2 + s3);
}

__kernel __attribute__((reqd_work_group_size(RSVD_T * RSVD_T, 1, 1)))
void dlca_rsvd_chol(__global const float *gram, uint l, __global float *rinv, __global float *fac, uint r_at,
                    uint flag_at) {
  __local float g[RSVD_LMAX * RSVD_LMAX];
  __local int bad;
  uint me = (uint)get_local_id(0), n = l * l;
  for (uint e = me; e < n; e += RSVD_T * RSVD_T) g[e] = gram[e];
  if (me == 0) bad = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  rsvd_cholesky(g, l, me, &bad);
  for (uint e = me; r_at != 0xffffffffu && e < n; e += RSVD_T * RSVD_T) fac[r_at + e] = e % l >= e / l ? g[e] : 0.0f;
  rsvd_inverse(g, l, me);
  for (uint e = me; e < n; e += RSVD_T * RSVD_T) rinv[e] = e % l >= e / l ? g[e] : 0.0f;
  if (me == 0) fac[flag_at] = bad ? 1.0f : 0.0f;
}

// out [rows, kout] = x [rows, l] f (f [l, kout]); tri: f upper triangular (R^-1, kout = l), its zeros skipped.
__kernel __attribute__((reqd_work_group_size(RSVD_WG, 1, 1)))
void dlca_rsvd_trmul(__global const float *x, uint rows, uint l, __global const float *f, uint kout, uint tri,
                     __global float *out) {
  uint i = (uint)get_global_id(0);
  if (i >= rows * kout) return;
  uint r = i / kout, j = i % kout, end = tri ? j + 1 : l;
  __global const float *xr = x + (size_t)r * l;
  float s = 0.0f;
  for (uint c = 0; c < end; c++) s = fma(xr[c], f[c * kout + j], s);
  out[i] = s;
}

// 1: the products with A by dlca_rsvd_amul below (where l <= RSVD_LMAX); 0: CLBlast's GEMM, which runs n = l
// padded to its tiles (and may copy A transposed first). The host reads it.
// @tunable RSVD_GEMM 1 0 | 0, 1
#ifndef RSVD_GEMM
#define RSVD_GEMM 1
#endif
#define RSVD_TM 64
#define RSVD_TK 16

// One split of a tall-skinny product: part [split, rows, l] = A [rows, inner] x (at 0), or A^T x (at 1, A
// [inner, rows]), over inner's range [split * per, (split + 1) * per) (per a multiple of RSVD_TK); x [inner, l],
// A row-major with n columns. A group makes RSVD_TM rows of every column, 4 rows and up to RSVD_B columns an item.
__kernel __attribute__((reqd_work_group_size(RSVD_T, RSVD_T, 1)))
void dlca_rsvd_amul(__global const float *a, uint n, uint rows, uint inner, uint at, uint per,
                    __global const float *x, uint l, __global float *part) {
  __local float as[RSVD_TK][RSVD_TM + 1];
  __local float xs[RSVD_TK][RSVD_LMAX];
  uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1), me = ty * RSVD_T + tx;
  uint r0 = (uint)get_group_id(0) * RSVD_TM, sp = (uint)get_group_id(1), k1 = min(inner, (sp + 1) * per);
  float acc[4][RSVD_B];
  for (int i = 0; i < 4; i++)
    for (int b = 0; b < RSVD_B; b++) acc[i][b] = 0.0f;
  for (uint k0 = sp * per; k0 < k1; k0 += RSVD_TK) {
    for (uint e = me; e < RSVD_TM * RSVD_TK; e += RSVD_T * RSVD_T) {
      uint i = at ? e % RSVD_TM : e / RSVD_TK, kk = at ? e / RSVD_TM : e % RSVD_TK, r = r0 + i, k = k0 + kk;
      as[kk][i] = r < rows && k < k1 ? a[at ? (size_t)k * n + r : (size_t)r * n + k] : 0.0f;
    }
    for (uint e = me; e < RSVD_TK * l; e += RSVD_T * RSVD_T) {
      uint kk = e / l, j = e % l;
      xs[kk][j] = k0 + kk < k1 ? x[(size_t)(k0 + kk) * l + j] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < RSVD_TK; kk++) {
      float av[4];
      for (int i = 0; i < 4; i++) av[i] = as[kk][ty * 4 + i];
#pragma unroll
      for (int b = 0; b < RSVD_B; b++)
        if (b * RSVD_T < (int)l) {
          float xv = xs[kk][tx + b * RSVD_T];
          for (int i = 0; i < 4; i++) acc[i][b] = fma(av[i], xv, acc[i][b]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global float *o = part + (size_t)sp * rows * l;
  for (int i = 0; i < 4; i++)
    for (int b = 0; b < RSVD_B; b++) {
      uint r = r0 + ty * 4 + i, j = tx + b * RSVD_T;
      if (r < rows && j < l) o[(size_t)r * l + j] = acc[i][b];
    }
}
